"""Hostile or huge inputs, outputs read by other programs, endpoints and user code (issue 16).

Each test names the attack it keeps fixed: formula injection in every CSV/GMT (CWE-1236),
control characters on the terminal, gzip bombs and huge declared shapes, huge ``-k`` ranges,
downloads that trickle or overflow, schedulers that never answer, user criteria that crash.
"""

from __future__ import annotations

import csv
import gzip
import http.server
import io
import socket
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stablefs import StablefsError
from stablefs._errors import EXIT_DATA, EXIT_RESOURCE
from stablefs._runtime.escape import (
    CONTROL_MARK,
    FORMULA_TRIGGERS,
    escape_cell,
    escape_frame,
    printable,
    unescape_cell,
)
from stablefs.cli import main, parse_sizes
from stablefs.datasets import load

FORMULAS = ['=HYPERLINK("http://x","y")', "+SUM(A1)", "@cmd", "-2+3", "\tx", "\rx"]
_NUMBER = r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"


def one_line(exc_info, *needles) -> str:
    msg = str(exc_info.value)
    assert "\n" not in msg, msg
    for n in needles:
        assert n in msg, (n, msg)
    return msg


def unsafe(cell: str) -> bool:
    """A text cell a spreadsheet would evaluate (not a plain number)."""
    import re

    return cell.startswith(FORMULA_TRIGGERS) and not re.fullmatch(_NUMBER, cell)


# ---------------------------------------------------------------------- the escaping rule


def test_escape_cell_follows_owasp():
    for text in FORMULAS:
        if text[0] in "\t\r":  # a control character: shown as an escape (issue 35)
            assert escape_cell(text) == CONTROL_MARK + f"\\x{ord(text[0]):02x}" + text[1:]
        else:
            assert escape_cell(text) == "'" + text
    assert escape_cell("BRCA1") == "BRCA1"
    assert escape_cell("-1.5") == "-1.5" and escape_cell("+2e-3") == "+2e-3"  # plain numbers
    assert escape_cell(-1.5) == -1.5 and escape_cell(None) is None


def test_escape_frame_touches_text_only():
    df = pd.DataFrame({"feature": ["=a", "b", "-1.5", None], "k": [1, -2, 3, 4],
                       "value": [-1.5, 2.0, np.nan, 0.0], "=col": ["x", "@y", "z", "w"]})
    out = escape_frame(df)
    assert out["feature"].tolist()[:3] == ["'=a", "b", "-1.5"] and pd.isna(out["feature"][3])
    assert out["k"].tolist() == [1, -2, 3, 4]
    assert out["value"].equals(df["value"])
    assert list(out.columns) == ["feature", "k", "value", "'=col"]
    assert out["'=col"].tolist() == ["x", "'@y", "z", "w"]
    assert df["feature"][0] == "=a"  # the input is not changed


@given(st.text(max_size=12))
def test_unescape_gives_back_every_raw_text(text):
    escaped = escape_cell(text)
    assert unescape_cell(escaped) == text
    assert not unsafe(escaped)


def test_printable_escapes_terminal_controls():
    assert printable("a\x1b[31mred\x1b[0m") == "a\\x1b[31mred\\x1b[0m"
    assert printable("x\ry\tz\u202e") == "x\\x0dy\\x09z\\u202e"
    assert printable("two\nlines") == "two\nlines"
    assert printable("two\nlines", keep_newlines=False) == "two\\nlines"


# ---------------------------------------------------------------------- compare and select


@pytest.fixture
def formula_data(tmp_path) -> Path:
    """40 samples; the six formula-named features and ``<script>`` carry the class, five others
    are noise."""
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], 20)
    signal = (y == "b")[:, None] * 3.0 + rng.normal(size=(40, 7))
    X = np.hstack([signal, rng.normal(size=(40, 5))])
    names = FORMULAS + ["<script>alert(1)</script>", "g1", "g2", "g3", "g4", "\x1b[31mred"]
    path = tmp_path / "formulas.npz"
    np.savez(path, X=X, y=y, feature_names=np.array(names))
    return path


