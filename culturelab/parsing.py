"""Model text → answers, under one contract for every paper.

Every parser returns a :class:`Parse`: the ``answer`` it read, a ``verdict`` and the ``method`` (the
rule that read it). The verdict is one of

* ``strict`` — the answer is in the format the paper's prompt asks for and the paper's rule reads it;
* ``lenient`` — an answer can be read, but only by a rule beyond the paper's (an option's text instead of
  its number, a lone digit, steps written out instead of their letters …);
* ``conflict`` — the answer names one option by its label and another by its text ("A. <option B's text>"):
  it says two things, so it is never scored, in either mode;
* ``refusal`` — the model declines ("I'm sorry…", "抱歉", "متأسفانه نمی‌توانم…", any language the papers use);
* ``invalid`` — nothing a grader could score.

Parsers are **strict by default**: a lenient reading is kept in ``answer`` (so an audit shows it) but
counts as an answer (``valid``) only when the parser was called with ``lenient=True``. Whatever the mode,
the share of lenient verdicts (:func:`verdict_shares`) is reported beside every score, so a reader sees
how much the choice matters. :func:`extraction_quality` measures a parser against hand-labelled answers
(``culturelab/parsing_gold``); :func:`audit` shows a seeded sample of raw answers, their parse and verdict.

>>> parse_choice("The answer is (C).", n_options=4).index
2
>>> p = parse_choice("saffron rice", 3, ["bread", "saffron rice", "tea"]); p.verdict, p.index
('lenient', None)
>>> parse_choice("saffron rice", 3, ["bread", "saffron rice", "tea"], lenient=True).index
1
>>> parse_order("The order is: C, A, B", n=3).order
[2, 0, 1]
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process
from rapidfuzz.utils import default_process

LETTERS = string.ascii_uppercase
STRICT, LENIENT, CONFLICT, REFUSAL, INVALID = "strict", "lenient", "conflict", "refusal", "invalid"
#: the verdicts of :class:`Parse`, from best to worst
VERDICTS = (STRICT, LENIENT, CONFLICT, REFUSAL, INVALID)

_THINK = re.compile(r"<think>.*?(</think>|$)", flags=re.S | re.I)
_CLOSE_THINK = "</think>"


def strip_think(text: str | None) -> str:
    """Remove reasoning: ``<think>…</think>`` blocks (an unclosed block runs to the end), and
    everything up to a lone ``</think>`` (reasoning models often emit the closing tag only).

    >>> strip_think("<think>hmm B?</think> A")
    ' A'
    >>> strip_think("Okay, the user wants B… or C.</think>\\n\\nC")
    '\\n\\nC'
    """
    text = _THINK.sub("", text or "")
    close = text.lower().rfind(_CLOSE_THINK)
    return text[close + len(_CLOSE_THINK):] if close >= 0 else text


@dataclass(frozen=True)
class Parse:
    """One answer as read by a parser: ``answer`` (what was read; ``None`` when nothing),
    ``verdict`` (one of :data:`VERDICTS`), ``method`` (the rule that read it) and ``lenient``
    (whether the parser was asked to score lenient readings). ``valid`` says whether the answer
    is scored; ``value`` is the answer when valid, else ``None``.

    >>> p = Parse(["rice"], LENIENT, "copula")
    >>> p.valid, p.value, Parse(["rice"], LENIENT, "copula", lenient=True).value
    (False, None, ['rice'])
    """

    answer: Any = None
    verdict: str = INVALID
    method: str = INVALID
    lenient: bool = False

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, not {self.verdict!r}")

    @property
    def valid(self) -> bool:
        return self.verdict == STRICT or (self.verdict == LENIENT and self.lenient)

    @property
    def value(self) -> Any:
        return self.answer if self.valid else None


def reading(strict: Any, loose: Any, *, lenient: bool, strict_method: str, lenient_method: str,
            refused: bool = False, kind: type[Parse] = Parse) -> Parse:
    """The :class:`Parse` a parser returns once its rules have run, in the contract's order: a
    ``strict`` reading wins; then a refusal; then a lenient (``loose``) reading; else invalid.

    >>> reading(None, 2, lenient=False, strict_method="json", lenient_method="digit").verdict
    'lenient'
    >>> reading(None, 2, lenient=False, strict_method="json", lenient_method="digit", refused=True).verdict
    'refusal'
    """
    if strict is not None:
        return kind(strict, STRICT, strict_method, lenient)
    if refused:
        return kind(None, REFUSAL, REFUSAL, lenient)
    if loose is not None:
        return kind(loose, LENIENT, lenient_method, lenient)
    return kind(None, INVALID, INVALID, lenient)


# ------------------------------------------------------------------ refusals
#: refusal phrases of every language the papers use (English instructions; Persian for PERCUL;
#: Chinese for FMLAMA and CAPTEx; Arabic, Hebrew, Russian, Korean for FMLAMA's languages; Turkish for
#: Turkish PLU; Japanese, Hindi, Urdu, Indonesian, Hausa for CAPTEx's native languages)
REFUSAL_PATTERNS = {
    "en": [r"(?:^|[.!?\n]\s*)(?:i'?m |i am |we'?re )?(?:so |very |really )?(?:sorry|apologi[sz]e)\b",
           r"\bunfortunately,? (?:i\b|there\b|the (?:answer|information|question|dish|food)\b|this\b|it\b)",
           r"\bi(?:'m| am) (?:not (?:sure|able|familiar|aware|certain)|unable|afraid)\b",
           r"\bi (?:cannot|can't|can ?not|won't|will not|couldn't|could not|am unable to|'m unable to)"
           r" (?:answer|determine|provide|find|help|identify|choose|select|give|say|tell|fill|complete|access"
           r"|verify|confirm|be sure|pick|decide)",
           r"\bi (?:don't|do not|didn't|did not) (?:know|have (?:enough |any |specific |sufficient |the |"
           r"reliable |detailed )?(?:information|info|knowledge|data|details|access))",
           r"\b(?:there is|there's|i have|i found|i could find) no (?:information|specific|known|data|record|"
           r"reliable|such)\b",
           r"\bno (?:specific |particular |standard |known )?(?:information|ingredients?|recipe) (?:is |are )?"
           r"(?:available|known|listed|for|about|on)\b",
           r"\b(?:is not|isn't) (?:a )?(?:specific|real|known|recogni[sz]ed|well-known) (?:dish|food)",
           r"\bas an ai\b", r"\bnot available in the (?:provided|given) options",
           r"\bnone of the (?:above|options|choices|given|provided)"],
    "zh": [r"抱歉|对不起|很遗憾|我不(?:知道|确定|清楚|了解|太清楚|太确定)|无法(?:回答|确定|提供|找到|判断|给出|填|得知|识别)"
           r"|不能(?:回答|确定|提供)|没有(?:相关|足够|具体|关于)?的?(?:信息|资料|数据)|作为(?:一个)?(?:AI|人工智能)"],
    "ja": [r"申し訳|すみません|わかりません|分かりません|お答えできません|答えられません"],
    "fa": [r"متا[ٔ]?[سأ]?سفانه|متأسفانه|نمی[\u200c ]?(?:توانم|دانم)\b|قادر (?:به (?:پاسخ|تشخیص|انتخاب)|نیستم)"
           r"|اطلاعات کافی (?:نیست|ندارم|وجود ندارد)|هیچ[\u200c ]?کدام از (?:گزینه|موارد)"
           r"|در (?:میان )?گزینه[\u200c ]?ها (?:وجود )?(?:ندارد|نیست)|(?:با )?عرض پوزش|عذر می[\u200c ]?خواهم"],
    "tr": [r"üzgünüm|maalesef|bilmiyorum|emin değilim|(?:cevap|yanıt) veremem|yardımcı olamam|bilgim yok"
           r"|bilgiye sahip değilim|belirleyemiyorum|yapamıyorum"],
    "ar": [r"عذرا|عذرًا|عذراً|آسف|للأسف|لا أستطيع|لا يمكنني|لا أعرف|لا أملك|ليس لدي معلومات"],
    "he": [r"מצטער|מצטערת|לצערי|אינני יכול|איני יכול|אני לא יכול|אני לא יודע|אינני יודע|אין לי מידע"],
    "ru": [r"извините|к сожалению|не могу (?:ответить|определить|сказать|помочь)|я не знаю|не уверен|нет информации"],
    "ko": [r"죄송|미안합니다|모르겠|할 수 없|알 수 없|정보가 없"],
    "hi": [r"क्षमा करें|माफ़ कीजिए|माफ कीजिए|मुझे नहीं पता|नहीं कर सकता"],
    "ur": [r"معذرت|معاف کیجیے|مجھے نہیں معلوم|نہیں کر سکتا"],
    "id": [r"\bmaaf\b|saya tidak tahu|saya tidak dapat|tidak dapat menjawab"],
    "ha": [r"yi hakuri|ban sani ba|ba zan iya ba"],
}
_REFUSAL = re.compile("|".join(p for ps in REFUSAL_PATTERNS.values() for p in ps), re.I)
_ARABIC_FORMS = str.maketrans({"ي": "ی", "ى": "ی", "ك": "ک", "ـ": None})


def find_refusal(text: str | None) -> str:
    """The first refusal phrase in ``text`` ("" when none), in any language of
    :data:`REFUSAL_PATTERNS` (Arabic letter forms of Persian words accepted).

    >>> find_refusal("Unfortunately, I don't have information about this dish.")
    'Unfortunately, I'
    >>> find_refusal("抱歉，我不知道。"), find_refusal("متأسفانه نمی‌توانم پاسخ دهم"), find_refusal("rice and beans")
    ('抱歉', 'متأسفانه', '')
    """
    m = _REFUSAL.search(unicodedata.normalize("NFC", text or "").translate(_ARABIC_FORMS))
    return m.group(0).strip() if m else ""


# ------------------------------------------------------------------ multiple choice (letters)
@dataclass(frozen=True)
class Choice(Parse):
    """A parsed multiple-choice answer: ``answer`` is the 0-based option read; ``index`` is it when
    scored (``valid``), else ``None``.

    >>> Choice(2, STRICT, "letter").index, Choice(None, INVALID).valid, Choice(1, LENIENT, "option_text").index
    (2, False, None)
    """

    @property
    def index(self) -> int | None:
        return self.value


_CUE = (r"(?:(?:the\s+)?(?:correct|right|best)\s+(?:answer|option|choice)(?:\s+is)?|(?:final\s+)?answer(?:\s+is)?"
        r"|i\s+(?:choose|pick|select|would\s+choose))")
_LETTER_CUE = re.compile(_CUE + r"\s*[:：=\-]?\s*[*_\"'(\[]*(?:option\s+|choice\s+)?([A-Za-z])(?![A-Za-z])", re.I)
_LEAD = re.compile(r"^[\s*_#>\"'`(\[]*(?:option\s+|choice\s+)?([A-Za-z])(?![A-Za-z])([^\n]*)", re.I)
_LABEL_LINE = re.compile(r"^[\s*_>\-•]*\(?([A-J])[).:](?:[ \t]+\S|[ \t]*$)", re.M)
_ALTERNATIVE = re.compile(r"^[\s*_\"'(\[]*([A-Ja-j])[).]?\s*(?:or|/|,|and|&)\s*\(?([A-Ja-j])(?![A-Za-z])", re.I)
_LETTER_RUN = re.compile(r"^\W*[A-J](?:[\s.,;:)\-]+[A-J]){2,}\W*$")  # "C. D. D. D.", "A B C D": no answer
_PERSON = re.compile(r"(?:person|speaker|step|option|choice|plan|vitamin)\s+$", re.I)


def _letter_index(letter: str, rest: str, allowed: str) -> int | None:
    """``letter`` as an option label (0-based) given what follows it, or ``None`` when it is a word:
    an upper-case label needs punctuation, a line end or a non-word after it unless it is A/I
    ("A bowl"); a lower-case one needs ``)``, ``.``, ``:`` or the end of the answer."""
    upper = letter.upper()
    if upper not in allowed:
        return None
    stripped = rest.lstrip(" *_\"'`")
    if letter.islower():
        return allowed.index(upper) if (not stripped or stripped[0] in ").:]") else None
    if letter in "AI" and re.match(r"\s+[a-z]", rest) and not re.match(r"\s+(?:is|was|would|should|seems|fits)\b", rest):
        return None  # "A bowl", "I think" — but "A is correct"
    return allowed.index(upper)


def _letter_anywhere(text: str, allowed: str) -> int | None:
    """The one option letter standing alone somewhere in the text (not a word, not "Person B")."""
    found = set()
    for m in re.finditer(r"(?<![A-Za-z'’])([A-Z])(?![A-Za-z'’])", text):
        if _PERSON.search(text[: m.start()]):
            continue
        i = _letter_index(m.group(1), text[m.end():], allowed)
        if i is not None:
            found.add(i)
    return found.pop() if len(found) == 1 else None


def _option_text(text: str, options: Sequence[str], threshold: float) -> int | None:
    """The option whose text the answer is (exact, or fuzzy ≥ ``threshold``) or holds (exactly one)."""
    norm = [default_process(str(o)) for o in options]
    answer = default_process(text)
    if not answer:
        return None
    if answer in norm:
        return norm.index(answer)
    held = [i for i, o in enumerate(norm) if o and re.search(rf"(?<!\w){re.escape(o)}(?!\w)", answer)]
    held = [i for i in held if not any(j != i and norm[i] in norm[j] for j in held)]
    if len(held) == 1:
        return held[0]
    best = process.extractOne(answer, norm, scorer=fuzz.ratio)
    return best[2] if best and best[1] >= threshold else None


#: the shortest cut-off text (characters, normalised) read as the start of an option's text
MIN_PREFIX = 8


def _text_after_label(rest: str, options: Sequence[str], threshold: float) -> int | None:
    """The option whose text follows an option label on its line: the option's text (as
    :func:`_option_text` reads it) or, for an answer cut off by the token budget, the start of exactly
    one option's text (at least :data:`MIN_PREFIX` characters); ``None`` when the line holds neither.

    >>> _text_after_label(". Boil the rice\\nmore", ["Soak", "Boil the rice"], 85.0), _text_after_label(")", ["Soak"], 85.0)
    (1, None)
    >>> _text_after_label(" Boil the ri\ufffd", ["Soak the rice", "Boil the rice well"], 85.0)
    1
    """
    line = rest.split("\n", 1)[0].lstrip(" \t).:]*_\"'`-").rstrip("\ufffd")
    if not line.strip():
        return None
    found = _option_text(line, options, threshold)
    start = default_process(line)
    if found is None and len(start) >= MIN_PREFIX:
        starts = [i for i, o in enumerate(options) if default_process(str(o)).startswith(start)]
        found = starts[0] if len(starts) == 1 else None
    return found


def parse_choice(text: str | None, n_options: int = 4, options: Sequence[str] | None = None,
                 fuzzy_threshold: float = 85.0, *, lenient: bool = False) -> Choice:
    """A lettered multiple-choice answer (prompts that ask for "only the letter").

    Strict: a letter after an answer cue ("Answer: B", "The correct option is (C)") or opening the
    answer ("B", "(B)", "B. Boil the rice", "**B**", "A is correct"; "A bowl…" is the article). An answer
    that echoes two or more option lines ("A. …\\nB. …") before any answer cue, or gives alternatives
    ("B or C") or a run of letters ("C. D. D. D."), is invalid. A letter followed by another option's text
    ("A. <option B's text>", given the ``options``) is a ``conflict``: ``answer`` holds both readings
    (the letter's option, the text's option) and it is never scored. Then a refusal. Lenient: the one
    option letter standing alone in the text ("I'd go with B here"), or the option whose text the answer
    is or holds.

    >>> parse_choice("b) because ...", 4).index
    1
    >>> parse_choice("I cannot answer that.", 4).verdict
    'refusal'
    >>> parse_choice("A. Soak\\nB. Boil\\nC. Eat", 4).verdict
    'invalid'
    >>> parse_choice("Person B should boil it, so D", 4, lenient=True).index
    3
    >>> p = parse_choice("A. Boil the rice", 3, ["Soak the rice", "Boil the rice", "Eat"], lenient=True)
    >>> p.verdict, p.answer, p.index
    ('conflict', (0, 1), None)
    """
    text = strip_think(text).strip()
    allowed = LETTERS[:n_options]
    strict, rest = None, ""
    cue = _LETTER_CUE.search(text)
    # options echoed (two or more label lines, before any answer cue) or alternatives ("B or C")
    echo = len({m.group(1) for m in _LABEL_LINE.finditer(text[: cue.start() if cue else None])}) >= 2 \
        or bool(_ALTERNATIVE.match(text) or _LETTER_RUN.match(text))
    if cue and not echo:
        strict, rest = _letter_index(cue.group(1), text[cue.end():], allowed), text[cue.end():]
    if strict is None and not echo:
        lead = _LEAD.match(text)
        if lead:
            strict, rest = _letter_index(lead.group(1), lead.group(2), allowed), lead.group(2)
    other = _text_after_label(rest, options, fuzzy_threshold) if strict is not None and options else None
    if other is not None and other != strict:
        return Choice((strict, other), CONFLICT, "letter_text_conflict", lenient)
    loose, method = None, "letter_anywhere"
    if strict is None and not echo:
        loose = _letter_anywhere(text, allowed)
        if loose is None and options:
            loose, method = _option_text(text, options, fuzzy_threshold), "option_text"
    return reading(strict, loose, lenient=lenient, strict_method="letter", lenient_method=method,
                   refused=bool(find_refusal(text)), kind=Choice)


# ------------------------------------------------------------------ step orders (letters)
@dataclass(frozen=True, kw_only=True)
class OrderParse(Parse):
    """A parsed step order: ``answer`` holds 0-based step labels in the predicted sequence (first
    occurrence of each, in range). Missing, repeated or out-of-range letters are ``issues`` and make
    the verdict ``invalid`` (scored by an invalid-answer policy, :mod:`culturelab.tasks.reorder`).
    ``method`` says how the order was found: ``letters`` (a run of letters), ``lines`` (one label per
    line, ``"C. Wash …"``), ``word`` (``"CAB"``) — all strict — or ``step_text`` (the answer wrote the
    steps out and they were matched to the shown steps; lenient).

    >>> p = OrderParse(answer=[2, 0], verdict=INVALID, n=3, issues=["missing"]); p.missing, p.valid
    ([1], False)
    """

    n: int
    duplicates: int = 0
    out_of_range: int = 0
    issues: list[str] = field(default_factory=list)
    raw: list[int] = field(default_factory=list)  # every letter as written (0-based), repeats and extras kept

    @property
    def order(self) -> list[int]:
        """The order as scored: empty for a lenient reading the parser was not asked to score."""
        return list(self.answer or []) if self.verdict != LENIENT or self.lenient else []

    @property
    def missing(self) -> list[int]:
        return [i for i in range(self.n) if i not in self.order]


# what may stand between two letters of one answer: punctuation, quotes, brackets, markdown,
# arrows, list numbers ("1." "2)") and connectives ("and", "then", "step")
_SEP = re.compile(r"^(?:[\s,;.:\-–—>→⇒|/'\"`*()\[\]{}]|\d+|and|then|step|steps|finally|next)*$", re.I)
_LINE_LABEL = re.compile(r"^[ \t>*\-•]*(?:(?:step\s*)?\d+\s*[.):\-]\s*)?[*(\[]*(?:step\s+)?([A-Za-z])(?:[.):\]*]|\s*$)",
                         re.I | re.M)
_WORD = re.compile(r"^\W*(?:(?i:answer|order|sequence)\s*(?i:is)?\s*:?\s*)?([A-Z]{2,})\W*$")


_CONNECTIVES = {"and", "then", "step", "steps", "finally", "next", "or"}
_ALPHA = r"[^\W\d_]"  # a letter of any script: "sıralama" holds no standalone "s"


def _is_word_use(text: str, m: re.Match) -> bool:
    """``A`` or ``I`` used as an English word ("I hope", "a bowl"), not as a step letter."""
    if m.group(1) not in "AIai":
        return False
    follow = re.match(r"\s+([a-z]+)", text[m.end():])
    return bool(follow) and follow.group(1) not in _CONNECTIVES


def _letter_runs(text: str, pattern: str) -> list[list[str]]:
    runs: list[list[str]] = []
    last_end = None
    for m in re.finditer(pattern, text):
        if _is_word_use(text, m):
            continue
        if last_end is not None and _SEP.match(text[last_end : m.start()]):
            runs[-1].append(m.group(1))
        else:
            runs.append([m.group(1)])
        last_end = m.end()
    return runs


def _line_labels(text: str) -> list[str]:
    """Labels that open consecutive lines, e.g. ``C. Wash …`` / ``A. Soak …`` (longest block)."""
    best: list[str] = []
    block: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _LINE_LABEL.match(line)
        if m:
            block.append(m.group(1))
        else:
            block = []
        if len(block) > len(best):
            best = list(block)
    return best


def _match_step_lines(text: str, steps: Sequence[str], threshold: float) -> list[str]:
    """Letters of the shown steps that the answer's lines reproduce (fuzzy, one line each)."""
    letters = []
    for line in text.splitlines():
        line = re.sub(r"^[\s>*\-•]*(?:(?:step\s*)?\d+\s*[.):\-])?\s*", "", line, flags=re.I).strip()
        if len(line) < 4:
            continue
        best = process.extractOne(line, list(steps), scorer=fuzz.token_set_ratio, processor=default_process)
        if best and best[1] >= threshold:
            letters.append(LETTERS[best[2]])
    return letters


