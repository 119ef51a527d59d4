"""Method strings: a small language to name a selector on the command line and in configs.

Grammar (``docs/DESIGN.md``, "Method strings")::

    spec   := prefix* name [ "(" key=value {, key=value} ")" ]
    prefix := "iw-" | "en-" | "wen-" | "ren-" | ...
    value  := a Python literal (int, float, str, bool, None)

``"relieff"`` is plain ReliefF; ``"iw-relieff"`` wraps it in margin-based instance weighting;
``"en-relieff(n_estimators=40)"`` wraps it in a bootstrap ensemble of 40 members. Stacked
prefixes nest from the outside in: ``"en-iw-ttest"`` is an ensemble of instance-weighted
t-tests. A parameter goes to the outermost object that has it (the ensemble's
``n_estimators``, the selector's ``n_neighbors``); a parameter nobody has is an error.

Every value is checked when the selector is built, before any work: :func:`make_selector`
runs scikit-learn's parameter validation (each class's ``_parameter_constraints``) on every
object of the wrapper chain and reports the first bad value in one line naming the method
string, the parameter, the value and what is allowed. :func:`validate_method` does only
that check, for callers (the command line) that want to refuse bad input up front. A string
without parameters that names only stablefs's own selectors and prefixes is checked by its
names alone, without importing scikit-learn: each of them builds with its defaults and
passes the check (``tests/test_methods.py`` builds every such selector, prefix pair and pair
of stacked prefixes), so the result is the same.
"""

from __future__ import annotations

import ast
import difflib
import importlib
from dataclasses import dataclass

from stablefs._errors import StablefsError

__all__ = [
    "PREFIXES", "SELECTORS", "MethodInfo", "available_methods", "describe_methods",
    "make_selector", "parse_method", "register_prefix", "register_selector", "validate_method",
]


@dataclass(frozen=True)
class MethodInfo:
    """A registered base method or prefix: where its class lives and what it does.

    Parameters
    ----------
    name : str
        The method name (``"relieff"``) or prefix without its ``-`` (``"iw"``).
    target : str
        ``"module:Class"`` (or a factory function) that builds it.
    description : str
        One line for ``stablefs methods``, with the paper.
    defaults : tuple of (str, object)
        Constructor arguments the name implies (``en-`` is a bootstrap ensemble with rank
        aggregation).

    See Also
    --------
    register_selector, register_prefix : Add an entry.

    Examples
    --------
    >>> from stablefs.methods import PREFIXES, SELECTORS
    >>> SELECTORS["relieff"].target, PREFIXES["wen"].defaults
    ('stablefs.selectors:ReliefF', (('aggregate', 'weight'), ('sampling', 'subsample')))
    >>> SELECTORS["relieff"].load().__name__
    'ReliefF'
    """

    name: str
    target: str  # "module:Class"
    description: str
    defaults: tuple = ()  # default constructor arguments, as (key, value) pairs

    def load(self):
        """Import and return the class (or factory) named by ``target``."""
        module, _, cls = self.target.partition(":")
        return getattr(importlib.import_module(module), cls)


#: base selectors by method name
SELECTORS: dict[str, MethodInfo] = {}
#: wrapping stabilizers by prefix (without the trailing "-")
PREFIXES: dict[str, MethodInfo] = {}


def register_selector(name, target, description, **defaults) -> None:
    """Register a base method name (used by ``stablefs methods`` and :func:`make_selector`).

    Parameters
    ----------
    name : str
        The method name, lower case.
    target : str
        ``"module:Class"`` of a selector (or of a function returning one).
    description : str
        One line, with the method's paper.
    **defaults
        Constructor arguments the name implies.

    Examples
    --------
    A selector of one's own, usable in method strings (and removed again here):

    >>> from stablefs.methods import SELECTORS, make_selector, register_selector
    >>> register_selector("fast-relieff", "stablefs.selectors:ReliefF",
    ...                   "ReliefF with 3 neighbours.", n_neighbors=3)
    >>> make_selector("en-fast-relieff").selector.n_neighbors
    3
    >>> del SELECTORS["fast-relieff"]
    """
    SELECTORS[name] = MethodInfo(name, target, description, tuple(sorted(defaults.items())))


