"""What the PERCUL notebooks say about a run, written from the run's own numbers, so that every
sentence reading a result — chance, validity, which split or rule wins, a number — stays true for any
model (a notebook shows it with :func:`culturelab.report.md`).

A verdict against a reference (chance, a baseline, zero) is read off the 95 % interval: *above* when
the interval lies above it, *below* when below, otherwise *not distinguishable from* it; a test's
verdict is read off its p-value at 0.05; fewer than :data:`~culturelab.plots.MIN_N` stories or picks
are called too few to read.

>>> versus(0.30, 0.55, CHANCE)
'above'
>>> versus(0.10, 0.40, CHANCE)
'not distinguishable from'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.percul.protocol import CHANCE, method_name
from culturelab.plots import MIN_N
from culturelab.stats import proportion_ci

#: the level a test's p-value is read at
ALPHA = 0.05


def versus(low: float, high: float, reference: float) -> str:
    """Where a 95 % interval [``low``, ``high``] lies against ``reference``: ``above``, ``below`` or
    ``not distinguishable from`` (also when the interval is unknown).

    >>> versus(0.0, 0.2, 0.25), versus(float("nan"), float("nan"), 0.25)
    ('below', 'not distinguishable from')
    """
    if low > reference:
        return "above"
    if high < reference:
        return "below"
    return "not distinguishable from"


def _share(x: float) -> str:
    return f"{x:.0%}".replace("%", " %")


def _scored(row: pd.Series, baseline: pd.Series | None) -> str:
    """One model's macro accuracy, its interval and n, against chance and the best baseline (no
    score when no answer was kept: every one invalid under ``invalid_policy="exclude"``)."""
    if not int(row["n"]):
        return f"**{row['model']}** by {method_name(str(row['method']))}: no answer left to score."
    lo, hi = row["macro_ci_low"], row["macro_ci_high"]
    text = (f"**{row['model']}** by {method_name(str(row['method']))}: macro accuracy "
            f"{row['macro']:.3f} (95 % CI {lo:.3f}–{hi:.3f}; {int(row['n'])} stories in {int(row['n_categories'])} "
            f"categories), {versus(lo, hi, CHANCE)} chance (¼)")
    if baseline is not None:
        text += (f" and {versus(lo, hi, baseline['macro'])} the best model-free baseline "
                 f"({baseline['model']}, {baseline['macro']:.3f})")
    if int(row["n"]) < MIN_N * int(row["n_categories"] or 1):
        text += f"; with fewer than {MIN_N} stories per category, a category's accuracy moves in large steps"
    return text + "."


def _validity(row: pd.Series, methods: pd.Series | None, invalid_policy: str = "wrong") -> str:
    """How many generated answers could not be scored, how they enter the score (``invalid_policy`` of
    :func:`culturelab.percul.scoring.summary`: counted wrong, or left out), and the commonest reason."""
    if not (row["invalid_rate"] > 0):
        return " Every answer was read in the format the prompt asks for." if not (row["lenient_share"] > 0) else ""
    counted = "count as wrong" if invalid_policy == "wrong" else "are left out of the score"
    text = f" {_share(row['invalid_rate'])} of its answers could not be scored and {counted}"
    failed = methods[~methods.isin(["json", "json_relaxed"])] if methods is not None else pd.Series(dtype=str)
    if len(failed):
        top = failed.value_counts()
        text += f" (most often `{top.index[0]}`: {_share(top.iloc[0] / len(methods))} of all answers)"
    text += "."
    if row["lenient_share"] > 0:
        text += (f" {_share(row['lenient_share'])} were readable only by a lenient rule "
                 f"({'counted wrong' if invalid_policy == 'wrong' else 'left out'} here; re-scored leniently below).")
    return text


def benchmark(overview: pd.DataFrame, baselines: pd.DataFrame | None = None,
              results: pd.DataFrame | None = None, *, invalid_policy: str = "wrong") -> str:
    """Notebook 1: per (model, method) row of ``overview`` (:func:`culturelab.percul.scoring.summary`
    under ``invalid_policy``, labelled), its macro against chance and the best model-free
    ``baselines`` row (a summary), how many generated answers could not be scored, how they entered
    the score and why (``results``' ``parse_method``), and how many rows the paper's numbers can be
    set beside (``comparable``).

    >>> o = pd.DataFrame({"model": "m", "method": ["generate"], "macro": [0.0], "macro_ci_low": [0.0],
    ...                   "macro_ci_high": [0.17], "n": [34], "n_categories": [11], "invalid_rate": [1.0],
    ...                   "lenient_share": [0.0], "comparable": [False], "data": ["sample"]})
    >>> r = pd.DataFrame({"model": "m", "method": "generate", "parse_method": ["template_echo"] * 34})
    >>> print(benchmark(o, results=r))
    **m** by generation: macro accuracy 0.000 (95 % CI 0.000–0.170; 34 stories in 11 categories), below chance (¼); with fewer than 10 stories per category, a category's accuracy moves in large steps. 100 % of its answers could not be scored and count as wrong (most often `template_echo`: 100 % of all answers).
    <BLANKLINE>
    None of these rows can be set beside the paper's Table 3 (data: sample), so no Δ is printed.
    """
    best = baselines.sort_values("macro").iloc[-1] if baselines is not None and len(baselines) else None
    parts = []
    for _, row in overview.iterrows():
        text = _scored(row, best)
        if row.get("method") == "generate":
            methods = None
            if results is not None and len(results):
                mine = results[(results["model"] == row["model"]) & (results["method"] == "generate")]
                methods = mine["parse_method"]
            text += _validity(row, methods, invalid_policy)
        parts.append(text)
    if not parts:
        return "No model was scored in this run."
    comparable = overview["comparable"].astype(bool) if "comparable" in overview else pd.Series(False)
    if not comparable.any():
        used = f" (data: {', '.join(dict.fromkeys(overview['data'].astype(str)))})" if "data" in overview else ""
        parts.append(f"None of these rows can be set beside the paper's Table 3{used}, so no Δ is printed.")
    else:
        parts.append(f"{int(comparable.sum())} of {len(comparable)} rows use the paper's data, protocol and model, "
                     "and carry a Δ to Table 3.")
    return "\n\n".join(parts)


def models(ours: pd.DataFrame, points: pd.DataFrame, per_category: pd.DataFrame | None = None) -> str:
    """Notebook 2: each of our models (rows of a summary, with the ``method`` that scored it) against
    chance and against the range of the paper's Figure 4 models (``points``: ``macro``), and how wide
    our per-category intervals are.

    >>> pts = pd.DataFrame({"model": ["a", "b"], "macro": [0.064, 0.717]})
    >>> o = pd.DataFrame({"model": ["m"], "method": "loglikelihood", "macro": [0.6], "macro_ci_low": [0.5], "macro_ci_high": [0.7], "n": [592],
    ...                   "n_categories": [11]})
    >>> models(o, pts)
    "**m** by option log-likelihood: macro accuracy 0.600 (95 % CI 0.500–0.700; 592 stories in 11 categories), above chance (¼). Its interval lies within the range of the paper's Figure 4 models (0.064–0.717)."
    """
    if not len(ours):
        return "No model of ours was scored in this run."
    low, high = float(points["macro"].min()), float(points["macro"].max())
    parts = []
    for _, row in ours.iterrows():
        lo, hi = row["macro_ci_low"], row["macro_ci_high"]
        where = ("lies below" if hi < low else "lies above" if lo > high else
                 "lies within" if lo >= low and hi <= high else "overlaps")
        parts.append(f"{_scored(row, None)} Its interval {where} the range of the paper's Figure 4 models "
                     f"({low:.3f}–{high:.3f}).")
    if per_category is not None and len(per_category):
        width = (per_category["ci_high"] - per_category["ci_low"]).min()
        low, high = int(per_category["n"].min()), int(per_category["n"].max())
        parts.append(f"Per category our cells rest on {low if low == high else f'{low}–{high}'} "
                     f"{'story' if high == 1 else 'stories'} each; the narrowest 95 % interval spans {width:.2f}.")
    return " ".join(parts)


def category_figures(per_category: pd.DataFrame, shown: str, instead: str) -> str:
    """What the figures of this run's per-category cells (``n``: stories per cell) draw: ``shown``
    where at least half of the cells rest on ``MIN_N`` stories
    (:func:`culturelab.percul.figures.carries_signal`), else ``instead`` — with how many cells are
    too small.

    >>> t = pd.DataFrame({"category": ["a", "b", "c"], "n": [3, 4, 3]})
    >>> category_figures(t, "each category is drawn", "the figure pools the categories")
    '3 of 3 per-category cells of this run rest on fewer than 10 stories (3–4): the figure pools the categories.'
    """
    from culturelab.percul.figures import carries_signal

    n = per_category["n"]
    few = int((n < MIN_N).sum())
    span = f"{int(n.min())}" if n.min() == n.max() else f"{int(n.min())}–{int(n.max())}"
    return (f"{few} of {len(n)} per-category cells of this run rest on fewer than {MIN_N} stories ({span}): "
            f"{shown if carries_signal(n) else instead}.")


def rule_figure(picks: pd.DataFrame) -> str:
    """Notebook 4: whether Figure 8 draws the distractor picks (``category`` per pick) per category
    or pools the categories (:func:`culturelab.percul.figures.fig8_with_base_rates`), and why.

    >>> rule_figure(pd.DataFrame({"category": ["Foods"] * 12 + ["Music"] * 3}))
    'Figure 8 draws the picks per category: 1 of 2 categories with picks hold 10 or more (3–12 picks).'
    """
    from culturelab.percul.figures import carries_signal

    per = picks.groupby("category", observed=True).size()
    per = per[per > 0]
    enough = int((per >= MIN_N).sum())
    span = f"{int(per.min())}" if per.min() == per.max() else f"{int(per.min())}–{int(per.max())}"
    how = "draws the picks per category" if carries_signal(per) else "pools the categories"
    return (f"Figure 8 {how}: {enough} of {len(per)} categories with picks hold {MIN_N} or more ({span} "
            "picks).")


def translation(gap: pd.DataFrame, paired: pd.DataFrame) -> str:
    """Notebook 3: per model, the English − Persian gap with both splits' intervals, and the stories
    that flip with McNemar's test (``paired``: :func:`culturelab.percul.translation.paired_outcomes`).

    >>> g = pd.DataFrame({"model": ["m"], "persian": [0.5], "english": [0.4], "delta": [-0.1],
    ...                   "persian_ci_low": [0.3], "persian_ci_high": [0.7], "english_ci_low": [0.2],
    ...                   "english_ci_high": [0.6]})
    >>> p = pd.DataFrame({"model": ["m"], "only_persian": [4], "only_english": [1], "mcnemar_p": [0.375], "n": [34]})
    >>> translation(g, p)
    '**m**: English − Persian = -0.100 (Persian 0.500, 95 % CI 0.300–0.700; English 0.400, 0.200–0.600) — lower in English, as for every model in the paper. Of 34 stories, 4 are right only in Persian and 1 only in English (McNemar p = 0.375): no difference between the splits detectable at the 5 % level.'
    """
    if not len(gap):
        return "No model of ours was scored on both splits in this run."
    flips = paired.set_index("model")
    parts = []
    for _, row in gap.iterrows():
        sign = ("lower in English, as for every model in the paper" if row["delta"] < 0 else
                "higher in English, unlike every model in the paper" if row["delta"] > 0 else "the same in both splits")
        text = (f"**{row['model']}**: English − Persian = {row['delta']:+.3f} (Persian {row['persian']:.3f}, 95 % CI "
                f"{row['persian_ci_low']:.3f}–{row['persian_ci_high']:.3f}; English {row['english']:.3f}, "
                f"{row['english_ci_low']:.3f}–{row['english_ci_high']:.3f}) — {sign}.")
        if row["model"] in flips.index:
            f = flips.loc[row["model"]]
            verdict = ("a difference between the splits" if f["mcnemar_p"] < ALPHA else
                       "no difference between the splits detectable")
            text += (f" Of {int(f['n'])} stories, {int(f['only_persian'])} are right only in Persian and "
                     f"{int(f['only_english'])} only in English (McNemar p = {f['mcnemar_p']:.3g}): {verdict} at the "
                     "5 % level.")
        parts.append(text)
    return " ".join(parts)


def finetuning(significance: pd.DataFrame) -> str:
    """Notebook 3: each fine-tuned model against its base, from the paper's Table 5 (Δ and z of
    :func:`culturelab.percul.paper.finetune_significance`), read at |z| > 1.96.

    >>> s = pd.DataFrame({"pair": ["A vs B"], "delta": [-0.1], "z": [-4.8]})
    >>> finetuning(s)
    'A vs B: Δ = -0.100 (z = -4.8), below its base beyond the binomial noise.'
    """
    parts = []
    for _, row in significance.iterrows():
        verdict = ("within the binomial noise" if abs(row["z"]) <= 1.96 else
                   f"{'below' if row['delta'] < 0 else 'above'} its base beyond the binomial noise")
        parts.append(f"{row['pair']}: Δ = {row['delta']:+.3f} (z = {row['z']:.1f}), {verdict}.")
    return " ".join(parts)


def distractors(lure: pd.DataFrame) -> str:
    """Notebook 4: per model, how many distractors it picked, the rule with the largest share of the
    picks and whether that share is above the rule's base rate among the distractors shown, read off
    the share's 95 % Wilson interval (the picks of one model are one per story: independent)
    (``lure``: :func:`culturelab.percul.distractors.lure_rates`); fewer than ``MIN_N`` picks are too
    few to rank rules.

    >>> t = pd.DataFrame({"model": "m", "rule": ["R1", "R2"], "picks": [30, 10], "share": [0.75, 0.25],
    ...                   "base_rate": [0.5, 0.5]})
    >>> distractors(t)
    '**m** picked a distractor 40 times; the largest share went to R1 (0.75 of the picks, 95 % CI 0.60–0.86, against a base rate of 0.50 among the distractors shown: more than its frequency explains).'
    >>> distractors(t.assign(picks=[7, 5], share=[7 / 12, 5 / 12]))
    '**m** picked a distractor 12 times; the largest share went to R1 (0.58 of the picks, 95 % CI 0.32–0.81, against a base rate of 0.50 among the distractors shown: not distinguishable from its frequency).'
    """
    parts = []
    for model, part in lure.groupby("model", sort=False):
        picks = int(part["picks"].sum())
        if picks < MIN_N:
            parts.append(f"**{model}** picked a distractor {picks} times: too few to rank the rules.")
            continue
        top = part.sort_values("share").iloc[-1]
        lo, hi = proportion_ci(int(top["picks"]), picks)
        verdict = {"above": "more than its frequency explains", "below": "less than its frequency would give",
                   "not distinguishable from": "not distinguishable from its frequency"}[versus(lo, hi, top["base_rate"])]
        parts.append(f"**{model}** picked a distractor {picks} times; the largest share went to {top['rule']} "
                     f"({top['share']:.2f} of the picks, 95 % CI {lo:.2f}–{hi:.2f}, against a base rate of "
                     f"{top['base_rate']:.2f} among the distractors shown: {verdict}).")
    return " ".join(parts) or "No distractor was picked in this run."


def robustness(consistency: pd.DataFrame, prior: pd.DataFrame, debiased: pd.DataFrame,
               calibration: pd.DataFrame) -> str:
    """Notebook 5: per model, how far accuracy moves across option orders, how often the same concept
    is chosen under every order, the position it prefers and whether that preference is beyond where
    the answers are (the clustered test, at 0.05), what debiasing changes, and calibration (ECE, and
    over- or under-confidence).

    >>> c = pd.DataFrame({"model": ["m"], "accuracy_original": [0.3], "accuracy_mean": [0.28], "accuracy_min": [0.2],
    ...                   "accuracy_max": [0.35], "strict_consistency": [0.1], "answer_consistency": [0.2],
    ...                   "n_orders": [4], "n_items": [34]})
    >>> p = pd.DataFrame({"model": "m", "position": [1, 2, 3, 4], "predicted_share": [0.7, 0.1, 0.1, 0.1],
    ...                   "answer_share": 0.25, "chi2_p": 0.001})
    >>> d = pd.DataFrame({"model": ["m"], "permutation_averaged": [0.3], "prior_corrected": [0.32]})
    >>> k = pd.DataFrame({"model": ["m"], "accuracy": [0.28], "mean_confidence": [0.6], "ece": [0.32], "n_stories": [34]})
    >>> print(robustness(c, p, d, k))
    **m**: accuracy 0.200–0.350 across 4 orders (0.300 in the stored order); 20 % of 34 stories get the same concept under every order, 10 % are right under every order. It picks position 1 most (0.70 of its answers; 0.25 of the correct answers are there): a preference beyond where the answers are (p = 0.001). Averaging each option over the orders gives 0.300, dividing by the position prior 0.320 (mean over orders 0.280). ECE 0.320 on 34 stories: over-confident (mean confidence 0.600, accuracy 0.280).
    """
    parts = []
    for _, c in consistency.iterrows():
        m = c["model"]
        pos = prior[prior["model"] == m].sort_values("predicted_share").iloc[-1]
        test = ("a preference beyond where the answers are" if pos["chi2_p"] < ALPHA else
                "no preference beyond where the answers are")
        d = debiased[debiased["model"] == m].iloc[0]
        k = calibration[calibration["model"] == m].iloc[0]
        confidence = ("over-confident" if k["mean_confidence"] > k["accuracy"] else "under-confident"
                      if k["mean_confidence"] < k["accuracy"] else "as confident as accurate")
        parts.append(
            f"**{m}**: accuracy {c['accuracy_min']:.3f}–{c['accuracy_max']:.3f} across {int(c['n_orders'])} orders "
            f"({c['accuracy_original']:.3f} in the stored order); {_share(c['answer_consistency'])} of "
            f"{int(c['n_items'])} stories get the same concept under every order, {_share(c['strict_consistency'])} "
            f"are right under every order. It picks position {int(pos['position'])} most "
            f"({pos['predicted_share']:.2f} of its answers; {pos['answer_share']:.2f} of the correct answers are "
            f"there): {test} (p = {pos['chi2_p']:.3g}). Averaging each option over the orders gives "
            f"{d['permutation_averaged']:.3f}, dividing by the position prior {d['prior_corrected']:.3f} (mean over "
            f"orders {c['accuracy_mean']:.3f}). ECE {k['ece']:.3f} on {int(k['n_stories'])} stories: {confidence} "
            f"(mean confidence {k['mean_confidence']:.3f}, accuracy {k['accuracy']:.3f}).")
    return "\n\n".join(parts) or "No model was scored in this run."


def parser_evidence(quality: pd.DataFrame, splits: Sequence[str] = ("held-out", "dev")) -> str:
    """Notebook 1: the strict parser's precision and recall on each split of its labelled answers
    (``quality``: :func:`culturelab.parsing_gold.quality_table` rows of one parser), the held-out
    split first, the dev split called in-sample.

    >>> q = pd.DataFrame({"split": ["dev", "held-out"], "mode": "strict", "n": [150, 100], "precision": [1.0, 0.98],
    ...                   "recall": [1.0, 0.96]})
    >>> parser_evidence(q)
    'Strict parsing, on 100 held-out answers (set aside before the parser was last changed, or labelled after it): precision 0.980, recall 0.960; on the 150 dev answers it was written against (in-sample): precision 1.000, recall 1.000.'
    """
    strict = quality[quality["mode"] == "strict"].set_index("split")
    said = []
    for split in [s for s in splits if s in strict.index]:
        r = strict.loc[split]
        p, rec = ("n/a" if np.isnan(v) else f"{v:.3f}" for v in (r["precision"], r["recall"]))
        where = (f"{int(r['n'])} held-out answers (set aside before the parser was last changed, or labelled after it)"
                 if split == "held-out" else f"the {int(r['n'])} dev answers it was written against (in-sample)")
        said.append(f"on {where}: precision {p}, recall {rec}")
    return f"Strict parsing, {'; '.join(said)}." if said else "The parser has no labelled answers."
