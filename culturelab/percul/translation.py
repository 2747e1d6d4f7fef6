"""Persian vs English (the paper's §4.2, Figure 7): the macro gap per model, which stories flip,
and a template for the paper's manual error analysis of the flips.

>>> import pandas as pd
>>> t = pd.DataFrame({"model": "m", "id": ["a", "b", "a", "b"], "correct": [1, 1, 0, 1],
...                   "split": ["original_persian"] * 2 + ["gpt_english_translation"] * 2})
>>> paired_outcomes(t)[["only_persian", "only_english", "both"]].to_dict("records")
[{'only_persian': 1, 'only_english': 0, 'both': 1}]
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from culturelab.percul.data import SPLITS
from culturelab.stats import mcnemar

PERSIAN, ENGLISH = SPLITS
#: the paper's three classes of stories right in Persian but wrong in English (§4.2)
ERROR_CLASSES = ("nuance_lost", "translation_error", "translated_ok_but_wrong")


def split_gap(summary: pd.DataFrame, by: Sequence[str] = ("model",), value: str = "macro") -> pd.DataFrame:
    """Summary rows per (``by``, split) → ``persian``, ``english`` and ``delta`` = en − fa, with
    each split's 95 % CI (``persian_ci_low`` … from ``<value>_ci_low``/``_ci_high``), invalid rate
    (``persian_invalid_rate`` …: generated answers that could not be scored) and ``n`` (stories per
    split) when the summary has them.

    >>> s = pd.DataFrame({"model": "m", "split": [PERSIAN, ENGLISH], "macro": [0.5, 0.25], "n": 8})
    >>> split_gap(s)[["persian", "english", "delta", "n"]].to_dict("records")
    [{'persian': 0.5, 'english': 0.25, 'delta': -0.25, 'n': 8}]
    """
    names = {PERSIAN: "persian", ENGLISH: "english"}
    wide = summary.pivot_table(index=list(by), columns="split", values=value, observed=True)
    wide = wide.rename(columns=names)
    for column, suffix in ((f"{value}_ci_low", "ci_low"), (f"{value}_ci_high", "ci_high"),
                           ("invalid_rate", "invalid_rate")):
        if column in summary:
            per_split = summary.pivot_table(index=list(by), columns="split", values=column, observed=True)
            wide = wide.join(per_split.rename(columns={k: f"{v}_{suffix}" for k, v in names.items()}))
    if "n" in summary:
        wide = wide.join(summary.groupby(list(by), observed=True)["n"].min())
    wide = wide.reset_index()
    wide.columns.name = None
    wide["delta"] = wide["english"] - wide["persian"]
    return wide


def paired_outcomes(results: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per model, on the stories asked in both splits: ``both``, ``only_persian`` (P − E),
    ``only_english`` (E − P), ``neither``, the Jaccard of the two correct sets and McNemar's p."""
    by = list(by)
    rows = []
    for key, part in results.groupby(by, observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        wide = part.pivot_table(index="id", columns="split", values="correct", aggfunc="first").dropna()
        p, e = wide[PERSIAN].astype(bool), wide[ENGLISH].astype(bool)
        test = mcnemar(p, e)
        union = int((p | e).sum())
        rows.append({**dict(zip(by, key)), "both": int((p & e).sum()), "only_persian": test["only_a"],
                     "only_english": test["only_b"], "neither": int((~p & ~e).sum()),
                     "jaccard": (int((p & e).sum()) / union) if union else float("nan"),
                     "mcnemar_p": test["p_value"], "n": len(wide)})
    return pd.DataFrame(rows)


def annotation_template(results: pd.DataFrame, stories: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, story) right in Persian and wrong in English, with both stories and an
    empty ``error_class`` to fill with one of :data:`ERROR_CLASSES` (the paper's 19/27/54 % split)."""
    wide = results.pivot_table(index=["model", "id"], columns="split", values="correct", aggfunc="first").dropna()
    flips = wide[(wide[PERSIAN].astype(bool)) & (~wide[ENGLISH].astype(bool))].reset_index()[["model", "id"]]
    text = stories.pivot_table(index="id", columns="split", values="story", aggfunc="first")
    flips["story_persian"] = flips["id"].map(text[PERSIAN]) if PERSIAN in text else ""
    flips["story_english"] = flips["id"].map(text[ENGLISH]) if ENGLISH in text else ""
    flips["error_class"] = ""
    flips["allowed_classes"] = "|".join(ERROR_CLASSES)
    return flips
