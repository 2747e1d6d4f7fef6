"""Task 1 — step reordering: instances, prompts, scoring and the paper-specific analyses.

Shuffles come from :func:`culturelab.tasks.reorder.shuffle_permutation` keyed by the
procedure id, so the English and the native version of a procedure show their steps in the
same shuffled order (a paired comparison). Answers are parsed by
:func:`culturelab.parsing.parse_order` and scored by :func:`culturelab.tasks.reorder.score_orders`
(ρ, τ, LD; invalid answers by the chosen policy).

>>> from culturelab.captex.data import load
>>> inst = reorder_instances(load(data_source="sample").procedures, seed=0)
>>> a = inst[inst["procedure_id"] == "IR-01"]
>>> a["perm"].iloc[0] == a["perm"].iloc[1], a["lang_group"].tolist()
(True, ['English', 'native'])
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.metrics.ranking import kendall_distance, random_baseline
from culturelab.models.base import LanguageModel
from culturelab.parsing import lenient_share
from culturelab.stats import summarise
from culturelab.tasks.reorder import (
    generate_orders,
    gold_answer,
    modal_answers,
    render_shuffled,
    score_orders,
    shuffle_permutation,
)

METRICS = ("rho", "tau", "ld")


def reorder_instances(procedures: pd.DataFrame, seed: int = 0,
                      lang_groups: Sequence[str] = ("English", "native")) -> pd.DataFrame:
    """One instance per (procedure, language): ``perm`` (``perm[j]`` = gold index of the step
    shown under letter j), ``shown_steps`` (letter order), ``gold`` (e.g. ``"C, A, B"``)."""
    out = procedures[procedures["lang_group"].isin(list(lang_groups))].copy()
    out["perm"] = [shuffle_permutation(int(n), seed, str(pid)) for n, pid in zip(out["n_steps"], out["procedure_id"])]
    out["shown_steps"] = [[steps[g] for g in perm] for steps, perm in zip(out["steps"], out["perm"])]
    out["gold"] = out["perm"].map(gold_answer)
    out["shuffle_seed"] = seed
    return out.reset_index(drop=True)


def render_prompts(instances: pd.DataFrame, template: str) -> list[str]:
    """Fill the reorder template (``{name}``, ``{country}``, ``{steps}``) for every instance.

    >>> t = pd.DataFrame({"title": ["Tea"], "country": ["Iran"], "steps": [["boil", "pour"]], "perm": [[1, 0]]})
    >>> render_prompts(t, "{name} ({country}):\\n{steps}")[0]
    'Tea (Iran):\\nA. pour\\nB. boil'
    """
    return [template.format(name=t, country=c, steps=render_shuffled(s, p))
            for t, c, s, p in zip(instances["title"], instances["country"], instances["steps"], instances["perm"])]


def run_reordering(model: LanguageModel, instances: pd.DataFrame, template: str, *, policy: str = "zero",
                   max_new_tokens: int = 32, chat: bool = True, lenient: bool = False,
                   decoding: str = "free") -> pd.DataFrame:
    """Generate every answer in one batched call (``decoding``: ``free``, the paper's protocol, or
    ``constrained`` to permutations, see :func:`culturelab.tasks.reorder.generate_orders`), parse
    (strict unless ``lenient``) and score; adds ``prompt``, ``raw_output``, metrics, ``ld_norm``
    (LD/n), ``kendall_dist``, ``one_swap`` and ``decoding`` (the run's comparison labels each
    decoding: :meth:`culturelab.runner.Run.label` by ``decoding``)."""
    prompts = render_prompts(instances, template)
    texts = generate_orders(model, prompts, instances["n_steps"], decoding=decoding, max_new_tokens=max_new_tokens,
                            chat=chat)
    scored = score_orders(instances.assign(prompt=prompts), texts, policy=policy, steps_col="shown_steps",
                          lenient=lenient)
    scored["ld_norm"] = scored["ld"] / scored["n_steps"]
    scored["kendall_dist"] = [kendall_distance(o) if v else np.nan
                              for o, v in zip(scored["pred_order"], scored["valid"])]
    scored["one_swap"] = scored["kendall_dist"] == 1
    scored["model"] = model.spec
    scored["decoding"] = decoding
    return scored


def summarise_reordering(scored: pd.DataFrame, by: Sequence[str] = (), *, seed: int = 0) -> pd.DataFrame:
    """Mean ρ, τ, LD (with 95 % bootstrap CIs; NaN rows — the ``drop`` policy — left out),
    validity and exact-match rates and the lenient share (with a ``parse_verdict`` column) per group.
    The CIs are never Wilson's (a ρ of 0 or 1 is no proportion) and, with a ``procedure_id``
    column, resample whole procedures: the English and native answers of one procedure share its
    shuffle and are not independent (``n`` counts answers, ``n_procedures`` procedures).

    >>> t = pd.DataFrame({"rho": [1.0, 0.0], "tau": [1.0, 0.0], "ld": [0, 4], "valid": [True, False],
    ...                   "exact": [True, False]})
    >>> summarise_reordering(t)[["rho", "ld", "valid_rate", "n"]].to_dict("records")
    [{'rho': 0.5, 'ld': 2.0, 'valid_rate': 0.5, 'n': 2}]
    """
    by = list(by)
    parts = []
    cluster = "procedure_id" if "procedure_id" in scored else None
    for metric in METRICS:
        s = summarise(scored.assign(**{metric: scored[metric].astype(float)}), metric, by, seed=seed, binary=False,
                      cluster=cluster).rename(columns={"n_clusters": "n_procedures"})
        s = s.rename(columns={"mean": metric, "ci_low": f"{metric}_ci_low", "ci_high": f"{metric}_ci_high"})
        parts.append(s.drop(columns=["n", "n_procedures"], errors="ignore") if parts else s)
    table = parts[0]
    for p in parts[1:]:
        table = table.merge(p, on=by) if by else pd.concat([table, p], axis=1)
    grouped = scored.groupby(by, sort=True, observed=True) if by else None
    valid = grouped["valid"].mean().to_numpy() if by else [float(scored["valid"].mean())]
    exact = (grouped["exact"].mean().to_numpy() if by else [float(pd.to_numeric(scored["exact"]).mean())])
    table["valid_rate"] = np.asarray(valid, dtype=float)
    table["exact_rate"] = np.asarray(exact, dtype=float)
    verdicts = scored["parse_verdict"] if "parse_verdict" in scored else pd.Series(np.nan, index=scored.index)
    share = verdicts.groupby([scored[b] for b in by], sort=True, observed=True).apply(lenient_share) if by \
        else [lenient_share(verdicts)]
    table["lenient_share"] = np.asarray(share, dtype=float)
    cols = [*by, "rho", "rho_ci_low", "rho_ci_high", "tau", "tau_ci_low", "tau_ci_high", "ld", "ld_ci_low",
            "ld_ci_high", "valid_rate", "exact_rate", "lenient_share", "n"]
    return table[cols + (["n_procedures"] if cluster else [])]


def by_steps_valid(scored: pd.DataFrame, by: Sequence[str] = ("decoding",), *, seed: int = 0) -> pd.DataFrame:
    """Per step count (and ``by``): ρ, τ, LD (95 % CIs) over the **valid** answers only — what
    Fig. 5 draws — beside ``answers`` (all), ``valid_rate``, ``n`` (valid answers) and, among the
    valid answers, the most common one and the share equal to it (``modal_answer``, ``modal_share``;
    :func:`culturelab.tasks.reorder.modal_answers`): where that share is high, n counts copies of one
    answer, not independent readings.

    >>> t = pd.DataFrame({"decoding": ["free"] * 2 + ["constrained"] * 2, "n_steps": [5] * 4,
    ...                   "rho": [0.0, 1.0, 0.5, 0.7], "tau": [0.0, 1.0, 0.5, 0.7], "ld": [9, 0, 2, 1],
    ...                   "valid": [False, True, True, True], "exact": [False, True, False, False]})
    >>> t = t.assign(perm=[[0, 1, 2, 3, 4]] * 4, pred_order=[[], [0, 1, 2, 3, 4], [1, 0, 2, 3, 4], [1, 0, 2, 3, 4]])
    >>> by_steps_valid(t)[["decoding", "rho", "answers", "valid_rate", "n", "modal_share"]].to_dict("records")
    [{'decoding': 'constrained', 'rho': 0.6, 'answers': 2, 'valid_rate': 1.0, 'n': 2, 'modal_share': 1.0}, {'decoding': 'free', 'rho': 1.0, 'answers': 2, 'valid_rate': 0.5, 'n': 1, 'modal_share': 1.0}]
    >>> by_steps_valid(t[t["decoding"] == "free"].assign(valid=False))[["rho", "ld_ci_high", "valid_rate", "n", "modal_share"]].to_dict("records")
    [{'rho': nan, 'ld_ci_high': nan, 'valid_rate': 0.0, 'n': 0, 'modal_share': nan}]
    """
    keys = [*by, "n_steps"]
    validity = scored.groupby(keys, observed=True)["valid"].agg(answers="size", valid_rate="mean").reset_index()
    valid = scored[scored["valid"].astype(bool)]
    if len(valid):
        metrics = summarise_reordering(valid, keys, seed=seed).drop(columns=["valid_rate", "exact_rate"])
        table = validity.merge(metrics, on=keys, how="left")
    else:  # no valid answer at all: the metrics are missing, not zero
        table = validity.assign(**{f"{m}{part}": np.nan for m in METRICS for part in ("", "_ci_low", "_ci_high")}, n=0)
    table["n"] = table["n"].fillna(0).astype(int)
    modal = modal_answers(scored, by)[[*keys, "modal_answer", "modal_share"]]
    return table.merge(modal, on=keys, how="left")


STEP_ESTIMATORS = ("options", "correct", "all_options")


def paper_step_means(estimator: str = "options", lang_groups: Sequence[str] = ("English", "native")) -> pd.Series:
    """Mean steps per procedure and country implied by Table 3 (one MCQ option is one step):
    words per procedure divided by words per step, where a step's length is estimated from
    the options — ``options``: mean of the correct and incorrect averages (default);
    ``correct``: the correct option only (spec §1.3); ``all_options``: 1 correct + 3 incorrect
    weighted. English and native estimates (same step counts) are averaged.

    >>> paper_step_means("correct", ["English"]).round(1).to_dict()["China"]
    6.4
    """
    from culturelab.reported import load as load_reported

    if estimator not in STEP_ESTIMATORS:
        raise ValueError(f"estimator must be one of {STEP_ESTIMATORS}, not {estimator!r}")
    t3 = load_reported("captex", "table3")
    wide = t3[t3["lang_group"].isin(list(lang_groups))].pivot_table(
        index=["country", "lang_group"], columns="measure", values="value")
    step_words = {"options": (wide["correct"] + wide["incorrect"]) / 2, "correct": wide["correct"],
                  "all_options": (wide["correct"] + 3 * wide["incorrect"]) / 4}[estimator]
    return (wide["procedure"] / step_words).groupby(level="country").mean().rename("mean_steps")


def paper_step_mix(per_country: int = 100, estimator: str = "options") -> list[int]:
    """A step-count sample matching :func:`paper_step_means`: per country, ``per_country``
    procedures of ⌊m⌋ or ⌈m⌉ steps in the proportion that gives mean m.

    >>> mix = paper_step_mix(); len(mix), round(float(np.mean(mix)), 2)
    (700, 7.19)
    """
    counts: list[int] = []
    for m in paper_step_means(estimator):
        lo = math.floor(m)
        n_hi = round((m - lo) * per_country)
        counts += [lo + 1] * n_hi + [lo] * (per_country - n_hi)
    return counts


def random_baseline_table(step_counts: Sequence[int], *, n_samples: int = 20000, seed: int = 0) -> pd.DataFrame:
    """The random-permutation expectation per step count (rows ``n_steps``, ``rho``, ``tau``, ``ld``).

    >>> random_baseline_table([5, 10], n_samples=2000)["n_steps"].tolist()
    [5, 10]
    """
    per_n = random_baseline(step_counts, n_samples=n_samples, seed=seed, by_length=True)
    return pd.DataFrame([{"n_steps": n, **v} for n, v in per_n.items()])


_DIGITS = re.compile(r"\d+")


def _numbers(text: str) -> set[int]:
    return {int(run) for run in _DIGITS.findall(text)}  # int() reads every Unicode decimal digit


def step_number_leaks(procedures: pd.DataFrame) -> pd.DataFrame:
    """Native steps that mention *other* step numbers (e.g. 「2のだしに3の豆腐…」) — digits
    1…n that the English version of the same step does not contain. Such references leak the
    order into native-language reordering (spec §1.4). One row per native procedure:
    ``n_leaky_steps``, ``leaks`` (list of (step, numbers)).

    >>> from culturelab.captex.data import load
    >>> t = step_number_leaks(load(data_source="sample").procedures)
    >>> t.loc[t["n_leaky_steps"] > 0, "procedure_id"].tolist()
    ['JP-01', 'JP-04']
    """
    english = procedures[procedures["lang_group"] == "English"].set_index("procedure_id")["steps"]
    rows = []
    for p in procedures[procedures["lang_group"] == "native"].itertuples(index=False):
        en_steps = english.get(p.procedure_id, [""] * p.n_steps)
        leaks = []
        for i, step in enumerate(p.steps):
            refs = {k for k in _numbers(step) if 1 <= k <= p.n_steps and k != i + 1}
            refs -= _numbers(en_steps[i] if i < len(en_steps) else "")
            if refs:
                leaks.append((i + 1, sorted(refs)))
        rows.append({"procedure_id": p.procedure_id, "country": p.country, "language": p.language,
                     "n_steps": p.n_steps, "n_leaky_steps": len(leaks), "leaks": leaks})
    return pd.DataFrame(rows)


def minor_swap_share(scored: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Among valid but wrong orders: the share exactly one adjacent transposition from gold
    (Kendall distance 1, the paper's "minor swaps"), and the mean Kendall distance.

    >>> t = pd.DataFrame({"valid": [True, True, True], "exact": [False, False, True], "kendall_dist": [1, 3, 0]})
    >>> minor_swap_share(t).to_dict("records")
    [{'wrong_valid': 2, 'one_swap_share': 0.5, 'mean_kendall_dist': 2.0}]
    """
    wrong = scored[scored["valid"].astype(bool) & ~scored["exact"].astype(bool)]
    def agg(part: pd.DataFrame) -> pd.Series:
        return pd.Series({"wrong_valid": len(part),
                          "one_swap_share": float((part["kendall_dist"] == 1).mean()) if len(part) else np.nan,
                          "mean_kendall_dist": float(part["kendall_dist"].mean()) if len(part) else np.nan})
    if not by:
        return agg(wrong).to_frame().T.astype({"wrong_valid": int})
    if wrong.empty:
        return pd.DataFrame(columns=[*by, "wrong_valid", "one_swap_share", "mean_kendall_dist"])
    return wrong.groupby(list(by), observed=True).apply(agg, include_groups=False).reset_index().astype(
        {"wrong_valid": int})


