"""Raw-intensity detection, --log2, probe -> symbol annotation, and 'datasets NAME'."""

from __future__ import annotations

import gzip
import logging

import numpy as np
import pandas as pd
import pytest

from stablefs._errors import StablefsError
from stablefs.datasets import load
from stablefs.datasets._annotation import load_annotation, read_annotation, symbols_for
from stablefs.datasets._describe import describe_dataset
from stablefs.datasets._scale import log2_transform, looks_raw, value_scale
from stablefs.report.signature import add_symbols, signature_gmt


def _lognormal(n=40, p=200, seed=0):
    return np.exp(np.random.default_rng(seed).normal(6, 1.5, size=(n, p)))


def test_rule_on_hand_made_matrices():
    raw = _lognormal()
    assert looks_raw(raw)
    assert not looks_raw(np.log2(raw))                    # log scale
    assert not looks_raw(raw[:, :99])                     # too few features to judge
    assert not looks_raw(np.random.default_rng(1).uniform(200, 300, size=(40, 200)))  # no skew
    assert not looks_raw(raw / 1000)                      # skewed but small values
    scale = value_scale(np.array([[0.0, -1.0, 3.0], [np.nan, 4.0, 5.0]]))
    assert (scale.minimum, scale.median, scale.maximum) == (-1.0, 3.0, 5.0)
    assert scale.fraction_zero == pytest.approx(0.2) and scale.fraction_negative == 0.2
    v = np.array([-1.0, 0.0, 3.0, 4.0, 5.0])
    c = v - v.mean()
    assert scale.skewness == pytest.approx(np.mean(c**3) / np.mean(c**2) ** 1.5)


@pytest.mark.parametrize("name,raw", [("colon", True), ("leukemia", True), ("prostate", True),
                                      ("lung", True), ("dlbcl", True), ("srbct", False)])
def test_shared_sets(shared_data, name, raw):
    ds = load(name)
    assert value_scale(ds.X).raw is raw
    if raw:
        assert not looks_raw(load(name, log2=True).X)


def test_uci_tables_are_not_judged(shared_data):
    assert not looks_raw(load(shared_data / "uci" / "diabetes.arff").X)  # 8 features
    assert not looks_raw(load(shared_data / "uci" / "sonar.csv").X)


def test_log2_rule_by_hand():
    X = np.array([[0.0, 1.0, 3.0], [-5.0, 7.0, np.nan]])
    out, floored = log2_transform(X)
    np.testing.assert_allclose(out, [[0.0, 1.0, 2.0], [0.0, 3.0, np.nan]])
    assert floored == 1
    with pytest.raises(StablefsError, match="infinite"):
        log2_transform(np.array([[1.0, np.inf]]))


def _raw_csv(path, seed=0):
    X = _lognormal(seed=seed)
    y = np.repeat(["a", "b"], 20)
    frame = pd.DataFrame(X, columns=[f"p{j}" for j in range(X.shape[1])])
    frame.insert(0, "label", y)
    frame.to_csv(path, index=False)
    return X


