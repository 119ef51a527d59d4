"""The Markdown/HTML report: files, self-containment, computed summary, escaping, edge cases."""

from __future__ import annotations

import base64
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stablefs import StablefsError
from stablefs.report import write_report
from stablefs.report.figures import method_styles, plot_label
from stablefs.report.render import md_escape
from stablefs.report.tables import (
    format_estimate,
    format_k,
    format_mean_sd,
    format_seconds,
    metric_label,
    parse_metric,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def pngs(paths):
    return [p for p in paths["figures"] if p.suffix == ".png"]
METHODS = ["relieff", "iw-relieff", "en-relieff"]
SIZES = [10, 20, 30]


def make_frames(methods=METHODS, sizes=SIZES, n_resamples=5, classifiers=("svm", "1nn"),
                seed=0, fit_time=True, n_features=60):
    """Synthetic runner output in which the *last* method is the most stable and accurate."""
    rng = np.random.default_rng(seed)
    res, stab, freq = [], [], []
    for i, m in enumerate(methods):
        for r in range(n_resamples):
            if fit_time:
                res.append((m, 0, r, "fit_time", 0.05 * (i + 1) + 0.01 * rng.random()))
            for k in sizes:
                for clf in classifiers:
                    acc = 0.70 + 0.04 * i + 0.001 * k + rng.normal(0, 0.01)
                    res.append((m, k, r, f"accuracy_{clf}", acc))
                    res.append((m, k, r, f"auc_{clf}", min(1.0, acc + 0.05)))
        for k in sizes:
            for measure, base in (("kuncheva", 0.40), ("nogueira", 0.35)):
                est = base + 0.12 * i + 0.002 * k
                stab.append((m, k, measure, est, est - 0.04, est + 0.04))
            q = np.clip(1 - np.arange(n_features) / (15 + 8 * i), 0, 1)
            for j in range(n_features):
                if q[j] > 0:
                    freq.append((m, k, f"GENE{j}", round(q[j] * n_resamples) / n_resamples))
    return (
        pd.DataFrame(res, columns=["method", "k", "resample", "metric", "value"]),
        pd.DataFrame(stab, columns=["method", "k", "measure", "estimate", "low", "high"]),
        pd.DataFrame(freq, columns=["method", "k", "feature", "frequency"]),
    )


def make_run_info(methods=METHODS, sizes=SIZES, **over):
    info = {
        "data": "synthetic:han2012",
        "n_samples": 100,
        "n_features": 1000,
        "classes": {"tumour": 60, "normal": 40},
        "methods": list(methods),
        "sizes": list(sizes),
        "protocol": "5 random stratified 2/3 splits",
        "seed": 7,
        "started": "2024-05-01T12:00:00",
        "finished": "2024-05-01T12:03:30",
        "versions": {"stablefs": "0.1.0", "numpy": "2.0"},
        "command": "stablefs compare synthetic:han2012 -m relieff,iw-relieff,en-relieff "
                   "-k 10,20,30 --out run",
    }
    info.update(over)
    return info


def summary_of(md: str) -> str:
    return md.split("## Summary", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    results, stability, frequencies = make_frames()
    paths = write_report(out, run_info=make_run_info(), results=results, stability=stability,
                         frequencies=frequencies)
    return out, paths


# ------------------------------------------------------------------------ files


def test_files_exist_and_are_returned(report):
    out, paths = report
    assert paths["report.md"] == out / "report.md" and paths["report.md"].is_file()
    assert paths["report.html"] == out / "report.html" and paths["report.html"].is_file()
    names = sorted(p.name for p in pngs(paths))
    assert names == ["fit_time.png", "frequency.png", "performance.png", "stability.png",
                     "tradeoff.png"]
    svgs = sorted(p.name for p in paths["figures"] if p.suffix == ".svg")
    assert svgs == [n.replace(".png", ".svg") for n in names]
    for p in paths["figures"]:
        assert p.parent == out / "figures"
        head = p.read_bytes()[:8]
        assert head == PNG_MAGIC if p.suffix == ".png" else head.startswith(b"<?xml")


def test_no_temporary_files_left(report):
    out, _ = report
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]


def test_markdown_references_existing_pngs(report):
    out, paths = report
    md = paths["report.md"].read_text(encoding="utf-8")
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert refs, "no figure in report.md"
    for ref in refs:
        assert not ref.startswith(("/", "http"))  # relative
        target = out / ref
        assert target.is_file() and target.read_bytes()[:8] == PNG_MAGIC
    assert {out / r for r in refs} == set(pngs(paths))


def test_html_is_self_contained(report):
    _, paths = report
    html = paths["report.html"].read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    low = html.lower()
    assert 'src="http' not in low and "src='http" not in low
    assert "<link" not in low and "<script" not in low
    assert "@import" not in low and "url(" not in low
    assert not re.search(r'href="(?!#)', low)  # only in-page anchors
    imgs = re.findall(r"<img\b[^>]*>", html)
    assert len(imgs) == 5
    for tag in imgs:
        src = re.search(r'src="([^"]*)"', tag).group(1)
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG_MAGIC


def test_md_and_html_share_content(report):
    _, paths = report
    md = paths["report.md"].read_text(encoding="utf-8")
    html = paths["report.html"].read_text(encoding="utf-8")
    for text in ("Summary", "Kuncheva", "Nogueira", "Accuracy (linear SVM)", "AUC (1NN)",
                 "0.420 [0.380, 0.460]", "Consensus signature", "Running time",
                 "5 random stratified 2/3 splits", "100 samples × 1,000 features",
                 "tumour (60)", "en-relieff, k = 30: 16 consensus features (recommended)",
                 "GENE15"):
        assert text in md, text
        assert text in html, text
    assert "stablefs compare synthetic:han2012" in md and "stablefs compare" in html


def test_header_lists_run_information(report):
    _, paths = report
    md = paths["report.md"].read_text(encoding="utf-8")
    head = md.split("## Summary", 1)[0]
    for text in ("synthetic:han2012", "Seed:** 7", "10, 20, 30", "relieff, iw-relieff",
                 "stablefs version:** 0.1.0", "3 min 30 s", "numpy 2.0"):
        assert text in head, text


def test_summary_names_most_stable_and_most_accurate_method(report):
    _, paths = report
    summary = summary_of(paths["report.md"].read_text(encoding="utf-8"))
    # en-relieff is built to be the most stable (and most accurate) at every k
    assert "Most stable (Kuncheva) at each k: k=10: en-relieff (0.66 [0.62, 0.70]); " \
        "k=20: en-relieff" in summary
    assert "k=30: en-relieff (0.70 [0.66, 0.74])." in summary
    assert "Best or tied at: en-relieff 3 of 3 sizes" in summary
    assert "tied with" not in summary.split("Most accurate")[0]
    assert "Most accurate with linear SVM at each k: k=10: en-relieff" in summary
    assert ("Recommended: en-relieff at k=30 (Kuncheva 0.70, intermediate; accuracy with "
            "linear SVM") in summary
    assert "Fastest to fit: relieff" in summary and "slowest: en-relieff" in summary


def test_best_values_are_bold_in_tables(report):
    _, paths = report
    md = paths["report.md"].read_text(encoding="utf-8")
    kuncheva = md.split("### Kuncheva", 1)[1].split("###", 1)[0]
    row = next(line for line in kuncheva.splitlines() if line.startswith("| en-relieff"))
    assert row.count("**") == 2 * len(SIZES)


# ------------------------------------------------------------------- summaries


def test_summary_reports_ties_honestly(tmp_path):
    results, stability, frequencies = make_frames(methods=["A", "B"])
    stability["estimate"] = 0.5
    stability[["low", "high"]] = (0.45, 0.55)
    paths = write_report(tmp_path, run_info=make_run_info(methods=["A", "B"]),
                         results=results, stability=stability, frequencies=frequencies)
    summary = summary_of(paths["report.md"].read_text(encoding="utf-8"))
    assert "k=30: A (0.50 [0.45, 0.55]), tied with B" in summary
    assert "Best or tied at: all 2 methods at all 3 sizes" in summary
    assert "overlaps the best one's is tied with it" in summary  # the rule is stated


def test_summary_flags_overlapping_intervals(tmp_path):
    results, stability, _ = make_frames(methods=["A", "B"])
    stability["low"] = stability["estimate"] - 0.3
    stability["high"] = stability["estimate"] + 0.3
    paths = write_report(tmp_path, run_info=make_run_info(methods=["A", "B"]),
                         results=results, stability=stability)
    summary = summary_of(paths["report.md"].read_text(encoding="utf-8"))
    # B is ahead by 0.12 but the intervals (± 0.3) overlap: a tie, in the summary and the table
    assert "k=30: B (" in summary and "tied with A" in summary
    md = paths["report.md"].read_text(encoding="utf-8")
    kuncheva = md.split("### Kuncheva", 1)[1].split("###", 1)[0]
    for line in kuncheva.splitlines():
        if line.startswith(("| A", "| B")):
            assert line.count("**") == 2 * len(SIZES), line


# ------------------------------------------------------------------ escaping


def test_html_special_characters_are_escaped(tmp_path):
    methods = ['a<b>&"c"', "plain"]
    results, stability, frequencies = make_frames(methods=methods)
    frequencies["feature"] = "<script>alert(1)</script>" + frequencies["feature"]
    info = make_run_info(methods=methods, data="<b>set</b>", command="stablefs compare 'a<b>'")
    paths = write_report(tmp_path, run_info=info, results=results, stability=stability,
                         frequencies=frequencies, title="Report <i>&</i>")
    html = paths["report.html"].read_text(encoding="utf-8")
    assert "<script" not in html.lower()
    assert "<b>set</b>" not in html and "&lt;b&gt;set&lt;/b&gt;" in html
    assert 'a<b>&"c"' not in html and "a&lt;b&gt;&amp;&quot;c&quot;" in html
    assert "<title>Report &lt;i&gt;&amp;&lt;/i&gt;</title>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;GENE0" in html
    md = paths["report.md"].read_text(encoding="utf-8")
    prose = re.sub(r"```.*?```", "", md, flags=re.S)  # the command is verbatim in a code block
    assert "<script>" not in prose and "<b>" not in prose
    assert r"\<script\>alert(1)\</script\>GENE0" in md


def test_md_escape():
    assert md_escape("AFFX_BioB_5_at") == "AFFX_BioB_5_at"  # intra-word _ is harmless
    assert md_escape("_x_") == r"\_x\_"
    assert md_escape("a|b*c") == r"a\|b\*c"
    assert md_escape("[l](http://x)") == r"[l\](http://x)"
    assert md_escape("$x$") == r"\$x\$"
    assert md_escape("x &lt; y & z") == r"x \&lt; y & z"
    assert md_escape("two\nlines") == "two lines"


def test_plot_label_truncates_and_escapes_mathtext():
    long = "AFFX-HUMGAPDH/M33197_5_at_with_a_long_suffix"
    assert plot_label(long, 20).endswith("…") and len(plot_label(long, 20)) == 20
    assert plot_label("$5 gene", 28) == r"\$5 gene"


# ---------------------------------------------------------------- edge cases


def _check_basic(paths):
    assert paths["report.md"].is_file() and paths["report.html"].is_file()
    html = paths["report.html"].read_text(encoding="utf-8")
    assert html.count("<img") == len(pngs(paths))
    for p in pngs(paths):
        assert p.read_bytes()[:8] == PNG_MAGIC


def test_one_method_one_k_one_classifier_one_resample(tmp_path):
    results, stability, frequencies = make_frames(methods=["relieff"], sizes=[10],
                                                  n_resamples=1, classifiers=("svm",))
    paths = write_report(tmp_path, run_info=make_run_info(methods=["relieff"], sizes=[10]),
                         results=results, stability=stability, frequencies=frequencies,
                         svg=False)
    _check_basic(paths)
    assert len(paths["figures"]) == 5
    summary = summary_of(paths["report.md"].read_text(encoding="utf-8"))
    assert "Stability (Kuncheva) of relieff: k=10 0.42 [0.38, 0.46]." in summary
    assert "tied" not in summary


def test_nan_bounds_missing_frequencies_and_fit_time(tmp_path):
    results, stability, _ = make_frames(fit_time=False)
    stability[["low", "high"]] = np.nan
    stability.loc[0, "low"] = 0.1  # a single bound
    paths = write_report(tmp_path, run_info=make_run_info(), results=results,
                         stability=stability, frequencies=None, svg=False)
    _check_basic(paths)
    assert sorted(p.name for p in pngs(paths)) == ["performance.png", "stability.png",
                                                       "tradeoff.png"]
    md = paths["report.md"].read_text(encoding="utf-8")
    assert "No selection frequencies were given." in md
    assert "No running times were given." in md
    assert "0.420 [0.100, –]" in md  # relieff, k=10: the one known bound
    assert "| 0.440 |" in md  # no bounds at all: the estimate alone


def test_empty_frequencies_and_missing_bound_columns(tmp_path):
    results, stability, frequencies = make_frames()
    paths = write_report(tmp_path, run_info=make_run_info(), results=results,
                         stability=stability.drop(columns=["low", "high"]),
                         frequencies=frequencies.iloc[:0], svg=False)
    _check_basic(paths)
    assert "frequency.png" not in {p.name for p in paths["figures"]}


def test_nan_k_fit_time_rows_and_minimal_run_info(tmp_path):
    results, stability, frequencies = make_frames(sizes=[5, 50])
    results.loc[results["metric"] == "fit_time", "k"] = np.nan
    paths = write_report(tmp_path, run_info={"data": "x"}, results=results,
                         stability=stability, frequencies=frequencies, svg=False)
    _check_basic(paths)
    md = paths["report.md"].read_text(encoding="utf-8")
    assert "| k = 5 | k = 50 |" in md  # fit_time rows did not become a k column
    assert "Fit time (mean ± sd)" in md


def test_many_methods_and_long_feature_names(tmp_path):
    methods = [f"method-{i}-" + "x" * (3 * i) for i in range(12)]
    results, stability, frequencies = make_frames(methods=methods, sizes=[10, 20],
                                                  n_resamples=2, n_features=35)
    frequencies["feature"] = frequencies["feature"] + "_" + "probe_set_identifier" * 3
    paths = write_report(tmp_path, run_info=make_run_info(methods=methods, sizes=[10, 20]),
                         results=results, stability=stability, frequencies=frequencies,
                         svg=False)
    _check_basic(paths)
    assert len(paths["figures"]) == 5
    styles = method_styles(methods)
    assert len({tuple(np.round(s["color"], 4)) for s in styles.values()}) == 12
    md = paths["report.md"].read_text(encoding="utf-8")
    assert "GENE0_probe_set_identifierprobe_set_identifierprobe_set_identifier" in md


def test_method_styles_are_distinct_for_many_methods():
    for n in (1, 8, 10, 15, 30):
        styles = method_styles([f"m{i}" for i in range(n)])
        assert len({tuple(np.round(s["color"], 4)) for s in styles.values()}) == n


def test_figures_drawn_in_worker_processes_are_the_same_bytes(tmp_path):
    """compare --n-jobs 2 draws the report's figures in its workers: every file (PNG, SVG,
    report.md, report.html with the PNGs inlined) is byte for byte the one drawn here."""
    from stablefs.evaluation.runner import map_in_workers
    from stablefs.report import draw_figure

    results, stability, frequencies = make_frames()
    kw = dict(run_info=make_run_info(), results=results, stability=stability,
              frequencies=frequencies, svg=True)
    here = write_report(tmp_path / "here", **kw)
    calls = []

    def spy(jobs):
        calls.append([j.name for j in jobs])
        return map_in_workers(draw_figure, jobs, backend="loky", n_jobs=2, scheduler=None)

    there = write_report(tmp_path / "there", draw=spy, **kw)
    assert calls == [["stability.png", "performance.png", "tradeoff.png", "frequency.png",
                      "fit_time.png"]]
    assert [p.name for p in here["figures"]] == [p.name for p in there["figures"]]
    assert len(here["figures"]) == 10
    for a, b in zip([*here["figures"], here["report.md"], here["report.html"]],
                    [*there["figures"], there["report.md"], there["report.html"]],
                    strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_rerun_replaces_files_cleanly(tmp_path):
    results, stability, frequencies = make_frames(sizes=[10])
    info = make_run_info(sizes=[10])
    first = write_report(tmp_path, run_info=info, results=results, stability=stability,
                         frequencies=frequencies)
    svgs = {p: p.read_bytes() for p in first["figures"] if p.suffix == ".svg"}
    assert len(svgs) == 5
    second = write_report(tmp_path, run_info=info, results=results, stability=stability,
                          frequencies=frequencies, title="Second")
    assert first["report.md"] == second["report.md"]
    for p, content in svgs.items():  # deterministic SVG: byte-identical on a rerun
        assert p.read_bytes() == content, p.name
    assert second["report.md"].read_text(encoding="utf-8").startswith("# Second")
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".")]


