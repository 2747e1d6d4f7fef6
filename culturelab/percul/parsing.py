"""Model answers to the Figure 9 prompt → the chosen option, under the contract of
:mod:`culturelab.parsing` (strict by default; lenient as a named option; refusals counted).

The prompt asks for ``{"Explanation": <str>, "Choice Number": <Sing Number 1 to 4>}`` and nothing
else. The paper does not describe its parser; the spec's (§2.3) reads only that format, which is our
**strict** rule:

1. ``json`` — the first ``{…}`` block that ``json.loads`` accepts (code fences stripped), key ``Choice
   Number`` (any case, spacing or ``_``; or its Persian translation ``شماره گزینه``), a number 1–4 or a
   string holding exactly one (Persian ۱۲۳۴, Arabic-Indic ١٢٣٤ or Latin digits, or one number word:
   ``"سه"``, ``"گزینه سوم"``, ``"three"``);
2. ``json_relaxed`` — a ``"Choice Number": ۳``-like pair anywhere (broken JSON, an object cut at its
   closing line), the number on the key's own line.

The template's placeholder (``<Sing Number 1 to 4>``) is read as an empty value, so what follows it on
the next lines — an echoed option list, a digit in prose — is never the choice; a range (``1 to 4``,
``[1-4]``) is no number. A number outside 1–4 is ``out_of_range``; two different numbers, two keys
that name different options, or a number beside the text of another option (``"۳) قورمه‌سبزی"``) are
``ambiguous``; an echo of the placeholder is ``template_echo`` — unless the answer refuses (a refusal in
the explanation beside a choice of 0 or 5 is a ``refusal``). Then refusals ("not available in the provided options",
"متأسفانه نمی‌توانم …", any language of :func:`culturelab.parsing.find_refusal`). **Lenient** readings
(the spec's "last resort", off by default; ``lenient=True`` scores them):

3. ``json_key`` — another key (``answer``, ``choice``, ``گزینه``, ``پاسخ``) or an option's text as the value;
4. ``digit`` — an answer that *is* a number or number word (``"۴"``, ``"(۲)"``, ``"سه"``), a number after an
   answer cue (``گزینه ۲``, ``پاسخ: ۳``, ``option 2``, ``answer is 4``; also after an echoed option list), a
   number word where it must be an option (``گزینهٔ سوم``, ``the fourth option``), or one numbered option
   written out (``"۲)قورمه‌سبزی"``);
5. ``option_text`` — exactly one option's text appears in the answer (and no "یا"/"or" beside it).

Never an answer, in either mode: a bare digit or number word inside prose ("این داستان مربوط به ۲ خواهر
است", "سه نفر …", an explanation cut after "۳ نفر"), an echoed option list (``option_echo``: two or more
numbered option lines), alternatives ("۲ یا ۳", "گزینه دو یا سه": ``ambiguous``), a cued number beside the text of another
option ("گزینه ۲: هل" where هل is option 3: ``ambiguous``). Every answer is a :class:`~culturelab.parsing.Choice`
with its verdict; ``index`` is ``None`` unless it is scored — counted as wrong, never a crash.

>>> parse_answer('```json\\n{"Explanation": "…", "Choice Number": 3}\\n```').index
2
>>> p = parse_answer("گزینه ۲"); p.verdict, p.method, p.index
('lenient', 'digit', None)
>>> parse_answer("گزینه ۲", lenient=True).index
1
>>> parse_answer("این داستان مربوط به ۲ خواهر است", lenient=True).verdict
'invalid'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pandas as pd

from culturelab.parsing import INVALID, LENIENT, REFUSAL, STRICT, Choice, find_refusal, strip_think
from culturelab.percul.data import normalise_persian

#: the grading rules in words (the protocol's label quotes them; the paper prints no parser, spec §2.3):
#: strict reads only the format Figure 9 asks for, lenient is the spec's "last resort"
STRICT_RULE = 'the JSON "Choice Number" (also from broken JSON)'
LENIENT_RULE = "a lone option number, a number after an answer cue, or an option's text"
STRICT_METHODS = ("json", "json_relaxed")
LENIENT_METHODS = ("json_key", "digit", "option_text")
INVALID_METHODS = (REFUSAL, "ambiguous", "out_of_range", "template_echo", "option_echo", "empty", INVALID)

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
_FENCE = re.compile(r"```[A-Za-z]*")
_PLACEHOLDER = re.compile(r"<\s*sing(?:le)?\s+number[^>]*>", re.I)
_KEY = re.compile(r"[^a-z\u0600-\u06ff]")
_STRICT_KEYS = {"choicenumber", "شمارهگزینه", "شمارهیگزینه"}
_LENIENT_KEYS = {"choice", "answer", "answernumber", "option", "optionnumber", "گزینه", "پاسخ", "جواب"}
#: the pair ``"Choice Number": 3`` outside valid JSON: the value on the key's own line (a line break after
#: the colon, as in a skeleton whose placeholder was dropped, ends the pair), and not a range ("1 to 4")
_RELAXED = re.compile(r"""["'«]?[ \t]*(?:choice[ \t_-]*number|شماره[ \t\u200c]*(?:[یي][ \t]*)?گزینه)[ \t]*["'»]?[ \t]*"""
                      r"""[:=：][ \t]*["'«(\[]?[ \t]*(-?\d+)(?![ \t]*(?:to|-|–|تا)[ \t]*\d)""", re.I)
