"""Full step reordering built from the ordered methods of the original-Turkish corpus.

The paper's step-ordering task only asks which of two consecutive steps comes first. Here
every method the paper's orderliness classifier labels ordered (``is_ordered == 1``) with
``min_steps``–``max_steps`` steps (5–10, as CAPTEx) becomes one instance: its steps shuffled
by :func:`culturelab.tasks.reorder.shuffle_permutation` (seeded, keyed by the instance id),
shown as lettered lines, answered by a model and scored with the same code as CAPTEx
(:func:`culturelab.tasks.reorder.score_orders`: Spearman ρ, Kendall τ, Levenshtein distance;
answers parsed by :func:`culturelab.parsing.parse_order`).

>>> import pandas as pd
>>> corpus = pd.DataFrame({"tutorial": ["T"] * 3, "method": ["a", "b", "c"], "category": ["HE"] * 3,
...                        "steps": [list("abcde"), list("abcdefghijk"), list("abcdef")],
...                        "n_steps": [5, 11, 6], "is_ordered": [1, 1, 0]})
>>> build_reorder_instances(corpus)["n_steps"].tolist()
[5]
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab import prompts
from culturelab.metrics.ranking import random_baseline
from culturelab.models.base import LanguageModel
from culturelab.parsing import LETTERS
from culturelab.protocol import Deviations
from culturelab.reported import compare, load
from culturelab.stats import summarise
from culturelab.tasks.reorder import (
    DECODING_LABELS,
    generate_orders,
    gold_answer,
    render_shuffled,
    score_orders,
    shuffle_permutation,
)

MIN_STEPS, MAX_STEPS = 5, 10
METRICS = ("rho", "tau", "ld", "pair_acc")
#: the paper's step-ordering rows (Table 6) that adjacent-pair accuracy is put beside
SO_PAPER_ROWS = ("Random", "BERTurk ZS", "BERTurk FT")


def instance_id(tutorial: str, method: str, steps: Sequence[str]) -> str:
    """A stable id of a method (hash of its title, name and steps).

    >>> instance_id("T", "m", ["a", "b"]) == instance_id("T", "m", ["a", "b"])
    True
    """
    text = "\x1f".join([tutorial, method, *steps])
    return "tr-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def build_reorder_instances(corpus: pd.DataFrame, *, seed: int = 0, min_steps: int = MIN_STEPS,
                            max_steps: int = MAX_STEPS, per_length: int | None = None,
                            ordered_only: bool = True) -> pd.DataFrame:
    """Reordering instances from the corpus: one per distinct ordered method with
    ``min_steps``–``max_steps`` steps and no repeated step text (the gold order would be
    ambiguous). ``per_length`` keeps at most that many instances of each length, drawn with
    ``seed``; shuffles depend on ``seed`` and the instance id only, so the same method gets the
    same shuffle in any subset. Columns: ``id, tutorial, method, category, steps, n_steps, perm,
    shown_steps, gold, shuffle_seed``.
    """
    if not 2 <= min_steps <= max_steps <= len(LETTERS):
        raise ValueError(f"need 2 ≤ min_steps ≤ max_steps ≤ {len(LETTERS)}, got {min_steps}–{max_steps}")
    keep = corpus["n_steps"].between(min_steps, max_steps)
    if ordered_only:
        keep &= corpus["is_ordered"].astype(float).eq(1)
    pool = corpus[keep].copy()
    pool = pool[pool["steps"].map(lambda s: len(set(s)) == len(s) and all(str(x).strip() for x in s))]
    pool["id"] = [instance_id(t, m, s) for t, m, s in zip(pool["tutorial"], pool["method"], pool["steps"])]
    pool = pool.drop_duplicates("id").sort_values(["n_steps", "id"]).reset_index(drop=True)
    if per_length is not None:
        rng = np.random.default_rng(seed)
        parts = []
        for _, part in pool.groupby("n_steps", sort=True):
            take = min(per_length, len(part))
            parts.append(part.iloc[np.sort(rng.choice(len(part), size=take, replace=False))])
        pool = pd.concat(parts, ignore_index=True) if parts else pool.iloc[0:0]
    pool["perm"] = [shuffle_permutation(int(n), seed, i) for n, i in zip(pool["n_steps"], pool["id"])]
    pool["shown_steps"] = [[s[g] for g in p] for s, p in zip(pool["steps"], pool["perm"])]
    pool["gold"] = pool["perm"].map(gold_answer)
    pool["shuffle_seed"] = seed
    cols = ["id", "tutorial", "method", "category", "steps", "n_steps", "perm", "shown_steps", "gold", "shuffle_seed"]
    return pool[cols].reset_index(drop=True)


def render_prompts(instances: pd.DataFrame, version: str = "v1") -> list[str]:
    """The reordering prompt of every instance (``culturelab/prompts/turkish_plu.yaml``, ``reorder``).

    >>> t = pd.DataFrame({"tutorial": ["Çay Nasıl Demlenir?"], "steps": [["Suyu kaynat.", "Çayı demle."]],
    ...                   "perm": [[1, 0]]})
    >>> render_prompts(t)[0].splitlines()[1:3]
    ['A. Çayı demle.', 'B. Suyu kaynat.']"""
    template = prompts.get("turkish_plu", "reorder", version)
    return [template.format(goal=g, steps=render_shuffled(s, p))
            for g, s, p in zip(instances["tutorial"], instances["steps"], instances["perm"])]


def run_reordering(model: LanguageModel, instances: pd.DataFrame, *, version: str = "v1", policy: str = "zero",
                   max_new_tokens: int = 40, lenient: bool = False, decoding: str = "free") -> pd.DataFrame:
    """Generate all answers in one batched call (``decoding``: ``free`` or ``constrained`` to valid
    orders, :func:`culturelab.tasks.reorder.generate_orders`), parse (strict unless ``lenient``) and
    score them (``policy`` for invalid answers as in :mod:`culturelab.tasks.reorder`); ``method`` is
    ``llm, `` and the decoding's name (:func:`llm_method`)."""
    frame = instances.copy()
    frame["prompt"] = render_prompts(frame, version)
    texts = generate_orders(model, list(frame["prompt"]), frame["n_steps"], decoding=decoding,
                            max_new_tokens=max_new_tokens)
    scored = add_pair_accuracy(score_orders(frame, texts, policy=policy, steps_col="shown_steps", lenient=lenient))
    return scored.assign(model=model.spec, method=llm_method(decoding), decoding=decoding, prompt_version=version)


