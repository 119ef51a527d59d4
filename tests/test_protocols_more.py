"""The protocols of issue 9 (hold-out with a full-data reference, subsampling, bootstrap, nested
5 x 2, leave-one-out), preprocessing fitted on training rows only, LDA and the metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import balanced_accuracy_score, matthews_corrcoef, roc_auc_score
from sklearn.preprocessing import StandardScaler

from stablefs import StablefsError
from stablefs.cli import main
from stablefs.evaluation import run_experiment
from stablefs.evaluation.classifiers import (
    auc_score,
    balanced_accuracy,
    binary_auc,
    evaluate_subset,
    make_classifier,
    mcc,
)
from stablefs.evaluation.preprocessing import (
    Preprocessing,
    expand_ranking,
    standardize,
    ttest_filter,
)
from stablefs.evaluation.protocols import Protocol, Resample
from stablefs.evaluation.runner import _fit_task
from stablefs.methods import make_selector


def labels(counts):
    return np.repeat(np.arange(len(counts)), counts)


Y = labels([40, 22])  # Colon's class sizes


def _check_disjoint(r, n):
    assert np.intersect1d(r.train, r.test).size == 0
    assert np.all(np.diff(r.test) > 0) and np.all(np.diff(r.train) >= 0)
    assert r.train.min() >= 0 and max(r.train.max(), r.test.max()) < n


@pytest.mark.parametrize("text", ["holdout", "holdout:4", "subsample", "subsample:0.8",
                                  "bootstrap", "5x2", "loo", "split", "cv:5"])
def test_every_protocol_seeded_disjoint_and_stratified(text):
    proto = Protocol.parse(text)
    res = proto.resamples(Y, random_state=3)
    assert len(res) == (proto.n_resamples or Y.size)
    assert [r.index for r in res] == list(range(len(res)))
    for r in res:
        _check_disjoint(r, Y.size)
        assert set(np.unique(Y[r.train])) == {0, 1}  # both classes train every selector
    again = proto.resamples(Y, random_state=3)
    assert all(np.array_equal(a.train, b.train) and np.array_equal(a.test, b.test)
               for a, b in zip(res, again))
    other = proto.resamples(Y, random_state=4)
    same = all(np.array_equal(a.train, b.train) for a, b in zip(res, other))
    assert same == (text == "loo")  # leave-one-out is the only deterministic protocol


@pytest.mark.parametrize("text,folds,repeats", [("holdout", 3, 10), ("holdout:4", 4, 10),
                                                ("5x2", 2, 5), ("cv:5", 5, 10)])
def test_kfold_protocols_partition_every_repeat(text, folds, repeats):
    proto = Protocol.parse(text)
    assert (proto.n_folds, proto.n_repeats) == (folds, repeats)
    res = proto.resamples(Y, random_state=0)
    for rep in range(repeats):
        parts = [r for r in res if r.repeat == rep]
        assert len(parts) == folds
        tests = np.concatenate([r.test for r in parts])
        assert np.array_equal(np.sort(tests), np.arange(Y.size))  # each sample once
        for r in parts:
            assert np.array_equal(np.union1d(r.train, r.test), np.arange(Y.size))
            # stratified: each class's test count within one of its share
            for c, n_c in ((0, 40), (1, 22)):
                assert abs(np.sum(Y[r.test] == c) - n_c / folds) < 1


def test_subsample_takes_ninety_percent_of_each_class():
    res = Protocol.parse("subsample").resamples(Y, random_state=0)
    assert len(res) == 20
    for r in res:
        assert np.sum(Y[r.train] == 0) == 36 and np.sum(Y[r.train] == 1) == round(22 * 0.9)
        assert np.array_equal(np.union1d(r.train, r.test), np.arange(Y.size))


def test_bootstrap_draws_each_class_with_replacement_and_tests_out_of_bag():
    res = Protocol.parse("bootstrap", 30).resamples(Y, random_state=0)
    assert len(res) == 30
    dup = []
    for r in res:
        assert r.train.size == Y.size
        assert np.sum(Y[r.train] == 0) == 40 and np.sum(Y[r.train] == 1) == 22
        assert np.array_equal(r.test, np.setdiff1d(np.arange(Y.size), r.train))
        dup.append(1 - np.unique(r.train).size / Y.size)
    assert 0.3 < np.mean(dup) < 0.43  # about 1/e of the draws repeat a sample


def test_leave_one_out_tests_each_sample_once():
    res = Protocol.parse("loo").resamples(Y)
    assert len(res) == Y.size
    assert np.array_equal(np.concatenate([r.test for r in res]), np.arange(Y.size))
    assert all(r.train.size == Y.size - 1 for r in res)


def test_nested_five_by_two_structure():
    proto = Protocol.parse("5x2")
    assert proto.nested and not Protocol.parse("cv").nested
    outer = proto.resamples(Y, random_state=1)
    assert len(outer) == 10
    for rep in range(5):
        a, b = [r for r in outer if r.repeat == rep]
        assert (a.fold, b.fold) == (0, 1)
        assert np.array_equal(a.train, b.test) and np.array_equal(a.test, b.train)
    inners = [proto.inner_resamples(Y, o, random_state=1) for o in outer]
    for o, inner in zip(outer, inners):
        assert len(inner) == 10
        for r in inner:
            assert np.all(np.isin(r.train, o.train)) and np.all(np.isin(r.test, o.train))
            assert np.intersect1d(r.train, r.test).size == 0
            assert np.array_equal(np.union1d(r.train, r.test), o.train)
    assert not np.array_equal(inners[0][0].train, inners[1][0].train)
    again = proto.inner_resamples(Y, outer[3], random_state=1)
    assert all(np.array_equal(a.train, b.train) for a, b in zip(again, inners[3]))
    with pytest.raises(StablefsError, match="no inner"):
        Protocol.parse("cv").inner_resamples(Y, outer[0])


@pytest.mark.parametrize("text", ["bogus", "holdout:x", "subsample:1.2", "holdout:1",
                                  "bootstrap:3", "loo:2", "5x2:3"])
def test_bad_protocol_strings_are_one_line(text):
    with pytest.raises(StablefsError) as err:
        Protocol.parse(text)
    assert "\n" not in str(err.value)


def test_fixed_protocols_refuse_other_repeats():
    with pytest.raises(StablefsError, match="5 repeats"):
        Protocol.parse("5x2", 10)
    with pytest.raises(StablefsError, match="one pass"):
        Protocol.parse("loo", 3)
    assert Protocol.parse("5x2", 5).n_resamples == 10


@pytest.mark.parametrize("text,counts", [("holdout", [30, 2]), ("5x2", [30, 3]),
                                         ("bootstrap", [30, 2]), ("subsample", [30, 2])])
def test_class_too_small_for_the_protocol(text, counts):
    with pytest.raises(StablefsError, match="too few samples"):
        Protocol.parse(text).resamples(labels(counts))


# ------------------------------------------------------------------ the runner and the reference

def _toy(n=(20, 16), p=60, seed=0):
    rng = np.random.default_rng(seed)
    y = labels(list(n))
    X = rng.normal(size=(y.size, p))
    X[y == 1, :6] += 1.2
    return X, y


def _kuncheva_ref(subsets, ref, p):
    """Yu et al. 2008 eq. 7 with Kuncheva's index, written out."""
    k = ref.sum()
    r = (subsets & ref).sum(axis=1)
    return float(np.mean((r * p - k * k) / (k * (p - k))))