_CUED = re.compile(r"(?:گزینه(?:\s*ی|ٔ)?(?:\s*شماره)?|پاسخ(?:\s*صحیح|\s*درست)?|جواب(?:\s*صحیح|\s*درست)?|"
                   r"option|choice|answer(?:\s+is)?|correct\s+(?:option|answer)\s+is)\s*[:：\-]?\s*[(\[«\"']?\s*"
                   r"(\d)(?!\d)", re.I)
_ALTERNATIVES = re.compile(r"(?<!\d)(\d)\s*(?:or|یا|and|و|/|,|،)\s*(?:گزینه(?:\s*ی)?\s*)?(\d)(?!\d)", re.I)
_LONE = re.compile(r"""^[\s*_#>"'«(\[]*(\d)[\s*_"'».)\]]*$""")
#: option numbers written as words (cardinals and ordinals, Persian and English)
_NUMBER_WORDS = {"یک": 1, "یکم": 1, "اول": 1, "نخست": 1, "دو": 2, "دوم": 2, "سه": 3, "سوم": 3, "چهار": 4,
                 "چهارم": 4, "one": 1, "first": 1, "two": 2, "second": 2, "three": 3, "third": 3, "four": 4,
                 "fourth": 4}
_WORD = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
#: a number word as the whole value or answer, after an optional "option": ``سه``, ``گزینه سوم``, ``three``
_WORD_ALONE = re.compile(rf"""^[\s*"'«(\[]*(?:(?:گزینه(?: ?ی)?|option|choice)\s*)?({_WORD})[\s*"'».)\]]*$""", re.I)
#: a number word only where it must be an option number: after "option" (``گزینهٔ سوم``), or an
#: ordinal before it (``the fourth option``) — never after "answer" ("the answer is one of …")
_WORD_CUED = re.compile(rf"(?:گزینه(?: ?ی)?|option|choice)\s*[:：\-]?\s*({_WORD})(?!\w)|"
                        r"(?<!\w)(first|second|third|fourth)\s+(?:option|choice)\b", re.I)
#: alternatives named as options in words ("گزینه دو یا سه", "option two or 3", "the second or third option"):
#: no single answer, as "۲ یا ۳" is not (a number word alone in prose, "یک یا دو بار", is no option)
_WORD_ALTERNATIVES = re.compile(
    rf"(?:گزینه(?: ?ی)?|option|choice)\s*[:：\-]?\s*({_WORD}|\d)\s*(?:or|یا|/)\s*"
    rf"(?:(?:گزینه(?: ?ی)?|option|choice)\s*)?({_WORD}|\d)(?!\w)|"
    r"(?<!\w)(first|second|third|fourth)\s*(?:or|/)\s*(?:the\s+)?(first|second|third|fourth)\s+(?:option|choice)\b",
    re.I)
#: alternatives in prose ("… یا …", "… or …"): an option's text beside them is no single answer
_OR = re.compile(r"(?<!\w)(?:یا|or)(?!\w)", re.I)
_NUMBERED = re.compile(r"""^[\s*_#>"'«(\[]*(\d)\s*[).:\-–]\s*(\S.*)$""", re.M)
_INLINE_NUMBERED = re.compile(r"(?<![\d<])(\d)\)")  # "۱)قیمه و ۲)قورمه": a list echoed on one line


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


