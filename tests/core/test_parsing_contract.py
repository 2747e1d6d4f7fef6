"""The answer-parser contract shared by every paper (culturelab.parsing): verdicts, strict by default,
refusals in every language the papers use, reasoning stripped, the audit table, and the extraction
precision/recall measured on the hand-labelled answers (culturelab/parsing_gold)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from culturelab import parsing_gold
from culturelab.parsing import (
    CONFLICT,
    INVALID,
    LENIENT,
    REFUSAL,
    STRICT,
    VERDICTS,
    Parse,
    audit,
    extraction_quality,
    find_refusal,
    lenient_share,
    parse_choice,
    parse_order,
    strip_think,
    verdict_shares,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("<think>B?</think>C", "C"),
    ("<think>unclosed B", ""),
    ("Okay, the user wants B… or C.</think>\n\nC", "\n\nC"),  # a lone closing tag: everything before it goes
    ("We need C.</think>x</think>D", "D"),
    ("no reasoning", "no reasoning"),
    (None, ""),
])
def test_strip_think(text, expected):
    assert strip_think(text) == expected


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Unfortunately, I don't have information about this dish."),
    ("en", "I'm sorry, but I cannot answer that."),
    ("en", "As an AI, I cannot determine the answer."),
    ("en", "The answer is not available in the provided options."),
    ("zh", "抱歉，我无法回答这个问题。"),
    ("zh", "我不知道这道菜的原料。"),
    ("fa", "متأسفانه نمی‌توانم به این سؤال پاسخ دهم."),
    ("fa", "متاسفانه نميتوانم پاسخ دهم"),  # Arabic yeh, no ZWNJ
    ("tr", "Üzgünüm, bu soruya cevap veremem."),
    ("tr", "Maalesef bilmiyorum."),
    ("ar", "عذراً، لا أستطيع الإجابة على هذا السؤال."),
    ("he", "מצטער, אני לא יכול לענות על כך."),
    ("ru", "Извините, я не могу ответить на этот вопрос."),
    ("ko", "죄송합니다, 답변할 수 없습니다."),
    ("ja", "申し訳ありませんが、わかりません。"),
    ("hi", "क्षमा करें, मुझे नहीं पता।"),
    ("ur", "معذرت، مجھے نہیں معلوم۔"),
    ("id", "Maaf, saya tidak tahu jawabannya."),
    ("ha", "Yi hakuri, ban sani ba."),
])
def test_refusals_are_found_in_every_language_the_papers_use(lang, text):
    assert find_refusal(text), lang


@pytest.mark.parametrize("text", [
    "The food sorrel soup has the ingredients of sorrel.", "Rice, beans and pork.", '{"Choice Number": 3}',
    "In the story, the boy says he is sorry to his grandmother",  # "sorry" inside a story, not a refusal
    "قورمه‌سبزی با سبزی و لوبیا", "米饭、紫菜", "C, A, B",
])
def test_answers_are_not_refusals(text):
    assert find_refusal(text) == ""


def test_a_lenient_reading_is_kept_but_scored_only_on_request():
    p = Parse(2, LENIENT, "option_text")
    assert (p.valid, p.value, p.answer) == (False, None, 2)
    assert Parse(2, LENIENT, "option_text", lenient=True).value == 2
    assert Parse(2, STRICT, "letter").valid and not Parse(None, REFUSAL).valid and not Parse(None, INVALID).valid
    with pytest.raises(ValueError, match="verdict"):
        Parse(1, "maybe")


@pytest.mark.parametrize(("text", "answer", "verdict"), [
    ("C", 2, STRICT), ("(b)", 1, STRICT), ("Answer: D", 3, STRICT), ("The correct option is B.", 1, STRICT),
    ("**C**", 2, STRICT), ("A. Paris", 0, STRICT), ("A is the correct answer.", 0, STRICT), ("<think>A?</think>C", 2, STRICT),
    ("Let me see, A or B…</think>\nD", 3, STRICT),
    ("I'd go with C here.", 2, LENIENT),  # a letter inside prose
    ("Person B would say: D", 3, LENIENT),  # "Person B" is a speaker, not the answer
    ("saffron rice", 1, LENIENT),  # an option's text
    ("B or C", None, INVALID), ("A. bread\nB. saffron rice\nC. tea", None, INVALID),  # alternatives; echoed options
    ("a bowl of rice", None, INVALID), ("", None, INVALID), ("E", None, INVALID),
    ("I cannot answer that.", None, REFUSAL), ("抱歉，我无法回答。", None, REFUSAL),
])
def test_parse_choice_verdicts(text, answer, verdict):
    p = parse_choice(text, 4, ["bread", "saffron rice", "tea", "soup"])
    assert (p.answer, p.verdict) == (answer, verdict)
    assert p.index == (answer if verdict == STRICT else None)
    assert parse_choice(text, 4, ["bread", "saffron rice", "tea", "soup"], lenient=True).index == (
        answer if verdict in (STRICT, LENIENT) else None)


OPTIONS = ["Soak the rice for two hours", "Boil the rice in salted water", "Serve with tea", "Wash the pot"]


@pytest.mark.parametrize(("text", "answer"), [
    ("A. Boil the rice in salted water", (0, 1)),  # the letter says A, the text is B's
    ("Answer: C. Soak the rice for two hours.", (2, 0)),  # after an answer cue
    ("(D) boil the rice in salted water", (3, 1)),  # case and punctuation do not matter
    ("A. Boil the rice in sal\ufffd", (0, 1)),  # cut off by the token budget: the start of B's text
])
def test_a_letter_that_names_one_option_and_a_text_that_names_another_is_a_conflict(text, answer):
    for lenient in (False, True):  # never scored, in either mode
        p = parse_choice(text, 4, OPTIONS, lenient=lenient)
        assert (p.verdict, p.answer, p.valid, p.index) == (CONFLICT, answer, False, None)
    # the letter with its own text, cut or whole, or with no option's text, stays a strict answer
    for same in ("B. Boil the rice in salted water", "B. Boil the ri", "B. because it boils", "B. Boil"):
        assert parse_choice(same, 4, OPTIONS).verdict == STRICT and parse_choice(same, 4, OPTIONS).index == 1
    assert parse_choice(text, 4).verdict == STRICT  # without the options nothing can disagree with the letter


def test_conflicts_are_counted_wherever_verdicts_are_tallied():
    from culturelab.metrics.choice import accuracy_table
    from culturelab.tasks.mcq import score_generation

    class Fake:  # a model answering "A. <B's text>", "B. <B's text>" and "C"
        def generate(self, prompts, **kwargs):
            return ["A. Boil the rice in salted water", "B. Boil the rice in salted water", "C"]

    frame = pd.DataFrame({"prompt": ["p1", "p2", "p3"], "options": [OPTIONS] * 3, "answer": [0, 1, 2]})
    scored = score_generation(Fake(), frame)
    assert scored["parse_verdict"].tolist() == [CONFLICT, STRICT, STRICT]
    assert scored["correct"].tolist() == [False, True, True] and scored["pred"].tolist() == [-1, 1, 2]
    assert verdict_shares(scored)[CONFLICT].item() == pytest.approx(1 / 3)
    table = accuracy_table(scored)
    assert table["conflict_share"].item() == pytest.approx(1 / 3) and table["invalid_rate"].item() == pytest.approx(1 / 3)
    assert CONFLICT in VERDICTS and set(audit(scored, "parse_answer", n=1)["parse_verdict"]) == {CONFLICT, STRICT}


def test_parse_order_verdicts_and_strict_scoring_of_written_out_steps():
    steps = ["Boil the rice in salted water", "Wash the rice until clear", "Soak the rice for two hours"]
    text = "1. Wash the rice until the water is clear.\n2. Soak the rice for two hours.\n3. Boil the rice."
    strict, lenient = parse_order(text, 3, steps), parse_order(text, 3, steps, lenient=True)
    assert (strict.verdict, strict.answer, strict.order, strict.raw, strict.valid) == (LENIENT, [1, 2, 0], [], [], False)
    assert (lenient.order, lenient.valid) == ([1, 2, 0], True)
    assert parse_order("Üzgünüm, sıralamayı belirleyemiyorum.", 3).verdict == REFUSAL
    assert parse_order("I'm sorry, I cannot determine the order.", 3).verdict == REFUSAL
    assert parse_order("C, A, B", 3).verdict == STRICT and parse_order("C, A", 3).verdict == INVALID


def test_verdict_shares_and_lenient_share():
    t = pd.DataFrame({"m": ["a", "a", "a", "b"], "parse_verdict": [STRICT, LENIENT, REFUSAL, INVALID]})
    shares = verdict_shares(t, ["m"]).set_index("m")
    assert list(shares.columns) == [*VERDICTS, "n"]
    assert shares.loc["a", LENIENT] == pytest.approx(1 / 3) and shares.loc["b", INVALID] == 1.0
    assert verdict_shares(t)["n"].tolist() == [4]
    assert lenient_share([STRICT, LENIENT, None]) == 0.5 and math.isnan(lenient_share([]))


def test_audit_is_seeded_and_shows_every_verdict():
    t = pd.DataFrame({"raw_output": [f"answer {i}\nmore" for i in range(40)], "pred": range(40),
                      "parse_verdict": [STRICT] * 36 + [REFUSAL, LENIENT, CONFLICT, INVALID]})
    a, b = audit(t, "pred", n=5, seed=1), audit(t, "pred", n=5, seed=1)
    assert a.equals(b) and len(a) == 5 and set(a["parse_verdict"]) == set(VERDICTS)  # each verdict seen
    assert not audit(t, "pred", n=5, seed=2).equals(a)
    assert "⏎" in a["raw_output"].iloc[0] and list(a.columns) == ["raw_output", "pred", "parse_verdict"]
    assert audit(t.iloc[:0], "pred").empty


def _choice(row, lenient):
    return parse_choice(row["raw"], 4, lenient=lenient)


def test_extraction_quality_counts_items_and_modes():
    gold = pd.DataFrame({
        "raw": ["B", "Answer: C", "I'd go with D", "B or C", "I'm sorry", "A"],
        "expected": [1, 1, 3, None, None, 0],
        "verdict": [STRICT, STRICT, LENIENT, INVALID, REFUSAL, STRICT],
    })
    strict = extraction_quality(gold, _choice)
    # scored: B (right), C (wrong: the grader read B), A (right); expected: B, B, A (D is lenient)
    assert strict["precision"] == pytest.approx(2 / 3) and strict["recall"] == pytest.approx(2 / 3)
    assert strict["exact"] == pytest.approx(5 / 6)  # all but C: the unscored lenient D and the non-answers match
    assert strict["lenient_share"] == pytest.approx(1 / 6)
    assert strict["refusal_precision"] == 1.0 and strict["refusal_recall"] == 1.0
    assert strict["verdict_agreement"] == 1.0
    lenient = extraction_quality(gold, _choice, lenient=True)
    assert lenient["precision"] == pytest.approx(3 / 4) and lenient["recall"] == pytest.approx(3 / 4)


def test_extraction_quality_compares_lists_item_by_item():
    gold = pd.DataFrame({"raw": ["x", "y"], "expected": [["Rice", "beans"], ["pork"]], "verdict": [STRICT, STRICT]})
    answers = {"x": ["rice", "beans", "salt"], "y": None}
    q = extraction_quality(gold, lambda r, lenient: Parse(answers[r["raw"]], STRICT if answers[r["raw"]] else INVALID))
    assert q["precision"] == pytest.approx(2 / 3) and q["recall"] == pytest.approx(2 / 3)  # "Rice" = "rice"
    assert q["exact"] == 0.0 and q["verdict_agreement"] == 0.5


#: the bar each parser must reach on its labelled answers, strict mode (measured values in README.md)
BARS = {"percul": (0.95, 0.95), "choice": (0.95, 0.95), "order": (0.95, 0.95), "fmlama": (0.85, 0.85)}


@pytest.mark.parametrize("name", sorted(parsing_gold.PARSERS))
def test_each_parser_reaches_its_bar_on_the_labelled_answers(name):
    gold = parsing_gold.load(name)
    assert set(gold["verdict"]) <= set(VERDICTS) and gold["raw"].notna().all()
    q = parsing_gold.quality(name)
    precision, recall = BARS[name]
    assert q["precision"] >= precision and q["recall"] >= recall, q
    assert q["refusal_recall"] >= 0.9 or math.isnan(q["refusal_recall"]), q


def test_the_labelled_set_holds_at_least_200_real_answers():
    tables = [parsing_gold.load(n) for n in parsing_gold.PARSERS]
    real = sum(int((~t["source"].str.startswith("constructed")).sum()) for t in tables)
    assert real >= 200
    table = parsing_gold.quality_table()
    assert set(table["mode"]) == {"strict", "lenient"}
    assert len(table) == 2 * sum(t["split"].nunique() for t in tables)  # one row per parser, split and mode
    assert set(table["split"]) <= set(parsing_gold.SPLITS)


def test_generated_mcq_answers_carry_their_verdict_and_the_lenient_option():
    from culturelab.metrics.choice import accuracy_table
    from culturelab.tasks.mcq import score_generation

    class Fake:
        def generate(self, prompts, **kw):
            return ["B", "I'd say C", "Sorry, I cannot answer."]

    frame = pd.DataFrame({"prompt": ["p"] * 3, "options": [["x", "y", "z"]] * 3, "answer": [1, 2, 0]})
    strict = score_generation(Fake(), frame)
    assert strict["parse_verdict"].tolist() == [STRICT, LENIENT, REFUSAL]
    assert strict["parse_answer"].tolist() == [1, 2, None] and strict["pred"].tolist() == [1, -1, -1]
    assert score_generation(Fake(), frame, lenient=True)["correct"].tolist() == [True, True, False]
    assert accuracy_table(strict)["lenient_share"].tolist() == [pytest.approx(1 / 3)]
