r"""Frequency-based measures of a whole system of subsets (not averages over pairs).

F_f = number of the m results that select feature f (Prat Masramon 2016, eq. 2.39), V = ∪_i S_i the
features selected at least once, N = Σ_i |S_i| = Σ_f F_f.

Somol & Novovičová's consistency C / CW / CW_rel (Prat Masramon 2016, eqs. 2.39–2.42, 2.51,
2.52; Somol and Novovičová 2010), Křížek et al.'s entropy (eqs. 2.37–2.38, 2.50), Davis et al.
(2006) and Novovičová, Somol & Pudil (2009). All need m ≥ 2 results; a system in which no
feature is ever selected raises :class:`~stablefs.StablefsError` (there is nothing to be
consistent about) — except Křížek's entropy, which is defined for it.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs.stability._common import with_sections
from stablefs.stability._inputs import SubsetData, as_subsets, named, plain

if TYPE_CHECKING:
    from typing import Literal

    from stablefs.stability._inputs import FeatureNames, Subsets

__all__ = ["davis", "krizek", "novovicova", "somol", "somol_c", "somol_cw", "somol_cw_rel"]


def _nonempty(data: SubsetData, name: str) -> np.ndarray:
    F = data.Z.sum(axis=0).astype(np.float64)  # counts over V (the union)
    if F.size == 0:
        raise StablefsError(f"{name} is undefined when no feature is selected in any result.")
    return F


def _somol_c(data: SubsetData) -> float:
    F = _nonempty(data, "Somol's consistency C")
    return float(np.mean((F - 1) / (data.m - 1)))


def _somol_cw(data: SubsetData) -> float:
    F = _nonempty(data, "Somol's weighted consistency CW")
    N = F.sum()
    return float(np.sum(F / N * (F - 1) / (data.m - 1)))


def cw_bounds(N: int, m: int, p: int) -> tuple[float, float]:
    """(CW_min, CW_max) for N selections among p features in m results (Somol & Novovičová 2010).

    With D = N mod p and H = N mod m:
    CW_min = (N² − p (N − D) − D²) / (p N (m − 1)),  CW_max = (H² + N (m − 1) − H m) / (N (m − 1)).
    CW_min spreads the N selections as evenly as possible over the p features, CW_max stacks
    them into features selected by all m results (verified by enumeration in the tests).
    """
    D = N % p
    H = N % m
    cw_min = (N * N - p * (N - D) - D * D) / (p * N * (m - 1))
    cw_max = (H * H + N * (m - 1) - H * m) / (N * (m - 1))
    return float(cw_min), float(cw_max)


def _somol_cw_rel(data: SubsetData) -> float:
    F = _nonempty(data, "Somol's relative weighted consistency CW_rel")
    N = int(F.sum())
    cw = _somol_cw(data)
    lo, hi = cw_bounds(N, data.m, data.p)
    if hi - lo <= 1e-12:
        raise StablefsError(
            f"CW_rel is undefined here: with N = {N} selections among p = {data.p} features "
            f"in m = {data.m} results the attainable minimum and maximum of CW coincide."
        )
    return float((cw - lo) / (hi - lo))


def _krizek(data: SubsetData, normalize: bool = True) -> float:
    packed = np.packbits(data.Z, axis=1)            # one byte string per distinct subset
    counts = np.array(list(Counter(row.tobytes() for row in packed).values()))
    freq = counts / data.m
    H = float(-np.sum(freq * np.log(freq)))
    if not normalize:
        return H
    return float(1 - H / np.log(data.m))


def _davis(data: SubsetData, penalty: float = 0.0) -> float:
    F = _nonempty(data, "Davis' measure")
    value = float(np.mean(F / data.m))
    if penalty:
        value -= float(penalty * np.median(data.sizes) / data.p)
    return max(0.0, value)


def _novovicova(data: SubsetData) -> float:
    F = _nonempty(data, "Novovičová's measure")
    N = F.sum()
    return float(np.sum(F * np.log2(F)) / (N * np.log2(data.m)))


def _prep(subsets, n_features, needs_p: bool, feature_names=None) -> SubsetData:
    subsets, n_features, _ = named(subsets, n_features, feature_names)
    return as_subsets(subsets, n_features, require_p=needs_p, min_subsets=2)


_P_DOC = """
    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m ≥ 2 selection results.
    n_features : int, optional
        p; {note}
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    float
        The stability of the system of subsets.
