"""Data as users have it: wide files, genes × samples tables, sample sheets, sample IDs, missing
values, data in memory, and the load-time checks (``stablefs.datasets.load``)."""

from __future__ import annotations

import gzip
import logging
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs import StablefsError
from stablefs.datasets import load
from stablefs.datasets._readers import ReadOptions
from stablefs.datasets._table import drop_columns_inplace, read_table

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def write(path: Path, text: str, *, gz: bool = False) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def one_line_error(match: str, *parts: str, call):
    """``call()`` raises a one-line StablefsError matching ``match`` and containing ``parts``,
    with plain values (never ``np.str_(...)`` reprs) and no chained traceback."""
    with pytest.raises(StablefsError, match=match) as info:
        call()
    msg = str(info.value)
    assert "\n" not in msg, msg
    assert "np.str_" not in msg and "np.int" not in msg and "np.float" not in msg, msg
    assert info.value.__cause__ is None or info.value.__suppress_context__
    for p in parts:
        assert p in msg, (p, msg)
    return msg


def table(rows: list[list], header: list[str] | None = None, sep: str = ",") -> str:
    lines = [] if header is None else [sep.join(header)]
    lines += [sep.join(str(v) for v in r) for r in rows]
    return "\n".join(lines) + "\n"


def logged(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "stablefs"]


def wide_pair(tmp_path: Path, n: int, p: int, *, seed: int = 0, name_width: int = 0):
    """The same random data as samples × features (label last, sample IDs first) and as
    genes × samples (label row second), with values written by ``repr`` (shortest round-trip)."""
    rng = np.random.default_rng(seed)
    # full-precision values of many magnitudes, drawn from a pool so that writing 6 million of
    # them is fast (one repr per pool value)
    pool = rng.normal(size=4096) * 10.0 ** rng.integers(-4, 5, size=4096)
    pool[:8] = [0.0, -0.0, 1.0, -1.5, 1e-300, 123456789.125, 0.1, 2.5e17]
    idx = rng.integers(0, pool.size, size=(n, p))
    X = pool[idx]
    y = rng.choice(["ALL", "AML", "MLL"], n)
    y[:3] = ["ALL", "AML", "MLL"]
    genes = [f"g{j:0{name_width}d}" if name_width else f"g{j}" for j in range(p)]
    samples = [f"P{i:03d}" for i in range(n)]
    text = np.array([repr(v) for v in pool.tolist()], dtype=object)[idx]
    wide = tmp_path / "wide.csv"
    with open(wide, "w") as fh:
        fh.write("sample," + ",".join(genes) + ",label\n")
        for i, row in enumerate(text):
            fh.write(samples[i] + "," + ",".join(row) + "," + y[i] + "\n")
    tall = tmp_path / "tall.csv"
    with open(tall, "w") as fh:
        fh.write("gene," + ",".join(samples) + "\n")
        fh.write("label," + ",".join(y) + "\n")
        for j, col in enumerate(text.T):
            fh.write(genes[j] + "," + ",".join(col) + "\n")
    return wide, tall, X, y, genes, samples


def assert_same(a, b):
    np.testing.assert_array_equal(a.X, b.X)
    assert a.X.dtype == b.X.dtype == np.float64
    assert a.X.flags.c_contiguous and b.X.flags.c_contiguous
    assert a.y.tolist() == b.y.tolist()
    assert a.feature_names.tolist() == b.feature_names.tolist()
    assert a.sample_names.tolist() == b.sample_names.tolist()


# --------------------------------------------------------------------------------------------
# 1. wide files
# --------------------------------------------------------------------------------------------


def test_header_over_one_mebibyte_label_last(tmp_path):
    p = 60_000
    wide, tall, X, y, genes, samples = wide_pair(tmp_path, 6, p, name_width=16)
    with open(wide, "rb") as fh:
        assert len(fh.readline()) > 2**20  # the header line alone is over 1 MiB
    ds = load(wide)
    assert ds.X.shape == (6, p)
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == y.tolist()
    assert ds.feature_names.tolist() == genes
    assert ds.sample_names.tolist() == samples
    assert ds.meta["sample_id_column"] == "sample"
    assert_same(ds, load(tall, transpose=True))


def test_wide_header_label_in_the_middle_and_gzip(tmp_path):
    p = 30_000
    names = [f"probe_{j:07d}_at" for j in range(p)]
    rng = np.random.default_rng(1)
    X = rng.integers(-500, 500, size=(4, p)) / 10
    header = names[:12_345] + ["label"] + names[12_345:]
    rows = [list(X[i, :12_345]) + [c] + list(X[i, 12_345:]) for i, c in enumerate("abab")]
    path = write(tmp_path / "w.csv.gz", table(rows, header), gz=True)
    ds = load(path)
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == list("abab")
    assert ds.feature_names.tolist() == names
    assert ds.sample_names.tolist() == ["s0", "s1", "s2", "s3"]


@pytest.mark.slow
def test_acceptance_100_by_60000_both_orientations(tmp_path):
    """Issue 6 acceptance: a 100 × 60,000 CSV with ``label`` last and the same matrix transposed
    give identical X, y, feature_names and sample_names."""
    wide, tall, X, y, genes, samples = wide_pair(tmp_path, 100, 60_000, seed=6)
    a = load(wide)
    b = load(tall, transpose=True)
    assert a.X.shape == (100, 60_000)
    assert_same(a, b)
    np.testing.assert_array_equal(a.X, X)
    assert a.feature_names.tolist() == genes and a.sample_names.tolist() == samples


