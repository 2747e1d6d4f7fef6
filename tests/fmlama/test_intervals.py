"""FMLAMA intervals: Table 13 accuracies and per-group CIs of 0/1 values are Wilson intervals."""

from __future__ import annotations

import pandas as pd
import pytest

from culturelab.fmlama import generations as G
from culturelab.fmlama import metrics as M
from culturelab.stats import proportion_ci


def test_accuracy_per_group_gets_wilson_intervals_at_small_n():
    scored = pd.DataFrame({"group": ["A"] * 3 + ["B"] * 3, "correct": [False] * 3 + [True, False, False],
                           "valid": True})
    t = G.accuracy_by_group(scored).set_index("group")
    for group, k, n in (("A", 0, 3), ("B", 1, 3), ("All", 1, 6)):
        assert t.loc[group, ["ci_low", "ci_high"]].tolist() == pytest.approx([100 * b for b in proportion_ci(k, n)])


def test_group_cis_of_a_0_1_metric_are_wilson_and_of_ap_bootstrap():
    per_dish = pd.DataFrame({"model": "m", "group": "A", "url": list("abc"), "p1": [0.0, 0.0, 0.0],
                             "ap": [0.2, 0.5, 0.25]})
    p1 = M.group_cis(per_dish, "p1", ["model"]).set_index("group").loc["A"]
    assert [p1["ci_low"], p1["ci_high"]] == pytest.approx(proportion_ci(0, 3))  # not [0, 0]
    ap = M.group_cis(per_dish, "ap", ["model"]).set_index("group").loc["A"]
    assert 0.2 <= ap["ci_low"] < ap["mean"] < ap["ci_high"] <= 0.5


def test_ap_is_no_proportion_even_when_every_dish_scores_0_or_1():
    """Issue 29: one dish's AP of 1.0 drew a Wilson interval [20.7, 100] in table2_groups_ci_en."""
    one = pd.DataFrame({"model": "m", "group": "A", "url": ["a"], "ap": [1.0]})
    ci = M.group_cis(one, "ap", ["model"]).set_index("group").loc["A"]
    assert ci[["ci_low", "ci_high"]].isna().all()  # one dish: no interval at all
    three = pd.DataFrame({"model": "m", "group": "A", "url": list("abc"), "ap": [0.0, 1.0, 1.0]})
    ci = M.group_cis(three, "ap", ["model"]).set_index("group").loc["A"]
    assert [ci["ci_low"], ci["ci_high"]] != pytest.approx(proportion_ci(2, 3))
    assert 0.0 <= ci["ci_low"] <= ci["mean"] <= ci["ci_high"] <= 1.0