def test_holdout_measures_stability_against_the_full_data_fit():
    X, y = _toy()
    res = run_experiment(X, y, ["ttest"], [5, 10], protocol="holdout", n_repeats=2,
                         classifiers=["1nn"], measures=["kuncheva", "nogueira"])
    sel = res.selections
    ref = sel[sel["resample"] == -1].iloc[0]
    assert np.array_equal(ref["train"], np.arange(y.size))
    full = make_selector("ttest").fit(X, y).ranking_
    assert np.array_equal(ref["ranking"], full)
    assert res.info["n_resamples"] == 6 and res.info["reference_fit"]
    assert set(res.results["resample"]) == set(range(6))  # no metrics for the reference
    rankings = np.stack(sel[sel["resample"] >= 0].sort_values("resample")["ranking"])
    stab = res.stability.set_index(["k", "measure"])
    for k in (5, 10):
        row = stab.loc[(k, "kuncheva")]
        assert row["against"] == "reference"
        assert row["estimate"] == pytest.approx(_kuncheva_ref(rankings <= k, full <= k, 60))
        assert stab.loc[(k, "nogueira"), "against"] == "resamples"
    plain = run_experiment(X, y, ["ttest"], [5], protocol="cv:3", n_repeats=2,
                           classifiers=["1nn"], measures=["kuncheva"])
    assert set(plain.stability["against"]) == {"resamples"}
    assert (plain.selections["resample"] >= 0).all()