def rescore_policies(scored: pd.DataFrame, policies: Sequence[str] = ("zero", "repair", "ties", "drop")) -> pd.DataFrame:
    """The same raw answers scored under each invalid-answer policy (no model calls): mean ρ,
    τ, LD and the share of instances that enter the mean, per policy.

    >>> t = pd.DataFrame({"perm": [[1, 0, 2]], "shown_steps": [None], "raw_output": ["A, B"]})
    >>> rescore_policies(t, ["zero", "repair"])[["policy", "rho"]].to_dict("records")
    [{'policy': 'zero', 'rho': 0.0}, {'policy': 'repair', 'rho': 0.5}]
    """
    rows = []
    base = scored[["perm", "shown_steps"]]
    for policy in policies:
        s = score_orders(base, list(scored["raw_output"]), policy=policy, steps_col="shown_steps")
        rows.append({"policy": policy, "rho": float(s["rho"].mean()), "tau": float(s["tau"].mean()),
                     "ld": float(s["ld"].mean()), "scored_share": float(s["rho"].notna().mean())})
    return pd.DataFrame(rows)


def policy_findings(free: pd.DataFrame, policies: pd.DataFrame, random: pd.DataFrame) -> str:
    """What the invalid-answer policy does to a run's free answers, as Markdown sentences rendered from
    its tables: how many are invalid and why (their ``issues``), their mean LD under ``zero`` against
    what a random order of the same lengths gets (``random``: :func:`random_baseline_table`), and the
    mean ρ of the same answers under ``zero`` and ``repair`` (``policies``: :func:`rescore_policies`).

    >>> free = pd.DataFrame({"valid": [False, False, True], "issues": ["out_of_range", "out_of_range,duplicate", ""],
    ...                      "ld": [7.0, 6.0, 2.0], "n_steps": [5, 5, 5]})
    >>> policies = pd.DataFrame({"policy": ["zero", "repair"], "rho": [0.1, 0.4]})
    >>> print(policy_findings(free, policies, pd.DataFrame({"n_steps": [5], "ld": [3.5]})))  # doctest: +NORMALIZE_WHITESPACE
    2 of this run's 3 free answers are invalid (out_of_range 2, duplicate 1); under `zero` they score ρ = τ = 0
    and their mean LD is 6.50, above the 3.50 of a random order of the same lengths. Re-scored with `repair`
    (no new model call), the free answers' mean ρ is 0.40, against 0.10 under `zero`.
    """
    invalid = free[~free["valid"].astype(bool)]
    if invalid.empty:
        return f"All {len(free)} free answers of this run are valid orders: the invalid-answer policy changes nothing."
    issues = invalid["issues"].str.split(",").explode().value_counts()
    expected = float(random.set_index("n_steps").loc[invalid["n_steps"], "ld"].mean())
    ld = float(invalid["ld"].mean())
    rho = policies.set_index("policy")["rho"]
    side = "above" if ld > expected else "below" if ld < expected else "at"
    return (f"{len(invalid)} of this run's {len(free)} free answers are invalid ("
            + ", ".join(f"{name} {count}" for name, count in issues.items()) + f"); under `zero` they score "
            f"ρ = τ = 0 and their mean LD is {ld:.2f}, {side} the {expected:.2f} of a random order of the same "
            f"lengths. Re-scored with `repair` (no new model call), the free answers' mean ρ is {rho['repair']:.2f}, "
            f"against {rho['zero']:.2f} under `zero`.")


