"""FMLAMA's metrics: AP / mAP (absolute match), P@k, and mWS (fuzzy match with word vectors),
aggregated the paper's way (per group, then mean ± sample std over the 5 templates).

* AP follows eq. 3–5 and the paper's code: the denominator is the number of gold ingredients
  that could be ranked (a gold dropped by the masked LM's 10-sub-token cap is not counted).
  AP and P@k are their expected values when equal scores are ordered at random (an uncased
  model scores ``Cinnamon`` and ``cinnamon`` identically; sorting would rank whichever is listed
  first higher). A dish with no rankable gold has no AP and gets NaN for every metric: it is
  left out of the means and counted (:func:`without_gold`). Core: :mod:`culturelab.metrics.retrieval`.
* WS (eq. 6–8): l = number of gold ingredients; for each gold g the best cosine to the model's
  top-l predictions (expected over the order of tied scores, like AP); WS = mean over gold. Vectors come from any encoder with an ``encode``
  method (``culturelab.models.encoders``: fastText ``.bin`` as in the paper, or multilingual-e5).
  A zero vector (fastText OOV) makes the cosine NaN, as in the paper's code.

>>> import numpy as np
>>> scores = np.array([[0.9, 0.5, 0.1], [0.2, 0.8, 0.4]])
>>> gold = gold_matrix([["b"], ["a", "c"]], ["a", "b", "c"])
>>> rank_metrics(scores, gold).round(3).to_dict("list")
{'ap': [0.5, 0.583], 'p1': [0.0, 0.0], 'p5': [0.2, 0.4], 'n_gold': [1, 2]}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.metrics.retrieval import average_precision, precision_at_k
from culturelab.stats import correlations, mean_ci


def candidate_set(ingredient_lists: Sequence[Sequence[str]]) -> list[str]:
    """All distinct ingredients of a sub-dataset, sorted (the paper's candidate set).

    >>> candidate_set([["egg", "flour"], ["egg", "rice"]])
    ['egg', 'flour', 'rice']
    """
    return sorted({i for items in ingredient_lists for i in items})


def gold_matrix(ingredient_lists: Sequence[Sequence[str]], candidates: Sequence[str]) -> np.ndarray:
    """Boolean (dishes × candidates) matrix of gold ingredients (exact string match).

    >>> gold_matrix([["b", "zzz"]], ["a", "b"]).tolist()
    [[False, True]]
    """
    index = {c: j for j, c in enumerate(candidates)}
    gold = np.zeros((len(ingredient_lists), len(candidates)), dtype=bool)
    for i, items in enumerate(ingredient_lists):
        cols = [index[x] for x in items if x in index]
        gold[i, cols] = True
    return gold


def rank_metrics(scores: np.ndarray, gold: np.ndarray, *, rankable: np.ndarray | None = None) -> pd.DataFrame:
    """AP, P@1, P@5 per dish (fractions; expected values under a random order of equal scores)
    and the number of rankable gold ingredients; NaN metrics for a dish without rankable gold.

    ``rankable`` (candidates × bool, or dishes × candidates) marks candidates the model could
    score; by default every finite score is rankable.

    >>> rank_metrics(np.array([[2.0, 1.0]]), np.array([[False, True]]))["ap"].tolist()
    [0.5]
    >>> rank_metrics(np.array([[1.0, 1.0], [2.0, 1.0]]), np.array([[False, True], [False, False]]))["p1"].tolist()
    [0.5, nan]
    """
    scores = np.asarray(scores, dtype=float)
    if rankable is None:
        rankable = np.isfinite(scores)
    rankable = np.broadcast_to(np.asarray(rankable, bool), scores.shape)
    gold_r = np.asarray(gold, bool) & rankable
    return pd.DataFrame({"ap": average_precision(scores, gold_r), "p1": precision_at_k(scores, gold_r, 1),
                         "p5": precision_at_k(scores, gold_r, 5), "n_gold": gold_r.sum(axis=1)})


def without_gold(per_dish: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Per group of ``by``: ``queries`` (dish × template rows) and ``without_gold`` — those with no
    rankable gold ingredient (``n_gold`` 0), which every metric leaves out (NaN).

    >>> t = pd.DataFrame({"model": "m", "n_gold": [2, 0, 1]})
    >>> without_gold(t, ["model"]).to_dict("records")
    [{'model': 'm', 'queries': 3, 'without_gold': 1}]
    """
    flagged = per_dish.assign(without_gold=per_dish["n_gold"].eq(0))
    return flagged.groupby(list(by), sort=False, observed=True)["without_gold"].agg(queries="size", without_gold="sum") \
        .astype(int).reset_index()


#: equal scores: ``expected`` (ours: every metric at its expected value over the orders of the ties) or
#: ``candidate_order`` (the paper's code: Python's ``sorted``, ties in the sorted candidate order)
TIES = ("expected", "candidate_order")
#: per-dish metrics that are a hit rate (a 0/1 value per dish and template): a mean of them is a
#: proportion; AP and WS are not, whatever values they take
HIT_RATES = ("p1",)


def order_ties(scores: np.ndarray) -> np.ndarray:
    """Scores with ties broken as the paper's code breaks them: a stable sort keeps equal scores in
    candidate order (the candidates are sorted strings, as in the paper), so the earlier candidate
    ranks higher. Each finite score becomes its place from the bottom; ``-inf`` (not rankable) stays.

    >>> order_ties(np.array([[0.5, 0.9, 0.5, -np.inf]])).tolist()
    [[3.0, 4.0, 2.0, -inf]]
    >>> rank_metrics(order_ties(np.array([[1.0, 1.0]])), np.array([[False, True]]))["ap"].tolist()  # expected: 0.75
    [0.5]
    """
    scores = np.asarray(scores, dtype=float)
    order = np.argsort(-scores, axis=1, kind="stable")
    places = np.empty_like(scores)
    np.put_along_axis(places, order, np.arange(scores.shape[1], 0, -1, dtype=float)[None, :], axis=1)
    return np.where(np.isfinite(scores), places, scores)


def top_k(scores: np.ndarray, candidates: Sequence[str], k: int) -> list[list[str]]:
    """The ``k`` best candidates per row (ties keep candidate order).

    >>> top_k(np.array([[0.1, 0.9, 0.5]]), ["a", "b", "c"], 2)
    [['b', 'c']]
    """
    order = np.argsort(-np.asarray(scores, float), axis=1, kind="stable")[:, :k]
    return [[candidates[j] for j in row] for row in order]


def expected_max(values: np.ndarray, m: int, floor: np.ndarray | float = -np.inf) -> np.ndarray:
    """Per row of ``values`` (rows × t), the expected value of max(``floor``, the largest of ``m``
    entries drawn uniformly without replacement), exactly: with the row sorted descending,
    the j-th largest is the maximum of the draw with probability C(t − j, m − 1) / C(t, m). A NaN
    that can be drawn (``m`` ≥ 1) makes the row NaN (the paper's fastText NaN propagates).

    >>> expected_max(np.array([[3.0, 1.0, 2.0]]), 2).tolist()  # draws {3,1} {3,2} {1,2}: (3 + 3 + 2) / 3
    [2.6666666666666665]
    >>> expected_max(np.array([[1.0, 0.0]]), 1, floor=np.array([0.5])).tolist(), expected_max(np.array([[1.0]]), 0).tolist()
    ([0.75], [-inf])
    """
    from scipy.special import comb

    values = np.atleast_2d(np.asarray(values, dtype=float))
    floor = np.broadcast_to(np.asarray(floor, dtype=float), values.shape[:1])
    t = values.shape[1]
    m = min(int(m), t)
    if m <= 0:
        return floor.copy()
    ranked = -np.sort(-np.nan_to_num(values, nan=-np.inf), axis=1)
    weights = comb(t - np.arange(1, t + 1), m - 1) / comb(t, m)
    clipped = np.maximum(ranked, floor[:, None])
    out = np.where(weights > 0, clipped * weights, 0.0).sum(axis=1)
    return np.where(np.isnan(values).any(axis=1), np.nan, out)


def _similarities(vectors: np.ndarray) -> np.ndarray:
    """Cosines of L2-normalised ``vectors``; NaN for a zero vector (fastText OOV), as in the paper."""
    vectors = np.asarray(vectors, dtype=np.float64)
    zero = ~np.any(vectors != 0, axis=1)
    sims = vectors @ vectors.T
    sims[zero, :] = np.nan
    sims[:, zero] = np.nan
    return sims


def word_similarity(scores: np.ndarray, gold_lists: Sequence[Sequence[str]], candidates: Sequence[str],
                    vectors: np.ndarray) -> np.ndarray:
    """WS per dish (eq. 6–8) from L2-normalised candidate ``vectors`` (candidates × dim).

    Gold ingredients are members of the candidate set, so one matrix of candidate vectors
    serves both sides; a zero vector gives NaN (the paper's fastText behaviour). The top-l are
    taken like AP and P@k treat ties: **expected over every order of equal scores** (the
    candidates above the l-th best score are in; of those tied with it, a uniformly random
    subset fills the rest, :func:`expected_max`), so WS does not depend on candidate order.

    >>> v = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> word_similarity(np.array([[0.1, 0.9, 0.5]]), [["a"]], ["a", "b", "c"], v).round(2).tolist()
    [0.0]
    >>> word_similarity(np.array([[0.1, 0.9, 0.9]]), [["a"]], ["a", "b", "c"], v).round(2).tolist()  # b, c tied
    [0.3]
    """
    sims = _similarities(vectors)
    scores = np.asarray(scores, float)
    index = {c: j for j, c in enumerate(candidates)}
    out = np.full(len(gold_lists), np.nan)
    for i, items in enumerate(gold_lists):
        gold_idx = [index[g] for g in items if g in index]
        size = min(len(items), scores.shape[1])
        if not gold_idx or size == 0:
            continue
        row = scores[i]
        threshold = np.sort(row)[::-1][size - 1]
        above, tied = np.flatnonzero(row > threshold), np.flatnonzero(row == threshold)
        with np.errstate(invalid="ignore"):
            sure = np.max(sims[np.ix_(gold_idx, above)], axis=1) if len(above) else -np.inf
        out[i] = float(np.mean(expected_max(sims[np.ix_(gold_idx, tied)], size - len(above), sure)))
    return out


def random_ranking_ws(gold_lists: Sequence[Sequence[str]], candidates: Sequence[str],
                      vectors: np.ndarray) -> np.ndarray:
    """Expected WS per dish of a uniformly random ranking of ``candidates`` (the mWS chance
    line), exactly: its top-l is a uniformly random l-subset, so each gold's best cosine is
    :func:`expected_max` over the pool. Candidates with a zero vector (fastText OOV) are left
    out of the draw, so the chance is conditional on a top-l without NaN; a gold with a zero
    vector gives NaN, as in :func:`word_similarity`.

    >>> v = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> random_ranking_ws([["a"]], ["a", "b", "c"], v).round(4).tolist()  # (1 + 0 + 0.6) / 3
    [0.5333]
    """
    sims = _similarities(vectors)
    index = {c: j for j, c in enumerate(candidates)}
    pool = np.flatnonzero(~np.isnan(np.diag(sims)))
    out = np.full(len(gold_lists), np.nan)
    for i, items in enumerate(gold_lists):
        gold_idx = [index[g] for g in items if g in index]
        if gold_idx and len(pool):
            out[i] = float(np.mean(expected_max(sims[np.ix_(gold_idx, pool)], min(len(items), len(pool)))))
    return out


def group_means(per_dish: pd.DataFrame, metrics: Sequence[str], by: Sequence[str], *, group: str = "group",
                all_label: str = "ALL") -> pd.DataFrame:
    """Mean of each metric per ``by`` × group, plus the pooled ``ALL`` row (all dishes, not the
    mean of groups). NaN values (skipped dishes) are left out, as in the paper's code.

    >>> t = pd.DataFrame({"m": "x", "group": ["A", "B", "B"], "ap": [1.0, 0.0, 0.5]})
    >>> group_means(t, ["ap"], ["m"])["ap"].tolist()
    [1.0, 0.25, 0.5]
    """
    parts = [per_dish, per_dish.assign(**{group: all_label})]
    pooled = pd.concat(parts, ignore_index=True)
    return pooled.groupby([*by, group], sort=False, observed=True)[list(metrics)].mean().reset_index()


def over_templates(means: pd.DataFrame, metrics: Sequence[str], by: Sequence[str],
                   template: str = "template") -> pd.DataFrame:
    """Mean and sample std (n − 1) over templates: the "x±y" cells of the paper's tables.
    Long form: ``by…, metric, mean, std, n_templates``.

    >>> m = pd.DataFrame({"group": ["A", "A"], "template": [1, 2], "ap": [0.1, 0.3]})
    >>> over_templates(m, ["ap"], ["group"]).round(3).to_dict("records")
    [{'group': 'A', 'metric': 'ap', 'mean': 0.2, 'std': 0.141, 'n_templates': 2}]
    """
    long = means.melt(id_vars=[*by, template], value_vars=list(metrics), var_name="metric")
    agg = long.groupby([*by, "metric"], sort=False, observed=True)["value"].agg(["mean", "std", "count"])
    return agg.rename(columns={"count": "n_templates"}).reset_index()


def format_cell(mean: float, std: float, *, digits: int = 2, std_digits: int = 2) -> str:
    """``'12.70±3.46'`` (the paper's cell format; mWS: ``digits=4``); a NaN std (one template)
    prints the mean only.

    >>> format_cell(12.7, 3.456), format_cell(0.33, float("nan"), digits=4), format_cell(0.3107, 0.07, digits=4)
    ('12.70±3.46', '0.3300', '0.3107±0.07')
    """
    if mean != mean:  # NaN
        return "–"
    return f"{mean:.{digits}f}" if std != std else f"{mean:.{digits}f}±{std:.{std_digits}f}"


def group_cis(per_dish: pd.DataFrame, metric: str, by: Sequence[str], *, group: str = "group",
              seed: int = 0, n_resamples: int = 2000) -> pd.DataFrame:
    """95 % CI per group of the per-dish metric averaged over templates: dishes are the unit, so
    templates of one dish stay together (:func:`culturelab.stats.mean_ci`: bootstrap over dishes;
    Wilson when every dish's value is 0 or 1 and the metric is a hit rate — never for AP or WS,
    which are no proportions, whatever values they take: one dish gets no interval).

    >>> t = pd.DataFrame({"m": "x", "group": "A", "url": list("abcd"), "ap": [0.0, 1.0, 0.0, 1.0]})
    >>> group_cis(t, "ap", ["m"])[["group", "mean", "n_dishes"]].to_dict("records")
    [{'group': 'A', 'mean': 0.5, 'n_dishes': 4}, {'group': 'ALL', 'mean': 0.5, 'n_dishes': 4}]
    >>> group_cis(t.head(1).assign(ap=1.0), "ap", ["m"])[["ci_low", "ci_high"]].iloc[0].tolist()
    [nan, nan]
    """
    per = per_dish.groupby([*by, group, "url"], observed=True, sort=False)[metric].mean().reset_index()
    per = pd.concat([per, per.assign(**{group: "ALL"})], ignore_index=True)
    rows = []
    for key, part in per.groupby([*by, group], observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        vals = part[metric].to_numpy(dtype=float)
        lo, hi = mean_ci(vals, seed=seed, n_resamples=n_resamples, binary=None if metric in HIT_RATES else False)
        rows.append({**dict(zip([*by, group], key)), "mean": float(np.nanmean(vals)) if len(vals) else np.nan,
                     "ci_low": lo, "ci_high": hi, "n_dishes": int(np.isfinite(vals).sum())})
    return pd.DataFrame(rows)


def metric_correlation(cells: pd.DataFrame, x: str = "mAP", y: str = "mWS") -> dict[str, Any]:
    """Pearson/Spearman between two metrics over all table cells (the paper's 0.66 for Table 2).

    ``cells`` is wide: one row per (group, model) with columns ``x`` and ``y``.

    >>> round(metric_correlation(pd.DataFrame({"mAP": [1, 2, 3], "mWS": [0.1, 0.3, 0.2]}))["pearson"], 2)
    0.5
    """
    return correlations(cells[x].to_numpy(float), cells[y].to_numpy(float))


def random_ranking_ap(n_candidates: np.ndarray | int, n_gold: np.ndarray | int) -> np.ndarray:
    """Expected AP of a uniformly random ranking of ``n_candidates`` with ``n_gold`` of them gold,
    exactly: E[AP] = (H_n + (R − 1)(n − H_n)/(n − 1)) / n (H_n the n-th harmonic number; ``1/R``
    Σ_k E[P@k · rel@k] with P(rel@k) = R/n and P(rel@j, rel@k) = R(R − 1)/(n(n − 1))). The
    mean over dishes is the chance line of an mAP table on that pool; NaN where a dish has no
    gold (skipped, as by AP).

    >>> round(float(random_ranking_ap(1287, 1)), 4), random_ranking_ap(4, [1, 4]).round(4).tolist()
    (0.006, [0.5208, 1.0])
    """
    from scipy.special import digamma

    n = np.asarray(n_candidates, dtype=float)
    r = np.asarray(n_gold, dtype=float)
    harmonic = digamma(n + 1) + np.euler_gamma
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs = np.where(n > 1, (r - 1) * (n - harmonic) / np.maximum(n - 1, 1), 0.0)
        out = (harmonic + pairs) / n
    return np.where((r >= 1) & (r <= n), out, np.nan)
