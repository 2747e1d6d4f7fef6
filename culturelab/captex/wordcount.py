"""Word counts per language, and the paper's Tables 3 (by country) and 6 (by category).

Segmenters (the paper does not say which it used, spec §1.8):

* Chinese: ``jieba`` (precise mode);
* Japanese: ``fugashi`` (MeCab) with the ``unidic-lite`` dictionary, both from PyPI and
  offline. UniDic uses *short units*, so auxiliaries such as ます or て count as words:
  Japanese counts run higher than with a long-unit segmenter;
* every other language (English, Persian, Hindi, Indonesian, Urdu, Hausa): white space.

Tokens made only of punctuation or symbols are not words.

>>> count_words("Wash the rice, then soak it.", "en")
6
>>> tokenize("我喜欢吃饺子。", "zh")
['我', '喜欢', '吃饺子']
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

MEASURES = ("procedure", "question", "correct", "incorrect", "utt1", "utt2", "utt3", "utt4")
#: the word segmenters of the two languages not split on white space (the paper names none)
SEGMENTERS = {"zh": "jieba", "ja": "fugashi + UniDic-lite"}


def _is_word(token: str) -> bool:
    return any(unicodedata.category(ch)[0] in {"L", "N", "M"} for ch in token)


@cache
def _tagger():
    import fugashi

    return fugashi.Tagger()


def tokenize(text: str, language: str) -> list[str]:
    """Words of ``text`` in ``language`` (ISO code), with the segmenters listed above.

    >>> tokenize("昆布を水に浸す。", "ja")
    ['昆布', 'を', '水', 'に', '浸す']
    """
    text = str(text)
    if language == "zh":
        import jieba

        tokens = jieba.lcut(text)
    elif language == "ja":
        tokens = [w.surface for w in _tagger()(text)]
    else:
        tokens = text.split()
    return [t for t in (t.strip() for t in tokens) if t and _is_word(t)]


def count_words(text: str, language: str) -> int:
    """Number of words in ``text`` (see :func:`tokenize`)."""
    return len(tokenize(text, language))


def word_counts(procedures: pd.DataFrame, mcqs: pd.DataFrame, conversations: pd.DataFrame) -> pd.DataFrame:
    """One row per counted text: ``country``, ``category``, ``lang_group``, ``measure``, ``words``.

    Measures: ``procedure`` (all steps of one procedure), ``question``, ``correct`` and
    ``incorrect`` (one MCQ option each), ``utt1``…``utt4`` (conversation utterances, English).
    """
    import jieba

    jieba.setLogLevel(60)
    rows = []
    for p in procedures.itertuples(index=False):
        rows.append((p.country, p.category, p.lang_group, "procedure",
                     sum(count_words(s, p.language) for s in p.steps)))
    for q in mcqs.itertuples(index=False):
        rows.append((q.country, q.category, q.lang_group, "question", count_words(q.question, q.language)))
        for i, option in enumerate(q.options):
            rows.append((q.country, q.category, q.lang_group, "correct" if i == q.answer else "incorrect",
                         count_words(option, q.language)))
    for c in conversations.itertuples(index=False):
        for i, utt in enumerate(c.utterances[:4]):
            rows.append((c.country, c.category, "English", f"utt{i + 1}", count_words(utt, "en")))
    return pd.DataFrame(rows, columns=["country", "category", "lang_group", "measure", "words"])


def word_count_table(counts: pd.DataFrame, by: str = "country") -> pd.DataFrame:
    """Mean words per ``by`` × ``measure`` × ``lang_group`` in the long form of the paper's
    Table 3 (``by="country"``) or Table 6 (``by="category"``): column ``value``.

    >>> t = pd.DataFrame({"country": ["Iran"] * 2, "lang_group": ["English"] * 2, "measure": ["question"] * 2,
    ...                   "words": [10, 20]})
    >>> word_count_table(t).to_dict("records")
    [{'country': 'Iran', 'measure': 'question', 'lang_group': 'English', 'value': 15.0}]
    """
    table = counts.groupby([by, "measure", "lang_group"], observed=True)["words"].mean().rename("value").reset_index()
    table["measure"] = pd.Categorical(table["measure"], categories=[m for m in MEASURES if m in set(table["measure"])],
                                      ordered=True)
    return table.sort_values([by, "measure", "lang_group"]).reset_index(drop=True).assign(
        measure=lambda t: t["measure"].astype(str), value=lambda t: t["value"].round(1))


def wide(table: pd.DataFrame, by: str = "country", order: Sequence[str] | None = None) -> pd.DataFrame:
    """The long table in the paper's layout: one row per ``by``, ``English / native`` cells."""
    def cell(part: pd.DataFrame) -> str:
        vals = dict(zip(part["lang_group"], part["value"]))
        if "native" in vals:
            return f"{vals.get('English', np.nan):.1f} / {vals['native']:.1f}"
        return f"{vals.get('English', np.nan):.1f}"

    out = table.groupby([by, "measure"], sort=False).apply(cell, include_groups=False).unstack("measure")
    out = out[[m for m in MEASURES if m in out.columns]]
    if order is not None:
        out = out.reindex([o for o in order if o in out.index])
    return out


def _segmented(table: pd.DataFrame, by: str) -> pd.Series:
    """Rows whose counts hold Chinese or Japanese words: China's and Japan's native rows (Table 3),
    every native row of Table 6 (a category pools the countries)."""
    native = table["lang_group"] == "native"
    return native & (table[by].isin(["China", "Japan"]) if by == "country" else True)


def compare_with_paper(reported: pd.DataFrame, ours: pd.DataFrame, by: str,
                       deviations_of: Callable[..., Any]) -> pd.DataFrame:
    """Ours (:func:`word_count_table`) beside the paper's Table 3 (``by="country"``) or Table 6
    (``by="category"``) with Δ = ours − reported, labelled by ``deviations_of``
    (:meth:`culturelab.runner.Run.deviations`); the rows that count Chinese or Japanese words
    also carry our segmenters (:data:`SEGMENTERS`) as a deviation, since the paper names none.

    >>> from culturelab.captex.protocol import PROTOCOL
    >>> from culturelab.protocol import DataUsed, compare
    >>> from culturelab.reported import load
    >>> of = lambda **kw: compare(PROTOCOL["01_dataset"], kw, DataUsed("released"))
    >>> ours = pd.DataFrame({"country": ["Iran", "China"], "measure": ["question"] * 2,
    ...                      "lang_group": ["native"] * 2, "value": [40.0, 41.0]})
    >>> t = compare_with_paper(load("captex", "table3"), ours, "country", of).dropna(subset=["ours"])
    >>> t[["country", "delta", "comparable"]].round(1).to_dict("records")
    [{'country': 'Iran', 'delta': -0.3, 'comparable': True}, {'country': 'China', 'delta': nan, 'comparable': False}]
    """
    from culturelab.reported import compare

    keys = [by, "measure", "lang_group"]
    segmenters = "; ".join(f"{lang}: {name}" for lang, name in SEGMENTERS.items())
    parts = [compare(reported[_segmented(reported, by) == seg], ours[_segmented(ours, by) == seg], on=keys,
                     deviations=deviations_of(**({"segmenter": segmenters} if seg else {})))
             for seg in (False, True)]
    return pd.concat(parts, ignore_index=True)

