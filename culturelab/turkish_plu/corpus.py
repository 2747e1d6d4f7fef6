"""Corpus statistics of the original-Turkish wikiHow part (Table 3) and its category profile.

The method-level corpus has one row per method (see :meth:`culturelab.turkish_plu.data.Release.corpus`);
tutorials are counted by unique title, as the paper counts them.

>>> import pandas as pd
>>> c = pd.DataFrame({"tutorial": ["a", "a", "b"], "category": ["HE", "HE", "C&E"],
...                   "n_steps": [3, 5, 4], "is_ordered": [1, 0, 1]})
>>> corpus_stats(c).set_index("source").loc["Original", ["tutorials", "steps", "methods"]].tolist()
[2.0, 12.0, 3.0]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.turkish_plu.data import CATEGORY_ORDER

STATS = ("tutorials", "steps", "avg_steps", "methods", "avg_methods")
_FORMAL = re.compile(r"(ın|in|un|ün)[.!]?$", re.I)


def corpus_stats(corpus: pd.DataFrame, by: str | None = "category") -> pd.DataFrame:
    """Tutorials, steps, methods and their per-tutorial averages, per ``by`` group plus an
    ``Original`` row for the whole frame (the columns of Table 3), plus the share of methods the
    orderliness classifier labels ordered (``ordered_share``)."""
    def one(part: pd.DataFrame, name: str) -> dict:
        tutorials = part["tutorial"].nunique()
        steps, methods = int(part["n_steps"].sum()), len(part)
        return {"source": name, "tutorials": float(tutorials), "steps": float(steps),
                "avg_steps": steps / tutorials if tutorials else np.nan, "methods": float(methods),
                "avg_methods": methods / tutorials if tutorials else np.nan,
                "ordered_share": float(part["is_ordered"].astype(float).mean())}
    rows = []
    if by:
        groups = dict(tuple(corpus.groupby(by, sort=False)))
        order = [c for c in CATEGORY_ORDER if c in groups] + [c for c in groups if c not in CATEGORY_ORDER]
        rows += [one(groups[g], g) for g in order]
    rows.append(one(corpus, "Original"))
    return pd.DataFrame(rows)


def long_stats(stats: pd.DataFrame, stats_cols: Sequence[str] = STATS) -> pd.DataFrame:
    """The wide output of :func:`corpus_stats` in Table 3's long form (``source, stat, value``).

    >>> long_stats(pd.DataFrame({"source": ["HE"], "tutorials": [2.0]}), ["tutorials"]).values.tolist()
    [['HE', 'tutorials', 2.0]]"""
    return stats.melt(id_vars="source", value_vars=list(stats_cols), var_name="stat", value_name="value")


def category_profile(corpus: pd.DataFrame) -> pd.DataFrame:
    """Per category: average steps per method and methods per tutorial, % of methods ordered and
    share of tutorials, long form (``category, feature, value``) for a radar chart, each feature
    also scaled to its maximum over categories (``scaled``) so they share one axis.

    >>> c = pd.DataFrame({"tutorial": ["a", "b"], "category": ["HE", "C&E"], "n_steps": [2, 4], "is_ordered": [0, 1]})
    >>> category_profile(c).query("feature == 'ordered %'")["value"].tolist()
    [100.0, 0.0]
    """
    stats = corpus_stats(corpus).query("source != 'Original'")
    steps_per_method = corpus.groupby("category")["n_steps"].mean()
    wide = pd.DataFrame({
        "category": stats["source"].to_numpy(),
        "steps / method": stats["source"].map(steps_per_method).to_numpy(),
        "methods / tutorial": stats["avg_methods"].to_numpy(),
        "ordered %": 100 * stats["ordered_share"].to_numpy(),
        "tutorial share %": 100 * stats["tutorials"].to_numpy() / corpus["tutorial"].nunique(),
    })
    long = wide.melt(id_vars="category", var_name="feature", value_name="value")
    long["scaled"] = long["value"] / long.groupby("feature")["value"].transform("max")
    return long


def is_formal_imperative(step: str) -> bool:
    """Heuristic of the spec (§1.9): the step's last word ends in the formal 2pl imperative
    -ın/-in/-un/-ün (translated wikiHow); original Turkish wikiHow uses the informal 2sg.

    >>> is_formal_imperative("Kıyafetlerinizi sıkın."), is_formal_imperative("Kıyafetlerini sık.")
    (True, False)
    """
    words = str(step).strip().split()
    return bool(words) and bool(_FORMAL.search(words[-1]))


def is_question_title(title: str) -> bool:
    """Original Turkish titles are "… Nasıl …?" questions; translated ones are infinitives.

    >>> is_question_title("Ağ Yazıcısı Nasıl Kurulur?"), is_question_title("CSV Dosyası Oluşturmak")
    (True, False)
    """
    return bool(re.search(r"\bNasıl\b", str(title))) or str(title).strip().endswith("?")


def register_table(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Register and origin cues per task split (§1.9): share of prompt/positive steps in the
    formal imperative, share of goals phrased as questions, share of goals in the original corpus.
    ``frames`` maps a label (e.g. ``"si test"``) to a table of :meth:`~culturelab.turkish_plu.data.Release.mc`."""
    rows = []
    for name, t in frames.items():
        task = t["task"].iloc[0]
        if task == "si":
            steps = [o[lab] for o, lab in zip(t["options"], t["label"])]
        elif task == "so":
            steps = [s for o in t["options"] for s in o]
        else:  # gi: the prompt step; nep: the previous step
            steps = list(t["context"])
        rows.append({"set": name, "task": task, "n": len(t),
                     "formal_step_share": float(np.mean([is_formal_imperative(s) for s in steps])),
                     "question_goal_share": float(np.mean([is_question_title(g) for g in t["goal"]])),
                     "original_share": float((t["origin"] == "original").mean())})
    return pd.DataFrame(rows)