def _letter_sequence(text: str, n: int) -> tuple[list[str], str]:
    """The letters of an order answer and how they were found (see :func:`parse_order`)."""
    runs = _letter_runs(text, rf"(?<!{_ALPHA})([A-Z])(?!{_ALPHA})")
    best, method = max(runs, key=len, default=[]), "letters"
    if len(best) < 2:
        lower = _letter_runs(text, rf"(?<!{_ALPHA})([A-Za-z])(?!{_ALPHA})")
        cand = max(lower, key=len, default=[])
        if len(cand) > len(best):
            best = cand
    if len(best) < 2:
        lines = _line_labels(text)
        if len(lines) > len(best):
            best, method = lines, "lines"
    if len(best) < 2:
        first = text.strip().splitlines()[0] if text.strip() else ""
        word = _WORD.match(first)
        if word and all(LETTERS.index(c) < max(n, 1) for c in word.group(1)):
            best, method = list(word.group(1)), "word"
    return best, method


def parse_order(text: str | None, n: int, steps: Sequence[str] | None = None, *, fuzzy_threshold: float = 80.0,
                lenient: bool = False) -> OrderParse:
    """Parse a sequence of step letters such as ``"C, A, B"``, ``"C A B"``, ``"C -> A -> B"``.

    Strict (the prompt asks for the letters): the longest run of standalone letters separated only
    by punctuation, quotes, brackets, arrows, list numbers or connectives ("and", "then", "step")
    (upper case preferred; lower case accepted when no upper-case run of two or more letters exists);
    failing that, labels opening consecutive lines (``"C. Wash …\\nA. Soak …"``) or a bare word of
    step letters (``"CAB"``). Then a refusal. Lenient — when the shown ``steps`` are given (in letter
    order) — lines that reproduce step texts, matched fuzzily (≥ ``fuzzy_threshold``). Repeated
    letters keep their first occurrence; letters beyond the ``n`` steps are dropped; each problem is
    recorded in ``issues`` (``empty``, ``duplicate``, ``out_of_range``, ``missing``) and makes the
    verdict ``invalid``.

    >>> p = parse_order("A, B, B, D", n=4); p.order, p.issues, p.verdict
    ([0, 1, 3], ['duplicate', 'missing'], 'invalid')
    >>> parse_order("1. C\\n2. A\\n3. B", n=3).order
    [2, 0, 1]
    >>> p = parse_order("Boil it.\\nSoak it.", n=2, steps=["Soak it", "Boil it"]); p.verdict, p.order
    ('lenient', [])
    >>> parse_order("Boil it.\\nSoak it.", n=2, steps=["Soak it", "Boil it"], lenient=True).order
    [1, 0]
    """
    text = strip_think(text)
    best, method = _letter_sequence(text, n)
    if len(best) < 2 and steps:
        matched = _match_step_lines(text, steps, fuzzy_threshold)
        if len(matched) > len(best):
            best, method = matched, "step_text"
    order: list[int] = []
    duplicates = out_of_range = 0
    for letter in best:
        i = LETTERS.index(letter.upper())
        if i >= n:
            out_of_range += 1
        elif i in order:
            duplicates += 1
        else:
            order.append(i)
    issues = [name for name, bad in (("empty", not best), ("duplicate", duplicates), ("out_of_range", out_of_range),
                                     ("missing", best and len(order) < n)) if bad]
    if issues:
        verdict = REFUSAL if find_refusal(text) else INVALID
        method = REFUSAL if verdict == REFUSAL else (method if best else "none")
    else:
        verdict = LENIENT if method == "step_text" else STRICT
    scored = verdict != LENIENT or lenient  # an unscored lenient reading counts as nothing written
    return OrderParse(answer=order, verdict=verdict, method=method, lenient=lenient, n=n, duplicates=duplicates,
                      out_of_range=out_of_range, issues=issues,
                      raw=[LETTERS.index(c.upper()) for c in best] if scored else [])