def test_wide_file_without_label_column_says_so_without_contradiction(tmp_path):
    names = [f"gene{j:06d}" for j in range(20_000)]
    path = write(tmp_path / "n.csv", table([[1.0] * 20_000, [2.0] * 20_000], names))
    msg = one_line_error("no column named 'label'", "--label", call=lambda: load(path))
    assert "gene000000" in msg


# --------------------------------------------------------------------------------------------
# the two parsers agree, to the bit, with Python's float()
# --------------------------------------------------------------------------------------------

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, width=64)  # no overflow


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.lists(finite, min_size=3, max_size=3), min_size=2, max_size=6),
    style=st.sampled_from(["repr", "%.17g", "%.6e", "%.3f", "%.15g"]),
)
def test_fast_and_pandas_parsers_match_python_float(tmp_path_factory, values, style):
    def fmt(v):
        return repr(v) if style == "repr" else style % v

    cells = [[fmt(v) for v in row] + [str(i)] for i, row in enumerate(values)]  # d varies
    expected = np.array([[float(c) for c in row] for row in cells])
    rows = [[f"S{i}"] + r + ["ab"[i % 2]] for i, r in enumerate(cells)]
    header = ["id", "a", "b", "c", "d", "label"]
    path = write(tmp_path_factory.mktemp("f") / "v.csv", table(rows, header))
    opts = ReadOptions()
    fast = read_table(path, opts)
    slow = read_table(path, opts, engine="pandas")
    assert fast.meta["parser"] == "numpy" and slow.meta["parser"] == "pandas"
    assert fast.X.tobytes() == expected.tobytes()
    # pandas reads an integer-looking "-0" as the integer 0, so its zero loses the sign; the
    # values are equal, and adding +0.0 folds -0.0 into +0.0 on both sides (found by hypothesis)
    assert (slow.X + 0.0).tobytes() == (expected + 0.0).tobytes()
    assert_same(fast, slow)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 7),
    m=st.integers(1, 9),
    data=st.data(),
)
def test_drop_columns_inplace_equals_np_delete(n, m, data):
    drop = data.draw(st.sets(st.integers(0, m - 1), max_size=m - 1))
    A = np.arange(n * m, dtype=float).reshape(n, m) + 0.5
    expected = np.delete(A, sorted(drop), axis=1)
    out = drop_columns_inplace(A.copy(), drop)
    np.testing.assert_array_equal(out, expected)
    assert out.flags.c_contiguous


def test_drop_columns_inplace_uses_no_second_matrix():
    A = np.random.default_rng(0).normal(size=(50, 1001))
    expected = np.delete(A, [0, 500, 1000], axis=1)
    out = drop_columns_inplace(A, [0, 500, 1000])
    assert np.shares_memory(out, A)  # compacted inside A's own buffer
    np.testing.assert_array_equal(out, expected)


def test_fast_path_falls_back_to_pandas_for_missing_tokens(tmp_path, caplog):
    path = write(tmp_path / "m.csv", "label,a,b\nx,1,NA\ny,2,3\nx,3,4\ny,4,5\n")
    ds = load(path, missing="drop-samples")
    assert ds.meta["parser"] == "pandas"
    np.testing.assert_array_equal(ds.X, [[2, 3], [3, 4], [4, 5]])
    assert ds.sample_names.tolist() == ["s1", "s2", "s3"]


# --------------------------------------------------------------------------------------------
# 2. orientation: genes × samples with transpose=True
# --------------------------------------------------------------------------------------------

TALL = (
    "ID_REF,GSM1,GSM2,GSM3,GSM4\n"
    "g1,1.0,2.0,3.0,4.0\n"
    "label,tumor,normal,tumor,normal\n"
    "g2,0.5,0.25,0.125,8\n"
    "g3,-1,-2,-3,-4\n"
)


def test_transposed_label_row_anywhere():
    expected_X = np.array([[1.0, 0.5, -1], [2, 0.25, -2], [3, 0.125, -3], [4, 8, -4]])
    lines = TALL.splitlines()
    for where in range(1, 5):  # the label row after the header, between genes, last
        body = [ln for ln in lines[1:] if not ln.startswith("label")]
        body.insert(where - 1, lines[2])
        text = "\n".join([lines[0]] + body) + "\n"
        path = Path(pytest.importorskip("tempfile").mkdtemp()) / "t.csv"
        ds = load(write(path, text), transpose=True)
        np.testing.assert_array_equal(ds.X, expected_X)
        assert ds.y.tolist() == ["tumor", "normal", "tumor", "normal"]
        assert ds.feature_names.tolist() == ["g1", "g2", "g3"]
        assert ds.sample_names.tolist() == ["GSM1", "GSM2", "GSM3", "GSM4"]
        assert ds.meta["transposed"] is True