def register_prefix(prefix, target, description, **defaults) -> None:
    """Register a prefix that wraps the selector after it in a stabilizer.

    Parameters
    ----------
    prefix : str
        The prefix without its ``-``.
    target : str
        ``"module:Class"`` of a stabilizer whose first argument is the selector.
    description : str
        One line, with the stabilizer's paper.
    **defaults
        Constructor arguments the prefix implies.

    Examples
    --------
    >>> from stablefs.methods import PREFIXES, make_selector, register_prefix
    >>> register_prefix("half", "stablefs.stabilizers:Ensemble",
    ...                 "ensemble of 10 half-samples.", sampling="subsample", fraction=0.5,
    ...                 n_estimators=10)
    >>> make_selector("half-ttest").fraction
    0.5
    >>> del PREFIXES["half"]
    """
    PREFIXES[prefix] = MethodInfo(prefix, target, description, tuple(sorted(defaults.items())))


register_selector("ttest", "stablefs.selectors:TTest",
                  "Welch t-statistic |t| per feature (two classes; F-statistic for more), "
                  "the filter of Xiao, Hua and Dougherty 2007.")
register_selector("fstat", "stablefs.selectors:FStatistic",
                  "one-way ANOVA F-statistic per feature (any number of classes); ranks the "
                  "groups of DRAGS in Yu, Ding and Loscalzo 2008.")
register_selector("relieff", "stablefs.selectors:ReliefF",
                  "ReliefF, K = 10 nearest hits and misses, every instance (Han 2012, "
                  "eqs. 5.1 and 5.3).")
register_selector("relief", "stablefs.selectors:Relief",
                  "Relief, one nearest hit and miss per instance, every instance or "
                  "n_samples random ones (Kira and Rendell 1992).")
register_selector("drelieff", "stablefs.selectors:DReliefF",
                  "dReliefF: ReliefF with neighbours under the distance weighted by the "
                  "weights found so far (Prat Masramon 2016, sec. 5.3, eq. 5.13).")
register_selector("pdrelieff", "stablefs.selectors:PDReliefF",
                  "pdReliefF: progressively weighted double ReliefF, a = 2, s = 0.0633657 "
                  "(Prat Masramon 2016, sec. 5.3, eqs. 5.14-5.16).")
register_selector("simba", "stablefs.selectors:Simba",
                  "Simba, linear utility, one pass over the instances (Gilad-Bachrach, Navot "
                  "and Tishby 2004).")
register_selector("simba-liw", "stablefs.selectors:Simba",
                  "SimbaLIW: Simba with logistic instance weights, Delta-combination (Prat "
                  "Masramon 2016, Alg. 8.1).",
                  instance_weighting="logistic", delta=True)
register_selector("simba-miw", "stablefs.selectors:Simba",
                  "SimbaMIW: Simba with margin-based instance weights (Han 2012), "
                  "Delta-combination (Prat Masramon 2016, Alg. 8.1).",
                  instance_weighting="margin", delta=True)
register_selector("logistic-margin", "stablefs.selectors:LogisticMarginWeighting",
                  "L2-regularised logistic loss on one-neighbour Manhattan margin vectors, "
                  "gamma = 1, solved by L-BFGS (Li et al. 2013, eq. 1); wen-/ren- give WEn/REn.")
register_selector("infogain", "stablefs.selectors:InfoGain",
                  "information gain H(C) - H(C|X) on Fayyad and Irani's (1993) MDL "
                  "discretisation, as Weka (Prat Masramon 2016, eq. 2.11, ch. 8).")
register_selector("oner", "stablefs.selectors:OneR",
                  "1R: training accuracy of each feature's one-rule (Holte 1993) on the MDL "
                  "discretisation (Prat Masramon 2016, ch. 8).")
register_selector("rf", "stablefs.selectors:RandomForestImportance",
                  "random-forest Gini importance, 500 trees, sqrt(p) features per split, "
                  "seeded (Breiman 2001; Prat Masramon 2016, ch. 8).")
