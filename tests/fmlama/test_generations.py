"""Decoder-LLM answers: parser, lemmatizer, and the paper's gpt-3.5-turbo accuracies."""

from __future__ import annotations

import pandas as pd
import pytest

from culturelab import reported
from culturelab.fmlama import data as F
from culturelab.fmlama.generations import (
    accuracy_by_group,
    paper_reading,
    parse_answer,
    reading_gaps,
    score_answers,
    score_generations,
)


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
    # "[c]" is a placeholder, not an ingredient; "I am not sure." is a refusal
    assert scored["valid"].tolist() == [True, False, False, False]
    assert scored["parse_verdict"].tolist() == ["strict", "invalid", "refusal", "lenient"]
    lenient = score_answers(["Flan is a custard."], [["custard"]], "en", lenient=True)
    assert lenient[["valid", "correct"]].values.tolist() == [[True, True]]
    table = accuracy_by_group(scored.assign(group=["A", "A", "B", "B"]))
    assert table["lenient"].tolist() == [0.0, 0.5, 0.25]  # A, B, All
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


# our strict parser reads every ingredient an answer names (a human grader's reading, measured on
# culturelab/parsing_gold): in English it counts more dishes than Table 13 (why is not known: the authors'
# parser is not released); in Chinese it lands within a point.
@pytest.mark.parametrize(("setting", "paper", "above"), [("EN_en", 47.64, 5.0), ("ZH_zh", 20.28, 1.0)])
def test_released_chatgpt_outputs_beside_the_paper(release_dir, setting, paper, above):
    table = reported.load("fmlama", "table13")
    assert table.set_index(["model", "setting", "group"]).loc[("gpt-3.5-turbo", setting, "All"), "value"] == paper
    g = F.load_generations(setting, instruction="full", context=False, data_source="local")
    assert len(g) == F.code_switching_sizes()["ALL"]
    _, acc = score_generations(g, setting, groups=F.CS_GROUPS)
    ours = acc.set_index("group")
    assert paper - 1.0 <= ours.loc["All", "accuracy"] <= paper + above
    assert ours["n"].drop("All").to_dict() == {k: F.code_switching_sizes()[k] for k in F.CS_GROUPS}


def test_reasoning_blocks_are_not_parsed_as_the_answer():
    answer = ("<think>Maybe it has the ingredients of sugar and salt.</think> "
              "The food poutine has the ingredients of french fries, gravy and cheese curds.")
    assert parse_answer(answer, "en").answer == ["french fries", "gravy", "cheese curds"]


# ------------------------------------------------------------------ the paper's reading (issue 30, item 2)
def test_the_paper_reading_is_the_slot_split_on_commas_and_and():
    assert paper_reading("The food x has the ingredients of [rice, beans and pork].", "en").answer == [
        "rice", "beans", "pork"]
    assert paper_reading("Sure! Rice.", "en").answer == ["Sure! Rice"]  # no cue list, no opener rule
    assert paper_reading("美食x是以猪肉、白菜和面粉为主要原料制作的。", "zh").answer == ["猪肉", "白菜", "面粉"]
    assert paper_reading("面粉", "zh").answer == ["面粉"] and paper_reading("  ", "en").verdict == "invalid"
    # matched as written (Appendix C names lemmatizing, no case folding); ours folds case
    answers, gold = ["The food x has the ingredients of Peanuts."], [["peanut"]]
    assert score_answers(answers, gold, "en", reading="paper")["correct"].tolist() == [False]
    assert score_answers(answers, gold, "en")["correct"].tolist() == [True]


#: correct dishes (of 508) under the paper's reading, per released variant (WC prompt): EN_en, ZH_zh
PAPER_READING = {("EN_en", "full", False): 246, ("EN_en", "full", True): 241, ("EN_en", "one", False): 210,
                 ("EN_en", "one", True): 215, ("ZH_zh", "full", False): 104, ("ZH_zh", "full", True): 97,
                 ("ZH_zh", "one", False): 108, ("ZH_zh", "one", True): 82}


@pytest.mark.parametrize(("setting", "instruction", "context"), list(PAPER_READING))
def test_the_paper_reading_lands_near_the_authors_tables(release_dir, setting, instruction, context):
    g = F.load_generations(setting, instruction=instruction, context=context, data_source="local")
    paper_way, _ = score_generations(g, setting, reading="paper")
    assert int(paper_way["correct"].sum()) == PAPER_READING[(setting, instruction, context)]
    theirs = F.load_chatgpt_table(instruction=instruction, context=context, data_source="local")
    reported_all = theirs.set_index(["setting", "group"]).loc[(setting, "All"), "value"]
    assert abs(100 * paper_way["correct"].mean() - reported_all) <= 1.5  # every variant within 1.5 points


@pytest.mark.parametrize("setting", ["EN_en", "ZH_zh"])
def test_table13_the_paper_reading_within_a_point_and_the_strict_gap_beside_it(release_dir, setting):
    g = F.load_generations(setting, data_source="local")
    accuracy = pd.concat([score_generations(g, setting, groups=F.CS_GROUPS, reading=how)[1]
                          for how in ("strict", "paper")], ignore_index=True)
    table13 = reported.load("fmlama", "table13").query("model == 'gpt-3.5-turbo'")
    gaps = reading_gaps(accuracy, table13).set_index("setting").loc[setting]
    assert abs(gaps["paper − reported"]) <= 1.0, gaps.to_dict()
    assert gaps["strict − reported"] == pytest.approx(gaps["strict"] - gaps["reported"]) and gaps["n"] == 508
    if setting == "EN_en":  # our parser reads more named ingredients than the paper's counted
        assert gaps["strict − reported"] > 3 > 1 > gaps["paper − reported"]