def test_transposed_r_write_table_quoted_tsv_gz(tmp_path):
    # R write.table: no header cell above the row names, everything text quoted, tab-separated
    text = (
        '"S1"\t"S2"\t"S3"\n'
        '"label"\t"a"\t"b"\t"a"\n'
        '"geneA"\t1.5\t2.5\t3.5\n'
        '"geneB"\t4\t5\t7\n'
    )
    ds = load(write(tmp_path / "r.tsv.gz", text, gz=True), transpose=True)
    np.testing.assert_array_equal(ds.X, [[1.5, 4], [2.5, 5], [3.5, 7]])
    assert ds.sample_names.tolist() == ["S1", "S2", "S3"]
    assert ds.feature_names.tolist() == ["geneA", "geneB"]
    assert ds.y.tolist() == ["a", "b", "a"]


def test_transposed_pandas_path_gives_the_same(tmp_path):
    path = write(tmp_path / "t.csv", TALL)
    opts = ReadOptions(transpose=True)
    assert_same(read_table(path, opts), read_table(path, opts, engine="pandas"))


def test_transposed_errors(tmp_path):
    one_line_error(
        "no row named 'label'", "labels=", "--label", call=lambda: load(
            write(tmp_path / "a.csv", "id,S1,S2\ng1,1,2\ng2,3,5\n"), transpose=True)
    )
    one_line_error(
        "duplicated sample IDs", "'S1'", call=lambda: load(
            write(tmp_path / "b.csv", "id,S1,S1,S2\nlabel,a,b,a\ng1,1,2,3\n"), transpose=True)
    )
    one_line_error(
        "duplicated feature names", "'g1'", call=lambda: load(
            write(tmp_path / "c.csv", "id,S1,S2\nlabel,a,b\ng1,1,2\ng2,3,4\ng1,5,6\n"),
            transpose=True)
    )
    one_line_error(
        "duplicated label row", "2", "4", call=lambda: load(
            write(tmp_path / "d.csv", "id,S1,S2\nlabel,a,b\ng1,1,2\nLabel,b,a\n"), transpose=True)
    )
    one_line_error(
        "1 classes for 2 samples", call=lambda: load(
            write(tmp_path / "e.csv", "id,S1,S2\ng1,1,2\nlabel,a\ng2,2,1\n"), transpose=True)
    )
    # a samples × features file read with transpose=True: say so
    one_line_error(
        "drop transpose=True", call=lambda: load(
            write(tmp_path / "f.csv", "g1,g2,label\n1,2,a\n3,4,b\n"), transpose=True)
    )
    one_line_error(
        "text columns|not for", call=lambda: load(
            pd.DataFrame({"label": ["a", "b"], "x": [1.0, 2.0]}), transpose=True)
    )


def test_transposed_text_rows_and_annotation_columns(tmp_path, caplog):
    text = (
        "ID,SYMBOL,S1,S2,S3\n"
        "label,,a,b,a\n"
        "g1,TP53,1,2,3\n"
        "g2,BRCA1,4,x,6\n"
        "g3,EGFR,7,8,10\n"
    )
    path = write(tmp_path / "t.csv", text)
    one_line_error("hold text, not measurements", "SYMBOL", "drop_nominal=True",
                   call=lambda: load(path, transpose=True))
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        ds = load(path, transpose=True, drop_nominal=True)
    assert ds.sample_names.tolist() == ["S1", "S2", "S3"]
    assert ds.feature_names.tolist() == ["g1", "g3"]
    np.testing.assert_array_equal(ds.X, [[1, 7], [2, 8], [3, 10]])
    assert ds.meta["dropped_non_sample_columns"] == ["SYMBOL"]
    assert ds.meta["dropped_columns"] == ["g2"]  # non-numeric features, whatever the layout
    assert any("SYMBOL" in m for m in logged(caplog))
    assert any("g2" in m for m in logged(caplog))
    no_annotation = write(tmp_path / "u.csv", "ID,S1,S2,S3\nlabel,a,b,a\ng1,1,2,3\ng2,4,x,6\n")
    one_line_error("non-numeric values in 1 gene row", "g2", "'x'", "sample S2",
                   call=lambda: load(no_annotation, transpose=True))


def test_label_row_without_transpose_suggests_it(tmp_path):
    path = write(tmp_path / "t.csv", TALL)
    one_line_error("no column 'label'", "line 3", "transpose=True", "--transpose",
                   call=lambda: load(path))


def test_transpose_only_for_text_tables(tmp_path):
    np.savez(tmp_path / "a.npz", X=np.eye(3), y=np.array([0, 1, 0]))
    one_line_error("text tables", call=lambda: load(tmp_path / "a.npz", transpose=True))
    one_line_error("True or False", call=lambda: load(tmp_path / "a.npz", transpose="yes"))


# --------------------------------------------------------------------------------------------
# 3. labels from a separate sample sheet
# --------------------------------------------------------------------------------------------

DATA = "sample,g1,g2\nP3,1,2\nP1,3,5\nP2,5,4\nP4,7,9\n"
SHEET = "geo_accession,title,diagnosis\nP1,x,AML\nP2,y,ALL\nP3,z,AML\nP4,w,ALL\n"