register_selector("svm-rfe", "stablefs.selectors:SVMRFE", "SVM-RFE (Guyon et al. 2002; Han 2012 sec. 5.2.1): linear SVM, C = 1, removes 10 % of the remaining features per iteration.")  # noqa: E501
register_selector("sfs", "stablefs.selectors:SFS",
                  "sequential forward selection on the bolstered LDA error (Xiao, Hua and "
                  "Dougherty 2007, App. A); estimator= and criterion= change the rule.")
register_selector("sbs", "stablefs.selectors:SBS",
                  "sequential backward selection (SBG of Prat Masramon 2016, Alg. 2.2); "
                  "O(p^2) subsets, for pre-filtered data.")
register_selector("sffs", "stablefs.selectors:SFFS",
                  "sequential forward floating selection (Pudil, Novovicova and Kittler 1994; "
                  "Xiao, Hua and Dougherty 2007).")
register_selector("rsa", "stablefs.selectors:RSA",
                  "remainder-set-aware forward selection (Prat Masramon 2016, ch. 6, "
                  "Alg. 6.1); direction='backward' for the backward analogue.")
register_selector("sbg+", "stablefs.selectors:SBGPlus",
                  "backward selection with accumulated evidence, lambda = 2/3 (Prat Masramon "
                  "2016, ch. 7, Alg. 7.1).")
register_selector("drags", "stablefs.selectors:DRAGS",
                  "dense relevant feature groups (Yu, Ding and Loscalzo 2008, Algs. 1-2): "
                  "mean-shift groups ranked by mean F-statistic, one representative each.")
register_selector("kmeans-groups", "stablefs.selectors:KMeansGroups",
                  "K-means clusters of features (K = 100, 50 restarts), selected by their "
                  "representative's F-statistic (Yu, Ding and Loscalzo 2008, sec. 6.1).")
register_selector("l1-logistic", "stablefs.selectors:L1Logistic",
                  "L1-penalised (lasso) logistic regression, C = 1, standardised features; "
                  "scores |coef|, zero coefficients ordered by the path (Tibshirani 1996).")
register_selector("enet-logistic", "stablefs.selectors:ElasticNetLogistic",
                  "elastic-net penalised logistic regression, C = 1, l1_ratio = 0.5, "
                  "standardised features; scores |coef| (Zou and Hastie 2005).")
register_selector("stabsel", "stablefs.stabilizers.stability_selection:stabsel_l1_logistic",
                  "stability selection of L1 logistic regression: 50 complementary pairs of "
                  "half-samples, threshold 0.6, with the error bound (Meinshausen and "
                  "Buhlmann 2010; Shah and Samworth 2013).")
register_prefix("stabsel", "stablefs.stabilizers:StabilitySelection",
                "stability selection around the selector: its top q = 20 features on 50 "
                "complementary pairs of half-samples (Meinshausen and Buhlmann 2010; Shah "
                "and Samworth 2013).")
register_prefix("iw", "stablefs.stabilizers:MarginInstanceWeighting",
                "margin-based instance weighting around the selector (Han 2012, ch. 4, "
                "eqs. 4.2 and 4.6). Around SVM-RFE the weights are per-sample penalties "
                "(eq. 5.2): penalty=printed (default) bounds each sample at C w_i with the "
                "weights summing to 1, as printed and as Weka's SMO does, the thesis' "
                "behaviour; penalty=mean rescales them to mean 1, so equal weights give "
                "plain SVM-RFE and at k >= 50 they change nothing.")
register_prefix("liw", "stablefs.stabilizers:LogisticInstanceWeighting",
                "logistic instance weighting around the selector, alpha = 3.03 (Prat "
                "Masramon 2016, sec. 8.2, eq. 8.2).")
register_prefix("rw", "stablefs.stabilizers:ResampledInstanceWeighting",
                "logistic instance weights applied by weighted resampling, for selectors "
                "without instance weights; strategy='order' sorts by weight (Prat Masramon "
                "2016, Alg. 8.3).")
register_prefix("en", "stablefs.stabilizers:Ensemble",
                "bagging ensemble: 20 bootstraps, rank-sum aggregation (Han 2012, "
                "sec. 5.2.3).",
                sampling="bootstrap", aggregate="rank")
