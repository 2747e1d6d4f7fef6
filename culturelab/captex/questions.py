"""Tasks 2 and 3 — PB-MCQ (procedure questions) and CB-MCQ (conversation questions).

Both are scored two ways from the same prompts (:mod:`culturelab.tasks.mcq`):
``generate`` (the paper's setting: the model writes a letter, unparseable answers count as
wrong and are reported) and ``loglikelihood`` (beyond the paper: the option letter with the
highest log-probability after ``Answer:``; no format failures). Plus the robustness checks:
option-order permutation (position bias), SA↔SN / AA↔AN consistency, and paired
English-vs-native tests.

>>> t = pd.DataFrame({"question": ["Q?"], "options": [["a", "b", "c", "d"]], "answer": [1]})
>>> print(pb_mcq_frame(t, "{question}\\n{options}\\nAnswer:")["prompt"][0])
Q?
A. a
B. b
C. c
D. d
Answer:
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.metrics.choice import accuracy_table
from culturelab.models.base import LanguageModel
from culturelab.stats import clustered_proportion_ci, mcnemar, permutation_test
from culturelab.tasks import mcq
from culturelab.tasks.reorder import shuffle_permutation

METHODS = ("generate", "loglikelihood")


def pb_mcq_frame(mcqs: pd.DataFrame, template: str) -> pd.DataFrame:
    """The released PB-MCQs with their rendered prompt (``task = "PB-MCQ"``)."""
    out = mcqs.copy()
    out["prompt"] = [mcq.render(template, q, o) for q, o in zip(out["question"], out["options"])]
    out["task"] = "PB-MCQ"
    return out.reset_index(drop=True)


def cb_mcq_frame(conversations: pd.DataFrame, template: str) -> pd.DataFrame:
    """CB-MCQ instances: utterances 1–3 as context, the next-step options (English only).

    >>> from culturelab.captex.construction import with_cb_options
    >>> from culturelab.captex.data import load
    >>> conversations = with_cb_options(load(data_source="sample")).conversations
    >>> f = cb_mcq_frame(conversations, "{country}|{context}|{options}")
    >>> f["prompt"][0].count("Person A:"), f["qtype"][0], f["lang_group"][0]
    (2, 'CB', 'English')
    """
    out = conversations[conversations["answer"] >= 0].copy()
    out["prompt"] = [template.format(country=c, context=ctx, options=mcq.format_options(o))
                     for c, ctx, o in zip(out["country"], out["context"], out["options"])]
    out["task"], out["qtype"], out["language"], out["lang_group"] = "CB-MCQ", "CB", "en", "English"
    return out.reset_index(drop=True)


def score_mcqs(model: LanguageModel, frame: pd.DataFrame, methods: Sequence[str] = METHODS, *,
               max_new_tokens: int = 8, chat: bool = True, lenient: bool = False) -> pd.DataFrame:
    """Score every question by each method (one batched model call per method); one row per
    (question, method) with ``pred``, ``correct``, ``valid``, ``raw_output`` and ``parse_verdict``
    (generation; the letter parsed strictly unless ``lenient``, :func:`culturelab.parsing.parse_choice`)."""
    parts = []
    if "generate" in methods:
        parts.append(mcq.score_generation(model, frame, max_new_tokens=max_new_tokens, chat=chat, lenient=lenient))
    if "loglikelihood" in methods:
        parts.append(mcq.score_loglikelihood(model, frame, target="letter").assign(method="loglikelihood"))
    out = pd.concat(parts, ignore_index=True)
    out["model"] = model.spec
    return out


def accuracy_by(results: pd.DataFrame, by: Sequence[str], *, seed: int = 0,
                cluster: str = "procedure_id") -> pd.DataFrame:
    """Accuracy, invalid-answer rate and n (questions) per group of ``by``, with a 95 % Wilson
    interval clustered by ``cluster`` (:func:`culturelab.stats.clustered_proportion_ci`): a
    procedure contributes up to 8 PB-MCQs (4 types × 2 languages) that share its steps, so they
    are not independent answers; ``n_clusters`` counts the procedures of the group.

    >>> t = pd.DataFrame({"method": ["generate"] * 8, "procedure_id": list("aaaabbbb"),
    ...                   "correct": [1, 1, 1, 1, 0, 0, 0, 0], "valid": [True] * 8})
    >>> r = accuracy_by(t, ["method"]).iloc[0]  # two procedures, each all right or all wrong
    >>> float(r["accuracy"]), int(r["n"]), int(r["n_clusters"]), [round(float(r[c]), 3) for c in ("ci_low", "ci_high")]
    (0.5, 8, 2, [0.095, 0.905])
    """
    table = accuracy_table(results, list(by), seed=seed)
    keys = list(by)
    groups = results.groupby(keys, sort=True, observed=True) if keys else [((), results)]
    bounds = []
    for _, part in groups:
        per = part.assign(correct=part["correct"].astype(float)).groupby(cluster, observed=True)["correct"]
        bounds.append((*clustered_proportion_ci(per.sum(), per.size()), per.ngroups))
    table[["ci_low", "ci_high", "n_clusters"]] = pd.DataFrame(bounds, index=table.index)
    table["n_clusters"] = table["n_clusters"].astype(int)
    return table


def shuffle_option_order(frame: pd.DataFrame, template: str, seed: int, *, kind: str = "pb") -> pd.DataFrame:
    """The same questions with their options in another seeded order (never the original one),
    re-rendered; ``orig_index`` maps each new position back to the original option.

    >>> t = pd.DataFrame({"procedure_id": ["p"], "qtype": ["SA"], "language": ["en"], "question": ["Q?"],
    ...                   "options": [["a", "b", "c", "d"]], "answer": [0]})
    >>> s = shuffle_option_order(t, "{question} {options}", seed=0)
    >>> s["options"][0][s["answer"][0]], s["options"][0] != ["a", "b", "c", "d"]
    ('a', True)
    """
    out = frame.copy()
    options, answers, orig = [], [], []
    for row in out.itertuples(index=False):
        key = f"order:{row.procedure_id}:{getattr(row, 'qtype', '')}:{getattr(row, 'language', '')}"
        perm = shuffle_permutation(len(row.options), seed, key)
        options.append([row.options[i] for i in perm])
        answers.append(perm.index(row.answer))
        orig.append(perm)
    out["options"], out["answer"], out["orig_index"] = options, answers, orig
    if kind == "pb":
        out["prompt"] = [mcq.render(template, q, o) for q, o in zip(out["question"], out["options"])]
    else:
        out["prompt"] = [template.format(country=c, context=ctx, options=mcq.format_options(o))
                         for c, ctx, o in zip(out["country"], out["context"], out["options"])]
    return out


def position_bias(original: pd.DataFrame, permuted: pd.DataFrame, *, seed: int = 0) -> dict[str, float]:
    """Compare answers to the same questions in two option orders (same method).

    ``content_agreement``: the same option *text* was chosen; ``letter_agreement``: the same
    *letter* was chosen (position-driven answering); ``accuracy_*`` and a paired permutation
    test of the accuracy difference; ``top_letter_share``: the most frequent predicted letter.

    >>> o = pd.DataFrame({"pred": [0, 1], "correct": [True, False]})
    >>> p = pd.DataFrame({"pred": [0, 1], "correct": [False, False], "orig_index": [[1, 0, 2, 3], [0, 1, 2, 3]]})
    >>> position_bias(o, p)["letter_agreement"]
    1.0
    """
    pred_o = original["pred"].to_numpy()
    pred_p = permuted["pred"].to_numpy()
    mapped = np.array([perm[p] if p >= 0 else -1 for perm, p in zip(permuted["orig_index"], pred_p)])
    valid = (pred_o >= 0) & (pred_p >= 0)
    test = (permutation_test(original["correct"].astype(float).to_numpy(),
                             permuted["correct"].astype(float).to_numpy(), paired=True, seed=seed)
            if len(original) >= 2 else {"p_value": np.nan})
    letters = np.concatenate([pred_o[pred_o >= 0], pred_p[pred_p >= 0]])
    return {"n": len(pred_o), "content_agreement": float(np.mean((mapped == pred_o)[valid])) if valid.any() else np.nan,
            "letter_agreement": float(np.mean((pred_p == pred_o)[valid])) if valid.any() else np.nan,
            "accuracy_original": float(original["correct"].mean()), "accuracy_permuted": float(permuted["correct"].mean()),
            "p_value": test["p_value"],
            "top_letter_share": float(np.bincount(letters).max() / len(letters)) if len(letters) else np.nan}


def negation_consistency(results: pd.DataFrame) -> pd.DataFrame:
    """SA↔SN and AA↔AN consistency per method: among question pairs with the same options in
    the same order (checked), how often the model picked the same option, and how often it
    was right on both / on exactly one.

    >>> r = pd.DataFrame({"procedure_id": ["p"] * 2, "language": ["en"] * 2, "method": ["g"] * 2,
    ...                   "qtype": ["SA", "SN"], "options": [["a", "b", "c", "d"]] * 2, "pred": [1, 1],
    ...                   "correct": [True, True]})
    >>> negation_consistency(r)[["pair", "n_pairs", "same_choice", "both_correct"]].to_dict("records")
    [{'pair': 'SA↔SN', 'n_pairs': 1, 'same_choice': 1.0, 'both_correct': 1.0}]
    """
    rows = []
    keys = ["procedure_id", "language", "method"]
    for a, b in (("SA", "SN"), ("AA", "AN")):
        left = results[results["qtype"] == a].set_index(keys)
        right = results[results["qtype"] == b].set_index(keys)
        both = left.join(right, lsuffix="_a", rsuffix="_b", how="inner")
        both = both[[list(x) == list(y) for x, y in zip(both["options_a"], both["options_b"])]]
        for method, part in both.groupby(level="method"):
            rows.append({"pair": f"{a}↔{b}", "method": method, "n_pairs": len(part),
                         "same_choice": float((part["pred_a"] == part["pred_b"]).mean()),
                         "both_correct": float((part["correct_a"] & part["correct_b"]).mean()),
                         "exactly_one_correct": float((part["correct_a"] ^ part["correct_b"]).mean())})
    return pd.DataFrame(rows, columns=["pair", "method", "n_pairs", "same_choice", "both_correct",
                                       "exactly_one_correct"])


def paired_language_test(results: pd.DataFrame, by: Sequence[str] = ("method",)) -> pd.DataFrame:
    """Exact McNemar test, English vs native on the same (procedure, question type), per group.

    >>> r = pd.DataFrame({"procedure_id": ["p", "p", "q", "q"], "qtype": ["SA"] * 4, "method": ["g"] * 4,
    ...                   "lang_group": ["English", "native"] * 2, "correct": [True, False, True, False]})
    >>> paired_language_test(r)[["n_pairs", "acc_English", "acc_native"]].to_dict("records")
    [{'n_pairs': 2, 'acc_English': 1.0, 'acc_native': 0.0}]
    """
    rows = []
    for key, part in results.groupby(list(by), observed=True):
        wide = part.pivot_table(index=["procedure_id", "qtype"], columns="lang_group", values="correct",
                                aggfunc="first").dropna()
        if not {"English", "native"} <= set(wide.columns) or wide.empty:
            continue
        test = mcnemar(wide["English"].astype(bool), wide["native"].astype(bool))
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), "n_pairs": len(wide), "acc_English": float(wide["English"].mean()),
                     "acc_native": float(wide["native"].mean()), "only_English": test["only_a"],
                     "only_native": test["only_b"], "p_value": test["p_value"]})
    return pd.DataFrame(rows)


def _against_chance(low: float, high: float, chance: float) -> str:
    """Where a 95 % CI lies against a chance level: above, below, or not distinguishable from it."""
    return "above" if low > chance else "below" if high < chance else "not distinguishable from"


def findings(overall: pd.DataFrame, bias: pd.DataFrame | None = None, *, chance: float = 0.25) -> str:
    """What a run shows of its MCQ answers, as Markdown sentences rendered from its tables (no number
    typed by hand, :mod:`culturelab.report`): per task and method (``overall``: :func:`accuracy_by`
    by ``task`` and ``method``) the accuracy and where its CI lies against ``chance``; for generated
    answers the share not scored and the share whose letter names one option and whose text another
    (the ``conflict`` verdict); per task of ``bias`` (:func:`position_bias` rows) whether re-ordered
    options keep the model on the same letter or on the same option, and its most common letter.

    >>> overall = pd.DataFrame({"task": ["PB-MCQ"] * 2, "method": ["generate", "loglikelihood"], "accuracy": [0.2, 0.6],
    ...                         "ci_low": [0.1, 0.5], "ci_high": [0.3, 0.7], "n": [40, 40], "n_clusters": [5, 5],
    ...                         "invalid_rate": [0.3, 0.0], "conflict_share": [0.25, np.nan]})
    >>> bias = pd.DataFrame({"task": ["PB-MCQ"], "letter_agreement": [0.9], "content_agreement": [0.3],
    ...                      "top_letter_share": [0.8]})
    >>> print(findings(overall, bias))  # doctest: +NORMALIZE_WHITESPACE
    PB-MCQ by generate: accuracy 0.20 (95 % CI 0.10–0.30; 40 questions from 5 procedures), not distinguishable
    from chance (1/4); 30.0% of the answers are not scored, 25.0% because their letter names one option and their
    text another. PB-MCQ by loglikelihood: accuracy 0.60 (95 % CI 0.50–0.70; 40 questions from 5 procedures),
    above chance (1/4). PB-MCQ with the options re-ordered: the model keeps the same letter in 90.0% of the
    questions and the same option in 30.0%: it answers by position more than by content; its most common letter
    takes 80.0% of its predictions.
    """
    out = []
    for row in overall.itertuples(index=False):
        text = (f"{row.task} by {row.method}: accuracy {row.accuracy:.2f} (95 % CI {row.ci_low:.2f}–{row.ci_high:.2f}; "
                f"{row.n} questions from {row.n_clusters} procedures), "
                f"{_against_chance(row.ci_low, row.ci_high, chance)} chance (1/{round(1 / chance)})")
        if row.method == "generate":
            conflict = getattr(row, "conflict_share", np.nan)
            text += f"; {row.invalid_rate:.1%} of the answers are not scored" + (
                f", {conflict:.1%} because their letter names one option and their text another"
                if conflict > 0 else "")
        out.append(text + ".")
    for row in (bias.itertuples(index=False) if bias is not None else []):
        how = ("by position more than by content" if row.letter_agreement > row.content_agreement else
               "by content more than by position" if row.content_agreement > row.letter_agreement else
               "by position and content alike")
        out.append(f"{row.task} with the options re-ordered: the model keeps the same letter in "
                   f"{row.letter_agreement:.1%} of the questions and the same option in {row.content_agreement:.1%}: "
                   f"it answers {how}; its most common letter takes {row.top_letter_share:.1%} of its predictions.")
    return " ".join(out)


def type_findings(by_type: pd.DataFrame, *, paper: str = "AA easiest, SA hardest") -> str:
    """Per method, the easiest and the hardest question type of a run (``by_type``: :func:`accuracy_by`
    by ``method`` and ``qtype``) and whether their 95 % CIs overlap, beside the ``paper``'s pattern.

    >>> t = pd.DataFrame({"method": ["g"] * 2, "qtype": ["AA", "SA"], "accuracy": [0.6, 0.2], "ci_low": [0.5, 0.1],
    ...                   "ci_high": [0.7, 0.3]})
    >>> type_findings(t)
    'By g the easiest type is AA (0.60) and the hardest SA (0.20); their 95 % CIs do not overlap (the paper: AA easiest, SA hardest).'
    >>> type_findings(t.assign(accuracy=0.0))
    'By g every type scores 0.00 (the paper: AA easiest, SA hardest).'
    """
    out = []
    for method, part in by_type.groupby("method", sort=False):
        top, low = part.loc[part["accuracy"].idxmax()], part.loc[part["accuracy"].idxmin()]
        if top["accuracy"] == low["accuracy"]:
            out.append(f"By {method} every type scores {top['accuracy']:.2f}")
            continue
        overlap = "overlap" if top["ci_low"] <= low["ci_high"] else "do not overlap"
        out.append(f"By {method} the easiest type is {top['qtype']} ({top['accuracy']:.2f}) and the hardest "
                   f"{low['qtype']} ({low['accuracy']:.2f}); their 95 % CIs {overlap}")
    return ". ".join(out) + f" (the paper: {paper})." if out else ""
