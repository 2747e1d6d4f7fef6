"""Distractor-rule matrices (Figures 8/16): rows sum to 1, counts by hand, base-rate correction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.percul import distractors
from culturelab.percul.data import RULES, load

RULES_ROW = ["correct", "R1", "R2", "R1"]


def _results():
    # model a: 3 picks of R1 options, 1 of R2, 1 correct, 1 invalid; model b: 1 pick of R2
    rows = [("a", "Foods", 1), ("a", "Foods", 3), ("a", "Music", 1), ("a", "Music", 2), ("a", "Music", 0),
            ("a", "Music", -1), ("b", "Foods", 2), ("b", "Music", 0)]
    return pd.DataFrame({"model": [r[0] for r in rows], "category": [r[1] for r in rows],
                         "pred": [r[2] for r in rows], "answer": 0, "valid": [r[2] >= 0 for r in rows],
                         "rules": [RULES_ROW] * len(rows)})


def test_picks_count_only_parseable_wrong_answers():
    picks = distractors.distractor_picks(_results())
    assert len(picks) == 5 and picks["rule"].tolist() == ["R1", "R1", "R1", "R2", "R2"]


@pytest.mark.parametrize("index", ["model", "category"])
@pytest.mark.parametrize("pooling", ["sum_counts", "mean_of_models"])
def test_heatmap_rows_sum_to_one(index, pooling):
    m = distractors.rule_matrix(distractors.distractor_picks(_results()), index, pooling=pooling)
    assert list(m.columns) == RULES
    assert np.allclose(m.sum(axis=1), 1.0)


def test_row_values_by_hand():
    picks = distractors.distractor_picks(_results())
    by_model = distractors.rule_matrix(picks, "model")
    assert by_model.loc["a", "R1"] == pytest.approx(0.75) and by_model.loc["b", "R2"] == 1.0
    # Foods: a→R1, a→R1, b→R2 (sum of counts: 2/3 R1); mean of models: a (1.0 R1), b (1.0 R2) → 0.5
    assert distractors.rule_matrix(picks, "category").loc["Foods", "R1"] == pytest.approx(2 / 3)
    assert distractors.rule_matrix(picks, "category", pooling="mean_of_models").loc["Foods", "R1"] == 0.5
    with pytest.raises(ValueError, match="fig8_pooling"):
        distractors.rule_matrix(picks, "category", pooling="median")


def test_lure_rates_correct_for_how_often_a_rule_is_shown():
    lure = distractors.lure_rates(_results()).set_index(["model", "rule"])
    # model a saw 6 stories × two R1 options = 12 exposures, picked R1 three times
    assert lure.loc[("a", "R1"), "exposure"] == 12 and lure.loc[("a", "R1"), "picks"] == 3
    assert lure.loc[("a", "R1"), "pick_rate"] == pytest.approx(0.25) and lure.loc[("a", "R1"), "lure_ratio"] == 1.0
    # R1 holds 2/3 of the shown distractors: its 0.75 share is only 1.125× its base rate
    assert lure.loc[("a", "R1"), "share"] == 0.75 and lure.loc[("a", "R1"), "share_over_base"] == pytest.approx(1.125)
    assert lure.loc[("a", "R2"), "share_over_base"] == pytest.approx(0.75)
    assert np.isnan(lure.loc[("a", "R5"), "pick_rate"])


def test_base_rates_on_the_sample_and_missing_labels():
    items = load(data_source="sample").items
    every_story = items.assign(rule="R1")[["id", "category", "rule"]]  # one pick per story: the items' base rates
    base, shown = distractors.pick_base_rates(every_story, items, "category")
    assert np.allclose(base.sum(axis=1), 1.0) and len(base) == 11 and shown.sum() == 3 * len(items)
    assert distractors.pick_base_rates(every_story, items)[0].loc["all"].idxmax() in RULES
    with pytest.raises(KeyError, match="no distractor rule labels"):
        distractors.distractor_picks(_results().drop(columns="rules"))


def _two_kinds_of_story():
    """Stories s0–s3 hold only R1 distractors, s4–s7 only R2; three models each pick the same rule on
    the same stories, and all are wrong only on s0–s3 and s4–s5."""
    items = pd.DataFrame({"id": [f"s{i}" for i in range(8)], "category": "Foods", "answer": 0, "valid": True,
                          "rules": [["correct", "R1", "R1", "R1"]] * 4 + [["correct", "R2", "R2", "R2"]] * 4})
    results = pd.concat([items.assign(model=m, pred=[1] * 6 + [0, 0]) for m in "abc"], ignore_index=True)
    return items, results


def test_pooled_pick_intervals_cluster_by_story():
    """18 picks of three models on 6 stories (4 R1, 2 R2): the R1 interval is Wilson's for 4 of 6
    stories, not for 12 of 18 independent picks."""
    from culturelab.stats import proportion_ci

    _, results = _two_kinds_of_story()
    picks = distractors.distractor_picks(results)
    assert "id" in picks and len(picks) == 18
    n, low, high = distractors.rule_uncertainty(picks, "category")
    assert int(n["Foods"]) == 18
    assert [low.loc["Foods", "R1"], high.loc["Foods", "R1"]] == pytest.approx(proportion_ci(4, 6))
    n, low, high = distractors.rule_uncertainty(picks[picks["model"] == "a"], "model")  # one pick per story: Wilson
    assert [low.loc["a", "R1"], high.loc["a", "R1"]] == pytest.approx(proportion_ci(4, 6))


def test_chance_is_the_rules_of_the_stories_picked_from():
    """All distractors shown: half R1, half R2; the picks come from 4 R1 stories and 2 R2 stories,
    so a random wrong pick would be R1 two times in three."""
    items, results = _two_kinds_of_story()
    picks = distractors.distractor_picks(results)
    rates, shown = distractors.pick_base_rates(picks, items)
    assert rates.loc["all", "R1"] == pytest.approx(2 / 3) and int(shown["all"]) == 18 * 3
    by_category, _ = distractors.pick_base_rates(picks, items, "category")
    assert by_category.loc["Foods", "R2"] == pytest.approx(1 / 3)
