"""The Figure 9 prompt, verbatim, and its variants."""

from __future__ import annotations

import pytest

from culturelab.percul.prompts import add_prompts, build_prompt, category_labels

OPTIONS = ["آفتابه", "پارچ مسی", "حوض", "ظرف آب"]

# Figure 9 of the paper (BENCH_PROMPT + RESPONSE_FORMAT_PROMPT after str.format)
GOLDEN_V1 = (
    "داستان کوتاه\n"
    "با توجه به متن بالا کدام\n"
    "شیء\n"
    "در فرهنگ یا زندگی روزمره ایرانی قابل برداشت است؟\n"
    "۱)آفتابه\n۲)پارچ مسی\n۳)حوض\n۴)ظرف آب\n"
    "Put your answer in this\n"
    "JSON and do not generate anything else, Your answer\n"
    "must be in Persian:\n"
    "{\n"
    '  "Explanation": <str>,\n'
    '  "Choice Number": <Sing Number 1 to 4>\n'
    "}\n"
)


def test_figure9_prompt_is_verbatim():
    assert build_prompt("داستان کوتاه", "Objects", OPTIONS) == GOLDEN_V1


def test_single_line_variant_and_no_json_question():
    p = build_prompt("S", "Appropriacy", OPTIONS, version="v2", with_response_format=False)
    assert p.splitlines()[1] == "با توجه به متن بالا کدام هنجار اجتماعی در فرهنگ یا زندگی روزمره ایرانی قابل برداشت است؟"
    assert "JSON" not in p
    assert "must be in Persian" not in build_prompt("S", "Foods", OPTIONS, answer_in_persian=False)


def test_english_template_and_label_overrides():
    p = build_prompt("A story.", "Visible Behavior", ["a", "b", "c", "d"], language="en")
    assert p.splitlines()[1] == "What type of Persian Visible Behavior can be inferred from this story?"
    assert p.splitlines()[2] == "1)a"
    assert category_labels("fa", {"Foods": "خوراک"})["Foods"] == "خوراک"
    with pytest.raises(ValueError, match="unknown categories"):
        category_labels("fa", {"Food": "x"})
    with pytest.raises(ValueError, match="prompt_version"):
        build_prompt("S", "Foods", OPTIONS, version="v9")


def test_braces_in_story_do_not_break_formatting():
    p = build_prompt("a {curly} story {0}", "Foods", OPTIONS)
    assert p.startswith("a {curly} story {0}\n")


def test_add_prompts_uses_each_rows_language():
    import pandas as pd

    t = pd.DataFrame({"story": ["s1", "s2"], "category": ["Foods", "Art"], "options": [OPTIONS, list("abcd")],
                      "split": ["original_persian", "gpt_english_translation"]})
    out = add_prompts(t)
    assert "غذا" in out["prompt"].iloc[0] and "Persian Art" in out["prompt"].iloc[1]
    assert out["question"].iloc[1].endswith("4)d\n")
