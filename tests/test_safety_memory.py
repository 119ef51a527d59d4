"""One memory guard for every input (issue 35, finding 2; ``docs/security.md``, "Limits").

Every reader estimates the memory its reading will take before the bulk of it, and refuses in
one line when the estimate exceeds the memory available (``STABLEFS_MEMORY_LIMIT``, or
``MemAvailable`` lowered to the cgroup's room). The estimate must be honest: for each reader, at
a few sizes, the load runs in a fresh process whose peak resident memory Linux measures
(``tests/memory_helpers.py``), and the estimate lies within 1.5x of that peak either way. Side
inputs (the ``--labels`` sample sheet, the ``--annotation`` table), registry conversions and
resume state have their guards too.

Sizes: 1 and 3 million values per file (the raw-scale check samples 2 million; peaks of 20 to
330 MB); the measurements take about a minute of CPU in all.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from memory_helpers import (
    can_measure,
    measure,
    write_annotation,
    write_arff,
    write_h5ad,
    write_npz,
    write_raw_npz,
    write_sheet,
    write_table,
)
from stablefs import StablefsError
from stablefs._errors import EXIT_RESOURCE
from stablefs.datasets import load

needs_proc = pytest.mark.skipif(not can_measure(),
                                reason="needs Linux /proc/self/clear_refs to measure a peak")

#: (n samples, p features) of the measured files: wide (expression-like) and tall
SHAPES = [(100, 10000), (300, 10000), (4000, 250)]
#: the estimate must lie within this factor of the measured peak, either way
WITHIN = 1.5


def _check(result: dict, what: str) -> float:
    ratio = result["estimate"] / result["peak"]
    assert 1 / WITHIN <= ratio <= WITHIN, (
        f"{what}: estimate {result['estimate'] / 2**20:.1f} MiB against a peak of "
        f"{result['peak'] / 2**20:.1f} MiB (ratio {ratio:.2f}); estimates {result['estimates']}")
    print(f"\n{what}: estimate {result['estimate'] / 2**20:.1f} MiB, peak "
          f"{result['peak'] / 2**20:.1f} MiB, ratio {ratio:.2f}")  # pytest -s: the table
    return ratio


@needs_proc
@pytest.mark.parametrize("kind", ["numbers", "missing", "transposed", "transposed-missing",
                                  "gzip", "ids"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_text_table_estimate_is_within_1_5x_of_the_peak(tmp_path, kind, shape):
    """The fast reader (NumPy), pandas' reader (a file with a missing value), both layouts,
    gzip and a sample-ID column."""
    warm, warm_options = write_table(tmp_path / "warm.csv", 10, 6, kind)
    path, options = write_table(tmp_path / "data.csv", *shape, kind)
    result = measure(path, options, warm, warm_options)
    assert result["shape"] == list(shape)
    _check(result, f"{kind} {shape}")


@needs_proc
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("writer", [write_arff, write_npz], ids=["arff", "npz"])
def test_arff_and_npz_estimates_are_within_1_5x_of_the_peak(tmp_path, writer, shape):
    suffix = ".arff" if writer is write_arff else ".npz"
    warm, _ = writer(tmp_path / f"warm{suffix}", 10, 6)
    path, options = writer(tmp_path / f"data{suffix}", *shape)
    result = measure(path, options, warm, {})
    assert result["shape"] == list(shape)
    _check(result, f"{suffix} {shape}")


@needs_proc
@pytest.mark.parametrize("shape", SHAPES[:2], ids=lambda s: f"{s[0]}x{s[1]}")
def test_h5ad_estimate_is_within_1_5x_of_the_peak(tmp_path, shape):
    pytest.importorskip("anndata")
    warm, _ = write_h5ad(tmp_path / "warm.h5ad", 10, 6)
    path, options = write_h5ad(tmp_path / "data.h5ad", *shape)
    _check(measure(path, options, warm, {}), f".h5ad {shape}")


@needs_proc
@pytest.mark.parametrize("shape", [(300, 10000), (1000, 6000)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_scale_auto_log2_copy_estimate_is_within_1_5x_of_the_peak(tmp_path, shape):
    """Raw-looking data under compare's default ``--scale auto``: the load, the scale check
    and the log2 copy beside the data (beyond 2 million values the copy is the peak)."""
    warm, _ = write_raw_npz(tmp_path / "warm.npz", 10, 200)
    path, options = write_raw_npz(tmp_path / "data.npz", *shape)
    result = measure(path, options, warm, {}, call="compare")
    assert result["shape"] == list(shape)
    assert any("log2" in what for _, what, _ in result["estimates"]), result["estimates"]
    _check(result, f"raw .npz {shape}, scale auto")


def test_scale_auto_log2_copy_is_refused_in_one_line(monkeypatch):
    from stablefs.datasets._dataset import Dataset
    from stablefs.datasets._scale import log2_dataset

    X = np.full((100, 1000), 500.0)
    ds = Dataset(X, np.repeat(["a", "b"], 50), np.array([f"g{j}" for j in range(1000)]),
                 name="raw")
    monkeypatch.setenv("STABLEFS_MEMORY_LIMIT", "1M")  # the data and their copy: 1.7 MB
    with pytest.raises(StablefsError) as info:
        log2_dataset(ds)
    assert info.value.exit_code == EXIT_RESOURCE and "\n" not in str(info.value)
    assert "log2(max(x, 0) + 1) copy" in str(info.value) and "--scale raw" in str(info.value)
    monkeypatch.setenv("STABLEFS_MEMORY_LIMIT", "2M")
    assert log2_dataset(ds).X[0, 0] == np.log2(501.0)


@needs_proc
@pytest.mark.parametrize("rows", [200_000, 600_000])
def test_sample_sheet_estimate_is_within_1_5x_of_the_peak(tmp_path, rows):
    data, _ = write_table(tmp_path / "data.csv", 40, 5, "unlabelled")
    warm = write_sheet(tmp_path / "warm.csv", 40, 40)
    sheet = write_sheet(tmp_path / "sheet.csv", 40, rows)
    result = measure(data, {"labels": str(sheet)}, data, {"labels": str(warm)})
    # the other studies' samples are left out (one warning line); the join costs its part
    assert result["error"] is None and result["shape"] == [40, 5], result
    _check(result, f"sheet of {rows} rows")


@needs_proc
@pytest.mark.parametrize("name", ["gordon", "golub"])
def test_rdata_estimate_is_within_1_5x_of_the_peak(shared_data, name):
    """The registry's conversion: gordon is the largest file, golub holds three sets."""
    folder = shared_data / "rdata"
    if not (folder / f"{name}.RData").is_file():
        pytest.skip(f"{name}.RData not in the shared data")
    result = measure(folder / f"{name}.RData", {"name": name}, folder / "west.RData",
                     {"name": "west"}, call="rdata")
    _check(result, f"{name}.RData")


