"""Decoder-LLM answers to the fill-in prompt → ingredients → "any predicted = any gold" accuracy.

The paper's parser was not released. Ours follows the contract of :mod:`culturelab.parsing`: each
answer is a :class:`~culturelab.parsing.Parse` whose ``answer`` is the list of ingredients read, with a
verdict (``strict``, ``lenient``, ``refusal`` or ``invalid``). The rules, fixed and measured against
hand-labelled answers (``culturelab/parsing_gold/fmlama.csv``):

1. **Cleaning.** Reasoning (``<think>…</think>``, a lone ``</think>``), HTML tags, markdown emphasis and
   an echoed instruction ("Please fill the sentence", "请填充这个句子", an empty slot ``[]``) are removed.
2. **Where the answer is** (strict). The answer is read paragraph by paragraph, sentence by sentence:
   every sentence with an ingredient cue gives the text after it — English "ingredients of", "the
   (main) ingredients (of X) are / include / :", "made from / with", "consists of", "contains",
   "includes", "the answer is"; Chinese "是以…为主要", "主要原料/成分/食材 是/为/有/包括", "原料有", "答案：",
   "…是制作…的原料", "由…制成". A list under an introductory line ("… ingredients of:", "主要原料有：")
   gives its items (markers and glosses — "**Rice** – the base" — removed). An answer without any cue
   counts when its first line is itself a list of short items ("rice, beans, pork", "糯米"). Reading
   stops at the first paragraph that gives ingredients (small models go on to repeat the prompt).
   Sentences that refuse ("Unfortunately, I don't have information…", "抱歉") are skipped; an answer
   with nothing but refusals, or that says it does not know ("unknown", 未知), is a ``refusal``. A cue
   negated in its clause ("does not have the ingredients of pork", 不是以…为主要) names no ingredient
   of the dish: it is skipped, and an answer with nothing else is ``invalid``.
3. **Items.** English splits on ``,`` ``;`` ``&`` ``/`` (and full-width ，；), "and", "or", "as well
   as", "such as", "like"; Chinese on 、，,;；和与及或以及 and white space. A parenthesised remark gives
   its items when it names ingredients ("meat (usually beef)" → meat, beef; "米饭（醋饭）" → 米饭, 醋饭;
   "tofu (豆腐)") and is dropped when it describes preparation or amount ("Beef (thinly sliced)",
   "(optional)", "(2 cups)", "（注：…）"). Hedges and qualifiers ("maybe", "usually", "typically", an
   article, "thinly sliced", "等") are trimmed; words that name no ingredient ("ingredients", "etc.",
   "spices and herbs" stays), a chat opener ("Sure!", "Certainly!") and a negated item ("not wheat")
   are dropped.
4. **Lenient** (``lenient=True``; off by default): a descriptive sentence without any ingredient cue
   ("Pho is a Vietnamese noodle soup.") is read after its copula ("is/are", "是") — a guess no grader
   would score as a named ingredient, reported as the lenient share.
5. **Matching.** Gold and predicted ingredients are case-folded, then every English word goes through
   ``simplemma`` (potatoes → potato; folding first, as simplemma keeps the case of words it does not
   know: Peanuts = peanuts); Chinese strings are compared as they are.
6. **Accuracy** per dish = 1 if any predicted ingredient equals any gold ingredient; an answer with no
   scored ingredient counts as wrong and is reported as ``valid = False`` with its verdict.

Beside it, :func:`paper_reading` (``reading="paper"``, what ``protocol: paper`` uses) is the simplest
rule consistent with the paper's Appendix C: the slot after "ingredients of" (以…为主要), else the
whole answer, split on commas and "and", lemmatized, matched as written. How far each reading lies
from Table 13 on the released answers is measured in ``notebooks/fmlama/04_decoder_llms`` (and
pinned in ``tests/fmlama/test_generations.py``); why the authors' numbers differ from ours is not
known, as their parser is not released.

>>> parse_answer("The food poutine has the ingredients of french fries, gravy and cheese curds.", "en").answer
['french fries', 'gravy', 'cheese curds']
>>> parse_answer("美食麻婆豆腐是以豆腐、牛肉末和辣椒为主要原料制作的。", "zh").answer
['豆腐', '牛肉末', '辣椒']
>>> lemmatize("sweet potatoes", "en")
'sweet potato'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import pandas as pd

from culturelab.parsing import (
    INVALID,
    LENIENT,
    REFUSAL,
    STRICT,
    Parse,
    find_refusal,
    lenient_share,
    strip_think,
)
from culturelab.stats import proportion_ci

LANGS = ("en", "zh")
#: how an answer is read: ``strict`` our parser's contract (module docstring), ``paper`` the simplest reading
#: consistent with the paper's Appendix C (:func:`paper_reading`), the one ``protocol: paper`` uses
READINGS = ("strict", "paper")
_EN_CUES = (
    re.compile(r"\bingredients?\b(?:\s+(?:of|in|for|used\s+in|needed\s+for)\b"
               r"(?:(?!\b(?:which|that|who|and\s+it)\b|,\s*and\b)[^;:\n]){0,60}?)?"
               r"\s*(?:\b(?:are|is|include|includes|would\s+be|consist\s+of)\b\s*:?|:)\s*", re.I),
    re.compile(r"\bingredients?\s+of\s*", re.I),
    re.compile(r"^(.+?)\s+(?:are|is|form|make\s+up)\s+(?:the\s+)?(?:main\s+|primary\s+|key\s+|basic\s+|principal\s+)?"
               r"ingredients?\b", re.I),
    re.compile(r"\b(?:made|prepared|cooked)\s+(?:primarily\s+|mainly\s+|mostly\s+|usually\s+|typically\s+)?"
               r"(?:from|with|of|using)\s+|\bconsists?\s+(?:mainly\s+|primarily\s+|mostly\s+)?of\s+"
               r"|\b(?:contains?|includes?|including|features?|uses?)\s+", re.I),
    re.compile(r"\b(?:the\s+)?answer\s*(?:is)?\s*[:：]?\s+|^answer\s*[:：]\s*", re.I),
)
_ZH_CUES = (re.compile(r"以(.*?)为主要", re.S),
            re.compile(r"^(.*?)是制作.{0,20}?的(?:主要|常用|常见|基本)?(?:原料|食材|材料)", re.S),
            re.compile(r"主要(?:成分|原料|食材|材料|配料)(?:是|为|有|包括|包含)?[:：]?(.*)", re.S),
            re.compile(r"(?:原料|食材|材料|配料|成分)(?:主要|通常|一般)?(?:(?:有|是|为|包括|包含)[:：]?|[:：])(.*)", re.S),
            re.compile(r"答案(?:(?:是|为)[:：]?|[:：])(.*)", re.S),
            re.compile(r"由(.*?)(?:制成|做成|制作)", re.S),
            re.compile(r"(?:包括|包含|含有)(.*)", re.S))
_EN_COPULA = re.compile(r"\b(?:is|are|was|were)\s+", re.I)
_ZH_COPULA = re.compile(r"是(.*)", re.S)
_EN_SPLIT = re.compile(r",|，|;|；|&|/|(?<![\w-])(?:and|or|as\s+well\s+as|along\s+with|plus|such\s+as|like|including"
                       r"|(?:mixed|filled|topped|stuffed|coated|covered|sprinkled|drizzled|glazed|seasoned|flavou?red|marinated)\s+with"
                       r"|wrapped\s+in"
                       r"|served\s+(?:with|in|on|over|alongside)|(?:sandwiched\s+)?between|made\s+(?:from|with|of)|with|e\.g\.|i\.e\.)\b",
                       re.I)
_ZH_SPLIT = re.compile(r"以及|或者|例如|比如|[、，,;；]")
_ZH_WORDS = re.compile(r"[\s和与及或]")  # then within a piece that is not a clause
_PAREN = re.compile(r"\s*[(（]([^()（）]*)[)）]")
_PREPARATION = re.compile(r"^\s*(?:注|note\b|optional|to taste|for (?:garnish|serving|decoration)|\d|about\b|approx"
                          r"|(?:thinly|finely|roughly|freshly|coarsely)?\s*(?:sliced|chopped|diced|minced|grated|shredded"
                          r"|peeled|crushed|cut|cubed|mashed|cooked|boiled|fried|steamed|soaked|beaten|melted|softened)\b"
                          r"|可选|适量|少许|切)", re.I)
_HEDGE = re.compile(r"^(?:(?:but|maybe|perhaps|possibly|probably|also|usually|typically|often|sometimes|mainly"
                    r"|mostly|optionally|generally|commonly|traditionally|then|other|some|various|a|an|the|of|fresh"
                    r"|includes?|contains?|features?|uses?"
                    r"|(?:thinly|finely|roughly|freshly|coarsely)\s+(?:sliced|chopped|diced|minced|grated|shredded)"
                    r"|(?:a\s+)?(?:variety|mix|mixture|combination|selection|type|kind|bowl|piece|slice)s?\s+of"
                    r"|assorted|two|three|several|many|few)\b\s*)+", re.I)
_HEDGE_ZH = re.compile(r"^(?:如|例如|比如|通常|一般|主要|可能|也许|还有|以及|及|和|各种|一些|少量|由)+")
_NOT_ITEM = re.compile(r"^(?:served|which|that|topped|garnished|wrapped|eaten|it|this|they|then|to|for|in\s+a)\b"
                       r"|^(?:其他|其它|另外|额外)", re.I)
#: an "item" that is a clause, not an ingredient name ("The food is delicious", "鸭血的营养价值很高", garbled text)
_PROSE = {"en": re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|it's|i|you|we|this|delicious|tasty)\b|\ufffd|^\W*\d*\W*$",
                           re.I),
          "zh": re.compile(r"是|很|非常|可以|需要|用来|制作|做法|方法|营养|味道|口感|好吃|美味|\ufffd|^\W*\d*\W*$")}
_COORDINATED = re.compile(r"\b[a-z]+ed\s+and\s+(?:[a-z]+-)?[a-z]+ed\s+(?=\w)", re.I)  # "breaded and deep-fried" pork
_GENERIC = {"ingredient", "ingredients", "etc", "others", "more", "and more", "many more", "filling", "fillings",
            "topping", "toppings", "addition", "additions", "optional additions", "garnish", "garnishes", "flavors",
            "flavours",
            "component", "components", "dish", "food", "原料", "食材", "材料", "等", "其他", "其他填料", "配料", "馅料"}
#: discourse words that open a chat answer ("Sure! The food …"): never an ingredient
_FILLER = {"sure", "certainly", "of course", "okay", "ok", "yes", "absolutely", "alright", "great", "well", "hello",
           "hi", "hmm", "here", "note", "好的", "当然", "是的"}
#: an answer that says it does not know ("unknown", 未知): a refusal, never an ingredient
_UNKNOWN = re.compile(r"(?<![\w-])(?:unknown|not known|n/a|未知|不详|不知道)(?![\w-])", re.I)
#: a negation in the clause of the cue ("does not have the ingredients of pork", 不是以…为主要); Chinese words
#: only, as 不/无 alone open dish names (无锡排骨); "no" only right before the cue's "ingredients" ("has no [known]
#: ingredients of"), as it is a word of dish names (Kaki no tane, Pato no tucupi)
_NEGATION = {"en": re.compile(r"\b(?:not|never|without|cannot|lacks?|lacking)\b|n't\b|\bno\s+(?:\w+\s+)?(?:ingredients?\b.*)?$", re.I),
             "zh": re.compile(r"不是|并非|并不|不含|不包[括含]|不需要|不用|没有")}
_CLAUSE = re.compile(r".*[;；,，:：]|.*\b(?:but|however)\b", re.I | re.S)
_STRIP = " \t\n.\"'`[]{}:!?…*“”‘’：。！？「」『』【】#_"
_NOISE = re.compile(r"<[^>]*>|\[\s*(?:\.{3}|…|[A-Z]|(?:ingredients?|food|item)\s*\d*)?\s*\]|please fill (?:in )?the sentence[^.\n]*|请(?:用一个词)?填充这个句子", re.I)
_MARKER = re.compile(r"^\s*(?:\d+\s*[.)、．:：]|[（(]\d+[)）]|[-*•·–—+]|[a-z][.)])\s*", re.I)
_INTRO = re.compile(r"[:：]\s*$")
_GLOSS = re.compile(r"\s+[-–—]\s+|\s*[:：]\s+|[：:](?=\S)")
_LIST_END = {"en": re.compile(r"(?:,\s*|\s+)(?:which|who|where|and\s+(?:it|then|is|are)|it\s+is|they\s+are)\b"
                              r"|,\s*(?:that|then|before|after)\b|\s+as\s+(?:the\s+)?(?:main|primary|key|principal|"
                              r"basic)?\s*ingredients?\b|\s+instead\s+of\b", re.I),
             "zh": re.compile(r"[，,]\s*(?:然后|再|并|可以|通常搭配|搭配)")}
_SENTENCE = {"en": re.compile(r"(?<!\bSt\.)(?<!\bMt\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)(?<=[.!?])\s+(?=[A-Z\"“(])"
                              r"|(?<=[.!?])$"), "zh": re.compile(r"(?<=[。！？!?])")}
_VERB = {"en": re.compile(r"\b(?:is|are|was|were|be|has|have|had|it's|i|you|we|this|that|which|dish|food|served"
                          r"|typically|usually|made|cooked|known|called|popular)\b", re.I),
         "zh": re.compile(r"是|这|我|一种|一道|一款|制作|做成|美食")}


def _clean(item: str, lang: str) -> str:
    """An item without quotes, hedges, articles, preparation words and a trailing "etc."/"等"."""
    item = item.replace("**", "").replace("__", "").strip(_STRIP)
    item = re.sub(r"\s+(?:etc\.?|and so on)$", "", item, flags=re.I).strip(_STRIP)
    if lang == "zh":
        item = _HEDGE_ZH.sub("", re.sub(r"等.*$", "", item)).strip(_STRIP)
    item = _HEDGE.sub("", item).strip(_STRIP)
    prose = _PROSE[lang].search(item) or (lang == "zh" and _PROSE["en"].search(item))
    word = item.casefold()
    negated = lang == "en" and re.match(r"(?:no|not|never|without)\b", word)
    return "" if word in _GENERIC or word in _FILLER or _UNKNOWN.fullmatch(word) or negated \
        or _NOT_ITEM.match(item) or prose else item


def _split(text: str, lang: str) -> list[str]:
    """``text`` cut into candidate items (Chinese: at punctuation, then at spaces and 和/与/及/或 inside
    a piece that is not an English clause — "The food is delicious" must not become "food")."""
    if lang == "en":
        return _EN_SPLIT.split(text)
    return [w for p in _ZH_SPLIT.split(text) if not _PROSE["en"].search(p) for w in _ZH_WORDS.split(p)]


def _items(text: str, lang: str) -> list[str]:
    """Ingredients named in a piece of text: split, parenthesised remarks read (right after their
    item) or dropped, cleaned."""
    remarks: list[str] = []

    def hold(m: re.Match) -> str:
        remarks.append(m.group(1))
        return f" \x00{len(remarks) - 1}\x00 "

    out: list[str] = []
    for piece in _split(_PAREN.sub(hold, _COORDINATED.sub("", text) if lang == "en" else text), lang):
        held = [remarks[int(k)] for k in re.findall(r"\x00(\d+)\x00", piece)]
        for item in [_clean(re.sub(r"\s*\x00\d+\x00\s*", " ", piece), lang),
                     *(_clean(x, lang) for r in held if not _PREPARATION.match(r) for x in _split(r, lang))]:
            if item and item not in out:
                out.append(item)
    return out


def _list_items(lines: list[str], lang: str) -> tuple[list[str], int]:
    """The first run of list-marked lines (numbered, bulleted, markdown), markers and glosses
    ("**Rice** – the base") removed, and how many lines were read."""
    items: list[str] = []
    for k, line in enumerate(lines):
        if _MARKER.match(line):
            item = _MARKER.sub("", line, count=1).replace("**", "").replace("__", "")
            items.extend(i for i in _items(_GLOSS.split(item, maxsplit=1)[0], lang) if i not in items)
        elif items:
            return items, k
    return items, len(lines)


def _cue_items(sentence: str, lang: str) -> list[str] | None:
    """The ingredients the first ingredient cue (in priority order) points to in one sentence, up to
    where the list ends; ``None`` without a cue, ``[]`` when the cue is negated ("does not have the
    ingredients of pork" names no ingredient of the dish)."""
    negated = False
    for cue in _EN_CUES if lang == "en" else _ZH_CUES:
        for m in cue.finditer(sentence):
            if _NEGATION[lang].search(_CLAUSE.sub("", sentence[:m.start() if cue.groups else m.end()])):
                negated = True
                continue
            after = m.group(1) if cue.groups else sentence[m.end():]
            return _items(_LIST_END[lang].split(after, maxsplit=1)[0], lang)
    return [] if negated else None


def _read(text: str, lang: str) -> tuple[list[str], list[str], bool]:
    """(strict items, lenient items, refused) of a cleaned answer, read paragraph by paragraph."""
    paragraphs = [line.strip() for line in text.split("\n") if line.strip(_STRIP)]
    found: list[str] = []
    loose: list[str] = []
    refused = False
    k = 0
    while k < len(paragraphs):
        line = paragraphs[k]
        listed, cue_seen = None, False
        if _INTRO.search(line.replace("**", "")) and not find_refusal(line):  # "Ingredients:" then a list
            listed, used = _list_items(paragraphs[k + 1:], lang)
            if not listed and k + 1 < len(paragraphs):
                listed, used = _items(paragraphs[k + 1], lang), 1
            k += used
        elif k == 0 and _MARKER.match(line) and len(paragraphs) > 1 and _MARKER.match(paragraphs[1]):
            listed, used = _list_items(paragraphs, lang)
            k += used - 1
        for sentence in [] if listed is not None else _SENTENCE[lang].split(_MARKER.sub("", line, count=1)):
            if not sentence.strip(_STRIP):
                continue
            if find_refusal(sentence):
                refused = True
                continue
            cued = _cue_items(sentence, lang)
            if cued is not None:
                listed, cue_seen = [*(listed or []), *cued], True
            elif k == 0 and not found and not listed and not _VERB[lang].search(sentence):
                listed = _items(sentence, lang)  # a bare list: "rice, beans", "糯米"
            elif not loose:
                copula = (_EN_COPULA if lang == "en" else _ZH_COPULA).search(sentence)
                loose = _items(sentence[copula.end():] if copula and lang == "en" else
                               (copula.group(1) if copula else sentence), lang)
        found += [i for i in listed or [] if i not in found]
        if k == 0 and cue_seen and not found:
            break  # an echoed template with an empty slot: what follows is not read
        k += 1
    return found, loose, refused


def parse_answer(answer: str | None, lang: str, *, lenient: bool = False) -> Parse:
    """The ingredients one answer names (``lang``: the template language, ``en`` or ``zh``), as a
    :class:`~culturelab.parsing.Parse` (``answer``: the list; ``None`` when nothing was read).

    >>> parse_answer("rice and beans", "en").answer
    ['rice', 'beans']
    >>> parse_answer("The food x has the ingredients of []. Please fill the sentence.", "en").verdict
    'invalid'
    >>> parse_answer("The main ingredients of poutine are:\\n1. French fries\\n2. Gravy", "en").answer
    ['French fries', 'Gravy']
    >>> p = parse_answer("Pho is a Vietnamese noodle soup.", "en"); p.verdict, p.answer, p.value
    ('lenient', ['Vietnamese noodle soup'], None)
    """
    if lang not in LANGS:
        raise ValueError(f"parsers exist for 'en' and 'zh', not {lang!r}")
    text = _NOISE.sub("", strip_think(str(answer or ""))).strip()
    strict, loose, refused = _read(text, lang)
    if strict:
        return Parse(strict, STRICT, "cue_or_list", lenient)
    if refused or find_refusal(text) or _UNKNOWN.search(text):
        return Parse(None, REFUSAL, REFUSAL, lenient)
    if loose:
        return Parse(loose, LENIENT, "copula", lenient)
    return Parse(None, INVALID, "empty" if not text.strip(_STRIP) else INVALID, lenient)


_PAPER_SLOT = {"en": re.compile(r"ingredients of\s*(.*)", re.I | re.S), "zh": re.compile(r"以(.*?)为主要", re.S)}
_PAPER_SPLIT = {"en": re.compile(r",|\band\b"), "zh": re.compile(r"[、，,和]")}


def paper_reading(answer: str | None, lang: str) -> Parse:
    """The simplest reading of an answer consistent with the paper's Appendix C ("we parse the text …
    to obtain the final predicted object list", then lemmatize): the slot of the echoed template —
    the text after "ingredients of" (Chinese: between 以 and 为主要) — else the whole answer, split on
    commas and "and" (、，, 和). No cue list, no refusal detection: whatever the slot holds is an
    item (``strict``; nothing read: ``invalid``). Scored case-sensitively (:func:`score_answers`).

    >>> paper_reading("The food poutine has the ingredients of fries, gravy and cheese curds.", "en").answer
    ['fries', 'gravy', 'cheese curds']
    >>> paper_reading("美食麻婆豆腐是以豆腐和牛肉末为主要原料制作的。", "zh").answer, paper_reading("rice.", "en").answer
    (['豆腐', '牛肉末'], ['rice'])
    """
    if lang not in LANGS:
        raise ValueError(f"readings exist for 'en' and 'zh', not {lang!r}")
    text = str(answer or "")
    slot = _PAPER_SLOT[lang].search(text)
    items = [i.strip(" \t\n.[]\"'。") for i in _PAPER_SPLIT[lang].split(slot.group(1) if slot else text)]
    items = [i for i in items if i]
    return Parse(items, STRICT, "slot" if slot else "whole") if items else Parse(None, INVALID, "empty")


def read_answer(answer: str | None, lang: str, *, reading: str = "strict", lenient: bool = False) -> Parse:
    """One answer read by ``reading`` (:data:`READINGS`): our parser (:func:`parse_answer`, ``lenient``
    readings scored only when asked) or the paper's (:func:`paper_reading`).

    >>> read_answer("Sure! The food x has the ingredients of rice.", "en", reading="paper").answer
    ['rice']
    """
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, not {reading!r}")
    return paper_reading(answer, lang) if reading == "paper" else parse_answer(answer, lang, lenient=lenient)


@lru_cache(maxsize=100_000)
def lemmatize(text: str, lang: str) -> str:
    """Word-by-word lemma with ``simplemma`` for English; other languages unchanged."""
    if lang != "en":
        return text
    import simplemma

    return " ".join(simplemma.lemmatize(w, lang="en") for w in text.split())


def match_key(item: str, lang: str) -> str:
    """What a predicted and a gold ingredient are compared by: case-folded, then lemmatized word by
    word (simplemma keeps the case of words it does not know, so folding comes first).

    >>> match_key("Peanuts", "en") == match_key("peanut", "en"), match_key("Spam", "en")
    (True, 'spam')
    """
    return lemmatize(item.casefold(), lang)


def score_answers(answers: Sequence[str], gold: Sequence[Sequence[str]], lang: str, *,
                  lenient: bool = False, reading: str = "strict") -> pd.DataFrame:
    """Per answer: ``predicted`` (the ingredients scored), ``parse_verdict``, ``valid`` (an answer is
    scored), ``correct`` (any match); lenient readings count only with ``lenient=True``. ``reading``
    (:func:`read_answer`): ``strict`` matches case-insensitively (:func:`match_key`), ``paper`` as
    written, lemmatized (Appendix C names no case folding).

    >>> score_answers(["The food x has the ingredients of eggs.", "Flan is a custard."], [["egg"], ["egg"]],
    ...               "en")[["predicted", "parse_verdict", "correct"]].values.tolist()
    [[['eggs'], 'strict', True], [[], 'lenient', False]]
    """
    rows = []
    for answer, items in zip(answers, gold):
        parsed = read_answer(answer, lang, reading=reading, lenient=lenient)
        predicted = parsed.value or []
        key = match_key if reading == "strict" else lemmatize
        pred = {key(p, lang) for p in predicted}
        ref = {key(g, lang) for g in items}
        rows.append({"predicted": predicted, "parse_verdict": parsed.verdict, "valid": parsed.valid,
                     "correct": bool(pred & ref)})
    return pd.DataFrame(rows, columns=["predicted", "parse_verdict", "valid", "correct"])


def accuracy_by_group(scored: pd.DataFrame, *, group: str = "group", groups: Sequence[str] | None = None,
                      all_label: str = "All", seed: int = 0) -> pd.DataFrame:
    """Accuracy (%) per group and pooled over all dishes, with a 95 % Wilson interval and counts —
    the layout of Table 13 (``groups`` fixes the row order) —, the share of valid answers
    (``valid_share``: read by the reading, a figure shows it beside the accuracy) and the ``lenient``
    share of answers (read only by lenient rules, :mod:`culturelab.parsing`; NaN without a
    ``parse_verdict`` column).

    >>> t = pd.DataFrame({"group": ["A", "A", "B"], "correct": [True, False, True], "valid": [True, False, True]})
    >>> accuracy_by_group(t)[["group", "accuracy", "n", "valid_share"]].to_dict("records")
    [{'group': 'A', 'accuracy': 50.0, 'n': 2, 'valid_share': 0.5}, {'group': 'B', 'accuracy': 100.0, 'n': 1, 'valid_share': 1.0}, {'group': 'All', 'accuracy': 66.66666666666666, 'n': 3, 'valid_share': 0.6666666666666666}]
    """
    rows = []
    names = list(groups) if groups is not None else sorted(scored[group].unique())
    for name in [*names, all_label]:
        part = scored if name == all_label else scored[scored[group] == name]
        values = part["correct"].astype(float).to_numpy()
        lo, hi = proportion_ci(int(values.sum()), len(values))
        rows.append({group: name, "accuracy": 100 * values.mean() if len(values) else float("nan"),
                     "ci_low": 100 * lo, "ci_high": 100 * hi, "n": len(values),
                     "n_correct": int(values.sum()), "invalid": int((~part["valid"]).sum()),
                     "valid_share": float(part["valid"].mean()) if len(part) else float("nan"),
                     "lenient": lenient_share(part["parse_verdict"]) if "parse_verdict" in part else float("nan")})
    return pd.DataFrame(rows)


def score_generations(generations: pd.DataFrame, setting: str, *, groups: Sequence[str] | None = None,
                      lenient: bool = False, reading: str = "strict",
                      seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score a generations table (``answer``, ``ingredients``, ``group``; e.g. from
    :func:`culturelab.fmlama.data.load_generations`) of one code-switching setting, read by
    ``reading`` (:data:`READINGS`: our ``strict`` parser, ``lenient`` readings scored too when asked,
    or the ``paper``'s). Returns the per-dish table and the per-group accuracy table (both with
    ``setting`` and ``reading``).

    >>> g = pd.DataFrame({"group": ["Japan"], "ingredients": [["rice"]], "answer": ["Sure! Rice."]})
    >>> score_generations(g, "EN_en")[1]["accuracy"].tolist(), score_generations(g, "EN_en", reading="paper")[1]["accuracy"].tolist()
    ([100.0, 100.0], [0.0, 0.0])
    """
    lang = setting.split("_")[0].lower()
    per_dish = pd.concat([generations.reset_index(drop=True),
                          score_answers(generations["answer"], generations["ingredients"], lang,
                                        lenient=lenient, reading=reading)], axis=1)
    per_dish["setting"] = setting
    per_dish["reading"] = reading
    table = accuracy_by_group(per_dish, groups=groups, seed=seed).assign(setting=setting, reading=reading)
    return per_dish, table


def reading_gaps(accuracy: pd.DataFrame, reported: pd.DataFrame, *, on: Sequence[str] = ("setting",),
                 group: str = "All") -> pd.DataFrame:
    """Each reading's accuracy beside the ``reported`` one (``value``), per ``on`` key, for one
    ``group``: ``reported``, then per reading (``accuracy`` rows carry ``reading``) its accuracy and
    its gap in points (``<reading> − reported``); ``n`` the dishes.

    >>> acc = pd.DataFrame({"setting": "EN_en", "group": "All", "reading": ["strict", "paper"], "accuracy": [52.0, 48.4],
    ...                     "n": 508})
    >>> reading_gaps(acc, pd.DataFrame({"setting": ["EN_en"], "group": "All", "value": [47.64]})).round(2).to_dict("records")
    [{'setting': 'EN_en', 'n': 508, 'reported': 47.64, 'paper': 48.4, 'paper − reported': 0.76, 'strict': 52.0, 'strict − reported': 4.36}]
    """
    keys = list(on)
    rows = accuracy[accuracy["group"] == group]
    wide = rows.pivot_table(index=keys, columns="reading", values="accuracy")
    paper = reported[reported["group"] == group].set_index(keys)["value"].rename("reported")
    out = rows.groupby(keys)["n"].first().to_frame().join(paper, how="inner")
    for name in [r for r in ("paper", "strict") if r in wide]:
        out[name] = wide[name]
        out[f"{name} − reported"] = out[name] - out["reported"]
    return out.reset_index()


def best_variant(accuracy: pd.DataFrame, *, by: Sequence[str] = ("model", "setting"),
                 all_label: str = "All") -> pd.DataFrame:
    """The paper's "best-performing settings" (App. C): per ``by`` cell, the rows of the prompt
    variant (``instruction`` × ``context``) with the highest ``all_label`` accuracy (the first listed
    on a tie), marked ``best_of`` (how many variants competed).

    >>> acc = pd.DataFrame({"model": "m", "setting": "EN_en", "group": ["All", "All"], "instruction": ["full", "one"],
    ...                     "context": False, "accuracy": [40.0, 45.0]})
    >>> best_variant(acc)[["instruction", "best_of"]].values.tolist()
    [['one', 2]]
    """
    keys, variant = list(by), ["instruction", "context"]
    pooled = accuracy[accuracy["group"] == all_label]
    best = pooled.loc[pooled.groupby(keys, sort=False)["accuracy"].idxmax(), [*keys, *variant]]
    counts = pooled.groupby(keys, sort=False).size().rename("best_of").reset_index()
    return accuracy.merge(best, on=[*keys, *variant]).merge(counts, on=keys)


def model_answers(model: object, view: pd.DataFrame, setting: str, *, instruction: str = "full",
                  context: bool = False, max_new_tokens: int = 32, temperature: float = 0.0,
                  groups: Sequence[str] | None = None, lenient: bool = False, reading: str = "strict",
                  countries: Mapping[str, str] | None = None, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``model`` answers the fill-in prompt (:func:`~culturelab.fmlama.templates.fill_in_prompt`, one
    batched ``generate`` call: greedy, or sampled at ``temperature`` with ``seed`` as in the paper's
    T = 0.7) for every dish of a setting view
    (:func:`~culturelab.fmlama.data.setting_view`); scored as :func:`score_generations` (``reading``).
    With ``context``, the country is ``countries[url]`` where given (e.g. the release's Wikidata
    labels, ``origin_name``, which the paper's prompts used), else CLDR's. The per-dish
    table also holds ``qid``, ``instruction``, ``context``, ``prompt`` and ``model`` (the spec).

    >>> class Echo:
    ...     spec = "echo"
    ...     def generate(self, prompts, **kw): return ["rice and beans"] * len(prompts)
    >>> view = pd.DataFrame({"url": ["http://www.wikidata.org/entity/Q1"], "origin": ["Japan"], "group": ["Japan"],
    ...                      "dish": ["onigiri"], "ingredients": [["rice"]], "lang": ["en"]})
    >>> rows, acc = model_answers(Echo(), view, "EN_en")
    >>> rows.loc[0, "qid"], rows.loc[0, "prompt"], rows.loc[0, "predicted"], float(acc["accuracy"].iloc[-1])
    ('Q1', 'The food onigiri has the ingredients of []. Please fill the sentence.', ['rice', 'beans'], 100.0)
    """
    from culturelab.fmlama.data import qid
    from culturelab.fmlama.templates import country_name, fill_in_prompt

    lang = setting.split("_")[0].lower()
    named = countries or {}
    prompt_list = [fill_in_prompt(d, lang, instruction=instruction, context=context,
                                  country=(named.get(u) or country_name(o, lang)) if context else None)
                   for u, d, o in zip(view["url"], view["dish"], view["origin"])]
    answers = model.generate(prompt_list, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)
    rows, acc = score_generations(view.assign(answer=answers), setting, groups=groups, lenient=lenient,
                                  reading=reading, seed=seed)
    rows = rows.assign(qid=rows["url"].map(qid), instruction=instruction, context=bool(context), prompt=prompt_list,
                       model=getattr(model, "spec", None))
    return rows, acc
