"""The registry's download and .RData conversion, against a loopback HTTP server.

The server serves ``../shared/datasets/rdata`` (six pinned ``datamicroarray`` files); nothing
here touches the network. Converted sets are compared with the shared ``.csv.gz`` files, which
were made independently from the same ``.RData`` files: same CSV text, same matrix (exact
float equality), labels and feature names.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import os
import shutil
import socket
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stablefs import StablefsError
from stablefs._runtime.pandas_compat import EXACT_FLOATS
from stablefs.cli import main
from stablefs.datasets import _registry as reg
from stablefs.datasets import load
from stablefs.datasets._rdata import (
    RDataSet,
    _labels,
    convert_rdata,
    read_rdata,
    write_csv_gz,
)

SIX = {"alon": "colon", "golub": "leukemia", "singh": "prostate", "gordon": "lung",
       "khan": "srbct", "shipp": "dlbcl"}


def one_line_error(fn, *needles):
    with pytest.raises(StablefsError) as info:
        fn()
    msg = str(info.value)
    assert "\n" not in msg
    for n in needles:
        assert str(n) in msg, (n, msg)
    return msg


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture
def serve():
    """``serve(folder) -> base URL`` of a loopback HTTP server for ``folder``."""
    servers = []

    def start(folder: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        servers.append((httpd, thread))
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    yield start
    for httpd, thread in servers:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache, no STABLEFS_DATA folders, and no proxy for the loopback server."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("STABLEFS_CACHE", str(folder))
    monkeypatch.delenv("STABLEFS_DATA", raising=False)
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    return folder


@pytest.fixture
def rdata_dir(shared_data):
    folder = shared_data / "rdata"
    if not (folder / "alon.RData").is_file():
        pytest.skip("shared .RData files not found (../shared/datasets/rdata)")
    return folder


def read_shared(path: Path):
    """The shared csv.gz read with pandas, as an independent reference."""
    df = pd.read_csv(path, dtype={"label": str}, **EXACT_FLOATS)
    return df.drop(columns="label").to_numpy(np.float64), df["label"].to_numpy(str), list(
        df.columns[1:]
    )


# --------------------------------------------------------------------------------------------
# download + conversion of the six seed sets
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SIX))
def test_download_and_convert_equals_shared(name, cache, rdata_dir, shared_data, serve,
                                            monkeypatch):
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", serve(rdata_dir))
    res = reg.fetch_dataset(name)
    assert res.action == "downloaded"
    assert res.path == cache / f"{name}.csv.gz"
    raw = cache / f"{name}.RData"
    assert hashlib.sha256(raw.read_bytes()).hexdigest() == reg.REGISTRY[name].sha256
    # the same CSV text as the shared file: every label, name and value written identically
    # (the gzip level differs, so not the same compressed bytes)
    text = gzip.decompress(res.path.read_bytes())
    assert text == gzip.decompress((shared_data / f"{SIX[name]}.csv.gz").read_bytes())
    assert hashlib.sha256(text).hexdigest() == reg.REGISTRY[name].content_sha256
    # nothing but the two files in the cache; the next call finds the converted one
    assert sorted(p.name for p in cache.iterdir()) == sorted([raw.name, res.path.name])
    assert reg.fetch_dataset(SIX[name]).action == "found"


@pytest.mark.parametrize("name", ["alon", "golub", "khan"])
def test_converted_matrix_equals_shared(name, rdata_dir, shared_data):
    """Through independent readers (rdata on the .RData, pandas on the shared csv.gz): the
    matrix bit for bit, the labels and the feature names (placeholders X1.. and GENE1..
    renamed f0..; golub's real probe IDs kept, and its golub_train/golub_test ignored)."""
    ours = read_rdata(rdata_dir / f"{name}.RData")
    X, y, names = read_shared(shared_data / f"{SIX[name]}.csv.gz")
    e = reg.REGISTRY[name]
    assert ours.X.shape == X.shape == (e.n_samples, e.n_features)
    assert np.array_equal(ours.X, X)
    assert list(ours.y) == list(y)
    assert ours.feature_names == names
    labels, counts = np.unique(y, return_counts=True)
    assert dict(zip(labels.tolist(), counts.tolist())) == e.classes


def test_load_by_name_and_alias_after_download(cache, rdata_dir, serve, monkeypatch):
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", serve(rdata_dir) + "/")  # trailing / is fine
    a = load("ALON")
    b = load("colon")
    assert a.source == b.source == str(cache / "alon.csv.gz")
    assert a.name == "alon" and b.name == "colon"
    assert a.X.shape == (62, 2000) and a.class_counts() == {"t": 40, "n": 22}
    assert list(a.feature_names[:3]) == ["f0", "f1", "f2"]


# --------------------------------------------------------------------------------------------
# failures: wrong checksum, server down, 404, bad URL
# --------------------------------------------------------------------------------------------


def test_tampered_download_is_refused_and_not_kept(cache, rdata_dir, tmp_path, serve,
                                                   monkeypatch):
    bad = tmp_path / "mirror"
    bad.mkdir()
    data = bytearray((rdata_dir / "khan.RData").read_bytes())
    data[1000] ^= 0xFF
    (bad / "khan.RData").write_bytes(bytes(data))
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", serve(bad))
    one_line_error(lambda: reg.fetch("srbct"), "khan (srbct)", reg.REGISTRY["khan"].sha256,
                   hashlib.sha256(bytes(data)).hexdigest(), "not kept", "STABLEFS_REGISTRY_URL")
    assert not cache.exists() or not any(cache.iterdir())


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_down_says_where_to_put_the_file(cache, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", f"http://127.0.0.1:{closed_port()}/data")
    msg = one_line_error(lambda: reg.fetch("lung", data_home=home), "could not download",
                         "gordon (lung)", "gordon.RData", "lung.csv.gz", str(home),
                         "STABLEFS_REGISTRY_URL")
    assert "refused" in msg.lower()
    assert not cache.exists() or not any(cache.iterdir())
    one_line_error(lambda: load("lung"), "could not download")


def test_missing_file_on_server(cache, tmp_path, serve, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", serve(empty))
    one_line_error(lambda: reg.fetch("west"), "HTTP 404", "west.RData", "STABLEFS_REGISTRY_URL")
    assert not any(cache.iterdir())


def test_bad_registry_url(cache, monkeypatch):
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", "/some/folder")
    one_line_error(lambda: reg.fetch("alon"), "STABLEFS_REGISTRY_URL=/some/folder", "http")


def test_no_download_when_told_not_to(cache, monkeypatch):
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", f"http://127.0.0.1:{closed_port()}")
    one_line_error(lambda: reg.fetch("alon", download=False), "downloads are off", "alon.RData")


def test_default_url_is_the_pinned_commit(monkeypatch):
    monkeypatch.delenv("STABLEFS_REGISTRY_URL", raising=False)
    assert reg.REGISTRY["colon"].url == (
        "https://github.com/ramhiser/datamicroarray/raw/"
        "a95f6f68ed3debf48ee54f198435fa12aa655b16/data/alon.RData"
    )
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", "http://mirror.example/dm/")
    assert reg.REGISTRY["west"].url == "http://mirror.example/dm/west.RData"


# --------------------------------------------------------------------------------------------
# local files: .RData in a searched folder, converted forms, checksums
# --------------------------------------------------------------------------------------------


def test_rdata_in_data_home_is_converted_once(cache, rdata_dir, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(rdata_dir / "khan.RData", home / "khan.RData")
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", f"http://127.0.0.1:{closed_port()}")  # unused
    res = reg.fetch_dataset("srbct", data_home=home)
    assert res.action == "converted" and res.source == str(home / "khan.RData")
    assert res.path == cache / "khan.csv.gz"
    mtime = res.path.stat().st_mtime_ns

    def boom(*a, **k):
        raise AssertionError("converted twice")

    monkeypatch.setattr("stablefs.datasets._rdata.read_rdata", boom)
    again = reg.fetch_dataset("khan", data_home=home)
    assert again.action == "found" and again.path == res.path
    assert res.path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in home.iterdir()) == ["khan.RData"]  # data_home untouched


def test_corrupt_rdata_is_an_error(cache, rdata_dir, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "alon.RData").write_bytes((rdata_dir / "alon.RData").read_bytes()[:-10])
    one_line_error(lambda: reg.fetch("alon", data_home=home), "checksum mismatch",
                   "alon (colon)", reg.REGISTRY["alon"].sha256, "296170 bytes")
    assert not cache.exists() or not any(cache.iterdir())


def test_converted_file_checked_by_content(cache, shared_data, tmp_path):
    """A converted file compressed differently (another zlib or level) is accepted through the
    sha256 of its CSV text; a changed value is not."""
    home = tmp_path / "home"
    home.mkdir()
    text = gzip.decompress((shared_data / "srbct.csv.gz").read_bytes())
    (home / "khan.csv.gz").write_bytes(gzip.compress(text, compresslevel=1))
    assert reg.fetch("srbct", data_home=home) == home / "khan.csv.gz"
    assert hashlib.sha256(text).hexdigest() == reg.REGISTRY["khan"].content_sha256
    changed = text.replace(b"0.773343723", b"0.773343724", 1)
    assert changed != text
    (home / "khan.csv.gz").write_bytes(gzip.compress(changed, compresslevel=1))
    one_line_error(lambda: reg.fetch("khan", data_home=home), "checksum mismatch",
                   reg.REGISTRY["khan"].content_sha256)
    (home / "khan.csv.gz").write_bytes(b"not gzip at all")
    one_line_error(lambda: reg.fetch("khan", data_home=home), "checksum mismatch")


def test_registry_hashes_match_the_shared_files(shared_data, rdata_dir):
    """The registry's checksums are those of MANIFEST.md and rdata/README.md, and its
    content hashes those of the shared CSV text."""
    manifest = (shared_data / "MANIFEST.md").read_text()
    readme = (rdata_dir / "README.md").read_text()
    names = {e.name for e in reg.REGISTRY.values()}
    assert len(names) == 16
    for name in names:
        e = reg.REGISTRY[name]
        assert f"| {name} |" in readme and e.sha256 in readme and f"| {e.size} |" in readme
        if e.alias:
            assert reg.REGISTRY[e.alias] is e and reg.ALIASES[e.alias] == name
            assert e.csv_sha256 in manifest
            csv = shared_data / f"{e.alias}.csv.gz"
            assert csv.stat().st_size == e.csv_size
            assert hashlib.sha256(gzip.decompress(csv.read_bytes())).hexdigest() == (
                e.content_sha256
            )
        if (rdata_dir / e.filename).is_file():
            assert (rdata_dir / e.filename).stat().st_size == e.size


def test_unknown_name_suggests_close_matches():
    msg = one_line_error(lambda: reg.fetch("colom"), "unknown registry data set 'colom'",
                         "colon", "stablefs datasets")
    assert len(msg) < 160


# --------------------------------------------------------------------------------------------
# the converter on hand-made .RData files
# --------------------------------------------------------------------------------------------


def write_rda(path: Path, obj_name: str, obj) -> Path:
    import rdata

    rdata.write_rda(path, {obj_name: obj})
    return path


def csv_text(path: Path) -> list[str]:
    return gzip.decompress(path.read_bytes()).decode().splitlines()


def test_converter_data_frame_names_and_exact_values(tmp_path):
    df = pd.DataFrame({"1007_s_at": [0.1, -0.0, 1e-300], "AFFX-x,y": [123.0, 2.5e17, np.nan]})
    src = write_rda(tmp_path / "toy.RData", "toy",
                    {"x": df, "y": pd.Categorical(["a, b", "c", "a, b"])})
    digest = convert_rdata(src, tmp_path / "toy.csv.gz")
    lines = csv_text(tmp_path / "toy.csv.gz")
    assert lines == [
        'label,1007_s_at,"AFFX-x,y"',
        '"a, b",0.1,123.0',
        "c,-0.0,2.5e+17",
        '"a, b",1e-300,',  # a missing value is an empty field
    ]
    assert digest == hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()
    back = pd.read_csv(tmp_path / "toy.csv.gz", **EXACT_FLOATS)
    np.testing.assert_array_equal(back.iloc[:, 1:].to_numpy(), df.to_numpy())


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (["V1", "V2", "V3"], ["f0", "f1", "f2"]),
        (["X1", "X2", "X3"], ["f0", "f1", "f2"]),
        (["GENE1", "GENE2", "GENE3"], ["f0", "f1", "f2"]),
        (["V1", "V3", "V2"], ["V1", "V3", "V2"]),  # not the placeholder sequence: kept
        (["X1", "g", "X3"], ["X1", "g", "X3"]),
        (["V0", "V1", "V2"], ["V0", "V1", "V2"]),
    ],
)
def test_converter_placeholder_names(tmp_path, columns, expected):
    df = pd.DataFrame(np.arange(6.0).reshape(2, 3), columns=columns)
    src = write_rda(tmp_path / "p.RData", "p", {"x": df, "y": pd.Categorical(["u", "v"])})
    assert read_rdata(src).feature_names == expected


def test_converter_unnamed_matrix(tmp_path):
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]])
    src = write_rda(tmp_path / "m.RData", "m", {"x": x, "y": pd.Categorical(["1", "2", "1"])})
    data = read_rdata(src)
    assert data.feature_names == ["f0", "f1"]
    assert data.X.flags.c_contiguous and np.array_equal(data.X, x)
    assert list(data.y) == ["1", "2", "1"]


