"""The paper's table layouts (group × model, "mean±std" over templates) and comparisons with
the transcribed numbers in ``culturelab/reported/fmlama/``.

Units follow the paper: mAP, P@1 and P@5 in %, mWS in [0, 1].

>>> summary = pd.DataFrame({"model": ["m", "m"], "context": [False, False], "group": ["U.S.", "ALL"],
...                         "metric": ["mAP", "mAP"], "mean": [12.0, 7.0], "std": [1.0, 2.0], "n_templates": [5, 5]})
>>> wide_cells(summary, "mAP").to_dict("index")
{'U.S.': {'m': '12.00±1.00'}, 'ALL': {'m': '7.00±2.00'}}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab import reported
from culturelab.fmlama.data import GROUPS
from culturelab.fmlama.metrics import (
    candidate_set,
    format_cell,
    group_cis,
    group_means,
    metric_correlation,
    over_templates,
)
from culturelab.fmlama.probing import BASELINE, RANDOM, ProbeJob, full_pool_chance, probe_chance
from culturelab.plots import MIN_N
from culturelab.protocol import LABEL_COLUMNS

ROW_ORDER = (*GROUPS, "Others", "ALL")
#: per-dish column → the paper's metric name, and the factor to the paper's unit
METRICS = {"ap": ("mAP", 100.0), "p1": ("P@1", 100.0), "p5": ("P@5", 100.0), "ws": ("mWS", 1.0)}
TABLE_OF = {"en": "2", "ar": "6", "he": "7", "ru": "8", "ko": "9", "zh": "10"}


def summarise_probing(per_dish: pd.DataFrame, *, by: Sequence[str] = ("model", "context")) -> pd.DataFrame:
    """Per (model, context, group): mean ± std over templates of each metric, in the paper's
    units; long form ``model, context, group, metric, mean, std, n_templates`` and, when
    ``per_dish`` names its dishes (``url``), ``n_dishes`` (the cell's n on a figure).

    >>> t = pd.DataFrame({"model": "m", "context": False, "template": [1, 2], "group": "A", "ap": [0.1, 0.3]})
    >>> summarise_probing(t).round(2)[["group", "metric", "mean"]].to_dict("records")
    [{'group': 'A', 'metric': 'mAP', 'mean': 20.0}, {'group': 'ALL', 'metric': 'mAP', 'mean': 20.0}]
    """
    cols = [c for c in METRICS if c in per_dish]
    means = group_means(per_dish, cols, [*by, "template"])
    long = over_templates(means, cols, [*by, "group"])
    factor = long["metric"].map(lambda m: METRICS[m][1])
    long["mean"] *= factor
    long["std"] *= factor
    long["metric"] = long["metric"].map(lambda m: METRICS[m][0])
    if "url" not in per_dish:
        return long
    pooled = pd.concat([per_dish, per_dish.assign(group="ALL")], ignore_index=True)
    counts = pooled.groupby([*by, "group"], sort=False, observed=True)["url"].nunique().rename("n_dishes")
    return long.merge(counts.reset_index(), on=[*by, "group"], how="left")


def order_groups(frame: pd.DataFrame, column: str = "group", order: Sequence[str] = ROW_ORDER) -> pd.DataFrame:
    """Rows in the paper's group order (unknown groups, e.g. pooled ones, after the known ones, ALL last).

    >>> order_groups(pd.DataFrame({"group": ["ALL", "2 other groups", "Others", "Italy"]}))["group"].tolist()
    ['Italy', 'Others', '2 other groups', 'ALL']
    """
    rank = {g: i for i, g in enumerate(order)}
    last = len(rank) + 1 if "ALL" not in rank else rank["ALL"]
    return frame.sort_values(column, key=lambda s: s.map(lambda g: rank.get(g, last - 0.5)), kind="stable")


def pool_small(table: pd.DataFrame, column: str = "group", *, within: Sequence[str] = (), min_n: int = MIN_N,
               unit: str = "url", noun: str = "groups") -> pd.Series:
    """``table[column]`` with the levels that hold fewer than ``min_n`` distinct ``unit`` values (dishes)
    pooled into one level, ``"<k> other <noun>"``, so that a figure's marks rest on enough dishes (the
    small-n rule of :mod:`culturelab.plots`); counted apart within each value of ``within`` (e.g. the
    language). A lone small level keeps its name (pooling it alone would change nothing).

    >>> t = pd.DataFrame({"group": list("aaabcd"), "url": list("uvwxyz")})
    >>> pool_small(t, min_n=3).tolist()
    ['a', 'a', 'a', '3 other groups', '3 other groups', '3 other groups']
    >>> pool_small(t.head(4), min_n=3).tolist()
    ['a', 'a', 'a', 'b']
    """
    def pooled(part: pd.DataFrame) -> pd.Series:
        sizes = part.groupby(column, observed=True)[unit].nunique()
        small = sizes.index[sizes < min_n]
        if len(small) < 2:
            return part[column]
        return part[column].where(~part[column].isin(small), f"{len(small)} other {noun}")

    if not within:
        return pooled(table)
    return pd.concat([pooled(part) for _, part in table.groupby(list(within), sort=False)]).reindex(table.index)


def pooled_intervals(per_dish: pd.DataFrame, metric: str = "ap", by: Sequence[str] = ("lang", "model"), *,
                     min_n: int = MIN_N, seed: int = 0) -> pd.DataFrame:
    """Per-group 95 % bootstrap intervals of a per-dish ``metric`` over dishes, in the paper's unit, for a
    figure: groups of fewer than ``min_n`` dishes pooled (:func:`pool_small`, per ``by[0]``), a level that
    holds every dish left out (it would repeat ALL), rows in the paper's group order. Only ALL is left
    when no group holds ``min_n`` dishes.

    >>> t = pd.DataFrame({"lang": "en", "model": "m", "group": list("aaab"), "url": list("wxyz"),
    ...                   "ap": [0.1, 0.2, 0.3, 0.4]})
    >>> pooled_intervals(t, min_n=3)[["group", "mean", "n_dishes"]].round(1).to_dict("records")
    [{'group': 'a', 'mean': 20.0, 'n_dishes': 3}, {'group': 'b', 'mean': 40.0, 'n_dishes': 1}, {'group': 'ALL', 'mean': 25.0, 'n_dishes': 4}]
    >>> pooled_intervals(t, min_n=5)["group"].tolist()  # 'a' and 'b' pooled: every dish, so only ALL
    ['ALL']
    """
    pooled = per_dish.assign(group=pool_small(per_dish, within=list(by)[:1], min_n=min_n))
    cis = group_cis(pooled, metric, list(by), seed=seed)
    cis[["mean", "ci_low", "ci_high"]] *= METRICS[metric][1]
    total = cis[cis["group"] == "ALL"].set_index(list(by))["n_dishes"]
    every = cis.set_index(list(by)).index.map(total).to_numpy() == cis["n_dishes"].to_numpy()
    return order_groups(cis[(cis["group"] == "ALL") | ~every]).reset_index(drop=True)


def wide_cells(summary: pd.DataFrame, metric: str, *, context: bool = False, columns: str = "model") -> pd.DataFrame:
    """Group × model table of "mean±std" strings, as printed in the paper."""
    part = summary[(summary["metric"] == metric) & (summary["context"] == context)]
    digits = 4 if metric == "mWS" else 2
    cells = part.assign(cell=[format_cell(m, s, digits=digits) for m, s in zip(part["mean"], part["std"])])
    wide = cells.pivot(index="group", columns=columns, values="cell")
    wide.columns.name = None
    return wide.loc[[g for g in ROW_ORDER if g in wide.index] + [g for g in wide.index if g not in ROW_ORDER]]


def reported_probing(lang: str, metric: str = "mAP") -> pd.DataFrame:
    """The paper's Table 2 / 6–10 cells for one language and metric (long form).

    >>> reported_probing("he").query("group == 'ALL' and model == 'mB-c'")["value"].tolist()
    [7.9]
    """
    table = reported.load("fmlama", "probing")
    part = table[(table["lang"] == lang) & (table["metric"] == metric)]
    if part.empty:
        raise KeyError(f"the paper reports no {metric} for {lang} (mWS only for en, ar, he, ru)")
    return part.reset_index(drop=True)


def chance_of(summary: pd.DataFrame, metric: str = "mAP", *, context: bool = False) -> pd.Series:
    """The chance line per group (the :data:`~culturelab.fmlama.probing.RANDOM` rows of a summary),
    ``NaN`` where none.

    >>> s = pd.DataFrame({"model": RANDOM, "context": False, "group": ["ALL"], "metric": "mAP", "mean": [9.1]})
    >>> chance_of(s).to_dict()
    {'ALL': 9.1}
    """
    part = summary[(summary["model"] == RANDOM) & (summary["metric"] == metric) & (summary["context"] == context)]
    return part.set_index("group")["mean"]


def standing(summary: pd.DataFrame, model: str, *, key: str = "lang", metric: str = "mAP", context: bool = False,
             group: str = "ALL") -> pd.DataFrame:
    """Per ``key`` value (a language, a setting): ``model``'s score beside the frequency baseline's and
    the random ranking's (the chance line) of the same pool, and whether it lies above each — what a
    sentence about chance reads, for any model.

    >>> s = pd.DataFrame({"lang": "en", "model": ["m", BASELINE, RANDOM], "context": False, "group": "ALL",
    ...                   "metric": "mAP", "mean": [9.0, 12.0, 8.0]})
    >>> standing(s, "m").to_dict("records")
    [{'lang': 'en', 'model': 9.0, 'baseline': 12.0, 'chance': 8.0, 'above_chance': True, 'above_baseline': False}]
    """
    part = summary[(summary["metric"] == metric) & (summary["group"] == group) & (summary["context"] == context)]
    wide = part.pivot_table(index=key, columns="model", values="mean", sort=False)
    out = pd.DataFrame({name: wide.get(col, np.nan)
                        for name, col in (("model", model), ("baseline", BASELINE), ("chance", RANDOM))}, index=wide.index)
    out["above_chance"] = out["model"] > out["chance"]
    out["above_baseline"] = out["model"] > out["baseline"]
    return out.reset_index()


def paper_column(lang: str, model: str | None, choice: str = "auto", metric: str = "mAP") -> str:
    """The column of the paper's table a model's numbers go beside: ``choice`` itself, or with
    ``auto`` the model's own column when the paper probed it in ``lang`` (``model``: the paper's
    name, :func:`culturelab.protocol.paper_model_of`), else the paper's average ``Avg``.

    >>> paper_column("en", "mT5"), paper_column("ko", "T5"), paper_column("en", None, "mB-c")
    ('mT5', 'Avg', 'mB-c')
    """
    if choice != "auto":
        return choice
    return model if model in set(reported_probing(lang, metric)["model"]) else "Avg"


def compare_probing(summary: pd.DataFrame, lang: str, metric: str = "mAP", *, deviations_of: Callable[[str], Any],
                    paper_model: str = "auto", context: bool = False) -> pd.DataFrame:
    """Ours beside the paper's table, per our model (the frequency baseline and the chance line
    too) and group: ``model, group, paper_model, reported, ours, delta, chance``, the labels of
    :func:`culturelab.reported.compare` (``data, protocol, model_status, comparable``: Δ only where
    they match). ``deviations_of(model)`` is that model's comparison with the paper
    (:meth:`culturelab.runner.Run.deviations`); each model goes beside its own column of the paper
    when the paper probed it (``paper_model="auto"``), else beside ``paper_model`` or the paper's
    ``Avg``; ``chance`` is the random-ranking score of our pool (:func:`chance_of`).

    >>> from culturelab.protocol import DataUsed, Deviations
    >>> s = pd.DataFrame({"model": ["m", RANDOM], "context": False, "group": ["ALL"] * 2, "metric": "mAP",
    ...                   "mean": [8.04, 9.1], "std": [1.0, 0.0]})
    >>> t = compare_probing(s, "en", deviations_of=lambda m: Deviations((), DataUsed("released"), m, ""))
    >>> t.query("group == 'ALL'")[["model", "paper_model", "reported", "ours", "delta", "chance"]].round(2).to_dict("records")[0]
    {'model': 'm', 'paper_model': 'Avg', 'reported': 7.04, 'ours': 8.04, 'delta': nan, 'chance': 9.1}
    """
    ours = summary[(summary["metric"] == metric) & (summary["context"] == context)]
    chance = chance_of(summary, metric, context=context)
    out = []
    for model, part in ours.groupby("model", sort=False):
        deviations = deviations_of(model)
        column = paper_column(lang, deviations.paper_model, paper_model, metric)
        rep = reported_probing(lang, metric)
        rep = rep[rep["model"] == column][["group", "value"]]
        if rep.empty:
            raise KeyError(f"paper table {TABLE_OF[lang]} has no model {column!r}")
        cmp = reported.compare(rep, part.rename(columns={"mean": "value"}), on=["group"], deviations=deviations,
                               model_row=column)
        out.append(cmp.assign(model=model, paper_model=column, metric=metric, chance=cmp["group"].map(chance)))
    table = pd.concat(out, ignore_index=True)[["model", "metric", "group", "paper_model", "reported", "ours", "delta",
                                               "chance", *LABEL_COLUMNS]]
    return order_groups(table).reset_index(drop=True)


def reported_rows(compared: pd.DataFrame, value: str = "accuracy", source: str = "paper") -> pd.DataFrame:
    """The paper's numbers of a comparison (:func:`culturelab.reported.compare`'s ``reported``) as
    rows to draw beside ours: ``value`` the paper's number, ``source``, and no interval
    (``ci_low``/``ci_high`` NaN: the paper prints none, so no error bar is drawn).

    >>> t = pd.DataFrame({"setting": ["EN_en", "EN_en"], "group": ["Italy", "Japan"], "reported": [42.9, None]})
    >>> reported_rows(t)[["group", "accuracy", "ci_low", "source"]].to_dict("records")
    [{'group': 'Italy', 'accuracy': 42.9, 'ci_low': nan, 'source': 'paper'}]
    """
    rows = compared.dropna(subset=["reported"])
    return rows.assign(**{value: rows["reported"]}, source=source, ci_low=np.nan, ci_high=np.nan)


def pool_table(jobs: Sequence[ProbeJob], key: str = "lang") -> pd.DataFrame:
    """Per job (``key``: its language, or its ``extra`` key such as ``setting``): dishes probed of
    the sub-dataset, candidates ranked of all, and the **random-ranking mAP (%)** of the pool used
    and of the paper's full pool — the chance line of every mAP table of the run.

    >>> t = pd.DataFrame({"url": list("uv"), "dish": list("ab"), "group": "G", "ingredients": [["egg"], ["tea"]]})
    >>> pool_table([ProbeJob(t.head(1), "en", ["egg", "tea"], t)]).iloc[0].to_dict()
    {'lang': 'en', 'dishes probed': 1, 'dishes': 2, 'candidates ranked': 2, 'all candidates': 2, 'random-ranking mAP, this pool': 75.0, "random-ranking mAP, the paper's pool": 75.0}
    """
    rows = []
    for job in jobs:
        full = candidate_set(job.reference["ingredients"])
        rows.append({key: job.lang if key == "lang" else job.extra[key], "dishes probed": len(job.table),
                     "dishes": len(job.reference), "candidates ranked": len(job.candidates), "all candidates": len(full),
                     "random-ranking mAP, this pool": 100 * float(np.nanmean(probe_chance(job.table, job.lang,
                                                                                           job.candidates)["ap"])),
                     "random-ranking mAP, the paper's pool": 100 * float(np.nanmean(full_pool_chance(job)["ap"]))})
    return pd.DataFrame(rows)


def frequent_ingredients(lists: Sequence[Sequence[str]], n: int = 10) -> list[tuple[str, int]]:
    """The ``n`` most frequent ingredients over lists (ties: first seen first).

    >>> frequent_ingredients([["egg", "flour"], ["egg"]], 1)
    [('egg', 2)]
    """
    return Counter(i for items in lists for i in items).most_common(n)


def ingredient_table(predicted: dict[str, Sequence[Sequence[str]]], gold: dict[str, Sequence[Sequence[str]]],
                     n: int = 10) -> pd.DataFrame:
    """Table 3: per language, the ``n`` most frequent predicted ingredients (over each dish's top
    predictions) beside the ``n`` most frequent gold ingredients, and the share of all top
    predictions that the ``n`` most frequent ones cover.

    >>> ingredient_table({"en": [["egg"]]}, {"en": [["rice"]]}, n=1)[["predicted", "gold"]].to_dict("records")
    [{'predicted': 'egg', 'gold': 'rice'}]
    """
    rows = []
    for lang in predicted:
        pred = frequent_ingredients(predicted[lang], n)
        total = sum(len(p) for p in predicted[lang])
        coverage = sum(c for _, c in pred) / total if total else float("nan")
        ref = frequent_ingredients(gold[lang], n)
        for rank in range(n):
            rows.append({"lang": lang, "rank": rank + 1,
                         "predicted": pred[rank][0] if rank < len(pred) else "",
                         "predicted_count": pred[rank][1] if rank < len(pred) else 0,
                         "gold": ref[rank][0] if rank < len(ref) else "",
                         "gold_count": ref[rank][1] if rank < len(ref) else 0, "coverage_top_n": coverage})
    return pd.DataFrame(rows)


def paper_cells(lang: str, metric: str = "mAP") -> pd.DataFrame:
    """The paper's table for one language and metric as printed (group × model "mean±std").

    >>> paper_cells("zh").loc["ALL", "Bb-zh"]
    '12.99±3.96'
    """
    rep = reported_probing(lang, metric)
    digits = 4 if metric == "mWS" else 2
    cells = rep.assign(cell=[format_cell(v, s, digits=digits) for v, s in zip(rep["value"], rep["std"])])
    wide = cells.pivot(index="group", columns="model", values="cell")
    wide = wide[list(dict.fromkeys(rep["model"]))]
    wide.columns.name = None
    return wide.loc[[g for g in ROW_ORDER if g in wide.index]]


def side_by_side(summary: pd.DataFrame, lang: str, metric: str = "mAP", *, context: bool = False,
                 paper_chance: pd.Series | None = None) -> pd.DataFrame:
    """The paper's table (its models, "paper: …") next to ours ("ours: …": the model, the
    frequency baseline and the random-ranking score of our pool), same rows; ``paper_chance``
    (group → score) adds the random-ranking score of the paper's full pool.

    >>> s = pd.DataFrame({"model": "m", "context": False, "group": ["ALL"], "metric": "mAP", "mean": [8.0], "std": [1.0]})
    >>> side_by_side(s, "zh", paper_chance=pd.Series({"ALL": 1.4})).loc["ALL", ["paper: Avg", "ours: m", "random ranking, paper's pool"]].tolist()
    ['10.62', '8.00±1.00', '1.40']
    """
    paper = paper_cells(lang, metric).add_prefix("paper: ")
    ours = wide_cells(summary[summary["lang"] == lang] if "lang" in summary else summary, metric, context=context)
    table = paper.join(ours.add_prefix("ours: "), how="outer")
    if paper_chance is not None:
        table["random ranking, paper's pool"] = paper_chance.reindex(table.index).map(
            lambda v: format_cell(v, float("nan"), digits=4 if metric == "mWS" else 2))
    return table.loc[[g for g in ROW_ORDER if g in paper.index or g in ours.index]]


def metric_correlations(summary: pd.DataFrame, x: str = "mAP", y: str = "mWS", *,
                        deviations_of: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Per language and model, Pearson and Spearman between two metrics **pooled over all cells**
    (every group of the plain templates), as the paper correlates its tables' cells, beside the
    paper's Pearson over its models' cells (``correlations.csv``; NaN where it states none). The
    frequency baseline and the chance line are no models of the paper's tables: their cells stay
    out. ``deviations_of(lang)`` labels each language's row (:func:`culturelab.reported.compare`;
    the paper's r pools its own models, so ours stands beside it). Needs more than 2 cells.

    >>> s = pd.DataFrame({"lang": "en", "model": ["m"] * 3 + ["f"] * 3 + ["m"] * 3 + ["f"] * 3,
    ...                   "context": False, "group": list("abcabcabcabc"),
    ...                   "metric": ["mAP"] * 6 + ["mWS"] * 6, "mean": [1, 2, 3, 4, 5, 6, .1, .3, .2, .4, .5, .6]})
    >>> metric_correlations(s)[["lang", "pearson", "cells", "reported"]].round(2).to_dict("records")
    [{'lang': 'en', 'pearson': 0.94, 'cells': 6, 'reported': 0.66}]
    """
    models = summary[~summary["context"] & ~summary["model"].isin([BASELINE, RANDOM])]
    wide = models.pivot_table(index=["lang", "model", "group"], columns="metric", values="mean").reset_index()
    rows = []
    for lang, part in wide.groupby("lang"):
        if y in part and part[y].notna().sum() > 2:
            r = metric_correlation(part, x, y)
            rows.append({"lang": lang, "models": part["model"].nunique(), "pearson": r["pearson"],
                         "spearman": r["spearman"], "cells": r["n"]})
    paper = reported.load("fmlama", "correlations")
    paper = paper[(paper["x"] == x) & (paper["y"] == y)][["lang", "value"]]
    table = pd.DataFrame(rows, columns=["lang", "models", "pearson", "spearman", "cells"])
    if deviations_of is None:
        return table.merge(paper.rename(columns={"value": "reported"}), on="lang", how="left")
    parts = [reported.compare(paper[paper["lang"] == lang], row.rename(columns={"pearson": "value"}), on=["lang"],
                              deviations=deviations_of(lang), model_row="models, their cells pooled")
             .merge(row.drop(columns="pearson"), on="lang") for lang, row in table.groupby("lang")]
    return pd.concat(parts, ignore_index=True) if parts else table
