"""Model answers to the Figure 9 prompt → the chosen option, with a fallback chain.

The prompt asks for ``{"Explanation": <str>, "Choice Number": <1..4>}``. Real answers come
in code fences, with Persian (۱۲۳۴) or Arabic-Indic (١٢٣٤) digits, single quotes, prose
around the JSON, or no JSON at all. :func:`parse_answer` tries, in order:

1. ``json`` — strict JSON: the first ``{…}`` block that ``json.loads`` accepts, key ``Choice
   Number`` (any case/spacing; ``choice``/``answer``/``گزینه`` accepted), a number 1–4 or a
   string holding one (or an option's text);
2. ``json_relaxed`` — a ``"Choice Number": ۳``-like pair anywhere (broken JSON, Persian digits);
3. ``digit`` — an answer that *opens* with a number (``"۲) …"``), or a number after a cue
   (``گزینه ۲``, ``پاسخ: ۳``, ``option 2``, ``answer is 4``);
4. ``refusal`` — "not available in the provided options", "نمی‌توانم …", … (invalid);
5. ``digit`` — a lone standalone number 1–4 anywhere;
6. ``option_text`` — exactly one option's text appears in the answer (or a close fuzzy match
   of a short answer).

Two different numbers at the same step are ``ambiguous``; an echo of the template's
placeholder is ``template_echo``; nothing usable is ``invalid``. Every one of those is a
:class:`~culturelab.parsing.Choice` with ``index=None`` — counted as wrong, never a crash.

>>> parse_answer('```json\\n{"Explanation": "…", "Choice Number": 3}\\n```').index
2
>>> parse_answer("گزینه ۲").method, parse_answer("گزینه ۲").index
('digit', 1)
>>> parse_answer("۲ یا ۳").method
'ambiguous'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pandas as pd
from rapidfuzz import fuzz, process

from culturelab.parsing import Choice, strip_think
from culturelab.percul.data import normalise_persian

VALID_METHODS = ("json", "json_relaxed", "digit", "option_text")
INVALID_METHODS = ("refusal", "ambiguous", "out_of_range", "template_echo", "empty", "invalid")

_FENCE = re.compile(r"```[A-Za-z]*")
_PLACEHOLDER = re.compile(r"<\s*sing(?:le)?\s+number[^>]*>", re.I)
_KEY = re.compile(r"[^a-z\u0600-\u06ff]")
_CHOICE_KEYS = {"choicenumber", "choice", "answer", "answernumber", "option", "گزینه", "شمارهگزینه", "پاسخ"}
_RELAXED = re.compile(r"""["'«]?\s*(?:choice[\s_-]*number|شماره[\s\u200c]*(?:ی\s*)?گزینه)\s*["'»]?\s*[:=：]\s*"""
                      r"""["'«(\[]?\s*(-?\d+)""", re.I)
_LEADING = re.compile(r"""^[\s*_#>"'«(\[]*(?:گزینه(?:\s*ی|ٔ)?\s*)?(\d)(?!\d)\s*(?:[).:\-–»\]"']|$|\s)""")
_CUED = re.compile(r"(?:گزینه(?:\s*ی|ٔ)?(?:\s*شماره)?|پاسخ(?:\s*صحیح|\s*درست)?|جواب(?:\s*صحیح|\s*درست)?|"
                   r"option|choice|answer(?:\s+is)?|correct\s+(?:option|answer)\s+is)\s*[:：\-]?\s*[(\[«\"']?\s*"
                   r"(\d)(?!\d)", re.I)
_ALTERNATIVES = re.compile(r"(?<!\d)(\d)\s*(?:or|یا|and|و|/|,|،)\s*(?:گزینه(?:\s*ی)?\s*)?(\d)(?!\d)", re.I)
_BARE = re.compile(r"(?<![\w.])(\d)(?![\w]|\.\d)")
_REFUSAL = re.compile("|".join([
    r"not available in the (?:provided|given) options", r"none of the (?:above|options|choices)",
    r"(?:cannot|can't|can not|unable to|won't) (?:answer|determine|choose|select|help|provide)",
    r"as an ai", r"i(?:'m| am) sorry", r"i don't know", r"هیچ ?کدام", r"نمی ?(?:توانم|دانم)", r"قادر (?:به|نیستم)", r"متاسفانه|متأسفانه",
    r"در (?:میان )?گزینه ?ها (?:وجود )?(?:ندارد|نیست)", r"اطلاعات کافی (?:نیست|ندارم|وجود ندارد)",
]), re.I)


def _norm(text: str) -> str:
    return normalise_persian(text).lower()


def _json_blocks(text: str) -> list[tuple[str, bool]]:
    """Balanced ``{…}`` substrings, outermost first (braces inside JSON strings respected), each
    with ``False``; an object left open at the end is returned closed, with ``True`` (relaxed)."""
    blocks, depth, start, in_str, esc = [], 0, None, False, False
    for i, ch in enumerate(text):
        if in_str:
            esc = (ch == "\\") and not esc
            if ch == '"' and not esc:
                in_str = False
            continue
        if ch == '"' and depth:
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0 and start is not None:
                blocks.append((text[start : i + 1], False))
    if depth == 1 and start is not None and not in_str:  # e.g. generation stopped at the closing line
        blocks.append((text[start:].rstrip().rstrip(",") + "\n}", True))
    return blocks


