"""Option-order permutations, position bias, debiasing and calibration on synthetic answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.percul import robustness
from culturelab.percul.data import load


def test_cyclic_orders_put_every_option_in_every_position_once():
    items = load(data_source="sample").items.head(5)
    perm = robustness.permute_items(items, "cyclic")
    assert len(perm) == 20 and perm.groupby("id")["perm_id"].nunique().eq(4).all()
    for _, part in perm.groupby("id"):
        positions = np.array(part["order"].tolist())
        assert all(sorted(positions[:, j]) == [0, 1, 2, 3] for j in range(4))
        truth = part["options"].iloc[0][part["answer"].iloc[0]]
        assert all(opts[a] == truth for opts, a in zip(part["options"], part["answer"]))
        assert all(r[a] == "correct" for r, a in zip(part["rules"], part["answer"]))
    assert len(robustness.permutations(4, "all")) == 24
    assert robustness.permutations(4, "random", n_random=3, seed=1) == robustness.permutations(4, "random", n_random=3, seed=1)
    with pytest.raises(ValueError, match="permutations"):
        robustness.permutations(4, "sorted")


def _biased_results(n_items=40, bias=2.0, signal=1.0, seed=0):
    """A synthetic 'model': log-scores = signal on the true option + a bonus for position 1."""
    rng = np.random.default_rng(seed)
    items = pd.DataFrame({"id": [f"s{i}" for i in range(n_items)], "options": [list("abcd")] * n_items,
                          "answer": rng.integers(0, 4, n_items)})
    perm = robustness.permute_items(items, "cyclic")
    scores = rng.normal(0, 1, (len(perm), 4))
    scores[np.arange(len(perm)), perm["answer"]] += signal
    scores[:, 0] += bias
    perm["scores"] = scores.tolist()
    perm["pred"] = scores.argmax(axis=1)
    perm["correct"] = perm["pred"] == perm["answer"]
    perm["valid"] = True
    perm["model"] = "m"
    return perm


def test_position_bias_is_detected_and_debiasing_helps():
    res = _biased_results()
    prior = robustness.position_prior(res).set_index("position")
    assert prior.loc[1, "predicted_share"] > 0.5 and prior.loc[1, "chi2_p"] < 1e-6
    summ = robustness.permutation_summary(res).iloc[0]
    assert summ["answer_consistency"] < 0.5 and summ["n_orders"] == 4
    deb = robustness.debiased_accuracy(res).iloc[0]
    assert deb["permutation_averaged"] > deb["accuracy_mean"] + 0.15
    assert deb["prior_corrected"] > deb["accuracy_mean"] + 0.15
    assert deb["position_prior"][0] > 0.5
    unbiased = robustness.debiased_accuracy(_biased_results(bias=0.0, signal=3.0)).iloc[0]
    assert unbiased["permutation_averaged"] >= unbiased["accuracy_mean"] - 0.05


def test_calibration_by_hand():
    bins = robustness.calibration_table([0.95, 0.9, 0.6, 0.55], [1, 0, 1, 1], n_bins=2)
    assert bins["n"].tolist() == [0, 4]
    bins = robustness.calibration_table([0.95, 0.9, 0.3, 0.35], [1, 0, 1, 1], n_bins=2)
    assert bins["n"].tolist() == [2, 2] and bins["accuracy"].tolist() == [1.0, 0.5]
    # ECE = (2 × |1 − 0.325| + 2 × |0.5 − 0.925|) / 4
    assert robustness.expected_calibration_error([0.95, 0.9, 0.3, 0.35], [1, 0, 1, 1], n_bins=2) == pytest.approx(0.55)
    probs = robustness.option_probs([[0.0, 0.0, 0.0, 0.0], [np.log(3), 0.0, 0.0, 0.0]])
    assert probs[0].tolist() == [0.25] * 4 and probs[1, 0] == pytest.approx(0.5)
    assert robustness.brier_score(np.array([[1.0, 0, 0, 0]]), [0]) == 0.0
    cal = robustness.calibration_summary(_biased_results(bias=0.0, signal=5.0)).iloc[0]
    assert cal["accuracy"] > 0.9 and cal["ece"] < 0.2


def test_reliability_bins_stack_one_calibration_table_per_model_and_count_stories():
    res = _biased_results(bias=0.0, signal=2.0)
    both = pd.concat([res, res.assign(model="other")], ignore_index=True)
    bins = robustness.reliability_bins(both, n_bins=5)
    assert len(bins) == 10 and bins.groupby("model", sort=False)["n_predictions"].sum().tolist() == [len(res)] * 2
    probs = robustness.option_probs(res["scores"])
    expected = robustness.calibration_table(probs.max(axis=1), probs.argmax(axis=1) == res["answer"].to_numpy(),
                                            n_bins=5, stories=res["id"])
    first = bins[bins["model"] == res["model"].iloc[0]].drop(columns="model").reset_index(drop=True)
    pd.testing.assert_frame_equal(first, expected)
    # n is the stories in a bin (the orders of one story are not independent), never more than the predictions
    per_bin = [res.loc[(probs.max(axis=1) > lo) & (probs.max(axis=1) <= hi), "id"].nunique()
               for lo, hi in zip(first["bin_low"], first["bin_high"])]
    assert first["n"].tolist() == per_bin and (first["n"] <= first["n_predictions"]).all()
    assert first["n"].sum() < first["n_predictions"].sum()


def test_position_intervals_are_clustered_by_story():
    """Ten stories in four cyclic orders, each story's answer always at one position (3 stories at
    position 1, 7 at position 2): the 40 answers carry the information of 10, and the interval of
    the position-1 share is Wilson's for 3 of 10 stories, not for 12 of 40 answers."""
    from culturelab.stats import proportion_ci

    items = pd.DataFrame({"id": [f"s{i}" for i in range(10)], "options": [list("abcd")] * 10, "answer": 0})
    res = robustness.permute_items(items, "cyclic").assign(model="m", pred=[0] * 12 + [1] * 28)
    prior = robustness.position_prior(res).set_index("position")
    assert prior.loc[1, "predicted_share"] == pytest.approx(0.3) and prior.loc[1, "n_stories"] == 10
    assert prior.loc[1, ["ci_low", "ci_high"]].tolist() == pytest.approx(proportion_ci(3, 10))
    assert prior.loc[3, ["ci_low", "ci_high"]].tolist() == pytest.approx(proportion_ci(0, 10))
    # answers that change position from order to order keep (nearly) the independent interval
    mixed = res.assign(pred=[0, 1, 2, 3] * 10)
    wide = robustness.position_prior(mixed).set_index("position")
    assert wide.loc[1, ["ci_low", "ci_high"]].tolist() == pytest.approx(proportion_ci(10, 40))