register_prefix("wen", "stablefs.stabilizers:Ensemble",
                "subsampling ensemble (90% without replacement) with mean-weight "
                "aggregation, WEn (Li et al. 2013).",
                sampling="subsample", aggregate="weight")
register_prefix("ren", "stablefs.stabilizers:Ensemble",
                "subsampling ensemble (90% without replacement) with rank-sum aggregation, "
                "REn (Li et al. 2013).",
                sampling="subsample", aggregate="rank")

#: the entries registered above; a method string made of these alone, without parameters, is
#: checked without building it (:func:`validate_method`)
_BUILTIN_SELECTORS: dict[str, MethodInfo] = dict(SELECTORS)
_BUILTIN_PREFIXES: dict[str, MethodInfo] = dict(PREFIXES)


def available_methods() -> list[str]:
    """List every base method name and every ``prefix-name`` combination of one prefix.

    Returns
    -------
    list of str
        The names, base methods first (sorted), then each prefix with each of them.

    See Also
    --------
    describe_methods : The names with their descriptions.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012.
    .. [2] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008.
    .. [3] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016.
    .. [4] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013.
    .. [5] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354.

    Examples
    --------
    >>> from stablefs.methods import available_methods
    >>> names = available_methods()
    >>> "relieff" in names, "iw-relieff" in names, "en-svm-rfe" in names
    (True, True, True)
    """
    names = sorted(SELECTORS)
    return names + [f"{p}-{n}" for p in sorted(PREFIXES) for n in names]


#: the longest method string (characters) and the most stacked prefixes: far beyond any
#: method (``stabsel-en-iw-relieff(n_neighbors=5)``), and small enough that a string made to
#: exhaust the parser's stack or memory is refused in one line
MAX_METHOD_CHARS = 1000
MAX_PREFIXES = 8


def _short_spec(spec: str) -> str:
    return repr(spec) if len(spec) <= 80 else repr(spec[:60]) + f"... ({len(spec):,} characters)"


def _parse_params(text: str, spec: str) -> dict:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise StablefsError(
            f"cannot read the parameters of method {_short_spec(spec)}: write them as "
            "name=value, e.g. relieff(n_neighbors=5)."
        ) from None
    if call.args or any(kw.arg is None for kw in call.keywords):
        raise StablefsError(
            f"method {_short_spec(spec)}: parameters must be named (name=value), not "
            "positional."
        )
    params = {}
    for kw in call.keywords:
        if kw.arg in params:
            raise StablefsError(
                f"method {_short_spec(spec)}: parameter {kw.arg!r} is given twice: give it "
                "once."
            )
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise StablefsError(
                f"method {_short_spec(spec)}: the value of {kw.arg!r} must be a number, "
                "string, True/False or None."
            ) from None
    return params


