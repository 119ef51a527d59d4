"""Tests of stablefs.datasets: file readers, load() dispatch, the registry, real data sets."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import logging
import os
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.datasets import Dataset, load, registry_table
from stablefs.datasets import _registry as registry

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def write(path: Path, text: str, *, gz: bool = False) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def raises_one_line(match: str | None = None, *names: str):
    """Context manager: StablefsError with a single-line message containing ``names``."""

    class _Ctx:
        def __enter__(self):
            self._cm = pytest.raises(StablefsError, match=match)
            self.info = self._cm.__enter__()
            return self.info

        def __exit__(self, *exc):
            out = self._cm.__exit__(*exc)
            msg = str(self.info.value)
            assert "\n" not in msg, msg
            assert self.info.value.__cause__ is None or self.info.value.__suppress_context__
            for n in names:
                assert n in msg, (n, msg)
            return out

    return _Ctx()


@contextlib.contextmanager
def logs_warning(caplog, match: str | None = None):
    """The one-line warnings of the readers, which go to the ``"stablefs"`` logger."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        yield caplog
    messages = [r.getMessage() for r in caplog.records if r.name == "stablefs"]
    assert messages, "no warning logged on the 'stablefs' logger"
    assert match is None or any(re.search(match, m) for m in messages), messages


SMALL_CSV = "f1,label,f2\n1.0,a,2.0\n3.0,b,4.5\n5.0,a,6.0\n"

# --------------------------------------------------------------------------------------------
# real data sets (MANIFEST.md)
# --------------------------------------------------------------------------------------------

MICROARRAY = {
    "colon": (62, 2000, {"t": 40, "n": 22}),
    "leukemia": (72, 7129, {"ALL": 47, "AML": 25}),
    "prostate": (102, 12600, {"Tumor": 52, "Normal": 50}),
    "lung": (181, 12533, {"adenocarcinoma": 150, "mesothelioma": 31}),
    "srbct": (63, 2308, {"EWS": 23, "RMS": 20, "NB": 12, "BL": 8}),
    "dlbcl": (77, 7129, {"DLBCL": 58, "FL": 19}),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MICROARRAY))
def test_microarray_sets_load_by_name(shared_data, name):
    n, p, counts = MICROARRAY[name]
    ds = load(name)
    assert isinstance(ds, Dataset)
    assert ds.X.shape == (n, p)
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.y.dtype.kind == "U"
    assert ds.class_counts() == counts
    assert ds.feature_names.shape == (p,)
    assert ds.name == name
    assert Path(ds.source).parent == shared_data
    assert ds.meta["sha256"] == registry.REGISTRY[name].sha256
    assert np.isfinite(ds.X).all()


def test_microarray_values_exact(shared_data):
    """Values are parsed exactly as written (no precision loss), probe names kept."""
    ds = load(shared_data / "leukemia.csv.gz")
    with gzip.open(shared_data / "leukemia.csv.gz", "rt") as fh:
        header = fh.readline().rstrip("\n").split(",")
        row = fh.readline().rstrip("\n").split(",")
    assert list(ds.feature_names[:5]) == header[1:6]
    assert ds.y[0] == row[0]
    np.testing.assert_array_equal(ds.X[0], np.array([float(v) for v in row[1:]]))


def test_sonar_headerless(shared_data):
    ds = load(shared_data / "uci" / "sonar.csv")
    assert ds.X.shape == (208, 60)
    assert set(ds.class_counts()) == {"R", "M"}
    assert sum(ds.class_counts().values()) == 208
    assert ds.feature_names[0] == "f0" and ds.feature_names[-1] == "f59"
    assert ds.meta["headerless"] is True


@pytest.mark.parametrize(
    "fname, shape, classes",
    [
        ("ionosphere.arff", (351, 34), {"g", "b"}),
        ("diabetes.arff", (768, 8), {"tested_negative", "tested_positive"}),
        ("glass.arff", (214, 9), None),
    ],
)
def test_uci_arff(shared_data, fname, shape, classes):
    ds = load(shared_data / "uci" / fname)
    assert ds.X.shape == shape
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    if classes is not None:
        assert set(ds.class_counts()) == classes
    else:
        assert len(ds.class_counts()) == 6  # glass: 7 declared, 6 present
        assert "build wind float" in ds.class_counts()


