"""Which distractor rules lure models (the paper's §4.3, Figures 8 and 16), and the same with the
rules' frequency taken into account (ours).

A *pick* is a parseable wrong answer; it is credited to the rule (R1–R6, UA) that produced the
chosen option. The paper's measure is the row-normalised share of picks per rule. Because the
annotators kept more options of some rules than of others, a share also reflects how often a
rule *appears*: :func:`lure_rates` divides by each rule's exposure (how many of the shown options
came from it).

>>> import pandas as pd
>>> t = pd.DataFrame({"model": "m", "category": "Foods", "pred": [1, 2, 0, -1], "answer": 0,
...                   "valid": [True, True, True, False], "rules": [["correct", "R1", "R3", "UA"]] * 4})
>>> rule_matrix(distractor_picks(t)).round(2).to_dict("records")
[{'R1': 0.5, 'R2': 0.0, 'R3': 0.5, 'R4': 0.0, 'R5': 0.0, 'R6': 0.0, 'UA': 0.0}]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.percul.data import CATEGORIES, RULES
from culturelab.stats import clustered_proportion_ci

POOLINGS = ("sum_counts", "mean_of_models")


def distractor_picks(results: pd.DataFrame, by: Sequence[str] = ("model", "category")) -> pd.DataFrame:
    """One row per parseable wrong answer with the ``rule`` of the chosen option (``rules`` column:
    4 labels per story, in the order the options were shown), its ``by`` columns and the story's
    ``id`` when the results have one (intervals cluster by story; chance is the stories' own rules)."""
    if "rules" not in results:
        raise KeyError("results have no 'rules' column: the data has no distractor rule labels")
    valid = results["valid"].astype(bool) & (results["pred"] >= 0) & (results["pred"] != results["answer"])
    wrong = results[valid]
    rules = [r[int(p)] for r, p in zip(wrong["rules"], wrong["pred"])]
    keys = list(dict.fromkeys([*by, *(["id"] if "id" in wrong else [])]))
    return wrong[keys].assign(rule=rules).reset_index(drop=True)


def rule_matrix(picks: pd.DataFrame, index: str | None = "model", *, pooling: str = "sum_counts",
                pool_over: str = "model") -> pd.DataFrame:
    """Row-normalised shares of picks per rule (rows sum to 1; rows without picks are dropped).

    ``index="model"`` gives Figure 16; ``index="category"`` gives Figure 8, pooled over models by
    summing counts (``sum_counts``) or by averaging each model's row (``mean_of_models``).
    ``index=None`` gives one pooled row.
    """
    if pooling not in POOLINGS:
        raise ValueError(f"fig8_pooling must be one of {list(POOLINGS)}, not {pooling!r}")
    picks = picks.assign(_all="all") if index is None else picks
    key = "_all" if index is None else index
    if pooling == "mean_of_models" and pool_over in picks and pool_over != key:
        # each model's own row-normalised distribution, then their mean (every model weighs the same)
        shares = [rule_matrix(part, key, pooling="sum_counts") for _, part in picks.groupby(pool_over, observed=True)]
        if not shares:
            return pd.DataFrame(columns=RULES)
        out = pd.concat(shares).groupby(level=0, observed=True)[RULES].mean()
        out = out.div(out.sum(axis=1), axis=0)
    else:
        counts = pd.crosstab(picks[key], pd.Categorical(picks["rule"], categories=RULES), dropna=False)
        counts = counts.reindex(columns=RULES, fill_value=0)
        counts = counts[counts.sum(axis=1) > 0]
        out = counts.div(counts.sum(axis=1), axis=0)
    if index == "category":
        out = out.reindex([c for c in CATEGORIES if c in out.index])
    out.columns = [str(c) for c in out.columns]
    out.columns.name = "rule"
    out.index.name = index
    return out if index is not None else out.reset_index(drop=True)


def rule_uncertainty(picks: pd.DataFrame, index: str = "model", *, pooling: str = "sum_counts",
                     pool_over: str = "model") -> tuple[pd.Series, pd.DataFrame, pd.DataFrame]:
    """What each row of :func:`rule_matrix` (same ``index`` and ``pooling``) rests on: ``n``, the
    picks in the row, and the 95 % interval of every share — for pooled counts (``sum_counts``)
    Wilson's, clustered by story when the picks carry its ``id`` (the picks of several models on
    one story are not independent: :func:`culturelab.stats.clustered_proportion_ci`); for
    ``mean_of_models`` the normal interval of a mean of independent model shares (variance
    Σ p(1−p)/n_m ÷ M²), clipped to [0, 1].

    >>> p = pd.DataFrame({"model": "m", "rule": ["R1"] * 3 + ["R2"]})
    >>> n, lo, hi = rule_uncertainty(p)
    >>> int(n["m"]), round(float(lo.loc["m", "R1"]), 2), round(float(hi.loc["m", "R1"]), 2)
    (4, 0.3, 0.95)
    """
    shares = rule_matrix(picks, index, pooling=pooling, pool_over=pool_over)
    counts = pd.crosstab([picks[index], picks[pool_over]] if pooling == "mean_of_models" else picks[index],
                         pd.Categorical(picks["rule"], categories=RULES), dropna=False)
    counts = counts.reindex(columns=RULES, fill_value=0)
    counts.columns = [str(c) for c in counts.columns]
    if pooling == "mean_of_models":
        per_model = counts[counts.sum(axis=1) > 0]
        totals = per_model.sum(axis=1)
        p = per_model.div(totals, axis=0)
        var = (p * (1 - p)).div(totals, axis=0).groupby(level=0).sum()
        models = per_model.groupby(level=0).size()
        sd = np.sqrt(var.div(models ** 2, axis=0)).reindex(shares.index)
        n = totals.groupby(level=0).sum().reindex(shares.index)
        return n.rename("n"), (shares - 1.96 * sd).clip(0, 1), (shares + 1.96 * sd).clip(0, 1)
    n = counts.reindex(shares.index).sum(axis=1)
    # picks per (row, story, rule); without story ids each pick is its own cluster (= Wilson)
    story = picks["id"] if "id" in picks else pd.Series(range(len(picks)), index=picks.index)
    per_story = pd.crosstab([picks[index], story], pd.Categorical(picks["rule"], categories=RULES), dropna=False)
    per_story = per_story.reindex(columns=RULES, fill_value=0)
    per_story.columns = [str(c) for c in per_story.columns]
    bounds = {}
    for row in shares.index:
        part = per_story.loc[row]
        part = part[part.sum(axis=1) > 0]
        for rule in RULES:
            bounds[row, rule] = clustered_proportion_ci(part[rule], part.sum(axis=1))
    low = pd.DataFrame([[bounds[r, c][0] for c in RULES] for r in shares.index], index=shares.index, columns=RULES)
    high = pd.DataFrame([[bounds[r, c][1] for c in RULES] for r in shares.index], index=shares.index, columns=RULES)
    return n.rename("n"), low, high


def pick_base_rates(picks: pd.DataFrame, items: pd.DataFrame, index: str | None = None
                    ) -> tuple[pd.DataFrame, pd.Series]:
    """The chance reference of :func:`rule_matrix` rows: what a model that picked a distractor at
    random *on the stories it got wrong* would match — per row of ``index`` (``None``: one pooled
    row, ``all``), the mean over its picks of each rule's share among the distractors of the
    pick's story (``items``: ``id``, ``rules``). Also the distractors those picks were drawn from
    (``n``, a story counted once per pick).

    >>> items = pd.DataFrame({"id": ["a", "b"], "rules": [["correct", "R1", "R1", "R1"], ["correct", "R2", "R2", "R2"]]})
    >>> rates, n = pick_base_rates(pd.DataFrame({"id": ["a"], "rule": ["R1"]}), items)  # wrong on story a only
    >>> rates[["R1", "R2"]].to_dict("records"), n.tolist()
    ([{'R1': 1.0, 'R2': 0.0}], [3])
    """
    rules = items.drop_duplicates("id").set_index("id")["rules"]
    counts = pd.DataFrame([[sum(r == rule for r in rs) for rule in RULES] for rs in rules], index=rules.index,
                          columns=RULES, dtype=float)
    per_pick = counts.loc[picks["id"]].reset_index(drop=True)
    key = pd.Series(picks[index].astype(str).to_numpy() if index else np.repeat("all", len(picks)), name=index or "all")
    rates = per_pick.div(per_pick.sum(axis=1), axis=0).groupby(key.to_numpy()).mean()
    shown = per_pick.sum(axis=1).groupby(key.to_numpy()).sum().astype(int)
    if index == "category":
        order = [c for c in CATEGORIES if c in rates.index]
        rates, shown = rates.reindex(order), shown.reindex(order)
    rates.index.name = shown.index.name = index or "all"
    rates.columns.name = "rule"
    return rates, shown.rename("n")


def lure_rates(results: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per rule: ``exposure`` (options of that rule shown), ``picks``, the paper's ``share`` of
    picks, the ``base_rate`` of the rule among shown distractors, ``pick_rate`` = picks/exposure
    and ``lure_ratio`` = pick_rate ÷ ¼ (1 = picked as often as a random guess would pick it).
    ``share / base_rate`` > 1 means the rule lures more than its frequency explains.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": "m", "pred": [1, 1, 0], "answer": 0, "valid": True,
    ...                   "rules": [["correct", "R1", "R2", "R2"]] * 3})
    >>> lure_rates(t).set_index("rule").loc[["R1", "R2"], ["exposure", "picks", "pick_rate"]].to_dict("index")
    {'R1': {'exposure': 3, 'picks': 2, 'pick_rate': 0.6666666666666666}, 'R2': {'exposure': 6, 'picks': 0, 'pick_rate': 0.0}}
    """
    by = list(by)
    rows = []
    for key, part in results.groupby(by, observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        shown = pd.Series([r for rules in part["rules"] for r in rules if r != "correct"])
        exposure = shown.value_counts().reindex(RULES, fill_value=0)
        picks = distractor_picks(part, by)["rule"].value_counts().reindex(RULES, fill_value=0)
        n_picks, n_shown = int(picks.sum()), int(exposure.sum())
        for rule in RULES:
            e, p = int(exposure[rule]), int(picks[rule])
            share = p / n_picks if n_picks else np.nan
            base = e / n_shown if n_shown else np.nan
            rate = p / e if e else np.nan
            rows.append({**dict(zip(by, key)), "rule": rule, "exposure": e, "picks": p, "share": share,
                         "base_rate": base, "share_over_base": share / base if base else np.nan,
                         "pick_rate": rate, "lure_ratio": rate / 0.25 if e else np.nan})
    return pd.DataFrame(rows)
