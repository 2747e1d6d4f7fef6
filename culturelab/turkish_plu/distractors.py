"""Distractors: how similar each wrong option is to the right one, and how often it is picked.

Two sources of similarity ranks (rank 1 = the distractor most similar to the gold option):

* the released goal-inference negatives of the original corpus carry the cosines the authors
  used to pick them (``original_goal_inference.json``): :func:`original_gi_instances` builds
  4-way goal-inference items from them (one step per goal, options shuffled with a seed);
* for the released test sets, :func:`add_similarity_ranks` ranks each item's distractors by
  character TF-IDF cosine to the gold option (the paper's BERTurk POS-pooled vectors need hub
  weights).

Scored tables (see :mod:`culturelab.turkish_plu.mc`) then give :func:`pick_rates` (share of items
where the model chose the gold or the distractor of each rank) and :func:`position_confusion`
(gold position × predicted position).

>>> import pandas as pd
>>> s = pd.DataFrame({"method": ["m"] * 2, "category": ["HE"] * 2, "option_rank": [[0, 1, 2, 3], [2, 0, 1, 3]],
...                   "pred": [1, 1]})
>>> pick_rates(s, ["method"]).query("picked == 'rank 1'")["share"].item()
0.5
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.tasks.mcq import shuffle_options
from culturelab.tasks.reorder import stable_int
from culturelab.turkish_plu.data import normalise_title, title_categories
from culturelab.turkish_plu.mc import char_tfidf


def original_gi_instances(negatives: pd.DataFrame, corpus: pd.DataFrame, *, seed: int = 0,
                          max_instances: int | None = None, min_words: int = 3) -> pd.DataFrame:
    """Goal-inference items from the released negatives of the original corpus: for each goal
    one of its steps (≥ ``min_words`` words, not also a step of one of its negative goals) is the
    prompt; the options are the goal and its three negatives, shuffled. ``option_rank`` gives
    each shown option's similarity rank (0 = gold) and ``option_cosine`` the released cosine
    (1.0 for the gold). The same columns as :meth:`culturelab.turkish_plu.data.Release.mc`."""
    steps_of = negatives.drop_duplicates("goal").set_index("goal")["steps"].map(set).to_dict()
    cats = title_categories(corpus)
    rows = []
    for goal, part in negatives.groupby("goal", sort=True):
        part = part.sort_values("rank")
        banned = set().union(*(steps_of.get(n, set()) for n in part["negative"]))
        candidates = [s for s in part["steps"].iloc[0] if len(str(s).split()) >= min_words and s not in banned]
        if not candidates or part["negative"].isin([goal]).any():
            continue
        rng = np.random.default_rng([seed, stable_int(goal)])
        step = candidates[int(rng.integers(len(candidates)))]
        options = [goal, *part["negative"]]
        ranks = [0, *part["rank"].astype(int)]
        cosines = [1.0, *part["cosine"].astype(float)]
        shown, label, perm = shuffle_options(options, 0, rng)
        rows.append({"goal": goal, "context": step, "options": shown, "label": label,
                     "option_rank": [ranks[i] for i in perm], "option_cosine": [cosines[i] for i in perm],
                     "category": cats.get(normalise_title(goal))})
    table = pd.DataFrame(rows)
    if max_instances is not None and len(table) > max_instances:
        keep = np.sort(np.random.default_rng(seed).choice(len(table), size=max_instances, replace=False))
        table = table.iloc[keep].reset_index(drop=True)
    table.insert(0, "id", [f"gi-original-{i}" for i in range(len(table))])
    table.insert(1, "task", "gi")
    table.insert(2, "split", "original")
    table["row"] = range(len(table))
    table["prev_step"] = None
    table["n_options"] = 4
    table["origin"] = "original"
    return table


def add_similarity_ranks(frame: pd.DataFrame) -> pd.DataFrame:
    """Rank each item's distractors by character 2–4-gram TF-IDF cosine to its gold option
    (``option_rank``: 0 = gold, 1 = most similar distractor; ``option_cosine``)."""
    options = [list(o) for o in frame["options"]]
    flat = [o for opts in options for o in opts]
    vec = char_tfidf().fit(flat)
    matrix = vec.transform(flat)
    bounds = np.cumsum([0] + [len(o) for o in options])
    ranks, cosines = [], []
    for i, label in enumerate(frame["label"]):
        block = matrix[bounds[i]:bounds[i + 1]]
        sims = np.asarray((block @ block[int(label)].T).todense()).ravel()
        sims[int(label)] = np.inf
        order = np.argsort(-sims, kind="stable")
        rank = np.empty(len(sims), dtype=int)
        rank[order] = np.arange(len(sims))
        ranks.append(rank.tolist())
        sims[int(label)] = 1.0
        cosines.append(sims.tolist())
    out = frame.copy()
    out["option_rank"], out["option_cosine"] = ranks, cosines
    return out


def pick_rates(scored: pd.DataFrame, by: Sequence[str] = ("method", "category")) -> pd.DataFrame:
    """Share of items (per ``by`` group) whose chosen option is the gold (``gold``) or the
    distractor of similarity rank k (``rank k``); invalid answers (``pred`` −1) are ``invalid``."""
    picked = [("gold" if r[p] == 0 else f"rank {r[p]}") if p >= 0 else "invalid"
              for r, p in zip(scored["option_rank"], scored["pred"])]
    t = scored.assign(picked=picked)
    counts = t.groupby([*by, "picked"], dropna=False).size().rename("count").reset_index()
    counts["share"] = counts["count"] / counts.groupby(list(by), dropna=False)["count"].transform("sum")
    return counts


def pick_matrix(rates: pd.DataFrame, rows: str = "category", columns: str = "picked") -> pd.DataFrame:
    """A wide ``rows × picked`` table of shares (gold first, then ranks), for a heatmap; each row
    label carries its number of items, e.g. ``C&E (n=12)``.

    >>> r = pd.DataFrame({"category": ["HE", "HE"], "picked": ["gold", "rank 2"], "count": [3, 1],
    ...                   "share": [0.75, 0.25]})
    >>> pick_matrix(r).loc["HE (n=4)"].tolist()
    [0.75, 0.0, 0.25, 0.0]
    """
    wide = rates.pivot_table(index=rows, columns=columns, values="share", aggfunc="sum", fill_value=0.0)
    order = ["gold", "rank 1", "rank 2", "rank 3"] + (["invalid"] if "invalid" in wide.columns else [])
    counts = rates.groupby(rows)["count"].sum()
    wide.index = pd.Index([f"{r} (n={int(counts[r])})" for r in wide.index], name=rows)
    return wide.reindex(columns=order, fill_value=0.0)


def position_confusion(scored: pd.DataFrame) -> pd.DataFrame:
    """Gold position × predicted position, each row normalised to 1 (A, B, C, D labels).

    >>> position_confusion(pd.DataFrame({"label": [0, 0, 1], "pred": [0, 1, 1], "n_options": [2] * 3})).values.tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    n = int(scored["n_options"].max())
    letters = [chr(65 + i) for i in range(n)]
    table = pd.crosstab(scored["label"], scored["pred"]).reindex(index=range(n), columns=range(n), fill_value=0)
    table = table.div(table.sum(axis=1).replace(0, np.nan), axis=0).fillna(0.0)
    table.index = pd.Index(letters, name="gold position")
    table.columns = pd.Index(letters, name="predicted position")
    return table
