"""The report's figures and tables at the edges (issue 34): the selection map's title whole,
integer rank ticks, the majority-class line off a strong-signal axis, the interval the bold
rule compares shown in the cell, the "Rerun with" box wrapped, the method comparisons of
the recommended method only, and a warning when the recommended k is the largest tried."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from stablefs.report import write_report
from stablefs.report.comparisons import comparison_blocks
from stablefs.report.figures import (
    baseline_in_view,
    method_styles,
    plot_selection_heatmap,
    plot_tradeoff,
)
from stablefs.report.render import Strong, Table, to_html
from stablefs.report.summary import edge_warning, recommendation, summary_sentences
from stablefs.report.tables import (
    format_k,
    performance_summary,
    performance_table,
    prepare_results,
    prepare_stability,
    time_summary,
)
from test_report import make_frames, make_run_info


def _drawn(fig):
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


# ------------------------------------------------------------------ selection map


def test_selection_map_title_is_whole_and_names_the_method():
    """With 10 resamples (a narrow map) the title used to run past both edges of the figure,
    so that "iw-relieff" read "relieff" and "features" "featu"."""
    rng = np.random.default_rng(0)
    ranks = np.stack([rng.permutation(51) + 1 for _ in range(10)])
    fig = plot_selection_heatmap(ranks, [f"{200000 + j}_s_at" for j in range(51)], 30,
                                 method="iw-relieff")
    renderer = _drawn(fig)
    ax = fig.axes[0]
    title = ax.title
    assert title.get_text().startswith("iw-relieff, k = 30\n")
    assert "of 51 features" in title.get_text()
    box = title.get_window_extent(renderer)
    figbox = fig.bbox
    assert box.x0 >= figbox.x0 - 0.5 and box.x1 <= figbox.x1 + 0.5
    # the colour bar of ranks shows whole numbers only
    cbar = fig.axes[1]
    ticks = [t for t in cbar.get_yticks() if 1 <= t <= 30]
    assert ticks and all(float(t).is_integer() for t in ticks)
    small = plot_selection_heatmap(ranks, [f"g{j}" for j in range(51)], 5, method="ttest")
    _drawn(small)
    ticks = [t for t in small.axes[1].get_yticks() if 1 <= t <= 5]
    assert ticks and all(float(t).is_integer() for t in ticks)


# ------------------------------------------------------------------ trade-off axis


def _strong_signal_frames():
    """Accuracies 0.95–0.99 over a majority-class rate of 0.60."""
    rows, stab = [], []
    for i, m in enumerate(["relieff", "iw-relieff", "ttest"]):
        for k in (10, 20, 30):
            for r in range(10):
                rows.append((m, k, r, "accuracy_svm", 0.95 + 0.01 * i + 0.0005 * k
                             + 0.002 * (r % 3)))
            est = 0.6 + 0.1 * i + 0.001 * k
            stab.append((m, k, "nogueira", est, est - 0.03, est + 0.03))
    res = pd.DataFrame(rows, columns=["method", "k", "resample", "metric", "value"])
    st = pd.DataFrame(stab, columns=["method", "k", "measure", "estimate", "low", "high"])
    return res, st


def test_baseline_far_below_strong_signal_leaves_the_axis():
    res, st = _strong_signal_frames()
    perf = performance_summary(prepare_results(res))
    methods = ["relieff", "iw-relieff", "ttest"]
    fig = plot_tradeoff(prepare_stability(st), perf, methods, method_styles(methods),
                        baseline={"accuracy": 0.60})
    _drawn(fig)
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert lo > 0.8  # not stretched down to 0.60
    assert hi - lo < 0.2
    notes = [t.get_text() for t in ax.texts]
    assert any("majority class 0.60, below the axis" in t for t in notes)
    # a baseline near the values stays a line on the axis
    assert baseline_in_view([0.70, 0.75], 0.62) == pytest.approx([0.60, 0.64])
    assert baseline_in_view([0.95, 0.99], 0.60) == []
    assert baseline_in_view([0.55, 0.66], 0.21) == []


# ------------------------------------------------------------------ the tie rule in the cell


def test_accuracy_cells_show_the_interval_the_bold_rule_compares():
    """Two cells with the same mean 0.954: bold in one k, not in the other, because their
    spreads differ; the cells show the intervals that decide it."""
    rows = []
    for r in range(10):
        wobble = 0.002 * (r % 2 * 2 - 1)
        rows += [("a", 10, r, "accuracy_svm", 0.990 + wobble),
                 ("b", 10, r, "accuracy_svm", 0.954 + wobble),  # narrow: not tied
                 ("a", 20, r, "accuracy_svm", 0.960 + 5 * wobble),
                 ("b", 20, r, "accuracy_svm", 0.954 + 20 * wobble)]  # wide: tied
    perf = performance_summary(prepare_results(pd.DataFrame(
        rows, columns=["method", "k", "resample", "metric", "value"])))
    table = performance_table(perf, "accuracy_svm", ["a", "b"])
    b = table.rows[1]
    cell10, cell20 = b[1], b[2]
    assert not isinstance(cell10, Strong) and isinstance(cell20, Strong)
    text10 = cell10 if isinstance(cell10, str) else cell10.text
    text20 = cell20.text
    assert text10.startswith("0.954 [") and text20.startswith("0.954 [")
    lo10, hi10 = (float(v) for v in text10[7:-1].split(", "))
    lo20, hi20 = (float(v) for v in text20[7:-1].split(", "))
    assert hi20 - lo20 > hi10 - lo10


# ------------------------------------------------------------------ report pieces


def test_rerun_box_wraps_and_comparisons_list_the_recommended_method(tmp_path):
    results, stability, frequencies = make_frames(n_resamples=6)
    long = "stablefs compare nakayama " + " ".join(f"--option-{i} value" for i in range(30))
    # a comparisons.csv of every pair at every k (the report used to list 40 of them)
    methods = ["relieff", "iw-relieff", "en-relieff"]
    comp = []
    for k in (10, 20, 30):
        for metric in ("accuracy_svm", "auc_svm", "kuncheva"):
            for i, a in enumerate(methods):
                for b in methods[i + 1:]:
                    comp.append((k, metric, a, b, "wilcoxon", 1.0, 0.001, 0.003, 0.05, 6))
    frame = pd.DataFrame(comp, columns=["k", "metric", "method_a", "method_b", "test",
                                        "statistic", "p_value", "p_holm", "mean_difference",
                                        "n"])
    frame.to_csv(tmp_path / "comparisons.csv", index=False)
    write_report(tmp_path, run_info=make_run_info(command=long), results=results,
                 stability=stability, frequencies=frequencies)
    html = (tmp_path / "report.html").read_text()
    assert "white-space: pre-wrap" in html and "overflow-x: auto; white-space: pre;" not in html
    # a method x five k table of "-0.009 [-0.120, 0.102]" cells fits the 1120 px page: with
    # .75rem of padding a side, MCC (1NN) on shuffled Colon labels ran 50 px past it
    assert "th, td { padding: .38rem .5rem;" in html
    md = (tmp_path / "report.md").read_text()
    section = md.split("## Method comparisons", 1)[1].split("\n## ", 1)[0]
    assert "27 tests of method pairs" in section and "comparisons.csv" in section
    assert "The recommended method, en-relieff, against every other method at k = 30" in \
        section
    table_rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    assert len(table_rows) == 2 * 2  # two other methods x (accuracy, stability)
    # differences oriented as recommended - other: en-relieff is method_b in the csv
    assert all("−0.050" in row or "-0.050" in row for row in table_rows)


def test_comparison_blocks_focus_and_no_focus():
    frame = pd.DataFrame([(10, "accuracy_svm", "a", "b", "corrected-t", 1.0, 0.2, 0.4, 0.01,
                           5)],
                         columns=["k", "metric", "method_a", "method_b", "test", "statistic",
                                  "p_value", "p_holm", "mean_difference", "n"])
    plain = comparison_blocks(frame)
    assert len(plain) == 2  # heading and the sentence: no list without a recommendation
    focused = comparison_blocks(frame, focus=("b", 10, "accuracy_svm", "nogueira"),
                                candidate=True)
    assert isinstance(focused[-1], Table)
    assert focused[-1].rows[0][0] == "a" and focused[-1].rows[0][3] == "-0.010"
    assert "best candidate, b" in to_html_text(focused)


def to_html_text(blocks) -> str:
    from stablefs.report.render import Document

    doc = Document("t")
    doc.add(*blocks)
    return to_html(doc)


def test_warning_when_the_recommended_k_is_the_largest_tried():
    results, stability, frequencies = make_frames(n_resamples=6)  # accuracy rises with k
    res = prepare_results(results)
    stab = prepare_stability(stability)
    perf = performance_summary(res)
    rec = recommendation(stab, perf)
    assert rec.k == 30  # the largest of 10, 20, 30
    text = edge_warning(rec)
    assert text.startswith("Warning: k=30 is the largest size tried, and the accuracy of "
                           f"{rec.method} still improves towards it")
    assert "-k 10:60:10" in text
    sentences = summary_sentences(["relieff", "iw-relieff", "en-relieff"], stab, perf,
                                  time_summary(res), None, rec)
    assert sum(s.startswith("Warning: k=30 is the largest size tried") for s in sentences) == 1
    # not at the edge: no warning
    inner = stability.copy()
    inner.loc[inner["k"] == 30, ["estimate", "low", "high"]] -= 0.3
    rec2 = recommendation(prepare_stability(inner), perf)
    assert rec2.k != 30 and edge_warning(rec2) is None


def test_selection_map_of_the_best_candidate_without_evidence_of_signal(tmp_path):
    """No evidence of signal: the map shows the best candidate, the pair the summary and the
    method comparisons are about (it showed the first method, relieff, at the candidate's k
    on shuffled Colon labels, where the candidate was iw-relieff)."""
    results, stability, frequencies = make_frames(n_resamples=6)
    stab = prepare_stability(stability)
    rec = recommendation(stab, performance_summary(prepare_results(results)))
    assert rec.method != "relieff"  # the first method is not the candidate
    perm = {"method": "relieff", "k": 30, "classifier": "svm",
            "metric": "balanced_accuracy_svm", "observed": 0.45, "null_mean": 0.51,
            "p_value": 1.0, "alpha": 0.05, "significant": False,
            "permutations_requested": 100, "permutations_used": 5, "exceedances": 5,
            "stop_after": 5, "stopped_early": True, "resamples_per_permutation": 3,
            "fits": 54, "seconds": 26.9}
    info = make_run_info(trust={"permutation": perm})
    rng = np.random.default_rng(1)
    names = np.array([f"G{j}" for j in range(60)])
    sel = pd.DataFrame([{"method": m, "resample": r, "ranking": rng.permutation(60) + 1}
                        for m in ("relieff", "iw-relieff", "en-relieff") for r in range(6)])
    write_report(tmp_path, run_info=info, results=results, stability=stability,
                 frequencies=frequencies, selections=sel, feature_names=names)
    md = (tmp_path / "report.md").read_text()
    assert "No evidence of signal" in md
    assert (f"Which features the best candidate, {rec.method}, selected in each resample at "
            f"k = {format_k(rec.k)}") in md
