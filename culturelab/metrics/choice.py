"""Multiple-choice accuracy with invalid answers counted, per group, with 95 % Wilson intervals.

Per-instance tables carry ``correct`` (bool) and ``valid`` (bool: the answer could be
parsed). Invalid answers count as wrong, as in the papers, and their rate is reported.

>>> import pandas as pd
>>> t = pd.DataFrame({"model": ["m"] * 4, "correct": [1, 0, 1, 0], "valid": [1, 1, 1, 0]})
>>> accuracy_table(t, ["model"])[["accuracy", "invalid_rate", "n"]].to_dict("records")
[{'accuracy': 0.5, 'invalid_rate': 0.25, 'n': 4}]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.parsing import CONFLICT, LENIENT, verdict_share
from culturelab.stats import summarise


def accuracy_table(df: pd.DataFrame, by: Sequence[str] = (), *, seed: int = 0) -> pd.DataFrame:
    """Accuracy, 95 % Wilson interval (:func:`culturelab.stats.summarise`), invalid-answer rate and n
    for each group of ``by``; with a ``parse_verdict`` column also the ``lenient_share`` and the
    ``conflict_share`` (a letter naming one option, the text another: never scored;
    :func:`culturelab.parsing.verdict_share`).

    >>> t = pd.DataFrame({"model": ["a", "a", "b", "b"], "correct": [1, 1, 1, 0], "valid": [1, 1, 1, 0]})
    >>> accuracy_table(t, ["model"])[["model", "accuracy", "invalid_rate", "n"]].to_dict("records")
    [{'model': 'a', 'accuracy': 1.0, 'invalid_rate': 0.0, 'n': 2},
     {'model': 'b', 'accuracy': 0.5, 'invalid_rate': 0.5, 'n': 2}]
    >>> v = accuracy_table(t.assign(parse_verdict=["strict", "lenient", "strict", "conflict"]), ["model"])
    >>> v["lenient_share"].tolist(), v["conflict_share"].tolist()
    ([0.5, 0.0], [0.0, 0.5])
    """
    table = summarise(df.assign(correct=df["correct"].astype(float)), "correct", by, seed=seed)
    table = table.rename(columns={"mean": "accuracy"})
    if "valid" in df.columns:
        inv = (~df["valid"].astype(bool)).groupby([df[b] for b in by], sort=True, observed=True).mean() if by \
            else pd.Series([(~df["valid"].astype(bool)).mean()])
        table["invalid_rate"] = inv.to_numpy()
    if "parse_verdict" in df.columns:
        verdicts = df["parse_verdict"]
        for verdict in (LENIENT, CONFLICT):
            share = verdicts.groupby([df[b] for b in by], sort=True, observed=True).apply(verdict_share, verdict) \
                if by else pd.Series([verdict_share(verdicts, verdict)])
            table[f"{verdict}_share"] = share.to_numpy()
    return table


def macro_accuracy(df: pd.DataFrame, category: str, by: Sequence[str] = ()) -> pd.DataFrame:
    """Mean over categories of per-category accuracy (PERCUL's metric), per group of ``by``.

    >>> t = pd.DataFrame({"cat": ["a", "a", "a", "b"], "correct": [1, 1, 0, 0]})
    >>> round(float(macro_accuracy(t, "cat")["macro_accuracy"].iloc[0]), 4)
    0.3333
    """
    per_cat = df.groupby([*by, category], observed=True)["correct"].mean().reset_index()
    if by:
        return per_cat.groupby(list(by), observed=True)["correct"].mean().rename("macro_accuracy").reset_index()
    return pd.DataFrame({"macro_accuracy": [float(np.mean(per_cat["correct"]))]})
