"""The numbers of the cultural profile: scores with CIs, gaps, paired model comparisons, and where
a model sits among the models the papers report.

>>> t = pd.DataFrame({"model": "m", "benchmark": "b", "task": "t", "score": [1.0, 0.0, 1.0, 1.0],
...                   "chance": 0.25, "valid": [True, True, False, True]})
>>> scores(t)[["model", "task", "mean", "n", "chance", "invalid_rate"]].to_dict("records")
[{'model': 'm', 'task': 't', 'mean': 0.75, 'n': 4, 'chance': 0.25, 'invalid_rate': 0.25}]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab import reported, stats

KEYS = ["model", "benchmark", "task"]


def scores(tidy: pd.DataFrame, by: Sequence[str] = (), *, seed: int = 0, n_resamples: int = 2000) -> pd.DataFrame:
    """Mean score, bootstrap 95 % CI, n, chance and invalid-answer rate per model × benchmark × task
    (× ``by``, e.g. ``["culture"]``); rows with a missing ``by`` value are left out."""
    keys = [*KEYS, *by]
    tidy = tidy.dropna(subset=list(by)) if by else tidy
    out = stats.summarise(tidy, "score", keys, seed=seed, n_resamples=n_resamples)
    aggs = {"chance": ("chance", lambda c: float(pd.to_numeric(c, errors="coerce").mean())),
            "invalid_rate": ("valid", lambda v: float(1 - v.astype(bool).mean()))}
    for name in ("data_source", "data", "protocol"):  # the labels of the runs' comparisons with their papers
        if name in tidy.columns:
            aggs[name] = (name, lambda v: "; ".join(dict.fromkeys(str(x) for x in v.dropna())) or None)
    extra = tidy.groupby(keys, sort=True, observed=True, dropna=False).agg(**aggs).reset_index()
    return out.merge(extra, on=keys, how="left")


def language_gaps(tidy: pd.DataFrame, *, english: str = "en", seed: int = 0) -> pd.DataFrame:
    """English minus native-language score per model × benchmark × task × culture, on the instances
    asked in both (paired by the instance's stem before ``/``), with a bootstrap CI of the gap.

    >>> t = pd.DataFrame({"model": "m", "benchmark": "b", "task": "t", "culture": "Iran",
    ...                   "instance": ["p1/en", "p1/fa", "p2/en", "p2/fa"], "language": ["en", "fa"] * 2,
    ...                   "score": [1.0, 0.0, 1.0, 1.0]})
    >>> language_gaps(t)[["native", "gap", "n"]].to_dict("records")
    [{'native': 'fa', 'gap': 0.5, 'n': 2}]
    """
    t = tidy.dropna(subset=["language"]).assign(stem=lambda d: d["instance"].astype(str).str.split("/").str[0])
    rows = []
    for key, part in t.groupby([*KEYS, "culture"], sort=True, dropna=False):
        wide = part.pivot_table(index="stem", columns="language", values="score", aggfunc="mean")
        if english not in wide.columns:
            continue
        for lang in (c for c in wide.columns if c != english):
            both = wide[[english, lang]].dropna()
            if both.empty:
                continue
            diff = (both[english] - both[lang]).to_numpy()
            lo, hi = stats.bootstrap_ci(diff, seed=seed)
            rows.append({**dict(zip([*KEYS, "culture"], key)), "native": lang, "gap": float(diff.mean()),
                         "ci_low": lo, "ci_high": hi, "n": int(diff.size)})
    return pd.DataFrame(rows, columns=[*KEYS, "culture", "native", "gap", "ci_low", "ci_high", "n"])


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (step-down, monotone, capped at 1).

    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, float)
    order = np.argsort(p)
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (p.size - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def compare_models(tidy: pd.DataFrame, *, alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """Every pair of models on every benchmark × task, on the instances both answered: McNemar for
    binary scores, a paired permutation test (sign flips of the differences, exact up to 12 instances)
    otherwise, so a handful of items can never look significant; Holm-corrected over all the tests.

    >>> t = pd.DataFrame({"model": ["a"] * 12 + ["b"] * 12, "benchmark": "x", "task": "t",
    ...                   "instance": [str(i) for i in range(12)] * 2, "binary": True,
    ...                   "score": [1.0] * 12 + [0.0] * 12})
    >>> compare_models(t)[["model_a", "model_b", "difference", "test", "significant"]].to_dict("records")
    [{'model_a': 'a', 'model_b': 'b', 'difference': 1.0, 'test': 'McNemar (exact)', 'significant': True}]
    """
    models = list(dict.fromkeys(tidy["model"]))
    rows = []
    for (bench, task), part in tidy.groupby(["benchmark", "task"], sort=True):
        wide = part.pivot_table(index="instance", columns="model", values="score", aggfunc="mean")
        binary = bool(part["binary"].astype(bool).all())
        for i, a in enumerate(models):
            for b in models[i + 1:]:
                if a not in wide.columns or b not in wide.columns:
                    continue
                both = wide[[a, b]].dropna()
                if both.empty:
                    continue
                if binary:
                    res = stats.mcnemar(both[a] > 0.5, both[b] > 0.5)
                    test = "McNemar (exact)"
                else:
                    res = stats.permutation_test(both[a], both[b], paired=True, seed=seed)
                    test = "paired permutation"
                rows.append({"benchmark": bench, "task": task, "model_a": a, "model_b": b, "n": len(both),
                             "mean_a": float(both[a].mean()), "mean_b": float(both[b].mean()),
                             "difference": float((both[a] - both[b]).mean()), "test": test,
                             "p_value": res["p_value"]})
    out = pd.DataFrame(rows, columns=["benchmark", "task", "model_a", "model_b", "n", "mean_a", "mean_b",
                                      "difference", "test", "p_value"])
    out["p_holm"] = holm(out["p_value"]) if len(out) else []
    out["significant"] = out["p_holm"] < alpha
    return out


#: benchmark task prefix → (paper, table, filter on the table, scale to a 0–1 score)
REFERENCES: dict[tuple[str, str], tuple[str, str, dict[str, str], float]] = {
    ("captex", "reorder ρ"): ("captex", "table4", {"metric": "rho"}, 1.0),
    ("percul", "stories"): ("percul", "table5", {"category": "Macro Avg.", "split": "original_persian"}, 1.0),
    **{("turkish_plu", t): ("turkish_plu", "table6", {"task": t}, 0.01) for t in ("gi", "si", "nep", "so")},
}


def nearest_reported(score_table: pd.DataFrame) -> pd.DataFrame:
    """For each of our benchmark × task scores with a paper counterpart, the paper models just below
    and just above it, with the ``data`` and ``protocol`` labels of the comparison of our runs with
    the paper (:func:`culturelab.protocol.compare`, carried by every results row).

    >>> ours = pd.DataFrame({"model": ["m"], "benchmark": ["captex"], "task": ["reorder ρ"], "mean": [0.35],
    ...                      "data": ["sample data (ours, not the paper's)"], "protocol": ["same"]})
    >>> r = nearest_reported(ours).iloc[0]
    >>> r["below"], r["above"], r["data"]
    ('Mistral-Nemo-Base-2407 (0.33)', 'Bloomz-560m (0.37)', "sample data (ours, not the paper's)")
    """
    rows = []
    for rec in score_table.to_dict("records"):
        prefix = str(rec["task"]).split(" (")[0]
        ref = REFERENCES.get((rec["benchmark"], prefix))
        if ref is None:
            continue
        paper, table, where, scale = ref
        rep = reported.load(paper, table)
        for col, val in where.items():
            rep = rep[rep[col].astype(str) == val]
        rep = rep.assign(score=pd.to_numeric(rep["value"], errors="coerce") * scale).dropna(subset=["score"])
        rep = rep[rep["model"] != "Random"]
        below = rep[rep["score"] <= rec["mean"]].nlargest(1, "score")
        above = rep[rep["score"] > rec["mean"]].nsmallest(1, "score")

        def label(r: pd.DataFrame) -> str | None:
            return None if r.empty else f"{r['model'].iloc[0]} ({round(float(r['score'].iloc[0]), 3)})"

        rows.append({"model": rec["model"], "benchmark": rec["benchmark"], "task": rec["task"],
                     "ours": rec["mean"], "below": label(below), "above": label(above),
                     "source": f"{paper} {table}", "data": rec.get("data"), "protocol": rec.get("protocol")})
    return pd.DataFrame(rows, columns=["model", "benchmark", "task", "ours", "below", "above", "source", "data",
                                       "protocol"])