def test_sample_sheet_joined_on_ids_in_data_order(tmp_path):
    data = write(tmp_path / "d.csv", DATA)
    sheet = write(tmp_path / "meta.csv", SHEET)
    ds = load(data, labels=f"{sheet}:diagnosis")
    assert ds.sample_names.tolist() == ["P3", "P1", "P2", "P4"]  # the data file's order
    assert ds.y.tolist() == ["AML", "AML", "ALL", "ALL"]
    assert ds.feature_names.tolist() == ["g1", "g2"]
    assert ds.meta["labels_column"] == "diagnosis"
    assert ds.meta["labels_id_column"] == "geo_accession"
    # default column 'label'; a tab-separated, gzip-compressed sheet with the IDs not first
    sheet2 = write(tmp_path / "s.tsv.gz", "label\tid\nB\tP4\nA\tP3\nA\tP1\nB\tP2\n", gz=True)
    assert load(data, labels=sheet2).y.tolist() == ["A", "A", "B", "B"]
    # a Series indexed by sample ID
    series = pd.Series({"P1": "u", "P2": "v", "P3": "u", "P4": "v"}, name="grp")
    assert load(data, labels=series).y.tolist() == ["u", "u", "v", "v"]


def test_sample_sheet_with_transposed_data(tmp_path):
    data = write(tmp_path / "t.csv", "gene,P1,P2,P3,P4\ng1,1,2,3,4\ng2,4,3,2,0\n")
    sheet = write(tmp_path / "meta.csv", SHEET)
    ds = load(data, transpose=True, labels=f"{sheet}:diagnosis")
    assert ds.y.tolist() == ["AML", "ALL", "AML", "ALL"]
    assert ds.sample_names.tolist() == ["P1", "P2", "P3", "P4"]


def test_sample_sheet_errors(tmp_path):
    data = write(tmp_path / "d.csv", DATA)
    short = write(tmp_path / "short.csv", "geo_accession,title,diagnosis\nP1,x,AML\nP2,y,ALL\n")
    one_line_error("2 of the 4 samples", "P3", "P4", "not in the sample sheet",
                   call=lambda: load(data, labels=f"{short}:diagnosis"))
    dup = write(tmp_path / "dup.csv", SHEET + "P1,again,ALL\n")
    one_line_error("duplicated sample IDs in the sample sheet", "'P1'",
                   call=lambda: load(data, labels=f"{dup}:diagnosis"))
    one_line_error("no column 'dx'", "diagnosis", call=lambda: load(data, labels=f"{dup}:dx"))
    hole = write(tmp_path / "hole.csv", "id,diagnosis\nP1,AML\nP2,\nP3,AML\nP4,ALL\n")
    one_line_error("no class for 1 sample", "P2",
                   call=lambda: load(data, labels=f"{hole}:diagnosis"))
    one_line_error("no such sample-sheet file", call=lambda: load(data, labels="nope.csv:x"))
    nomatch = write(tmp_path / "nm.csv", "id,diagnosis\nA,AML\nB,ALL\n")
    one_line_error("no column of the sample sheet holds the sample IDs", "P3",
                   call=lambda: load(data, labels=f"{nomatch}:diagnosis"))
    # data without sample IDs cannot be joined
    no_ids = write(tmp_path / "n.csv", "g1,g2\n1,2\n3,4\n")
    one_line_error("joins a sample sheet on sample IDs, but the data has none",
                   call=lambda: load(no_ids, labels=f"{short}:diagnosis"))
    # two sources of classes
    both = write(tmp_path / "b.csv", "sample,label,g1\nP1,a,1\nP2,b,2\n")
    one_line_error("use one source of classes", call=lambda: load(both, labels=short))
    one_line_error("not both", call=lambda: load(data, label="x", labels=short))
    one_line_error("pandas Series", call=lambda: load(data, labels=["a", "b"]))


def test_sample_sheet_with_extra_samples_is_joined_on_the_samples_present(tmp_path, caplog):
    """A sheet that describes more samples than the file holds (a GEO series split over two
    platforms, say) is joined on the samples present, with one line giving the counts;
    a data sample missing from the sheet stays an error."""
    data = write(tmp_path / "d.csv", DATA)
    many = "".join(f"Q{i},x,AML\n" for i in range(9))
    extra = write(tmp_path / "extra.csv", SHEET + many)
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        ds = load(data, labels=f"{extra}:diagnosis")
    assert ds.y.tolist() == ["AML", "AML", "ALL", "ALL"]
    assert ds.meta["labels_sheet_extra"] == 9
    lines = [r.getMessage() for r in caplog.records if "sample sheet" in r.getMessage()]
    assert len(lines) == 1
    assert "13 samples in the sample sheet, 4 in" in lines[0]
    assert "joined on the 4 present in both; 9 of the sheet left out" in lines[0]
    assert "Q0" in lines[0] and "Q8" not in lines[0]
    # the same for a Series with extra samples
    series = pd.Series({"P1": "u", "P2": "v", "P3": "u", "P4": "v", "P9": "u"})
    assert load(data, labels=series).y.tolist() == ["u", "u", "v", "v"]
    # a sample of the data without a row in the sheet is still refused
    short = write(tmp_path / "short.csv", "id,diagnosis\nP1,AML\nP2,ALL\nP3,AML\nQ1,ALL\n")
    one_line_error("1 of the 4 samples", "P4", "not in the sample sheet",
                   call=lambda: load(data, labels=f"{short}:diagnosis"))