def test_missing_columns_raise_a_clear_error(tmp_path):
    results, stability, _ = make_frames()
    with pytest.raises(StablefsError, match="results lacks the column"):
        write_report(tmp_path, run_info={}, results=results.drop(columns=["metric"]),
                     stability=stability)
    with pytest.raises(StablefsError, match="stability lacks the column.*estimate"):
        write_report(tmp_path, run_info={}, results=results,
                     stability=stability.drop(columns=["estimate"]))


def test_pyplot_and_backend_untouched(tmp_path):
    import matplotlib
    import matplotlib.pyplot as plt

    backend = matplotlib.get_backend()
    rc = dict(matplotlib.rcParams)
    before = plt.get_fignums()
    results, stability, frequencies = make_frames(sizes=[10])
    write_report(tmp_path, run_info=make_run_info(sizes=[10]), results=results,
                 stability=stability, frequencies=frequencies, svg=False)
    assert plt.get_fignums() == before
    assert matplotlib.get_backend() == backend
    assert dict(matplotlib.rcParams) == rc


# ------------------------------------------------------------------ formatting


def test_number_formatting():
    assert format_estimate(0.71234, 0.65, 0.7741) == "0.712 [0.650, 0.774]"
    assert format_estimate(0.7, math.nan, math.nan) == "0.700"
    assert format_estimate(0.7, math.nan, 0.8) == "0.700 [–, 0.800]"
    assert format_estimate(math.nan) == "–"
    # a bound that rounds to zero from below (Nogueira's range starts below 0) is not "-0.000"
    assert format_estimate(0.055, -0.0002, 0.11) == "0.055 [0.000, 0.110]"
    assert format_estimate(-0.004, -0.0102, 0.002) == "-0.004 [-0.010, 0.002]"
    assert format_mean_sd(0.8431, 0.0212) == "0.843 ± 0.021"
    assert format_mean_sd(0.8431, math.nan) == "0.843"
    assert format_seconds(1.2345) == "1.23 s"
    assert format_seconds(0.01234, 0.0021) == "12.3 ± 2.1 ms"
    assert format_seconds(125.0) == "2.08 min"
    assert format_k(50.0) == "50" and format_k(math.nan) == "–"