#: the fewest pairs with which a two-sided Wilcoxon signed-rank test can reach p < 0.05 (its exact p ≥ 2/2ⁿ)
MIN_PAIRS = 6


def paired_language_wilcoxon(scored: pd.DataFrame, metrics: Sequence[str] = METRICS, *,
                             valid: str = "valid") -> pd.DataFrame:
    """Wilcoxon signed-rank test, English vs native on the same procedures, per metric, on the
    procedures whose answers are ``valid`` in both languages: an invalid answer's score is what the
    invalid-answer policy makes of its shape (an LD counting extra letters), not a reading of what
    the model knows. ``n_procedures`` counts the procedures asked in both languages, ``n_pairs`` those
    valid in both; with fewer than :data:`MIN_PAIRS` pairs the test is not run (NaN).

    >>> t = pd.DataFrame({"procedure_id": ["a", "a", "b", "b"], "lang_group": ["English", "native"] * 2,
    ...                   "rho": [1.0, 0.0, 1.0, 0.5], "tau": [1.0, 0.0, 1.0, 0.5], "ld": [0, 2, 0, 1],
    ...                   "valid": [True, True, True, False]})
    >>> paired_language_wilcoxon(t)[["metric", "n_procedures", "n_pairs", "mean_English", "mean_native", "p_value"]].to_dict("records")[0]
    {'metric': 'rho', 'n_procedures': 2, 'n_pairs': 1, 'mean_English': 1.0, 'mean_native': 0.0, 'p_value': nan}
    """
    from culturelab.stats import wilcoxon

    ok = scored.assign(_ok=scored[valid].astype(bool)).pivot_table(index="procedure_id", columns="lang_group",
                                                                    values="_ok", aggfunc="all")
    rows = []
    for metric in metrics:
        wide = scored.pivot_table(index="procedure_id", columns="lang_group", values=metric, aggfunc="first")
        if not {"English", "native"} <= set(wide.columns):
            continue
        both = wide[["English", "native"]].dropna()
        pairs = both[ok.reindex(both.index)[["English", "native"]].fillna(False).astype(bool).all(axis=1)]
        test = wilcoxon(pairs["English"], pairs["native"]) if len(pairs) >= MIN_PAIRS else \
            {"p_value": np.nan, "median_diff": np.nan}
        rows.append({"metric": metric, "n_procedures": len(both), "n_pairs": len(pairs),
                     "mean_English": float(pairs["English"].mean()) if len(pairs) else np.nan,
                     "mean_native": float(pairs["native"].mean()) if len(pairs) else np.nan,
                     "median_diff": test["median_diff"], "p_value": test["p_value"]})
    return pd.DataFrame(rows, columns=["metric", "n_procedures", "n_pairs", "mean_English", "mean_native",
                                       "median_diff", "p_value"])


