"""Hand-labelled model answers for measuring every paper's answer parser (``*.csv`` next to this
module; how they were drawn and labelled: ``README.md``).

One file per parser, one row per answer: ``id``, ``split`` (``dev``: seen while the parser was written;
``held-out``: labelled after it was frozen), ``source`` (where the answer comes from), ``model``,
``raw`` (the answer as generated), ``context`` (JSON: what the parser needs besides the text — the
options, the number of steps, the language), ``expected`` (JSON: what a human grader reads — an option
number 1–4, a letter, a letter sequence, a list of ingredients — or null) and ``verdict`` (the grader's:
``strict``, ``lenient``, ``conflict``, ``refusal`` or ``invalid``; see :mod:`culturelab.parsing`).

>>> gold = load("percul")
>>> len(gold) >= 40, sorted(gold["verdict"].unique())
(True, ['invalid', 'lenient', 'refusal', 'strict'])
>>> q = quality("percul"); q["precision"] >= 0.9
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

import pandas as pd

from culturelab.parsing import LETTERS, Parse, extraction_quality, parse_choice, parse_order

#: the parsers with a labelled set, and which papers' answers each one reads
PARSERS = {"percul": "PERCUL (Figure 9 JSON, option numbers)",
           "fmlama": "FMLAMA decoder answers (ingredient lists, en/zh)",
           "choice": "CAPTEx PB-/CB-MCQ (option letters)",
           "order": "CAPTEx and Turkish PLU step reordering (letter sequences)"}


def _expected(name: str, value: Any) -> Any:
    """The grader's reading in the parser's own representation (0-based indices, a list)."""
    if value is None:
        return None
    if name == "percul":
        return int(value) - 1
    if name == "choice":
        return LETTERS.index(value)
    if name == "order":
        return [LETTERS.index(c) for c in value]
    return list(value)


def load(name: str) -> pd.DataFrame:
    """The labelled answers of one parser (:data:`PARSERS`), ``context`` and ``expected`` decoded
    (``expected`` in the parser's representation: a 0-based option, a list of step indices, a list)."""
    if name not in PARSERS:
        raise ValueError(f"no labelled answers for {name!r}; choose one of {sorted(PARSERS)}")
    with resources.files(__package__).joinpath(f"{name}.csv").open(encoding="utf-8") as f:
        table = pd.read_csv(f, dtype=str, keep_default_na=False)
    table["context"] = [json.loads(c) if c else {} for c in table["context"]]
    table["expected"] = [_expected(name, json.loads(e)) if e else None for e in table["expected"]]
    return table


def _parse_percul(row: pd.Series, lenient: bool) -> Parse:
    from culturelab.percul.parsing import parse_answer

    return parse_answer(row["raw"], row["context"].get("options"), lenient=lenient)


def _parse_fmlama(row: pd.Series, lenient: bool) -> Parse:
    from culturelab.fmlama.generations import parse_answer

    return parse_answer(row["raw"], row["context"]["lang"], lenient=lenient)


def _parse_choice(row: pd.Series, lenient: bool) -> Parse:
    ctx = row["context"]
    return parse_choice(row["raw"], ctx.get("n", 4), ctx.get("options"), lenient=lenient)


def _parse_order(row: pd.Series, lenient: bool) -> Parse:
    ctx = row["context"]
    return parse_order(row["raw"], ctx["n"], ctx.get("steps"), lenient=lenient)


#: the splits of the labelled answers, in the order tables show them: ``held-out`` (labelled and set
#: aside before the parser was last changed, never used to fix it) and ``dev`` (in-sample)
SPLITS = ("held-out", "dev")
#: how each labelled row is parsed
PARSE: dict[str, Callable[[pd.Series, bool], Parse]] = {
    "percul": _parse_percul, "fmlama": _parse_fmlama, "choice": _parse_choice, "order": _parse_order}


def quality(name: str, *, lenient: bool = False, split: str | None = None) -> dict[str, float]:
    """:func:`culturelab.parsing.extraction_quality` of one parser on its labelled answers (those of
    one ``split`` only, when given).

    >>> quality("choice", lenient=True)["n"] == len(load("choice"))
    True
    """
    gold = load(name)
    return extraction_quality(gold if split is None else gold[gold["split"] == split], PARSE[name], lenient=lenient)


def quality_table(names: Sequence[str] = tuple(PARSERS), *, modes: Sequence[bool] = (False, True)) -> pd.DataFrame:
    """Extraction precision and recall (and the other measures of
    :func:`~culturelab.parsing.extraction_quality`) of each parser, strict and lenient, one row per
    ``split`` of its labelled answers (``held-out`` first: labelled and set aside before the parser was
    last changed; ``dev``: the answers it was written against, in-sample) — the table the generation
    notebooks print.

    >>> quality_table(["order"])[["parser", "split", "mode"]].values.tolist()
    [['order', 'dev', 'strict'], ['order', 'dev', 'lenient']]
    """
    rows = []
    for name in names:
        present = set(load(name)["split"])
        for split in [s for s in SPLITS if s in present]:
            rows += [{"parser": name, "answers": PARSERS[name], "split": split, "mode": "lenient" if m else "strict",
                      **quality(name, lenient=m, split=split)} for m in modes]
    return pd.DataFrame(rows)
