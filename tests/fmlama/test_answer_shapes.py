"""The decoder-answer parser on the shapes chat models really answer in (lists, markdown,
refusals, reasoning blocks, full-width punctuation, mixed scripts, the verbose chat shapes of
issue 22), and on the released gpt-3.5-turbo answers."""

from __future__ import annotations

import itertools
import json

import pytest

from culturelab import parsing_gold
from culturelab.fmlama import data as F
from culturelab.fmlama.generations import parse_answer, score_answers, score_generations

SHAPES = [
    # plain sentences and the echoed template
    ("The food poutine has the ingredients of french fries, gravy and cheese curds.", "en",
     ["french fries", "gravy", "cheese curds"]),
    ("The food pho has the ingredients of rice noodles.", "en", ["rice noodles"]),
    ("rice, beans, pork", "en", ["rice", "beans", "pork"]),
    ("Rice.", "en", ["Rice"]),
    ("The main ingredients are flour, butter and sugar.", "en", ["flour", "butter", "sugar"]),
    ("Tiramisu includes mascarpone, coffee and ladyfingers.", "en", ["mascarpone", "coffee", "ladyfingers"]),
    ("The food x has the ingredients of eggs; milk; flour.", "en", ["eggs", "milk", "flour"]),
    ("The food x has the ingredients of rice，beans，pork.", "en", ["rice", "beans", "pork"]),
    ("\"tomatoes, mozzarella and basil\"", "en", ["tomatoes", "mozzarella", "basil"]),
    # numbered and bulleted lists under an introductory line
    ("The food poutine has the ingredients of:\n1. French fries\n2. Gravy", "en", ["French fries", "Gravy"]),
    ("The main ingredients of poutine are:\n1. French fries\n2. Gravy\n3. Cheese curds", "en",
     ["French fries", "Gravy", "Cheese curds"]),
    ("Ingredients:\n- rice\n- beans\n- pork", "en", ["rice", "beans", "pork"]),
    ("Ingredients:\n* rice\n* beans", "en", ["rice", "beans"]),
    ("Ingredients:\n• rice\n• beans", "en", ["rice", "beans"]),
    ("Ingredients:\n1) rice\n2) beans", "en", ["rice", "beans"]),
    ("Ingredients:\na. rice\nb. beans", "en", ["rice", "beans"]),
    ("Ingredients:\n\n1. rice\n\n2. beans\n\nEnjoy!", "en", ["rice", "beans"]),
    ("Ingredients:\n1. rice\n2. beans\nThese make a hearty dish.\n- not this", "en", ["rice", "beans"]),
    ("Sure! Here are the ingredients of paella:\n1. Rice\n2. Saffron\n3. Chicken", "en",
     ["Rice", "Saffron", "Chicken"]),
    ("1. rice\n2. beans\n3. pork", "en", ["rice", "beans", "pork"]),
    ("- rice\n- beans", "en", ["rice", "beans"]),
    ("Ingredients:\nrice, beans and pork", "en", ["rice", "beans", "pork"]),
    # markdown
    ("**Ingredients:**\n- **Rice** – the base\n- **Beans**: black beans", "en", ["Rice", "Beans"]),
    ("## Ingredients\n\nThe food x has the ingredients of:\n1. **Flour**\n2. **Eggs**", "en", ["Flour", "Eggs"]),
    ("The food x has the ingredients of **rice** and **beans**.", "en", ["rice", "beans"]),
    ("Ingredients:\n1. Salt and pepper\n2. Olive oil - extra virgin", "en", ["Salt", "pepper", "Olive oil"]),
    ("`rice`, `beans`", "en", ["rice", "beans"]),
    # refusals and non-answers
    ("I'm sorry, but I don't know the ingredients of beika.", "en", []),
    ("Sorry, I cannot help with that.", "en", []),
    ("I am not sure what this dish is.", "en", []),
    ("As an AI, I don't have access to recipes.", "en", []),
    ("", "en", []),
    ("   \n  ", "en", []),
    ("The food yakisoba has the ingredients of [...]. Please fill the sentence.", "en", []),
    ("The food x has the ingredients of .\n\nflour, miso", "en", []),
    # reasoning blocks
    ("<think>Maybe sugar and salt.</think> The food poutine has the ingredients of fries and gravy.", "en",
     ["fries", "gravy"]),
    ("<think>\nLet me list: 1. sugar\n2. salt\n</think>\n\nIngredients:\n1. fries\n2. gravy", "en",
     ["fries", "gravy"]),
    ("<think>hmm</think>rice", "en", ["rice"]),
    # HTML
    ("<p>The food x has the ingredients of <b>rice</b> and beans.</p>", "en", ["rice", "beans"]),
    # Chinese: the echoed template, cues, lists and full-width punctuation
    ("美食麻婆豆腐是以豆腐、牛肉末和辣椒为主要原料制作的。", "zh", ["豆腐", "牛肉末", "辣椒"]),
    ("主要原料有：\n1. 米饭", "zh", ["米饭"]),
    ("主要原料有：\n1. 米饭\n2. 鸡蛋\n3. 葱", "zh", ["米饭", "鸡蛋", "葱"]),
    ("主要原料是面粉以及鸡蛋", "zh", ["面粉", "鸡蛋"]),
    ("主要原料包括：猪肉、白菜。", "zh", ["猪肉", "白菜"]),
    ("主要食材为：\n- 牛肉\n- 土豆", "zh", ["牛肉", "土豆"]),
    ("主要成分有：\n1．糯米\n2．红豆", "zh", ["糯米", "红豆"]),
    ("主要原料有：\n（1）面粉\n（2）白糖", "zh", ["面粉", "白糖"]),
    ("主要原料有：\n1. **米饭**：主食\n2. **紫菜**：包裹用", "zh", ["米饭", "紫菜"]),
    ("糯米", "zh", ["糯米"]),
    ("「糯米」和「红豆」", "zh", ["糯米", "红豆"]),
    ("美食提拉米苏是以[]为主要原料制作的。请填充这个句子。", "zh", []),
    ("抱歉，我不知道这道菜。", "zh", []),
    ("我不确定这道菜的原料。", "zh", []),
    ("<think>想一想……</think>美食饺子是以面粉、猪肉和白菜为主要原料制作的。", "zh", ["面粉", "猪肉", "白菜"]),
    # mixed scripts
    ("美食寿司是以rice、紫菜为主要原料制作的。", "zh", ["rice", "紫菜"]),
    ("The food jiaozi has the ingredients of 面粉 and pork.", "en", ["面粉", "pork"]),
    ("The food x has the ingredients of tofu (豆腐), soy sauce.", "en", ["tofu", "豆腐", "soy sauce"]),
    # parenthesised remarks: ingredients are read, preparation is not
    ("The food rendang has the ingredients of meat (usually beef), coconut milk.", "en", ["meat", "beef", "coconut milk"]),
    ("The food x has the ingredients of rice (cooked), eggs (2, beaten).", "en", ["rice", "eggs"]),
    ("醋米饭、海鲜（如生鱼片、虾）等。", "zh", ["醋米饭", "海鲜", "生鱼片", "虾"]),
    ("美食火腿吐司是以面包为主要原料制作的。（注：此处可能有多个正确答案）", "zh", ["面包"]),
    # the list ends where the sentence goes on about something else
    ("The food Baked Alaska has the ingredients of ice cream, sponge cake, and meringue, and it is flambéed.", "en",
     ["ice cream", "sponge cake", "meringue"]),
    ("The main ingredients in a St. Honoré cake are puff pastry and whipped cream.", "en",
     ["puff pastry", "whipped cream"]),
    ("面粉、鸡蛋、牛奶是制作美食可丽饼的常用原料。", "zh", ["面粉", "鸡蛋", "牛奶"]),
]