def test_converter_rejects_what_is_not_a_datamicroarray_set(tmp_path):
    y = pd.Categorical(["a", "b"])
    x = np.zeros((2, 2))
    src = write_rda(tmp_path / "other.RData", "something", {"x": x, "y": y})
    one_line_error(lambda: read_rdata(src), "no object 'other'", "something")
    src = write_rda(tmp_path / "noy.RData", "noy", {"x": x})
    one_line_error(lambda: read_rdata(src), "not a list with x and y")
    src = write_rda(tmp_path / "len.RData", "len", {"x": np.zeros((3, 2)), "y": y})
    one_line_error(lambda: read_rdata(src), "2 labels but x has 3 samples")
    # (rdata's writer loses factor NAs, so the label check is fed a parsed factor directly)
    one_line_error(lambda: _labels(pd.Categorical(["a", None, "b"]), 3, "f.RData"),
                   "f.RData", "1 sample(s) have no class label", "sample 2")
    # (object dtype: rdata's writer cannot take pandas 3's default string arrays)
    text = pd.Series(["p", "q"], dtype=object)
    src = write_rda(tmp_path / "txt.RData", "txt",
                    {"x": pd.DataFrame({"g1": [1.0, 2.0], "g2": text}), "y": y})
    one_line_error(lambda: read_rdata(src), "non-numeric", "g2")
    (tmp_path / "junk.RData").write_bytes(b"hello, not R")
    one_line_error(lambda: read_rdata(tmp_path / "junk.RData"), "not a readable R data file")