def test_ionosphere_counts(shared_data):
    assert load(shared_data / "uci" / "ionosphere.arff").class_counts() == {"b": 126, "g": 225}
    assert load(shared_data / "uci" / "diabetes.arff").class_counts() == {
        "tested_negative": 500,
        "tested_positive": 268,
    }


@pytest.mark.parametrize(
    "fname, nominal_names",
    [("breast-cancer.arff", ["age", "menopause"]), ("vote.arff", ["handicapped-infants"])],
)
def test_nominal_arff_refused(shared_data, fname, nominal_names):
    with raises_one_line("nominal", *nominal_names, "drop_nominal=True", "drop_missing=True"):
        load(shared_data / "uci" / fname)


def test_nominal_arff_with_drop_flags(shared_data, caplog):
    # every feature is nominal: dropping them all leaves nothing, which is said clearly
    with raises_one_line("leaves no features", "encode_nominal=True"):
        load(shared_data / "uci" / "vote.arff", drop_nominal=True, drop_missing=True)
    with logs_warning(caplog) as record:
        ds = load(shared_data / "uci" / "vote.arff", encode_nominal=True, drop_missing=True)
    messages = " ".join(r.getMessage() for r in record.records)
    assert "dropped 203 of 435 samples" in messages and "encoded 16 nominal" in messages
    assert ds.X.shape == (232, 16)  # the 232 complete cases, one 0/1 column per y/n vote
    assert set(np.unique(ds.X)) == {0.0, 1.0}
    assert ds.meta["n_dropped_samples"] == 203
    assert len(ds.meta["encoded_columns"]) == 16
    assert ds.class_counts() == {"democrat": 124, "republican": 108}

    with logs_warning(caplog):
        bc = load(
            shared_data / "uci" / "breast-cancer.arff", encode_nominal=True, drop_missing=True
        )
    assert bc.X.shape == (277, 48)
    assert bc.meta["n_dropped_samples"] == 9
    assert "age=30-39" in bc.feature_names


# --------------------------------------------------------------------------------------------
# CSV / TSV / TXT readers
# --------------------------------------------------------------------------------------------


def test_csv_with_label_column(tmp_path):
    ds = load(write(tmp_path / "d.csv", SMALL_CSV))
    assert ds.X.shape == (3, 2)
    assert list(ds.feature_names) == ["f1", "f2"]
    np.testing.assert_array_equal(ds.X[:, 1], [2.0, 4.5, 6.0])
    assert ds.y.tolist() == ["a", "b", "a"]
    assert ds.y.dtype.kind == "U"
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.name == "d"


def test_label_kept_as_text(tmp_path):
    ds = load(write(tmp_path / "d.csv", "label,x\n01,1\n02,2\n01,3\n"))
    assert ds.y.tolist() == ["01", "02", "01"]


def test_tsv_and_gz_and_txt(tmp_path):
    tsv = SMALL_CSV.replace(",", "\t")
    for path in [
        write(tmp_path / "d.tsv", tsv),
        write(tmp_path / "d.tsv.gz", tsv, gz=True),
        write(tmp_path / "d.csv.gz", SMALL_CSV, gz=True),
        write(tmp_path / "d.txt", tsv),
        write(tmp_path / "e.txt", SMALL_CSV.replace(",", "  ")),
    ]:
        ds = load(path)
        assert ds.X.shape == (3, 2), path
        assert ds.y.tolist() == ["a", "b", "a"], path


def test_label_other_column(tmp_path):
    path = write(tmp_path / "d.csv", "a,b,diagnosis\n1,2,x\n3,4,y\n")
    ds = load(path, label="diagnosis")
    assert ds.y.tolist() == ["x", "y"]
    assert list(ds.feature_names) == ["a", "b"]
    with raises_one_line("no column", "'nope'", "diagnosis", "--label"):
        load(path, label="nope")


def test_header_without_label_column(tmp_path):
    path = write(tmp_path / "d.csv", "gene1,gene2,diagnosis,site\n1,2,x,u\n3,4,y,v\n")
    with raises_one_line("no column named 'label'", "diagnosis", "site", "--label"):
        load(path)
    msg_numeric = write(tmp_path / "n.csv", "g1,g2,g3\n1,2,3\n4,5,6\n")
    # a header row of names, every column numeric: still refused, naming the columns
    with raises_one_line("label", "g1", "--label"):
        load(msg_numeric)