def test_metric_names():
    assert parse_metric("accuracy_svm") == ("accuracy", "svm")
    assert parse_metric("balanced_accuracy_1nn") == ("balanced_accuracy", "1nn")
    assert parse_metric("auc") == ("auc", "")
    assert metric_label("auc_3nn") == "AUC (3NN)"
    assert metric_label("accuracy_svm") == "Accuracy (linear SVM)"


def test_frequency_figure_is_readable_size(report):
    out, _ = report
    png = (out / "figures" / "frequency.png").read_bytes()
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert 800 < width < 4000 and 400 < height < 6000  # 150 dpi, not absurd
    assert Path(out / "figures" / "stability.png").stat().st_size > 10_000


# ------------------------------------------------------------------- signature


def _slow_bh(p):
    """Benjamini and Hochberg (1995) step-up, written out: q_i = min_{j >= i} m p_(j) / j."""
    p = np.asarray(p, float)
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    q = np.empty(m)
    for pos, i in enumerate(order):
        q[i] = min(1.0, min(p[order[j]] * m / (j + 1) for j in range(pos, m)))
    return q


def test_bh_fdr_matches_a_slow_reference_and_scipy():
    from scipy import stats

    from stablefs.report.signature import bh_fdr

    rng = np.random.default_rng(3)
    p = np.concatenate([rng.random(40), [0.01, 0.01, 1e-6]])
    np.testing.assert_allclose(bh_fdr(p), _slow_bh(p), rtol=1e-12)
    np.testing.assert_allclose(bh_fdr(p), stats.false_discovery_control(p), rtol=1e-12)
    # NaN stays NaN and does not count in m
    q = bh_fdr(np.array([0.01, np.nan, 0.04]))
    assert math.isnan(q[1])
    np.testing.assert_allclose(q[[0, 2]], _slow_bh([0.01, 0.04]))


