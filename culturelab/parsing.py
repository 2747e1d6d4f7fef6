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
    """A parsed multiple-choice answer: ``index`` is 0-based, ``None`` when invalid."""

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
    (first occurrence of each, in range); ``valid`` iff it is a permutation of all ``n``."""

    order: list[int]
    n: int
    duplicates: int = 0
    out_of_range: int = 0
    issues: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[int]:
        return [i for i in range(self.n) if i not in self.order]

    @property
    def valid(self) -> bool:
        return not self.issues


_SEP = re.compile(r"^[\s,;.\-–>→|/]*(?:and|then)?[\s,;.\-–>→|/]*$", re.I)


def _letter_runs(text: str, pattern: str) -> list[list[str]]:
    runs: list[list[str]] = []
    last_end = None
    for m in re.finditer(pattern, text):
        if last_end is not None and _SEP.match(text[last_end : m.start()]):
            runs[-1].append(m.group(1))
        else:
            runs.append([m.group(1)])
        last_end = m.end()
    return runs


def parse_order(text: str, n: int) -> OrderParse:
    """Parse a sequence of step letters such as ``"C, A, B"``, ``"C A B"``, ``"C -> A -> B"``.

    The longest run of standalone letters separated only by commas, spaces, arrows or "and"
    is taken (upper case preferred; lower case accepted when no upper-case run of two or more
    letters exists). Repeated letters keep their first occurrence; letters beyond the ``n``
    steps are dropped; each problem is recorded in ``issues``.

    >>> p = parse_order("A, B, B, D", n=4); p.order, p.issues
    ([0, 1, 3], ['duplicate', 'missing'])
    """
    text = strip_think(text)
    runs = _letter_runs(text, r"(?<![A-Za-z])([A-Z])(?![A-Za-z])")
    best = max(runs, key=len, default=[])
    if len(best) < 2:
        lower = _letter_runs(text, r"(?<![A-Za-z])([A-Za-z])(?![A-Za-z])")
        cand = max(lower, key=len, default=[])
        if len(cand) > len(best):
            best = cand
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
    return OrderParse(order, n, duplicates, out_of_range, issues)
