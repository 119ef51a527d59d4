"""Input forms shared by every stability measure.

A *system of subsets* (m selection results over p features) may be given as

* a sequence of index collections (lists, tuples, sets, 1-D integer arrays), one per result,
  with ``n_features`` = p;
* a boolean matrix of shape (m, p) (``dtype=bool``; ``n_features`` optional, must match);
* a sequence of 1-D boolean masks of length p (mixing masks and index collections is allowed);
* a sequence of collections of feature *names*, with ``feature_names=`` (the p column names of
  the data, in order): every measure takes ``feature_names`` and maps the names to their
  column indices (a name not in ``feature_names`` is an error listing a few); ``n_features``
  then defaults to ``len(feature_names)``;
* the ``split{i}_support`` entries of scikit-learn's ``RFECV.cv_results_`` (see
  :func:`subsets_from_cv_results`) or the top-k features of a rankings matrix (see
  :func:`top_k_subsets`).

Everything is converted to a :class:`SubsetData`: the (m × u) boolean matrix restricted to the
u features selected at least once (columns never selected contribute nothing to any
intersection, so every pairwise intersection still comes from one matrix product), the
subset sizes, and p. Bad input raises :class:`~stablefs.StablefsError` with one line.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence
    from typing import TypeAlias

    import pandas as pd
    from numpy.typing import ArrayLike, NDArray

    #: one selection result: a collection of feature indices or names, or a boolean mask
    Subset: TypeAlias = Collection[int | np.integer | str] | ArrayLike
    #: a system of subsets in any of the forms above
    Subsets: TypeAlias = "SubsetData | pd.DataFrame | ArrayLike | Sequence[Subset]"
    #: the p column names of the data, in order
    FeatureNames: TypeAlias = Sequence[str] | NDArray[np.str_] | NDArray[np.object_] | pd.Index

__all__ = [
    "SubsetData",
    "as_subsets",
    "check_feature_names",
    "listing",
    "named",
    "names_in",
    "names_to_indices",
    "plain",
    "as_reference",
    "as_rankings",
    "as_weights",
    "check_alpha",
    "check_n_features",
    "check_data_matrix",
    "subsets_from_cv_results",
    "top_k_order",
    "top_k_subsets",
]


@dataclass(frozen=True)
class SubsetData:
    """m subsets of p features, stored on the union of the selected features.

    Attributes
    ----------
    Z : ndarray of bool, shape (m, u)
        Membership of the u features selected at least once (columns ``cols``).
    cols : ndarray of int, shape (u,)
        Feature indices of the columns of ``Z`` (sorted).
    sizes : ndarray of int, shape (m,)
        Subset sizes k_i.
    p : int
        Number of features (``n_features``).
    p_known : bool
        False when p was only inferred (largest index + 1) for a measure that does not need it.
    """

    Z: np.ndarray
    cols: np.ndarray
    sizes: np.ndarray
    p: int
    p_known: bool = True

    @property
    def m(self) -> int:
        return int(self.Z.shape[0])

    def counts(self) -> np.ndarray:
        """Selection counts F_f over all p features (length p)."""
        out = np.zeros(self.p, dtype=np.int64)
        out[self.cols] = self.Z.sum(axis=0)
        return out

    def dense(self) -> np.ndarray:
        """The full (m × p) boolean matrix."""
        out = np.zeros((self.m, self.p), dtype=bool)
        out[:, self.cols] = self.Z
        return out

    def intersections(self) -> np.ndarray:
        """All pairwise intersection sizes |S_i ∩ S_j| (m × m) from one matrix product."""
        u = self.Z.shape[1]
        dtype = np.float32 if u < 2**24 else np.float64  # integer sums stay exact
        Zf: np.ndarray = self.Z.astype(dtype)
        return np.rint(Zf @ Zf.T).astype(np.int64)

    def subset(self, rows) -> SubsetData:
        """The results ``rows`` only (used by the jackknife)."""
        Z = self.Z[rows]
        keep = Z.any(axis=0)
        return SubsetData(Z[:, keep], self.cols[keep], self.sizes[rows], self.p, self.p_known)

    def index_sets(self) -> list[np.ndarray]:
        return [self.cols[row] for row in self.Z]


def check_n_features(n_features, *, required: bool = True) -> int | None:
    """Validate ``n_features`` (a positive whole number)."""
    if n_features is None:
        if required:
            raise StablefsError(
                "n_features is required when subsets are given as index collections: "
                "pass n_features=p (the number of features in the data)."
            )
        return None
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral):
        raise StablefsError(f"n_features = {plain(n_features)} must be a whole number >= 1.")
    if n_features < 1:
        raise StablefsError(f"n_features = {n_features} must be at least 1.")
    return int(n_features)


def check_alpha(alpha) -> float:
    """Validate a significance level in (0, 1)."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise StablefsError(f"alpha = {plain(alpha)} must be a number in (0, 1).") from None
    if not 0.0 < a < 1.0:
        raise StablefsError(
            f"alpha = {plain(alpha)} must lie in (0, 1), e.g. 0.05 for a 95% interval."
        )
    return a