# ------------------------------------------------------------------ reports
def verdict_shares(frame: pd.DataFrame, by: Sequence[str] = (), *, verdict: str = "parse_verdict") -> pd.DataFrame:
    """Share of each verdict per group of ``by`` (columns ``strict``, ``lenient``, ``conflict``,
    ``refusal``, ``invalid`` in that order, then ``n``): the ``lenient`` share goes beside every score.

    >>> t = pd.DataFrame({"model": "m", "parse_verdict": ["strict", "strict", "lenient", "refusal"]})
    >>> verdict_shares(t, ["model"]).to_dict("records")
    [{'model': 'm', 'strict': 0.5, 'lenient': 0.25, 'conflict': 0.0, 'refusal': 0.25, 'invalid': 0.0, 'n': 4}]
    """
    by = list(by)
    keys = frame[by] if by else pd.DataFrame(index=frame.index)
    counts = pd.crosstab([keys[b] for b in by] if by else pd.Series("all", index=frame.index),
                         frame[verdict]).reindex(columns=list(VERDICTS), fill_value=0)
    shares = counts.div(counts.sum(axis=1), axis=0)
    shares["n"] = counts.sum(axis=1)
    shares.columns.name = None
    out = shares.reset_index()
    return out if by else out.drop(columns=out.columns[0])