def test_transposed_files_get_the_transpose_hint(tmp_path):
    """A genes × samples file read as samples × genes: far more rows than columns and no
    class column, or a sample sheet whose IDs are the file's column names, gets a hint
    naming transpose=True (--transpose), not label= on the gene column."""
    samples = [f"GSM{i}" for i in range(6)]
    rows = "".join(f"g{j}," + ",".join(str((i + 1) * (j + 2) % 7) for i in range(6)) + "\n"
                   for j in range(40))
    tall = write(tmp_path / "tall.csv", "gene," + ",".join(samples) + "\n" + rows)
    msg = one_line_error("has no column 'label' and 40 rows for 7 columns",
                         "genes × samples", "transpose=True", call=lambda: load(tall))
    assert "could be the label" not in msg
    sheet = write(tmp_path / "sheet.csv",
                  "sample,label\n" + "".join(f"{s},{'ab'[i % 2]}\n"
                                             for i, s in enumerate(samples)))
    one_line_error("no column of the sample sheet holds the sample IDs",
                   "column names of", "transpose=True", call=lambda: load(tall, labels=sheet))
    assert load(tall, labels=sheet, transpose=True).y.tolist() == ["a", "b"] * 3
    # a samples × genes table with a few more rows than columns keeps the label hint
    wide = write(tmp_path / "wide.csv", "id,g1,g2\n" + "".join(f"s{i},{i},{i % 3}\n"
                                                                for i in range(8)))
    msg = one_line_error("no column named 'label'", "--label", call=lambda: load(wide))
    assert "transpose=True" not in msg


def test_sample_sheet_refused_for_arff(tmp_path):
    arff = write(tmp_path / "a.arff", "@relation r\n@attribute a numeric\n@data\n1\n2\n")
    one_line_error("ARFF files do not have", call=lambda: load(arff, labels="x.csv"))


# --------------------------------------------------------------------------------------------
# 4. a leading sample-ID column
# --------------------------------------------------------------------------------------------


def test_leading_sample_id_column_becomes_sample_names(tmp_path):
    ds = load(write(tmp_path / "d.csv", "patient,g1,g2,label\nA-1,1,2,x\nB-2,3,4,y\n"))
    assert ds.sample_names.tolist() == ["A-1", "B-2"]
    assert ds.feature_names.tolist() == ["g1", "g2"]
    assert ds.meta["sample_id_column"] == "patient"
    # default names when there is no ID column
    ds = load(write(tmp_path / "e.csv", "g1,g2,label\n1,2,x\n3,4,y\n"))
    assert ds.sample_names.tolist() == ["s0", "s1"]
    assert ds.sample_names.dtype.kind == "U"
    # a column of numbers is a feature, never IDs
    ds = load(write(tmp_path / "f.csv", "id,g1,label\n1,5,x\n2,6,y\n"))
    assert ds.feature_names.tolist() == ["id", "g1"]


def test_repeated_text_first_column_is_an_error_naming_it(tmp_path, caplog):
    path = write(tmp_path / "d.csv", "batch,g1,g2,label\nb1,1,2,x\nb1,3,4,y\nb2,5,6,x\n")
    one_line_error("non-numeric feature column", "batch", "'b1'", "not a sample-ID column",
                   "drop_nominal=True", call=lambda: load(path))
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        ds = load(path, drop_nominal=True)
    assert ds.feature_names.tolist() == ["g1", "g2"]
    assert ds.sample_names.tolist() == ["s0", "s1", "s2"]
    assert ds.meta["dropped_columns"] == ["batch"]
    assert any("batch" in m for m in logged(caplog))
    # the pandas path (other text columns too) says the same about the first column
    both = write(tmp_path / "e.csv", "batch,g1,sex,label\nb1,1,M,x\nb1,3,F,y\n")
    one_line_error("2 non-numeric", "batch", "sex", "not a sample-ID column",
                   call=lambda: load(both))


def test_r_write_table_row_names(tmp_path):
    # R write.table(df): the header has no cell above the row names
    ds = load(write(tmp_path / "r.csv", '"g1","g2","label"\n"S1",1,2,"a"\n"S2",3,4,"b"\n'))
    assert ds.sample_names.tolist() == ["S1", "S2"]
    assert ds.feature_names.tolist() == ["g1", "g2"]
    assert ds.meta["row_names"] is True


def test_pandas_to_csv_round_trip(tmp_path, caplog):
    frame = pd.DataFrame(
        {"g1": [0.1, 0.2, 0.3], "g2": [1.0, 3.0, 2.0], "label": ["a", "b", "a"]},
        index=pd.Index(["x1", "x2", "x3"], name=None),
    )
    frame.to_csv(tmp_path / "f.csv")
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        ds = load(tmp_path / "f.csv")
    assert ds.sample_names.tolist() == ["x1", "x2", "x3"]
    assert ds.feature_names.tolist() == ["g1", "g2"]
    np.testing.assert_array_equal(ds.X, frame[["g1", "g2"]].to_numpy())
    assert_same(ds, load(frame))


# --------------------------------------------------------------------------------------------
# 5. missing values
# --------------------------------------------------------------------------------------------

MISSING = "label,a,b,c\nx,1,,3\ny,4,5,6\nx,7,8,NA\ny,1,2,4\n"


def test_missing_drop_features(tmp_path, caplog):
    path = write(tmp_path / "m.csv", MISSING)
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        ds = load(path, missing="drop-features")
    assert ds.feature_names.tolist() == ["a"]
    np.testing.assert_array_equal(ds.X[:, 0], [1, 4, 7, 1])
    assert ds.meta["dropped_features"] == ["b", "c"]
    assert ds.meta["missing"] == "drop-features"
    messages = logged(caplog)
    assert len(messages) == 1 and "dropped 2 of 3 features" in messages[0]
    assert "\n" not in messages[0]


