"""Code-switching: template (and gold) in one language, dish name in another.

* :func:`released_scores` reads the released per-setting score tables (mean ± std over the 5
  templates per group × model = Tables 11/12) for all four settings, with and without context;
  :func:`add_average` recomputes the "Avg" column (mean of the rounded model means, as the
  paper's script does) and :func:`compare_released` puts them beside the transcribed paper.
* :func:`multilingual_wide` joins the six FMLAMA-*la* views of the multilingual subset by dish,
  so :func:`culturelab.fmlama.data.setting_view` can build any of the 6 × 6 (template language ×
  dish-name language) settings — the paper's 4 settings generalised (beyond the paper).

>>> pair_settings(["en", "zh"])
['EN_en', 'EN_zh', 'ZH_en', 'ZH_zh']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab import reported
from culturelab.fmlama.data import SETTINGS, Release
from culturelab.protocol import Deviations


def pair_settings(langs: Sequence[str]) -> list[str]:
    """Every (template language, dish language) setting name, e.g. ``EN_zh``."""
    return [f"{main.upper()}_{sub}" for main in langs for sub in langs]


def released_scores(release: Release, metric: str = "mAP", *, settings: Sequence[str] = SETTINGS) -> pd.DataFrame:
    """All released code-switching scores of one metric (both contexts), long form.

    >>> released_scores(Release("sample"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: our FMLAMA sample has no results/results_code/results_table/en_en_mAP_without.xlsx (it holds [...])
    """
    parts = [release.score_table(s, metric, context=c) for s in settings for c in (False, True)]
    return pd.concat(parts, ignore_index=True)


def add_average(scores: pd.DataFrame) -> pd.DataFrame:
    """Append the "Avg" model: mean over models of the means rounded as printed (2 decimals for
    mAP, 4 for mWS), std NaN.

    >>> s = pd.DataFrame({"setting": ["EN_en"] * 2, "context": [False] * 2, "metric": ["mAP"] * 2,
    ...                   "group": ["ALL"] * 2, "model": ["a", "b"], "mean": [1.004, 2.0], "std": [0.1, 0.2]})
    >>> add_average(s)["mean"].round(3).tolist()
    [1.004, 2.0, 1.5]
    """
    digits = scores["metric"].map({"mAP": 2, "mWS": 4}).fillna(2).astype(int)
    rounded = scores.assign(rounded=[round(m, d) for m, d in zip(scores["mean"], digits)])
    avg = (rounded.groupby(["setting", "context", "metric", "group"], sort=False)["rounded"]
           .agg(lambda v: float(np.mean(v)) if v.notna().all() else float("nan")).reset_index()
           .rename(columns={"rounded": "mean"}).assign(model="Avg", std=np.nan))
    return pd.concat([scores, avg[scores.columns]], ignore_index=True)


def compare_released(scores: pd.DataFrame, deviations: Deviations) -> pd.DataFrame:
    """Released mAP tables (with recomputed Avg) beside the paper's Tables 11/12, with Δ where
    ``deviations`` (the run's comparison for the released tables: the authors' own scores of
    their own models, so the data alone can differ) is empty. ``source`` says where each
    transcribed cell comes from: ``paper``, or ``release`` for Table 11(d) (ZH_en without
    context), which the paper's text scrambles and the spec took from the authors' release —
    compared with the release itself it is equal by construction, so it gets no Δ.

    >>> from culturelab.protocol import DataUsed
    >>> s = pd.DataFrame({"setting": ["EN_en", "ZH_en"], "context": [False, False], "metric": "mAP",
    ...                   "group": ["ALL", "ALL"], "model": ["mB-c", "mB-c"], "mean": [11.97, 2.2], "std": [3.27, 0.3]})
    >>> t = compare_released(s, Deviations((), DataUsed("released"))).dropna(subset=["ours"])
    >>> t[["setting", "source", "reported", "ours", "delta"]].to_dict("records")
    [{'setting': 'EN_en', 'source': 'paper', 'reported': 11.97, 'ours': 11.97, 'delta': 0.0}, {'setting': 'ZH_en', 'source': 'release', 'reported': 2.2, 'ours': 2.2, 'delta': nan}]
    """
    on = ["context", "setting", "group", "model"]
    paper = reported.load("fmlama", "code_switching").assign(context=lambda t: t["context"].eq("with"))
    ours = scores[scores["metric"] == "mAP"].rename(columns={"mean": "value"})
    table = reported.compare(paper, ours, on=on, deviations=deviations)
    table = table.merge(paper[[*on, "source"]], on=on, how="left")
    table.loc[table["source"] != "paper", "delta"] = np.nan
    return table


def multilingual_wide(subsets: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per dish present in every given subset: ``url, origin, group, continent`` and
    ``dish_<la>``, ``ingredients_<la>`` for each language (order of the first subset).

    >>> sample = Release("sample")
    >>> subsets = {la: sample.language(la) for la in ("en", "ko")}
    >>> multilingual_wide(subsets)[["dish_en", "dish_ko"]].iloc[0].tolist()
    ['margherita pizza', '피자 마르게리타']
    """
    langs = list(subsets)
    first = subsets[langs[0]]
    common = set(first["url"]).intersection(*(set(subsets[la]["url"]) for la in langs[1:]))
    base = first[first["url"].isin(common)][["url", "origin", "group", "continent"]].reset_index(drop=True)
    for la in langs:
        view = subsets[la].set_index("url").loc[base["url"]]
        base[f"dish_{la}"] = view["dish"].to_numpy()
        base[f"ingredients_{la}"] = view["ingredients"].to_numpy()
    return base


def where_above(scores: pd.DataFrame, better: str, than: str, *, models: Sequence[str] | None = None,
                groups: Sequence[str] | None = None) -> pd.DataFrame:
    """The (model, context, group) cells of a released score table where setting ``better`` scores
    above setting ``than`` (mAP), with both scores — what a sentence "EN_zh beats EN_en for …" reads.

    >>> s = pd.DataFrame({"setting": ["EN_en", "EN_zh"] * 2, "context": False, "metric": "mAP", "group": "Japan",
    ...                   "model": ["mB-c", "mB-c", "mB-u", "mB-u"], "mean": [5.0, 7.0, 6.0, 4.0]})
    >>> where_above(s, "EN_zh", "EN_en").to_dict("records")
    [{'model': 'mB-c', 'context': False, 'group': 'Japan', 'EN_en': 5.0, 'EN_zh': 7.0}]
    """
    part = scores[(scores["metric"] == "mAP") & scores["setting"].isin([better, than])]
    if models is not None:
        part = part[part["model"].isin(models)]
    if groups is not None:
        part = part[part["group"].isin(groups)]
    wide = part.pivot_table(index=["model", "context", "group"], columns="setting", values="mean", sort=False)
    wide = wide.dropna(subset=[better, than])
    out = wide[wide[better] > wide[than]][[than, better]].reset_index()
    out.columns.name = None
    return out