def confusion_from_metrics(reported: dict[str, float], n: int, tol: float = 0.01) -> pd.DataFrame:
    """Every binary confusion matrix (``tp, fp, fn, tn``) of ``n`` items whose accuracy, precision,
    recall and F1 (in %, the keys of ``reported``) are within ``tol`` of the reported values — e.g.
    Table 8's orderliness classifier on its ``n`` test tutorials. ``tol`` is one unit of the last
    reported decimal, so a value rounded the other way (or truncated) still matches;
    :func:`metrics_of_confusion` gives the exact values of a solution.

    >>> from culturelab.reported import load
    >>> table8 = load("turkish_plu", "table8")
    >>> confusion_from_metrics(table8.set_index("metric")["value"].to_dict(), int(table8["n"].iloc[0]))
       tp  fp  fn  tn
    0  64  11   7  53
    """
    tp, fp, fn = (a.ravel() for a in np.meshgrid(np.arange(n + 1), np.arange(n + 1), np.arange(n + 1), indexing="ij"))
    tn = n - tp - fp - fn
    ok = (tn >= 0) & (tp > 0)
    tp, fp, fn, tn = tp[ok], fp[ok], fn[ok], tn[ok]
    values = metrics_of_confusion(tp, fp, fn, tn)
    keep = np.ones(len(tp), dtype=bool)
    for key, target in reported.items():
        keep &= np.abs(values[key] - float(target)) <= tol + 1e-9
    return pd.DataFrame({"tp": tp[keep], "fp": fp[keep], "fn": fn[keep], "tn": tn[keep]}).reset_index(drop=True)