def _number(value: str, n: int, options: Sequence[str] | None = None) -> tuple[int | None, str] | None:
    """(0-based choice or None, method) held by a string value — digits, or one number word (``"سه"``,
    ``"گزینه سوم"``, ``"three"``) —, or ``None`` when it holds no number. Two numbers, or a number beside
    the text of another option (``"۳) قورمه‌سبزی"`` where that is option 1), are ``ambiguous``."""
    norm = normalise_persian(value)
    digits = re.findall(r"\d+", norm)
    if not digits:
        word = _WORD_ALONE.match(norm.lower())
        digits = [str(_NUMBER_WORDS[word.group(1)])] if word else []
    if len(set(digits)) > 1:
        return None, "ambiguous"
    if not digits:
        return None
    k = int(digits[0])
    if not 1 <= k <= n:
        return None, "out_of_range"
    named = _match_option(re.sub(r"\d+", " ", norm), options) if options else None
    return (None, "ambiguous") if named is not None and named != k - 1 else (k - 1, "json")


def _from_object(obj: dict, n: int, options: Sequence[str] | None) -> tuple[int | None, str] | None:
    """(0-based choice or None, method) held by a parsed JSON object, or ``None`` when it has no choice
    key. ``Choice Number`` (or ``شماره گزینه``) is strict (``json``); another key, or an option's
    text as the value, is lenient (``json_key``); keys that name different options are ``ambiguous``."""
    readings = []
    for key, value in obj.items():
        name = _KEY.sub("", str(key).lower())
        if name not in _STRICT_KEYS | _LENIENT_KEYS or value is None or isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            k = int(value)
            found = (k - 1, "json") if 1 <= k <= n and k == value else (None, "out_of_range")
        else:
            found = _number(str(value), n, options)
            if found is None and options:
                by_text = _match_option(str(value), options)
                found = (by_text, "json_key") if by_text is not None else None
        if found is not None:
            index, method = found
            readings.append((index, "json_key") if name in _LENIENT_KEYS and index is not None else (index, method))
    if len({index for index, _ in readings if index is not None}) > 1:
        return None, "ambiguous"  # {"Choice Number": 3, "Answer": "رستم"}
    return readings[0] if readings else None


def _from_json(text: str, n: int, options: Sequence[str] | None) -> tuple[int | None, str] | None:
    for block, relaxed in _json_blocks(text):
        try:
            obj = json.loads(block)
        except ValueError:
            continue
        if isinstance(obj, dict):
            found = _from_object(obj, n, options)
            if found is not None:
                return (found[0], "json_relaxed") if relaxed and found[1] == "json" else found
    return None