@needs_proc
def test_annotation_is_read_line_by_line(tmp_path):
    """An annotation table costs the symbols of the data's features, whatever its size: a
    table ten times longer does not take more memory."""
    warm = write_annotation(tmp_path / "warm.csv", 100, 200)
    peaks = []
    for rows in (100_000, 1_000_000):
        table = write_annotation(tmp_path / f"annotation-{rows}.csv", 2000, rows)
        result = measure(table, {"features": 2000}, warm, {"features": 100},
                         call="annotation")
        assert result["shape"] == [2000], result
        peaks.append(result["peak"])
    size = table.stat().st_size
    assert peaks[1] < 16 << 20 < size, (peaks, size)  # well below the table's 60 MB
    assert peaks[1] < peaks[0] + (4 << 20), peaks


# ---------------------------------------------------------------------- refusals, before work


def _limit(monkeypatch, text):
    monkeypatch.setenv("STABLEFS_MEMORY_LIMIT", text)


def test_gzip_sample_sheet_bomb_is_refused_while_inflating(tmp_path, monkeypatch):
    data, _ = write_table(tmp_path / "data.csv", 20, 5, "unlabelled")
    sheet = tmp_path / "sheet.csv.gz"
    row = b"x,a,note\n" * 100_000
    member = gzip.compress(row, compresslevel=9)
    with open(sheet, "wb") as fh:
        fh.write(gzip.compress(b"id,label,note\n" + b"".join(
            f"s{i},{'ab'[i % 2]},n\n".encode() for i in range(20))))
        for _ in range(400):  # 360 MB of text, 120 million cells
            fh.write(member)
    assert sheet.stat().st_size < 2 << 20
    _limit(monkeypatch, "64M")
    with pytest.raises(StablefsError) as info:
        load(data, labels=str(sheet))
    msg = str(info.value)
    assert "\n" not in msg and "reading this sample sheet (inflates to more than" in msg
    assert "one row per sample" in msg


