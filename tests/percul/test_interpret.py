"""The notebooks' interpretations are written from the run's numbers: the same function says opposite
things of a model that always answers right and of one that copies the JSON skeleton."""

from __future__ import annotations

import numpy as np
import pandas as pd

from culturelab.percul import interpret, robustness, translation
from culturelab.percul.data import load
from culturelab.percul.scoring import summary

ITEMS = load(data_source="sample").items


def _run(correct: bool, method: str = "generate", parse_method: str = "json") -> pd.DataFrame:
    return ITEMS.assign(model="m", method=method, correct=correct, valid=parse_method == "json",
                        parse_method=parse_method, parse_verdict="strict" if parse_method == "json" else "invalid")


def test_benchmark_says_what_each_run_shows():
    perfect, echo = _run(True), _run(False, parse_method="template_echo")
    good = interpret.benchmark(summary(perfect, ["model", "method"]), results=perfect)
    bad = interpret.benchmark(summary(echo, ["model", "method"]), results=echo)
    assert "above chance" in good and "Every answer was read in the format" in good
    assert "below chance" in bad and "100 % of its answers could not be scored" in bad and "`template_echo`" in bad
    baseline = summary(ITEMS.assign(model="baseline:x", correct=ITEMS.index % 4 == 0, valid=True), ["model"])
    assert "above the best model-free baseline" in interpret.benchmark(summary(perfect, ["model", "method"]),
                                                                       baseline, perfect)


def test_translation_follows_the_sign_and_the_test():
    fa = ITEMS.assign(split=translation.PERSIAN, model="m", correct=True, valid=True)
    en = ITEMS.assign(split=translation.ENGLISH, model="m", correct=np.arange(len(ITEMS)) % 2 == 0, valid=True)
    both = pd.concat([fa, en], ignore_index=True)
    gap = translation.split_gap(summary(both, ["model", "split"]))
    text = interpret.translation(gap, translation.paired_outcomes(both))
    assert "lower in English, as for every model in the paper" in text and "a difference between the splits" in text
    flipped = both.assign(split=both["split"].map({translation.PERSIAN: translation.ENGLISH,
                                                   translation.ENGLISH: translation.PERSIAN}))
    gap = translation.split_gap(summary(flipped, ["model", "split"]))
    assert "higher in English, unlike every model" in interpret.translation(gap, translation.paired_outcomes(flipped))


def test_robustness_reads_the_position_test_and_confidence():
    items = ITEMS.head(12)
    orders = robustness.permute_items(items, "cyclic").assign(model="m", valid=True)
    stuck = orders.assign(scores=[[3.0, 0.0, 0.0, 0.0]] * len(orders), pred=0)  # always position 1, confident
    stuck["correct"] = stuck["pred"] == stuck["answer"]
    text = interpret.robustness(robustness.permutation_summary(stuck), robustness.position_prior(stuck),
                                robustness.debiased_accuracy(stuck), robustness.calibration_summary(stuck))
    assert "picks position 1 most (1.00 of its answers" in text and "over-confident" in text
    right = orders.assign(scores=[[3.0 if i == a else 0.0 for i in range(4)] for a in orders["answer"]],
                          pred=orders["answer"], correct=True)
    text = interpret.robustness(robustness.permutation_summary(right), robustness.position_prior(right),
                                robustness.debiased_accuracy(right), robustness.calibration_summary(right))
    assert "no preference beyond where the answers are" in text and "100 % of 12 stories get the same concept" in text
    assert "under-confident" in text


def test_distractors_and_finetuning_and_parser_evidence():
    few = pd.DataFrame({"model": "m", "rule": ["R1", "R2"], "picks": [2, 1], "share": [2 / 3, 1 / 3],
                        "base_rate": [0.5, 0.5]})
    assert "too few to rank the rules" in interpret.distractors(few)
    from culturelab.percul import paper

    text = interpret.finetuning(paper.finetune_significance())
    assert "PersianMind v1.0 vs Llama 2 7B" in text and "below its base beyond the binomial noise" in text
    assert "Dorna Llama 3 8B vs Llama 3.1 8B" in text and "within the binomial noise" in text
    from culturelab import parsing_gold

    said = interpret.parser_evidence(parsing_gold.quality_table(["percul"]))
    assert said.startswith("Strict parsing, on ") and "held-out answers" in said and "(in-sample)" in said


def test_benchmark_says_how_invalid_answers_entered_the_score():
    """Under ``invalid_policy="exclude"`` the unscored answers are left out, not counted wrong (the text
    once said "count as wrong" whatever the policy, and printed "macro accuracy nan" for a model with
    no valid answer)."""
    half = _run(True).assign(valid=lambda d: d.index % 2 == 0,
                             parse_method=lambda d: np.where(d.index % 2 == 0, "json", "template_echo"))
    text = interpret.benchmark(summary(half, ["model", "method"], invalid_policy="exclude"), results=half,
                               invalid_policy="exclude")
    assert "could not be scored and are left out of the score" in text and "count as wrong" not in text
    echo = _run(False, parse_method="template_echo")
    text = interpret.benchmark(summary(echo, ["model", "method"], invalid_policy="exclude"), results=echo,
                               invalid_policy="exclude")
    assert "no answer left to score" in text and "nan" not in text


def test_models_says_overlaps_for_an_interval_across_the_papers_range():
    points = pd.DataFrame({"model": ["a", "b"], "macro": [0.064, 0.717]})
    row = pd.DataFrame({"model": ["m"], "method": "loglikelihood", "macro": [0.06], "macro_ci_low": [0.0],
                        "macro_ci_high": [0.17], "n": [34], "n_categories": [11]})
    assert "Its interval overlaps the range" in interpret.models(row, points)


def test_distractors_reads_the_top_share_off_its_interval():
    """A top share above its base rate on a few picks is not "more than its frequency explains"."""
    t = pd.DataFrame({"model": "m", "rule": ["R1", "R2"], "picks": [7, 5], "share": [7 / 12, 5 / 12],
                      "base_rate": [0.5, 0.5]})
    text = interpret.distractors(t)
    assert "not distinguishable from its frequency" in text and "more than its frequency" not in text
    many = t.assign(picks=[70, 30], share=[0.7, 0.3])
    assert "more than its frequency explains" in interpret.distractors(many)


def test_translation_does_not_call_a_non_significant_test_no_difference():
    fa = ITEMS.assign(split=translation.PERSIAN, model="m", correct=True, valid=True)
    en = fa.assign(split=translation.ENGLISH, correct=np.arange(len(ITEMS)) != 0)  # one story flips
    both = pd.concat([fa, en], ignore_index=True)
    text = interpret.translation(translation.split_gap(summary(both, ["model", "split"])),
                                 translation.paired_outcomes(both))
    assert "no difference between the splits detectable at the 5 % level" in text
