"""Word lists of the paper's §4 and §7, as versioned data files in ``resources/``.

* :func:`seed_pairs` — the 15 "culturally neutral" seed pairs of fn. 11, in three variants:
  ``paper`` (as printed, with the OCR error 镯 → 倒 fixed), ``printed`` (exactly as extracted,
  镯 'bracelet' included), ``cut`` (劈 'cleave' replaced by the everyday 切);
* :func:`taxonomy` / :func:`word_classes` / :func:`related_words` — our taxonomy of cooking words
  (``resources/taxonomy.yaml``: domains such as cooking method or protein food, split into classes
  by function — moist, dry or fat heat; meat, soy and legumes …; its source is stated in the file),
  which labels a non-literal neighbour *automatically*: ``near-literal`` in the query's class,
  ``cultural`` in its domain but another class;
* :func:`literal_translations` — CC-CEDICT glosses (plus the seed pairs) of Chinese queries.

>>> seed_pairs()[:2]
[('菠菜', 'spinach'), ('洋葱', 'onion')]
>>> dict(seed_pairs("printed"))["镯"], dict(seed_pairs("cut"))["切"]
('pour', 'chop')
>>> r = related_words(["蒸", "炒"], {"蒸": {"steam"}, "炒": {"stir-fry", "saute"}})
>>> r["蒸"]["bake"], r["蒸"]["boiled"], r["炒"]["fry"], "steam" in r["蒸"]
('cultural', 'near-literal', 'near-literal', False)
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import pandas as pd
import yaml

SEED_VARIANTS = {"paper": "zh", "printed": "zh_printed", "cut": "zh_cut"}


def _resource(name: str) -> Any:
    return resources.files("culturelab.cultural_recipes") / "resources" / name


@cache
def _seed_table() -> pd.DataFrame:
    with _resource("seed_dictionary.tsv").open(encoding="utf-8") as fh:
        return pd.read_csv(fh, sep="\t", dtype=str, keep_default_na=False)


def seed_pairs(variant: str = "paper") -> list[tuple[str, str]]:
    """The 15 seed pairs as ``(Chinese, English)`` — Chinese is the source side of the mapping."""
    if variant not in SEED_VARIANTS:
        raise ValueError(f"seed dictionary variant must be one of {sorted(SEED_VARIANTS)}, not {variant!r}")
    table = _seed_table()
    return list(zip(table[SEED_VARIANTS[variant]], table["en"]))


@cache
def taxonomy() -> dict[str, Any]:
    """Our taxonomy of cooking words: ``domains`` (domain → class → English base forms), its
    ``version``; the file's header states its source."""
    with _resource("taxonomy.yaml").open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _forms(word: str) -> set[str]:
    """A base form with the plural, past and -ing forms a recipe corpus writes (over-generating
    is harmless: a form no corpus has is never a neighbour)."""
    out = {word, word + "s", word + "es", word + "ed", word + "d", word + "ing"}
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        out |= {word[:-1] + "ies", word[:-1] + "ied"}
    if word.endswith("e"):
        out.add(word[:-1] + "ing")
    if word.endswith(("f", "fe")):
        out.add(word.rsplit("f", 1)[0] + "ves")
    if "-" in word:
        out |= {word.replace("-", ""), word.replace("-", " ")}
    return out


@cache
def _class_index() -> dict[str, frozenset[tuple[str, str]]]:
    index: dict[str, set[tuple[str, str]]] = {}
    for domain, classes in taxonomy()["domains"].items():
        for name, members in classes.items():
            for member in members:
                for form in _forms(str(member)):
                    index.setdefault(form, set()).add((domain, name))
    return {form: frozenset(found) for form, found in index.items()}


def word_classes(word: str) -> frozenset[tuple[str, str]]:
    """The ``(domain, class)`` pairs of an English word (any of its inflected forms).

    >>> sorted(word_classes("fried")), sorted(word_classes("loaves")), sorted(word_classes("350"))
    ([('cooking_method', 'fat_heat')], [('grain_food', 'bread')], [])
    >>> sorted(word_classes("knives"))
    [('utensil', 'cutting_tool'), ('utensil', 'eating_utensil')]
    """
    return _class_index().get(word.lower(), frozenset())


def related_words(words: list[str], glosses: dict[str, set[str]]) -> dict[str, dict[str, str]]:
    """For each Chinese query, the taxonomy's English words with their automatic label: a word in
    one of the query's classes (the classes of its ``glosses``) is ``near-literal``, one in one of
    its domains but in none of its classes ``cultural``; the glosses themselves are left out (they
    are literal). A query none of whose glosses is in the taxonomy is left out (its misses cannot
    be judged: ``unlabelled``).

    >>> r = related_words(["牛肉", "豆腐"], {"牛肉": {"beef"}, "豆腐": {"tofu", "curd"}})
    >>> r["牛肉"]["pork"], r["豆腐"]["ham"], r["豆腐"]["beans"], "bake" in r["豆腐"]
    ('near-literal', 'cultural', 'near-literal', False)
    """
    index = _class_index()
    out: dict[str, dict[str, str]] = {}
    for w in words:
        gloss = glosses.get(w, set())
        classes = set().union(*(index.get(g, frozenset()) for g in gloss)) if gloss else set()
        if not classes:
            continue
        domains = {d for d, _ in classes}
        labels: dict[str, str] = {}
        for form, found in index.items():
            if form in gloss:
                continue
            if found & classes:
                labels[form] = "near-literal"
            elif any(d in domains for d, _ in found):
                labels[form] = "cultural"
        out[w] = labels
    return out


def literal_translations(words: list[str], *, seed_variant: str = "paper") -> dict[str, set[str]]:
    """Literal English translations of Chinese words: CC-CEDICT single-word glosses (with
    plural/singular variants) plus the seed dictionary.

    >>> {"pot", "pots", "wok"} <= literal_translations(["锅"])["锅"]
    True
    """
    from culturelab.embeddings.dictionaries import cedict_glosses

    out = cedict_glosses(words)
    for zh, en in seed_pairs(seed_variant):
        if zh in out:
            out[zh] = out[zh] | {en}
    return out