def test_feature_statistics_two_classes_by_hand():
    from stablefs.report.signature import feature_statistics

    # feature 0: a = [1, 2, 3], b = [5, 6, 7] -> means 2, 6; both sd 1 -> |d| = 4, higher in b
    X = np.array([[1, 0.0], [2, 1], [3, 0], [5, 1], [6, 0], [7, 1]], float)
    y = np.array(["a", "a", "a", "b", "b", "b"])
    st = feature_statistics(X, y)
    assert st.loc[0, "higher_in"] == "b"
    assert st.loc[0, "effect_size"] == pytest.approx(4.0)
    # Welch t = (6 - 2) / sqrt(1/3 + 1/3) = 4.899, df = 4
    from scipy import stats

    assert st.loc[0, "p_value"] == pytest.approx(2 * stats.t.sf(4 / math.sqrt(2 / 3), 4))
    # feature 1: [0, 1, 0] vs [1, 0, 1]: higher in b, |d| = (2/3 - 1/3) / sqrt(1/3)
    assert st.loc[1, "effect_size"] == pytest.approx((1 / 3) / math.sqrt(1 / 3))
    np.testing.assert_allclose(st["fdr_bh"], _slow_bh(st["p_value"]))


def test_feature_statistics_multiclass_and_constant_feature():
    from scipy import stats

    from stablefs.report.signature import feature_statistics

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.repeat(["x", "y", "z"], 10)
    X[y == "z", 0] += 3
    X[:, 2] = 1.5  # constant
    st = feature_statistics(X, y)
    assert st.loc[0, "higher_in"] == "z"
    assert st.loc[0, "p_value"] == pytest.approx(
        stats.f_oneway(*[X[y == c, 0] for c in "xyz"]).pvalue)
    grand = X[:, 0].mean()
    eta2 = sum(10 * (X[y == c, 0].mean() - grand) ** 2 for c in "xyz") / (
        ((X[:, 0] - grand) ** 2).sum())
    assert st.loc[0, "effect_size"] == pytest.approx(eta2)
    assert math.isnan(st.loc[2, "p_value"]) and st.loc[2, "higher_in"] == ""
    assert math.isnan(st.loc[2, "fdr_bh"])
    # missing values: the feature's median stands in for them
    Xm = X.copy()
    Xm[[0, 12], 1] = np.nan
    Xf = X.copy()
    Xf[[0, 12], 1] = np.median(np.delete(X[:, 1], [0, 12]))
    np.testing.assert_allclose(feature_statistics(Xm, y)["p_value"].to_numpy()[:2],
                               feature_statistics(Xf, y)["p_value"].to_numpy()[:2])