def verdict_share(verdicts: Iterable[str | None], verdict: str) -> float:
    """Share of parsed answers with ``verdict``; missing verdicts (rows scored without a parse, e.g.
    by log-likelihood) are left out; NaN when none is left.

    >>> verdict_share(["strict", "conflict", "invalid", None], "conflict")
    0.3333333333333333
    """
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, not {verdict!r}")
    v = [x for x in verdicts if isinstance(x, str)]
    return float(np.mean([x == verdict for x in v])) if v else float("nan")


def lenient_share(verdicts: Iterable[str | None]) -> float:
    """Share of parsed answers read only by lenient rules (:func:`verdict_share`).

    >>> lenient_share(["strict", "lenient", "invalid", "strict"]), lenient_share([None, float("nan")])
    (0.25, nan)
    """
    return verdict_share(verdicts, LENIENT)


def audit(frame: pd.DataFrame, parse: str | Sequence[str], *, raw: str = "raw_output", verdict: str = "parse_verdict",
          n: int = 8, seed: int = 0, width: int = 160) -> pd.DataFrame:
    """A seeded sample of ``n`` answers to read by eye: the raw answer (cut to ``width`` characters,
    newlines shown as ⏎), its parse (the ``parse`` column or columns) and verdict. Every verdict
    present gets at least one row, so rare refusals and lenient readings are seen. Rows without a
    verdict (not parsed) are left out; without the columns the table is empty.

    >>> t = pd.DataFrame({"raw_output": ["B", "I'm sorry", "A"], "pred": [1, -1, 0],
    ...                   "parse_verdict": ["strict", "refusal", "strict"]})
    >>> audit(t, "pred", n=2).sort_values("pred")["parse_verdict"].tolist()
    ['refusal', 'strict']
    """
    cols = [parse] if isinstance(parse, str) else list(parse)
    if {raw, verdict, *cols} <= set(frame.columns):
        frame = frame[frame[verdict].notna()]
    else:  # e.g. answers scored by log-likelihood
        frame = pd.DataFrame(columns=[raw, *cols, verdict])
    if frame.empty:
        return pd.DataFrame(columns=[raw, *cols, verdict])
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(frame))
    firsts = pd.Series(order).groupby(frame[verdict].to_numpy()[order], sort=False).first().tolist()
    rest = [i for i in order if i not in set(firsts)]
    picked = sorted((firsts + rest)[: max(n, len(firsts))])
    out = frame.iloc[picked][[raw, *cols, verdict]].copy()
    out[raw] = [(str(t)[:width] + ("…" if len(str(t)) > width else "")).replace("\n", "⏎") for t in out[raw]]
    return out


