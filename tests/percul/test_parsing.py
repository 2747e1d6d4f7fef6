"""The answer parser under the parser contract: strict by default (the Figure 9 JSON), lenient readings
named and scored only on request, refusals counted, and no bare digit ever taken as the answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.percul.parsing import (
    INVALID_METHODS,
    LENIENT_METHODS,
    STRICT_METHODS,
    parse_answer,
    parse_report,
)

OPTIONS = ["قیمه", "قورمه‌سبزی", "ته‌دیگ", "کلاه"]


@pytest.mark.parametrize(("text", "index", "method"), [
    ('{"Explanation": "…", "Choice Number": 2}', 1, "json"),
    # Persian digits, as a JSON string and as a bare token (not valid JSON)
    ('{"Explanation": "…", "Choice Number": "۱"}', 0, "json"),
    ('{"Explanation": "…", "Choice Number": ۲}', 1, "json"),  # Persian digits read as numbers
    ('{"Explanation": "…", "Choice Number": ٣}', 2, "json"),  # Arabic-Indic three
    ('{"Explanation": "…", "Choice_Number": 4}', 3, "json"),
    ('{"توضیح": "…", "شماره گزینه": "۴"}', 3, "json"),  # the keys translated into Persian, as asked
    # JSON in a code fence, with prose around it
    ('Here you go:\n```json\n{\n  "Explanation": "داستان درباره قورمه است",\n  "Choice Number": 3\n}\n```', 2, "json"),
    ("```\n{'Explanation': 'x', 'Choice Number': 4,}\n```", 3, "json_relaxed"),
    ('{\n  "Explanation": "x",\n  "Choice Number": 1', 0, "json_relaxed"),  # cut at the closing line
    ('{"Explanation": "گزینه ۳ غلط است و گزینه ۱ هم", "Choice Number": 2}', 1, "json"),  # numbers in the text
    ("<think>maybe 3</think>\n{\"Choice Number\": 1}", 0, "json"),
    ("Let me think: option 3 fits.</think>{\"Choice Number\": 4}", 3, "json"),  # a lone closing tag
])
def test_strict_answers_are_the_paper_format(text, index, method):
    for lenient in (False, True):
        choice = parse_answer(text, OPTIONS, lenient=lenient)
        assert (choice.index, choice.method, choice.verdict) == (index, method, "strict")
    assert method in STRICT_METHODS


@pytest.mark.parametrize(("text", "index", "method"), [
    ("۴", 3, "digit"),  # the whole answer is a number
    ("(۲)", 1, "digit"),
    ("پاسخ: ٣", 2, "digit"),
    ("گزینه ۲", 1, "digit"),  # "option 2"
    ("گزینهٔ ۲ درست است زیرا داستان به آن اشاره دارد", 1, "digit"),
    ("The answer is 2.", 1, "digit"),
    ("۲)قورمه‌سبزی", 1, "digit"),  # one numbered option written out
    ("<think>maybe 3</think>۱)قیمه", 0, "digit"),
    ("به نظر من قورمه‌سبزی", 1, "option_text"),
    ("قورمه سبزی", 1, "option_text"),  # ZWNJ written as a space
    ('{"Explanation": "…", "Choice Number": "قورمه‌سبزی"}', 1, "json_key"),  # text instead of the number
    ('{"Explanation": "…", "Answer": 3}', 2, "json_key"),  # another key
    ('{"choice_number_fa": "x", "گزینه": "۳"}', 2, "json_key"),
])
def test_lenient_readings_are_named_and_scored_only_on_request(text, index, method):
    strict = parse_answer(text, OPTIONS)
    assert (strict.verdict, strict.method, strict.answer, strict.index, strict.valid) == (
        "lenient", method, index, None, False)
    lenient = parse_answer(text, OPTIONS, lenient=True)
    assert (lenient.index, lenient.valid) == (index, True)
    assert method in LENIENT_METHODS


@pytest.mark.parametrize(("text", "method"), [
    # a bare digit inside prose is never the answer (issue 22)
    ("این داستان مربوط به ۲ خواهر است", "invalid"),
    ('{"Explanation": "در این داستان ۳ نفر', "invalid"),  # an explanation cut after "۳ نفر"
    ("۱)قیمه\n۲)قورمه‌سبزی\n۳)ته‌دیگ\n۴)کلاه", "option_echo"),  # the option list echoed
    ("در سال ۱۴۰۲ مادربزرگ به سفر رفت", "invalid"),
    # two numbers
    ("۲ یا ۳", "ambiguous"),
    ("1 or 2", "ambiguous"),
    ("گزینه ۱ و گزینه ۴ هر دو ممکن است", "ambiguous"),
    ('{"Choice Number": "2, 3"}', "ambiguous"),
    # refusals, in English and Persian (also in Arabic letter forms)
    ("The answer is not available in the provided options", "refusal"),
    ("I'm sorry, but I cannot answer this question.", "refusal"),
    ("متأسفانه نمی‌توانم به این سؤال پاسخ دهم.", "refusal"),
    ("متاسفانه نميتوانم پاسخ دهم", "refusal"),
    ("هیچ‌کدام از گزینه‌ها درست نیست", "refusal"),
    # a refusal inside the JSON, its choice out of range (0, 5)
    ('{"Explanation": "متأسفانه نمی‌توانم به این سؤال پاسخ دهم.", "Choice Number": 0}', "refusal"),
    ('{"Explanation": "The answer is not available in the provided options", "Choice Number": 5}', "refusal"),
    # other failures
    ('{"Explanation": "…", "Choice Number": 7}', "out_of_range"),
    ('{\n  "Explanation": <str>,\n  "Choice Number": <Sing Number 1 to 4>\n}', "template_echo"),
    ('{\n  "Explanation": <str>,\n  "Choice Number": <Sing Number 1 to 4>', "template_echo"),
    ("", "empty"),
    ("</think>", "empty"),
])
def test_non_answers_are_counted_not_scored_in_either_mode(text, method):
    for lenient in (False, True):
        choice = parse_answer(text, OPTIONS, lenient=lenient)
        assert (choice.index, choice.valid, choice.method) == (None, False, method)
        assert choice.verdict == ("refusal" if method == "refusal" else "invalid")
    assert method in INVALID_METHODS


def test_nested_option_texts_prefer_the_longer_match():
    opts = ["کلاه", "کلاه نمدی", "عمامه", "کلاه پشمی بافتنی"]
    assert parse_answer("پاسخ کلاه نمدی است", opts, lenient=True).index == 1
    assert parse_answer("پاسخ کلاه نمدی است", opts).index is None


def test_parse_report_gives_the_share_of_each_parse_method():
    parsed = [parse_answer(t, OPTIONS) for t in ["۱", "نمی‌دانم", '{"Choice Number": 3}']]
    assert [p.answer for p in parsed] == [0, None, 2] and [p.valid for p in parsed] == [False, False, True]
    report = parse_report(pd.DataFrame({"model": "m", "parse_method": [p.method for p in parsed]}))
    assert report.loc[0, "refusal"] == pytest.approx(1 / 3) and report.loc[0, "json"] == pytest.approx(1 / 3)
    assert report.loc[0, "n"] == 3


def test_summary_reports_the_lenient_share_and_rescoring_reads_lenient_answers():
    from culturelab.percul.scoring import rescore, summary

    t = pd.DataFrame({"model": "m", "method": "generate", "category": ["Foods", "Foods", "Art"],
                      "raw_output": ['{"Choice Number": 2}', "۲", "متأسفانه نمی‌توانم"], "options": [OPTIONS] * 3,
                      "answer": [1, 1, 0]})
    strict = rescore(t, lenient=False)
    assert strict["parse_verdict"].tolist() == ["strict", "lenient", "refusal"]
    assert strict["correct"].tolist() == [True, False, False]
    s = summary(strict, ["model"]).iloc[0]
    assert s["lenient_share"] == pytest.approx(1 / 3) and s["micro"] == pytest.approx(1 / 3)
    lenient = summary(rescore(t), ["model"]).iloc[0]
    assert lenient["micro"] == pytest.approx(2 / 3) and lenient["lenient_share"] == pytest.approx(1 / 3)
    loglik = summary(t.assign(method="loglik-text-mean", correct=True, valid=True).drop(columns="raw_output"),
                     ["model"]).iloc[0]
    assert np.isnan(loglik["lenient_share"])  # nothing parsed


TEMPLATE_OPEN = '{\n  "Explanation": <str>,\n  "Choice Number": <Sing Number 1 to 4>'


@pytest.mark.parametrize("text", [
    # issue 30, item 11: the placeholder removed left the key dangling, and the relaxed pattern crossed the line
    TEMPLATE_OPEN + "\n۱)قیمه\n۲)قورمه‌سبزی\n۳)ته‌دیگ\n۴)کلاه",  # the echoed option list after the skeleton
    TEMPLATE_OPEN + "\n3 نفر در داستان حضور دارند",  # a digit in prose after the skeleton
    # neighbours: the key alone with a number on the next line, the range copied, the placeholder quoted
    '"Choice Number":\n\n۴ روز بعد مسافر برگشت',
    '"Choice Number": <Sing Number 1 to 4>\n2 پسر و 1 دختر',
    '{"Explanation": <str>, "Choice Number": 1 to 4}',
    '{"Explanation": <str>, "Choice Number": [1-4]}',
    '{"Explanation": "<str>", "Choice Number": "<Sing Number 1 to 4>"}',
])
def test_a_placeholder_or_a_line_break_never_yields_a_choice(text):
    for lenient in (False, True):
        choice = parse_answer(text, OPTIONS, lenient=lenient)
        assert (choice.index, choice.answer, choice.valid) == (None, None, False), (text, choice)


@pytest.mark.parametrize(("text", "index"), [
    ('{"Explanation": "…", "Choice Number": 3\n}', 2),  # the number on the key's line, the brace on the next
    ('"Choice Number": ۳', 2),
    (TEMPLATE_OPEN + '\n}\n{\n  "Explanation": "ته‌دیگ",\n  "Choice Number": 3\n}', 2),  # skeleton, then filled
])
def test_a_choice_next_to_those_shapes_is_still_read_strictly(text, index):
    choice = parse_answer(text, OPTIONS)
    assert (choice.index, choice.verdict) == (index, "strict"), choice


@pytest.mark.parametrize(("text", "index", "verdict"), [
    # option numbers written as words: strict as the JSON's value, lenient alone or after "option"
    ('{"Explanation": "…", "Choice Number": "سه"}', 2, "strict"),
    ('{"Explanation": "…", "Choice Number": "گزینه دوم"}', 1, "strict"),
    ('{"Explanation": "…", "Choice Number": "four"}', 3, "strict"),
    ("سه", 2, "lenient"),
    ("پاسخ: گزینهٔ سوم", 2, "lenient"),
    ("The correct answer is the second option.", 1, "lenient"),
    # after an echoed option list, an answer cue is still read
    ("۱)قیمه\n۲)قورمه‌سبزی\n۳)ته‌دیگ\n۴)کلاه\nپاسخ: ۳", 2, "lenient"),
    # ... and never where a number word is prose, or the number disagrees with the option named beside it
    ("سه نفر در آشپزخانه بودند.", None, "invalid"),
    ("The answer is one of the options above.", None, "invalid"),
    ('{"Explanation": "…", "Choice Number": "سه یا چهار"}', None, "invalid"),
    ('{"Explanation": "…", "Choice Number": "۳) قیمه"}', None, "invalid"),
    ('{"Explanation": "…", "Choice Number": 3, "Answer": "قیمه"}', None, "invalid"),
    ("گزینه ۲: ته‌دیگ", None, "invalid"),
    ("Answer: 2 (کلاه)", None, "invalid"),
    ('{"Explanation": "قیمه یا شاید کوفته"}', None, "invalid"),  # one option named, an alternative beside it
    # alternatives in words, as "۲ یا ۳" (once read as the first of the two) ...
    ("گزینه دو یا سه", None, "invalid"),
    ("Option two or three", None, "invalid"),
    ("The answer is the second or third option.", None, "invalid"),
    # ... but a number word in prose beside a cued answer is no alternative
    ("پاسخ: ۳. این غذا یک یا دو بار در سال پخته می‌شود", 2, "lenient"),
])
def test_number_words_and_disagreeing_numbers(text, index, verdict):
    choice = parse_answer(text, OPTIONS, lenient=True)
    assert (choice.index, choice.verdict) == (index, verdict), choice
    if verdict == "invalid":
        assert parse_answer(text, OPTIONS).answer is None