def test_conversion_mismatch_writes_nothing(tmp_path):
    data = RDataSet(np.ones((2, 2)), np.array(["a", "b"]), ["g1", "g2"])
    dest = tmp_path / "d.csv.gz"
    one_line_error(
        lambda: write_csv_gz(dest, data, expected_content_sha256="0" * 64, name="toy"),
        "converting toy", "0" * 64, "nothing was written",
    )
    assert list(tmp_path.iterdir()) == []


def test_concurrent_conversions_leave_one_whole_file(tmp_path):
    rng = np.random.default_rng(0)
    data = RDataSet(rng.normal(size=(40, 3000)), np.repeat(["a", "b"], 20),
                    [f"g{i}" for i in range(3000)])
    dest = tmp_path / "c.csv.gz"
    digests, errors = [], []

    def work():
        try:
            digests.append(write_csv_gz(dest, data, compresslevel=1))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(digests)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["c.csv.gz"]  # no temporary file left
    assert hashlib.sha256(gzip.decompress(dest.read_bytes())).hexdigest() == digests[0]


# --------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_table_fits_100_columns(cache, shared_data, tmp_path, monkeypatch, capsys):
    deep = tmp_path / ("a_rather_long_folder_name_" * 4) / ("another_long_one_" * 3)
    deep.mkdir(parents=True)
    shutil.copy(shared_data / "srbct.csv.gz", deep / "srbct.csv.gz")
    monkeypatch.setenv("STABLEFS_DATA", f"{deep}{os.pathsep}{shared_data}")
    (cache / "dummy").mkdir(parents=True)
    shutil.copy(shared_data / "srbct.csv.gz", cache / "subramanian.csv.gz")  # longest name
    code, out, err = run(["datasets"], capsys)
    assert code == 0 and not err
    lines = out.splitlines()
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    rows = {line.split()[0]: line for line in lines[1:] if line and not line.startswith(" ")}
    assert {e.name for e in reg.entries()} <= set(rows) and len(reg.entries()) == 16
    assert "colon" in rows["alon"] and "62 x 2000" in rows["alon"] and "Alon et al. 1999" in (
        rows["alon"])
    assert "[2] colon.csv.gz" in rows["alon"] and "[1] srbct.csv.gz" in rows["khan"]
    assert "[3] subramanian.csv.gz" in rows["subramanian"]
    assert "not downloaded" in rows["west"]
    assert "..." in out  # the long folder is abbreviated in the middle
    assert "Han 2012" in out and "Xiao, Hua and Dougherty 2007" in out
    assert "seed" not in out.lower()
    assert "STABLEFS_REGISTRY_URL" in out


