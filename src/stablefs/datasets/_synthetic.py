"""Synthetic data with known relevant features (Han 2012, sec. 6.1; Xiao, Hua and Dougherty
2007, sec. 2.2).

Both generators sample Gaussian vectors whose covariance Σ is block-diagonal with equicorrelated
blocks (1 on the diagonal, ρ off it). Σ is never formed: each block is multiplied by its
symmetric square root, which for an equicorrelation block of size b has the closed form

    A = sqrt(1 − ρ) I + c J,   c = (sqrt(1 + (b − 1) ρ) − sqrt(1 − ρ)) / b,

(J the all-ones matrix; A² = Σ_block), so ``x_block = A e`` with ``e ~ N(0, I)`` costs O(b) per
block and is exact for every admissible ρ ∈ [−1/(b − 1), 1].
"""

from __future__ import annotations

import difflib
import inspect
import math
import numbers
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs.datasets._dataset import Dataset

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray

    from stablefs._validation import SeedLike

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _rng(random_state) -> np.random.Generator:
    """A NumPy Generator from None, an int, a SeedSequence, a Generator or a RandomState."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.uint64))
    if random_state is None or isinstance(
        random_state, numbers.Integral | np.random.SeedSequence | np.random.Generator
    ):
        if isinstance(random_state, numbers.Integral):
            if int(random_state) < 0:
                raise StablefsError(f"random_state = {random_state} must be non-negative.")
            random_state = int(random_state)
        return np.random.default_rng(random_state)
    raise StablefsError(
        f"random_state must be None, a non-negative int or a NumPy Generator, not {random_state!r}."
    )


def _int(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise StablefsError(f"{name} = {value!r} must be a whole number.")
    if value < minimum:
        raise StablefsError(f"{name} = {value} must be at least {minimum}.")
    return int(value)


def _float(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise StablefsError(f"{name} = {value!r} must be a number.")
    if not math.isfinite(float(value)):
        raise StablefsError(f"{name} = {value} must be finite.")
    return float(value)


def _check_rho(rho, block_size: int) -> float:
    rho = _float(rho, "rho")
    low = -1.0 / (block_size - 1) if block_size > 1 else -np.inf
    if not low <= rho <= 1.0:
        raise StablefsError(
            f"rho = {rho} does not give a valid covariance for blocks of {block_size}: it must "
            f"lie in [{low:.4g}, 1]."
        )
    return rho


def _equicorrelated(E: np.ndarray, rho: float) -> np.ndarray:
    """Map rows of independent N(0, 1) blocks ``E`` (n, n_blocks, b) to N(0, Σ_block)."""
    b = E.shape[-1]
    s = math.sqrt(1.0 - rho)
    c = (math.sqrt(max(0.0, 1.0 + (b - 1) * rho)) - s) / b
    return s * E + c * E.sum(axis=-1, keepdims=True)


def block_gaussian(
    rng: np.random.Generator,
    n_samples: int,
    n_features: int,
    block_size: int,
    rho: float,
    *,
    n_blocks: int | None = None,
) -> np.ndarray:
    """Draw ``n_samples`` rows of N(0, Σ) with Σ block-diagonal and equicorrelated blocks.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_samples, n_features : int
    block_size : int
        Size b of each block (1 on the diagonal, ``rho`` off it).
    rho : float
    n_blocks : int, optional
        Number of full blocks, starting at feature 0; features after ``n_blocks × b`` are
        independent N(0, 1). By default the features are cut into ``ceil(p / b)`` blocks, the
        last one possibly shorter.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    X = rng.standard_normal((n_samples, n_features))
    full = n_features // block_size if n_blocks is None else n_blocks
    m = full * block_size
    if m:
        X[:, :m] = _equicorrelated(X[:, :m].reshape(n_samples, full, block_size), rho).reshape(
            n_samples, m
        )
    if n_blocks is None and m < n_features:
        tail = X[:, m:]
        X[:, m:] = _equicorrelated(tail[:, None, :], rho)[:, 0, :]
    return X


# --------------------------------------------------------------------------------------------
# Han 2012, sec. 6.1
# --------------------------------------------------------------------------------------------