def _match_option(text: str, options: Sequence[str]) -> int | None:
    """The one option whose text appears in ``text`` (whole words, after normalisation; the longest of
    nested matches, "کلاه" inside "کلاه نمدی"); ``None`` when none or several."""
    answer = " " + re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", _norm(text))) + " "
    norm = [re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", _norm(o))).strip() for o in options]
    hits = [i for i, o in enumerate(norm) if o and f" {o} " in answer]
    hits = [i for i in hits if not any(j != i and norm[i] in norm[j] for j in hits)]
    return hits[0] if len(hits) == 1 else None


def _option_number(token: str) -> int:
    """An option number written as a digit or a word (:data:`_NUMBER_WORDS`).

    >>> _option_number("3"), _option_number("Third"), _option_number("سه")
    (3, 3, 3)
    """
    return int(token) if token.isdigit() else _NUMBER_WORDS[token.lower()]


def _cued(text: str, n: int) -> int | None:
    """The one option number (0-based) that follows an answer cue — a digit (``پاسخ: ۳``, ``answer is 4``)
    or a number word where it must be an option (``گزینهٔ سوم``, ``the fourth option``) —, else ``None``."""
    norm = normalise_persian(text)
    found = {int(d) for d in _CUED.findall(norm)}
    found |= {_NUMBER_WORDS[(a or b).lower()] for a, b in _WORD_CUED.findall(norm)}
    found = {k for k in found if 1 <= k <= n}
    return found.pop() - 1 if len(found) == 1 else None


def _lenient_digit(text: str, n: int, options: Sequence[str] | None) -> tuple[int, bool] | None:
    """A lenient number and whether an answer cue gave it: the whole answer is one number (or number
    word), a number follows an answer cue (one value only), or the answer writes out one numbered
    option (``۲)قورمه‌سبزی``, the text matching)."""
    lone = _LONE.match(text)
    word = _WORD_ALONE.match(normalise_persian(text).lower())
    k = int(lone.group(1)) if lone else _NUMBER_WORDS[word.group(1)] if word else 0
    if 1 <= k <= n:
        return k - 1, False
    cued = _cued(text, n)
    if cued is not None:
        return cued, True
    numbered = _NUMBERED.findall(text)
    if len(numbered) == 1 and 1 <= int(numbered[0][0]) <= n:
        k, written = int(numbered[0][0]) - 1, _norm(numbered[0][1]).strip(" .")
        if options is None or _match_option(written, options) == k or (
                len(written) >= 3 and _norm(options[k]).startswith(written)):  # "1) Brazier" for "Brazier (manqal)"
            return k, False
    return None


def parse_answer(text: str | None, options: Sequence[str] | None = None, *, n_options: int = 4,
                 lenient: bool = False) -> Choice:
    """Parse one answer (see the module docstring for the rules); ``index`` is 0-based.

    >>> parse_answer('{"Explanation": "…", "Choice Number": "۴"}').index
    3
    >>> parse_answer("The answer is not available in the provided options").verdict
    'refusal'
    >>> p = parse_answer("به نظرم قورمه‌سبزی", ["قیمه", "قورمه‌سبزی", "ته‌دیگ", "آش"]); p.method, p.index
    ('option_text', None)
    >>> parse_answer("۱)قیمه\\n۲)قورمه‌سبزی\\n۳)ته‌دیگ", lenient=True).method
    'option_echo'
    >>> parse_answer('"Choice Number": <Sing Number 1 to 4>\\n۱)قیمه و ۲)قورمه', lenient=True).method
    'option_echo'
    """
    raw = strip_think(text).translate(_DIGITS)
    if not raw.strip():
        return Choice(None, INVALID, "empty", lenient)
    body = _PLACEHOLDER.sub("null", _FENCE.sub("", raw))  # the key keeps a value: no choice, not a dangling key
    found = _from_json(body, n_options, options)
    if found is None:
        relaxed = {int(v) for v in _RELAXED.findall(body)}
        if len(relaxed) == 1:
            k = relaxed.pop()
            found = (k - 1, "json_relaxed") if 1 <= k <= n_options else (None, "out_of_range")
        elif relaxed:
            found = (None, "ambiguous")
    if found is not None:
        index, method = found
        if method == "out_of_range" and find_refusal(body):  # {"Explanation": "نمی‌توانم…", "Choice Number": 0}
            return Choice(None, REFUSAL, REFUSAL, lenient)
        verdict = INVALID if index is None else (STRICT if method in STRICT_METHODS else LENIENT)
        return Choice(index, verdict, method, lenient)
    if find_refusal(body):
        return Choice(None, REFUSAL, REFUSAL, lenient)
    listed = {k for k, _ in _NUMBERED.findall(body)} | set(_INLINE_NUMBERED.findall(body))
    if len(listed) >= 2:  # an echoed option list (one item a line, or on one line), unless a cue answers after it
        body = _INLINE_NUMBERED.sub(" ", _NUMBERED.sub(" ", body))
        if _cued(body, n_options) is None:
            return Choice(None, INVALID, "option_echo", lenient)
    pairs = [(int(a), int(b)) for a, b in _ALTERNATIVES.findall(normalise_persian(body))]
    pairs += [(_option_number(a or c), _option_number(b or d))
              for a, b, c, d in _WORD_ALTERNATIVES.findall(normalise_persian(body))]
    if any(a != b and 1 <= a <= n_options and 1 <= b <= n_options for a, b in pairs):
        return Choice(None, INVALID, "ambiguous", lenient)  # "۲ یا ۳", "1 or 2"
    numbered = _NUMBERED.findall(body)
    if options and len(numbered) == 1 and _match_option(numbered[0][1], options) not in (int(numbered[0][0]) - 1, None):
        return Choice(None, INVALID, "ambiguous", lenient)  # "۳) کرسی": the number and the text disagree
    by_text = _match_option(body, options) if options else None
    digit = _lenient_digit(body, n_options, options)
    if digit is not None:
        index, cued = digit
        if cued and by_text not in (None, index):
            return Choice(None, INVALID, "ambiguous", lenient)  # "گزینه ۲: هل", hel being option 3
        return Choice(index, LENIENT, "digit", lenient)
    if by_text is not None:
        if _OR.search(normalise_persian(body)):
            return Choice(None, INVALID, "ambiguous", lenient)  # "X یا Y": one option named, another meant beside it
        return Choice(by_text, LENIENT, "option_text", lenient)
    return Choice(None, INVALID, "template_echo" if _PLACEHOLDER.search(raw) else INVALID, lenient)


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