def _cells(path: Path):
    if path.suffix == ".gmt":
        for line in path.read_text().splitlines():
            yield from line.split("\t")
        return
    with open(path, newline="") as fh:
        for row in csv.reader(fh):
            yield from row


def test_compare_escapes_every_written_text_cell(formula_data, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["compare", str(formula_data), "-m", "ttest", "-k", "7", "--repeats", "3",
                 "--classifiers", "1nn", "--out", str(out), "-q"])
    assert code == 0, capsys.readouterr().err
    written = sorted(out.glob("*.csv")) + sorted(out.glob("*.gmt"))
    assert {p.name for p in written} >= {"signature.csv", "signature.gmt", "frequencies.csv",
                                         "results.csv", "stability.csv", "comparisons.csv"}
    for path in written:
        bad = [c for c in _cells(path) if unsafe(c)]
        assert not bad, (path.name, bad)
    sig = pd.read_csv(out / "signature.csv")
    assert set(sig["feature"]) >= {escape_cell(f) for f in FORMULAS}  # the escaped form
    assert {unescape_cell(f) for f in sig["feature"]} >= set(FORMULAS)
    freq = pd.read_csv(out / "frequencies.csv")
    assert "'=HYPERLINK(\"http://x\",\"y\")" in set(freq["feature"])
    gmt = (out / "signature.gmt").read_text().split("\t")
    assert "'@cmd" in gmt and "'+SUM(A1)" in gmt
    html = (out / "report.html").read_text()
    assert "<script>alert(1)</script>" not in html  # the report still escapes HTML
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_select_out_is_escaped_and_terminal_output_printable(formula_data, tmp_path, capsys):
    out = tmp_path / "ranking.csv"
    assert main(["select", str(formula_data), "-m", "ttest", "-k", "3", "--out", str(out),
                 "-q"]) == 0
    cells = list(_cells(out))
    assert not [c for c in cells if unsafe(c)]
    assert "'-2+3" in cells and escape_cell("\rx") in cells
    capsys.readouterr()
    assert main(["select", str(formula_data), "-m", "ttest", "-k", "12"]) == 0
    printed = capsys.readouterr().out
    assert "\r" not in printed and "\x1b" not in printed and "\\x1b[31mred" in printed


def test_error_lines_escape_control_characters(tmp_path, capsys):
    name = tmp_path / "evil\x1b[2J\rname.csv"
    assert main(["compare", str(name), "--out", str(tmp_path / "o")]) == EXIT_DATA
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err and "evil\\x1b[2J" in err
    assert err.count("\n") == 1


# ---------------------------------------------------------------------- -k ranges


def test_huge_k_range_is_refused_before_expansion(capsys):
    t0 = time.perf_counter()
    with pytest.raises(StablefsError) as info:
        parse_sizes("1:10000000000", 1000)
    assert time.perf_counter() - t0 < 0.5
    one_line(info, "10000000000", "1000")
    with pytest.raises(StablefsError) as info:
        parse_sizes("0:10000000000:5", 1000)
    one_line(info, "k = 0")
    assert parse_sizes("3:10:4", 100) == [3, 7]
    assert parse_sizes("990:1009:10", 1000) == [990, 1000]  # the last size is 1000 <= p
    with pytest.raises(StablefsError):
        parse_sizes("990:1010:10", 1000)  # the last size is 1010 > p


# ---------------------------------------------------------------------- bombs and declarations


def _limit(monkeypatch, text):
    monkeypatch.setenv("STABLEFS_MEMORY_LIMIT", text)