def parse_method(spec: str) -> tuple[list[str], str, dict]:
    """Split a method string into ``(prefixes, base_name, params)``.

    Parameters
    ----------
    spec : str
        A method string, e.g. ``"en-iw-relieff(n_neighbors=5)"``.

    Returns
    -------
    prefixes : list of str
        Outermost first.
    base_name : str
        The registered base method.
    params : dict
        The parameters in parentheses, as Python values.

    Raises
    ------
    StablefsError
        An unknown name (with the closest known ones), unbalanced parentheses, or a value that
        is not a Python literal.

    Examples
    --------
    >>> from stablefs.methods import parse_method
    >>> parse_method("en-iw-relieff(n_neighbors=5, neighbor_weights='uniform')")
    (['en', 'iw'], 'relieff', {'n_neighbors': 5, 'neighbor_weights': 'uniform'})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise StablefsError("empty method string: name a method, e.g. -m relieff.")
    spec = str(spec)  # a numpy string would print as np.str_('...') in messages
    if len(spec) > MAX_METHOD_CHARS:
        raise StablefsError(f"method {_short_spec(spec)} is longer than {MAX_METHOD_CHARS:,} "
                            "characters: no method string is; check -m.")
    text = spec.strip()
    params: dict = {}
    if "(" in text:
        if not text.endswith(")"):
            raise StablefsError(f"method {spec!r}: unbalanced parentheses.")
        text, _, inner = text.partition("(")
        params = _parse_params(inner[:-1], spec)
    name = text.strip().lower()
    prefixes = []
    while name not in SELECTORS:
        head, sep, rest = name.partition("-")
        if sep and head in PREFIXES:
            prefixes.append(head)
            if len(prefixes) > MAX_PREFIXES:
                raise StablefsError(
                    f"method {_short_spec(spec)} stacks more than {MAX_PREFIXES} prefixes: "
                    "each prefix wraps the method once more; use a few (e.g. en-iw-relieff).")
            name = rest
            continue
        close = difflib.get_close_matches(text.strip().lower(), available_methods(), n=3,
                                          cutoff=0.6)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise StablefsError(
            f"unknown method {spec!r}.{hint} Run 'stablefs methods' for the full list."
        )
    return prefixes, name, params


def make_selector(spec: str, **overrides):
    """Build the (possibly wrapped) selector that a method string names.

    Parameters
    ----------
    spec : str
        A method string such as ``"relieff"``, ``"iw-relieff"``, ``"en-ttest(n_estimators=40)"``.
    **overrides
        Extra parameters, applied like the ones in parentheses (they win over them), e.g.
        ``random_state`` or ``n_jobs``. Unlike parameters in the string, an override that no
        object in the chain accepts is ignored, so callers can pass ``random_state`` to any
        method.

    Returns
    -------
    selector : BaseEstimator
        Unfitted; the outermost stabilizer when there are prefixes.

    Raises
    ------
    StablefsError
        One line, before any fitting: an unknown method or parameter, or a value the
        parameter's constraints refuse (e.g. ``relieff(n_neighbors=-3)``,
        ``en-relieff(aggregate="mean")``).

    See Also
    --------
    validate_method : The same checks without building.

    References
    ----------
    .. [1] L. Buitinck et al., "API design for machine learning software: experiences from
       the scikit-learn project", ECML PKDD Workshop on Languages for Data Mining and
       Machine Learning, 108–122, 2013 (the estimators built, their parameters and checks).

    Examples
    --------
    >>> from stablefs.methods import make_selector
    >>> selector = make_selector("en-relieff(n_estimators=10, n_neighbors=5)", random_state=0)
    >>> type(selector).__name__, selector.n_estimators, selector.random_state
    ('Ensemble', 10, 0)
    >>> type(selector.selector).__name__, selector.selector.n_neighbors
    ('ReliefF', 5)
    >>> make_selector("relieff(n_neighbors=-3)")
    Traceback (most recent call last):
    ...
    stablefs._errors.StablefsError: method 'relieff(n_neighbors=-3)': n_neighbors = -3 is not
    allowed; ...
    """
    from stablefs.selectors._constraints import invalid_parameter, plain

    prefixes, name, params = parse_method(spec)
    spec = str(spec)
    estimator = SELECTORS[name].load()(**dict(SELECTORS[name].defaults))
    for prefix in reversed(prefixes):
        info = PREFIXES[prefix]
        estimator = info.load()(estimator, **dict(info.defaults))
    chain = _chain(estimator)
    for key, value in params.items():
        if isinstance(value, str) and any(key in getattr(obj, "_selector_params", ())
                                          for obj in chain):
            value = make_selector(value)  # e.g. drags(relevance='ttest')
        if not _assign(chain, key, value):
            valid = sorted({p for obj in chain for p in obj.get_params(deep=False)} - {"selector"})
            raise StablefsError(
                f"method {spec!r}: unknown parameter {key!r}; valid parameters are "
                f"{', '.join(valid)}."
            )
        _refuse_ignored(chain, key, value, spec)
    for key, value in overrides.items():
        _assign(chain, key, value, every=True)
    for obj in chain:
        bad = invalid_parameter(obj)
        if bad is not None:
            key, value, allowed = bad
            raise StablefsError(
                f"method {spec!r}: {key} = {plain(value)} is not allowed; {key} must be "
                f"{allowed}."
            )
    return estimator


def validate_method(spec: str, **overrides) -> None:
    """Check a method string completely without fitting anything.

    The name, the prefixes, the parameter names and every parameter value (against the
    scikit-learn constraints of each object in the wrapper chain) are checked exactly as
    :func:`make_selector` checks them; the command line calls this for every ``-m`` value
    before it touches the output folder.

    Parameters
    ----------
    spec : str
        A method string, e.g. ``"en-relieff(n_estimators=40)"``.
    **overrides
        As for :func:`make_selector` (e.g. ``random_state``, ``n_jobs``), checked too.

    Raises
    ------
    StablefsError
        One line naming the method string, the problem and what is allowed.

    Notes
    -----
    A string without parameters or overrides that names only stablefs's own selectors and
    prefixes (``"en-relieff"``) is checked by parsing it: every such selector builds with its
    defaults and passes the constraint check, so building it could not fail. This keeps
    scikit-learn out of the command line's checks of its default methods.

    References
    ----------
    .. [1] L. Buitinck et al., "API design for machine learning software: experiences from
       the scikit-learn project", ECML PKDD Workshop on Languages for Data Mining and
       Machine Learning, 108–122, 2013 (the estimators built, their parameters and checks).

    Examples
    --------
    >>> from stablefs.methods import validate_method
    >>> validate_method("wen-logistic-margin(n_estimators=40)")
    >>> validate_method("relief(n_neighbours=5)")
    Traceback (most recent call last):
    ...
    stablefs._errors.StablefsError: method 'relief(n_neighbours=5)': unknown parameter
    'n_neighbours'; valid parameters are ...
    """
    if overrides or _builtin_parts(spec) is None:
        make_selector(spec, **overrides)


def _builtin_parts(spec: str) -> list[MethodInfo] | None:
    """The registered entries that a method string without parameters names, outermost
    prefix first, when all of them are stablefs's own (:data:`_BUILTIN_SELECTORS`,
    :data:`_BUILTIN_PREFIXES`); None for a string with parameters or a name registered by a
    user. Raises as :func:`parse_method` does."""
    prefixes, name, params = parse_method(spec)
    if params:
        return None
    parts = [PREFIXES[p] for p in prefixes] + [SELECTORS[name]]
    builtin = [_BUILTIN_PREFIXES.get(p) for p in prefixes] + [_BUILTIN_SELECTORS.get(name)]
    if any(part is not own for part, own in zip(parts, builtin)):
        return None
    return parts


def promises_permutation(template: object) -> bool:
    """Whether the fits of ``template`` promise a ranking that is a permutation of the
    features and finite scores.

    A method string naming only stablefs's own selectors and prefixes (with any parameters)
    does; objects and names registered by users promise nothing (the resume state of a run
    is checked by this: ``stablefs.evaluation.runner``).

    Parameters
    ----------
    template : str or estimator
        A method string or a selector object.

    Returns
    -------
    bool

    Examples
    --------
    >>> from stablefs.methods import promises_permutation
    >>> promises_permutation("iw-relieff(n_neighbors=5)")
    True
    >>> promises_permutation("nosuch-method")
    False
    """
    if not isinstance(template, str):
        return False
    try:
        prefixes, name, _ = parse_method(template)
    except StablefsError:
        return False
    return (SELECTORS.get(name) is _BUILTIN_SELECTORS.get(name) is not None
            and all(PREFIXES.get(p) is _BUILTIN_PREFIXES.get(p) is not None
                    for p in prefixes))


def _refuse_ignored(chain, key: str, value, spec: str) -> None:
    """A parameter given for the selector inside a wrapper that sets it on every fit would be
    ignored silently: refused in one line (``stabsel(C=0.5)``)."""
    owner = next(i for i, obj in enumerate(chain) if key in obj.get_params(deep=False))
    for outer in chain[:owner]:
        sets = getattr(outer, "inner_params_set", None)
        why = sets().get(key) if callable(sets) else None
        if why:
            raise StablefsError(
                f"method {spec!r}: {key} = {value!r} would be ignored: {why}; leave {key} "
                "out of the method string.")


def _chain(estimator) -> list:
    chain = [estimator]
    while "selector" in chain[-1].get_params(deep=False):
        chain.append(chain[-1].selector)
    return chain


def _assign(chain, key, value, every=False) -> bool:
    done = False
    for obj in chain:
        if key in obj.get_params(deep=False):
            obj.set_params(**{key: value})
            done = True
            if not every:
                break
    return done


#: size parameters of the selectors and stabilizers, checked against the data by
#: :func:`check_method_sizes`
_SIZE_PARAMETERS = ("n_features_to_select", "max_features", "q")

#: the whole-number size parameters that stablefs's own selectors and prefixes have by default,
#: by registered target (StabilitySelection's q = 20 top features per half-sample; Meinshausen
#: and Buhlmann 2010); ``tests/test_methods.py`` checks this against the built selectors
_DEFAULT_SIZES: dict[str, tuple] = {
    "stablefs.stabilizers:StabilitySelection": (("q", 20),),
    "stablefs.stabilizers.stability_selection:stabsel_l1_logistic": (("q", 20),),
}


#: the repetition parameters of the selectors and stabilizers: each multiplies the member
#: fits of one fit (:mod:`stablefs.evaluation.budget`), by the weight given (stability
#: selection fits two half-samples per subsample)
REPETITIONS = {"n_estimators": 1, "n_subsamples": 2, "n_init": 1, "n_iter": 1,
               "n_passes": 1, "n_draws": 1}

#: the repetitions that stablefs's own selectors and prefixes have by default, by registered
#: target; ``tests/test_methods.py`` checks this against the built selectors
_DEFAULT_REPETITIONS: dict[str, tuple] = {
    "stablefs.stabilizers:Ensemble": (("n_estimators", 20),),
    "stablefs.stabilizers:StabilitySelection": (("n_subsamples", 50),),
    "stablefs.stabilizers.stability_selection:stabsel_l1_logistic": (("n_subsamples", 50),),
    "stablefs.stabilizers:MarginInstanceWeighting": (("n_iter", 1),),
    "stablefs.selectors:RandomForestImportance": (("n_estimators", 500),),
    "stablefs.selectors:KMeansGroups": (("n_init", 50),),
    "stablefs.selectors:Simba": (("n_passes", 1),),
    **{f"stablefs.selectors:{cls}": (("n_draws", 10),)
       for cls in ("SFS", "SBS", "SFFS", "RSA", "SBGPlus")},
}


def _chain_params(spec: str, names, defaults: dict, build: bool = False
                  ) -> list[tuple[str, int]]:
    """``(parameter, value)`` of every whole-number parameter among ``names`` of the wrapper
    chain that ``spec`` names, outermost first: from ``defaults`` (by registered target) for
    a string of stablefs's own names without parameters (unless ``build``), from the built
    selector otherwise."""
    parts = None if build else _builtin_parts(spec)
    if parts is None:
        chain = [obj.get_params(deep=False) for obj in _chain(make_selector(spec))]
    else:
        chain = [dict(defaults.get(info.target, ())) for info in parts]
    return [(key, params[key]) for params in chain for key in names
            if isinstance(params.get(key), int) and not isinstance(params.get(key), bool)]


def _chain_sizes(spec: str, build: bool = False) -> list[tuple[str, int]]:
    """The size parameters (:data:`_SIZE_PARAMETERS`) of ``spec``'s chain
    (:func:`_chain_params`)."""
    return _chain_params(spec, _SIZE_PARAMETERS, _DEFAULT_SIZES, build)


def chain_repetitions(spec: str, build: bool = False) -> list[tuple[str, int, int]]:
    """The repetitions (:data:`REPETITIONS`) of ``spec``'s wrapper chain, outermost first.

    Read without building the selectors for stablefs's own names without parameters.

    Parameters
    ----------
    spec : str
        A method string.
    build : bool, default False
        Build the chain to read every parameter (a user's selector, a parameter given).

    Returns
    -------
    list of (parameter, value, weight)
        ``weight``: the member fits each repetition costs (stability selection fits each
        of its ``n_subsamples`` subsamples and its complement: 2).

    Examples
    --------
    >>> from stablefs.methods import chain_repetitions
    >>> chain_repetitions("en-relieff(n_estimators=50)")
    [('n_estimators', 50, 1)]
    >>> chain_repetitions("stabsel-iw-relieff")
    [('n_subsamples', 50, 2), ('n_iter', 1, 1)]
    """
    return [(key, value, REPETITIONS[key]) for key, value in
            _chain_params(spec, tuple(REPETITIONS), _DEFAULT_REPETITIONS, build)]


def check_method_sizes(specs, n_features: int) -> None:
    """Refuse, before any fit, a size parameter in a method string that the data cannot
    meet (``-m "sfs(n_features_to_select=30)"`` on 20 features, ``stabsel-relieff`` with its
    default ``q = 20`` on 10 features), with one line naming the method string and ``-k``.

    Parameters
    ----------
    specs : iterable of str
        Method strings (other objects are skipped).
    n_features : int
    """
    for spec in specs:
        if not isinstance(spec, str):
            continue
        for key, value in _chain_sizes(spec):
            if value > n_features:
                hint = (" (compare and select take the sizes from -k; leave "
                        "n_features_to_select out of the method string)"
                        if key == "n_features_to_select" else "")
                raise StablefsError(
                    f"method {spec!r}: {key} = {value} is more than the {n_features} features "
                    f"of the data: choose {key}={n_features} or less{hint}."
                )


def honour_sizes(selector, sizes):
    """Stop forward wrapper searches (SFS, SFFS, forward RSA) at the largest size of ``sizes``
    (the ``-k`` of ``compare``) when the method string sets neither
    ``n_features_to_select`` nor ``max_features``: only the first ``max(sizes)`` features of
    the ranking are evaluated, and a forward path on thousands of features would otherwise
    evaluate O(p^2) subsets. Backward searches must visit every size and are left alone.
    Returns ``selector``."""
    from stablefs.selectors.wrappers._selectors import WrapperSelector

    top = max(int(k) for k in sizes) if len(sizes) else None
    for obj in _chain(selector):
        if top is None or not isinstance(obj, WrapperSelector):
            continue
        forward = getattr(obj, "direction", "forward") == "forward" and \
            type(obj).__name__ in ("SFS", "SFFS", "RSA")
        if forward and obj.n_features_to_select is None and obj.max_features is None:
            obj.set_params(max_features=top)
    return selector


def build_selector(template, seed: int, sizes=None):
    """A fresh selector for one fit, built as every fit of a comparison builds it.

    A method string is built by :func:`make_selector` with ``random_state=seed`` and
    ``n_jobs=1`` (workers run one fit each), then stopped at ``max(sizes)`` by
    :func:`honour_sizes`; a selector object is cloned and given ``random_state=seed`` when it
    has one. The comparison's fits, the pilot fits of the time estimate and of the benchmark,
    and the permutation test's refits all build through here, so a forward wrapper searches
    as far in each of them.

    Parameters
    ----------
    template : str or selector
        A method string (``"sfs"``, ``"en-relieff(n_estimators=40)"``) or an unfitted
        selector.
    seed : int
        The fit's seed.
    sizes : sequence of int, optional
        The subset sizes the fit serves (``-k``); ``None`` leaves forward searches unbounded.
    """
    if isinstance(template, str):
        selector = make_selector(template, random_state=seed, n_jobs=1)
        return selector if sizes is None else honour_sizes(selector, sizes)
    from sklearn.base import clone

    selector = clone(template)
    if "random_state" in selector.get_params():
        selector.set_params(random_state=seed)
    return selector


def describe_methods() -> list[tuple[str, str]]:
    """List ``(name, description)`` rows for ``stablefs methods``.

    Returns
    -------
    list of (str, str)
        One row per base method (sorted), then one per prefix (``"iw-<method>"``, ...).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012.
    .. [2] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008.
    .. [3] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016.
    .. [4] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013.
    .. [5] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354.

    Examples
    --------
    >>> from stablefs.methods import describe_methods
    >>> rows = dict(describe_methods())
    >>> print(rows["relieff"])
    ReliefF, K = 10 nearest hits and misses, every instance (Han 2012, eqs. 5.1 and 5.3).
    >>> print(rows["en-<method>"])
    bagging ensemble: 20 bootstraps, rank-sum aggregation (Han 2012, sec. 5.2.3).
    """
    rows = [(name, info.description) for name, info in sorted(SELECTORS.items())]
    rows += [(f"{p}-<method>", info.description) for p, info in sorted(PREFIXES.items())]
    return rows
