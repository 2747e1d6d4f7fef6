"""Macro/micro accuracy by hand, invalid policies, and both scoring modes on a tiny random model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.metrics.choice import macro_accuracy
from culturelab.models import load_model
from culturelab.percul import scoring
from culturelab.percul.data import load
from culturelab.percul.pipeline import stories
from culturelab.stats import proportion_ci

# hand-computed: Foods 2/3, Music 0/1, Art 1/2 → macro (2/3 + 0 + 1/2) / 3 = 7/18; micro 3/6
HAND = pd.DataFrame({"model": "m", "category": ["Foods"] * 3 + ["Music"] + ["Art"] * 2,
                     "correct": [True, True, False, False, True, False],
                     "valid": [True, True, True, False, True, False],
                     "parse_method": ["json", "json", "digit", "refusal", "json", "invalid"]})


def test_macro_and_micro_on_a_hand_computed_case():
    s = scoring.summary(HAND, ["model"]).iloc[0]
    assert s["macro"] == pytest.approx(7 / 18) and s["micro"] == pytest.approx(0.5)
    assert s["invalid_rate"] == pytest.approx(2 / 6) and s["refusal_rate"] == pytest.approx(1 / 6)
    assert s["n_categories"] == 3
    assert float(macro_accuracy(HAND.assign(correct=HAND["correct"].astype(float)), "category")
                 ["macro_accuracy"].iloc[0]) == pytest.approx(7 / 18)


def test_exclude_policy_drops_invalid_answers_but_reports_their_rate():
    s = scoring.summary(HAND, ["model"], invalid_policy="exclude").iloc[0]
    # Foods 2/3, Art 1/1 (Music has no valid answer left) → macro 5/6, micro 3/4
    assert s["macro"] == pytest.approx(5 / 6) and s["micro"] == pytest.approx(3 / 4)
    assert s["invalid_rate"] == pytest.approx(2 / 6)
    # n and n_categories are what the macro rests on: 4 valid answers in 2 categories
    assert (s["n"], s["n_categories"]) == (4, 2)
    assert tuple(scoring.summary(HAND, ["model"]).iloc[0][["n", "n_categories"]]) == (6, 3)
    per = scoring.per_category(HAND, invalid_policy="wrong").set_index("category")
    assert per.loc["Foods", "accuracy"] == pytest.approx(2 / 3) and per.loc["Music", "invalid_rate"] == 1.0
    with pytest.raises(ValueError, match="invalid_policy"):
        scoring.summary(HAND, invalid_policy="drop")


def test_macro_interval_is_open_at_zero_and_combines_per_category_wilson_intervals():
    # no story right (34 stories, 11 categories of 3–4, as on our sample): the upper limit stays above 0
    cats = [f"c{i}" for i in range(11) for _ in range(3)] + ["c0"]
    s = scoring.summary(pd.DataFrame({"model": "m", "category": cats, "correct": False, "valid": True})).iloc[0]
    assert s["macro"] == 0.0 and s["macro_ci_low"] == 0.0 and 0.1 < s["macro_ci_high"] < 0.25
    assert scoring.summary(pd.DataFrame({"model": "m", "category": cats, "correct": True, "valid": True})
                           ).iloc[0]["macro_ci_low"] < 1.0
    # MOVER: the per-category Wilson half-widths added as variances, weights 1/K
    correct = np.r_[np.ones(8), np.zeros(2), np.ones(3), np.zeros(7)]
    lo, hi = scoring.macro_ci(pd.DataFrame({"category": ["a"] * 10 + ["b"] * 10, "correct": correct}))
    (la, ha), (lb, hb) = proportion_ci(8, 10), proportion_ci(3, 10)
    assert lo == pytest.approx(0.55 - np.hypot(0.8 - la, 0.3 - lb) / 2)
    assert hi == pytest.approx(0.55 + np.hypot(ha - 0.8, hb - 0.3) / 2)


def test_subset_round_robins_over_categories():
    items = load(data_source="sample").items
    sub = scoring.subset(items, 13)
    assert sub["category"].nunique() == 11 and len(sub) == 13
    assert scoring.subset(items, 0).equals(items)


def test_family_and_size():
    assert scoring.family_and_size("hf:Qwen/Qwen2.5-0.5B-Instruct") == ("Qwen2.5", 0.5)
    assert scoring.family_and_size("hf:HuggingFaceTB/SmolLM2-360M-Instruct") == ("SmolLM2", 0.36)
    assert scoring.family_and_size("bundled:gemma3-270m")[0] == "Gemma 3"


def test_both_modes_on_a_tiny_model(tiny_causal_dir, tmp_cache):
    model = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    items = stories(load("gpt_english_translation", data_source="sample"), max_instances=3)
    out = scoring.evaluate(model, items, ["generate", "loglikelihood"], max_new_tokens=4)
    assert set(out["method"]) == {"generate", "loglik-text-mean"} and len(out) == 6
    gen = out[out["method"] == "generate"]
    assert gen["raw_output"].map(lambda t: isinstance(t, str)).all()
    assert (gen["pred"].where(gen["valid"], -1) == gen["pred"]).all()  # invalid answers carry pred −1
    assert (gen.loc[~gen["valid"], "correct"] == False).all()  # noqa: E712 - invalid counts as wrong
    ll = out[out["method"] == "loglik-text-mean"]
    assert ll["scores"].map(len).eq(4).all() and ll["valid"].all()
    assert (ll["pred"] == ll["scores"].map(np.argmax)).all()
    # one loglikelihood call: 3 stories × 4 options, the contexts shared
    assert model.stats.by_kind["loglikelihood"] == 12
    again = scoring.run_loglikelihood(model, items, target="number")
    assert again["method"].iloc[0] == "loglik-number-mean" and model.stats.by_kind["loglikelihood"] == 24
    # a second identical call is served by the response cache
    scoring.run_loglikelihood(model, items)
    assert model.stats.by_kind["loglikelihood"] == 24
    with pytest.raises(ValueError, match="methods"):
        scoring.evaluate(model, items, ["guess"])


def test_category_accuracy_bars_get_wilson_intervals_at_three_stories():
    """Notebook 01's per-category bars (accuracy_table, beside Table 5) and Figure 5's cells
    (per_category) give one interval: Wilson's, not the percentile bootstrap's [0, 0] / [0, 1]."""
    from culturelab.metrics.choice import accuracy_table

    t = pd.DataFrame({"model": "m", "category": ["Foods"] * 3 + ["Music"] * 3,
                      "correct": [False, False, False, True, False, False], "valid": True})
    bars = accuracy_table(t, ["model", "category"]).set_index("category")[["ci_low", "ci_high"]]
    cells = scoring.per_category(t).set_index("category")[["ci_low", "ci_high"]]
    pd.testing.assert_frame_equal(bars, cells)
    assert bars.loc["Foods"].tolist() == [0.0, pytest.approx(0.5615, abs=1e-4)]
    assert bars.loc["Music"].round(2).tolist() == [0.06, 0.79]
