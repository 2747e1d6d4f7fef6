"""Distractors: how similar each wrong option is to the right one, and how often it is picked.

Two sources of similarity ranks (rank 1 = the distractor most similar to the gold option):

* the released goal-inference negatives of the original corpus carry the cosines the authors
  used to pick them (``original_goal_inference.json``): :func:`original_gi_instances` builds
  4-way goal-inference items from them (one step per goal, options shuffled with a seed);
* for the released test sets, :func:`add_similarity_ranks` ranks each item's distractors by
  cosine to the gold option in the multilingual e5 space (the paper's BERTurk POS-pooled vectors
  need hub weights) — independent of the character TF-IDF the surface scorers use, which is kept
  as a labelled baseline (``similarity="tfidf"``).

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


def option_similarities(frame: pd.DataFrame, similarity: str = "bundled:e5-small", *, device: str = "auto"
                        ) -> list[np.ndarray]:
    """Per item, the cosine of each option to the item's gold option: by sentence embeddings of an
    encoder spec (``bundled:e5-small``, ``st:<id>``; the options embedded as passages) or, with
    ``similarity="tfidf"``, by the character 2–4-gram TF-IDF of the surface baselines (fitted on
    all options)."""
    options = [list(o) for o in frame["options"]]
    flat = [o for opts in options for o in opts]
    if similarity == "tfidf":
        matrix = char_tfidf().fit_transform(flat)
        vectors = None
    else:
        from culturelab.models.encoders import load_encoder

        vectors = load_encoder(similarity, device=device).encode(flat, role="passage")
    bounds = np.cumsum([0] + [len(o) for o in options])
    out = []
    for i, label in enumerate(frame["label"]):
        lo, hi = bounds[i], bounds[i + 1]
        if vectors is None:
            block = matrix[lo:hi]
            out.append(np.asarray((block @ block[int(label)].T).todense()).ravel())
        else:
            out.append(vectors[lo:hi] @ vectors[lo + int(label)])
    return out


def add_similarity_ranks(frame: pd.DataFrame, similarity: str = "bundled:e5-small", *, device: str = "auto"
                         ) -> pd.DataFrame:
    """Rank each item's distractors by their similarity to its gold option
    (:func:`option_similarities`): ``option_rank`` (0 = gold, 1 = most similar distractor, ties in
    option order), ``option_cosine`` (the gold: 1.0) and ``similarity`` (what ranked them).

    The default, the multilingual e5 encoder, is independent of the surface scorers (character
    TF-IDF), so a scorer's errors on "rank 1" distractors are not true by construction;
    ``similarity="tfidf"`` gives the surface ranks as a labelled baseline.

    >>> t = pd.DataFrame({"options": [["kek yap", "araba yıka", "kek yapma", "çay iç"]], "label": [0]})
    >>> add_similarity_ranks(t, "tfidf")["option_rank"].tolist()
    [[0, 2, 1, 3]]
    """
    ranks, cosines = [], []
    for sims, label in zip(option_similarities(frame, similarity, device=device), frame["label"]):
        sims = np.asarray(sims, dtype=float)
        sims[int(label)] = np.inf
        order = np.argsort(-sims, kind="stable")
        rank = np.empty(len(sims), dtype=int)
        rank[order] = np.arange(len(sims))
        ranks.append(rank.tolist())
        sims[int(label)] = 1.0
        cosines.append(sims.tolist())
    out = frame.copy()
    out["option_rank"], out["option_cosine"], out["similarity"] = ranks, cosines, similarity
    return out


def rank_agreement(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """How two similarity rankings of the same items agree, per task: the share of items whose
    rank-1 distractor is the same, and the mean Spearman correlation of the three distractor ranks.

    >>> a = pd.DataFrame({"task": ["si"] * 2, "option_rank": [[0, 1, 2, 3], [1, 0, 2, 3]]})
    >>> rank_agreement(a, a.assign(option_rank=[[0, 1, 3, 2], [1, 0, 2, 3]]))[["same_rank1", "spearman"]].values.tolist()
    [[1.0, 0.75]]
    """
    from scipy.stats import spearmanr

    rows = []
    for (task, pa), (_, pb) in zip(a.groupby("task", sort=True), b.groupby("task", sort=True)):
        same, rho = [], []
        for ra, rb in zip(pa["option_rank"], pb["option_rank"]):
            keep = [i for i, r in enumerate(ra) if r > 0]  # the distractors
            same.append(ra.index(1) == rb.index(1))
            rho.append(spearmanr([ra[i] for i in keep], [rb[i] for i in keep]).statistic)
        rows.append({"task": task, "n": len(pa), "same_rank1": float(np.mean(same)), "spearman": float(np.nanmean(rho))})
    return pd.DataFrame(rows)


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
    label carries its number of items, e.g. ``C&E (n=12)``, and ``attrs["n"]`` lists them.

    >>> r = pd.DataFrame({"category": ["HE", "HE"], "picked": ["gold", "rank 2"], "count": [3, 1],
    ...                   "share": [0.75, 0.25]})
    >>> pick_matrix(r).loc["HE (n=4)"].tolist()
    [0.75, 0.0, 0.25, 0.0]
    """
    wide = rates.pivot_table(index=rows, columns=columns, values="share", aggfunc="sum", fill_value=0.0)
    order = ["gold", "rank 1", "rank 2", "rank 3"] + (["invalid"] if "invalid" in wide.columns else [])
    counts = rates.groupby(rows)["count"].sum()
    wide.index = pd.Index([f"{r} (n={int(counts[r])})" for r in wide.index], name=rows)
    wide = wide.reindex(columns=order, fill_value=0.0)
    wide.attrs["n"] = counts.reindex([str(i).rsplit(" (n=", 1)[0] for i in wide.index]).tolist()
    return wide