@pytest.mark.parametrize("protocol", ["bootstrap", "5x2", "subsample", "loo"])
def test_new_protocols_run_through_run_experiment(protocol):
    X, y = _toy(n=(8, 7), p=30)
    res = run_experiment(X, y, ["ttest"], [5], protocol=protocol,
                         n_repeats=3 if protocol in ("bootstrap", "subsample") else None,
                         classifiers=["1nn"], measures=["kuncheva"])
    n = {"bootstrap": 3, "5x2": 10, "subsample": 3, "loo": 15}[protocol]
    assert res.info["n_resamples"] == n == len(res.selections)


# ------------------------------------------------------------------------------ preprocessing

def test_standardize_matches_scikit_learn_fitted_on_train():
    rng = np.random.default_rng(1)
    A, B = rng.normal(3, 2, size=(20, 5)), rng.normal(size=(7, 5))
    A[:, 2] = 4.0  # constant: scale 1
    sc = StandardScaler().fit(A)
    tr, te = standardize(A, B)
    np.testing.assert_allclose(tr, sc.transform(A), atol=1e-12)
    np.testing.assert_allclose(te, sc.transform(B), atol=1e-12)


def test_ttest_filter_keeps_the_largest_welch_t():
    X, y = _toy(p=40, seed=2)
    t = np.abs(stats.ttest_ind(X[y == 0], X[y == 1], equal_var=False).statistic)
    keep = ttest_filter(X, y, 7)
    assert np.array_equal(keep, np.sort(np.argsort(-t)[:7]))
    y3 = labels([12, 12, 12])
    X3 = np.random.default_rng(3).normal(size=(36, 20))
    f = stats.f_oneway(*(X3[y3 == c] for c in range(3))).statistic
    assert np.array_equal(ttest_filter(X3, y3, 5), np.sort(np.argsort(-f)[:5]))


def test_expand_ranking_refers_to_original_features():
    X, y = _toy(p=30, seed=4)
    keep = ttest_filter(X, y, 10)
    sel = make_selector("relieff").fit(X[:, keep], y)
    rank, scores = expand_ranking(sel.ranking_, sel.scores_, keep, 30, X, y)
    assert np.array_equal(np.sort(rank), np.arange(1, 31))
    assert np.array_equal(np.sort(np.argsort(rank)[:10]), keep)  # kept features first
    np.testing.assert_array_equal(rank[keep], sel.ranking_)
    assert np.isnan(scores[np.setdiff1d(np.arange(30), keep)]).all()
    np.testing.assert_array_equal(scores[keep], sel.scores_)


def _spy():
    seen = []

    class Spy:
        def __init__(self):
            self.inner = make_selector("relieff")

        def fit(self, X, y):
            seen.append(X.copy())
            self.inner.fit(X, y)
            self.ranking_, self.scores_ = self.inner.ranking_, self.inner.scores_
            return self

    return Spy(), seen


@pytest.mark.parametrize("prep", [Preprocessing("median", True, 12),
                                  Preprocessing("median", False, None),
                                  Preprocessing(None, True, None)])