def test_position_test_counts_stories_not_orders_and_expects_the_correct_positions():
    """Twelve stories in four cyclic orders, each story's answer stuck at one position (6 stories
    at position 1, 2 at each other): pooled as 48 independent answers the preference is
    significant (the old test), clustered by story it rests on 12 stories and is not."""
    from scipy import stats

    items = pd.DataFrame({"id": [f"s{i}" for i in range(12)], "options": [list("abcd")] * 12, "answer": 0})
    stuck = [0] * 24 + [1] * 8 + [2] * 8 + [3] * 8
    res = robustness.permute_items(items, "cyclic").assign(model="m", pred=stuck)
    assert stats.chisquare(np.bincount(stuck)).pvalue < 0.01
    prior = robustness.position_prior(res).iloc[0]
    story_level = stats.chisquare([6, 2, 2, 2]).pvalue  # one answer per story: 0.26
    assert prior["chi2_p"] > 0.05 and prior["chi2_p"] == pytest.approx(story_level, abs=0.06)  # first order: 0.21
    assert prior["n_stories"] == 12 and 3 < prior["design_effect"] <= 4  # four identical answers per story
    # random orders shared by all stories: the correct answers are not uniform over positions, and a
    # model that always picks the correct option shows no position preference
    orders = robustness.permute_items(items, "random", n_random=2, seed=3)
    perfect = orders.assign(model="m", pred=orders["answer"])
    assert stats.chisquare(np.bincount(perfect["pred"], minlength=4)).pvalue < 0.05
    assert robustness.position_prior(perfect)["chi2_p"].iloc[0] == pytest.approx(1.0)


def test_ece_uses_the_reliability_diagrams_bins():
    res = _biased_results(bias=0.5, signal=1.0)
    bins = robustness.reliability_bins(res)  # the diagram's default
    weighted = (bins["n_predictions"] * (bins["accuracy"] - bins["confidence"]).abs()).sum() / bins["n_predictions"].sum()
    cal = robustness.calibration_summary(res).iloc[0]
    assert cal["ece"] == pytest.approx(weighted)
    assert cal["n"] == 4 * cal["n_stories"] == len(res)
    five = robustness.reliability_bins(res, n_bins=5)
    weighted = (five["n_predictions"] * (five["accuracy"] - five["confidence"]).abs()).sum() / five["n_predictions"].sum()
    assert robustness.calibration_summary(res, n_bins=5)["ece"].iloc[0] == pytest.approx(weighted)