def test_cli_download(cache, rdata_dir, serve, monkeypatch, capsys):
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", serve(rdata_dir))
    code, out, err = run(["datasets", "--download", "alon", "srbct,colon"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("alon (colon)") and "downloaded and converted" in lines[0]
    assert lines[1].startswith("khan (srbct)") and "63 x 2308" in lines[1]
    assert (cache / "alon.csv.gz").is_file() and (cache / "khan.csv.gz").is_file()
    code, out, _ = run(["datasets", "--download", "khan"], capsys)
    assert code == 0 and "present" in out
    code, out, _ = run(["datasets", "khan"], capsys)
    assert code == 0 and "khan" in out and "alon" not in out


def test_cli_download_errors(cache, capsys, monkeypatch):
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", f"http://127.0.0.1:{closed_port()}")
    code, out, err = run(["datasets", "--download", "alon", "golb"], capsys)
    assert code == 2 and not out
    assert err.count("\n") == 1 and "'golb'" in err and "golub" in err
    assert not cache.exists()  # validated before any download
    code, out, err = run(["datasets", "--download"], capsys)
    assert code == 2 and "needs set names" in err
    code, out, err = run(["datasets", "--download", "west"], capsys)
    assert code == 2 and err.count("\n") == 1 and "could not download" in err
