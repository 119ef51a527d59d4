"""The :class:`Dataset` container returned by :func:`stablefs.datasets.load`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Dataset:
    """A labelled data matrix: the samples × features values, the labels and the names.

    Every reader of :func:`stablefs.datasets.load` and both synthetic generators return one.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        The values, one row per sample.
    y : ndarray of shape (n_samples,)
        Class labels as read (strings for files, integers for synthetic data).
    feature_names : ndarray of str, shape (n_features,)
        Column names (probe or gene identifiers; ``f0 … f{p-1}`` when the source has none).
    name : str
        Registry name, file stem, or synthetic spec.
    relevance : ndarray of shape (n_features,), optional
        True relevance vector r*, normalised to sum 1 (synthetic data only; Han 2012,
        sec. 6.1).
    relevant : ndarray of int, optional
        Indices of the truly relevant features (synthetic data only).
    source : str
        Where the data came from (a path, or the synthetic spec).
    meta : dict
        How the data were read: format, what was dropped or encoded, missing-value handling.
    sample_names : array-like of str, shape (n_samples,), optional
        Sample identifiers: a file's leading sample-ID column (or its header, for a
        genes × samples file read with ``transpose=True``), a DataFrame's index, an AnnData's
        ``obs_names``; ``s0 … s{n-1}`` when the source has none. Sample sheets given with
        ``labels=`` are joined on these names.
    symbols : ndarray of str, shape (n_features,), optional
        Gene symbol of each feature (``""`` when unknown), from an annotation table
        (CLI ``--annotation``, :func:`stablefs.datasets._annotation.symbols_for`).

    Attributes
    ----------
    n_samples : int
        Number of rows of ``X``.
    n_features : int
        Number of columns of ``X``.
    classes : ndarray
        The distinct labels, sorted.

    See Also
    --------
    stablefs.datasets.load : Read a file, a registry name or a synthetic spec.
    stablefs.datasets.make_han2012 : Synthetic data with a known relevance vector.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 6.1 (the relevance
       vector r* of synthetic data).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.datasets import Dataset
    >>> data = Dataset(X=np.arange(12.0).reshape(4, 3), y=np.array(["t", "t", "n", "n"]),
    ...                feature_names=np.array(["g1", "g2", "g3"]), name="toy")
    >>> data
    Dataset('toy', 4 samples x 3 features, classes {n: 2, t: 2})
    >>> data.n_samples, data.n_features
    (4, 3)
    >>> print(*data.sample_names)
    s0 s1 s2 s3
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: np.ndarray
    name: str
    relevance: np.ndarray | None = None
    relevant: np.ndarray | None = None
    source: str = ""
    meta: dict = field(default_factory=dict)
    sample_names: np.ndarray | None = None
    symbols: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.sample_names is None:
            self.sample_names = np.asarray([f"s{i}" for i in range(len(self.X))], dtype=str)
        else:
            self.sample_names = np.asarray([str(s) for s in self.sample_names], dtype=str)

    @property
    def n_samples(self) -> int:
        """Number of samples (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """Number of features (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def classes(self) -> np.ndarray:
        """The distinct labels, sorted."""
        return np.unique(self.y)

    def class_counts(self) -> dict:
        """``{label: number of samples}``, labels sorted."""
        classes, counts = np.unique(self.y, return_counts=True)
        return {c.item() if hasattr(c, "item") else c: int(n) for c, n in zip(classes, counts)}

    def __repr__(self) -> str:
        counts = ", ".join(f"{c}: {n}" for c, n in self.class_counts().items())
        return (
            f"Dataset({self.name!r}, {self.n_samples} samples x {self.n_features} features, "
            f"classes {{{counts}}})"
        )
