"""The value scale of expression data: raw (unlogged) intensities and the ``log2`` option.

Microarray values arrive either as intensities straight off the scanner (Affymetrix MAS4/MAS5
signals, cDNA channel intensities: positive, spanning several orders of magnitude, strongly
right-skewed, with zeros and, after MAS4 background subtraction, negative values) or already
on a log scale (log2 signals, log ratios: a few units wide, roughly symmetric). Distance-based
selectors (ReliefF, Simba), the t-test and linear models behave very differently on the two:
on raw intensities a handful of bright probes dominate every distance. :func:`looks_raw`
decides which scale a matrix is on, :func:`raw_hint` words the one-line warning, and
:func:`log2_transform` is the fix (``load(..., log2=True)``, CLI ``--log2``):
``log2(max(x, 0) + 1)``.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from dataclasses import dataclass

import numpy as np

from stablefs._errors import StablefsError

logger = logging.getLogger("stablefs")

#: the 99th percentile of the values above which data may be raw intensities (log2 signals
#: of any array stay below ~20, log10 below ~6; raw signals reach thousands)
RAW_HIGH_QUANTILE = 100.0
#: the sample skewness of the pooled values above which the distribution counts as strongly
#: right-skewed (log-scale data: about -0.5 to 1; raw intensities: 5 to 25)
RAW_SKEWNESS = 2.0
#: fewer features than this is not an expression profile: a table of a few clinical
#: variables in different units (UCI diabetes: insulin up to 846) is not judged
RAW_MIN_FEATURES = 100
#: larger matrices are judged on a fixed sample of at most this many values (whole rows;
#: :func:`value_scale`)
SAMPLE_VALUES = 2_000_000


@dataclass(frozen=True)
class ValueScale:
    """Summary of a data matrix's values (``stablefs datasets NAME``, the raw-data hint).

    Attributes
    ----------
    minimum, median, maximum, q99 : float
        Of the finite values.
    skewness : float
        Sample skewness (third standardised moment, not bias-corrected) of the finite values.
    fraction_zero, fraction_negative : float
    n_features : int
    raw : bool
        :func:`looks_raw`'s verdict.
    """

    minimum: float
    median: float
    maximum: float
    q99: float
    skewness: float
    fraction_zero: float
    fraction_negative: float
    n_features: int
    raw: bool

    def describe(self) -> str:
        """``"min -28400, median 120, max 71369: looks like raw intensities (...)"``."""
        verdict = ("looks like raw (unlogged) intensities: compare and select analyse "
                   "log2(max(x, 0) + 1) (--scale auto, the default)" if self.raw else
                   "looks log-scale (or not intensities)")
        return (f"min {_num(self.minimum)}, median {_num(self.median)}, max "
                f"{_num(self.maximum)}; skewness {self.skewness:.1f}, "
                f"{100 * self.fraction_negative:.0f}% negative, "
                f"{100 * self.fraction_zero:.1f}% zeros: {verdict}")


def _num(v: float) -> str:
    return f"{v:.4g}" if abs(v) < 1e4 or abs(v) >= 1e9 else f"{v:.0f}"


def value_scale(X) -> ValueScale:
    """Summarise the values of ``X`` and decide whether they look like raw intensities.

    The rule (:func:`looks_raw`): data are called raw when **all three** hold

    1. at least :data:`RAW_MIN_FEATURES` (100) features (an expression profile, not a table of
       a few variables in different units);
    2. the 99th percentile of the values exceeds :data:`RAW_HIGH_QUANTILE` (100): no log2
       (< ~20) or log10 (< ~6) expression scale reaches it;
    3. the pooled values are strongly right-skewed: sample skewness above
       :data:`RAW_SKEWNESS` (2).

    Zeros and negative values do not decide (MAS4 signals have both, log ratios have
    negatives); they are reported. On the shared microarray sets this calls Colon (skewness
    6.2, 99th percentile 3510), Leukemia (7.1, 14750), Prostate (21.6, 443), Lung (17.4,
    2273 on every second sample; 17.8, 2282 on all) and DLBCL (6.4, 16774) raw, and SRBCT
    (-0.02, 1.6) log-scale; log2(x + 1) of Colon has skewness 0.23 and is not called raw.

    On matrices of more than :data:`SAMPLE_VALUES` values (2 million: Lung, 181 x 12,533, is
    just above it; the other shared microarray sets below) every statistic is that of every
    ``s``-th sample (row), ``s`` the smallest step that keeps at most 2 million values: a
    fixed, deterministic sample of whole rows (all features), read contiguously. On a
    5000 x 20000 matrix the check then reads 16 MB instead of sorting 100 million values.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        NaN (missing values) are ignored.

    Returns
    -------
    ValueScale
    """
    X = np.asarray(X, dtype=np.float64)
    rows = X.reshape(-1, X.shape[-1]) if X.ndim else X.reshape(1, 1)
    step = -(-rows.size // SAMPLE_VALUES)  # ceil: every step-th row, at most SAMPLE_VALUES values
    values = (rows[::step] if step > 1 else rows).reshape(-1)
    values = values[np.isfinite(values)]
    if values.size == 0:
        nan = float("nan")
        return ValueScale(nan, nan, nan, nan, nan, 0.0, 0.0, X.shape[-1], False)
    lo, hi = float(values.min()), float(values.max())
    q50, q99 = np.percentile(values, [50, 99])
    centred = values - values.mean()
    sd = np.sqrt(np.mean(centred**2))
    skew = float(np.mean(centred**3) / sd**3) if sd > 0 else 0.0
    n_features = X.shape[1] if X.ndim == 2 else values.size
    raw = bool(n_features >= RAW_MIN_FEATURES and q99 > RAW_HIGH_QUANTILE
               and skew > RAW_SKEWNESS)
    return ValueScale(lo, float(q50), hi, float(q99), skew, float(np.mean(values == 0)),
                      float(np.mean(values < 0)), n_features, raw)


def looks_raw(X) -> bool:
    """Whether ``X`` looks like raw (unlogged) intensities; the rule of :func:`value_scale`."""
    return value_scale(X).raw


def raw_hint(name: str, scale: ValueScale, *, applied: bool = False,
             kept: bool = False) -> str:
    """The one line for raw-looking data: what was done (``applied``: log2 by the default
    ``scale="auto"``; ``kept``: the values as given, ``scale="raw"`` asked for) or, from
    :func:`stablefs.datasets.load`, the option that transforms them."""
    seen = (f"{name}: the values look like raw (unlogged) intensities (median "
            f"{_num(scale.median)}, 99th percentile {_num(scale.q99)}, skewness "
            f"{scale.skewness:.1f})")
    if applied:
        return (f"{seen}: analysing log2(max(x, 0) + 1) (scale auto, the default; "
                "scale='raw' (CLI --scale raw) keeps the values as given).")
    if kept:
        return (f"{seen}: analysed as given, as scale='raw' (CLI --scale raw) asks; the "
                "default, scale auto, analyses log2(max(x, 0) + 1).")
    return (f"{seen}; most selectors expect log-scale expression: log2=True (CLI --log2) "
            "analyses log2(max(x, 0) + 1), as stablefs.compare and the command line do by "
            "default (scale auto).")


#: whether :func:`warn_if_raw` speaks (off inside :func:`raw_hint_off`)
_RAW_HINT = contextvars.ContextVar("stablefs_raw_hint", default=True)


@contextlib.contextmanager
def raw_hint_off():
    """No raw-intensity hint while loading (a caller that decides the scale itself, as
    ``compare``, ``select`` and ``benchmark`` do, states what it did instead)."""
    token = _RAW_HINT.set(False)
    try:
        yield
    finally:
        _RAW_HINT.reset(token)


def warn_if_raw(ds) -> bool:
    """Log :func:`raw_hint` (one ``stablefs: warning:`` line) when ``ds.X`` looks raw and has
    not been log-transformed; returns whether it warned."""
    if ds.meta.get("log2") or not _RAW_HINT.get():
        return False
    scale = value_scale(ds.X)
    if scale.raw:
        logger.warning(raw_hint(ds.name, scale))
    return scale.raw


def log2_transform(X) -> tuple[np.ndarray, int]:
    """``log2(max(X, 0) + 1)`` and the number of negative values it set to 0
    (``load(..., log2=True)``, CLI ``--log2``).

    The offset is 1 for every value: zeros map to 0 and positive intensities to
    ``log2(x + 1)``, which is ``log2(x)`` to within 0.01 for the x > 100 of expressed genes.
    Negative values, which MAS4-era Affymetrix signals (Leukemia, Prostate, Lung, DLBCL)
    hold for probes below background, are floored at 0 first: they measure "not expressed",
    as the thresholding of Dudoit, Fridlyand and Speed 2002 (floor 100 on Golub's data)
    treats them. A shift by ``1 - min(X)`` was rejected: with Leukemia's minimum of -28400 it
    would squeeze all values into a nearly linear band (log2 of 28400 to 100000) and undo the
    purpose of the transform. The floor is one rule for every feature and sample, needs no
    statistics of the data (so nothing leaks between training and test parts) and is
    recorded (``meta["log2"]``) and announced when it applies. NaN stays NaN.

    Returns
    -------
    X_log : ndarray, float64
    n_floored : int
        How many negative values became 0.
    """
    X = np.asarray(X, dtype=np.float64)
    if np.isinf(X).any():
        raise StablefsError("--log2: the data hold infinite values; remove them first.")
    n_negative = int(np.count_nonzero(X < 0))
    # one new matrix, transformed in place (max(x, 0) keeps NaN as np.where(x < 0, 0, x) did)
    out = np.maximum(X, 0.0)
    out += 1.0
    return np.log2(out, out=out), n_negative


def check_log2(log2) -> bool:
    """``log2=`` must be True or False (one line otherwise)."""
    if not isinstance(log2, (bool, np.bool_)):
        raise StablefsError(f"log2={log2!r} must be True or False (CLI --log2).")
    return bool(log2)


def log2_dataset(ds, *, warn: bool = True, before: ValueScale | None = None):
    """``ds`` with ``X`` replaced by :func:`log2_transform` and ``meta["log2"]`` recording the
    rule (``{"formula": "log2(max(x, 0) + 1)", "offset": 1, "negative_floored": n,
    "min_before": ..., "max_before": ...}``); one warning line when negatives were floored
    (``warn=False``: the caller states it, as ``stablefs benchmark`` does). ``before`` is
    :func:`value_scale` of ``ds.X`` when the caller has it already."""
    import os

    from stablefs._runtime.memory import MEMORY_LIMIT_ENV, check_fits

    # the transform makes one new float64 matrix (and a boolean mask) beside the data: under
    # STABLEFS_MEMORY_LIMIT the load as a whole (data and copy) must fit in it; otherwise the
    # copy must fit in what the machine still has (the data hold their part already)
    values = int(np.size(ds.X))
    limited = bool(os.environ.get(MEMORY_LIMIT_ENV, "").strip())
    check_fits((17 if limited else 9) * values, ds.name,
               "the data and their log2(max(x, 0) + 1) copy" if limited
               else "their log2(max(x, 0) + 1) copy",
               hint="use a machine with more memory, keep fewer features first, or keep the "
                    "values as given (--scale raw)")
    before = value_scale(ds.X) if before is None else before
    X, floored = log2_transform(ds.X)
    ds.X = np.ascontiguousarray(X)
    ds.meta["log2"] = {"formula": "log2(max(x, 0) + 1)", "offset": 1,
                       "negative_floored": floored, "min_before": before.minimum,
                       "max_before": before.maximum}
    if floored and warn:
        logger.warning(f"log2: {floored} negative values ({100 * floored / X.size:.1f}% of "
                       f"{ds.name}) count as 0 (below background): log2(max(x, 0) + 1).")
    return ds