def llm_method(decoding: str) -> str:
    """The ``method`` of the language model's answers under ``decoding``: an LM method
    (``llm…``, :func:`culturelab.turkish_plu.protocol.method_labels`) named by its decoding.

    >>> llm_method("constrained")
    'llm, constrained to valid orders (protocol deviation)'
    """
    return f"llm, {DECODING_LABELS[decoding]}"


def as_shown_baseline(instances: pd.DataFrame) -> pd.DataFrame:
    """Answer every instance with the letters in the order shown (A, B, C, …) — what a model that
    only copies the list scores; its expectation equals that of a random order.

    >>> t = pd.DataFrame({"n_steps": [3], "shown_steps": [["b", "a", "c"]], "perm": [[1, 0, 2]],
    ...                   "gold": ["B, A, C"]})
    >>> as_shown_baseline(t)[["method", "pair_acc"]].values.tolist()
    [['as shown', 0.5]]
    """
    texts = [", ".join(LETTERS[:n]) for n in instances["n_steps"]]
    scored = add_pair_accuracy(score_orders(instances, texts, steps_col="shown_steps"))
    return scored.assign(model="baseline", method="as shown")


def add_pair_accuracy(scored: pd.DataFrame) -> pd.DataFrame:
    """Add ``pair_acc`` (:func:`adjacent_pair_accuracy` of each parsed answer)."""
    return scored.assign(pair_acc=[adjacent_pair_accuracy(o, int(n))
                                   for o, n in zip(scored["pred_order"], scored["n_steps"])])