def test_signature_uses_the_consensus_rule_and_mean_rank(tmp_path):
    from stablefs.report.signature import SIGNATURE_COLUMNS, signature_table, write_signature

    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 5))
    y = np.repeat([0, 1], 6)
    names = [f"g{j}" for j in range(5)]
    freq = pd.DataFrame({"method": "m", "k": 2, "feature": ["g3", "g1", "g0", "g4"],
                         "frequency": [1.0, 0.75, 0.5, 0.25]})  # 0.5 is NOT consensus
    rankings = [np.array([3, 2, 5, 1, 4]), np.array([4, 1, 5, 2, 3]),
                np.array([5, 2, 4, 1, 3]), np.array([3, 4, 5, 1, 2])]
    sel = pd.DataFrame({"method": "m", "resample": range(4), "ranking": rankings})
    paths = write_signature(tmp_path, signature_table(freq, X, y, names, sel),
                            data_name="toy")
    sig = pd.read_csv(paths["signature.csv"])
    assert list(sig.columns) == SIGNATURE_COLUMNS
    assert list(sig["feature"]) == ["g3", "g1"]
    assert sig["mean_rank"].tolist() == pytest.approx([1.25, 2.25])
    gmt = paths["signature.gmt"].read_text().splitlines()
    assert gmt == ["m_k2\tstablefs consensus of m at k=2 on toy: features selected in more "
                   "than half of the resamples\tg3\tg1"]