# issue 22's verbose chat shapes, one by one: (answer, lang, ingredients read, verdict)
ISSUE_SHAPES = [
    ("The answer is: rice and beans.", "en", ["rice", "beans"], "strict"),
    ("1. **Beef** (thinly sliced)", "en", ["Beef"], "strict"),
    ("I think it's made from rice, but maybe glutinous rice.", "en", ["rice", "glutinous rice"], "strict"),
    ("Pho is a Vietnamese noodle soup. The ingredients are rice noodles, beef and herbs.", "en",
     ["rice noodles", "beef", "herbs"], "strict"),
    ("The food moussaka has the ingredients of eggplant. Other common ingredients are minced meat and tomatoes.",
     "en", ["eggplant", "minced meat", "tomatoes"], "strict"),
    ("Unfortunately, I don't have information about the ingredients of beika.", "en", None, "refusal"),
    ("米饭（醋饭）", "zh", ["米饭", "醋饭"], "strict"),
    ("答案：猪肉、白菜", "zh", ["猪肉", "白菜"], "strict"),
    ("**Ingredients:** tomato, mozzarella, basil", "en", ["tomato", "mozzarella", "basil"], "strict"),
    # a description without any ingredient cue is only a lenient reading
    ("Pho is a Vietnamese noodle soup.", "en", ["Vietnamese noodle soup"], "lenient"),
    ("Okay, the dish has rice.</think>\n\nThe food x has the ingredients of noodles.", "en", ["noodles"], "strict"),
]


