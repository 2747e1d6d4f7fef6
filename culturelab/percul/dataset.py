"""What is in a PERCUL split, and how far model-free heuristics get on it.

* :func:`category_stats`: Table 1's story counts next to ours, plus story/option lengths.
* :func:`answer_positions`: how often the correct option is 1st, 2nd, 3rd, 4th (not reported
  by the paper; position bias needs it).
* :func:`topic_leakage`: stories that spell out their own answer (the paper says none do).
* :func:`heuristic_baselines`: random guess, longest option, most story overlap, options-only
  — scored like a model (``pred``/``correct``/``valid``), so the same metrics apply.

>>> from culturelab.percul.data import load
>>> items = load(data_source="sample").items
>>> topic_leakage(items)["id"].tolist()
['16_S_ICN']
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from culturelab.percul.data import CATEGORIES, normalise_persian, released_counts, table1_column


def _words(text: str) -> set[str]:
    return {w for w in normalise_persian(text).lower().replace("«", " ").replace("»", " ").split()
            if len(w) > 1 and any(ch.isalpha() for ch in w)}


def category_stats(items: pd.DataFrame) -> pd.DataFrame:
    """Per category (canonical order): our ``stories``, the paper's ``stories_paper`` and
    ``edition_pct_paper`` (Table 1: % of story tokens the annotators changed; not recomputable,
    the LLM drafts are unreleased), mean story length in words and mean option length in
    characters; plus a ``Total`` row.

    >>> from culturelab.percul.data import load
    >>> category_stats(load(data_source="sample").items).iloc[-1][["stories", "stories_paper"]].astype(int).tolist()
    [34, 592]
    """
    paper = released_counts()
    edited = table1_column("edition_pct")
    rows = []
    for cat in CATEGORIES:
        part = items[items["category"] == cat]
        rows.append({"category": cat, "stories": len(part), "stories_paper": paper[cat],
                     "edition_pct_paper": edited[cat],
                     "story_words": float(part["story"].str.split().str.len().mean()) if len(part) else np.nan,
                     "option_chars": float(np.mean([len(o) for opts in part["options"] for o in opts]))
                     if len(part) else np.nan})
    table = pd.DataFrame(rows)
    total = {"category": "Total", "stories": int(table["stories"].sum()), "stories_paper": sum(paper.values()),
             "edition_pct_paper": np.nan,
             "story_words": float(items["story"].str.split().str.len().mean()),
             "option_chars": float(np.mean([len(o) for opts in items["options"] for o in opts]))}
    return pd.concat([table, pd.DataFrame([total])], ignore_index=True)


def answer_positions(items: pd.DataFrame) -> pd.DataFrame:
    """Share of stories whose correct option is at each position (1-based).

    >>> answer_positions(pd.DataFrame({"answer": [0, 0, 3]}))["share"].round(2).tolist()
    [0.67, 0.0, 0.0, 0.33]
    """
    counts = np.bincount(items["answer"], minlength=4)
    return pd.DataFrame({"position": range(1, 5), "stories": counts, "share": counts / counts.sum()})


def topic_leakage(items: pd.DataFrame) -> pd.DataFrame:
    """Stories whose text contains the topic (= the answer concept) after normalisation."""
    hit = [normalise_persian(t) in normalise_persian(s) for t, s in zip(items["topic"], items["story"])]
    return items.loc[hit, ["id", "category", "topic"]].reset_index(drop=True)


def heuristic_baselines(items: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """Model-free answers for every story: ``random`` (seeded uniform guess), ``longest_option``,
    ``story_overlap`` (the option sharing most words with the story; ties → first). Tidy like a
    model's results, with ``model = "baseline:<name>"``."""
    rng = np.random.default_rng(seed)
    preds = {
        "random": rng.integers(0, 4, size=len(items)),
        "longest_option": np.array([int(np.argmax([len(o) for o in opts])) for opts in items["options"]]),
        "story_overlap": np.array([int(np.argmax([len(_words(o) & _words(s)) / max(len(_words(o)), 1) for o in opts]))
                                   for opts, s in zip(items["options"], items["story"])]),
    }
    parts = []
    for name, pred in preds.items():
        part = items.copy()
        part.insert(0, "model", f"baseline:{name}")
        part["method"] = "heuristic"
        part["pred"] = pred
        part["valid"] = True
        part["parse_method"] = "heuristic"
        part["correct"] = part["pred"] == part["answer"]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)
