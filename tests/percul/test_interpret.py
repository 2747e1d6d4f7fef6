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