def test_no_preprocessing_sees_test_rows(prep):
    """Poison the test rows (huge values, NaN): the selector sees the same training matrix,
    ranks the same, and each classifier is trained on the same data (same predictions on an
    untouched copy of the test rows)."""
    X, y = _toy(p=40, seed=5)
    rng = np.random.default_rng(6)
    X[rng.random(X.shape) < 0.05] = np.nan
    if prep.impute is None:
        X = np.nan_to_num(X)
    res = Protocol.parse("split", 1).resamples(y, random_state=0)[0]
    poisoned = X.copy()
    poisoned[res.test] = rng.normal(1e6, 1e5, size=(res.test.size, X.shape[1]))
    if prep.impute:
        poisoned[res.test[:3], :] = np.nan
    outs = []
    for data in (X, poisoned):
        spy, seen = _spy()
        outs.append((_fit_task(spy, data, y, res, [5], ["1nn"], prep), seen[0]))
    (a, seen_a), (b, seen_b) = outs
    np.testing.assert_array_equal(seen_a, seen_b)
    np.testing.assert_array_equal(a["ranking"], b["ranking"])
    np.testing.assert_array_equal(a["scores"], b["scores"])
    # classifiers: fitted on the same training rows, so identical test predictions on clean rows
    Xa_tr, Xa_te, _ = prep.apply(X[res.train], y[res.train], X[res.test])
    Xb_tr, Xb_te, _ = prep.apply(poisoned[res.train], y[res.train], X[res.test])
    np.testing.assert_array_equal(Xa_tr, Xb_tr)
    np.testing.assert_array_equal(Xa_te, Xb_te)


def test_run_experiment_prefilter_and_standardize_options():
    X, y = _toy(p=50, seed=7)
    base = dict(protocol="split", n_repeats=3, classifiers=["1nn"], measures=["kuncheva"])
    res = run_experiment(X, y, ["relieff"], [5], prefilter=15, standardize=True, **base)
    for rank in res.selections["ranking"]:
        assert np.array_equal(np.sort(rank), np.arange(1, 51))
    same = run_experiment(X, y, ["ttest"], [5], prefilter=50, **base)
    plain = run_experiment(X, y, ["ttest"], [5], **base)
    for a, b in zip(same.selections["ranking"], plain.selections["ranking"]):
        assert np.array_equal(a, b)
    with pytest.raises(StablefsError, match="fewer features than the largest"):
        run_experiment(X, y, ["ttest"], [10], prefilter=8, **base)
    with pytest.raises(StablefsError, match="more features"):
        run_experiment(X, y, ["ttest"], [5], prefilter=60, **base)


def test_preprocessing_is_part_of_the_fit_cache_key(tmp_path):
    X, y = _toy(p=30, seed=8)
    kw = dict(protocol="split", n_repeats=2, classifiers=["1nn"], measures=["kuncheva"],
              cache_dir=tmp_path)
    run_experiment(X, y, ["relieff"], [5], **kw)
    again = run_experiment(X, y, ["relieff"], [5], **kw)
    assert again.info["fits_reused"] == 2
    other = run_experiment(X, y, ["relieff"], [5], standardize=True, **kw)
    assert other.info["fits_computed"] == 2
    other = run_experiment(X, y, ["relieff"], [5], prefilter=10, **kw)
    assert other.info["fits_computed"] == 2


# ---------------------------------------------------------------------- classifiers and metrics

label_pairs = st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(label_pairs)
def test_metrics_match_scikit_learn(pair):
    t, p = map(np.asarray, pair)
    assert balanced_accuracy(t, p) == pytest.approx(
        _sk_balanced(t, p), abs=1e-12)
    assert mcc(t, p) == pytest.approx(_quiet(matthews_corrcoef, t, p), abs=1e-12)


def _sk_balanced(t, p):
    return _quiet(balanced_accuracy_score, t, p)


def _quiet(metric, t, p):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a single label, or classes absent from y_true
        return metric(t, p)