def test_gzip_bomb_is_refused_after_inflating_at_most_the_limit(tmp_path, monkeypatch):
    row = b"0,0,0,0,0,0,0,0,0,a\n"
    member = gzip.compress(row * ((16 << 20) // len(row)), compresslevel=9)  # 16 MiB
    path = tmp_path / "bomb.csv.gz"
    with open(path, "wb") as fh:
        fh.write(gzip.compress(b"g0,g1,g2,g3,g4,g5,g6,g7,g8,label\n"))
        for _ in range(16):  # 256 MiB of text, 128 Mi values: 2 GiB as float64 + copy
            fh.write(member)
    assert path.stat().st_size < 1 << 20
    _limit(monkeypatch, "64M")
    t0 = time.perf_counter()
    with pytest.raises(StablefsError) as info:
        load(path)
    msg = one_line(info, str(path), "inflates to more than", "STABLEFS_MEMORY_LIMIT",
                   "more memory")
    assert "64.0 MiB" in msg
    assert time.perf_counter() - t0 < 10  # stops at the limit, never inflates the 256 MiB


def test_small_gzip_table_loads_under_the_limit(tmp_path, monkeypatch):
    path = tmp_path / "ok.csv.gz"
    path.write_bytes(gzip.compress(b"g0,g1,label\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n"))
    _limit(monkeypatch, "1M")
    assert load(path).X.shape == (4, 2)


def test_plain_table_larger_than_the_limit_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "wide.csv"
    p = 5000
    header = ",".join(f"g{i}" for i in range(p)) + ",label\n"
    rng = np.random.default_rng(0)
    path.write_text(header + "".join(",".join(map(str, rng.integers(0, 9, p))) + f",{'ab'[i % 2]}\n"
                                     for i in range(20)))
    _limit(monkeypatch, "1M")  # 100,000 values x 16 bytes > 1 MiB
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "holds more than")
    _limit(monkeypatch, "1G")
    assert load(path).X.shape == (20, p)


def _npy(shape, dtype, payload=b"") -> bytes:
    from numpy.lib import format as npy

    buf = io.BytesIO()
    npy.write_array_header_1_0(buf, {"descr": npy.dtype_to_descr(np.dtype(dtype)),
                                     "fortran_order": False, "shape": shape})
    return buf.getvalue() + payload


def test_npz_declaring_1e12_values_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("X.npy", _npy((1_000_000, 1_000_000), "<f8", b"\0" * 64))
        z.writestr("y.npy", _npy((1_000_000,), "<i8", b"\0" * 64))
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "X 1000000x1000000 float64", "TiB", "more memory")


def test_npz_with_huge_string_array_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "names.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("X.npy", _npy((2, 2), "<f8", np.zeros(4).tobytes()))
        z.writestr("y.npy", _npy((2,), "<i8", np.arange(2).tobytes()))
        z.writestr("feature_names.npy", _npy((2,), "<U100000000", b""))
    _limit(monkeypatch, "256M")
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "feature_names 2 <U100000000")


def test_damaged_npz_header_is_one_line(tmp_path):
    path = tmp_path / "bad.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("X.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': <f8,  }\n")
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "not a valid .npz")


def test_sparse_arff_declaring_many_attributes_is_refused(tmp_path, monkeypatch):
    n_attr = 200_000
    text = "@relation r\n" + "".join(f"@attribute a{i} numeric\n" for i in range(n_attr))
    text += "@attribute class {x,y}\n@data\n" + "{0 1}\n" * 200
    path = tmp_path / "sparse.arff"
    path.write_text(text)
    _limit(monkeypatch, "256M")  # 200 rows x 200,001 attributes x 24 bytes = 916 MiB
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "200 rows of 200,001 declared attributes")


def test_h5ad_declared_shape_is_checked_before_reading(tmp_path):
    h5py = pytest.importorskip("h5py")
    from stablefs.datasets._readers import check_h5ad_sizes

    path = tmp_path / "huge.h5ad"
    with h5py.File(path, "w") as f:
        f.create_dataset("X", shape=(1_000_000, 1_000_000), dtype="f4", chunks=(10, 10))
    with pytest.raises(StablefsError) as info:
        check_h5ad_sizes(path)
    one_line(info, "X 1000000 x 1000000")
    small = tmp_path / "small.h5ad"
    with h5py.File(small, "w") as f:
        f.create_dataset("X", data=np.zeros((3, 2)))
    check_h5ad_sizes(small)


