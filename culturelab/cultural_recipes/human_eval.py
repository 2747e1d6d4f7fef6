"""Human evaluation (paper §5.3, Tables 5–6): ratings summaries and Kendall correlations with
automatic metrics, Bonferroni-corrected.

The paper does not say at which level τ is computed; by default (our reading, spec §3.5) it is
**segment level** — one point per rated output recipe — pooled over all systems that have both
a rating and a reference-based score, i.e. the human adaptations (the references) excluded;
τ-b (ties are everywhere in Likert data); the Bonferroni family is the paper's Table 6 of a
direction, 5 metrics × 5 rows = 25 tests (:data:`~culturelab.cultural_recipes.protocol.BONFERRONI_FAMILY`),
whichever metrics are computed here (without Smatch we test 20, still corrected for 25); pass
``family_size`` for another (the labels then say so: :func:`culturelab.cultural_recipes.protocol.table6`).

>>> r = pd.DataFrame({"recipe_id": ["a", "b", "a", "b"], "direction": "zh2en", "system": ["X", "X", "Y", "Y"],
...                   "GRA": [7, 5, 3, 1], "CON": [6, 6, 2, 2], "PRE": [5, 4, 3, 3], "CUL": [7, 7, 1, 1]})
>>> table5(r).query("criterion == 'GRA'")[["system", "mean", "sd"]].to_dict("records")
[{'system': 'X', 'mean': 6.0, 'sd': 1.4142135623730951}, {'system': 'Y', 'mean': 2.0, 'sd': 1.4142135623730951}]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from culturelab.cultural_recipes.data import CRITERIA
from culturelab.cultural_recipes.protocol import BONFERRONI_FAMILY
from culturelab.protocol import Deviations

METRICS = ("BLEU", "ChrF", "R-L", "B-Sc", "Smatch")


def table5(ratings: pd.DataFrame) -> pd.DataFrame:
    """Mean ± SD (n − 1) of each criterion per direction and system (long form)."""
    long = ratings.melt(id_vars=["direction", "system", "recipe_id"], value_vars=list(CRITERIA),
                        var_name="criterion", value_name="rating")
    out = long.groupby(["direction", "system", "criterion"], sort=False)["rating"].agg(
        mean="mean", sd=lambda s: float(s.std(ddof=1)) if len(s) > 1 else float("nan"), n="size").reset_index()
    return out


def with_average(ratings: pd.DataFrame) -> pd.DataFrame:
    """Ratings plus ``avg`` = mean of the four criteria per output."""
    out = ratings.copy()
    out["avg"] = out[list(CRITERIA)].mean(axis=1)
    return out


def kendall_table(joined: pd.DataFrame, *, metrics: Sequence[str] = METRICS,
                  criteria: Sequence[str] = (*CRITERIA, "avg"), variant: str = "b", alpha: float = 0.05,
                  family_size: int = BONFERRONI_FAMILY, exclude_systems: Sequence[str] = ("Human",)
                  ) -> pd.DataFrame:
    """Kendall τ between each criterion and each metric, per direction (segment level).

    ``joined`` has one row per rated output with the rating columns (and ``avg``) and metric
    columns. Metrics that are absent or all-NaN are skipped; the Bonferroni family stays
    ``family_size`` (the paper's 25). Returns
    ``direction, criterion, metric, tau, p_value, p_bonferroni, significant, n, family_size``.

    >>> j = pd.DataFrame({"direction": "zh2en", "system": "X", "GRA": [1, 2, 3, 4, 5, 6, 7, 7],
    ...                   "BLEU": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    >>> kendall_table(j, criteria=["GRA"])[["metric", "family_size"]].to_dict("records")
    [{'metric': 'BLEU', 'family_size': 25}]
    """
    if variant not in {"b", "c"}:
        raise ValueError("variant must be 'b' or 'c'")
    data = joined[~joined["system"].isin(exclude_systems)]
    rows = []
    for direction, part in data.groupby("direction", sort=False):
        present = [m for m in metrics if m in part.columns and part[m].notna().any()]
        m_family = family_size
        for criterion in criteria:
            for metric in present:
                keep = part[[criterion, metric]].dropna()
                if len(keep) >= 3 and keep[criterion].nunique() > 1 and keep[metric].nunique() > 1:
                    res = stats.kendalltau(keep[criterion], keep[metric], variant=variant)
                    tau, p = float(res.statistic), float(res.pvalue)
                else:
                    tau, p = float("nan"), float("nan")
                p_adj = min(1.0, p * m_family) if not np.isnan(p) else float("nan")
                rows.append({"direction": direction, "criterion": criterion, "metric": metric, "tau": tau,
                             "p_value": p, "p_bonferroni": p_adj, "significant": bool(p_adj < alpha),
                             "n": len(keep), "family_size": m_family})
    return pd.DataFrame(rows)


def join_ratings(ratings: pd.DataFrame, outputs: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Attach per-output metric ``scores`` (aligned with ``outputs``' rows) to the ratings, on
    (direction, system, recipe_id); ratings without an output are dropped (and counted in
    ``attrs["unmatched"]``)."""
    scored = pd.concat([outputs[["direction", "system", "recipe_id"]].reset_index(drop=True),
                        scores.reset_index(drop=True)], axis=1)
    joined = with_average(ratings).merge(scored, on=["direction", "system", "recipe_id"], how="left",
                                         indicator=True)
    unmatched = int((joined["_merge"] == "left_only").sum())
    joined = joined[joined["_merge"] == "both"].drop(columns="_merge").reset_index(drop=True)
    joined.attrs["unmatched"] = unmatched
    return joined


def table5_beside_paper(summary: pd.DataFrame, deviations: Deviations) -> pd.DataFrame:
    """Our :func:`table5` (mean per direction, system, criterion) beside the paper's Table 5, for
    the systems it rated, labelled by ``deviations`` (the ratings' comparison with the paper,
    :func:`culturelab.cultural_recipes.protocol.table5`): Δ only on the paper's ratings.

    >>> from culturelab.protocol import compare
    >>> r = pd.DataFrame({"recipe_id": ["a", "b"], "direction": "zh2en", "system": "GPT-4", "GRA": [6, 7],
    ...                   "CON": 6, "PRE": 6, "CUL": 6})
    >>> t = table5_beside_paper(table5(r), compare(None, {})).set_index("criterion")
    >>> float(t.loc["GRA", "reported"]), float(t.loc["GRA", "delta"])
    (6.0, 0.5)
    """
    from culturelab.reported import compare
    from culturelab.reported import load as load_reported

    ours = summary.rename(columns={"system": "method", "mean": "value"})
    table = compare(load_reported("cultural_recipes", "table5"), ours, on=["direction", "method", "criterion"],
                    deviations=deviations)
    return table.dropna(subset=["ours", "reported"]).reset_index(drop=True)


def rated_systems(joined: pd.DataFrame, exclude_systems: Sequence[str] = ("Human",)) -> list[str]:
    """The systems whose rated outputs enter :func:`kendall_table`.

    >>> rated_systems(pd.DataFrame({"system": ["Human", "Retrieval", "Retrieval"]}))
    ['Retrieval']
    """
    return [s for s in dict.fromkeys(joined["system"]) if s not in exclude_systems]


def table6_beside_paper(tau: pd.DataFrame, deviations_of: Callable[[str, str], Deviations]) -> pd.DataFrame:
    """Our Kendall τ (:func:`kendall_table`) beside the paper's Table 6, each (direction, metric)
    labelled by ``deviations_of(direction, metric)`` (:func:`culturelab.cultural_recipes.protocol.table6`).

    >>> from culturelab.protocol import compare
    >>> tau = pd.DataFrame({"direction": ["zh2en"], "criterion": ["GRA"], "metric": ["ChrF"], "tau": [0.3]})
    >>> table6_beside_paper(tau, lambda d, m: compare(None, {}))[["reported", "delta"]].values.round(2).tolist()
    [[0.25, 0.05]]
    """
    from culturelab.reported import compare
    from culturelab.reported import load as load_reported

    if tau.empty:
        return pd.DataFrame(columns=["direction", "criterion", "metric", "reported", "ours", "delta", "data",
                                     "protocol", "model_status", "comparable"])
    on = ["direction", "criterion", "metric"]
    reported = load_reported("cultural_recipes", "table6")
    parts = [compare(reported.merge(part[on], on=on), part, on=on, ours_value="tau",
                     deviations=deviations_of(direction, metric))
             for (direction, metric), part in tau.groupby(["direction", "metric"], sort=False)]
    table = pd.concat(parts, ignore_index=True)
    return table.dropna(subset=["ours", "reported"]).reset_index(drop=True)