def test_evaluate_subset_records_every_metric_per_classifier():
    X, y = _toy(p=8, seed=9)
    X[y == 1, :6] -= 0.9  # a weak signal: predictions are not all right
    tr, te = np.arange(0, 36, 2), np.arange(1, 36, 2)
    out = evaluate_subset(X[tr], y[tr], X[te], y[te], ["svm", "1nn", "lda"])
    for clf in ("svm", "1nn", "lda"):
        model = make_classifier(clf).fit(X[tr], y[tr])
        pred = model.predict(X[te])
        assert out[f"accuracy_{clf}"] == pytest.approx(np.mean(pred == y[te]))
        assert out[f"balanced_accuracy_{clf}"] == pytest.approx(
            balanced_accuracy_score(y[te], pred))
        assert out[f"mcc_{clf}"] == pytest.approx(matthews_corrcoef(y[te], pred))
    lda = make_classifier("lda").fit(X[tr], y[tr])
    assert out["auc_lda"] == pytest.approx(roc_auc_score(y[te], lda.decision_function(X[te])))
    # from scores, not labels: the LDA AUC differs from the AUC of its 0/1 predictions here
    assert out["auc_lda"] != pytest.approx(roc_auc_score(y[te], lda.predict(X[te])))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_evaluate_subset_equals_each_classifiers_own_pipeline(n_classes):
    """One shared min-max scaling gives exactly what each classifier's pipeline gives."""
    from stablefs.evaluation.classifiers import _scores

    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 6)) * [1, 10, 0.1, 5, 1, 1]
    X[:, 4] = 3.0  # a constant column
    y = rng.integers(0, n_classes, 60)
    X[:, 0] += y
    tr, te = np.arange(40), np.arange(40, 60)
    names = ["svm", "1nn", "3nn", "lda", "wknn"]
    out = evaluate_subset(X[tr], y[tr], X[te], y[te], names)
    for name in names:
        model = make_classifier(name).fit(X[tr], y[tr])
        pred = model.predict(X[te])
        assert out[f"accuracy_{name}"] == np.mean(pred == y[te])
        assert out[f"mcc_{name}"] == mcc(y[te], pred)
        assert out[f"auc_{name}"] == auc_score(y[te], _scores(model, X[te]), model.classes_)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(-3, 3)), min_size=2, max_size=40))
def test_binary_auc_equals_sklearn_with_ties(pairs):
    """The Mann-Whitney AUC against roc_auc_score, with many tied scores (integers)."""
    positive = np.array([p for p, _ in pairs])
    score = np.array([s for _, s in pairs], dtype=float) / 3.0
    if positive.all() or not positive.any():
        assert np.isnan(binary_auc(positive, score))
        return
    assert binary_auc(positive, score) == pytest.approx(roc_auc_score(positive, score),
                                                        abs=1e-12)


def test_multiclass_auc_is_one_vs_rest_macro():
    y = labels([10, 10, 10])
    X = np.random.default_rng(10).normal(size=(30, 4)) + y[:, None] * 0.7
    tr, te = np.arange(0, 30, 2), np.arange(1, 30, 2)
    for clf in ("lda", "3nn"):
        model = make_classifier(clf).fit(X[tr], y[tr])
        proba = model.predict_proba(X[te])
        ours = auc_score(y[te], proba, model.classes_)
        assert ours == pytest.approx(roc_auc_score(y[te], proba, multi_class="ovr",
                                                   average="macro"))


def test_lda_copes_with_more_features_than_samples():
    X, y = _toy(p=80, seed=11)
    tr, te = np.arange(0, 36, 2), np.arange(1, 36, 2)  # 18 training samples, 80 features
    model = make_classifier("lda").fit(X[tr], y[tr])
    assert np.mean(model.predict(X[te]) == y[te]) > 0.7


def test_report_labels_understand_the_new_metrics():
    from stablefs.report.tables import metric_label, parse_metric

    assert parse_metric("balanced_accuracy_lda") == ("balanced_accuracy", "lda")
    assert metric_label("mcc_3nn") == "MCC (3NN)"
    assert metric_label("auc_lda") == "AUC (LDA)"


# --------------------------------------------------------------------------------------- CLI