def position_confusion(scored: pd.DataFrame) -> pd.DataFrame:
    """Gold position × predicted position, each row normalised to 1 (A, B, C, D labels); ``attrs["n"]``
    holds the items per row.

    >>> position_confusion(pd.DataFrame({"label": [0, 0, 1], "pred": [0, 1, 1], "n_options": [2] * 3})).values.tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    n = int(scored["n_options"].max())
    letters = [chr(65 + i) for i in range(n)]
    table = pd.crosstab(scored["label"], scored["pred"]).reindex(index=range(n), columns=range(n), fill_value=0)
    totals = table.sum(axis=1)
    table = table.div(totals.replace(0, np.nan), axis=0).fillna(0.0)
    table.index = pd.Index(letters, name="gold position")
    table.columns = pd.Index(letters, name="predicted position")
    table.attrs["n"] = totals.tolist()
    return table


def _picks(scored: pd.DataFrame) -> str:
    """``gold 40%, rank 1 25%, rank 2 20%, rank 3 15%`` of one method's items (:func:`pick_rates`)."""
    shares = pick_rates(scored.assign(all="all"), ["all"]).set_index("picked")["share"]
    return ", ".join(f"{k} {shares.get(k, 0.0):.0%}" for k in ("gold", "rank 1", "rank 2", "rank 3", "invalid")
                     if k != "invalid" or k in shares.index)


def findings(negatives: pd.DataFrame, original: pd.DataFrame, test: pd.DataFrame) -> str:
    """What the distractor notebook shows, as Markdown sentences rendered from its tables
    (:mod:`culturelab.report`): the released negatives' mean cosine per rank, the category that holds
    most of the original goal-inference items, and per method (on those items and on the released test
    sets: ``original`` and ``test``, scored) the share of picks on the gold and on each distractor rank,
    and the share of its most picked answer position (¼ would be flat).

    >>> neg = pd.DataFrame({"rank": [1, 2, 3], "cosine": [0.89, 0.87, 0.86]})
    >>> s = pd.DataFrame({"id": [1, 2, 3], "method": "tf-idf char", "category": ["HE", "HE", "C&E"], "task": "gi",
    ...                   "option_rank": [[0, 1, 2, 3]] * 3, "pred": [0, 1, 2], "label": 0, "n_options": 4})
    >>> print(findings(neg, s, s))  # doctest: +NORMALIZE_WHITESPACE
    The released negatives' mean cosine is 0.890, 0.870 and 0.860 for ranks 1 to 3; HE holds 67% of the original
    goal-inference items. Picks on the original items — tf-idf char: gold 33%, rank 1 33%, rank 2 33%, rank 3 0%.
    On the released test sets — tf-idf char: gold 33%, rank 1 33%, rank 2 33%, rank 3 0%, its most picked position
    taking 33% of its answers.
    """
    cosines = negatives.groupby("rank")["cosine"].mean()
    cats = original.drop_duplicates("id")["category"].value_counts(normalize=True)
    out = [f"The released negatives' mean cosine is {', '.join(f'{c:.3f}' for c in cosines.iloc[:-1])} and "
           f"{cosines.iloc[-1]:.3f} for ranks {cosines.index.min()} to {cosines.index.max()}; {cats.idxmax()} holds "
           f"{cats.max():.0%} of the original goal-inference items.",
           "Picks on the original items — " + "; ".join(f"{m}: {_picks(part)}"
                                                         for m, part in original.groupby("method", sort=False)) + "."]
    if len(test):
        out.append("On the released test sets — " + "; ".join(
            f"{m}: {_picks(part)}, its most picked position taking "
            f"{part['pred'][part['pred'] >= 0].value_counts(normalize=True).max():.0%} of its answers"
            for m, part in test.groupby("method", sort=False)) + ".")
    return " ".join(out)