# issue 30: a chat opener is no ingredient, a negated cue names none, "unknown" is a refusal
ISSUE30_SHAPES = [
    ("Sure! The food poutine has the ingredients of fries and gravy.", "en", ["fries", "gravy"], "strict"),
    ("Sure! The food pho is a dish.", "en", None, "invalid"),
    ("Certainly! Here are the ingredients of paella:\n1. Rice\n2. Saffron", "en", ["Rice", "Saffron"], "strict"),
    ("The food bigos does not have the ingredients of pork.", "en", None, "invalid"),
    ("The food x doesn't have the ingredients of pork.", "en", None, "invalid"),
    ("The food x has no ingredients of pork; it has the ingredients of beef.", "en", ["beef"], "strict"),
    ("The food x has the ingredients of rice, not wheat.", "en", ["rice"], "strict"),
    ("美食粽子不是以猪肉为主要原料制作的。", "zh", None, "invalid"),
    ("美食无锡排骨是以猪肉为主要原料制作的。", "zh", ["猪肉"], "strict"),  # 无 in a dish name is no negation
    ("unknown", "en", None, "refusal"),
    ("Unknown.", "en", None, "refusal"),
    ("The food x has the ingredients of unknown.", "en", None, "refusal"),
    ("未知", "zh", None, "refusal"),
    # "no" in a dish name (the Japanese particle, the Portuguese article) is no negation: Kaki no tane is one of
    # the 508 code-switching dishes, whose released EN_en answers all name its gold ingredient
    ("The food Kaki no tane has the ingredients of rice crackers and peanuts.", "en", ["rice crackers", "peanuts"],
     "strict"),
    ("In Brazil, the food Pato no tucupi has the ingredients of duck.", "en", ["duck"], "strict"),
    ("The food x has no known ingredients of pork.", "en", None, "invalid"),
]


@pytest.mark.parametrize(("answer", "lang", "expected", "verdict"), ISSUE30_SHAPES)
def test_openers_negations_and_unknown(answer, lang, expected, verdict):
    parsed = parse_answer(answer, lang)
    assert (parsed.answer, parsed.verdict) == (expected, verdict)


def test_ingredients_are_matched_case_insensitively_after_lemmatizing():
    """simplemma keeps the case of words it does not know ("Peanuts"): folding comes first."""
    scored = score_answers(["Peanuts", "The food x has the ingredients of Tomatoes.", "SPAM and rice"],
                           [["peanut"], ["tomato"], ["Spam"]], "en")
    assert scored["correct"].tolist() == [True, True, True]


def test_parser_quality_is_reported_for_development_and_held_out_answers_apart():
    table = parsing_gold.quality_table(["fmlama"], modes=[False]).set_index("split")
    assert list(table.index) == ["held-out", "dev"]
    pooled = parsing_gold.quality("fmlama")
    held = table.loc["held-out"]
    assert held["n"] == 42 and held["n"] + table.loc["dev", "n"] == pooled["n"]
    # the held-out answers alone read worse than the pool the notebook printed before
    assert held["precision"] < pooled["precision"] and held["recall"] < pooled["recall"] and held["exact"] < 0.9

def test_the_table_is_large():
    assert len(SHAPES) >= 50


@pytest.mark.parametrize(("answer", "lang", "expected"), SHAPES)
def test_answer_shape(answer, lang, expected):
    parsed = parse_answer(answer, lang)
    assert (parsed.value or []) == expected
    assert parsed.valid == bool(expected)


@pytest.mark.parametrize(("answer", "lang", "expected", "verdict"), ISSUE_SHAPES)
def test_issue_shape(answer, lang, expected, verdict):
    parsed = parse_answer(answer, lang)
    assert (parsed.answer, parsed.verdict) == (expected, verdict)
    assert parse_answer(answer, lang, lenient=True).value == expected


# Correct answers per released gpt-3.5-turbo variant under this parser. The comma-and-"and" split it
# replaced (issue 22) counted 247, 241, 211, 223, 216, 180 (English) and 103, 97, 108, 85, 111, 102
# (Chinese) in the same order: the gains are ingredients a grader reads in "such as" lists, parentheses,
# alternatives, after articles and in later sentences. A parser change may move each by at most one dish;
# more needs the labelled answers' verdict (culturelab/parsing_gold) and new numbers here. English +1 each
# (review of round 30): "Kaki no tane" is a dish name, not a negation; its answers name its gold peanuts.
GRADER_PARSER = {
    "EN_en/WC/full/False": 265, "EN_en/WC/full/True": 274, "EN_en/WC/one/False": 215,
    "EN_en/WC/one/True": 232, "EN_en/QA/one/False": 245, "EN_en/QA/one/True": 220,
    "ZH_zh/WC/full/False": 104, "ZH_zh/WC/full/True": 99, "ZH_zh/WC/one/False": 108,
    "ZH_zh/WC/one/True": 86, "ZH_zh/QA/one/False": 141, "ZH_zh/QA/one/True": 139,
}


def test_released_chatgpt_rescoring_is_pinned(release_dir):
    moved = {}
    for setting, prompt, instruction, context in itertools.product(("EN_en", "ZH_zh"), F.PROMPTS, F.INSTRUCTIONS,
                                                                     (False, True)):
        if prompt == "QA" and instruction != "one":
            continue
        g = F.load_generations(setting, prompt=prompt, instruction=instruction, context=context,
                               data_source="local")
        per_dish, _ = score_generations(g, setting)
        key = f"{setting}/{prompt}/{instruction}/{context}"
        moved[key] = int(per_dish["correct"].sum()) - GRADER_PARSER[key]
    assert len(moved) == len(GRADER_PARSER)
    assert all(abs(d) <= 1 for d in moved.values()), json.dumps(moved)