def language_findings(tests: pd.DataFrame, names: dict[str, str] | None = None, *, alpha: float = 0.05) -> str:
    """What :func:`paired_language_wilcoxon` shows, as Markdown sentences (one per metric, ``names``
    naming them): the means and the test on the pairs valid in both languages — its direction that of the
    median paired difference, which the test is about (the means can point the other way) — or how few
    such pairs there are.

    >>> t = pd.DataFrame({"metric": ["ld", "rho"], "n_procedures": [70, 70], "n_pairs": [2, 40],
    ...                   "mean_English": [3.0, 0.31], "mean_native": [2.0, 0.12], "p_value": [np.nan, 0.004]})
    >>> print(language_findings(t, {"ld": "LD"}))  # doctest: +NORMALIZE_WHITESPACE
    LD: 2 of the 70 procedures have valid answers in both languages, too few for a paired test (a two-sided
    Wilcoxon test needs 6 to reach p < 0.05). rho on the 40 procedures answered validly in both languages:
    English 0.31, native 0.12 (Wilcoxon p = 0.004): higher in English.
    >>> print(language_findings(t.assign(n_pairs=40, p_value=0.01, median_diff=[-1.0, 0.1]), {"ld": "LD"}))
    ... # doctest: +NORMALIZE_WHITESPACE
    LD on the 40 procedures answered validly in both languages: English 3.00, native 2.00 (Wilcoxon p = 0.01):
    higher in the native language (more edits: worse). rho on the 40 procedures answered validly in both
    languages: English 0.31, native 0.12 (Wilcoxon p = 0.01): higher in English.
    """
    out, few = [], {}
    for row in tests.itertuples(index=False):
        name = (names or {}).get(row.metric, row.metric)
        if row.n_pairs < MIN_PAIRS:  # metrics with as few pairs share one sentence
            few.setdefault((row.n_pairs, row.n_procedures), []).append(name)
            continue
        # the direction the test speaks of: the median paired difference (English − native), not the means
        diff = getattr(row, "median_diff", np.nan)
        diff = row.mean_English - row.mean_native if pd.isna(diff) else diff
        worse = " (more edits: worse)" if row.metric == "ld" else ""
        verdict = ("no difference at the {alpha:g} level" if not row.p_value < alpha else
                   f"higher in English{worse}" if diff > 0 else f"higher in the native language{worse}" if diff < 0
                   else "a difference whose median is 0")
        out.append(f"{name} on the {row.n_pairs} procedures answered validly in both languages: English "
                   f"{row.mean_English:.2f}, native {row.mean_native:.2f} (Wilcoxon p = {row.p_value:.3g}): "
                   f"{verdict.format(alpha=alpha)}.")
    for (pairs, procedures), listed in few.items():
        named = ", ".join(listed[:-1]) + " and " + listed[-1] if len(listed) > 1 else listed[0]
        out.insert(0, f"{named}: {pairs} of the {procedures} procedures have valid answers in both languages, too "
                      f"few for a paired test (a two-sided Wilcoxon test needs {MIN_PAIRS} to reach p < {alpha:g}).")
    return " ".join(out)
