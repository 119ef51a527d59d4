"""The verdict rules of ``stablefs reproduce`` (DESIGN.md "Verdicts"): effect-size margins,
a minimum number of runs, and an interval that covers at small run counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stablefs.experiments._base import VERDICTS, Claim
from stablefs.experiments._output import SMOKE_TEST, summary_text
from stablefs.experiments._stats import (
    MIN_RUNS,
    better_rule,
    combine_verdicts,
    interval,
    t_interval,
    tally,
    verdict_at_least,
    verdict_at_most,
    verdict_positive,
)


def _replicates(centre: float, sd: float) -> np.ndarray:
    """Two replicates whose mean is ``centre`` and whose (1/B) standard deviation is ``sd``."""
    return np.array([centre - sd, centre + sd])


def test_vocabulary_is_design_md():
    assert VERDICTS == ("holds", "does not hold", "inconclusive", "no practical difference",
                        "too few runs", "not testable")
    for v in VERDICTS:
        Claim("x", "s", "t", "o", v)
    with pytest.raises(ValueError):
        Claim("x", "s", "t", "o", "maybe")


def test_t_interval_is_the_student_interval_of_a_mean():
    # the bootstrap sd of a mean of n values is sqrt((n-1)/n) s / sqrt(n): t_interval must
    # then give the textbook t-interval mean +- t_{n-1} s / sqrt(n)
    x = np.array([0.3, 0.1, 0.4, 0.15, 0.9, 0.26, 0.5, 0.35, 0.8, 0.97, 0.11, 0.2])
    n, s = x.size, x.std(ddof=1)
    boot_sd = np.sqrt((n - 1) / n) * s / np.sqrt(n)
    lo, hi = t_interval(_replicates(x.mean(), boot_sd), n, 0.05)
    want = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=s / np.sqrt(n))
    np.testing.assert_allclose((lo, hi), want, rtol=1e-12)
    # a given estimate moves the centre, not the width
    lo2, hi2 = t_interval(_replicates(x.mean(), boot_sd), n, 0.05, estimate=1.0)
    assert lo2 - 1.0 == pytest.approx(lo - x.mean()) and hi2 - lo2 == pytest.approx(hi - lo)
    assert np.isnan(t_interval(np.array([np.nan, 1.0]), n)[0])


def test_better_with_a_margin():
    m, runs = 0.01, 20
    half = stats.t.ppf(0.975, runs - 1) * np.sqrt(runs / (runs - 1))  # interval half / sd
    tight = 0.001 / half  # an sd whose interval is +-0.001
    assert verdict_positive(_replicates(0.05, tight), runs=runs, margin=m)[0] == "holds"
    # significantly above 0 but by 0.5 % only: no practical difference, not "holds"
    assert verdict_positive(_replicates(0.005, tight), runs=runs, margin=m)[0] == \
        "no practical difference"
    assert verdict_positive(_replicates(0.005, tight), runs=runs, margin=0.0)[0] == "holds"
    assert verdict_positive(_replicates(-0.005, tight), runs=runs, margin=m)[0] == \
        "no practical difference"
    assert verdict_positive(_replicates(-0.05, tight), runs=runs, margin=m)[0] == \
        "does not hold"
    # [-0.03, +0.005]: an advantage of the margin is excluded, B may be better: does not hold
    wide = 0.0175 / half
    assert verdict_positive(_replicates(-0.0125, wide), runs=runs, margin=m)[0] == \
        "does not hold"
    # [-0.02, +0.04]: anything is possible
    assert verdict_positive(_replicates(0.01, 0.03 / half), runs=runs, margin=m)[0] == \
        "inconclusive"
    # [+0.005, +0.025]: above 0, not surely above the margin
    assert verdict_positive(_replicates(0.015, 0.01 / half), runs=runs, margin=m)[0] == \
        "inconclusive"
    assert verdict_positive(np.array([np.nan]), runs=runs)[0] == "inconclusive"


def test_too_few_runs_is_never_does_not_hold():
    few = MIN_RUNS - 1
    for centre in (-1.0, 0.0, 1.0):
        r = _replicates(centre, 1e-6)
        assert verdict_positive(r, runs=few, margin=0.01)[0] == "too few runs"
        assert verdict_at_most(r, 0.5, runs=few)[0] == "too few runs"
        assert verdict_at_least(r, 0.5, runs=few)[0] == "too few runs"
    assert verdict_positive(_replicates(1.0, 1e-6), runs=MIN_RUNS)[0] == "holds"
    with pytest.raises(TypeError):
        verdict_positive(_replicates(1.0, 1e-6))  # the run count is required


def test_threshold_verdicts():
    r = 50
    assert verdict_at_most(_replicates(0.5, 0.01), 2.0, runs=r)[0] == "holds"
    assert verdict_at_most(_replicates(3.5, 0.01), 2.0, runs=r)[0] == "does not hold"
    assert verdict_at_most(_replicates(2.0, 0.5), 2.0, runs=r)[0] == "inconclusive"
    assert verdict_at_least(_replicates(0.97, 0.01), 0.9, runs=r)[0] == "holds"
    assert verdict_at_least(_replicates(0.3, 0.01), 0.9, runs=r)[0] == "does not hold"


def test_combine_and_tally():
    assert combine_verdicts(["holds", "holds"]) == "holds"
    assert combine_verdicts(["holds", "too few runs", "does not hold"]) == "does not hold"
    assert combine_verdicts(["holds", "too few runs"]) == "too few runs"
    assert combine_verdicts(["holds", "no practical difference"]) == "no practical difference"
    assert combine_verdicts(["not testable", "not testable"]) == "not testable"
    assert combine_verdicts(["holds", "inconclusive"]) == "inconclusive"
    assert combine_verdicts([]) == "not testable"  # no case of the claim in the run
    assert tally(["holds", "holds", "inconclusive"]) == \
        "majority: holds (2 holds, 1 inconclusive of 3)"
    assert tally(["holds", "does not hold"]) == \
        "majority: no majority (1 does not hold, 1 holds of 2)"
    text = better_rule(0.01, 20)
    assert "+0.01: holds" in text and "±0.01: no practical difference" in text
    assert f"fewer than {MIN_RUNS} runs: too few runs" in text


def _coverage(n: int, reps: int, n_boot: int, seed: int, rule: str) -> float:
    """Share of ``reps`` simulated studies of ``n`` runs (N(1, 1) values) whose 95 % interval
    of the mean, from ``n_boot`` bootstrap resamples, covers the true mean 1."""
    rng = np.random.default_rng(seed)
    hit = 0
    for _ in range(0, reps, 100):
        X = rng.normal(1.0, 1.0, (100, n))
        C = rng.multinomial(n, np.full(n, 1.0 / n), size=(100, n_boot)).astype(float)
        boot = np.einsum("rbn,rn->rb", C, X) / n
        for x, b in zip(X, boot, strict=True):
            lo, hi = t_interval(b, n, 0.05, x.mean()) if rule == "t" else interval(b)
            hit += lo <= 1.0 <= hi
    return hit / reps


@pytest.mark.parametrize("n", [10, 20, 100])
def test_verdict_interval_covers_at_the_nominal_rate(n):
    # 2000 simulated studies: the coverage estimate has a standard error of 0.5 points, so
    # the tolerance of 2.5 points is 5 standard errors (other seeds give 0.94-0.95)
    assert abs(_coverage(n, 2000, 200, seed=n, rule="t") - 0.95) <= 0.025


def test_percentile_interval_undercovers_at_ten_runs():
    # why the verdicts moved to the t-interval: the percentile interval covers ~89 % at 10 runs
    assert _coverage(10, 1000, 200, seed=10, rule="percentile") < 0.925


def test_quick_summary_opens_with_smoke_test():
    claims = pd.DataFrame([{"id": "1", "statement": "s", "test": "t", "ours": "o",
                            "verdict": "no practical difference", "evidence": ""}])
    assert summary_text(claims, quick=True).splitlines()[0] == SMOKE_TEST
    assert SMOKE_TEST not in summary_text(claims)
    assert SMOKE_TEST == "smoke test: verdicts from a small configuration"


@pytest.mark.parametrize("name, smoke", [("quick", True), ("quick, custom", True),
                                         ("default", False), ("custom", False)])
def test_quick_report_opens_with_smoke_test(name, smoke):
    from stablefs.experiments import EXPERIMENTS
    from stablefs.experiments._base import Outcome
    from stablefs.experiments._output import _report, claims_frame
    from stablefs.report.render import to_markdown

    claims = [Claim("1", "s", "t", "o", "too few runs")]
    doc = _report(EXPERIMENTS["simba-liw"], Outcome(claims=claims), claims_frame(claims), [],
                  {"config_name": name})
    text = to_markdown(doc)
    assert (SMOKE_TEST in text) == smoke
    if smoke:  # it opens the report, before the description
        assert text.index(SMOKE_TEST) < text.index("Prat Masramon 2016 (sec. 8.4.1)")