def random_expectation(step_counts: Sequence[int], *, n_samples: int = 20000, seed: int = 0) -> pd.DataFrame:
    """Expected ρ, τ and LD of a uniformly random order for each length (long form: ``n_steps,
    metric, value``), from :func:`culturelab.metrics.ranking.random_baseline`; adjacent-pair
    accuracy is exactly 0.5.

    >>> float(random_expectation([5], n_samples=500).set_index("metric").loc["pair_acc", "value"])
    0.5"""
    per = random_baseline(sorted(set(int(n) for n in step_counts)), n_samples=n_samples, seed=seed, by_length=True)
    rows = [{"n_steps": n, "metric": m, "value": v} for n, d in per.items() for m, v in d.items()]
    rows += [{"n_steps": n, "metric": "pair_acc", "value": 0.5} for n in per]  # each pair: a fair coin
    return pd.DataFrame(rows)


def adjacent_pair_accuracy(pred_order: Sequence[int], n: int) -> float:
    """Share of the ``n − 1`` consecutive gold step pairs (i, i+1) that a predicted order puts in
    the right relative order — the paper's step-ordering question asked of a full answer. Pairs
    with a step missing from the answer count as wrong; NaN when ``n < 2``.

    >>> adjacent_pair_accuracy([0, 2, 1, 3], 4), adjacent_pair_accuracy([1, 0], 3)
    (0.6666666666666666, 0.0)
    """
    if n < 2:
        return float("nan")
    pos = {g: i for i, g in enumerate(pred_order)}
    right = sum(1 for i in range(n - 1) if i in pos and i + 1 in pos and pos[i] < pos[i + 1])
    return right / (n - 1)


def by_length(scored: pd.DataFrame, by: Sequence[str] = ("method",), *, seed: int = 0) -> pd.DataFrame:
    """Mean and bootstrap CI of every metric (ρ, τ, LD, pair accuracy) per number of steps (and
    ``by``) over the **valid** answers (``n``; what the step-count figure draws), long form, with
    all ``answers`` and the share of valid ones; a group without a valid answer has NaN metrics.

    >>> t = pd.DataFrame({"method": ["m"] * 3, "n_steps": [5] * 3, "valid": [True, True, False],
    ...                   "rho": [1.0, 0.5, 0.0], "tau": [1.0, 0.5, 0.0], "ld": [0, 1, 5], "pair_acc": [1.0, 0.5, 0.0]})
    >>> by_length(t).query("metric == 'rho'")[["mean", "n", "answers", "valid_share"]].round(3).to_dict("records")
    [{'mean': 0.75, 'n': 2, 'answers': 3, 'valid_share': 0.667}]
    """
    keys = [*by, "n_steps"]
    valid = scored[scored["valid"].astype(bool)]
    parts = [summarise(valid, metric, keys, seed=seed).assign(metric=metric) for metric in METRICS if len(valid)]
    validity = scored.groupby(keys)["valid"].agg(answers="size", valid_share="mean").reset_index()
    grid = validity[keys].merge(pd.DataFrame({"metric": METRICS}), how="cross")
    out = grid.merge(pd.concat(parts, ignore_index=True), on=[*keys, "metric"], how="left") if parts else grid
    out["n"] = out["n"].fillna(0).astype(int) if "n" in out else 0
    return out.merge(validity, on=keys, how="left")