def test_load_warns_once_and_log2_records(tmp_path, caplog):
    path = tmp_path / "raw.csv"
    X = _raw_csv(path)
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        ds = load(path)
    hints = [r for r in caplog.records if "raw (unlogged)" in r.getMessage()]
    assert len(hints) == 1 and "log2=True (CLI --log2)" in hints[0].getMessage()
    assert "by default (scale auto)" in hints[0].getMessage()
    assert "\n" not in hints[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        logged = load(path, log2=True)
    assert not [r for r in caplog.records if "raw (unlogged)" in r.getMessage()]
    np.testing.assert_allclose(logged.X, np.log2(X + 1), rtol=1e-12)
    assert logged.meta["log2"]["formula"] == "log2(max(x, 0) + 1)"
    assert logged.meta["log2"]["negative_floored"] == 0
    assert ds.meta.get("log2") is None
    with pytest.raises(StablefsError, match="--log2"):
        load(path, log2="yes")


def test_raw_hint_off_silences_the_hint_only_inside(tmp_path, caplog):
    from stablefs.datasets._scale import raw_hint_off

    path = tmp_path / "raw.csv"
    _raw_csv(path)
    with caplog.at_level(logging.WARNING, logger="stablefs"), raw_hint_off():
        load(path)
    assert not [r for r in caplog.records if "raw (unlogged)" in r.getMessage()]
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        load(path)
    assert [r for r in caplog.records if "raw (unlogged)" in r.getMessage()]


def _features():
    return ["1007_s_at", "1053_at", "117_at", "121_at"]


@pytest.mark.parametrize("text,delim", [
    ("ID,Symbol\n1007_s_at,DDR1\n1053_at,RFC2\n121_at,---\nXYZ,FOO\n", ","),
    ("probe\tgene\n1007_s_at\tDDR1\n1053_at\tRFC2\n", "\t"),
    ("1007_s_at DDR1\n1053_at  RFC2\n# comment\n\n", " "),
    ("1007_s_at,DDR1,extra column\n1053_at,RFC2,x\n", ","),
])
def test_annotation_tables(tmp_path, text, delim):
    path = tmp_path / "annot.txt"
    path.write_text(text)
    symbols = load_annotation(path, _features())
    assert list(symbols) == ["DDR1", "RFC2", "", ""]


def test_annotation_gz_and_duplicates(tmp_path):
    path = tmp_path / "annot.csv.gz"
    path.write_bytes(gzip.compress(b"1007_s_at,DDR1\n1007_s_at,DDR1\n117_at,HSPA6\n"))
    assert list(load_annotation(path, _features())) == ["DDR1", "", "HSPA6", ""]
    bad = tmp_path / "dup.csv"
    bad.write_text("1007_s_at,DDR1\n117_at,HSPA6\n1007_s_at,MIR4640\n")
    with pytest.raises(StablefsError, match="listed twice.*line 1.*line 3"):
        load_annotation(bad, _features())


def test_annotation_errors(tmp_path):
    with pytest.raises(StablefsError, match="no such file"):
        read_annotation(tmp_path / "nope.csv")
    one = tmp_path / "one.csv"
    one.write_text("1007_s_at\n")
    with pytest.raises(StablefsError, match="line 1: 1 column"):
        read_annotation(one)
    other = tmp_path / "other.csv"
    other.write_text("A,B\nfoo,BAR\n")
    with pytest.raises(StablefsError, match="none of its"):
        symbols_for(_features(), read_annotation(other), source="other.csv")
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\0\1\2")
    with pytest.raises(StablefsError, match="binary"):
        read_annotation(binary)


def test_symbols_in_signature_and_gmt():
    sig = pd.DataFrame({"method": ["m", "m"], "k": [2, 2], "feature": ["1053_at", "117_at"],
                        "frequency": [1.0, 0.9]})
    out = add_symbols(sig, _features(), ["DDR1", "RFC2", "", ""])
    assert list(out.columns[:4]) == ["method", "k", "feature", "symbol"]
    assert list(out["symbol"]) == ["RFC2", ""]
    gmt = signature_gmt(out)
    fields = gmt.rstrip("\n").split("\t")
    assert fields[2:] == ["RFC2", "117_at"]
    assert "probes 1053_at (RFC2), 117_at" in fields[1]
    assert signature_gmt(sig).rstrip("\n").split("\t")[2:] == ["1053_at", "117_at"]


def test_describe_dataset(shared_data):
    text = describe_dataset("colon")
    assert "2 classes: t 40, n 22" in text
    assert "62 samples x 2000 features" in text
    assert "Affymetrix Hum6000" in text
    assert "looks like raw (unlogged) intensities" in text
    assert "log-scale" in describe_dataset("srbct")