def make_han2012(
    n_samples: int = 100,
    n_features: int = 1000,
    n_blocks: int = 100,
    block_size: int = 10,
    rho: float = 0.8,
    n_relevant: int = 50,
    mean: float = 0.5,
    weight: float | ArrayLike | None = None,
    balanced: bool = True,
    label_by: Literal["sign", "component"] = "sign",
    random_state: SeedLike | np.random.RandomState = None,
) -> Dataset:
    r"""Draw the synthetic data of Han (2012), sec. 6.1 ("Experimental Setup").

    Each sample is drawn from one of two Gaussian components
    :math:`\mathcal N_1(\mu_1, \Sigma)` and :math:`\mathcal N_2(\mu_2, \Sigma)` with
    :math:`\mu_1 = (+m, \dots, +m, 0, \dots, 0)` and :math:`\mu_2 = -\mu_1` (``m = mean``
    on the first ``n_relevant`` features). Σ is block-diagonal: ``n_blocks`` blocks of
    ``block_size`` features with 1 on the diagonal and ``rho`` off it; features beyond
    ``n_blocks × block_size`` (none with the defaults) are independent N(0, 1). The optimal
    weight vector is :math:`r^* = (w, \dots, w, 0, \dots, 0)` on the first ``n_relevant``
    features, ``w = 1 / n_relevant`` = 0.02 by default, so that :math:`\sum_j r^*_j = 1`.
    Defaults reproduce the paper: 100 samples, 1000 features, 100 blocks of 10, ρ = 0.8, 50
    relevant features, m = 0.5.

    Parameters
    ----------
    n_samples : int
        Number of samples (the paper's training sets have 100).
    n_features : int
        Total number of features (at least ``n_blocks × block_size``).
    n_blocks, block_size : int
        Correlated groups of features: ``n_blocks`` groups of ``block_size``.
    rho : float
        Within-block correlation (off-diagonal of each block).
    n_relevant : int
        Number of leading features with a non-zero mean shift and non-zero weight in r*.
    mean : float
        Mean shift m of component 1 on the relevant features (component 2 has −m).
    weight : float or array-like of length n_relevant, optional
        The non-zero entries of r*. A scalar gives equal weights (the paper); an array gives
        unequal relevance. ``relevance`` is r* normalised to sum 1 (as the normalised SVM
        weights it is compared with in Han 2012, eqs. 3.1–3.4); the labels depend only on
        the direction of r*. Entries must be positive.
    balanced : bool
        True: exactly ``n_samples // 2`` samples from component 1 and the rest from component 2
        ("50 from N1 and 50 from N2"). False: each sample's component is drawn with
        probability 1/2.
    label_by : {"sign", "component"}
        How the class is decided. ``"sign"`` (default): :math:`y = \operatorname{sign}(r^{*T}
        x)` ∈ {1, −1}, as the paper states ("the class label of each instance … is decided by
        the sign of a linear combination … according to the optimal weight vector").
        ``"component"``: y = 1 for samples of :math:`\mathcal N_1`, −1 for :math:`\mathcal N_2`.
        The paper also says each training set has 50 instances from each component; with
        ``"sign"`` the *labels* are then not exactly balanced: with the defaults about 11 %
        of the samples get the label of the other component
        (:math:`P = \Phi(-0.5 / \sqrt{0.0004 \cdot 410}) \approx 0.11`).
    random_state : int, Generator or None
        Seed; the same seed gives the same data.

    Returns
    -------
    Dataset
        ``X`` (n_samples, n_features), ``y`` int array of 1 / −1, ``relevance`` (r*, sums to 1),
        ``relevant`` (indices 0 … n_relevant − 1). ``meta["component"]`` holds each sample's
        component (1 or 2) and ``meta["params"]`` the parameters.

    Notes
    -----
    Samples are generated in a random order (components interleaved), so the first rows are
    not all from one component.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 6.1.

    Examples
    --------
    A small version (20 samples, 3 blocks of 10 features, the first 5 relevant):

    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=20, n_features=30, n_blocks=3, n_relevant=5,
    ...                     random_state=0)
    >>> data.X.shape
    (20, 30)
    >>> print(*data.relevant)
    0 1 2 3 4
    >>> round(float(data.relevance.sum()), 3), round(float(data.relevance[0]), 3)
    (1.0, 0.2)
    >>> sorted(set(data.y.tolist()))
    [-1, 1]
    """
    n_samples = _int(n_samples, "n_samples")
    n_features = _int(n_features, "n_features")
    n_blocks = _int(n_blocks, "n_blocks", 0)
    block_size = _int(block_size, "block_size")
    n_relevant = _int(n_relevant, "n_relevant", 1)
    rho = _check_rho(rho, block_size)
    mean = _float(mean, "mean")
    if n_blocks * block_size > n_features:
        raise StablefsError(
            f"n_blocks × block_size = {n_blocks} × {block_size} = {n_blocks * block_size} "
            f"exceeds n_features = {n_features}."
        )
    if n_relevant > n_features:
        raise StablefsError(f"n_relevant = {n_relevant} exceeds n_features = {n_features}.")
    if label_by not in ("sign", "component"):
        raise StablefsError(f"label_by = {label_by!r} must be 'sign' or 'component'.")
    if weight is None:
        w = np.full(n_relevant, 1.0 / n_relevant)
    else:
        w = np.asarray(weight, dtype=float)
        if w.ndim == 0:
            w = np.full(n_relevant, float(w))
        if w.shape != (n_relevant,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise StablefsError(
                f"weight must be a positive number or {n_relevant} positive numbers "
                "(the non-zero entries of r*)."
            )
    r_star = np.zeros(n_features)
    r_star[:n_relevant] = w
    relevance = r_star / r_star.sum()

    rng = _rng(random_state)
    if balanced:
        n1 = n_samples // 2
        component = np.r_[np.ones(n1, dtype=np.int64), np.full(n_samples - n1, 2, np.int64)]
        component = component[rng.permutation(n_samples)]
    else:
        component = np.where(rng.random(n_samples) < 0.5, 1, 2).astype(np.int64)
    X = block_gaussian(rng, n_samples, n_features, block_size, rho, n_blocks=n_blocks)
    sign = np.where(component == 1, 1.0, -1.0)
    X[:, :n_relevant] += sign[:, None] * mean

    if label_by == "sign":
        y = np.where(X @ r_star > 0, 1, -1).astype(np.int64)
    else:
        y = np.where(component == 1, 1, -1).astype(np.int64)
    params = {
        "n_samples": n_samples,
        "n_features": n_features,
        "n_blocks": n_blocks,
        "block_size": block_size,
        "rho": rho,
        "n_relevant": n_relevant,
        "mean": mean,
        "weight": None if weight is None else w.tolist(),
        "balanced": bool(balanced),
        "label_by": label_by,
        "random_state": random_state if isinstance(random_state, numbers.Integral) else None,
    }
    return Dataset(
        X=np.ascontiguousarray(X),
        y=y,
        feature_names=np.asarray([f"f{j}" for j in range(n_features)], dtype=str),
        name="synthetic:han2012",
        relevance=relevance,
        relevant=np.arange(n_relevant),
        source="synthetic:han2012",
        meta={"component": component, "params": params, "reference": "Han 2012, sec. 6.1"},
    )


# --------------------------------------------------------------------------------------------
# Xiao, Hua & Dougherty 2007, sec. 2.2
# --------------------------------------------------------------------------------------------


def xiao2007_mu(
    n_features: int = 200, block_size: int = 20, best: float = 0.3, other: float = 0.05
) -> NDArray[np.float64]:
    r"""Return the base mean vector μ used by :func:`make_xiao2007`.

    The paper (Xiao, Hua and Dougherty 2007, Figure 2) shows μ only as a plot: 200 values
    between 0 and about 0.35, with :math:`\mu_1, \mu_{21}, \dots, \mu_{181}` (the first
    feature of each block of 20) much larger than the rest; the exact values are in a
    companion file that is not available. We use, within every block, ``best`` (0.3) for the
    block's first feature and, for its other features at offsets i = 1 … b − 1, the linearly
    decreasing values :math:`other \cdot (b - i) / (b - 1)` (0.05, 0.047, …, 0.0026). This is

    * deterministic and inside the plotted range;
    * such that the first feature of each block is the unique best one of its block, and, as
      the best features of different blocks are independent and equally strong, the 10 block
      leaders form the best 10-feature set, as the paper states;
    * of a difficulty "possible but not too easy": with μa = 1.75 μ, the Bayes error of
      the equal-covariance model on the 10 best features is
      :math:`\Phi(-\tfrac12 \cdot 2 \cdot 1.75 \cdot 0.3 \sqrt{10}) \approx 0.048`.

    Parameters
    ----------
    n_features : int
        Length of μ (D = 200 in the paper).
    block_size : int
        Features per block; the first of each block gets ``best``.
    best : float
        μ of the first feature of each block.
    other : float
        The largest μ of the other features of a block (offset 1); it decreases linearly to
        ``other / (block_size − 1)`` at the block's last feature.

    Returns
    -------
    ndarray of shape (n_features,)
        The base mean vector.

    References
    ----------
    .. [1] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, sec. 2.2 and Figure 2.

    Examples
    --------
    >>> from stablefs.datasets import xiao2007_mu
    >>> mu = xiao2007_mu(n_features=6, block_size=3)
    >>> print(*[round(float(v), 3) for v in mu])
    0.3 0.05 0.025 0.3 0.05 0.025
    """
    mu = np.empty(n_features)
    for start in range(0, n_features, block_size):
        b = min(block_size, n_features - start)
        offs = np.arange(b)
        vals = other * (block_size - offs) / max(1, block_size - 1)
        vals[0] = best
        mu[start : start + b] = vals
    return mu


_XIAO_SCALE = {"equal": 1.75, "unequal": 1.75, "bimodal": 4.0}


def make_xiao2007(
    model: Literal["equal", "unequal", "bimodal"] = "equal",
    n_samples: int = 100,
    n_features: int = 200,
    block_size: int = 20,
    rho: float = 0.1,
    scale: float | None = None,
    mu: ArrayLike | None = None,
    random_state: SeedLike | np.random.RandomState = None,
) -> Dataset:
    r"""Draw data from a Gaussian model of Xiao, Hua and Dougherty (2007), sec. 2.2 ("Data").

    Two equiprobable classes, 0 and 1, each with exactly half the samples (class 0 gets the
    extra sample when ``n_samples`` is odd):

    * ``"equal"`` (model a): class 0 ~ N(μa, Σ), class 1 ~ N(−μa, Σ); LDA is Bayes-optimal.
    * ``"unequal"`` (model b): class 0 ~ N(μb, Σ), class 1 ~ N(−μb, 2Σ); QDA is optimal.
    * ``"bimodal"`` (model c): class 0 ~ N(0, Σ); class 1 ~ the equiprobable mixture of
      N(μc, Σ) and N(−μc, Σ) (each class-1 sample's component drawn with probability 1/2).

    with μa = μb = 1.75 μ and μc = 4.0 μ (``scale`` overrides the factor). Σ is block-diagonal
    with blocks of ``block_size`` = 20, 1 on the diagonal and ρ = 0.1 off it (a shorter last
    block when ``block_size`` does not divide ``n_features``). The best features are the first
    of each block: 0, 20, …, 180 (the paper's 1st, 21st, …, 181st), mutually independent.

    Parameters
    ----------
    model : {"equal", "unequal", "bimodal"}
        The model: equal covariances (a), unequal covariances (b) or a bimodal class 1 (c).
    n_samples : int
        N (the paper uses 50 and 100).
    n_features : int
        D = 200 in the paper.
    block_size : int
        Features per correlated block (20 in the paper).
    rho : float
        Correlation within a block (0.1 in the paper).
    scale : float, optional
        Factor applied to μ; default 1.75 for "equal"/"unequal", 4.0 for "bimodal".
    mu : array-like of length n_features, optional
        The base mean vector μ. Default :func:`xiao2007_mu`, our reconstruction of the paper's
        Figure 2 (the paper gives μ only as a plot; see that function for the values and why).
    random_state : int, Generator or None
        Seed; the same seed gives the same data.

    Returns
    -------
    Dataset
        ``y`` int array of 0 / 1; ``relevant`` = indices of the best features (the first of
        each block); ``relevance`` = 1/10 on them and 0 elsewhere (the known optimal feature
        set, normalised to sum 1). ``meta["mu"]`` is the base μ, ``meta["class_means"]`` the
        two class means, and for the bimodal model ``meta["component"]`` is 0 for class 0 and
        +1 / −1 for the class-1 component (mean +μc / −μc).

    References
    ----------
    .. [1] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, sec. 2.2.

    Examples
    --------
    >>> from stablefs.datasets import make_xiao2007
    >>> data = make_xiao2007("bimodal", n_samples=50, random_state=0)
    >>> data.X.shape, int((data.y == 1).sum())
    ((50, 200), 25)
    >>> print(*data.relevant[:4])
    0 20 40 60
    """
    if model not in _XIAO_SCALE:
        close = difflib.get_close_matches(str(model), list(_XIAO_SCALE), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise StablefsError(f"model = {model!r} is not one of 'equal', 'unequal', 'bimodal'{hint}.")
    n_samples = _int(n_samples, "n_samples", 2)
    n_features = _int(n_features, "n_features")
    block_size = _int(block_size, "block_size")
    rho = _check_rho(rho, block_size)
    factor = _XIAO_SCALE[model] if scale is None else _float(scale, "scale")
    if mu is None:
        base = xiao2007_mu(n_features, block_size)
    else:
        base = np.asarray(mu, dtype=float).ravel()
        if base.shape != (n_features,) or not np.all(np.isfinite(base)):
            raise StablefsError(f"mu must be {n_features} finite numbers (one per feature).")
    m = factor * base

    rng = _rng(random_state)
    n1 = n_samples // 2
    n0 = n_samples - n1
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n1, dtype=np.int64)]
    y = y[rng.permutation(n_samples)]
    X = block_gaussian(rng, n_samples, n_features, block_size, rho)
    is1 = y == 1
    meta: dict = {"mu": base, "scale": factor, "model": model,
                  "reference": "Xiao, Hua and Dougherty 2007, sec. 2.2"}
    if model == "equal":
        X[~is1] += m
        X[is1] -= m
        meta["class_means"] = (m, -m)
    elif model == "unequal":
        X[is1] *= math.sqrt(2.0)
        X[~is1] += m
        X[is1] -= m
        meta["class_means"] = (m, -m)
    else:
        component = np.zeros(n_samples, dtype=np.int64)
        component[is1] = np.where(rng.random(int(is1.sum())) < 0.5, 1, -1)
        X += component[:, None] * m
        meta["component"] = component
        meta["class_means"] = (np.zeros(n_features), np.zeros(n_features))
    best = np.arange(0, n_features, block_size)
    relevance = np.zeros(n_features)
    relevance[best] = 1.0 / best.size
    meta["params"] = {
        "model": model,
        "n_samples": n_samples,
        "n_features": n_features,
        "block_size": block_size,
        "rho": rho,
        "scale": factor,
        "random_state": random_state if isinstance(random_state, numbers.Integral) else None,
    }
    return Dataset(
        X=np.ascontiguousarray(X),
        y=y,
        feature_names=np.asarray([f"f{j}" for j in range(n_features)], dtype=str),
        name=f"synthetic:xiao2007?model={model}",
        relevance=relevance,
        relevant=best,
        source="synthetic:xiao2007",
        meta=meta,
    )