def _items(answer: Any) -> set:
    """An answer as a set of comparable items: a list of strings → its case-folded, stripped items;
    an order (list of ints) → one tuple; a scalar → itself; ``None`` → nothing."""
    if answer is None:
        return set()
    if isinstance(answer, (list, tuple)):
        if all(isinstance(x, str) for x in answer):
            return {re.sub(r"\s+", " ", x).strip().casefold() for x in answer if x.strip()}
        return {tuple(answer)} if answer else set()
    return {answer}


def extraction_quality(gold: pd.DataFrame, parse: Callable[[pd.Series, bool], Parse], *,
                       lenient: bool = False) -> dict[str, float]:
    """A parser's extraction precision and recall on hand-labelled answers.

    ``gold`` has one row per answer with ``expected`` (what a human grader reads; ``None`` when
    nothing) and ``verdict`` (the grader's verdict). ``parse(row, lenient)`` parses one row. An
    answer's expected items are the grader's reading when its verdict is ``strict`` — or ``lenient``
    and ``lenient=True`` — else none; its predicted items are the parse's ``value`` (what is scored).
    Items are compared as sets (an ingredient list item by item, case-folded; a choice or an order as
    one item). ``precision`` = matched / predicted items, ``recall`` = matched / expected items
    (micro over all answers); ``exact`` = share of answers whose scored reading equals the expected
    one; ``verdict_agreement`` = share whose verdict equals the grader's; ``refusal_precision`` /
    ``refusal_recall`` for refusals; ``lenient_share`` = share of lenient verdicts (the parser's).

    >>> from culturelab.parsing import parse_choice
    >>> gold = pd.DataFrame({"raw": ["B", "maybe C?", "I'm sorry"], "expected": [1, 2, None],
    ...                      "verdict": ["strict", "lenient", "refusal"]})
    >>> q = extraction_quality(gold, lambda r, lenient: parse_choice(r["raw"], 4, lenient=lenient))
    >>> q["precision"], q["recall"], q["lenient_share"], q["refusal_recall"]
    (1.0, 1.0, 0.3333333333333333, 1.0)
    """
    matched = predicted = expected = exact = agree = 0
    refusals = {"tp": 0, "pred": 0, "gold": 0}
    lenient_n = 0
    for _, row in gold.iterrows():
        parsed = parse(row, lenient)
        counted = row["verdict"] == STRICT or (lenient and row["verdict"] == LENIENT)
        want = _items(row["expected"]) if counted else set()
        got = _items(parsed.value)
        matched += len(want & got)
        predicted += len(got)
        expected += len(want)
        exact += want == got
        agree += parsed.verdict == row["verdict"]
        lenient_n += parsed.verdict == LENIENT
        refusals["pred"] += parsed.verdict == REFUSAL
        refusals["gold"] += row["verdict"] == REFUSAL
        refusals["tp"] += parsed.verdict == REFUSAL == row["verdict"]
    n = len(gold)

    def ratio(a: int, b: int) -> float:
        return a / b if b else float("nan")

    return {"n": n, "precision": ratio(matched, predicted), "recall": ratio(matched, expected),
            "exact": ratio(exact, n), "verdict_agreement": ratio(agree, n),
            "refusal_precision": ratio(refusals["tp"], refusals["pred"]),
            "refusal_recall": ratio(refusals["tp"], refusals["gold"]), "lenient_share": ratio(lenient_n, n)}
