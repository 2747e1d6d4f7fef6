"""Model text → answers. Every parser returns what it found *and* whether it is valid, so
unparseable outputs are counted and reported instead of crashing a run.

>>> parse_choice("The answer is (C).", n_options=4).index
2
>>> parse_order("The order is: C, A, B", n=3).order
[2, 0, 1]
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process
from rapidfuzz.utils import default_process

LETTERS = string.ascii_uppercase
_THINK = re.compile(r"<think>.*?(</think>|$)", flags=re.S | re.I)


def strip_think(text: str) -> str:
    """Remove ``<think>…</think>`` reasoning blocks (an unclosed block runs to the end).

    >>> strip_think("<think>hmm B?</think> A")
    ' A'
    """
    return _THINK.sub("", text or "")


@dataclass(frozen=True)
class Choice:
    """A parsed multiple-choice answer: ``index`` is 0-based, ``None`` when invalid.

    >>> Choice(2, "letter").valid, Choice(None, "invalid").valid
    (True, False)
    """

    index: int | None
    method: str  # letter | option_text | invalid

    @property
    def valid(self) -> bool:
        return self.index is not None


_ANSWER_CUE = re.compile(r"(?:answer|option|choice|correct)\s*(?:is|:)?\s*[:\-]?\s*\(?([A-Z])\b", re.I)


def parse_choice(text: str, n_options: int = 4, options: Sequence[str] | None = None,
                 fuzzy_threshold: float = 85.0) -> Choice:
    """First standalone option letter (``A``, ``A.``, ``(A)``, ``Answer: A``); otherwise the option
    whose text the answer matches (exact, then fuzzy ≥ ``fuzzy_threshold``); otherwise invalid.

    >>> parse_choice("b) because ...", 4).index
    1
    >>> parse_choice("I cannot answer that.", 4).valid
    False
    >>> parse_choice("Saffron rice", 3, ["bread", "saffron rice", "tea"]).index
    1
    """
    text = strip_think(text).strip()
    allowed = LETTERS[:n_options]
    cue = _ANSWER_CUE.search(text)
    if cue and cue.group(1).upper() in allowed:
        return Choice(allowed.index(cue.group(1).upper()), "letter")
    # a standalone capital letter, e.g. "C", "C.", "(C)", "C)"; "A" as an English article is
    # only accepted when followed by punctuation or the end of the text
    for m in re.finditer(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])", text):
        letter, rest = m.group(1), text[m.end():]
        if letter in allowed and (letter != "A" or not rest or rest[0] in ".):,;\n" or rest.strip() == ""):
            return Choice(allowed.index(letter), "letter")
    lead = re.match(r"^\(?([a-z])(?:[).:]|$)", text)
    if lead and lead.group(1).upper() in allowed:
        return Choice(allowed.index(lead.group(1).upper()), "letter")
    if options:
        norm = [o.strip().lower() for o in options]
        answer = text.lower().strip(" .\n\"'")
        if answer in norm:
            return Choice(norm.index(answer), "option_text")
        best = process.extractOne(answer, norm, scorer=fuzz.ratio)
        if best and best[1] >= fuzzy_threshold:
            return Choice(best[2], "option_text")
    return Choice(None, "invalid")


@dataclass(frozen=True)
class OrderParse:
    """A parsed step order: ``order`` holds 0-based step labels in the predicted sequence
    (first occurrence of each, in range); ``valid`` iff it is a permutation of all ``n``.
    ``method`` says how the order was found: ``letters`` (a run of letters), ``lines``
    (one label per line, e.g. ``"C. Wash …"``), ``word`` (``"CAB"``), ``step_text`` (the
    answer wrote the steps out and they were matched to the shown steps) or ``none``.

    >>> p = OrderParse([2, 0], n=3, issues=["missing"]); p.missing, p.valid
    ([1], False)
    """

    order: list[int]
    n: int
    duplicates: int = 0
    out_of_range: int = 0
    issues: list[str] = field(default_factory=list)
    method: str = "letters"
    raw: list[int] = field(default_factory=list)  # every letter as written (0-based), repeats and extras kept

    @property
    def missing(self) -> list[int]:
        return [i for i in range(self.n) if i not in self.order]

    @property
    def valid(self) -> bool:
        return not self.issues


# what may stand between two letters of one answer: punctuation, quotes, brackets, markdown,
# arrows, list numbers ("1." "2)") and connectives ("and", "then", "step")
_SEP = re.compile(r"^(?:[\s,;.:\-–—>→⇒|/'\"`*()\[\]{}]|\d+|and|then|step|steps|finally|next)*$", re.I)
_LINE_LABEL = re.compile(r"^[ \t>*\-•]*(?:(?:step\s*)?\d+\s*[.):\-]\s*)?[*(\[]*(?:step\s+)?([A-Za-z])(?:[.):\]*]|\s*$)",
                         re.I | re.M)
_WORD = re.compile(r"^\W*(?:(?i:answer|order|sequence)\s*(?i:is)?\s*:?\s*)?([A-Z]{2,})\W*$")


_CONNECTIVES = {"and", "then", "step", "steps", "finally", "next", "or"}


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


def parse_order(text: str, n: int, steps: Sequence[str] | None = None, *,
                fuzzy_threshold: float = 80.0) -> OrderParse:
    """Parse a sequence of step letters such as ``"C, A, B"``, ``"C A B"``, ``"C -> A -> B"``.

    The longest run of standalone letters separated only by punctuation, quotes, brackets,
    arrows, list numbers or connectives ("and", "then", "step") is taken (upper case
    preferred; lower case accepted when no upper-case run of two or more letters exists).
    Failing that: labels opening consecutive lines (``"C. Wash …\\nA. Soak …"``), a bare
    word of step letters (``"CAB"``), and — when the shown ``steps`` are given (in letter
    order) — lines that reproduce step texts, matched fuzzily (≥ ``fuzzy_threshold``).
    Repeated letters keep their first occurrence; letters beyond the ``n`` steps are
    dropped; each problem is recorded in ``issues`` (``empty``, ``duplicate``,
    ``out_of_range``, ``missing``).

    >>> p = parse_order("A, B, B, D", n=4); p.order, p.issues
    ([0, 1, 3], ['duplicate', 'missing'])
    >>> parse_order("1. C\\n2. A\\n3. B", n=3).order
    [2, 0, 1]
    >>> parse_order("Boil it.\\nSoak it.", n=2, steps=["Soak it", "Boil it"]).order
    [1, 0]
    """
    text = strip_think(text)
    method = "letters"
    runs = _letter_runs(text, r"(?<![A-Za-z])([A-Z])(?![A-Za-z])")
    best = max(runs, key=len, default=[])
    if len(best) < 2:
        lower = _letter_runs(text, r"(?<![A-Za-z])([A-Za-z])(?![A-Za-z])")
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
    if len(best) < 2 and steps:
        matched = _match_step_lines(text, steps, fuzzy_threshold)
        if len(matched) > len(best):
            best, method = matched, "step_text"
    if not best:
        method = "none"
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
    issues = []
    if not best:
        issues.append("empty")
    if duplicates:
        issues.append("duplicate")
    if out_of_range:
        issues.append("out_of_range")
    if best and len(order) < n:
        issues.append("missing")
    return OrderParse(order, n, duplicates, out_of_range, issues, method, [LETTERS.index(c.upper()) for c in best])