def plain(value) -> str:
    """A value as a user would write it (``'a'``, ``3``, ``0.5``), never ``np.str_('a')``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        return repr(str(value))
    if value is None or isinstance(value, (bool, numbers.Number)):
        return repr(value)
    return f"an object of type {type(value).__name__}"


def listing(items, limit: int = 3) -> str:
    """``'a', 'b', 'c' and 4 more``: the first ``limit`` items written plainly."""
    items = list(items)
    shown = ", ".join(plain(x) for x in items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit} more"


def check_feature_names(feature_names, n_features=None) -> list[str] | None:
    """Validate ``feature_names``: p distinct strings, one per column (``None`` passes).

    ``n_features``, when also given, must equal their number.
    """
    if feature_names is None:
        return None
    if isinstance(feature_names, (str, bytes)):
        raise StablefsError(
            f"feature_names = {plain(feature_names)} is a single string: pass one name per "
            "feature column (a list, an array or a pandas Index)."
        )
    raw = feature_names.tolist() if hasattr(feature_names, "tolist") else list(feature_names)
    if any(isinstance(x, (list, tuple, np.ndarray)) for x in raw):
        raise StablefsError("feature_names must be a flat sequence of names, one per column.")
    bad = [x for x in raw if not isinstance(x, str)]
    if bad:
        raise StablefsError(
            f"feature_names must be strings (the data's column names); got {listing(bad)}: "
            "for integer column positions pass the subsets as indices without feature_names."
        )
    names = [str(x) for x in raw]
    if not names:
        raise StablefsError("feature_names is empty: pass the names of the p feature columns.")
    if len(set(names)) < len(names):
        seen, dup = set(), []
        for x in names:
            if x in seen and x not in dup:
                dup.append(x)
            seen.add(x)
        raise StablefsError(
            f"feature_names repeats {listing(dup)}: each column needs its own name to be "
            "found by name."
        )
    p = check_n_features(n_features, required=False)
    if p is not None and p != len(names):
        raise StablefsError(
            f"n_features = {p} but feature_names lists {len(names)} names: they must agree "
            "(or leave n_features out)."
        )
    return names


def names_in(item) -> list | None:
    """The names of a collection of strings, or None when ``item`` holds no strings."""
    if isinstance(item, (str, bytes)) or _is_scalar(item):
        return None
    if isinstance(item, np.ndarray) and item.dtype.kind not in "OUS":
        return None                      # numeric indices or a mask: no scan needed
    try:
        values = item.tolist() if hasattr(item, "tolist") else list(item)
    except TypeError:
        return None
    if not any(isinstance(x, str) for x in values):
        return None
    return values


def names_to_indices(values: list, pos: int, what: str, lookup: dict | None) -> np.ndarray:
    """Column indices of the names ``values`` (item ``pos`` of ``what``), one-line errors."""
    others = [x for x in values if not isinstance(x, str)]
    if others:
        raise StablefsError(
            f"{what} {pos} mixes feature names and other values ({listing(others)}): give "
            "either names or column indices, not both."
        )
    if lookup is None:
        raise StablefsError(
            f"{what} {pos} holds feature names ({listing(values)}): pass feature_names= "
            "(the data's p column names, in order) so that names can be matched to columns."
        )
    unknown = [x for x in dict.fromkeys(values) if x not in lookup]
    if unknown:
        raise StablefsError(
            f"{what} {pos} names {len(unknown)} feature(s) not in feature_names: "
            f"{listing(unknown)}; check the spelling (names are case-sensitive) and that "
            "feature_names are the data's columns."
        )
    if len(set(values)) < len(values):
        seen = set()
        for x in values:
            if x in seen:
                raise StablefsError(f"{what} {pos} lists feature {plain(x)} twice.")
            seen.add(x)
    return np.fromiter((lookup[x] for x in values), dtype=np.int64, count=len(values))


def named(subsets, n_features=None, feature_names=None, reference=None, *, X=None,
          what: str = "subset"):
    """Resolve feature names once, at the top of a public measure.

    Without ``feature_names`` everything is returned unchanged. With them, ``subsets``
    becomes a :class:`SubsetData` on p = ``len(feature_names)`` features, ``n_features``
    becomes p and ``reference`` (if given) an index array; the measure then proceeds as for
    indices. ``X`` (correlation-aware measures) must have p columns.

    Returns
    -------
    (subsets, n_features, reference)
    """
    if feature_names is None:
        return subsets, n_features, reference
    names = check_feature_names(feature_names, n_features)
    assert names is not None  # feature_names is not None
    if X is not None and np.ndim(X) == 2 and np.shape(X)[1] != len(names):
        raise StablefsError(
            f"X has {np.shape(X)[1]} feature columns but feature_names lists {len(names)} "
            "names: they must describe the same columns."
        )
    data = as_subsets(subsets, None, feature_names=names, min_subsets=0, what=what)
    if reference is not None:
        reference = as_subsets([reference], None, feature_names=names,
                               what="reference").index_sets()[0]
    return data, data.p, reference


def _is_scalar(x) -> bool:
    return isinstance(x, (numbers.Number, np.generic))


def _as_index_array(item, pos: int, what: str) -> np.ndarray:
    """One index collection → sorted int64 array (no range check yet)."""
    if isinstance(item, (set, frozenset)):
        item = sorted(item)
    arr = np.asarray(item)
    if arr.ndim != 1:
        if arr.ndim == 0:
            raise StablefsError(
                f"{what} {pos} is a single number, not a collection of feature indices."
            )
        raise StablefsError(
            f"{what} {pos} has shape {arr.shape}: each result must be a 1-D collection of "
            "feature indices or a 1-D boolean mask."
        )
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            raise StablefsError(
                f"{what} {pos} holds floating-point indices: convert them to integers "
                "(e.g. np.asarray(s, dtype=int))."
            )
        raise StablefsError(
            f"{what} {pos} is not a collection of whole-number feature indices "
            f"(dtype {arr.dtype})."
        )
    return arr.astype(np.int64, copy=False)


def as_subsets(
    subsets,
    n_features=None,
    *,
    feature_names=None,
    require_p: bool = True,
    min_subsets: int = 1,
    what: str = "subset",
) -> SubsetData:
    """Convert any accepted input form to :class:`SubsetData`.

    Parameters
    ----------
    subsets : sequence of index collections, boolean matrix (m × p) or sequence of masks
        Or collections of feature names, with ``feature_names``.
    n_features : int, optional
        p; required for index collections unless ``require_p`` is False (then p is inferred
        as the largest index + 1, for measures whose value does not depend on p) or
        ``feature_names`` is given (then p is their number).
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then name their features. A pandas
        DataFrame of booleans is matched to them by its column labels.
    min_subsets : int
        Fewest results accepted.
    """
    names = check_feature_names(feature_names, n_features)
    p = len(names) if names is not None else check_n_features(n_features, required=False)
    if isinstance(subsets, SubsetData):
        data = subsets
        if p is not None and data.p_known and p != data.p:
            raise StablefsError(
                f"n_features = {p} does not match the {data.p} features the subsets were "
                "given on."
            )
    elif hasattr(subsets, "to_numpy") and getattr(subsets, "ndim", 0) == 2:  # DataFrame
        if names is not None:
            subsets = _frame_in_name_order(subsets, names)
        data = _from_matrix(np.asarray(subsets.to_numpy()), p, what)
    elif isinstance(subsets, np.ndarray) and subsets.ndim == 2 and subsets.dtype == bool:
        data = _from_matrix(subsets, p, what)
    else:
        lookup = None if names is None else {x: i for i, x in enumerate(names)}
        data = _from_sequence(subsets, p, require_p, what, lookup)
    if data.m < min_subsets:
        if min_subsets == 2:
            raise StablefsError(
                f"{data.m} selection result(s) given: a stability measure over all pairs needs "
                "at least two (or pass reference= to compare against one reference result)."
            )
        raise StablefsError(f"{data.m} selection result(s) given: at least {min_subsets} needed.")
    return data


def _frame_in_name_order(frame, names: list[str]):
    """A DataFrame of selections with its columns put in ``feature_names`` order."""
    cols = [str(c) if isinstance(c, str) else c for c in frame.columns]
    if cols == names:
        return frame
    missing = [x for x in names if x not in set(cols)]
    extra = [c for c in cols if c not in set(names)]
    if missing or extra or len(cols) != len(names):
        what = (f"lacks {listing(missing)}" if missing else f"has extra columns {listing(extra)}"
                if extra else "repeats a column")
        raise StablefsError(
            f"the selection table's columns do not match feature_names: it {what}; label its "
            "columns with the feature names."
        )
    return frame.loc[:, names]


def _from_matrix(M: np.ndarray, p, what: str) -> SubsetData:
    if M.ndim != 2:
        raise StablefsError(
            f"a selection matrix must be 2-D (m results × p features), not {M.ndim}-D."
        )
    if M.dtype != bool:
        vals = np.unique(M)
        if not np.isin(vals, (0, 1)).all():
            raise StablefsError(
                "a selection matrix must hold booleans (True = selected); got values other "
                "than 0/1: pass index sets as a list instead."
            )
        M = M.astype(bool)
    if M.shape[1] == 0:
        raise StablefsError("the selection matrix has no feature columns.")
    if p is not None and p != M.shape[1]:
        raise StablefsError(
            f"n_features = {p} but the boolean selection matrix has {M.shape[1]} columns."
        )
    keep = M.any(axis=0)
    cols = np.flatnonzero(keep)
    Z = np.ascontiguousarray(M[:, keep])
    return SubsetData(Z, cols, M.sum(axis=1).astype(np.int64), int(M.shape[1]), True)


def _from_sequence(subsets, p, require_p: bool, what: str, lookup: dict | None = None
                   ) -> SubsetData:
    if isinstance(subsets, (str, bytes)) or subsets is None:
        raise StablefsError(
            "subsets must be a sequence of index collections or a boolean matrix, not "
            f"{plain(subsets)}."
        )
    if isinstance(subsets, np.ndarray) and subsets.ndim == 2:
        items = list(subsets)
        zero_one = subsets.size > 0 and bool(np.isin(subsets, (0, 1)).all())
    elif isinstance(subsets, Iterable):
        items = list(subsets)
        zero_one = False
    else:
        raise StablefsError(
            f"subsets must be a sequence of index collections or a boolean matrix, "
            f"not {type(subsets).__name__}."
        )
    if items and all(_is_scalar(x) for x in items):
        raise StablefsError(
            "subsets is a flat list of numbers: wrap a single subset in a list ([subset]) or "
            "pass several subsets, one index collection each."
        )
    if items and all(isinstance(x, str) for x in items):
        raise StablefsError(
            f"subsets is a flat list of names ({listing(items)}): wrap a single subset in a "
            "list ([subset]) or pass several subsets, one collection of names each."
        )
    masks: dict[int, np.ndarray] = {}
    sets: list[np.ndarray | None] = []
    for pos, item in enumerate(items):
        names = names_in(item)
        if names is not None:
            sets.append(names_to_indices(names, pos, what, lookup))
            continue
        arr = None
        if not isinstance(item, (set, frozenset)):
            arr = np.asarray(item)
        if arr is not None and arr.ndim == 1 and arr.dtype == bool:
            masks[pos] = arr
            sets.append(None)
        else:
            sets.append(_as_index_array(item, pos, what))
    if masks:
        lengths = {a.size for a in masks.values()}
        if len(lengths) > 1 or (p is not None and lengths != {p}):
            raise StablefsError(
                f"boolean masks must all have length n_features = {p if p else min(lengths)}; "
                f"got lengths {sorted(lengths)}."
            )
        p_mask = lengths.pop()
        if p is None:
            p = p_mask
    p_known = p is not None
    if p is None:
        if require_p and any(s is not None for s in sets):
            check_n_features(None, required=True)
        p = max((int(s.max()) + 1 for s in sets if s is not None and s.size), default=1)
    index_sets: list[np.ndarray] = []
    for pos, s in enumerate(sets):
        if s is None:
            index_sets.append(np.flatnonzero(masks[pos]).astype(np.int64))
            continue
        if s.size:
            lo, hi = int(s.min()), int(s.max())
            if lo < 0 or hi >= p:
                bad = lo if lo < 0 else hi
                raise StablefsError(
                    f"{what} {pos} contains feature index {bad}, outside 0..{p - 1} "
                    f"(n_features = {p})."
                )
            srt = np.sort(s)
            if srt.size > 1 and np.any(srt[1:] == srt[:-1]):
                dup = int(srt[1:][srt[1:] == srt[:-1]][0])
                hint = (" (this looks like a 0/1 matrix: pass it as dtype bool)"
                        if zero_one else "")
                raise StablefsError(f"{what} {pos} lists feature {dup} twice{hint}.")
            s = srt
        index_sets.append(s)
    m = len(index_sets)
    sizes = np.array([s.size for s in index_sets], dtype=np.int64)
    if m == 0 or sizes.sum() == 0:
        return SubsetData(np.zeros((m, 0), dtype=bool), np.empty(0, np.int64), sizes, int(p),
                          p_known)
    flat = np.concatenate(index_sets)
    rows = np.repeat(np.arange(m), sizes)
    cols, inv = np.unique(flat, return_inverse=True)
    Z = np.zeros((m, cols.size), dtype=bool)
    Z[rows, inv] = True
    return SubsetData(Z, cols, sizes, int(p), p_known)


def as_reference(reference, data: SubsetData) -> SubsetData:
    """A single reference result (index collection or mask) on the same p features.

    (Names in ``reference`` are resolved by :func:`named` before this is called.)
    """
    ref = as_subsets([reference], data.p if data.p_known else None, require_p=False,
                     what="reference")
    if not data.p_known and ref.p > data.p:
        raise StablefsError("the reference contains a feature index beyond the subsets' range: "
                            "pass n_features.")
    return ref


def _row_lengths(rows) -> list[int | None]:
    out: list[int | None] = []
    for r in rows:
        if isinstance(r, (str, bytes)) or np.ndim(r) != 1:
            out.append(None)
        else:
            out.append(int(np.size(r)))
    return out


def _as_matrix(values, what: str, row: str) -> np.ndarray:
    """An (m × p) array from a matrix, a DataFrame or a sequence of equal-length rows.

    Rows of different lengths are refused in one line (NumPy would raise about an
    "inhomogeneous shape", or silently build an object array).
    """
    if isinstance(values, (str, bytes)) or values is None:
        raise StablefsError(
            f"{what} must be a 2-D matrix (m results × p features), not {plain(values)}."
        )
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    try:
        A = np.asarray(values)
    except ValueError:  # ragged rows
        A = None
    if A is None or (A.dtype == object and A.ndim == 1):
        rows = list(values)
        lengths = _row_lengths(rows)
        if None in lengths:
            bad = lengths.index(None)
            raise StablefsError(
                f"{row} {bad} of the {what} is not a flat sequence of numbers: give one "
                f"{row} per result, each with one entry per feature."
            )
        first = lengths[0]
        other = next(i for i, n in enumerate(lengths) if n != first)
        n_bad = sum(n != first for n in lengths)
        more = f" ({n_bad} {row}s differ from the first)" if n_bad > 1 else ""
        raise StablefsError(
            f"the {what} have unequal lengths: {row} 0 has {first} entries but {row} {other} "
            f"has {lengths[other]}{more}; every {row} must cover the same p features, in the "
            "same order."
        )
    if A.ndim != 2:
        hint = (f": pass at least two {row}s, one per result" if A.ndim == 1 else "")
        raise StablefsError(
            f"{what} must be a 2-D matrix (m results × p features), got {A.ndim}-D{hint}."
        )
    return A


def as_rankings(rankings, *, what: str = "rankings") -> np.ndarray:
    """An (m × p) float matrix of rankings (1 = best); each row a ranking of the p features."""
    R = _as_matrix(rankings, what, "ranking")
    if R.dtype.kind not in "iuf" or R.dtype == bool:
        raise StablefsError(f"{what} must be numeric ranks (1 = best), not dtype {R.dtype}.")
    R = R.astype(np.float64)
    if not np.all(np.isfinite(R)):
        raise StablefsError(f"{what} contain missing or infinite values.")
    if R.shape[1] == 0:
        raise StablefsError(f"{what} have no feature columns.")
    return R


def as_weights(weights, *, what: str = "weights") -> np.ndarray:
    """An (m × p) float matrix of feature weights."""
    W = _as_matrix(weights, what, "weight vector")
    if W.dtype.kind not in "iuf" or W.dtype == bool:
        raise StablefsError(
            f"{what} must be a numeric 2-D matrix (m results × p features)."
        )
    W = W.astype(np.float64)
    if not np.all(np.isfinite(W)):
        raise StablefsError(f"{what} contain missing or infinite values.")
    if W.shape[1] == 0:
        raise StablefsError(f"{what} have no feature columns.")
    return W


def top_k_order(rankings) -> np.ndarray:
    """Feature indices of each row ordered best first (ties broken by lower feature index)."""
    R = as_rankings(rankings)
    return np.argsort(R, axis=1, kind="stable")


def _check_k(k, p: int) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise StablefsError(f"subset size k = {plain(k)} is not a whole number.")
    if not 0 <= int(k) <= p:
        raise StablefsError(f"subset size k = {k} must lie in 0..{p} (the number of features).")
    return int(k)


def top_k_subsets(rankings: ArrayLike | None, k: int, *,
                  order: np.ndarray | None = None) -> NDArray[np.bool_]:
    """Turn rankings into the boolean (m × p) matrix of each ranking's k best features.

    Ties are broken by the lower feature index, as ``ranking_`` of every selector does.

    Parameters
    ----------
    rankings : array-like of shape (m, p)
        One ranking per result, 1 = best (e.g. the ``ranking_`` of m fitted selectors).
    k : int
        Subset size.
    order : ndarray of shape (m, p), optional
        Each row's features best first (:func:`top_k_order`), when already computed.

    Returns
    -------
    ndarray of bool of shape (m, p)
        Row i selects the k best features of ranking i.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3.2 (stability of the
       first k features of rankings).

    Examples
    --------
    >>> from stablefs.stability import jaccard, top_k_subsets
    >>> rankings = [[1, 2, 3, 4, 5], [2, 1, 3, 4, 5], [1, 3, 2, 5, 4]]
    >>> top_k_subsets(rankings, 2).astype(int).tolist()
    [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 1, 0, 0]]
    >>> round(jaccard(top_k_subsets(rankings, 2)), 3)
    0.556
    """
    if order is None:
        order = top_k_order(rankings)
    m, p = order.shape
    k = _check_k(k, p)
    out = np.zeros((m, p), dtype=bool)
    np.put_along_axis(out, order[:, :k], True, axis=1)
    return out


@overload
def subsets_from_cv_results(cv_results: Mapping[str, Any], size: None = None
                            ) -> dict[int, NDArray[np.bool_]]: ...


@overload
def subsets_from_cv_results(cv_results: Mapping[str, Any], size: int) -> NDArray[np.bool_]: ...


def subsets_from_cv_results(cv_results: Mapping[str, Any], size: int | None = None
                            ) -> NDArray[np.bool_] | dict[int, NDArray[np.bool_]]:
    """Per-split supports from scikit-learn ``RFECV.cv_results_``.

    ``cv_results_`` holds, for each CV split i, ``split{i}_support`` (steps × p booleans) and
    ``n_features`` (the subset size at each step).

    Parameters
    ----------
    cv_results : mapping
        ``RFECV(...).fit(X, y).cv_results_``.
    size : int, optional
        Subset size k to extract.

    Returns
    -------
    ndarray of bool of shape (n_splits, p), or dict
        The supports of size ``size``, one row per CV split; without ``size``, a dict
        ``{k: matrix}`` over every size RFECV evaluated.

    References
    ----------
    .. [1] I. Guyon, J. Weston, S. Barnhill and V. Vapnik, "Gene selection for cancer
       classification using support vector machines", Machine Learning 46, 389–422, 2002
       (recursive feature elimination).

    Examples
    --------
    >>> from sklearn.feature_selection import RFECV
    >>> from sklearn.svm import LinearSVC
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.stability import kuncheva, subsets_from_cv_results
    >>> data = make_han2012(n_samples=40, n_features=20, n_blocks=2, n_relevant=5,
    ...                     random_state=0)
    >>> rfecv = RFECV(LinearSVC(random_state=0), step=5, cv=5).fit(data.X, data.y)
    >>> subsets = subsets_from_cv_results(rfecv.cv_results_, size=10)
    >>> subsets.shape
    (5, 20)
    >>> round(kuncheva(subsets), 3)
    0.48
    """
    if not isinstance(cv_results, Mapping):
        raise StablefsError("cv_results must be the cv_results_ dict of a fitted RFECV.")
    keys = sorted((k for k in cv_results if k.startswith("split") and k.endswith("_support")),
                  key=lambda s: int(s[len("split"):-len("_support")]))
    if not keys or "n_features" not in cv_results:
        raise StablefsError(
            "cv_results has no split{i}_support / n_features entries: it must be the "
            "cv_results_ of a fitted RFECV (scikit-learn >= 1.6)."
        )
    supports = np.stack([np.asarray(cv_results[k], dtype=bool) for k in keys])  # splits×steps×p
    n_feat = np.asarray(cv_results["n_features"]).astype(int)
    if supports.ndim != 3 or supports.shape[1] != n_feat.size:
        raise StablefsError("cv_results: split supports and n_features do not match in length.")
    by_size = {int(k): supports[:, j, :] for j, k in enumerate(n_feat)}
    if size is None:
        return by_size
    if size not in by_size:
        raise StablefsError(
            f"RFECV did not evaluate subsets of size {size}: available sizes are "
            f"{', '.join(map(str, sorted(by_size)))}."
        )
    return by_size[int(size)]


def check_data_matrix(X, p: int) -> np.ndarray:
    """Validate a data matrix X (n_samples × p) used by the correlation-aware measures."""
    if X is None:
        raise StablefsError(
            "this measure credits correlated features and needs the data: pass X "
            "(n_samples × n_features)."
        )
    A = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
    if A.ndim != 2:
        raise StablefsError(f"X must be 2-D (n_samples × n_features), got {A.ndim}-D.")
    if A.dtype.kind not in "iuf" or A.dtype == bool:
        raise StablefsError(f"X must be numeric, not dtype {A.dtype}.")
    if A.shape[1] != p:
        raise StablefsError(
            f"X has {A.shape[1]} feature columns but the subsets refer to n_features = {p}."
        )
    A = A.astype(np.float64, copy=False)
    if not np.all(np.isfinite(A)):
        raise StablefsError("X contains missing or infinite values: impute or drop them first.")
    if A.shape[0] < 3:
        raise StablefsError(f"X has {A.shape[0]} samples: correlations need at least 3.")
    return A