def test_signature_rejects_unknown_features(tmp_path):
    from stablefs.report.signature import signature_table

    freq = pd.DataFrame({"method": "m", "k": 1, "feature": ["nope"], "frequency": [1.0]})
    with pytest.raises(StablefsError, match="nope"):
        signature_table(freq, np.zeros((4, 2)) + np.arange(4)[:, None], [0, 0, 1, 1],
                        ["a", "b"])


# ------------------------------------------------------------- ties and front


def test_leaders_use_overlapping_intervals():
    from stablefs.report.ties import leaders, overlaps

    vals = {"a": (0.80, 0.75, 0.85), "b": (0.70, 0.60, 0.76), "c": (0.50, 0.45, 0.74)}
    assert leaders(vals) == ["a", "b"]  # b's interval reaches a's; c's does not
    assert leaders(vals, higher=False) == ["c", "b"]
    assert leaders({"a": (0.8, math.nan, math.nan), "b": (0.8, math.nan, math.nan),
                    "c": (0.79, math.nan, math.nan)}) == ["a", "b"]  # no intervals: equal
    assert leaders({"a": (math.nan, 0, 1)}) == []
    assert overlaps((0.5, 0.4, 0.6), (0.7, 0.6, 0.8))  # touching closed intervals overlap


def test_t_interval_matches_scipy():
    from scipy import stats

    from stablefs.report.ties import t_interval

    x = np.array([0.8, 0.9, 0.85, 0.7, 0.95])
    lo, hi = t_interval([x.mean()], [x.std(ddof=1)], [5])
    ref = stats.t.interval(0.95, 4, loc=x.mean(), scale=stats.sem(x))
    np.testing.assert_allclose([lo[0], hi[0]], ref)
    lo1, _ = t_interval([0.8], [np.nan], [1])
    assert math.isnan(lo1[0])


def _slow_front(s, a):
    out = []
    for i in range(len(s)):
        dominated = any(s[j] >= s[i] and a[j] >= a[i] and (s[j] > s[i] or a[j] > a[i])
                        for j in range(len(s)))
        if not dominated:
            out.append(i)
    return set(out)