def test_missing_impute_keeps_nans(tmp_path, caplog):
    path = write(tmp_path / "m.csv", MISSING)
    ds = load(path, missing="impute")
    assert ds.X.shape == (4, 3)
    assert np.isnan(ds.X[0, 1]) and np.isnan(ds.X[2, 2])
    assert int(np.isnan(ds.X).sum()) == 2
    assert ds.meta["missing"] == "impute" and ds.meta["n_missing"] == 2
    assert ds.meta["n_features_with_missing"] == 2
    empty = write(tmp_path / "e.csv", "label,a,b\nx,1,\ny,2,\n")
    one_line_error("no value at all", "missing='drop-features'",
                   call=lambda: load(empty, missing="impute"))


def test_missing_refused_names_the_choices(tmp_path):
    path = write(tmp_path / "m.csv", MISSING)
    one_line_error("missing values in 2 feature column", "b, c", "drop_missing=True",
                   "missing='drop-features'", "missing='impute'", call=lambda: load(path))
    assert load(path, drop_missing=True).X.shape == (2, 3)
    assert_same(load(path, drop_missing=True), load(path, missing="drop-samples"))


def test_missing_option_is_validated(tmp_path):
    path = write(tmp_path / "m.csv", MISSING)
    one_line_error("missing='median' is not a choice", "'drop-samples'", "'drop-features'",
                   "'impute'", call=lambda: load(path, missing="median"))
    one_line_error("give only one", call=lambda: load(path, drop_missing=True, missing="impute"))
    # validated before the file is even looked at
    one_line_error("is not a choice", call=lambda: load(tmp_path / "absent.csv", missing=3))


def test_missing_in_transposed_and_arff(tmp_path):
    tall = write(tmp_path / "t.csv", "id,S1,S2,S3\nlabel,a,b,a\ng1,1,NA,3\ng2,4,5,7\n")
    ds = load(tall, transpose=True, missing="drop-features")
    assert ds.feature_names.tolist() == ["g2"]
    ds = load(tall, transpose=True, missing="drop-samples")
    assert ds.sample_names.tolist() == ["S1", "S3"]
    arff = write(tmp_path / "a.arff", "@relation r\n@attribute a numeric\n@attribute b numeric\n"
                 "@attribute c {x,y}\n@data\n1,?,x\n2,3,y\n4,5,x\n")
    ds = load(arff, missing="impute")
    assert np.isnan(ds.X[0, 1]) and ds.meta["n_missing"] == 1


# --------------------------------------------------------------------------------------------
# 6. data in memory
# --------------------------------------------------------------------------------------------


def test_dataframe():
    frame = pd.DataFrame({"g1": [1.0, 2.0, 3.0], "dx": ["a", "b", "a"], "g2": [4, 5, 7]})
    ds = load(frame, label="dx")
    assert ds.y.tolist() == ["a", "b", "a"]
    assert ds.feature_names.tolist() == ["g1", "g2"]
    assert ds.sample_names.tolist() == ["s0", "s1", "s2"]  # default RangeIndex
    np.testing.assert_array_equal(ds.X, [[1, 4], [2, 5], [3, 7]])
    ds.X[0, 0] = 99.0
    assert frame.loc[0, "g1"] == 1.0  # a copy, never a view of the user's frame
    frame.index = ["p", "q", "r"]
    assert load(frame, label="dx").sample_names.tolist() == ["p", "q", "r"]
    nullable = pd.DataFrame({"label": ["a", "b", "a"], "g": pd.array([1, None, 3], "Int64"),
                             "h": [1.0, 2.0, 0.0]})
    one_line_error("missing values in 1 feature column", "g", call=lambda: load(nullable))
    assert np.isnan(load(nullable, missing="impute").X[1, 0])


def test_dataframe_errors(caplog):
    dup = pd.DataFrame([[1.0, 2.0, "a"], [3.0, 4.0, "b"]], columns=["g1", "g1", "label"])
    one_line_error("duplicated column names", "'g1'", call=lambda: load(dup))
    text = pd.DataFrame({"label": ["a", "b"], "g": [1.0, 2.0], "site": ["u", "u"]})
    one_line_error("non-numeric feature column", "site", "drop_nominal=True",
                   call=lambda: load(text))
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        assert load(text, drop_nominal=True).feature_names.tolist() == ["g"]
    one_line_error("no column 'dx'", call=lambda: load(text, label="dx"))
    one_line_error("AnnData", "layer=", call=lambda: load(text, layer="counts"))


def _adata(sparse: bool = False):
    anndata = pytest.importorskip("anndata")
    import scipy.sparse as sp

    X = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 5.0], [0.0, 7.0, 0.0], [1.0, 1.0, 1.0]])
    obs = pd.DataFrame({"cond": ["a", "b", "a", "b"]}, index=["c1", "c2", "c3", "c4"])
    var = pd.DataFrame({"symbol": ["TP53", "EGFR", "MYC"]}, index=["ENSG1", "ENSG2", "ENSG3"])
    adata = anndata.AnnData(X=sp.csr_matrix(X) if sparse else X, obs=obs, var=var)
    adata.layers["log"] = np.log1p(X)
    return adata, X


