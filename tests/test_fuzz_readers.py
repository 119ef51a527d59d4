"""Fuzzing every reader: random and mutated bytes give a Dataset or one StablefsError line.

``stablefs.datasets.load`` reads files that other people made. Whatever the bytes, the only
outcomes allowed are a :class:`~stablefs.datasets.Dataset` or a one-line
:class:`~stablefs.StablefsError`: never another exception, never a traceback, never a message
of several lines. Hypothesis mutates small valid files of every format (flipped, inserted,
deleted and repeated bytes, truncation, splices of two files) and also feeds pure random bytes.

Profiles: the default runs a few dozen examples per format (a few seconds, for CI);
``HYPOTHESIS_PROFILE=fuzz`` runs thousands (a longer local session)::

    HYPOTHESIS_PROFILE=fuzz PYTHONPATH=src pytest tests/test_fuzz_readers.py -q
"""

from __future__ import annotations

import gzip
import io
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stablefs import StablefsError
from stablefs.datasets import Dataset, load

LONG = os.environ.get("HYPOTHESIS_PROFILE", "") == "fuzz"
EXAMPLES = 2000 if LONG else 25
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _csv(sep=",") -> bytes:
    rng = np.random.default_rng(0)
    rows = [sep.join(["id", "g1", "g2", "g3", "label"])]
    for i in range(8):
        vals = sep.join(f"{v:.3f}" for v in rng.normal(size=3))
        rows.append(f"s{i}{sep}{vals}{sep}{'ab'[i % 2]}")
    return ("\n".join(rows) + "\n").encode()


def _transposed() -> bytes:
    return b"gene,s0,s1,s2,s3\nlabel,a,b,a,b\ng1,1,2,3,4\ng2,0.5,0.1,0.2,0.3\n"


def _arff() -> bytes:
    return (b"@relation t\n@attribute g1 numeric\n@attribute 'g 2' real\n"
            b"@attribute c {a,b}\n@data\n1,2,a\n3,4,b\n5,6,a\n{0 1, 2 b}\n1.5,?,b\n")


def _npz() -> bytes:
    buf = io.BytesIO()
    np.savez(buf, X=np.arange(12.0).reshape(4, 3), y=np.array(["a", "b", "a", "b"]),
             feature_names=np.array(["g1", "g2", "g3"]))
    return buf.getvalue()


SEEDS = {
    ".csv": _csv(","),
    ".tsv": _csv("\t"),
    ".txt": _csv(" "),
    ".csv.gz": gzip.compress(_csv(","), mtime=0),
    ".arff": _arff(),
    ".arff.gz": gzip.compress(_arff(), mtime=0),
    ".npz": _npz(),
}


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    """``seed`` after 1-4 random edits (or pure random bytes, one time in eight)."""
    if draw(st.integers(0, 7)) == 0:
        return draw(st.binary(max_size=300))
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "repeat",
                                     "splice", "byte"]))
        n = len(data)
        at = draw(st.integers(0, max(0, n)))
        if kind == "flip" and n:
            i = min(at, n - 1)
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte" and n:
            data[min(at, n - 1)] = draw(st.sampled_from(
                [0, 0x0A, 0x0D, 0x09, 0x2C, 0x22, 0x27, 0x3F, 0x7B, 0x7D, 0x40, 0xFF, 0x80]))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=20))
        elif kind == "delete" and n:
            del data[at:at + draw(st.integers(1, 20))]
        elif kind == "truncate":
            del data[at:]
        elif kind == "repeat" and n:
            piece = data[at:at + draw(st.integers(1, 40))]
            data[at:at] = piece * draw(st.integers(1, 5))
        elif kind == "splice":
            other = SEEDS[draw(st.sampled_from(sorted(SEEDS)))]
            j = draw(st.integers(0, len(other)))
            data[at:] = other[j:]
    return bytes(data)


def _check_outcome(data: bytes, suffix: str, **options) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzz{suffix}"
        path.write_bytes(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warnings are allowed, exceptions are not
            try:
                ds = load(path, **options)
            except StablefsError as exc:
                msg = str(exc)
                assert "\n" not in msg and "\r" not in msg, msg
                assert msg.strip(), "empty error message"
                return
        assert isinstance(ds, Dataset)
        assert ds.X.dtype == np.float64 and ds.X.ndim == 2
        assert ds.X.shape == (ds.y.shape[0], len(ds.feature_names))


@pytest.mark.parametrize("suffix", sorted(SEEDS))
def test_valid_seed_files_load(suffix):
    options = {"drop_nominal": True} if suffix.startswith(".arff") else {}
    if suffix.startswith(".arff"):
        options["missing"] = "drop-samples"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"seed{suffix}"
        path.write_bytes(SEEDS[suffix])
        ds = load(path, **options)
    assert ds.X.shape[0] >= 3


@pytest.mark.parametrize("suffix", sorted(SEEDS))
def test_mutated_files_give_a_dataset_or_one_line(suffix):
    @FUZZ
    @given(data=mutated(SEEDS[suffix]), drop=st.booleans())
    def run(data, drop):
        options = {"drop_nominal": True, "missing": "drop-samples"} if drop else {}
        _check_outcome(data, suffix, **options)

    run()


@FUZZ
@given(data=mutated(_transposed()))
def test_mutated_transposed_tables(data):
    _check_outcome(data, ".csv", transpose=True)


@FUZZ
@given(data=st.binary(max_size=400), suffix=st.sampled_from(sorted(SEEDS)))
def test_random_bytes_in_every_format(data, suffix):
    _check_outcome(data, suffix)
