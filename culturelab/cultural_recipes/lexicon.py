"""Word lists of the paper's §4 and §7, as versioned data files in ``resources/``.

* :func:`seed_pairs` — the 15 "culturally neutral" seed pairs of fn. 11, in three variants:
  ``paper`` (as printed, with the OCR error 镯 → 倒 fixed), ``printed`` (exactly as extracted,
  镯 'bracelet' included), ``cut`` (劈 'cleave' replaced by the everyday 切);
* :func:`taxonomy` / :func:`cultural_equivalents` — our small class taxonomy (protein, starch,
  utensil, heat method, …) that labels a non-literal neighbour as a *cultural equivalent*;
* :func:`literal_translations` — CC-CEDICT glosses (plus the seed pairs) of Chinese queries.

>>> seed_pairs()[:2]
[('菠菜', 'spinach'), ('洋葱', 'onion')]
>>> dict(seed_pairs("printed"))["镯"], dict(seed_pairs("cut"))["切"]
('pour', 'chop')
>>> sorted(cultural_equivalents(["蒸"])["蒸"])[:3]
['350', '375', '400']
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
    """Our class taxonomy (``classes``: class → English words; ``queries``: Chinese word → class)."""
    with _resource("taxonomy.yaml").open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def query_class(word: str, glosses: set[str] | None = None) -> str | None:
    """The class of a Chinese query: the explicit entry, else the first class containing one of
    its English glosses.

    >>> query_class("豆腐"), query_class("鸭", {"duck"}), query_class("的", set())
    ('protein', 'protein', None)
    """
    tax = taxonomy()
    if word in tax["queries"]:
        return tax["queries"][word]
    for name, members in tax["classes"].items():
        if glosses and glosses & {str(m) for m in members}:
            return name
    return None


def cultural_equivalents(words: list[str], glosses: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """English words that count as cultural equivalents of each query (its class's members minus
    its literal glosses); empty for queries without a class."""
    glosses = glosses or {}
    out = {}
    for w in words:
        cls = query_class(w, glosses.get(w, set()))
        members = {str(m) for m in taxonomy()["classes"].get(cls, [])} if cls else set()
        out[w] = members - glosses.get(w, set())
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