def test_headerless(tmp_path):
    ds = load(write(tmp_path / "h.csv", "0.1,0.2,R\n0.3,0.4,M\n0.5,0.6,R\n"))
    assert ds.X.shape == (3, 2)
    assert list(ds.feature_names) == ["f0", "f1"]
    assert ds.y.tolist() == ["R", "M", "R"]
    assert ds.meta["headerless"] is True
    # a numeric class in the last column, and a class in the first column by position
    ds = load(write(tmp_path / "n.csv", "0.1,0.2,1\n0.3,0.4,0\n"))
    assert ds.y.tolist() == ["1", "0"]
    ds = load(write(tmp_path / "p.csv", "A,0.1,0.2\nB,0.3,0.4\n"), label=0)
    assert ds.y.tolist() == ["A", "B"]
    np.testing.assert_array_equal(ds.X, [[0.1, 0.2], [0.3, 0.4]])


def test_header_of_numbers_with_label_is_a_header(tmp_path):
    ds = load(write(tmp_path / "h.csv", "1,2,label\n0.1,0.2,a\n0.3,0.4,b\n"))
    assert list(ds.feature_names) == ["1", "2"]
    assert ds.X.shape == (2, 2)


def test_pandas_index_column_dropped_with_warning(tmp_path, caplog):
    path = write(tmp_path / "i.csv", ",x,label\n0,1.5,a\n1,2.5,b\n")
    with logs_warning(caplog, match="row index"):
        ds = load(path)
    assert list(ds.feature_names) == ["x"]


def test_npz(tmp_path):
    X = np.arange(12, dtype=float).reshape(4, 3)
    np.savez(tmp_path / "a.npz", X=X, y=np.array([0, 1, 0, 1]))
    ds = load(tmp_path / "a.npz")
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == ["0", "1", "0", "1"]
    assert list(ds.feature_names) == ["f0", "f1", "f2"]
    np.savez(tmp_path / "b.npz", X=X, y=np.array(list("abab")), feature_names=["u", "v", "w"])
    ds = load(tmp_path / "b.npz")
    assert list(ds.feature_names) == ["u", "v", "w"]
    assert ds.y.tolist() == list("abab")
    np.savez(tmp_path / "c.npz", data=X)
    with raises_one_line("needs arrays 'X'", "c.npz", "data"):
        load(tmp_path / "c.npz")
    np.savez(tmp_path / "d.npz", X=X, y=np.array([0, 1]))
    with raises_one_line("one label per row", "d.npz"):
        load(tmp_path / "d.npz")
    np.savez(tmp_path / "e.npz", X=np.array([[1, 2], [3, 4]], dtype=object), y=[0, 1])
    with raises_one_line("Python objects", "e.npz"):
        load(tmp_path / "e.npz")


def test_h5ad_without_anndata(tmp_path):
    try:
        import anndata  # noqa: F401
    except ImportError:
        h5py = pytest.importorskip("h5py")
        path = tmp_path / "x.h5ad"
        with h5py.File(path, "w") as f:  # a file h5py reads: the check before anndata passes
            f.create_dataset("X", data=np.zeros((3, 2)))
        with raises_one_line("anndata", "x.h5ad", "pip install anndata"):
            load(path)
    else:  # pragma: no cover - depends on the environment
        pytest.skip("anndata is installed")


# --------------------------------------------------------------------------------------------
# error cases
# --------------------------------------------------------------------------------------------


def test_missing_values_csv(tmp_path, caplog):
    # a fourth, complete sample: one sample left would be refused (needs at least 2)
    path = write(tmp_path / "m.csv", "label,a,b,c\nx,1,,3\ny,4,5,NA\nx,7,8,9\ny,1,2,4\n")
    with raises_one_line("missing values", "m.csv", "b", "c", "drop_missing=True"):
        load(path)
    with logs_warning(caplog, match="dropped 2 of 4 samples"):
        ds = load(path, drop_missing=True)
    assert ds.X.shape == (2, 3)
    assert ds.meta["dropped_samples"] == [0, 1]


