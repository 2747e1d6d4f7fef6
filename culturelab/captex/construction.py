"""The paper's MCQ construction rules (§3.2, App. A.3): build PB-MCQs and check them.

* **Subsequent** questions (SA "what is the next step after X", SN "which one is not the
  step before X"): correct = the step right after X; 3 distractors drawn from steps
  *before* X. The reference X is step i with 4 ≤ i ≤ n−1 (1-based).
* **Antecedent** questions (AA "which step must be completed before X", AN "which step
  does not come after X"): correct = the step right before X; 3 distractors drawn from
  steps *after* X; 2 ≤ i ≤ n−3.

Our reading (spec §1.5, to check against the released data): SN/AN share options with
SA/AA (the negation only changes the wording), X is not among the options, and the English
and native versions show the options in the same order. :func:`check_mcq_rules` measures
how far a set of MCQs follows each rule. Conversations come without CB-MCQ options:
:func:`with_cb_options` builds them by our rule (:func:`cb_mcq_options`).

>>> reference_bounds(10, "AA")
(2, 7)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import yaml

from culturelab.captex.data import FILES, QUESTION_TYPES, SUBDIR, CaptexData
from culturelab.data.sources import sample_dir
from culturelab.tasks.mcq import shuffle_options
from culturelab.tasks.reorder import stable_int

SUBSEQUENT = ("SA", "SN")
ANTECEDENT = ("AA", "AN")


def reference_bounds(n: int, qtype: str) -> tuple[int, int]:
    """Admissible 1-based reference positions (inclusive) for a question type on ``n`` steps."""
    if qtype in SUBSEQUENT:
        return 4, n - 1
    if qtype in ANTECEDENT:
        return 2, n - 3
    raise ValueError(f"question type must be one of {QUESTION_TYPES}, not {qtype!r}")


def question_templates() -> dict[str, dict[str, str]]:
    """The SA/SN/AA/AN templates per language used to build our sample (``{name}``, ``{ref}``).

    >>> sorted(question_templates())
    ['en', 'fa', 'ha', 'hi', 'id', 'ja', 'ur', 'zh']
    """
    with (sample_dir(SUBDIR) / "question_templates.yaml").open("r", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _plan(n: int, rng: np.random.Generator) -> dict[str, Any]:
    """Reference, correct step, distractors and option order for one direction (0-based)."""
    plan = {}
    for direction, qtype in (("subsequent", "SA"), ("antecedent", "AA")):
        lo, hi = reference_bounds(n, qtype)
        ref = int(rng.integers(lo, hi + 1)) - 1
        if direction == "subsequent":
            correct, pool = ref + 1, list(range(ref))
        else:
            correct, pool = ref - 1, list(range(ref + 1, n))
        distractors = [int(i) for i in rng.choice(pool, size=3, replace=False)]
        option_steps, answer, _ = shuffle_options([correct, *distractors], 0, rng)
        plan[direction] = {"ref": ref, "option_steps": option_steps, "answer": answer}
    return plan


def build_mcqs(procedures: pd.DataFrame, seed: int = 0,
               templates: dict[str, dict[str, str]] | None = None) -> pd.DataFrame:
    """Eight PB-MCQs per procedure (4 types × English/native) by the paper's rules.

    The plan (reference, distractors, option order) depends only on ``seed`` and the
    procedure id, so both languages get the same question with the same option order.
    Returns the tidy MCQ table plus ``ref_step`` and ``option_steps`` (1-based).

    >>> from culturelab.captex.data import load
    >>> mcqs = build_mcqs(load(data_source="sample").procedures.head(2))
    >>> len(mcqs), sorted(mcqs["qtype"].unique())
    (8, ['AA', 'AN', 'SA', 'SN'])
    """
    templates = templates or question_templates()
    rows = []
    for pid, versions in procedures.groupby("procedure_id", sort=False):
        n = int(versions["n_steps"].iloc[0])
        plan = _plan(n, np.random.default_rng([seed, stable_int(str(pid))]))
        for version in sorted(versions.itertuples(index=False), key=lambda v: v.lang_group):
            for qtype in QUESTION_TYPES:
                p = plan["subsequent" if qtype in SUBSEQUENT else "antecedent"]
                rows.append({
                    "procedure_id": pid, "country": version.country, "category": version.category,
                    "language": version.language, "lang_group": version.lang_group, "qtype": qtype,
                    "question": templates[version.language][qtype].format(name=version.title,
                                                                          ref=version.steps[p["ref"]]),
                    "options": [version.steps[i] for i in p["option_steps"]], "answer": p["answer"],
                    "ref_step": p["ref"] + 1, "option_steps": [i + 1 for i in p["option_steps"]],
                })
    return pd.DataFrame(rows)


def _norm(text: str) -> str:
    return " ".join(str(text).split()).strip(" '\"‘’“”「」").lower()


def _locate_steps(mcq: Any, steps: list[str]) -> tuple[int | None, list[int | None]]:
    """1-based reference step quoted in the question, and the step each option reproduces."""
    from rapidfuzz import fuzz, process

    normed = [_norm(s) for s in steps]
    question = _norm(mcq.question)
    inside = [(len(s), i) for i, s in enumerate(normed) if s and s in question]
    if inside:
        ref: int | None = max(inside)[1] + 1
    else:
        best = process.extractOne(question, normed, scorer=fuzz.partial_ratio)
        ref = best[2] + 1 if best and best[1] >= 90 else None
    located: list[int | None] = []
    for option in mcq.options:
        o = _norm(option)
        if o in normed:
            located.append(normed.index(o) + 1)
        else:
            best = process.extractOne(o, normed, scorer=fuzz.ratio)
            located.append(best[2] + 1 if best and best[1] >= 90 else None)
    return ref, located


def check_mcq_rules(mcqs: pd.DataFrame, procedures: pd.DataFrame) -> pd.DataFrame:
    """One row per MCQ with a boolean per construction rule (NaN where it cannot be judged):

    ``linked`` (procedure found), ``options_are_steps`` (4 distinct steps), ``ref_found``,
    ``ref_not_option``, ``ref_in_bounds``, ``correct_rule`` (answer = next/previous step),
    ``distractor_rule`` (all distractors before/after the reference), ``all_rules``.

    >>> from culturelab.captex.data import load
    >>> d = load(data_source="sample")
    >>> bool(check_mcq_rules(d.mcqs, d.procedures)["all_rules"].all())
    True
    """
    versions = procedures.set_index(["procedure_id", "language"])
    rows = []
    for mcq in mcqs.itertuples(index=False):
        row: dict[str, Any] = {"procedure_id": mcq.procedure_id, "language": mcq.language,
                               "lang_group": mcq.lang_group, "qtype": mcq.qtype, "country": mcq.country}
        key = (mcq.procedure_id, mcq.language)
        if key not in versions.index:
            rows.append({**row, "linked": False})
            continue
        steps = list(versions.loc[key, "steps"])
        n = len(steps)
        ref, located = _locate_steps(mcq, steps)
        answer_step = located[mcq.answer]
        distractors = [s for i, s in enumerate(located) if i != mcq.answer]
        subsequent = mcq.qtype in SUBSEQUENT
        lo, hi = reference_bounds(n, mcq.qtype)
        ok_steps = None not in located and len(set(located)) == 4
        row.update(linked=True, n_steps=n, ref_step=ref, answer_step=answer_step, option_steps=located,
                   options_are_steps=ok_steps, ref_found=ref is not None)
        if ref is not None and ok_steps:
            row.update(ref_not_option=ref not in located, ref_in_bounds=lo <= ref <= hi,
                       correct_rule=answer_step == (ref + 1 if subsequent else ref - 1),
                       distractor_rule=all((s < ref) if subsequent else (s > ref) for s in distractors))
        rows.append(row)
    table = pd.DataFrame(rows)
    rules = ["linked", "options_are_steps", "ref_found", "ref_not_option", "ref_in_bounds", "correct_rule",
             "distractor_rule"]
    for r in rules:
        if r not in table.columns:
            table[r] = np.nan
    table["all_rules"] = table[rules].fillna(False).astype(bool).all(axis=1)
    return table


def rule_summary(checks: pd.DataFrame, by: tuple[str, ...] = ("qtype",)) -> pd.DataFrame:
    """Share of MCQs that follow each rule, per group (NaN-aware), plus n.

    >>> t = pd.DataFrame({"qtype": ["SA", "SA"], "linked": [True, True], "all_rules": [True, False]})
    >>> rule_summary(t)[["qtype", "all_rules", "n"]].to_dict("records")
    [{'qtype': 'SA', 'all_rules': 0.5, 'n': 2}]
    """
    rules = [c for c in ("linked", "options_are_steps", "ref_found", "ref_not_option", "ref_in_bounds",
                         "correct_rule", "distractor_rule", "all_rules") if c in checks.columns]
    values = checks[rules].apply(lambda c: pd.to_numeric(c.map(lambda v: np.nan if v is None else v),
                                                         errors="coerce"))
    out = values.groupby([checks[b] for b in by]).mean().reset_index()
    out["n"] = checks.groupby(list(by)).size().to_numpy()
    return out


def pairing_checks(checks: pd.DataFrame, mcqs: pd.DataFrame) -> pd.DataFrame:
    """Across-version properties per procedure and question type: are the English and native
    options in the same step order (``same_order_across_languages``), and do SA/SN (AA/AN)
    share their reference and options (``negation_shares_options``)?

    >>> from culturelab.captex.data import load
    >>> d = load(data_source="sample")
    >>> pairing_checks(check_mcq_rules(d.mcqs, d.procedures), d.mcqs)[["same_order_across_languages",
    ...     "negation_shares_options"]].mean().round(2).tolist()
    [1.0, 1.0]
    """
    t = checks.assign(answer=mcqs["answer"].to_numpy(), key=checks["option_steps"].map(
        lambda v: tuple(v) if isinstance(v, list) else None))
    rows = []
    for (pid, qtype), part in t.groupby(["procedure_id", "qtype"]):
        keys = part["key"].tolist()
        rows.append({"procedure_id": pid, "qtype": qtype,
                     "same_order_across_languages": len(keys) == 2 and None not in keys and keys[0] == keys[1]})
    out = pd.DataFrame(rows)
    shares = {}
    for (pid, _lang), part in t.groupby(["procedure_id", "language"]):
        by_type = dict(zip(part["qtype"], zip(part["key"], part["ref_step"])))
        for a, b in (("SA", "SN"), ("AA", "AN")):
            if a in by_type and b in by_type:
                shares.setdefault((pid, a), []).append(by_type[a] == by_type[b])
                shares.setdefault((pid, b), []).append(by_type[a] == by_type[b])
    out["negation_shares_options"] = [all(shares.get((p, q), [False])) for p, q in zip(out["procedure_id"], out["qtype"])]
    return out


def cb_mcq_options(conversations: pd.DataFrame, procedures: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """CB-MCQ options where ``Conversations.csv`` has none: the correct option is the English
    text of the conversation's next step N; the 3 distractors are other steps of the same
    procedure drawn at random (seeded per procedure); the order is shuffled.
    (The paper says "the same answer choices as PB-MCQ", which cannot hold literally: N is
    usually 2–3, so fewer than 3 earlier steps exist — spec §2, Task 3.)

    >>> from culturelab.captex.data import load
    >>> d = load(data_source="sample")
    >>> c = cb_mcq_options(d.conversations, d.procedures).iloc[0]
    >>> c["options"][c["answer"]] == d.procedures.query("lang_group == 'English'").set_index("procedure_id").loc[
    ...     c["procedure_id"], "steps"][c["next_step"] - 1]
    True
    """
    english = procedures[procedures["lang_group"] == "English"].set_index("procedure_id")
    out = conversations.copy()
    options, answers, option_steps, sources = [], [], [], []
    for conv in out.itertuples(index=False):
        if conv.options_source == "file" or conv.procedure_id not in english.index:
            options.append(conv.options)
            answers.append(conv.answer)
            option_steps.append(None)
            sources.append(conv.options_source)
            continue
        steps = list(english.loc[conv.procedure_id, "steps"])
        rng = np.random.default_rng([seed, stable_int("cb:" + str(conv.procedure_id))])
        correct = int(conv.next_step) - 1
        pool = [i for i in range(len(steps)) if i != correct]
        chosen = [correct, *(int(i) for i in rng.choice(pool, size=3, replace=False))]
        picked, answer, _ = shuffle_options(chosen, 0, rng)
        options.append([steps[i] for i in picked])
        answers.append(answer)
        option_steps.append([i + 1 for i in picked])
        sources.append("generated")
    out["options"], out["answer"], out["option_steps"], out["options_source"] = options, answers, option_steps, sources
    return out


def with_cb_options(data: CaptexData, seed: int = 0) -> CaptexData:
    """``data`` with CB-MCQ options for the conversations whose file has none
    (:func:`cb_mcq_options`, seeded), and a note saying so; unchanged when the file has them.

    >>> from culturelab.captex.data import load
    >>> d = with_cb_options(load(data_source="sample"), seed=0)
    >>> set(d.conversations["options_source"]), d.notes[0][:43]
    ({'generated'}, 'CB-MCQ options are not in Conversations.csv')
    """
    if not (data.conversations["options_source"] == "none").any():
        return data
    note = (f"CB-MCQ options are not in {FILES['conversations']}: built by us with seed {seed} "
            "(correct = the conversation's next step, distractors = 3 other steps of the procedure)")
    return replace(data, conversations=cb_mcq_options(data.conversations, data.procedures, seed=seed),
                   notes=[note, *data.notes])