"""


def _params(note: str):
    def deco(func):
        func.__doc__ = with_sections(func.__doc__, _P_DOC.format(note=note))
        return func

    return deco


@_params("not needed (the value does not depend on p).")
def somol_c(subsets: Subsets, n_features: int | None = None, *,
            feature_names: FeatureNames | None = None) -> float:
    r"""Somol & Novovičová's consistency C (Prat Masramon 2016, eqs. 2.39–2.40).

    C = (1/|V|) Σ_{f∈V} (F_f − 1)/(m − 1).

    * Range: [0, 1]; 1 iff all results are identical; 0 iff no feature is selected twice.
    * Corrected for chance: no.
    * Needs: m ≥ 2, at least one selected feature; any sizes.

    References
    ----------
    .. [1] P. Somol and J. Novovičová, "Evaluating stability and comparing output of feature
       selectors that optimize feature subset cardinality", IEEE Transactions on Pattern
       Analysis and Machine Intelligence 32(11), 1921–1939, 2010.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3, eqs. 2.39–2.40.

    Examples
    --------
    >>> from stablefs.stability import somol_c
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> round(somol_c(subsets), 3)
    0.667
    """
    return _somol_c(_prep(subsets, n_features, False, feature_names))


@_params("not needed (the value does not depend on p).")
def somol_cw(subsets: Subsets, n_features: int | None = None, *,
             feature_names: FeatureNames | None = None) -> float:
    r"""Somol & Novovičová's weighted consistency CW (Prat Masramon 2016, eqs. 2.41, 2.51).

    CW = Σ_f (F_f/N) (F_f − 1)/(m − 1),  N = Σ_i |S_i|.

    * Range: [0, 1]; 1 iff identical (the thesis' remark "N > n" is not needed).
    * Corrected for chance: no; random subsets of size k score k/p in expectation
      (E[F_f(F_f − 1)] = m(m − 1)(k/p)²).
    * Needs: m ≥ 2, at least one selected feature; any sizes.

    References
    ----------
    .. [1] P. Somol and J. Novovičová, "Evaluating stability and comparing output of feature
       selectors that optimize feature subset cardinality", IEEE Transactions on Pattern
       Analysis and Machine Intelligence 32(11), 1921–1939, 2010.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3, eqs. 2.41 and 2.51.

    Examples
    --------
    >>> from stablefs.stability import somol_cw
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> round(somol_cw(subsets), 3)
    0.722
    """
    return _somol_cw(_prep(subsets, n_features, False, feature_names))


@_params("required for index collections (CW_min depends on it).")
def somol_cw_rel(subsets: Subsets, n_features: int | None = None, *,
                 feature_names: FeatureNames | None = None) -> float:
    r"""Somol & Novovičová's relative weighted consistency CW_rel (Prat Masramon 2016, eq. 2.52).

    CW_rel = (CW − CW_min)/(CW_max − CW_min) with, for D = N mod p and H = N mod m,
    CW_min = (N² − p(N − D) − D²)/(p N (m − 1)) and CW_max = (H² + N(m − 1) − H m)/(N (m − 1)).
    The thesis omits the bounds; they are those of Somol & Novovičová (2010, IEEE TPAMI), and we
    checked them by enumeration.

    * Range: [0, 1]; 1 for identical subsets.
    * Corrected for chance: partially. It is often counted as chance-corrected, but
      CW_min is the most *even* spread of the N selections, not the expectation under random
      selection: random k-subsets score about k/p when m k < p, and about
      (p − k)/(p (m − 1)) / (CW_max − CW_min) > 0 otherwise, so random selection does not
      average 0 (use :func:`~stablefs.stability.nogueira` or :func:`kuncheva` for that).
    * Needs: m ≥ 2, p, at least one selected feature; any sizes; an error when
      CW_max = CW_min (e.g. a single selection overall).

    References
    ----------
    .. [1] P. Somol and J. Novovičová, "Evaluating stability and comparing output of feature
       selectors that optimize feature subset cardinality", IEEE Transactions on Pattern
       Analysis and Machine Intelligence 32(11), 1921–1939, 2010 (the bounds).
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3, eqs. 2.42 and 2.52.

    Examples
    --------
    >>> from stablefs.stability import somol_cw_rel
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> round(somol_cw_rel(subsets, n_features=10), 3)
    0.688
    """
    return _somol_cw_rel(_prep(subsets, n_features, True, feature_names))


def somol(subsets: Subsets, n_features: int | None = None, *,
          variant: Literal["cw_rel", "cw", "c"] = "cw_rel",
          feature_names: FeatureNames | None = None) -> float:
    """Somol & Novovičová's consistency; ``variant`` ∈ {"cw_rel" (default), "cw", "c"}.

    ``"cw_rel"`` (:func:`somol_cw_rel`) is the form recommended by its authors and the one
    Bommert's ``stabm`` calls "Somol"; ``"c"`` is the S_Somol of Prat Masramon (2016) and
    ``"cw"`` his S_WSomol. See the three functions for formulas, ranges and requirements.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m ≥ 2 selection results.
    n_features : int, optional
        p; required for index collections with ``variant="cw_rel"``.
    variant : {"cw_rel", "cw", "c"}
        Which consistency.
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    float
        The consistency.

    References
    ----------
    .. [1] P. Somol and J. Novovičová, "Evaluating stability and comparing output of feature
       selectors that optimize feature subset cardinality", IEEE Transactions on Pattern
       Analysis and Machine Intelligence 32(11), 1921–1939, 2010.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import somol
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> round(somol(subsets, n_features=10), 3)
    0.688
    >>> round(somol(subsets, variant="c"), 3)
    0.667
    """
    key = str(variant).lower()
    if key == "cw_rel":
        return somol_cw_rel(subsets, n_features, feature_names=feature_names)
    if key == "cw":
        return somol_cw(subsets, n_features, feature_names=feature_names)
    if key == "c":
        return somol_c(subsets, n_features, feature_names=feature_names)
    raise StablefsError(f"unknown Somol variant {plain(variant)}: use 'cw_rel', 'cw' or 'c'.")


def krizek(subsets: Subsets, n_features: int | None = None, *, normalize: bool = True,
           feature_names: FeatureNames | None = None) -> float:
    r"""Křížek et al.'s entropy of the distribution of distinct subsets (Prat Masramon 2016).

    H = −Σ_{distinct X} F_X log F_X, F_X = (number of results equal to X)/m (natural log).

    * ``normalize=True`` (default): S = 1 − H / log m, oriented as a stability —
      1 iff all results are identical, 0 iff no subset occurs twice. This is the reading
      that makes the thesis' sec. 2.3.2 ("constant 0" when no subset repeats) consistent;
      the thesis does not give the normalisation.
    * ``normalize=False``: the raw entropy H ∈ [0, log m] (0 = perfectly stable).
    * Corrected for chance: no. It ignores partial overlap entirely (Prat Masramon 2016,
      sec. 2.3.4, gives an example), so it is mostly useful for tiny p.
    * Needs: m ≥ 2; any sizes (the thesis uses equal sizes), empty subsets allowed; p not
      used.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m ≥ 2 selection results.
    n_features : int, optional
        Not needed.
    normalize : bool
        ``1 − H / log m`` (a stability) rather than the raw entropy.
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    float
        The normalised stability, or the entropy.

    References
    ----------
    .. [1] D. Křížek, J. Kittler and V. Hlaváč, "Improving stability of feature selection
       methods", Computer Analysis of Images and Patterns (CAIP 2007), LNCS 4673, 929–936,
       2007.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3, eqs. 2.37–2.38 and 2.50.

    Examples
    --------
    >>> from stablefs.stability import krizek
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> round(krizek(subsets), 3)
    0.25
    """
    return _krizek(_prep(subsets, n_features, False, feature_names), normalize)


def davis(subsets: Subsets, n_features: int | None = None, *, penalty: float = 0.0,
          feature_names: FeatureNames | None = None) -> float:
    r"""Davis et al. (2006) stability, as in Bommert's ``stabm::stabilityDavis``.

    S = max{0, (1/|V|) Σ_{f∈V} F_f/m − penalty · median(|S_1|, …, |S_m|)/p}.

    * Range: [0, 1]; 1 iff identical (with ``penalty=0``).
    * Corrected for chance: no; ``penalty`` > 0 penalises large subsets.
    * Needs: m ≥ 2, a selected feature; p only when ``penalty`` > 0.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m ≥ 2 selection results.
    n_features : int, optional
        p; needed when ``penalty`` > 0.
    penalty : float
        Weight of the size penalty (0 = none).
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    float
        The stability.

    References
    ----------
    .. [1] C. A. Davis, F. Gerick, V. Hintermair, C. C. Friedel, K. Fundel, R. Küffner and
       R. Zimmer, "Reliable gene signatures for microarray classification: assessment of
       stability and performance", Bioinformatics 22(19), 2356–2363, 2006.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import davis
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> round(davis(subsets), 3)
    0.75
    >>> round(davis(subsets, n_features=10, penalty=1.0), 3)
    0.45
    """
    if penalty < 0:
        raise StablefsError(f"penalty = {plain(penalty)} must be >= 0.")
    return _davis(_prep(subsets, n_features, penalty > 0, feature_names), float(penalty))


@_params("not needed.")
def novovicova(subsets: Subsets, n_features: int | None = None, *,
               feature_names: FeatureNames | None = None) -> float:
    r"""Novovičová, Somol & Pudil (2009) entropy-based stability, as in ``stabm``.

    SS = (1/(N log₂ m)) Σ_{f∈V} F_f log₂ F_f,  N = Σ_f F_f.

    * Range: [0, 1]; 1 iff identical, 0 iff no feature is selected twice.
    * Corrected for chance: no.
    * Needs: m ≥ 2, a selected feature; any sizes.

    References
    ----------
    .. [1] J. Novovičová, P. Somol and P. Pudil, "A new measure of feature selection
       algorithms' stability", IEEE Int. Conf. on Data Mining Workshops (ICDMW), 382–387,
       2009.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import novovicova
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> round(novovicova(subsets), 3)
    0.813
    """
    return _novovicova(_prep(subsets, n_features, False, feature_names))
