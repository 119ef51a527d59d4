"""Why the 3NN wrapper of ``xiao2007-cridd`` behaves as it does (docs/experiments.md): how often
SFS with the criteria of Xiao, Hua and Dougherty (2007, sec. 3) finds the ten best features
(:func:`wrapper_choice`), and why leave-one-out reads above the true error of the 3NN wrapper
rule in Algorithm 1 (:func:`held_out_class_error`). Both are importable from
:mod:`.xiao2007_cridd` too; the experiment's runs do not use them.
"""

from __future__ import annotations

import numpy as np

from stablefs.experiments.xiao2007_cridd.calibration import MU_BEST, base_mu

__all__ = ["held_out_class_error", "wrapper_choice"]


def wrapper_choice(model: str = "equal", n_samples: int = 50, mu_best: float = MU_BEST,
                   n_sets: int = 100, seed: int = 9000) -> dict:
    """How often SFS finds the ten best features of the Xiao, Hua and Dougherty (2007) models
    with the paper's criteria (sec. 3), and whether the 3NN criterion prefers what it picks.

    For ``n_sets`` training samples (sample ``r`` drawn with ``random_state=seed + r``): SFS
    on the semi-bolstered 3NN resubstitution error and on the bolstered LDA error (criterion
    draws seeded by ``r``), and the t-test's top 10.

    Returns
    -------
    dict
        ``3nn``, ``lda``, ``ttest``: mean share of the best 10 features in the chosen 10;
        ``3nn_prefers_chosen``: share of samples where the 3NN criterion rates the chosen
        subset strictly better than the best features; ``3nn_first_best``: share whose first
        pick is a best feature; ``3nn_tied_steps``: share of SFS steps with a tie.
    """
    from stablefs.datasets import make_xiao2007
    from stablefs.evaluation.cridd import _pooled_t_top
    from stablefs.selectors.wrappers import make_criterion, sfs

    out: dict[str, list] = {k: [] for k in ("3nn", "lda", "ttest", "3nn_prefers_chosen",
                                            "3nn_first_best", "3nn_tied_steps")}
    for r in range(int(n_sets)):
        ds = make_xiao2007(model, n_samples=n_samples, random_state=seed + r,
                           mu=base_mu(mu_best))
        X, y, best = ds.X, ds.y, ds.relevant
        crit = make_criterion(X, y, estimator="3nn", criterion="semi-bolstered",
                              random_state=r)
        res = sfs(crit, 10)
        out["3nn"].append(np.isin(res.subset, best).mean())
        out["3nn_prefers_chosen"].append(crit.error(res.subset) < crit.error(best))
        out["3nn_first_best"].append(res.order[0] in best)
        out["3nn_tied_steps"].append(np.mean(np.asarray(res.ties) > 0))
        lda = make_criterion(X, y, estimator="lda", criterion="bolstered", random_state=r)
        out["lda"].append(np.isin(sfs(lda, 10).subset, best).mean())
        out["ttest"].append(np.isin(_pooled_t_top(X, y, 10), best).mean())
    return {k: float(np.mean(v)) for k, v in out.items()}


def held_out_class_error(model: str = "equal", mu_best: float = MU_BEST, n_sets: int = 200,
                         n_test: int = 4000, seed: int = 7000) -> dict:
    """Why leave-one-out reads above the true error of the 3NN wrapper rule in Algorithm 1
    (Xiao, Hua and Dougherty 2007): with exactly N/2 points per class (step a), the held-out
    point always belongs to the smaller class of the N - 1 training points.

    For ``n_sets`` samples of N = 50 (sample ``r`` from ``seed + r``): drop one random point
    (class c); SFS with the semi-bolstered 3NN criterion and 3NN on the other 49; its error on
    fresh class-c points (what LOO averages) and on the other class, against the balanced true
    error of the selection and rule on all 50; the same for the best features (no selection).

    Returns
    -------
    dict
        Means and standard errors over the samples: ``E50`` (balanced true error, all 50),
        ``held_out_class`` and ``other_class`` (rule on 49), ``held_out_minus_E50`` (paired),
        ``best_held_out_minus_E50`` (best features, no selection).
    """
    from stablefs.datasets import make_xiao2007
    from stablefs.evaluation.cridd import xiao2007_test_sampler
    from stablefs.evaluation.error_estimators import make_rule
    from stablefs.selectors.wrappers import make_criterion, sfs

    rule = make_rule("3nn")

    def select(X, y, r):
        crit = make_criterion(X, y, estimator="3nn", criterion="semi-bolstered",
                              random_state=r)
        return np.sort(sfs(crit, 10).subset)

    def err(Xtr, ytr, F, Xt, yt, cls=None):
        pred = rule.fit(Xtr[:, F], ytr, 2).predict(Xt[:, F])
        m = np.ones(yt.size, dtype=bool) if cls is None else yt == cls
        return float(np.mean(pred[m] != yt[m]))

    rows = []
    for r in range(int(n_sets)):
        ds = make_xiao2007(model, n_samples=50, random_state=seed + r, mu=base_mu(mu_best))
        X, y, best = ds.X, ds.y, ds.relevant
        rng = np.random.default_rng(r)
        i = int(rng.integers(50))
        c = int(y[i])
        keep = np.setdiff1d(np.arange(50), [i])
        F50, F49 = select(X, y, r), select(X[keep], y[keep], r)
        Xt, yt = xiao2007_test_sampler(ds.meta)(np.random.default_rng(10**6 + r), n_test,
                                                np.arange(X.shape[1]))
        rows.append([err(X, y, F50, Xt, yt), err(X[keep], y[keep], F49, Xt, yt, c),
                     err(X[keep], y[keep], F49, Xt, yt, 1 - c),
                     err(X[keep], y[keep], best, Xt, yt, c), err(X, y, best, Xt, yt)])
    a = np.asarray(rows)

    def ms(v):
        return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size))

    return {"E50": ms(a[:, 0]), "held_out_class": ms(a[:, 1]), "other_class": ms(a[:, 2]),
            "held_out_minus_E50": ms(a[:, 1] - a[:, 0]),
            "best_held_out_minus_E50": ms(a[:, 3] - a[:, 4])}
