"""Decoder-LLM answers: parser, lemmatizer, and the paper's gpt-3.5-turbo accuracies."""

from __future__ import annotations

import pytest

from culturelab import reported
from culturelab.fmlama import data as F
from culturelab.fmlama.generations import parse_answer, score_answers, score_generations


@pytest.mark.parametrize(("answer", "lang", "expected"), [
    ("The food sukiyaki has the ingredients of thinly sliced beef, tofu and a soy sauce-based sauce.", "en",
     ["beef", "tofu", "soy sauce-based sauce"]),
    ("The main ingredient in botamochi is sweet glutinous rice.", "en", ["sweet glutinous rice"]),
    ("rice; beans & pork / lard", "en", ["rice", "beans", "pork", "lard"]),
    ("The food rendang has the ingredients of meat (usually beef), coconut milk.", "en",
     ["meat", "beef", "coconut milk"]),
    ("美食香菇肉馅奶油酥盒是以香菇、肉馅、奶油和酥皮为主要原料制作的。", "zh", ["香菇", "肉馅", "奶油", "酥皮"]),
    ("糯米", "zh", ["糯米"]),
    ("主要原料是面粉以及鸡蛋", "zh", ["面粉", "鸡蛋"]),
    ("", "en", []),
    # small models: HTML, list markers and the echoed prompt are not ingredients
    ("The food tendon has the ingredients of tempura. Please fill the sentence.", "en", ["tempura"]),
    ("\n\nThe food yakisoba has the ingredients of [...]. Please fill the sentence.", "en", []),
    ("\n\n1. <strong>rice</strong> and beans", "en", ["rice", "beans"]),
    ("美食提拉米苏是以[]为主要原料制作的。请填充这个句子。", "zh", []),
])
def test_parser(answer, lang, expected):
    assert (parse_answer(answer, lang).value or []) == expected


def test_lenient_option_verdicts_and_lemmatized_matching():
    scored = score_answers(["... ingredients of potatoes and Onions.", "[c]", "I am not sure.", "Flan is a custard."],
                           [["potato"], ["rice"], ["egg"], ["custard"]], "en")
    assert scored["correct"].tolist() == [True, False, False, False]
    assert scored["valid"].tolist() == [True, True, False, False]  # "I am not sure." is a refusal
    assert scored["parse_verdict"].tolist() == ["strict", "strict", "refusal", "lenient"]
    lenient = score_answers(["Flan is a custard."], [["custard"]], "en", lenient=True)
    assert lenient[["valid", "correct"]].values.tolist() == [[True, True]]
    assert score_answers(["   "], [["egg"]], "zh")["valid"].tolist() == [False]
    with pytest.raises(ValueError, match="parsers exist"):
        parse_answer("x", "fr")


def test_sample_generations_per_group():
    g = F.load_generations("EN_en", data_source="sample")
    per_dish, table = score_generations(g, "EN_en", groups=F.CS_GROUPS)
    assert table["group"].tolist() == [*F.CS_GROUPS, "All"]
    assert table.set_index("group").loc["All", "n"] == 16
    by_dish = per_dish.set_index("dish")
    assert not by_dish.loc["jiaozi", "valid"] and not by_dish.loc["jiaozi", "correct"]  # "… of []."
    assert not by_dish.loc["satay", "correct"] and by_dish.loc["dal", "correct"]  # lentils → lentil
    assert table.set_index("group").loc["Italy", "accuracy"] == 100.0  # tomatoes → tomato; eggs → egg


@pytest.mark.parametrize(("setting", "paper"), [("EN_en", 47.64), ("ZH_zh", 20.28)])
def test_released_chatgpt_outputs_reproduce_the_paper(release_dir, setting, paper):
    table = reported.load("fmlama", "table13")
    assert table.set_index(["model", "setting", "group"]).loc[("gpt-3.5-turbo", setting, "All"), "value"] == paper
    g = F.load_generations(setting, instruction="full", context=False, data_source="local")
    assert len(g) == F.code_switching_sizes()["ALL"]
    _, acc = score_generations(g, setting, groups=F.CS_GROUPS)
    ours = acc.set_index("group")
    assert ours.loc["All", "accuracy"] == pytest.approx(paper, abs=1.0)
    assert ours["n"].drop("All").to_dict() == {k: F.code_switching_sizes()[k] for k in F.CS_GROUPS}


def test_reasoning_blocks_are_not_parsed_as_the_answer():
    answer = ("<think>Maybe it has the ingredients of sugar and salt.</think> "
              "The food poutine has the ingredients of french fries, gravy and cheese curds.")
    assert parse_answer(answer, "en").answer == ["french fries", "gravy", "cheese curds"]