def test_cli_refuses_the_sheet_in_one_line_before_the_output_folder(tmp_path, monkeypatch,
                                                                    capsys):
    from cli_helpers import run

    data, _ = write_table(tmp_path / "data.csv", 20, 5, "unlabelled")
    sheet = write_sheet(tmp_path / "sheet.csv", 20, 50_000)
    _limit(monkeypatch, "2M")
    out = tmp_path / "run"
    code, stdout, err = run(["compare", data, "--labels", f"{sheet}:label", "-m", "ttest",
                             "-k", "2", "--out", out], capsys)
    assert code == EXIT_RESOURCE and err.count("\n") == 1, err
    assert "reading this sample sheet" in err
    assert not out.exists()


def test_annotation_line_longer_than_the_cap_is_one_line(tmp_path, monkeypatch):
    from stablefs.datasets import _annotation

    monkeypatch.setattr(_annotation, "MAX_LINE_CHARS", 1000)
    path = tmp_path / "a.csv"
    path.write_text("probe,symbol\ng0,A\ng1," + "S" * 5000 + "\n")
    with pytest.raises(StablefsError) as info:
        _annotation.load_annotation(path, ["g0", "g1"])
    assert "line 3: longer than 1,000 characters" in str(info.value)


def test_rdata_bomb_is_refused_before_parsing(tmp_path, monkeypatch):
    from stablefs.datasets._rdata import read_rdata

    path = tmp_path / "bomb.RData"
    path.write_bytes(gzip.compress(b"RDX2\nX\n" + b"\0" * (64 << 20), compresslevel=9))
    _limit(monkeypatch, "100M")
    with pytest.raises(StablefsError) as info:
        read_rdata(path, "bomb")
    assert "reading this R data file (inflates to more than" in str(info.value)


def test_text_table_pandas_path_is_checked_before_pandas_reads(tmp_path, monkeypatch):
    """The fast reader's estimate passes, pandas' (a missing value) does not: refused before
    pandas starts."""
    from stablefs.datasets import _table

    path, options = write_table(tmp_path / "data.csv", 100, 3000, "missing")
    calls = []
    monkeypatch.setattr(_table, "read_csv", lambda *a, **k: calls.append(1))
    # 300,100 values: 9.4 MiB for the fast reader (the load's last steps, 33 B/value),
    # 12.7 MiB with pandas (17 B/value, the 2.1 MB of text and 2 KiB per column)
    from stablefs.datasets._limits import table_bytes

    assert table_bytes(300_100) < 11 << 20
    _limit(monkeypatch, "11M")
    with pytest.raises(StablefsError) as info:
        load(path, **options)
    assert "reading this table with pandas" in str(info.value) and calls == []


def test_stored_json_and_tables_are_size_checked(tmp_path, monkeypatch):
    from stablefs._runtime.stored import StoredFileError, check_table_size, read_json

    big = tmp_path / "run.json"
    big.write_bytes(b"[" + b"0," * 1000 + b"0]")
    with pytest.raises(StoredFileError, match="larger than the 100 bytes"):
        read_json(big, limit=100)
    assert len(read_json(big)) == 1001
    table = tmp_path / "results.csv"
    table.write_bytes(b"a,b\n" + b"1,2\n" * 100_000)
    _limit(monkeypatch, "2M")
    with pytest.raises(StablefsError) as info:
        check_table_size(table)
    assert "not written by stablefs" in str(info.value)


def test_memory_limit_is_honoured_from_the_cgroup(monkeypatch, tmp_path):
    """Without STABLEFS_MEMORY_LIMIT the room is the smaller of MemAvailable and the
    cgroup's limit minus its usage."""
    from stablefs._runtime import memory as _memory

    monkeypatch.delenv("STABLEFS_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(_memory, "_meminfo_available", lambda: 8 << 30)
    monkeypatch.setattr(_memory, "_cgroup_room", lambda: 300 << 20)
    assert _memory.available_memory() == 300 << 20
    path, _ = write_table(tmp_path / "data.csv", 100, 20000, "numbers")  # 2 M values, 38 MiB
    monkeypatch.setattr(_memory, "_cgroup_room", lambda: 16 << 20)
    with pytest.raises(StablefsError) as info:
        load(path)
    assert "more than the 16.0 MiB available" in str(info.value)


def test_cgroup_files_are_read(monkeypatch, tmp_path):
    from stablefs._runtime import memory as _memory

    real = Path.read_text
    files = {"/sys/fs/cgroup/memory.max": "1073741824\n",
             "/sys/fs/cgroup/memory.current": "268435456\n"}

    def fake(self, *a, **k):
        return files[str(self)] if str(self) in files else real(self, *a, **k)

    monkeypatch.setattr(Path, "read_text", fake)
    assert _memory._cgroup_room() == (1 << 30) - (256 << 20)
    files["/sys/fs/cgroup/memory.max"] = "max\n"
    assert _memory._cgroup_room() is None