def _toy_csv(tmp_path):
    X, y = _toy(p=20, seed=12)
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(20)])
    df.insert(0, "label", np.where(y == 0, "a", "b"))
    path = tmp_path / "toy.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("args,needle", [
    (["--protocol", "jackknife"], "unknown protocol"),
    (["--protocol", "5x2", "--repeats", "3"], "5 repeats"),
    (["--prefilter", "3"], "largest subset size"),
    (["--prefilter", "30"], "more features"),
])
def test_cli_refuses_bad_protocol_and_preprocessing_in_one_line(args, needle, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["compare", str(_toy_csv(tmp_path)), "-m", "ttest", "-k", "5",
                 "--out", str(out), *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and needle in err
    assert not out.exists()


def test_cli_holdout_with_preprocessing_writes_reference_stability(tmp_path):
    from stablefs.evaluation.outputs import read_csv

    out = tmp_path / "out"
    code = main(["compare", str(_toy_csv(tmp_path)), "-m", "ttest", "-k", "5",
                 "--protocol", "holdout", "--repeats", "2", "--standardize", "--prefilter",
                 "10", "--classifiers", "lda", "--stability", "kuncheva", "--no-report",
                 "-q", "--out", str(out)])
    assert code == 0
    stab = read_csv(out / "stability.csv")
    assert list(stab["against"]) == ["reference"]
    metrics = set(read_csv(out / "results.csv")["metric"])
    assert {"accuracy_lda", "balanced_accuracy_lda", "mcc_lda", "auc_lda"} <= metrics
    import json

    cfg = json.loads((out / "run.json").read_text())["config"]
    assert cfg["standardize"] is True and cfg["prefilter"] == 10


def test_resample_dataclass_unchanged():
    r = Resample(0, np.arange(3), np.arange(3, 5))
    assert (r.repeat, r.fold) == (0, 0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(4, 25), min_size=2, max_size=4),
       st.sampled_from(["split", "cv:3", "holdout", "subsample", "bootstrap", "5x2", "loo"]),
       st.integers(0, 2**31 - 1))
def test_protocol_invariants_for_any_class_sizes(counts, text, seed):
    """Any labels: train and test disjoint and inside the sample range, every class in every
    training part, the test part never empty, and the test parts of one k-fold repeat a
    partition of the samples."""
    y = np.random.default_rng(seed).permutation(labels(counts))
    proto = Protocol.parse(text, 3 if text not in ("5x2", "loo") else None)
    res = proto.resamples(y, random_state=seed)
    for r in res:
        _check_disjoint(r, y.size)
        assert r.test.size > 0
        assert np.unique(y[r.train]).size == len(counts)
    if proto.kind in ("cv", "holdout", "5x2"):
        for rep in range(proto.n_repeats):
            tests = np.concatenate([r.test for r in res if r.repeat == rep])
            assert np.array_equal(np.sort(tests), np.arange(y.size))


def test_reference_fit_is_seeded_independently_of_scheduling(tmp_path):
    """The full-data fit (resample -1) has its own task seed; the same run in another method
    order, or resumed from the fit cache, gives the same stability (n_jobs independence is
    the same mechanism, tested in test_runner)."""
    from stablefs.evaluation.runner import task_seed

    seeds = {task_seed(5, r, "relieff") for r in (-1, 0, 1, 2)}
    assert len(seeds) == 4 and task_seed(5, -1, "relieff") == task_seed(5, -1, "relieff")
    X, y = _toy(n=(10, 9), p=30, seed=13)
    kw = dict(protocol="holdout", n_repeats=2, classifiers=["1nn"], measures=["kuncheva"],
              random_state=5, cache_dir=tmp_path)
    one = run_experiment(X, y, ["relieff(n_samples=10)", "ttest"], [5], **kw)
    two = run_experiment(X, y, ["ttest", "relieff(n_samples=10)"], [5], **kw)
    assert two.info["fits_reused"] == 14
    key = ["method", "k", "measure"]
    pd.testing.assert_frame_equal(one.stability.sort_values(key).reset_index(drop=True),
                                  two.stability.sort_values(key).reset_index(drop=True))
    fresh = run_experiment(X, y, ["ttest", "relieff(n_samples=10)"], [5],
                           **{**kw, "cache_dir": None})
    pd.testing.assert_frame_equal(one.stability.sort_values(key).reset_index(drop=True),
                                  fresh.stability.sort_values(key).reset_index(drop=True))