def test_memory_limit_variable_is_checked(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    path.write_text("g,label\n1,a\n2,b\n")
    _limit(monkeypatch, "lots")
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "STABLEFS_MEMORY_LIMIT='lots'")


# ---------------------------------------------------------------------- downloads


class _Hostile(http.server.BaseHTTPRequestHandler):
    mode = "trickle"
    size = 0

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - the http.server API
        self.send_response(200)
        if self.mode == "announce":
            self.send_header("Content-Length", str(self.size * 10))
        self.end_headers()
        try:
            if self.mode == "trickle":
                for _ in range(60):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(1.0)
            else:
                self.wfile.write(b"x" * (self.size + 100_000))
        except OSError:
            pass


@pytest.fixture
def hostile(monkeypatch, tmp_path):
    servers = []

    def start(mode: str, size: int) -> str:
        handler = type("H", (_Hostile,), {"mode": mode, "size": size})
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    monkeypatch.setenv("STABLEFS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STABLEFS_DATA", "")
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def test_download_that_trickles_stops_at_the_total_deadline(hostile, monkeypatch, tmp_path):
    from stablefs.datasets import _registry as reg

    entry = reg.entry_for("alon")
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", hostile("trickle", entry.size))
    monkeypatch.setenv("STABLEFS_DOWNLOAD_TIMEOUT", "2")
    t0 = time.perf_counter()
    with pytest.raises(StablefsError) as info:
        reg.fetch("alon")
    took = time.perf_counter() - t0
    one_line(info, "more than 2 s", "STABLEFS_DOWNLOAD_TIMEOUT", "nothing was kept")
    assert took < 6, took  # a byte every second never trips a per-read timeout
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


@pytest.mark.parametrize("mode", ["overflow", "announce"])
def test_download_larger_than_declared_is_refused(hostile, monkeypatch, tmp_path, mode):
    from stablefs.datasets import _registry as reg

    entry = reg.entry_for("alon")
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", hostile(mode, entry.size))
    with pytest.raises(StablefsError) as info:
        reg.fetch("alon")
    one_line(info, f"{entry.size:,} bytes", "nothing was kept")
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


def test_download_deadline_variable_is_checked(monkeypatch):
    from stablefs.datasets import _registry as reg

    monkeypatch.setenv("STABLEFS_DOWNLOAD_TIMEOUT", "-3")
    with pytest.raises(StablefsError):
        reg.download_deadline()


# ---------------------------------------------------------------------- schedulers


@pytest.fixture
def silent_server():
    """A listener that accepts connections and never sends a byte."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    conns, stop = [], threading.Event()

    def accept():
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    for c in conns:
        c.close()
    srv.close()


@pytest.fixture
def http_server():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def banner_server():
    """A server that speaks first, but not Dask (as an SSH or SMTP server does)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve():
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                c = srv.accept()[0]
            except OSError:
                continue
            c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
            c.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    srv.close()


def test_silent_scheduler_fails_within_the_deadline(silent_server):
    pytest.importorskip("distributed")
    from stablefs.evaluation.runner import check_scheduler

    t0 = time.perf_counter()
    with pytest.raises(StablefsError) as info:
        check_scheduler(silent_server, timeout=1.0)
    assert time.perf_counter() - t0 < 3
    one_line(info, silent_server, "within 1 s", "--scheduler-timeout")


def test_http_server_as_scheduler_fails_without_allocating(http_server):
    pytest.importorskip("distributed")
    from stablefs.evaluation.runner import check_scheduler

    with pytest.raises(StablefsError) as info:
        check_scheduler(http_server, timeout=1.0)
    one_line(info, http_server, "did not complete a handshake")


