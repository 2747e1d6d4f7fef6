"""The answer parser on adversarial outputs: every case returns a Choice, invalid ones are counted."""

from __future__ import annotations

import pandas as pd
import pytest

from culturelab.percul.parsing import INVALID_METHODS, VALID_METHODS, parse_answer, parse_report

OPTIONS = ["قیمه", "قورمه‌سبزی", "ته‌دیگ", "کلاه"]


@pytest.mark.parametrize(("text", "index", "method"), [
    ('{"Explanation": "…", "Choice Number": 2}', 1, "json"),
    # Persian digits, as a JSON string and as a bare token (not valid JSON)
    ('{"Explanation": "…", "Choice Number": "۱"}', 0, "json"),
    ('{"Explanation": "…", "Choice Number": ۲}', 1, "json_relaxed"),
    ('{"Explanation": "…", "Choice Number": ۳}', 2, "json_relaxed"),
    ('{"Explanation": "…", "Choice Number": ۴}', 3, "json_relaxed"),
    ("۴", 3, "digit"),
    ("پاسخ: ٣", 2, "digit"),  # Arabic-Indic three
    # "option 2" in Persian, with and without the ezafe
    ("گزینه ۲", 1, "digit"),
    ("گزینهٔ ۲ درست است زیرا داستان به آن اشاره دارد", 1, "digit"),
    # JSON in a code fence, with prose around it
    ('Here you go:\n```json\n{\n  "Explanation": "داستان درباره قورمه است",\n  "Choice Number": 3\n}\n```', 2, "json"),
    ("```\n{'Explanation': 'x', 'Choice Number': 4,}\n```", 3, "json_relaxed"),
    ('{\n  "Explanation": "x",\n  "Choice Number": 1', 0, "json_relaxed"),  # cut at the closing line
    ('{"choice_number": "گزینه ۳"}', 2, "json"),
    ("The answer is 2.", 1, "digit"),
    ("<think>maybe 3</think>۱)قیمه", 0, "digit"),
    ("به نظر من قورمه‌سبزی", 1, "option_text"),
    ("قورمه سبزی", 1, "option_text"),  # ZWNJ written as a space
    ('{"Explanation": "…", "Choice Number": "قورمه‌سبزی"}', 1, "json"),
])
def test_valid_answers(text, index, method):
    choice = parse_answer(text, OPTIONS)
    assert (choice.index, choice.method) == (index, method)
    assert choice.valid and method in VALID_METHODS


@pytest.mark.parametrize(("text", "method"), [
    # two numbers
    ("۲ یا ۳", "ambiguous"),
    ("1 or 2", "ambiguous"),
    ("گزینه ۱ و گزینه ۴ هر دو ممکن است", "ambiguous"),
    ('{"Choice Number": "2, 3"}', "ambiguous"),
    # refusals
    ("The answer is not available in the provided options", "refusal"),
    ("I'm sorry, but I cannot answer this question.", "refusal"),
    ("متأسفانه نمی‌توانم به این سؤال پاسخ دهم.", "refusal"),
    ("هیچ‌کدام از گزینه‌ها درست نیست", "refusal"),
    # other failures
    ('{"Explanation": "…", "Choice Number": 7}', "out_of_range"),
    ('{\n  "Explanation": <str>,\n  "Choice Number": <Sing Number 1 to 4>\n}', "template_echo"),
    ("", "empty"),
    ("در سال ۱۴۰۲ مادربزرگ به سفر رفت", "invalid"),
])
def test_invalid_answers_are_counted_not_crashing(text, method):
    choice = parse_answer(text, OPTIONS)
    assert choice.index is None and not choice.valid
    assert choice.method == method and method in INVALID_METHODS


def test_json_answer_beats_numbers_in_the_explanation():
    text = '{"Explanation": "گزینه ۳ غلط است و گزینه ۱ هم", "Choice Number": 2}'
    assert parse_answer(text, OPTIONS).index == 1


def test_nested_option_texts_prefer_the_longer_match():
    opts = ["کلاه", "کلاه نمدی", "عمامه", "کلاه پشمی بافتنی"]
    assert parse_answer("پاسخ کلاه نمدی است", opts).index == 1
    assert parse_answer("پاسخ کلاه نمدی است", opts, use_option_text=False).method == "invalid"


def test_parse_report_gives_the_share_of_each_parse_method():
    parsed = [parse_answer(t, OPTIONS) for t in ["۱", "نمی‌دانم", '{"Choice Number": 3}']]
    assert [p.index for p in parsed] == [0, None, 2] and [p.valid for p in parsed] == [True, False, True]
    report = parse_report(pd.DataFrame({"model": "m", "parse_method": [p.method for p in parsed]}))
    assert report.loc[0, "refusal"] == pytest.approx(1 / 3) and report.loc[0, "json"] == pytest.approx(1 / 3)
    assert report.loc[0, "n"] == 3