def metrics_of_confusion(tp: np.ndarray | int, fp: np.ndarray | int, fn: np.ndarray | int,
                         tn: np.ndarray | int) -> dict[str, np.ndarray | float]:
    """Accuracy, precision, recall and F1 (in %) of binary confusion counts.

    >>> {k: round(float(v), 2) for k, v in metrics_of_confusion(64, 11, 7, 53).items()}
    {'accuracy': 86.67, 'precision': 85.33, 'recall': 90.14, 'f1': 87.67}
    """
    tp, fp, fn, tn = (np.asarray(x, dtype=float) for x in (tp, fp, fn, tn))
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"accuracy": 100 * (tp + tn) / (tp + fp + fn + tn), "precision": 100 * tp / (tp + fp),
                "recall": 100 * tp / (tp + fn), "f1": 100 * 2 * tp / (2 * tp + fp + fn)}


def findings(stats: pd.DataFrame, corpus: pd.DataFrame, table3: pd.DataFrame, confusion: pd.Series) -> str:
    """What notebook 01 shows, as Markdown sentences rendered from its tables (:mod:`culturelab.report`):
    how far the release's per-tutorial averages lie from Table 3's "Original" row (``table3``: the
    comparison, ``stat, reported, ours``), which category dominates the original part and how much
    the share of ordered methods differs between categories (``stats``: :func:`corpus_stats`), the
    mean length of ordered and unordered methods (``corpus``), and the share of methods labelled
    ordered that Table 8's implied confusion matrix (``confusion``: ``tp, fp, fn, tn``) counts as
    false positives.

    >>> c = pd.DataFrame({"tutorial": ["a", "a", "b"], "category": ["HE", "HE", "C&E"], "n_steps": [3, 5, 9],
    ...                   "is_ordered": [0, 1, 1]})
    >>> t3 = pd.DataFrame({"stat": ["avg_steps", "avg_methods"], "reported": [8.5, 1.5], "ours": [8.5, 1.5]})
    >>> print(findings(corpus_stats(c), c, t3, pd.Series({"tp": 64, "fp": 11, "fn": 7, "tn": 53})))
    ... # doctest: +NORMALIZE_WHITESPACE
    The release's per-tutorial averages lie within 0.0000 of Table 3's "Original" row (within its rounding to two
    decimals). C&E holds 50% of the original tutorials; the share of methods labelled ordered ranges from 50% (HE)
    to 100% (C&E). Ordered methods have 7.0 steps on average, unordered ones 3.0. By Table 8's implied confusion
    matrix 15% of the tutorials the classifier labels ordered are not ordered for the annotators (11 of 75 test
    tutorials): the share of non-sequences to expect in every set built from is_ordered = 1, if its test tutorials
    are representative.
    """
    averages = table3[table3["stat"].isin(["avg_steps", "avg_methods"])]
    gap = float((averages["ours"] - averages["reported"]).abs().max())
    rounding = "within its rounding to two decimals" if gap <= 0.005 + 1e-9 else "more than its rounding to two decimals"
    cats = stats[stats["source"] != "Original"].set_index("source")
    share = cats["tutorials"] / cats["tutorials"].sum()
    ordered = cats["ordered_share"]
    length = corpus.groupby(corpus["is_ordered"].astype(float))["n_steps"].mean()
    tp, fp = int(confusion["tp"]), int(confusion["fp"])
    return (f'The release\'s per-tutorial averages lie within {gap:.4f} of Table 3\'s "Original" row ({rounding}). '
            f"{share.idxmax()} holds {share.max():.0%} of the original tutorials; the share of methods labelled ordered "
            f"ranges from {ordered.min():.0%} ({ordered.idxmin()}) to {ordered.max():.0%} ({ordered.idxmax()}). Ordered "
            f"methods have {length.get(1.0, np.nan):.1f} steps on average, unordered ones {length.get(0.0, np.nan):.1f}. "
            f"By Table 8's implied confusion matrix {fp / (tp + fp):.0%} of the tutorials the classifier labels ordered "
            f"are not ordered for the annotators ({fp} of {tp + fp} test tutorials): the share of non-sequences to "
            "expect in every set built from is_ordered = 1, if its test tutorials are representative.")