def test_pareto_front_against_brute_force():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from stablefs.report.ties import pareto_front

    values = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=15)

    @settings(max_examples=150, deadline=None)
    @given(values)
    def check(pts):
        s = [p[0] / 6 for p in pts]
        a = [p[1] / 6 for p in pts]
        front = pareto_front(s, a)
        assert set(front.tolist()) == _slow_front(s, a)
        assert list(np.asarray(s)[front]) == sorted(np.asarray(s)[front], reverse=True)

    check()


def test_recommend_takes_the_most_stable_front_point_tied_in_accuracy():
    from stablefs.report.ties import recommend

    pts = [  # (stability, accuracy, acc interval half-width, k)
        {"stability": 0.9, "accuracy": 0.70, "acc_low": 0.66, "acc_high": 0.74, "k": 10},
        {"stability": 0.8, "accuracy": 0.82, "acc_low": 0.79, "acc_high": 0.85, "k": 20},
        {"stability": 0.6, "accuracy": 0.86, "acc_low": 0.84, "acc_high": 0.88, "k": 50},
        {"stability": 0.5, "accuracy": 0.80, "acc_low": 0.78, "acc_high": 0.90, "k": 5},
    ]
    pick, front = recommend(pts)
    assert set(front.tolist()) == {0, 1, 2}  # point 3 is dominated by 1 and 2
    assert pick == 1  # tied with the best accuracy (0.85 >= 0.84) and more stable than 2


def test_honest_limits_never_zoom_on_a_tiny_difference():
    from stablefs.report.figures import honest_limits

    lo, hi = honest_limits([0.994, 0.995], [0.999, 1.0], bounded=True)
    assert hi >= 1.0 and hi - lo >= 0.1 and lo <= 0.9
    lo, hi = honest_limits([0.40], [0.45], bounded=True)  # far from 1: centred span
    assert lo <= 0.40 and hi >= 0.45 and hi - lo >= 0.1 and hi < 1
    lo, hi = honest_limits([0.97], [1.02], bounded=True)  # an interval past 1 is kept whole
    assert hi >= 1.02
    lo, hi = honest_limits([0.2], [0.9], bounded=True)
    assert lo <= 0.2 and hi >= 0.9
    # only data within 0.1 of 1 pull the top to 1: Colon's trade-off means 0.80-0.865 were
    # drawn on 0.80-1.00 (their top rounded to 0.9 counted as "within 0.1"), squeezed low
    lo, hi = honest_limits([0.80], [0.865], bounded=True)
    assert lo <= 0.80 and 0.865 <= hi < 0.91
    lo, hi = honest_limits([0.80], [0.905], bounded=True)
    assert hi >= 1.0


def test_identical_measures_and_auc_of_labels_shown_once():
    from stablefs.report.tables import drop_duplicates, prepare_results, prepare_stability

    results, stability, _ = make_frames(sizes=[10], n_resamples=3)
    same = stability[stability["measure"] == "kuncheva"].assign(measure="nogueira")
    stability = pd.concat([stability[stability["measure"] == "kuncheva"], same])
    ba = results[results["metric"] == "auc_1nn"].assign(metric="balanced_accuracy_1nn")
    results = pd.concat([results, ba])
    res, stab, notes = drop_duplicates(prepare_results(results), prepare_stability(stability))
    assert set(stab["measure"]) == {"kuncheva"}
    assert "auc_1nn" not in set(res["metric"]) and "auc_svm" in set(res["metric"])
    assert len(notes) == 2 and "Nogueira" in notes[0] and "0/1 labels" in notes[1]
    # different values: both kept, nothing said
    stability.loc[stability["measure"] == "nogueira", "estimate"] += 0.01
    _, stab, notes = drop_duplicates(prepare_results(results.iloc[:0]),
                                     prepare_stability(stability))
    assert set(stab["measure"]) == {"kuncheva", "nogueira"} and notes == []


