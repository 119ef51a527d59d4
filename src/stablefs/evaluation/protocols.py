"""Resampling protocols: which samples train the selector and which test it.

Every resample is a pair ``(train, test)`` of sorted index arrays. The indices depend only on
the labels, the protocol and the seed, so every method of a comparison sees the same
resamples, and rerunning with the same seed gives the same ones. The protocols:

- ``split``: R random stratified splits, 2/3 of the samples *of each class* for training
  and the rest for testing (Han 2012, sec. 7.1);
- ``cv``: R repeats of a stratified k-fold partition (Han 2012 uses 10 × 10-fold);
- ``holdout``: R repeats of a stratified 3-fold hold-out *with a full-data reference* (Yu,
  Ding and Loscalzo 2008, sec. 6.1: 10 × 3): each method is also fitted once on all samples and
  stability is measured against that fit (their eq. 7, ``reference=`` of the measures);
- ``subsample``: R stratified subsamples without replacement, 90 % of each class for training
  and the rest for testing (Li et al.);
- ``bootstrap``: R stratified bootstrap samples (n_c draws with replacement from each class)
  for training, the out-of-bag samples for testing; the training part holds duplicates;
- ``5x2``: the outer 5 × 2-fold cross-validation of a nested 5 × 2 scheme (Prat Masramon
  2016, sec. 3.2; Dietterich 1998): the comparison uses the ten outer folds, and
  :meth:`Protocol.inner_resamples` gives the inner 5 × 2 folds of one outer training part for
  model selection;
- ``loo``: leave-one-out, n resamples of n − 1 training samples (deterministic).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs._validation import check_classes

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

KINDS = ("split", "cv", "holdout", "subsample", "bootstrap", "5x2", "loo")

#: The protocol strings accepted by :meth:`Protocol.parse` (the CLI's ``--protocol``).
GRAMMAR = ("split[:FRACTION] (random stratified splits, 2/3 to train), cv[:K] (repeated "
           "stratified K-fold, 10), holdout[:K] (repeated stratified K-fold hold-out with a "
           "full-data reference, 3; Yu et al. 2008), subsample[:FRACTION] (stratified "
           "subsamples without replacement, 0.9), bootstrap (out-of-bag test part), 5x2 "
           "(outer folds of nested 5 x 2 CV), loo (leave-one-out)")

_DEFAULT_REPEATS = {"split": 20, "cv": 10, "holdout": 10, "subsample": 20, "bootstrap": 20,
                    "5x2": 5, "loo": 1}


@dataclass(frozen=True)
class Resample:
    """One training/test partition of the samples.

    Parameters
    ----------
    index : int
        Position of the resample in its protocol.
    train, test : ndarray of int
        Sorted sample indices of the training and test parts.
    repeat : int
        Repetition of a repeated k-fold scheme (0 otherwise).
    fold : int
        Fold within the repetition (0 otherwise).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.1 (the protocols of the
       microarray experiments).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.evaluation import Protocol
    >>> first = Protocol("cv", n_repeats=1, n_folds=3).resamples(np.repeat([0, 1], 6))[0]
    >>> first.repeat, first.fold, first.train.tolist(), first.test.tolist()
    (0, 0, [0, 1, 3, 4, 8, 9, 10, 11], [2, 5, 6, 7])
    """

    index: int
    train: np.ndarray
    test: np.ndarray
    repeat: int = 0
    fold: int = 0


@dataclass(frozen=True)
class Protocol:
    """A named resampling scheme.

    Parameters
    ----------
    kind : {"split", "cv", "holdout", "subsample", "bootstrap", "5x2", "loo"}
        See the module docstring.
    n_repeats : int
        Number of random splits, subsamples or bootstrap samples, or of k-fold repetitions
        (``cv``, ``holdout``, ``5x2``); ignored by ``loo``.
    train_fraction : float
        Fraction of each class used for training (``split``: default 2/3; ``subsample``:
        0.9 when built by :meth:`parse`).
    n_folds : int
        Number of folds (``cv``: 10, ``holdout``: 3 when built by :meth:`parse`; ``5x2``: 2).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.1 (``split``: 2/3 of
       each class; ``cv``: 10 × 10-fold).
    .. [2] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 6.1 (``holdout``: 10 × 3-fold with a full-data
       reference).
    .. [3] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013, sec. 4.1
       (``subsample``: 90 %).
    .. [4] T. G. Dietterich, "Approximate statistical tests for comparing supervised
       classification learning algorithms", Neural Computation 10(7), 1895–1923, 1998
       (``5x2``).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.evaluation import Protocol
    >>> protocol = Protocol.parse("split", n_repeats=3)
    >>> protocol.describe()
    '3 random stratified splits (67% of each class to train, the rest to test)'
    >>> y = np.repeat([0, 1], [6, 9])
    >>> [(len(r.train), len(r.test)) for r in protocol.resamples(y, random_state=0)]
    [(10, 5), (10, 5), (10, 5)]
    """

    kind: str = "split"
    n_repeats: int = 20
    train_fraction: float = 2 / 3
    n_folds: int = 10

    @classmethod
    def parse(cls, text: str, n_repeats: int | None = None) -> Protocol:
        """Read a protocol string (see :data:`GRAMMAR`): ``split``, ``split:0.8``, ``cv``,
        ``cv:5``, ``holdout``, ``holdout:3``, ``subsample``, ``subsample:0.9``,
        ``bootstrap``, ``5x2``, ``loo``.

        ``n_repeats`` (the CLI's ``--repeats``) defaults to 20 splits, subsamples or bootstrap
        samples, 10 k-fold or hold-out repeats; ``5x2`` has 5 and ``loo`` one pass by
        definition, so another ``n_repeats`` is refused for them.
        """
        name, _, arg = str(text).strip().lower().partition(":")
        name = {"splits": "split", "kfold": "cv", "subsampling": "subsample",
                "5x2cv": "5x2", "nested": "5x2", "leave-one-out": "loo"}.get(name, name)
        if name not in KINDS:
            raise StablefsError(f"unknown protocol {text!r}: use {GRAMMAR}.")
        if arg and name in ("bootstrap", "5x2", "loo"):
            raise StablefsError(f"protocol {name!r} takes no ':' argument (got {text!r}).")
        fixed = {"5x2": 5, "loo": 1}
        if name in fixed and n_repeats is not None and n_repeats != fixed[name]:
            what = "5 repeats of 2-fold CV" if name == "5x2" else "one pass over the samples"
            raise StablefsError(f"protocol {name} is {what}: drop --repeats {n_repeats} (use "
                                "cv:K with --repeats for other repetitions).")
        reps = n_repeats or _DEFAULT_REPEATS[name]
        try:
            if name in ("split", "subsample"):
                frac = float(arg) if arg else (2 / 3 if name == "split" else 0.9)
                proto = cls(name, reps, train_fraction=frac)
            elif name in ("cv", "holdout"):
                proto = cls(name, reps, n_folds=int(arg) if arg else (10 if name == "cv" else 3))
            elif name == "5x2":
                proto = cls("5x2", 5, n_folds=2)
            else:
                proto = cls(name, reps)
        except ValueError:
            raise StablefsError(
                f"cannot read protocol {text!r}: the part after ':' must be a number."
            ) from None
        proto.validate()
        return proto

    def validate(self) -> None:
        """Refuse an unknown kind or impossible settings, with one line."""
        if self.kind not in KINDS:
            raise StablefsError(f"unknown protocol kind {self.kind!r}: choose from "
                                f"{', '.join(KINDS)}.")
        if self.n_repeats < 1:
            raise StablefsError(f"--repeats must be at least 1, not {self.n_repeats}.")
        if self.kind in ("split", "subsample") and not 0 < self.train_fraction < 1:
            raise StablefsError(
                f"train fraction {self.train_fraction} must lie strictly between 0 and 1."
            )
        if self.kind in ("cv", "holdout", "5x2") and self.n_folds < 2:
            raise StablefsError(f"k-fold needs at least 2 folds, not {self.n_folds}.")

    @property
    def has_reference(self) -> bool:
        """Whether stability is measured against a fit on all samples (``holdout``)."""
        return self.kind == "holdout"

    @property
    def nested(self) -> bool:
        """Whether the protocol has inner resamples (``5x2``)."""
        return self.kind == "5x2"

    @property
    def min_per_class(self) -> int:
        """Fewest samples a class may have: two to train a selector plus one to test
        (``split``, ``subsample``, ``bootstrap``, ``loo``), one per fold (``cv``,
        ``holdout``), or for ``5x2`` four (each outer training half then holds two, one per
        inner fold)."""
        if self.kind in ("cv", "holdout"):
            return max(self.n_folds, 3)
        if self.kind == "5x2":
            return 4
        return 3

    @property
    def n_resamples(self) -> int | None:
        """Number of resamples, or None for ``loo`` (one per sample)."""
        if self.kind == "loo":
            return None
        folds = self.n_folds if self.kind in ("cv", "holdout", "5x2") else 1
        return self.n_repeats * folds

    def describe(self) -> str:
        """One line for the log and the report."""
        pct = round(100 * self.train_fraction)
        if self.kind == "split":
            return (f"{self.n_repeats} random stratified splits ({pct}% of each class to "
                    "train, the rest to test)")
        if self.kind == "subsample":
            return (f"{self.n_repeats} stratified subsamples without replacement ({pct}% of "
                    "each class to train, the rest to test)")
        if self.kind == "cv":
            return f"{self.n_repeats} x stratified {self.n_folds}-fold cross-validation"
        if self.kind == "holdout":
            return (f"{self.n_repeats} x stratified {self.n_folds}-fold hold-out, stability "
                    "against each method's fit on all samples (Yu et al. 2008)")
        if self.kind == "bootstrap":
            return (f"{self.n_repeats} stratified bootstrap samples (out-of-bag samples to "
                    "test)")
        if self.kind == "5x2":
            return "5 x 2-fold cross-validation (outer loop of nested 5 x 2 CV)"
        return "leave-one-out"

    def resamples(self, y: ArrayLike, random_state: int | None = 0) -> list[Resample]:
        """The training/test partitions for labels ``y``.

        Raises :class:`StablefsError` when a class has fewer samples than the protocol needs.
        """
        y = np.asarray(y)
        self.validate()
        check_classes(y, min_per_class=self.min_per_class, context=f"for {self.describe()}")
        return _resamples(self, y, np.arange(y.size), random_state)

    def inner_resamples(self, y: ArrayLike, outer: Resample,
                        random_state: int | None = 0) -> list[Resample]:
        """The inner 5 × 2-fold resamples of one outer training part (``5x2`` only).

        Indices refer to the full sample set (subsets of ``outer.train``), seeded by
        ``random_state`` and the outer resample's index, so they are reproducible and
        differ between outer folds.
        """
        if not self.nested:
            raise StablefsError(f"protocol {self.kind!r} has no inner resamples; use 5x2.")
        y = np.asarray(y)
        train = np.asarray(outer.train)
        check_classes(y[train], min_per_class=2,
                      context=f"in outer training part {outer.index} for inner 5 x 2 CV")
        seed = np.random.SeedSequence([0 if random_state is None else int(random_state),
                                       int(outer.index), 52])
        inner = Protocol("5x2", 5, n_folds=2)
        return _resamples(inner, y[train], train, int(seed.generate_state(1)[0]))


def _resamples(proto: Protocol, y: np.ndarray, ids: np.ndarray, random_state) -> list[Resample]:
    """Resamples of labels ``y`` whose positions map to sample indices ``ids``."""
    out: list[Resample] = []
    n = y.size
    if proto.kind == "loo":
        for i in range(n):
            out.append(Resample(i, ids[np.delete(np.arange(n), i)], ids[[i]], 0, i))
        return out
    seeds = np.random.SeedSequence(random_state).spawn(proto.n_repeats)
    for r, ss in enumerate(seeds):
        rng = np.random.default_rng(ss)
        if proto.kind in ("split", "subsample"):
            train = stratified_subsample(y, proto.train_fraction, rng)
            test = np.setdiff1d(np.arange(n), train)
            out.append(Resample(len(out), ids[train], ids[test], repeat=r))
        elif proto.kind == "bootstrap":
            train = stratified_bootstrap(y, rng)
            test = np.setdiff1d(np.arange(n), train)
            out.append(Resample(len(out), ids[train], ids[test], repeat=r))
        else:
            seed = int(rng.integers(2**31 - 1))
            from sklearn.model_selection import StratifiedKFold  # on first use (start-up)

            folds = StratifiedKFold(proto.n_folds, shuffle=True, random_state=seed)
            for f, (train, test) in enumerate(folds.split(np.zeros(n), y)):
                out.append(Resample(len(out), ids[np.sort(train)], ids[np.sort(test)], r, f))
    return out


def stratified_subsample(y: ArrayLike, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Draw a stratified subsample: ``round(fraction * n_c)`` samples of each class c.

    Without replacement; at least one sample of each class, and at least one left out when the
    class has two or more.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The class labels.
    fraction : float in (0, 1)
        Share of each class drawn.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    ndarray of int
        Sorted sample indices.

    References
    ----------
    .. [1] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013, sec. 4.1
       (subsamples of 90 %).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.evaluation import stratified_subsample
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    >>> idx = stratified_subsample(y, 0.5, np.random.default_rng(0))
    >>> idx.tolist(), np.bincount(y[idx]).tolist()
    ([2, 3, 4, 5, 8], [2, 3])
    """
    y = np.asarray(y)
    picked = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        n_take = int(round(fraction * idx.size))
        n_take = min(max(n_take, 1), max(idx.size - 1, 1))
        picked.append(rng.choice(idx, size=n_take, replace=False))
    return np.sort(np.concatenate(picked))


def stratified_bootstrap(y, rng: np.random.Generator, max_draws: int = 100) -> np.ndarray:
    """Sorted indices (with repeats) of n_c draws with replacement from each class c.

    A draw that leaves no sample out of bag (possible only for tiny classes) is redrawn, so
    the test part is never empty; after ``max_draws`` tries a :class:`StablefsError` is raised.
    """
    y = np.asarray(y)
    classes = [np.flatnonzero(y == c) for c in np.unique(y)]
    for _ in range(max_draws):
        train = np.sort(np.concatenate([rng.choice(idx, size=idx.size, replace=True)
                                        for idx in classes]))
        if np.unique(train).size < y.size:
            return train
    raise StablefsError("every bootstrap sample holds all samples: too few samples for an "
                        "out-of-bag test part.")
