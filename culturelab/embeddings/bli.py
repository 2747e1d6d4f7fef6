"""Bilingual lexicon induction: score the translations retrieved in a mapped space (retrieval by
nearest neighbour or CSLS: :func:`culturelab.embeddings.space.translate`).

* :func:`gold_index` / :func:`hits` / :func:`precision_at_k` — P@k as in the paper
  (**the share of queries with a correct translation among the top k**, N@k / N);
* :func:`evaluate` — a tidy table of P@1/5/10 for NN and CSLS;
* :func:`table2_view` — the paper's Table 2: top-5 neighbours per query with an automatic
  label (:data:`LABELS`) and an empty ``manual_label`` column to annotate.

>>> import numpy as np
>>> z = np.eye(3, dtype="float32"); q = np.array([[0.9, 0.1, 0.0]], dtype="float32")
>>> idx, _ = translate(q, z, k=2)
>>> idx.tolist()
[[0, 1]]
>>> precision_at_k(idx, [{1}], ks=(1, 2))
{1: 0.0, 2: 1.0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import hypergeom

from culturelab.embeddings.space import RETRIEVALS, translate
from culturelab.stats import proportion_ci

#: the automatic labels of :func:`table2_view`, from best to worst, then the queries they cannot judge
LABELS = ("literal", "near-literal", "cultural", "error", "unlabelled")


def gold_index(pairs: Sequence[tuple[str, str]], src_words: Sequence[str], trg_words: Sequence[str]
               ) -> tuple[np.ndarray, list[set[int]], float]:
    """Group gold word pairs by source word: query indices, their gold target-index sets, and
    coverage (share of gold source words that are in the source vocabulary). Pairs whose target
    is out of vocabulary still count for coverage but cannot be hit.

    >>> gold_index([("chat", "cat"), ("chat", "kitty"), ("chien", "dog"), ("zzz", "x")],
    ...            ["chien", "chat"], ["dog", "cat"])
    (array([1, 0]), [{1}, {0}], 0.6666666666666666)
    """
    src_index = {w: i for i, w in enumerate(src_words)}
    trg_index = {w: i for i, w in enumerate(trg_words)}
    gold: dict[str, set[int]] = {}
    sources = list(dict.fromkeys(s for s, _ in pairs))
    for s, t in pairs:
        if s in src_index:
            gold.setdefault(s, set())
            if t in trg_index:
                gold[s].add(trg_index[t])
    covered = [s for s in sources if s in src_index]
    coverage = len(covered) / len(sources) if sources else 0.0
    return np.array([src_index[s] for s in covered], dtype=np.int64), [gold[s] for s in covered], coverage


def hits(indices: np.ndarray, gold: Sequence[set[int]], k: int) -> np.ndarray:
    """Per query: is any gold index among the first ``k`` retrieved?

    >>> hits(np.array([[3, 1], [0, 2]]), [{1}, {5}], 2).tolist()
    [True, False]
    """
    if len(indices) != len(gold):
        raise ValueError(f"{len(indices)} retrieved lists but {len(gold)} gold sets")
    top = indices[:, :k]
    return np.array([bool(g.intersection(row.tolist())) for row, g in zip(top, gold)], dtype=bool)


def precision_at_k(indices: np.ndarray, gold: Sequence[set[int]], ks: Sequence[int] = (1, 5, 10)) -> dict[int, float]:
    """P@k = N@k / N over the queries (N@k: queries with a gold translation in the top k)."""
    return {k: float(hits(indices, gold, k).mean()) if len(gold) else float("nan") for k in ks}


def evaluate(xw: Any, zw: Any, pairs: Sequence[tuple[str, str]], src_words: Sequence[str],
             trg_words: Sequence[str], *, ks: Sequence[int] = (1, 5, 10), retrievals: Sequence[str] = RETRIEVALS,
             csls_k: int = 10, device: str = "auto", budget_mb: int = 512) -> pd.DataFrame:
    """P@k of a mapped pair of spaces against gold word pairs, for each retrieval method.

    Returns one row per (retrieval, k): ``retrieval, k, precision`` with its 95 % Wilson interval
    (``ci_low``, ``ci_high``), ``chance`` (:func:`chance_precision`), ``n_queries``, ``coverage``.
    """
    queries, gold, coverage = gold_index(pairs, src_words, trg_words)
    rows = []
    for retrieval in retrievals:
        if len(queries):
            idx, _ = translate(np.asarray(xw)[queries], zw, k=max(ks), retrieval=retrieval, csls_k=csls_k,
                               source=xw, device=device, budget_mb=budget_mb)
            p = precision_at_k(idx, gold, ks)
        else:
            p = dict.fromkeys(ks, float("nan"))
        for k in ks:
            low, high = proportion_ci(round(p[k] * len(queries)), len(queries)) if len(queries) else (np.nan, np.nan)
            rows.append({"retrieval": retrieval, "k": k, "precision": p[k], "ci_low": low, "ci_high": high,
                         "chance": chance_precision([len(g) for g in gold], len(trg_words), k),
                         "n_queries": len(queries), "coverage": coverage})
    return pd.DataFrame(rows)


def chance_precision(gold_sizes: Sequence[int], n_targets: int, k: int) -> float:
    """P@k of random retrieval: the mean over queries of the chance that ``k`` targets drawn at
    random from ``n_targets`` include one of the query's gold translations (hypergeometric).

    >>> round(chance_precision([1, 2], 10, 5), 3)
    0.639
    """
    if not len(gold_sizes):
        return float("nan")
    k = min(k, n_targets)
    return float(np.mean(1 - hypergeom.pmf(0, n_targets, np.asarray(gold_sizes), k)))  # one vectorised call


def neighbours(words: Sequence[str], xw: Any, zw: Any, src_words: Sequence[str], trg_words: Sequence[str], *,
               k: int = 5, retrieval: str = "nn", csls_k: int = 10, device: str = "auto",
               budget_mb: int = 512) -> pd.DataFrame:
    """Top-``k`` translations of chosen source words: ``query, rank, neighbour, score`` (OOV
    queries are left out); similarities in row blocks of at most ``budget_mb`` MiB."""
    src_index = {w: i for i, w in enumerate(src_words)}
    present = [w for w in words if w in src_index]
    if not present:
        return pd.DataFrame(columns=["query", "rank", "neighbour", "score"])
    idx, sc = translate(np.asarray(xw)[[src_index[w] for w in present]], zw, k=k, retrieval=retrieval,
                        csls_k=csls_k, source=xw, device=device, budget_mb=budget_mb)
    return pd.DataFrame([{"query": w, "rank": r + 1, "neighbour": trg_words[idx[i, r]], "score": float(sc[i, r])}
                         for i, w in enumerate(present) for r in range(idx.shape[1])])


def _judge(top: Sequence[str], lit: set[str], related: Mapping[str, str] | None) -> tuple[str, str, str]:
    """Label, deciding neighbour and note of one top-k list (see :func:`table2_view`)."""
    if not lit:
        return "unlabelled", "", "no literal translation known (no dictionary gloss)"
    hit = next((w for w in top if w in lit), None)
    if hit:
        return "literal", hit, ""
    if related is None:
        return "unlabelled", "", "no taxonomy class"
    first = next((w for w in top if w in related), None)
    return (related[first], first, "") if first else ("error", "", "")


def table2_view(neighbour_table: pd.DataFrame, literal: Mapping[str, set[str]],
                related: Mapping[str, Mapping[str, str]] | None = None, *, k: int = 5) -> pd.DataFrame:
    """The paper's Table 2: one row per query with its top-``k`` neighbours and an **automatic** label.

    ``literal`` maps a query to its dictionary translations; ``related`` maps a query to English
    words that are not translations but related, each with its label (``near-literal``: same
    function, e.g. 炒 → fry; ``cultural``: an equivalent from another culture, e.g. 蒸 → bake); a
    query absent from ``related`` has no known class. Label (:data:`LABELS`): ``literal`` when a
    literal translation is in the top k; else the label of the first neighbour in ``related``;
    else ``error``; ``unlabelled`` when the query has no literal translation at all, or misses and
    has no class (``label_note`` says which). ``decided_by`` is the neighbour that set the label,
    ``label_at_1`` the label of the first neighbour alone; ``manual_label`` is left empty for a
    human pass, as the paper judged the lists by hand.

    >>> nb = pd.DataFrame({"query": ["蒸"] * 2, "rank": [1, 2], "neighbour": ["bake", "steam"], "score": [0.5, 0.4]})
    >>> v = table2_view(nb, {"蒸": {"steam"}}, {"蒸": {"bake": "cultural"}})
    >>> v[["query", "label", "label_at_1", "decided_by"]].to_dict("records")
    [{'query': '蒸', 'label': 'literal', 'label_at_1': 'cultural', 'decided_by': 'steam'}]
    >>> table2_view(nb, {"蒸": set()})[["label", "label_note"]].iloc[0].tolist()
    ['unlabelled', 'no literal translation known (no dictionary gloss)']
    """
    rows = []
    for query, part in neighbour_table.sort_values(["query", "rank"]).groupby("query", sort=False):
        top = part["neighbour"].tolist()[:k]
        lit = set(literal.get(query, set()))
        rel = related.get(query) if related is not None else None
        label, decided_by, note = _judge(top, lit, rel)
        lit_rank = next((i + 1 for i, w in enumerate(top) if w in lit), None)
        rows.append({"query": query, "neighbours": top, "literal_translations": sorted(lit),
                     "first_literal_rank": lit_rank, "label": label, "decided_by": decided_by, "label_note": note,
                     "label_at_1": _judge(top[:1], lit, rel)[0], "manual_label": ""})
    order = {q: i for i, q in enumerate(dict.fromkeys(neighbour_table["query"]))}
    return pd.DataFrame(rows).sort_values("query", key=lambda s: s.map(order)).reset_index(drop=True)
