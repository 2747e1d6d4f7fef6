"""Decoder-LLM answers to the fill-in prompt → ingredients → "any predicted = any gold" accuracy.

The paper's parser was not released. Ours, documented and fixed:

1. **Where the answer is.** English: the text after the first "ingredient(s) of" (the echoed
   prompt "The food X has the ingredients of …"), else after "is/are/include(s)/including",
   else the whole answer. Chinese: the text between "是以" and "为主要" (the echoed template
   "美食X是以…为主要原料制作的。"), else after "主要成分/原料/食材 是/为/有/包括", else the whole answer.
2. **Splitting.** Only the first non-empty line counts (small models go on to repeat the
   prompt) — unless it introduces a list ("… ingredients of:", "主要原料有：") or is itself the
   first of several list lines: then the items of the first numbered / bulleted / markdown list
   count, each without its gloss ("**Rice** – the base"). A refusal ("I'm sorry…", "抱歉") gives
   nothing. English splits on ``,`` ``;`` ``&`` ``/`` (and full-width ，；) and the word "and"; Chinese on 、，,;；。
   whitespace and 和/与/及/或/以及. Surrounding quotes, brackets and final periods are removed.
   HTML tags, a leading list marker ("1.", "-") and an echoed instruction ("Please fill the
   sentence", "请填充这个句子", a bare "[]") are removed first, so a model that only repeats the
   prompt gives no ingredient (``valid = False``). A parenthesised remark stays part of its item
   ("meat (usually beef)" is not "meat"), since matching is exact; ``split_parentheses=True``
   splits there too (EN_en: +8 instead of +5 dishes over the paper, see the notebook).
3. **Lemmatizing.** Every English word of gold and predicted ingredients goes through
   ``simplemma`` (potatoes → potato, Spam → spam); Chinese strings are compared as they are.
4. **Accuracy** per dish = 1 if any predicted ingredient equals any gold ingredient; an answer
   with no parseable ingredient counts as wrong and is reported as ``valid = False``.

With this parser the released gpt-3.5-turbo outputs give EN_en 48.62 (paper 47.64, +5 dishes
of 508) and ZH_zh 20.28 (paper 20.28) for the "full instruction, no context" variant that the
paper reports (see ``notebooks/fmlama/04_decoder_llms``).

>>> parse_answer("The food poutine has the ingredients of french fries, gravy and cheese curds.", "en")
['french fries', 'gravy', 'cheese curds']
>>> parse_answer("美食麻婆豆腐是以豆腐、牛肉末和辣椒为主要原料制作的。", "zh")
['豆腐', '牛肉末', '辣椒']
>>> lemmatize("sweet potatoes", "en")
'sweet potato'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import pandas as pd

from culturelab.parsing import strip_think
from culturelab.stats import proportion_ci

_EN_CUES = (re.compile(r"ingredients?\s+of\s*", re.I),
            re.compile(r"\b(?:is|are|includes?|including|contains?)\s+", re.I))
_ZH_CUES = (re.compile(r"是以(.*?)为主要", re.S),
            re.compile(r"主要(?:成分|原料|食材|材料)(?:是|为|有|包括)[:：]?(.*)", re.S))
_EN_SPLIT = re.compile(r",|，|;|；|&|/|\band\b", re.I)
_ZH_SPLIT = re.compile(r"以及|[、，,;；。\s和与及或]")
_PARENS = re.compile(r"[()（）]")
_STRIP = " \t\n.\"'`[]{}:!?…*“”‘’：。！？「」『』【】#_"
_NOISE = re.compile(r"<[^>]*>|\[\s*(?:\.{3}|…)?\s*\]|please fill the sentence[^.\n]*|请(?:用一个词)?填充这个句子", re.I)
_MARKER = re.compile(r"^\s*(?:\d+\s*[.)、．:：]|[（(]\d+[)）]|[-*•·–—+]|[a-z][.)])\s*", re.I)
_INTRO = re.compile(r"[:：][\s*_]*$")
_GLOSS = re.compile(r"\s+[-–—]\s+|\s*[:：]\s+|[：:](?=\S)")
_REFUSAL = re.compile(r"^\W*(?:i'?m sorry|sorry|i (?:am|'m) not (?:sure|able|familiar)|i (?:cannot|can't|don't know)"
                      r"|as an ai|抱歉|对不起|我不(?:知道|确定|清楚)|无法)", re.I)


def _list_items(lines: list[str]) -> list[str]:
    """The first run of list-marked lines (numbered, bulleted, markdown), markers and glosses
    ("**Rice** – the base") removed."""
    items: list[str] = []
    for line in lines:
        if _MARKER.match(line):
            item = _MARKER.sub("", line, count=1).replace("**", "").replace("__", "")
            items.append(_GLOSS.split(item, maxsplit=1)[0])
        elif items:
            break
    return items


def _answer_lines(text: str) -> list[str]:
    """The part of an answer that holds the ingredients: a list under an introductory line
    ("… ingredients of:" / "主要原料有：") or the first non-empty line."""
    lines = [line.strip() for line in text.strip().split("\n") if line.strip()]
    if not lines:
        return []
    if _INTRO.search(lines[0]):
        items = _list_items(lines[1:])
        return items or lines[1:2]
    if not lines[0].strip(_STRIP):  # an echoed prompt with an empty slot
        return []
    if _MARKER.match(lines[0]) and len(lines) > 1 and _MARKER.match(lines[1]):
        return _list_items(lines)
    return [_MARKER.sub("", lines[0], count=1)]


def parse_answer(answer: str, lang: str, *, split_parentheses: bool = False) -> list[str]:
    """Predicted ingredients of one answer (``lang``: the template language, ``en`` or ``zh``).

    >>> parse_answer("rice and beans", "en")
    ['rice', 'beans']
    >>> parse_answer("The food x has the ingredients of []. Please fill the sentence.", "en")
    []
    >>> parse_answer("The main ingredients of poutine are:\\n1. French fries\\n2. Gravy", "en")
    ['French fries', 'Gravy']
    >>> parse_answer("主要原料有：\\n1. 米饭", "zh")
    ['米饭']
    """
    if lang not in {"en", "zh"}:
        raise ValueError(f"parsers exist for 'en' and 'zh', not {lang!r}")
    text = _NOISE.sub("", strip_think(str(answer or ""))).strip()
    if _REFUSAL.match(text):
        return []
    if lang == "en":
        for cue in _EN_CUES:
            m = cue.search(text)
            if m:
                text = text[m.end():]
                break
        split = _EN_SPLIT
    else:
        for cue in _ZH_CUES:
            m = cue.search(text)
            if m:
                text = m.group(1)
                break
        split = _ZH_SPLIT
    parts = [q for line in _answer_lines(text) for q in split.split(line)]
    if split_parentheses:
        parts = [q for part in parts for q in _PARENS.split(part)]
    out = []
    for part in parts:
        item = part.strip(_STRIP)
        if item:
            out.append(item)
    return out


@lru_cache(maxsize=100_000)
def lemmatize(text: str, lang: str) -> str:
    """Word-by-word lemma with ``simplemma`` for English; other languages unchanged."""
    if lang != "en":
        return text
    import simplemma

    return " ".join(simplemma.lemmatize(w, lang="en") for w in text.split())


def score_answers(answers: Sequence[str], gold: Sequence[Sequence[str]], lang: str, *,
                  split_parentheses: bool = False) -> pd.DataFrame:
    """Per answer: ``predicted`` (parsed), ``valid`` (anything parsed), ``correct`` (any match).

    >>> score_answers(["The food x has the ingredients of eggs."], [["egg", "flour"]], "en")["correct"].tolist()
    [True]
    """
    rows = []
    for answer, items in zip(answers, gold):
        predicted = parse_answer(answer, lang, split_parentheses=split_parentheses)
        pred = {lemmatize(p, lang) for p in predicted}
        ref = {lemmatize(g, lang) for g in items}
        rows.append({"predicted": predicted, "valid": bool(predicted), "correct": bool(pred & ref)})
    return pd.DataFrame(rows)


def accuracy_by_group(scored: pd.DataFrame, *, group: str = "group", groups: Sequence[str] | None = None,
                      all_label: str = "All", seed: int = 0) -> pd.DataFrame:
    """Accuracy (%) per group and pooled over all dishes, with a 95 % Wilson interval and counts —
    the layout of Table 13 (``groups`` fixes the row order).

    >>> t = pd.DataFrame({"group": ["A", "A", "B"], "correct": [True, False, True], "valid": True})
    >>> accuracy_by_group(t)[["group", "accuracy", "n"]].to_dict("records")
    [{'group': 'A', 'accuracy': 50.0, 'n': 2}, {'group': 'B', 'accuracy': 100.0, 'n': 1}, {'group': 'All', 'accuracy': 66.66666666666666, 'n': 3}]
    """
    rows = []
    names = list(groups) if groups is not None else sorted(scored[group].unique())
    for name in [*names, all_label]:
        part = scored if name == all_label else scored[scored[group] == name]
        values = part["correct"].astype(float).to_numpy()
        lo, hi = proportion_ci(int(values.sum()), len(values))
        rows.append({group: name, "accuracy": 100 * values.mean() if len(values) else float("nan"),
                     "ci_low": 100 * lo, "ci_high": 100 * hi, "n": len(values),
                     "n_correct": int(values.sum()), "invalid": int((~part["valid"]).sum())})
    return pd.DataFrame(rows)


def score_generations(generations: pd.DataFrame, setting: str, *, groups: Sequence[str] | None = None,
                      split_parentheses: bool = False, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score a generations table (``answer``, ``ingredients``, ``group``; e.g. from
    :func:`culturelab.fmlama.data.load_generations`) of one code-switching setting. Returns
    the per-dish table and the per-group accuracy table.

    >>> g = pd.DataFrame({"group": ["Japan"], "ingredients": [["rice"]], "answer": ["... ingredients of rice."]})
    >>> score_generations(g, "EN_en")[1]["accuracy"].tolist()
    [100.0, 100.0]
    """
    lang = setting.split("_")[0].lower()
    per_dish = pd.concat([generations.reset_index(drop=True),
                          score_answers(generations["answer"], generations["ingredients"], lang,
                                        split_parentheses=split_parentheses)], axis=1)
    per_dish["setting"] = setting
    table = accuracy_by_group(per_dish, groups=groups, seed=seed).assign(setting=setting)
    return per_dish, table


def model_answers(model: object, view: pd.DataFrame, setting: str, *, instruction: str = "full",
                  context: bool = False, max_new_tokens: int = 32, temperature: float = 0.0,
                  groups: Sequence[str] | None = None, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``model`` answers the fill-in prompt (:func:`~culturelab.fmlama.templates.fill_in_prompt`, one
    batched ``generate`` call: greedy, or sampled at ``temperature`` with ``seed`` as in the paper's
    T = 0.7) for every dish of a setting view
    (:func:`~culturelab.fmlama.data.setting_view`); scored as :func:`score_generations`. The per-dish
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
    prompt_list = [fill_in_prompt(d, lang, instruction=instruction, context=context,
                                  country=country_name(o, lang) if context else None)
                   for d, o in zip(view["dish"], view["origin"])]
    answers = model.generate(prompt_list, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)
    rows, acc = score_generations(view.assign(answer=answers), setting, groups=groups, seed=seed)
    rows = rows.assign(qid=rows["url"].map(qid), instruction=instruction, context=bool(context), prompt=prompt_list,
                       model=getattr(model, "spec", None))
    return rows, acc