def test_report_with_selections_lists_every_consensus_gene(tmp_path):
    from stablefs.report.signature import signature_table

    methods, sizes, n_res, p = ["A", "B"], [5, 10], 4, 40
    rng = np.random.default_rng(2)
    names = np.array([f"G{j}" for j in range(p)])
    sel_rows, freq_rows = [], []
    for i, m in enumerate(methods):
        ranks = []
        for r in range(n_res):
            score = -np.arange(p) + rng.normal(0, 2 + 6 * i, p)
            ranking = np.empty(p, int)
            ranking[np.argsort(-score)] = np.arange(1, p + 1)
            ranks.append(ranking)
            sel_rows.append({"method": m, "resample": r, "ranking": ranking})
        ranks = np.array(ranks)
        for k in sizes:
            q = (ranks <= k).mean(axis=0)
            for j in np.flatnonzero(q):
                freq_rows.append((m, k, names[j], q[j]))
    freq = pd.DataFrame(freq_rows, columns=["method", "k", "feature", "frequency"])
    sel = pd.DataFrame(sel_rows)
    results, stability, _ = make_frames(methods=methods, sizes=sizes, n_resamples=n_res)
    X = rng.normal(size=(20, p))
    y = np.repeat([0, 1], 10)
    sig = signature_table(freq, X, y, names, sel)
    paths = write_report(tmp_path, run_info=make_run_info(methods=methods, sizes=sizes),
                         results=results, stability=stability, frequencies=freq,
                         selections=sel, feature_names=names, signature=sig, svg=False)
    assert "selections.png" in {q.name for q in paths["figures"]}
    html = paths["report.html"].read_text(encoding="utf-8")
    assert html.count("<details") == int((sig.groupby(["method", "k"]).size() > 0).sum())
    assert "<details open>" in html  # the recommended signature is open
    for m, k, f in sig[["method", "k", "feature"]].itertuples(index=False):
        block = html.split(f"<summary>{m}, k = {k}: ", 1)[1].split("</details>", 1)[0]
        assert f"<td class=\"l\">{f}</td>" in block
    assert "more</" not in html and "… and" not in html


def test_summary_says_when_every_method_is_tied():
    from stablefs.report.summary import recommendation, summary_sentences
    from stablefs.report.tables import (
        performance_summary,
        prepare_results,
        prepare_stability,
        time_summary,
    )

    methods = ["A", "B", "C"]
    results, stability, _ = make_frames(methods=methods, sizes=[10, 20], n_resamples=4)
    stability[["low", "high"]] = (0.0, 1.0)  # every interval overlaps every other
    res = prepare_results(results)
    res.loc[res["metric"] == "accuracy_svm", "value"] = np.tile([0.7, 0.9], len(res) // 2)[
        : int((res["metric"] == "accuracy_svm").sum())]
    stab = prepare_stability(stability)
    perf = performance_summary(res)
    out = summary_sentences(methods, stab, perf, time_summary(res), None,
                            recommendation(stab, perf))
    text = " ".join(out)
    assert "k=10: all 3 tied (best C, 0.66 [0.00, 1.00])" in text
    assert "Best or tied at: all 3 methods at all 2 sizes." in text
    assert "Recommended: C at k=20" in text  # most stable on the front, accuracy tied


def test_leaders_and_honest_limits_invariants():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from stablefs.report.figures import honest_limits
    from stablefs.report.ties import leaders, overlaps

    unit = st.floats(0, 1, allow_nan=False)

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.tuples(unit, unit, unit), min_size=1, max_size=8), st.booleans())
    def check_leaders(triples, higher):
        vals = {f"m{i}": (e, e - a / 4, e + b / 4) for i, (e, a, b) in enumerate(triples)}
        lead = leaders(vals, higher=higher)
        best = lead[0]
        ests = [v[0] for v in vals.values()]
        assert vals[best][0] == (max(ests) if higher else min(ests))
        for m, v in vals.items():  # tied exactly when the interval overlaps the best one's
            assert (m in lead) == (m == best or overlaps(v, vals[best]))

    @settings(max_examples=150, deadline=None)
    @given(st.lists(unit, min_size=1, max_size=6), st.floats(0, 0.2), st.booleans())
    def check_limits(means, half, bounded):
        lo, hi = honest_limits(np.array(means) - half, np.array(means) + half, bounded=bounded)
        assert hi - lo >= 0.1 - 1e-9
        assert lo <= min(means) - half + 1e-9 and hi >= max(means) + half - 1e-9

    check_leaders()
    check_limits()


def test_accuracy_panels_do_not_zoom_and_bars_are_not_cut():
    from stablefs.report.figures import plot_performance
    from stablefs.report.tables import performance_summary, prepare_results

    rows = [(m, k, r, "accuracy_svm", v)
            for m, base in (("A", 0.994), ("B", 0.999)) for k in (10, 20)
            for r, v in enumerate([base, 1.0, base, 1.0])]
    perf = performance_summary(prepare_results(pd.DataFrame(
        rows, columns=["method", "k", "resample", "metric", "value"])))
    fig = plot_performance(perf, ["A", "B"], method_styles(["A", "B"], linestyles=True))
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert hi - lo >= 0.1 and lo <= 0.9  # 0.994 vs 0.999 is not blown up to fill the panel
    assert hi >= perf["high"].max()  # the interval past 1 is drawn whole
    styles = method_styles(["A", "B"], linestyles=True)
    assert styles["A"]["linestyle"] != styles["B"]["linestyle"]
    assert "linestyle" not in method_styles(["A"])["A"]