def test_anndata_in_memory_and_h5ad(tmp_path):
    adata, X = _adata(sparse=True)
    ds = load(adata, label="cond")
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == ["a", "b", "a", "b"]
    assert ds.sample_names.tolist() == ["c1", "c2", "c3", "c4"]
    assert ds.feature_names.tolist() == ["ENSG1", "ENSG2", "ENSG3"]
    ds = load(adata, label="cond", layer="log", feature_names="symbol")
    np.testing.assert_allclose(ds.X, np.log1p(X))
    assert ds.feature_names.tolist() == ["TP53", "EGFR", "MYC"]
    one_line_error("max_dense_bytes=64", "select fewer features",
                   call=lambda: load(adata, label="cond", max_dense_bytes=64))
    one_line_error("no layer 'raw'", "log", call=lambda: load(adata, label="cond", layer="raw"))
    one_line_error("var has no column 'gene'", "symbol",
                   call=lambda: load(adata, label="cond", feature_names="gene"))
    one_line_error("obs has no column 'label'", "cond", call=lambda: load(adata))
    one_line_error("positive whole number", call=lambda: load(adata, max_dense_bytes=0))
    path = tmp_path / "d.h5ad"
    adata.write_h5ad(path)
    assert_same(load(path, label="cond"), load(adata, label="cond"))
    series = pd.Series(["x", "y", "x", "y"], index=["c1", "c2", "c3", "c4"])
    assert load(adata, labels=series).y.tolist() == ["x", "y", "x", "y"]


# --------------------------------------------------------------------------------------------
# 7. validation at load time
# --------------------------------------------------------------------------------------------


def test_duplicated_feature_names_detected_in_the_raw_header(tmp_path):
    path = write(tmp_path / "d.csv", "g1,g2,g1,label\n1,2,3,a\n4,5,6,b\n")
    one_line_error("duplicated feature names", "'g1' (columns 1, 3)", "never renames",
                   call=lambda: load(path))
    many = ",".join(f"g{j % 7}" for j in range(40)) + ",label\n"
    msg = one_line_error("duplicated feature names", "and 4 more",
                         call=lambda: load(write(tmp_path / "m.csv", many + "1," * 40 + "a\n")))
    assert "g6" not in msg


def test_duplicated_label_column(tmp_path):
    path = write(tmp_path / "d.csv", "label,g1,label\na,1,a\nb,2,b\n")
    one_line_error("duplicated label column", "'label'", call=lambda: load(path))


def test_empty_column_name_refused(tmp_path):
    path = write(tmp_path / "d.csv", "g1,,g3,label\n1,2,3,a\n4,5,6,b\n")
    one_line_error("no name in the header row", "column(s) 2", call=lambda: load(path))


def test_continuous_labels_refused(tmp_path):
    rng = np.random.default_rng(0)
    rows = [[f"{v:.4f}", f"{w:.3f}"] for v, w in zip(rng.normal(size=30), rng.normal(size=30))]
    path = write(tmp_path / "c.csv", table(rows, ["g1", "label"]))
    one_line_error("stablefs is for classification", "30 distinct numbers", "'label'",
                   call=lambda: load(path))
    # integer classes with few distinct values are classes
    rows = [[str(i), str(i % 3)] for i in range(30)]
    assert len(load(write(tmp_path / "k.csv", table(rows, ["g1", "label"]))).classes) == 3
    # eleven text classes in 12 samples are not continuous
    rows = [[str(i), f"class{i % 11}"] for i in range(12)]
    assert len(load(write(tmp_path / "t.csv", table(rows, ["g1", "label"]))).classes) == 11


def test_all_constant_data_refused(tmp_path):
    path = write(tmp_path / "k.csv", "g1,g2,label\n1,5,a\n1,5,b\n1,5,a\n")
    one_line_error("every one of its 2 features is constant", call=lambda: load(path))
    # one varying feature is enough
    assert load(write(tmp_path / "v.csv", "g1,g2,label\n1,5,a\n1,6,b\n")).X.shape == (2, 2)
    frame = pd.DataFrame({"label": ["a", "b"], "g": [2.0, 2.0]})
    one_line_error("constant", call=lambda: load(frame))


def test_single_sample_refused(tmp_path):
    one_line_error("has 1 sample", "at least 2 samples", call=lambda: load(
        write(tmp_path / "one.csv", "g1,g2,label\n1,2,a\n")))
    np.savez(tmp_path / "one.npz", X=np.ones((1, 3)), y=np.array([1]))
    one_line_error("at least 2 samples", call=lambda: load(tmp_path / "one.npz"))
    two = write(tmp_path / "two.csv", "g1,g2,label\n1,2,a\n3,NA,b\n")
    one_line_error("left after dropping samples", call=lambda: load(two, drop_missing=True))


def test_npz_sample_names_and_duplicates(tmp_path):
    X = np.arange(6.0).reshape(3, 2)
    np.savez(tmp_path / "a.npz", X=X, y=np.array([0, 1, 0]), sample_names=["p", "q", "r"])
    assert load(tmp_path / "a.npz").sample_names.tolist() == ["p", "q", "r"]
    np.savez(tmp_path / "b.npz", X=X, y=np.array([0, 1, 0]), feature_names=["u", "u"])
    one_line_error("duplicated feature names", "'u'", call=lambda: load(tmp_path / "b.npz"))