def test_non_numeric_columns_csv(tmp_path, caplog):
    path = write(tmp_path / "s.csv", "label,a,b,c\nx,1,u,3\ny,4,v,?\n")
    with raises_one_line("non-numeric", "s.csv", "b", "c", "'u'", "drop_nominal=True"):
        load(path)
    with logs_warning(caplog, match="dropped 2 non-numeric"):
        ds = load(path, drop_nominal=True)
    assert list(ds.feature_names) == ["a"]
    assert ds.meta["dropped_columns"] == ["b", "c"]


def test_many_names_are_abbreviated(tmp_path):
    cols = [f"g{i}" for i in range(30)]
    text = "label," + ",".join(cols) + "\n" + "x," + ",".join(["z"] * 30) + "\n"
    with raises_one_line("30 non-numeric", "g0", "g4", "25 more") as info:
        load(write(tmp_path / "w.csv", text))
    assert "g29" not in str(info.value)


def test_label_with_missing_values(tmp_path):
    path = write(tmp_path / "l.csv", "label,a\nx,1\n,2\ny,3\n")
    with raises_one_line("label column 'label' has 1 missing", "l.csv"):
        load(path)


def test_empty_files(tmp_path):
    with raises_one_line("empty", "e.csv"):
        load(write(tmp_path / "e.csv", ""))
    with raises_one_line("empty", "blank.csv"):
        load(write(tmp_path / "blank.csv", "\n\n  \n"))
    with raises_one_line("no data rows", "h.csv"):
        load(write(tmp_path / "h.csv", "label,a,b\n"))
    with raises_one_line("empty", "e.arff"):
        load(write(tmp_path / "e.arff", ""))
    with raises_one_line("empty", "e.csv.gz"):
        load(write(tmp_path / "e.csv.gz", "", gz=True))


def test_corrupt_files(tmp_path):
    bad_gz = tmp_path / "bad.csv.gz"
    bad_gz.write_bytes(b"this is not gzip at all")
    with raises_one_line("not a valid gzip", "bad.csv.gz"):
        load(bad_gz)
    truncated = tmp_path / "trunc.csv.gz"
    truncated.write_bytes(gzip.compress((SMALL_CSV * 2000).encode())[:300])
    with raises_one_line("corrupt or truncated", "trunc.csv.gz"):
        load(truncated)
    binary = tmp_path / "bin.csv"
    binary.write_bytes(bytes(range(256)) * 8)
    with raises_one_line("binary", "bin.csv"):
        load(binary)
    ragged = write(tmp_path / "rag.csv", "label,a\nx,1\ny,2,3,4\n")
    with raises_one_line("cannot be parsed", "rag.csv"):
        load(ragged)
    npz = tmp_path / "bad.npz"
    npz.write_bytes(b"PK\x03\x04garbage")
    with raises_one_line("not a valid .npz", "bad.npz"):
        load(npz)


def test_unknown_extension(tmp_path):
    with raises_one_line("unknown file type", "'.xlsx'", ".csv", ".arff"):
        load(write(tmp_path / "d.xlsx", "x"))


def test_file_not_found_suggests_registry_names(tmp_path):
    with raises_one_line("no such file", "colon"):
        load("colonn")
    with raises_one_line("no such file", "leukemia"):
        load(str(tmp_path / "leukaemia.csv.gz"))
    with raises_one_line("no such file", "Registry names"):
        load(str(tmp_path / "zzz.csv"))


def test_folder_is_refused(tmp_path):
    with raises_one_line("is a folder"):
        load(tmp_path)


# --------------------------------------------------------------------------------------------
# ARFF reader on small files
# --------------------------------------------------------------------------------------------

ARFF = """% a comment
@RELATION 'test data'

@attribute 'first value' numeric
@attribute second REAL
@ATTRIBUTE third integer
@attribute colour {red, 'dark blue', green}
% another comment
@attribute class {yes,no}

@data
1.5, 2, 3, red, yes
-1,0.5,4,'dark blue',no
% comment inside data
2,?,5,green,yes
0,1,6,red,no
"""