def test_server_speaking_another_protocol_is_refused(banner_server):
    pytest.importorskip("distributed")
    from stablefs.evaluation.runner import check_scheduler

    with pytest.raises(StablefsError) as info:
        check_scheduler(banner_server, timeout=5.0)
    one_line(info, banner_server, "not as a Dask scheduler", "HTTP/1.1")


def test_real_scheduler_passes_the_handshake():
    distributed = pytest.importorskip("distributed")
    from stablefs.evaluation.runner import check_scheduler

    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                  dashboard_address=None) as cluster:
        check_scheduler(cluster.scheduler_address, timeout=10.0)


def test_handshake_check_works_inside_a_running_event_loop(silent_server):
    distributed = pytest.importorskip("distributed")
    import asyncio

    from stablefs.evaluation.runner import check_scheduler

    async def in_a_notebook():
        with pytest.raises(StablefsError):
            check_scheduler(silent_server, timeout=1.0)
        with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                      dashboard_address=None) as cluster:
            check_scheduler(cluster.scheduler_address, timeout=10.0)

    asyncio.run(in_a_notebook())


@pytest.mark.parametrize("command", [["compare"], ["reproduce", "li-ensembles", "--quick"],
                                     ["benchmark", "--quick"]])
def test_cli_scheduler_timeout_option(command, silent_server, tmp_path, capsys):
    """compare, reproduce and benchmark take the same --scheduler-timeout."""
    pytest.importorskip("distributed")
    out = tmp_path / "run"
    t0 = time.perf_counter()
    code = main([*command, "--backend", "dask", "--scheduler", silent_server,
                 "--scheduler-timeout", "1", "--out", str(out)])
    assert code == EXIT_RESOURCE and time.perf_counter() - t0 < 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and silent_server in err and "within 1 s" in err
    assert not out.exists()
    assert main([*command, "--backend", "dask", "--scheduler", silent_server,
                 "--scheduler-timeout", "0", "--out", str(out)]) == 2


# ---------------------------------------------------------------------- user criteria


def _data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    y = (X[:, 0] + 0.5 * X[:, 3] > 0).astype(int)
    return X, y


def test_sklearn_criterion_runs_in_sfs_and_sffs():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    from stablefs.selectors import SFFS, SFS

    X, y = _data()
    sizes = []

    def criterion(X_subset, y):
        sizes.append(X_subset.shape[1])
        return 1.0 - cross_val_score(LogisticRegression(), X_subset, y, cv=3).mean()

    for cls in (SFS, SFFS):
        sel = cls(criterion=criterion, n_features_to_select=2).fit(X, y)
        assert sel.support_.sum() == 2 and sel.support_[0]
    assert sizes and min(sizes) >= 1  # the empty subset is never passed to the user


def test_empty_subset_value_is_the_majority_error():
    from stablefs.selectors.wrappers._criteria import make_criterion

    X, y = _data()
    called = []
    crit = make_criterion(X, y, criterion=lambda Xs, yy: called.append(1) or 0.5)
    counts = np.bincount(y)
    assert crit.error([]) == pytest.approx(1 - counts.max() / counts.sum())
    assert not called
    builtin = make_criterion(X, y, criterion="resubstitution")
    assert builtin.error([]) == crit.error([])  # the built-in rule gives the same value


def test_raising_criterion_is_one_line_with_the_subset_size():
    from stablefs.selectors import SFS

    X, y = _data()

    def criterion(X_subset, y):
        if X_subset.shape[1] == 2:
            raise RuntimeError("model exploded\non two lines")
        return float(X_subset.shape[1])

    with pytest.raises(StablefsError) as info:
        SFS(criterion=criterion, n_features_to_select=3).fit(X, y)
    one_line(info, "RuntimeError", "subset of 2 feature(s)", "model exploded")