# --------------------------------------------------------------------------------------------
# "synthetic:NAME?key=value&..." specs
# --------------------------------------------------------------------------------------------

GENERATORS: dict[str, Callable[..., Dataset]] = {"han2012": make_han2012,
                                                 "xiao2007": make_xiao2007}


def _parse_value(text: str):
    low = text.strip().lower()
    if low in ("none", "null"):
        return None
    if low == "true":
        return True
    if low == "false":
        return False
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text.strip()


def from_spec(spec: str, random_state: int = 0) -> Dataset:
    """Build a synthetic data set from ``"synthetic:NAME?key=value&key=value"``.

    Query values are parsed as int, then float, then ``none``/``true``/``false``, else kept as
    text: ``"synthetic:han2012?n_samples=200&random_state=3"``,
    ``"synthetic:xiao2007?model=bimodal&n_samples=50"``. Unknown generators or parameters are
    errors that list the valid ones.

    A spec without ``random_state`` is drawn with ``random_state`` (the run's seed, ``--seed``;
    default 0), never from fresh entropy: the same spec always gives the same data.
    """
    body = spec.split(":", 1)[1] if ":" in spec else spec
    gname, _, query = body.partition("?")
    gname = gname.strip().lower()
    if gname not in GENERATORS:
        close = difflib.get_close_matches(gname, list(GENERATORS), n=2, cutoff=0.5)
        hint = f" (did you mean {' or '.join('synthetic:' + c for c in close)}?)" if close else ""
        raise StablefsError(
            f"unknown synthetic data set {spec!r}{hint}: known are "
            f"{', '.join('synthetic:' + g for g in GENERATORS)}."
        )
    gen = GENERATORS[gname]
    allowed = list(inspect.signature(gen).parameters)
    params: dict = {}
    for part in filter(None, query.split("&")):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise StablefsError(f"{spec!r}: parameter {part!r} is not of the form key=value.")
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise StablefsError(
                f"{spec!r}: unknown parameter {key!r}{hint}; synthetic:{gname} takes "
                f"{', '.join(allowed)}."
            )
        params[key] = _parse_value(value)
    if "random_state" in allowed and params.get("random_state") is None:
        params["random_state"] = random_state
    ds = gen(**params)
    ds.meta["random_state"] = params.get("random_state")
    ds.name = spec
    ds.source = spec
    return ds