def test_arff_reader(tmp_path, caplog):
    path = write(tmp_path / "t.arff", ARFF)
    with raises_one_line("1 nominal", "colour", "missing", "second", "drop_nominal=True"):
        load(path)
    with logs_warning(caplog):
        ds = load(path, drop_nominal=True, drop_missing=True)
    assert list(ds.feature_names) == ["first value", "second", "third"]
    assert ds.X.shape == (3, 3)
    assert ds.y.tolist() == ["yes", "no", "no"]
    assert ds.meta["dropped_columns"] == ["colour"]
    assert ds.meta["dropped_samples"] == [2]
    assert ds.meta["relation"] == "test data"
    with logs_warning(caplog):
        ds = load(path, encode_nominal=True, drop_missing=True)
    assert list(ds.feature_names) == [
        "first value",
        "second",
        "third",
        "colour=red",
        "colour=dark blue",
        "colour=green",
    ]
    np.testing.assert_array_equal(ds.X[1, 3:], [0, 1, 0])


def test_arff_label_option_and_gz(tmp_path):
    text = "@relation r\n@attribute a numeric\n@attribute c {p,q}\n@attribute b numeric\n@data\n"
    text += "1,p,2\n3,q,4\n5,p,6\n"
    ds = load(write(tmp_path / "x.arff.gz", text, gz=True), label="c")
    assert ds.y.tolist() == ["p", "q", "p"]
    assert list(ds.feature_names) == ["a", "b"]
    with raises_one_line("no attribute 'zz'", "x.arff"):
        load(tmp_path / "x.arff.gz", label="zz")


def test_arff_sparse_rows(tmp_path):
    text = "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute c {u,v}\n@data\n"
    text += "{0 1.5, 2 v}\n{1 2}\n"
    ds = load(write(tmp_path / "s.arff", text))
    np.testing.assert_array_equal(ds.X, [[1.5, 0.0], [0.0, 2.0]])
    assert ds.y.tolist() == ["v", "u"]


def test_arff_errors(tmp_path):
    with raises_one_line("2 values, but 3 attributes", "w.arff"):
        load(
            write(
                tmp_path / "w.arff",
                "@relation r\n@attribute a numeric\n@attribute b numeric"
                "\n@attribute c {x,y}\n@data\n1,x\n",
            )
        )
    with raises_one_line("declared numeric", "'oops'"):
        load(
            write(
                tmp_path / "n.arff",
                "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\noops,x\n",
            )
        )
    with raises_one_line("no @data", "d.arff"):
        load(write(tmp_path / "d.arff", "@relation r\n@attribute a numeric\n"))
    with raises_one_line("is this an ARFF file", "g.arff"):
        load(write(tmp_path / "g.arff", "hello,world\n1,2\n"))
    with raises_one_line("label column 'c' has 1 missing"):
        load(
            write(
                tmp_path / "m.arff",
                "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\n2,?\n",
            )
        )


# --------------------------------------------------------------------------------------------
# registry: search order, checksums, downloads (never the network)
# --------------------------------------------------------------------------------------------

TINY = b"label,a,b\nx,1,2\ny,3,4\nx,5,6\n"


@pytest.fixture
def tiny_registry(monkeypatch):
    """A registry entry 'tiny' whose converted file tiny.csv.gz has bytes we control."""
    data = gzip.compress(TINY, mtime=0)
    entry = registry.RegistryEntry(
        "tiny",
        "0" * 64,  # sha256 of a tiny.RData these tests never download
        0,
        3,
        2,
        {"x": 2, "y": 1},
        "Tiny et al. 2024",
        description="A tiny test set.",
        csv_sha256=hashlib.sha256(data).hexdigest(),
        csv_size=len(data),
        content_sha256=hashlib.sha256(TINY).hexdigest(),
    )
    monkeypatch.setitem(registry.REGISTRY, "tiny", entry)
    return entry, data


