"""Resampling protocols: which samples train the selector and which test it.

Two protocols from seed 000 sec. 7.1:

- **random splits** (``"split"``): R random stratified splits, 2/3 of the samples *of each
  class* for training and the rest for testing;
- **repeated stratified k-fold** (``"cv"``): R repeats of a stratified k-fold partition
  (seed 000 uses 10 × 10-fold).

Every resample is a pair ``(train, test)`` of sorted index arrays. The indices depend only on
the labels, the protocol and the seed, so every method of a comparison sees the same
resamples, and rerunning with the same seed gives the same ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold

from stablefs._errors import StablefsError
from stablefs._validation import check_classes


@dataclass(frozen=True)
class Resample:
    """One training/test partition of the samples."""

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
    kind : {"split", "cv"}
        Random stratified splits, or repeated stratified k-fold cross-validation.
    n_repeats : int
        Number of random splits (``split``) or of k-fold repetitions (``cv``).
    train_fraction : float
        Fraction of each class used for training (``split`` only); default 2/3.
    n_folds : int
        Number of folds (``cv`` only); default 10.
    """

    kind: str = "split"
    n_repeats: int = 20
    train_fraction: float = 2 / 3
    n_folds: int = 10

    @classmethod
    def parse(cls, text: str, n_repeats: int | None = None) -> Protocol:
        """Read a protocol string: ``split``, ``split:0.8``, ``cv``, ``cv:5``.

        ``n_repeats`` (the CLI's ``--repeats``) defaults to 20 splits, or 10 k-fold repeats.
        """
        name, _, arg = str(text).strip().lower().partition(":")
        try:
            if name in ("split", "holdout", "splits"):
                frac = float(arg) if arg else 2 / 3
                proto = cls("split", n_repeats or 20, train_fraction=frac)
            elif name in ("cv", "kfold"):
                proto = cls("cv", n_repeats or 10, n_folds=int(arg) if arg else 10)
            else:
                raise StablefsError(
                    f"unknown protocol {text!r}: use 'split' (random stratified 2/3 splits, "
                    "'split:0.8' for another fraction) or 'cv' (repeated 10-fold, 'cv:5')."
                )
        except ValueError as exc:
            if isinstance(exc, StablefsError):
                raise
            raise StablefsError(
                f"cannot read protocol {text!r}: the part after ':' must be a number."
            ) from None
        proto.validate()
        return proto

    def validate(self) -> None:
        if self.n_repeats < 1:
            raise StablefsError(f"--repeats must be at least 1, not {self.n_repeats}.")
        if self.kind == "split" and not 0 < self.train_fraction < 1:
            raise StablefsError(
                f"train fraction {self.train_fraction} must lie strictly between 0 and 1."
            )
        if self.kind == "cv" and self.n_folds < 2:
            raise StablefsError(f"k-fold needs at least 2 folds, not {self.n_folds}.")

    @property
    def min_per_class(self) -> int:
        """Fewest samples a class may have: two to train a selector plus one to test
        (``split``), or one per fold (``cv``)."""
        return 3 if self.kind == "split" else max(self.n_folds, 3)

    @property
    def n_resamples(self) -> int:
        return self.n_repeats * (self.n_folds if self.kind == "cv" else 1)

    def describe(self) -> str:
        if self.kind == "split":
            pct = round(100 * self.train_fraction)
            return (f"{self.n_repeats} random stratified splits ({pct}% of each class to "
                    "train, the rest to test)")
        return f"{self.n_repeats} x stratified {self.n_folds}-fold cross-validation"

    def resamples(self, y, random_state: int | None = 0) -> list[Resample]:
        """The training/test partitions for labels ``y``.

        Raises :class:`StablefsError` when a class has fewer samples than the protocol needs.
        """
        y = np.asarray(y)
        check_classes(y, min_per_class=self.min_per_class, context=f"for {self.describe()}")
        seeds = np.random.SeedSequence(random_state).spawn(self.n_repeats)
        out: list[Resample] = []
        for r, ss in enumerate(seeds):
            rng = np.random.default_rng(ss)
            if self.kind == "split":
                train = stratified_subsample(y, self.train_fraction, rng)
                test = np.setdiff1d(np.arange(y.size), train)
                out.append(Resample(len(out), train, test, repeat=r))
            else:
                seed = int(rng.integers(2**31 - 1))
                folds = StratifiedKFold(self.n_folds, shuffle=True, random_state=seed)
                for f, (train, test) in enumerate(folds.split(np.zeros(y.size), y)):
                    out.append(Resample(len(out), np.sort(train), np.sort(test), r, f))
        return out


def stratified_subsample(y, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of ``round(fraction * n_c)`` samples drawn without replacement from
    each class c (at least one, and at least one left out when the class has two or more)."""
    y = np.asarray(y)
    picked = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        n_take = int(round(fraction * idx.size))
        n_take = min(max(n_take, 1), max(idx.size - 1, 1))
        picked.append(rng.choice(idx, size=n_take, replace=False))
    return np.sort(np.concatenate(picked))