def table6_so_beside(scored: pd.DataFrame, labels: Callable[[Mapping[str, Any]], Deviations]) -> pd.DataFrame:
    """Mean adjacent-pair accuracy (%) of each ``method`` (and ``model``) over its **valid** answers
    beside each of the paper's step-ordering accuracies (Table 6, rows :data:`SO_PAPER_ROWS`):
    ``task, reported, ours, delta, data, protocol, model_status, comparable, paper_model, method,
    model, n`` (valid answers), ``answers`` and ``valid_share``, one row per (method, paper row),
    labelled by ``labels`` of the method and model
    (:func:`culturelab.turkish_plu.protocol.method_labels`: a full order of other items is
    beyond the paper's two-way choice, so no Δ). An invalid answer has no order to score: counted
    as 0 it would read as a model worse than a coin, so it is left out and the valid share stands
    beside; a method without a valid answer has no number (NaN).

    >>> from culturelab.turkish_plu.protocol import PROTOCOL
    >>> from culturelab.protocol import compare
    >>> beyond = lambda row: compare(PROTOCOL["03_step_ordering"], {})
    >>> t = table6_so_beside(pd.DataFrame({"method": ["as shown"] * 3, "model": "baseline", "pair_acc": [0.5, 0.7, 0.0],
    ...                                    "valid": [True, True, False]}), beyond)
    >>> t[["paper_model", "ours", "n", "valid_share", "comparable"]].values.tolist()[0]
    ['Random', 60.0, 2, 0.6666666666666666, False]
    """
    from culturelab.turkish_plu.protocol import paper_model

    keys = [scored["method"], scored["model"]]
    valid = scored["valid"].astype(bool)
    pairs = (valid.groupby(keys, sort=False).agg(n="sum", answers="size", valid_share="mean")
             .assign(value=100 * scored["pair_acc"].where(valid).groupby(keys, sort=False).mean())
             .reset_index().assign(task="so"))
    reported = load("turkish_plu", "table6").query("task == 'so'")
    return pd.concat([compare(reported[reported["model"] == row], pd.DataFrame([ours]), on=["task"],
                              deviations=labels(ours), model_row=paper_model(row))
                      .assign(paper_model=row, method=ours["method"], model=ours["model"], n=int(ours["n"]),
                              answers=int(ours["answers"]), valid_share=ours["valid_share"])
                      for ours in pairs.to_dict("records") for row in SO_PAPER_ROWS], ignore_index=True)


def findings(instances: pd.DataFrame, scored: pd.DataFrame, *, seed: int = 0) -> str:
    """What the reordering set and the letters-as-shown reference show, as Markdown sentences rendered
    from the run's tables (:mod:`culturelab.report`): the category that supplies most ordered
    methods, overall and among the longest, and whether copying the letters as shown sits on the
    random expectation (mean ρ 0, its 95 % CI) — what the seeded shuffle is for.

    >>> inst = pd.DataFrame({"category": ["C&E", "C&E", "HE", "C&E"], "n_steps": [5, 6, 6, 6]})
    >>> shown = pd.DataFrame({"method": "as shown", "rho": [0.1, -0.2, 0.05, 0.0]})
    >>> print(findings(inst, shown))  # doctest: +NORMALIZE_WHITESPACE
    C&E supplies 75% of the ordered methods of this run and 67% of the longest (6-step) ones, so a trend with length
    is partly a difference between categories. Copying the letters as shown scores a mean ρ of -0.01 (95 % CI -0.14
    to 0.08) over 4 methods: on the random expectation of 0, as the seeded shuffle intends.
    """
    shares = instances["category"].value_counts(normalize=True)
    top, longest = shares.idxmax(), instances[instances["n_steps"] == instances["n_steps"].max()]
    out = [f"{top} supplies {shares.max():.0%} of the ordered methods of this run and "
           f"{(longest['category'] == top).mean():.0%} of the longest ({int(longest['n_steps'].iloc[0])}-step) ones, so "
           "a trend with length is partly a difference between categories."]
    shown = scored[scored["method"] == "as shown"]
    if len(shown):
        r = summarise(shown, "rho", seed=seed).iloc[0]
        place = "above" if r["ci_low"] > 0 else "below" if r["ci_high"] < 0 else "on"
        out.append(f"Copying the letters as shown scores a mean ρ of {r['mean']:.2f} (95 % CI {r['ci_low']:.2f} to "
                   f"{r['ci_high']:.2f}) over {int(r['n'])} methods: {place} the random expectation of 0"
                   + (", as the seeded shuffle intends." if place == "on" else "."))
    return " ".join(out)