def _number(value: str, n: int) -> Choice | None:
    digits = re.findall(r"\d+", normalise_persian(value))
    if len(set(digits)) > 1:
        return Choice(None, "ambiguous")
    if digits:
        k = int(digits[0])
        return Choice(k - 1, "json") if 1 <= k <= n else Choice(None, "out_of_range")
    return None


def _from_json(text: str, n: int, options: Sequence[str] | None) -> Choice | None:
    for block, relaxed in _json_blocks(text):
        try:
            obj = json.loads(block)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        found = _from_object(obj, n, options)
        if found is not None:
            return Choice(found.index, "json_relaxed") if relaxed and found.valid else found
    return None


def _from_object(obj: dict, n: int, options: Sequence[str] | None) -> Choice | None:
    """The choice held by a parsed JSON object (``Choice Number`` or a synonym), if any."""
    for key, value in obj.items():
        if _KEY.sub("", str(key).lower()) not in _CHOICE_KEYS or value is None or isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            k = int(value)
            return Choice(k - 1, "json") if 1 <= k <= n and k == value else Choice(None, "out_of_range")
        found = _number(str(value), n)
        if found is not None:
            return found
        if options:
            by_text = _match_option(str(value), options)
            if by_text is not None and by_text.valid:
                return Choice(by_text.index, "json")
    return None


def _distinct(matches: list[str], n: int) -> Choice | None:
    values = {int(m) for m in matches if 1 <= int(m) <= n}
    if len(values) == 1:
        return Choice(values.pop() - 1, "digit")
    if len(values) > 1:
        return Choice(None, "ambiguous")
    return None


def _match_option(text: str, options: Sequence[str], fuzzy_threshold: float = 90.0) -> Choice | None:
    """The one option whose text appears in ``text`` (whole words, after normalisation)."""
    answer = " " + re.sub(r"[^\w\s]", " ", _norm(text)) + " "
    answer = re.sub(r"\s+", " ", answer)
    norm = [re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", _norm(o))).strip() for o in options]
    hits = [i for i, o in enumerate(norm) if o and f" {o} " in answer]
    # "کلاه" inside "کلاه نمدی": keep only the longest of nested matches
    hits = [i for i in hits if not any(j != i and norm[i] in norm[j] for j in hits)]
    if len(hits) == 1:
        return Choice(hits[0], "option_text")
    if len(hits) > 1:
        return Choice(None, "ambiguous")
    short = answer.strip()
    if short and len(short) <= 2 * max(len(o) for o in norm):
        best = process.extractOne(short, norm, scorer=fuzz.ratio)
        if best and best[1] >= fuzzy_threshold:
            return Choice(best[2], "option_text")
    return None


def parse_answer(text: str | None, options: Sequence[str] | None = None, *, n_options: int = 4,
                 use_option_text: bool = True) -> Choice:
    """Parse one answer (see the module docstring for the chain); ``index`` is 0-based.

    >>> parse_answer('{"Explanation": "…", "Choice Number": "۴"}').index
    3
    >>> parse_answer("The answer is not available in the provided options").method
    'refusal'
    >>> parse_answer("به نظرم قورمه‌سبزی", ["قیمه", "قورمه‌سبزی", "ته‌دیگ", "آش"]).index
    1
    """
    raw = strip_think(text or "")
    if not raw.strip():
        return Choice(None, "empty")
    body = _FENCE.sub("", raw)
    found = _from_json(body, n_options, options)
    if found is not None:
        return found
    digits = normalise_persian(body)
    relaxed = _RELAXED.findall(digits)
    if relaxed:
        values = {int(v) for v in relaxed}
        if len(values) > 1:
            return Choice(None, "ambiguous")
        k = values.pop()
        return Choice(k - 1, "json_relaxed") if 1 <= k <= n_options else Choice(None, "out_of_range")
    echoed = bool(_PLACEHOLDER.search(digits))
    digits = _PLACEHOLDER.sub(" ", digits)
    alternatives = [(int(a), int(b)) for a, b in _ALTERNATIVES.findall(digits)]
    if any(a != b and 1 <= a <= n_options and 1 <= b <= n_options for a, b in alternatives):
        return Choice(None, "ambiguous")  # "۲ یا ۳", "1 or 2"
    lead = _LEADING.match(digits)
    if lead and 1 <= int(lead.group(1)) <= n_options:
        return Choice(int(lead.group(1)) - 1, "digit")
    cued = _distinct(_CUED.findall(digits), n_options)
    if cued is not None:
        return cued
    if _REFUSAL.search(_norm(body)):
        return Choice(None, "refusal")
    bare = _distinct(_BARE.findall(digits), n_options)
    if bare is not None:
        return bare
    if use_option_text and options:
        by_text = _match_option(_PLACEHOLDER.sub(" ", body), options)
        if by_text is not None:
            return by_text
    return Choice(None, "template_echo" if echoed else "invalid")


def parse_report(results: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Share of answers per parse method (rows: groups of ``by``), so invalid answers are visible.

    >>> t = pd.DataFrame({"model": ["m"] * 4, "parse_method": ["json", "json", "refusal", "digit"]})
    >>> parse_report(t).to_dict("records")
    [{'model': 'm', 'digit': 0.25, 'json': 0.5, 'refusal': 0.25, 'n': 4}]
    """
    by = list(by)
    if results.empty:
        return pd.DataFrame(columns=[*by, "n"])
    table = pd.crosstab([results[b] for b in by], results["parse_method"], normalize="index")
    table["n"] = results.groupby(by).size()
    table.columns.name = None
    return table.reset_index()