def test_search_order(tmp_path, monkeypatch, tiny_registry):
    entry, data = tiny_registry
    fname = entry.csv_filenames[0]
    home, env1, env2, cache = (tmp_path / d for d in ("home", "env1", "env2", "cache"))
    for d in (home, env1, env2, cache):
        d.mkdir()
    monkeypatch.setenv("STABLEFS_DATA", f"{env1}{os.pathsep}{env2}")
    monkeypatch.setenv("STABLEFS_CACHE", str(cache))
    for d in (home, env2, cache):
        (d / fname).write_bytes(data)

    ds = load("tiny", data_home=home)
    assert Path(ds.source) == home / fname
    assert ds.name == "tiny" and ds.X.shape == (3, 2)
    assert Path(load("TINY").source) == env2 / fname  # data_home not given
    (env1 / fname).write_bytes(data)
    assert Path(load("tiny").source) == env1 / fname  # STABLEFS_DATA order
    (env1 / fname).unlink()
    (env2 / fname).unlink()
    assert Path(load("tiny").source) == cache / fname  # cache last
    rows = {r["name"]: r for r in registry_table(data_home=home)}
    assert rows["tiny"]["location"] == str(home / fname)
    assert rows["tiny"]["classes"] == "x 2, y 1"


def test_checksum_mismatch(tmp_path, monkeypatch, tiny_registry):
    entry, _ = tiny_registry
    home = tmp_path / "home"
    home.mkdir()
    bad = gzip.compress(TINY.replace(b"5,6", b"5,7"))
    (home / entry.csv_filenames[0]).write_bytes(bad)
    with raises_one_line("checksum mismatch", entry.csv_sha256, hashlib.sha256(bad).hexdigest()):
        load("tiny", data_home=home)
    # the same file loads unchecked by path
    assert load(home / entry.csv_filenames[0]).X[2, 1] == 7


def test_checksum_is_cached(tmp_path, monkeypatch, tiny_registry):
    entry, data = tiny_registry
    (tmp_path / entry.csv_filenames[0]).write_bytes(data)
    calls = []
    real = hashlib.sha256
    monkeypatch.setattr(registry.hashlib, "sha256", lambda *a: calls.append(1) or real(*a))
    load("tiny", data_home=tmp_path)
    load("tiny", data_home=tmp_path)
    assert len(calls) == 1


def test_missing_everywhere_without_download(tmp_path, monkeypatch, tiny_registry):
    monkeypatch.setenv("STABLEFS_DATA", str(tmp_path / "nothing"))
    with raises_one_line("not found and downloads are off", "tiny.RData", "tiny.csv.gz",
                         str(tmp_path / "nothing")):
        registry.fetch("tiny", download=False)
    assert {r["name"]: r for r in registry_table()}["tiny"]["location"] == "not downloaded"


# Downloads (pooch, sha256 check, offline and tampered files) are tested against a loopback
# HTTP server in tests/test_registry_download.py.


def test_registry_table_lists_real_sets(shared_data):
    rows = {r["alias"] or r["name"]: r for r in registry_table()}
    for name, (n, p, _counts) in MICROARRAY.items():
        assert rows[name]["n_samples"] == n and rows[name]["n_features"] == p
        assert rows[name]["location"] == str(shared_data / f"{name}.csv.gz")
        assert rows[name]["description"]
    assert "synthetic:han2012" in rows


def test_registry_matches_manifest(shared_data):
    text = (shared_data / "MANIFEST.md").read_text()
    for alias in MICROARRAY:
        entry = registry.REGISTRY[alias]
        assert entry.alias == alias
        assert entry.csv_sha256 in text
        assert (shared_data / f"{alias}.csv.gz").stat().st_size == entry.csv_size


def test_corrupt_registry_file_is_not_skipped(tmp_path, shared_data):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(shared_data / "colon.csv.gz", home / "colon.csv.gz")
    with open(home / "colon.csv.gz", "ab") as fh:
        fh.write(b"x")
    with raises_one_line("checksum mismatch", "colon"):
        load("colon", data_home=home)


def test_load_accepts_dataset_and_rejects_nonsense():
    ds = load("synthetic:han2012?n_samples=10&random_state=0")
    assert load(ds) is ds
    with raises_one_line("cannot load"):
        load(3.5)
    with raises_one_line("no data source"):
        load("  ")


def test_no_warning_for_clean_files(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(write(tmp_path / "d.csv", SMALL_CSV))


def test_registry_name_wins_over_a_folder_of_that_name(tmp_path, monkeypatch, shared_data):
    """``stablefs compare colon`` twice in one directory: the first run's output folder may be
    called ``colon``; the name must still mean the registry set."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "colon").mkdir()
    ds = load("colon")
    assert ds.X.shape == (62, 2000)
