"""Corpora for the §4 analysis: where they come from, how they are tokenised, the toy bilingual
sample, word counts and BLI query selection.

* :func:`corpora` — the two monolingual corpora of a run: the files given (``given``: unverified) or our
  toy sample (``sample``), with the gold lexicon that labels the toy sample's neighbours;
* :func:`sentences` — a corpus as a restartable stream of token lists for word2vec: one sentence
  per title, ingredient line and step; jieba for Chinese (default mode, HMM on), lower-cased
  regex words and numbers for English (numbers are kept: the paper's Table 2 shows "350");
* :func:`toy_corpus` — **our** synthetic comparable corpus (not the paper's data): recipes
  generated independently in Chinese and English from one set of concept templates, where a few
  slots are filled with culture-typical words (蒸 'steam' where English recipes *bake*, 豆腐 where
  they use ham, 淀粉 'starch' where they thicken with flour, 筷子 where they use a fork …). It
  exercises the word2vec → mapping → BLI path offline and plants the kind of local mismatch the
  paper reports. Chinese words are space-separated so jieba keeps them whole.
* :func:`word_counts` — token frequencies of a sentence stream.
* :func:`content_words` — the paper's queries: the most frequent Chinese *content* words (jieba
  POS noun/verb/adjective, stop words, numerals and punctuation removed), seed words excluded.

>>> r = toy_corpus("zh", 2, seed=0)[0]
>>> sorted(r) == ["ingredients", "steps", "title"] and len(r["steps"]) >= 3
True
>>> content_words({"豆腐": 9, "的": 50, "蒸": 7, "10": 30, "菠菜": 5}, n=5, exclude={"菠菜"})
['豆腐', '蒸']
>>> tokenize_en("Bake at 350 degrees, don't stir!"), tokenize_zh("将豆腐切块，蒸10分钟")
(['bake', 'at', '350', 'degrees', "don't", 'stir'], ['将', '豆腐', '切块', '蒸', '10', '分钟'])
>>> list(sentences(lambda: [{"title": "Red Bean Soup", "ingredients": ["1 cup beans"], "steps": ["Boil."]}], "en"))
[['red', 'bean', 'soup'], ['1', 'cup', 'beans'], ['boil']]
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path

import numpy as np

from culturelab.cultural_recipes.data import iter_recipes, jieba
from culturelab.embeddings.word2vec import SentenceStream

#: a corpus: a file :func:`~culturelab.cultural_recipes.data.iter_recipes` reads, or a
#: zero-argument callable returning a fresh iterable of recipe dicts
Recipes = str | os.PathLike | Callable[[], Iterable[dict]]

#: concept → (Chinese, English); neutral concepts translate literally
NEUTRAL = {
    "egg": ("蛋", "egg"), "salt": ("盐", "salt"), "sugar": ("糖", "sugar"), "onion": ("洋葱", "onion"),
    "flour": ("面粉", "flour"), "potato": ("土豆", "potatoes"), "spinach": ("菠菜", "spinach"),
    "apple": ("苹果", "apples"), "chicken": ("鸡", "chicken"), "garlic": ("大蒜", "garlic"),
    "carrot": ("胡萝卜", "carrots"), "tomato": ("西红柿", "tomatoes"), "beef": ("牛肉", "beef"),
    "fish": ("鱼", "fish"), "water": ("水", "water"), "milk": ("牛奶", "milk"), "oil": ("油", "oil"),
    "pepper": ("胡椒", "pepper"), "vinegar": ("醋", "vinegar"), "mushroom": ("蘑菇", "mushrooms"),
    "cabbage": ("白菜", "cabbage"), "mix": ("混合", "mix"), "chop": ("切", "chop"), "pour": ("倒", "pour"),
    "add": ("加入", "add"), "stir": ("搅拌", "stir"), "boil": ("煮", "boil"), "wash": ("洗净", "wash"),
    "serve": ("装盘", "serve"), "heat": ("加热", "heat"), "cover": ("盖上", "cover"), "drain": ("沥干", "drain"),
    "knife": ("刀", "knife"), "bowl": ("碗", "bowl"), "pot": ("锅", "pot"), "plate": ("盘子", "plate"),
    "spoon": ("勺子", "spoon"), "minutes": ("分钟", "minutes"), "hour": ("小时", "hour"),
}
#: culture-specific slots: concept → ((zh typical, zh literal of the English typical),
#: (en typical, en literal of the Chinese typical)); the literal words are rare (10 %)
CULTURAL = {
    "cook_main": (("蒸", "烤"), ("bake", "steam")),
    "protein": (("豆腐", "火腿"), ("ham", "tofu")),
    "thicken": (("淀粉", "面粉"), ("flour", "starch")),
    "utensil": (("筷子", "叉子"), ("fork", "chopsticks")),
    "sauce": (("酱油", "番茄酱"), ("ketchup", "soy")),
    "staple": (("馒头", "面包"), ("bread", "buns")),
    "drink": (("茶", "咖啡"), ("coffee", "tea")),
    "vessel": (("蒸笼", "烤箱"), ("oven", "steamer")),
}
_VEG = ["spinach", "carrot", "tomato", "cabbage", "mushroom", "onion", "potato"]
_MAIN = ["chicken", "fish", "beef", "egg", "potato"]
_SEASON = ["salt", "sugar", "pepper", "vinegar"]
# sentence templates over concepts; {x} slots are filled per recipe
_TEMPLATES = [
    ["wash", "{veg}", "chop", "{veg}", "knife"],
    ["add", "{main}", "{season}", "{season}", "bowl", "mix"],
    ["{cook_main}", "{main}", "{vessel}", "{n}", "minutes"],
    ["add", "{thicken}", "water", "stir"],
    ["serve", "plate", "{staple}", "{drink}"],
    ["serve", "{utensil}", "plate"],
    ["pour", "oil", "pot", "heat", "add", "{protein}", "{veg}"],
    ["boil", "water", "pot", "add", "{veg}", "{sauce}"],
    ["cover", "pot", "{n}", "minutes", "drain"],
    ["mix", "flour", "egg", "milk", "sugar", "bowl"],
    ["add", "apple", "sugar", "boil", "{n}", "minutes"],
    ["chop", "garlic", "onion", "add", "oil", "pot"],
]


#: the size of our toy corpus per language ("all" of it: what ``max_recipes = 0`` reads)
TOY_RECIPES = 1500


def _word(concept: str, lang: int, rng: np.random.Generator, literal_rate: float) -> str:
    if concept in NEUTRAL:
        return NEUTRAL[concept][lang]
    typical, literal = CULTURAL[concept][lang]
    return literal if rng.random() < literal_rate else typical


def toy_corpus(lang: str, n_recipes: int = TOY_RECIPES, *, seed: int = 0, literal_rate: float = 0.1) -> list[dict]:
    """``n_recipes`` synthetic recipes in ``lang`` (``zh`` or ``en``); deterministic per seed and
    language (the two languages use different random streams: comparable, not parallel)."""
    if lang not in {"zh", "en"}:
        raise ValueError(f"lang must be 'zh' or 'en', not {lang!r}")
    li = 0 if lang == "zh" else 1
    rng = np.random.default_rng([seed, li])
    sep = " "
    recipes = []
    for _ in range(n_recipes):
        main = str(rng.choice(_MAIN))
        steps = []
        for t in rng.choice(len(_TEMPLATES), size=int(rng.integers(3, 7)), replace=False):
            words = []
            for slot in _TEMPLATES[t]:
                if slot == "{n}":
                    words.append(str(int(rng.choice([5, 10, 15, 20, 30]))))
                elif slot in {"{veg}", "{season}"}:
                    words.append(_word(str(rng.choice(_VEG if slot == "{veg}" else _SEASON)), li, rng, literal_rate))
                elif slot == "{main}":
                    words.append(_word(main, li, rng, literal_rate))
                elif slot.startswith("{"):
                    words.append(_word(slot[1:-1], li, rng, literal_rate))
                else:
                    words.append(_word(slot, li, rng, literal_rate))
            steps.append(sep.join(words) + (" 。" if li == 0 else " ."))
        ingredients = [_word(c, li, rng, literal_rate) for c in
                       [main, str(rng.choice(_VEG)), "salt", "oil", str(rng.choice(_SEASON))]]
        title = sep.join([_word("cook_main", li, rng, literal_rate), _word(main, li, rng, literal_rate)])
        recipes.append({"title": title, "ingredients": ingredients, "steps": steps})
    return recipes


def toy_gold() -> dict[str, dict]:
    """The toy corpus' gold lexicon of its Chinese words: ``literal`` translations and ``related``
    English words with their label (the planted culture-typical counterpart is ``cultural``;
    every other word of the lexicon has none, so its miss is an ``error``).

    >>> g = toy_gold(); g["literal"]["蒸"], g["related"]["蒸"], g["related"]["盐"]
    ({'steam'}, {'bake': 'cultural'}, {})
    """
    literal = {zh: {en} for zh, en in NEUTRAL.values()}
    related: dict[str, dict[str, str]] = {zh: {} for zh, _ in NEUTRAL.values()}
    for (zh_typ, zh_lit), (en_typ, en_lit) in CULTURAL.values():
        literal[zh_typ] = {en_lit}
        literal[zh_lit] = {en_typ}
        related[zh_typ] = {en_typ: "cultural"}
        related[zh_lit] = {}
    return {"literal": literal, "related": related}


#: the toy corpus' culture-typical Chinese words, each planted where English recipes use its counterpart
PLANTED = tuple(zh_typ for (zh_typ, _), _ in CULTURAL.values())


@dataclass(frozen=True)
class Corpora:
    """The Chinese and English corpora of one run and how to label their BLI neighbours."""

    zh: Recipes
    en: Recipes
    #: cache name of the tokenised corpora (``<name>-zh``, ``<name>-en``)
    name: str
    #: recipes read per corpus file (``None``: all)
    max_recipes: int | None
    #: ``given`` (the files given, unverified: the paper states no exact size of its corpora) or ``sample`` (our toy corpus)
    data_source: str
    #: gold literal translations and related words (:func:`toy_gold`; ``None``: CC-CEDICT and our taxonomy)
    literal: dict[str, set[str]] | None = None
    related: dict[str, dict[str, str]] | None = None


def corpora(zh_corpus: str | os.PathLike = "", en_corpus: str | os.PathLike = "", *, max_recipes: int = 0,
            seed: int = 0) -> Corpora:
    """The corpus files when both are given (the first ``max_recipes`` recipes of each, 0 = all),
    else ``max_recipes`` recipes of our toy corpus per language (0 = all of it:
    :data:`TOY_RECIPES`), with its planted gold lexicon.

    >>> c = corpora(max_recipes=3)
    >>> c.data_source, c.name, len(c.zh()), c.related["蒸"]
    ('sample', 'toy', 3, {'bake': 'cultural'})
    >>> len(corpora().en()) == TOY_RECIPES
    True
    >>> r = corpora("zh.jsonl", "en.csv", max_recipes=100)
    >>> r.data_source, r.name, r.max_recipes, r.literal
    ('given', 'recipes', 100, None)
    """
    if bool(zh_corpus) != bool(en_corpus):
        raise ValueError("give both corpus paths (zh_corpus, en_corpus) or neither")
    if zh_corpus:
        return Corpora(Path(zh_corpus), Path(en_corpus), "recipes", max_recipes or None, "given")
    gold = toy_gold()
    size = max_recipes or TOY_RECIPES
    return Corpora(lambda: toy_corpus("zh", size, seed=seed), lambda: toy_corpus("en", size, seed=seed),
                   "toy", None, "sample", gold["literal"], gold["related"])


# --------------------------------------------------------------------------- tokenisation for word2vec
_EN_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|[0-9]+(?:[./][0-9]+)?")
_KEEP_ZH = re.compile(r"[\u3400-\u9fff\w]")


def tokenize_en(text: str) -> list[str]:
    """Lower-cased words (with inner apostrophes) and numbers (``1/2`` and ``2.5`` kept whole)."""
    return _EN_TOKEN.findall(text.lower())


def tokenize_zh(text: str) -> list[str]:
    """jieba segments, punctuation and spaces dropped, Latin letters lower-cased."""
    return [t.lower() for t in jieba().lcut(text) if t.strip() and _KEEP_ZH.search(t)]


TOKENIZERS: dict[str, Callable[[str], list[str]]] = {"en": tokenize_en, "zh": tokenize_zh}


def recipe_lines(recipe: dict) -> Iterator[str]:
    """A recipe's title, ingredient lines and steps, one string each.

    >>> list(recipe_lines({"title": "Soup", "ingredients": ["beans"], "steps": ["Boil."]}))
    ['Soup', 'beans', 'Boil.']
    """
    yield recipe.get("title") or ""
    yield from recipe.get("ingredients", [])
    yield from recipe.get("steps", [])


def sentences(recipes: Recipes, lang: str, *, max_recipes: int | None = None, scope: str = "full") -> SentenceStream:
    """A corpus (file or recipe factory; the first ``max_recipes`` recipes) as a restartable
    stream of token lists, one per title, ingredient line and step (empty ones skipped)."""
    if lang not in TOKENIZERS:
        raise ValueError(f"no tokenizer for {lang!r}; use one of {sorted(TOKENIZERS)}")

    def texts() -> Iterator[str]:
        if callable(recipes):
            source = recipes() if max_recipes is None else islice(recipes(), max_recipes)
        else:
            source = iter_recipes(recipes, scope=scope, max_recipes=max_recipes)
        for recipe in source:
            yield from recipe_lines(recipe)

    return SentenceStream(texts, TOKENIZERS[lang])


def word_counts(stream: Iterable[list[str]]) -> Counter:
    """Token frequencies."""
    counts: Counter = Counter()
    for tokens in stream:
        counts.update(tokens)
    return counts


@cache
def _stopwords() -> frozenset[str]:
    import stopwordsiso

    return frozenset(stopwordsiso.stopwords("zh"))


def is_content_word(word: str) -> bool:
    """A Chinese noun, verb or adjective (jieba's dictionary POS), not a stop word, numeral,
    measure word or punctuation.

    >>> [w for w in ["豆腐", "蒸", "的", "克", "10", "，", "好"] if is_content_word(w)]
    ['豆腐', '蒸']
    """
    if not re.fullmatch(r"[\u4e00-\u9fff]+", word) or word in _stopwords():
        return False
    jieba()
    import jieba.posseg as pseg

    tags = pseg.lcut(word, HMM=False)
    if len(tags) != 1:
        return True  # a word jieba's dictionary splits is a corpus-specific compound: keep it
    flag = tags[0].flag
    return (flag[0] in {"n", "v", "a"} and flag not in {"nr", "ns", "nt", "nz"}) or flag in {"vn", "an"}


def content_words(counts: dict[str, int] | Counter, *, n: int = 100, exclude: Iterable[str] = ()) -> list[str]:
    """The ``n`` most frequent content words (``0``: all of them; ties broken alphabetically),
    ``exclude`` removed.

    >>> content_words({"豆腐": 9, "蒸": 7, "的": 50}, n=0)
    ['豆腐', '蒸']
    """
    skip = set(exclude)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    out = []
    for word, _ in ranked:
        if word in skip or not is_content_word(word):
            continue
        out.append(word)
        if n and len(out) >= n:
            break
    return out
