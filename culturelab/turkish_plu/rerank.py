"""Retrieve, then rerank (§4.1, §5.1, Table 5's last two rows): the top ``depth`` candidate goals of a
first-stage retriever, the gold goal put in at a random place after the 10th when the retriever
missed it (the paper's evaluation protocol, which makes R@30 meaningless: only R@1 and R@10 are
reported), reordered by a second model that reads the step and each candidate together.

The paper's reranker is Zhou et al. (2022)'s cross-encoder — BERTurk or DistilBERTurk reading the
step with its goal and neighbouring steps beside one candidate, its [CLS] score combined with the
retrieval cosine, fine-tuned on the 1,319 training links with 29 retrieved negatives each. No such
model runs offline here, so ours is the nearest joint reader this project has: a causal LM scores
each candidate title as the continuation of a prompt holding the step (mean log-probability per
token, one batched ``model.loglikelihood`` call, cached) — zero-shot, on the step alone, without the
retrieval score. :mod:`culturelab.turkish_plu.protocol` declares each of these differences.

>>> lists = candidate_lists([[4, 1, 2], [0, 3, 1]], [2, 5], depth=3, insert_after=1, seed=0)
>>> lists[["candidates", "gold_pos", "inserted"]].values.tolist()
[[[4, 1, 2], 2, False], [[0, 3, 5], 2, True]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab import prompts
from culturelab.metrics.retrieval import rank_counts
from culturelab.models.base import LanguageModel

#: the paper's candidate lists: the top 30, the gold put in after the 10th when missing (Table 5, §5.1)
DEPTH, INSERT_AFTER = 30, 10
#: the recall levels the paper reports for its rerankers (R@30 is 100 % by construction)
NS = (1, 10)
#: the Table 5 rows of the paper's rerankers, best first, and their models
PAPER_ROWS = {"+ BERTurk": "BERTurk", "+ DistilBERTurk": "DistilBERTurk"}
#: the paper's candidate lists before reranking, as :func:`beside_paper` names them: its best retriever's top
#: 30 (the gold put in after the 10th leaves its R@1 and R@10 as Table 5's retrieval row gives them)
PAPER_FIRST_STAGE = "paper Sup. SimCSE-TR BERTurk (its lists before reranking)"


def candidate_lists(top: Sequence[Sequence[int]], gold: Sequence[int], *, depth: int = DEPTH,
                    insert_after: int = INSERT_AFTER, seed: int = 0) -> pd.DataFrame:
    """The candidate list of each query: its first ``depth`` retrieved pool indices (``top``, best
    first), and where the gold (``gold``: its pool index) is missing from them, the gold put in at a
    uniformly drawn place after the ``insert_after``-th (the candidates below it shifted down, the last
    dropped; seeded). Columns ``candidates``, ``gold_pos`` (0-based) and ``inserted``.

    >>> candidate_lists([[7, 8, 9, 6]], [1], depth=4, insert_after=2, seed=1)["gold_pos"].tolist()
    [2]
    """
    if not 0 <= insert_after < depth:
        raise ValueError(f"insert_after must lie in [0, depth): got {insert_after} with depth {depth}")
    rng = np.random.default_rng(seed)
    rows = []
    for found, g in zip(top, gold):
        cands = [int(c) for c in list(found)[:depth]]
        if len(cands) < depth:
            raise ValueError(f"the first stage returned {len(cands)} candidates, fewer than depth {depth}")
        inserted = int(g) not in cands
        if inserted:
            pos = int(rng.integers(insert_after, depth))
            cands = [*cands[:pos], int(g), *cands[pos:depth - 1]]
        rows.append({"candidates": cands, "gold_pos": cands.index(int(g)), "inserted": inserted})
    return pd.DataFrame(rows, columns=["candidates", "gold_pos", "inserted"])


def first_stage_ranks(lists: pd.DataFrame, first: pd.DataFrame) -> pd.DataFrame:
    """Where the gold ranks in each candidate list before reranking: the first stage's own rank
    (``above``/``tied`` of :func:`culturelab.turkish_plu.linking.rank_gold`: equal scores at their
    expected rank) where it retrieved the gold, its place in the list where the gold was put in.
    Columns ``above, tied, expected_rank`` (for :func:`culturelab.turkish_plu.linking.recall_table`).

    >>> lists = pd.DataFrame({"gold_pos": [0, 12], "inserted": [False, True]})
    >>> first_stage_ranks(lists, pd.DataFrame({"above": [0.0, 40.0], "tied": [3.0, 1.0]})).values.tolist()
    [[0.0, 3.0, 2.0], [12.0, 1.0, 13.0]]
    """
    inserted = lists["inserted"].to_numpy(bool)
    above = np.where(inserted, lists["gold_pos"].to_numpy(float), first["above"].to_numpy(float))
    tied = np.where(inserted, 1.0, first["tied"].to_numpy(float))
    return pd.DataFrame({"above": above, "tied": tied, "expected_rank": above + (tied + 1) / 2})


def lm_rerank(model: LanguageModel, steps: Sequence[str], lists: pd.DataFrame, pool: Sequence[str], *,
              version: str = "v1") -> pd.DataFrame:
    """Rerank every candidate list with a causal LM: each candidate title's mean log-probability per
    token after the ``rerank`` prompt holding the step (``culturelab/prompts/turkish_plu.yaml``), all
    (step, candidate) pairs in one ``model.loglikelihood`` call (cached). Returns ``scores`` (one per
    candidate), where the gold ranks (``above, tied, expected_rank``) and the reranked ``top`` (pool
    indices, best first)."""
    template = prompts.get("turkish_plu", "rerank", version)
    requests = [(template.format(step=step), " " + pool[i].strip())
                for step, cands in zip(steps, lists["candidates"]) for i in cands]
    scores = np.array([r.mean for r in model.loglikelihood(requests)], dtype=float).reshape(len(lists), -1)
    above, tied = rank_counts(scores, lists["gold_pos"].to_numpy())
    order = np.argsort(-scores, axis=1, kind="stable")
    top = [[c[j] for j in row] for c, row in zip(lists["candidates"], order)]
    return pd.DataFrame({"scores": scores.tolist(), "above": above.astype(float), "tied": tied.astype(float),
                         "expected_rank": above + (tied + 1) / 2, "top": top})


def beside_paper(recall: pd.DataFrame, n_paper: int = 440) -> pd.DataFrame:
    """R@1 and R@10 of :func:`recall_by_stage`'s runs (our lists before and after reranking) beside the
    paper's, before (:data:`PAPER_FIRST_STAGE`: its best retriever's R@1 and R@10, which its gold
    insertion after the 10th leaves unchanged) and after reranking (:data:`PAPER_ROWS`), over its
    ``n_paper`` test steps: ``system, metric, value, ci_low, ci_high, n`` for
    :func:`culturelab.turkish_plu.figures.recall_bars`, so that each side's gain is read from its own
    first stage.

    >>> r = pd.DataFrame({"system": "bm25", "pool": "top 30 + gold", "group": "all", "metric": ["R@1", "R@10"],
    ...                   "value": [5.0, 40.0], "ci_low": 1.0, "ci_high": 60.0, "n": 30})
    >>> beside_paper(r)[["system", "metric", "value"]].values.tolist()[:2]
    [['paper Sup. SimCSE-TR BERTurk (its lists before reranking)', 'R@1', 33.4], ['paper Sup. SimCSE-TR BERTurk (its lists before reranking)', 'R@10', 55.7]]
    """
    from culturelab.turkish_plu.linking import BEST_ROW, recall_with_paper

    table = recall_with_paper(recall, n_paper, rows=[BEST_ROW, *PAPER_ROWS])
    table = table[table["metric"].isin([f"R@{n}" for n in NS])]
    first = table["system"] == f"paper {BEST_ROW}"
    table = table.assign(system=table["system"].where(~first, PAPER_FIRST_STAGE))
    order = [PAPER_FIRST_STAGE, *(f"paper {row}" for row in PAPER_ROWS)]
    rank = table["system"].map({s: i for i, s in enumerate(order)}).fillna(len(order))
    return table.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank").reset_index(drop=True)


def best_first_stage(recall: pd.DataFrame, n: int = DEPTH) -> str:
    """The first stage whose candidates are reranked: the full-pool run of
    :func:`culturelab.turkish_plu.linking.recall_table` (``system``, ``pool == "full"``) with the
    highest R@``n`` over all queries — as the paper reranks the top 30 of its best retriever.

    >>> r = pd.DataFrame({"system": ["a", "b", "b"], "pool": ["full", "full", "small"], "group": "all",
    ...                   "metric": "R@30", "value": [18.0, 24.0, 60.0]})
    >>> best_first_stage(r)
    'b'
    """
    full = recall[(recall["pool"] == "full") & (recall["group"] == "all") & (recall["metric"] == f"R@{n}")]
    if full.empty:
        raise ValueError(f"no full-pool run with R@{n} to rerank")
    return str(full.loc[full["value"].idxmax(), "system"])


def stages(queries: pd.DataFrame, lists: pd.DataFrame, first: pd.DataFrame, reranked: pd.DataFrame, pool: Sequence[str],
           *, first_stage: str, model: str) -> pd.DataFrame:
    """Where the gold ranks in each candidate list before reranking (``system`` = ``first_stage``,
    :func:`first_stage_ranks`) and after (``system`` = ``model``, :func:`lm_rerank`), long form: the
    query's ``step, goal, origin``, whether the gold was put in (``inserted``), ``above, tied,
    expected_rank`` and the first three titles of the list in that order (``top3``).

    >>> q = pd.DataFrame({"step": ["s"], "goal": ["B"], "origin": ["original"]})
    >>> lists = pd.DataFrame({"candidates": [[0, 1]], "gold_pos": [1], "inserted": [False]})
    >>> first = pd.DataFrame({"above": [1.0], "tied": [1.0]})
    >>> again = pd.DataFrame({"above": [0.0], "tied": [1.0], "expected_rank": [1.0], "top": [[1, 0]]})
    >>> stages(q, lists, first, again, ["A", "B"], first_stage="BM25+", model="hf:x")[["system", "expected_rank", "top3"]].values.tolist()
    [['BM25+', 2.0, ['A', 'B']], ['hf:x', 1.0, ['B', 'A']]]
    """
    base = queries[["step", "goal", "origin"]].reset_index(drop=True).assign(inserted=lists["inserted"].to_numpy())
    before = first_stage_ranks(lists, first).assign(top3=[[pool[i] for i in c[:3]] for c in lists["candidates"]])
    after = reranked[["above", "tied", "expected_rank"]].assign(top3=[[pool[i] for i in t[:3]] for t in reranked["top"]])
    return pd.concat([pd.concat([base, before], axis=1).assign(system=first_stage),
                      pd.concat([base, after.reset_index(drop=True)], axis=1).assign(system=model)], ignore_index=True)


def recall_by_stage(per_query: pd.DataFrame, *, depth: int = DEPTH, seed: int = 0) -> pd.DataFrame:
    """R@1 and R@10 (%) and MRR of each ``system`` of :func:`stages` over its queries and per
    ``origin`` (:func:`culturelab.turkish_plu.linking.recall_table`), ``pool`` naming the candidate
    lists (``top <depth> + gold``).

    >>> t = pd.DataFrame({"system": ["a", "a"], "origin": ["original", "translated"], "above": [0.0, 11.0],
    ...                   "tied": [1.0, 1.0]})
    >>> recall_by_stage(t).query("group == 'all'")[["metric", "value", "pool"]].values.tolist()[:2]
    [['R@1', 50.0, 'top 30 + gold'], ['R@10', 50.0, 'top 30 + gold']]
    """
    from culturelab.turkish_plu.linking import recall_table

    return pd.concat([recall_table(part, NS, groups=part["origin"], seed=seed).assign(system=system,
                                                                                      pool=f"top {depth} + gold")
                      for system, part in per_query.groupby("system", sort=False)], ignore_index=True)


def findings(recall: pd.DataFrame, per_query: pd.DataFrame, *, first_stage: str, model: str) -> str:
    """What the rerank shows, as a Markdown sentence rendered from its tables (:mod:`culturelab.report`):
    R@1 and R@10 (95 % CI) of the candidate lists in ``first_stage``'s order and as ``model`` reorders
    them (``recall``: :func:`recall_by_stage`), and how many lists had the gold put in (``per_query``).

    >>> rec = pd.DataFrame({"system": ["bm25"] * 2 + ["hf:x"] * 2, "group": "all", "metric": ["R@1", "R@10"] * 2,
    ...                     "value": [20.0, 40.0, 10.0, 45.0], "ci_low": [10.0, 30, 5, 35], "ci_high": [30.0, 50, 20, 55],
    ...                     "n": 30})
    >>> q = pd.DataFrame({"system": ["bm25"] * 30, "inserted": [True] * 12 + [False] * 18})
    >>> print(findings(rec, q, first_stage="bm25", model="hf:x"))  # doctest: +NORMALIZE_WHITESPACE
    Reordering the top lists of bm25 (12 of 30 with the gold put in) with hf:x moves R@1 from 20.0 (95 % CI 10.0–30.0)
    to 10.0 (5.0–20.0) and R@10 from 40.0 (30.0–50.0) to 45.0 (35.0–55.0): it lowers R@1 and raises R@10.
    """
    rows = recall[recall["group"] == "all"].set_index(["system", "metric"])

    def cell(system: str, metric: str, ci: str = "") -> str:
        r = rows.loc[(system, metric)]
        return f"{r['value']:.1f} ({ci}{r['ci_low']:.1f}–{r['ci_high']:.1f})"

    moves = [("raises" if rows.loc[(model, m), "value"] > rows.loc[(first_stage, m), "value"] else
              "lowers" if rows.loc[(model, m), "value"] < rows.loc[(first_stage, m), "value"] else "keeps") + f" {m}"
             for m in (f"R@{n}" for n in NS)]
    lists = per_query[per_query["system"] == first_stage]
    return (f"Reordering the top lists of {first_stage} ({int(lists['inserted'].sum())} of {len(lists)} with the gold "
            f"put in) with {model} moves R@1 from {cell(first_stage, 'R@1', '95 % CI ')} to {cell(model, 'R@1')} and "
            f"R@10 from {cell(first_stage, 'R@10')} to {cell(model, 'R@10')}: it {' and '.join(moves)}.")