# --------------------------------------------------------------------------------------------
# warnings go to the "stablefs" logger, never warnings.warn
# --------------------------------------------------------------------------------------------


def test_warnings_are_log_lines_not_python_warnings(tmp_path, caplog):
    path = write(tmp_path / "s.csv", "label,a,b,c\nx,1,u,3\ny,4,v,2\n")
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="stablefs"):
        warnings.simplefilter("error")
        ds = load(path, drop_nominal=True)
    assert ds.feature_names.tolist() == ["a", "c"]
    records = [r for r in caplog.records if r.name == "stablefs"]
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    assert "dropped 1 non-numeric feature column(s) (b)" in records[0].getMessage()


def test_clean_file_logs_nothing(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="stablefs"):
        load(write(tmp_path / "d.csv", "f1,label,f2\n1.0,a,2.0\n3.0,b,4.5\n"))
    assert logged(caplog) == []


def test_headerless_sonar_like_and_label_position(tmp_path):
    ds = load(write(tmp_path / "h.csv", "0.1,0.2,R\n0.3,0.4,M\n0.5,0.7,R\n"))
    assert ds.sample_names.tolist() == ["s0", "s1", "s2"]
    assert ds.meta["headerless"] is True and ds.meta["parser"] == "numpy"
    slow = read_table(tmp_path / "h.csv", ReadOptions(), engine="pandas")
    assert_same(ds, slow)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 6),
    p=st.integers(1, 6),
    label_at=st.integers(0, 6),
    ids=st.booleans(),
    sep=st.sampled_from([",", "\t", ";"]),
    seed=st.integers(0, 2**16),
)
def test_orientations_and_parsers_agree(tmp_path_factory, n, p, label_at, ids, sep, seed):
    """The same table written samples × features (label column anywhere, with or without
    sample IDs) and genes × samples loads to the same Dataset with either parser."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-5, 6, size=(n, p))
    X[0, 0] += 1.0  # never all constant
    X[1, 0] = X[0, 0] - 1.0
    y = ["ab"[i % 2] for i in range(n)]
    genes = [f"g{j}" for j in range(p)]
    samples = [f"id{i}" for i in range(n)] if ids else [f"s{i}" for i in range(n)]
    pos = label_at % (p + 1)
    suffix = {",": ".csv", "\t": ".tsv", ";": ".csv"}[sep]
    folder = tmp_path_factory.mktemp("o")
    header = (["sample"] if ids else []) + genes[:pos] + ["label"] + genes[pos:]
    rows = []
    for i in range(n):
        vals = [repr(v) for v in X[i].tolist()]
        rows.append(([samples[i]] if ids else []) + vals[:pos] + [y[i]] + vals[pos:])
    wide = write(folder / f"w{suffix}", table(rows, header, sep))
    tall_rows = [["label"] + y] + [[genes[j]] + [repr(v) for v in X[:, j].tolist()]
                                     for j in range(p)]
    tall = write(folder / f"t{suffix}", table(tall_rows, ["gene"] + samples, sep))
    a = read_table(wide, ReadOptions())
    np.testing.assert_array_equal(a.X, X)
    assert a.y.tolist() == y and a.feature_names.tolist() == genes
    assert a.sample_names.tolist() == samples
    assert_same(a, read_table(wide, ReadOptions(), engine="pandas"))
    assert_same(a, read_table(tall, ReadOptions(transpose=True)))
    assert_same(a, read_table(tall, ReadOptions(transpose=True), engine="pandas"))


def test_trailing_separator_is_not_taken_for_row_names(tmp_path):
    path = write(tmp_path / "t.csv", "g1,g2,label\n1,2,a,\n3,4,b,\n")
    one_line_error("one field more than the header", "trailing", call=lambda: load(path))


def test_latin1_beyond_the_first_lines(tmp_path):
    rows = "".join(f"{i},{i % 3},{'ab'[i % 2]}\n" for i in range(2000))
    text = "g1,g2,label\n" + rows + "5,6,caf\xe9\n"
    path = tmp_path / "l.csv"
    path.write_bytes(text.encode("latin-1"))
    ds = load(path)
    assert ds.y[-1] == "caf\xe9"


def test_sample_ids_are_joined_without_surrounding_blanks(tmp_path):
    data = write(tmp_path / "d.csv", "sample, g1, g2\n P1 ,1,2\n P2 ,3,5\n")
    sheet = write(tmp_path / "s.csv", "id,label\nP1,a\nP2,b\n")
    ds = load(data, labels=sheet)
    assert ds.sample_names.tolist() == ["P1", "P2"] and ds.y.tolist() == ["a", "b"]


def test_real_file_both_parsers_bit_identical(shared_data):
    """Colon (62 × 2000, gzip) through NumPy's reader and through pandas (round_trip)."""
    fast = read_table(shared_data / "colon.csv.gz", ReadOptions())
    slow = read_table(shared_data / "colon.csv.gz", ReadOptions(), engine="pandas")
    assert fast.meta["parser"] == "numpy" and slow.meta["parser"] == "pandas"
    assert fast.X.shape == (62, 2000)
    assert fast.X.tobytes() == slow.X.tobytes()
    assert_same(fast, slow)
