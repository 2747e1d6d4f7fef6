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
:func:`with_cb_options` builds them by our rule (:func:`cb_mcq_options`: distractors only from
steps the conversation has not narrated); :func:`elimination_chance` measures what ruling out the
narrated options gains on any set of options, the release's included.

>>> reference_bounds(10, "AA")
(2, 7)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
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


#: a step (or option) counts as narrated when at least this share of its content words is in
#: utterance 2 (on our sample: 193 of 194 steps before the conversation's next step, 10 of 383
#: after it, 3 of 105 next steps — :func:`narration_by_position` prints it for any data)
NARRATED_SHARE = 0.5
#: where CB-MCQ distractors come from: steps the conversation has not narrated (default), or
#: any other step of the procedure (the rule before, kept to measure what it let through)
DISTRACTOR_RULES = ("unnarrated", "any")


@lru_cache(maxsize=1)
def _stem() -> Callable[[str], str]:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer().stem


@lru_cache(maxsize=4096)
def content_words(text: str) -> frozenset[str]:
    """Porter stems of the English content words of ``text``: letter runs in lower case, without
    scikit-learn's English stop words and one-letter words.

    >>> sorted(content_words("They rolled the dough into a long rope."))
    ['dough', 'long', 'roll', 'rope']
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    stem = _stem()
    return frozenset(stem(w) for w in re.findall(r"[^\W\d_]+", text.lower())
                     if len(w) > 1 and w not in ENGLISH_STOP_WORDS)


def narrated_share(step: str, utterance: str) -> float:
    """Share of ``step``'s content words that ``utterance`` also has (0 without content words).

    >>> narrated_share("Knead the dough and let it rest.", "First they knead a dough and let it rest.")
    1.0
    >>> narrated_share("Roll the dough into a rope.", "First they knead a dough.")
    0.3333333333333333
    """
    words = content_words(step)
    return len(words & content_words(utterance)) / len(words) if words else 0.0


def _narration_utterance(conv: Any) -> str:
    """Utterance 2, the turn the paper's generation prompt has narrate "some of the first steps"
    (utterance 3 asks about the next step, utterance 1 is the templated greeting)."""
    return str(conv.utterances[1])


def narration_by_position(conversations: pd.DataFrame, procedures: pd.DataFrame,
                          threshold: float = NARRATED_SHARE) -> pd.DataFrame:
    """How much of each English step utterance 2 narrates, by the step's position relative to
    the conversation's next step N (``before``, ``next``, ``after``): steps, mean share of their
    content words in utterance 2, and the share of steps at or above ``threshold`` — the data
    behind :data:`NARRATED_SHARE` (steps before N should be narrated, steps after N not).

    >>> from culturelab.captex.data import load
    >>> d = load(data_source="sample")
    >>> narration_by_position(d.conversations, d.procedures)[["position", "steps", "narrated"]].round(2).values.tolist()
    [['before', 194, 0.99], ['next', 105, 0.03], ['after', 383, 0.03]]
    """
    english = procedures[procedures["lang_group"] == "English"].set_index("procedure_id")["steps"]
    rows = []
    for conv in conversations.itertuples(index=False):
        if conv.procedure_id not in english.index:
            continue
        for i, step in enumerate(english[conv.procedure_id], start=1):
            position = "before" if i < conv.next_step else "next" if i == conv.next_step else "after"
            rows.append({"position": position, "share": narrated_share(step, _narration_utterance(conv))})
    table = pd.DataFrame(rows, columns=["position", "share"])
    table["narrated"] = table["share"] >= threshold
    out = table.groupby("position").agg(steps=("share", "size"), mean_share=("share", "mean"),
                                        narrated=("narrated", "mean"))
    return out.reindex([p for p in ("before", "next", "after") if p in out.index]).reset_index()


def cb_mcq_options(conversations: pd.DataFrame, procedures: pd.DataFrame, seed: int = 0, *,
                   distractors: str = "unnarrated", threshold: float = NARRATED_SHARE) -> pd.DataFrame:
    """CB-MCQ options where ``Conversations.csv`` has none: the correct option is the English
    text of the conversation's next step N; the 3 distractors are drawn at random (seeded per
    procedure) from the steps the conversation has **not narrated**, and the order is shuffled.
    A step is narrated when it comes before N (the conversation has covered steps 1…N−1: its last
    turn names N as the next one) or when utterance 2 holds at least ``threshold`` of its content
    words (:func:`narrated_share`). Where fewer than 3 steps are left (e.g. 5 steps and N = 3),
    the least narrated of the others fill the options (:func:`cb_option_audit` counts them).
    ``distractors="any"`` draws from every other step (the rule before: a model that rules out
    what was already said beats chance). (The paper says "the same answer choices as PB-MCQ",
    which cannot hold literally: N is usually 2–3, so fewer than 3 earlier steps exist — spec
    §2, Task 3.)

    >>> from culturelab.captex.data import load
    >>> d = load(data_source="sample")
    >>> c = cb_mcq_options(d.conversations, d.procedures).iloc[0]
    >>> c["options"][c["answer"]] == d.procedures.query("lang_group == 'English'").set_index("procedure_id").loc[
    ...     c["procedure_id"], "steps"][c["next_step"] - 1]
    True
    >>> sorted(c["option_steps"]), int(c["next_step"])  # no step before N among the options
    ([3, 4, 5, 7], 3)
    """
    if distractors not in DISTRACTOR_RULES:
        raise ValueError(f"distractors must be one of {DISTRACTOR_RULES}, not {distractors!r}")
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
        if distractors == "unnarrated":
            share = {i: narrated_share(steps[i], _narration_utterance(conv)) for i in pool}
            told = [i for i in pool if i < correct or share[i] >= threshold]
            fresh = [i for i in pool if i not in told]
            fill = sorted(told, key=lambda i: (share[i], i))[:max(0, 3 - len(fresh))]
            pool = fresh if len(fresh) >= 3 else [*fresh, *fill]
        chosen = [correct, *(int(i) for i in rng.choice(pool, size=3, replace=False))]
        picked, answer, _ = shuffle_options(chosen, 0, rng)
        options.append([steps[i] for i in picked])
        answers.append(answer)
        option_steps.append([i + 1 for i in picked])
        sources.append("generated")
    out["options"], out["answer"], out["option_steps"], out["options_source"] = options, answers, option_steps, sources
    return out


def cb_option_audit(conversations: pd.DataFrame, threshold: float = NARRATED_SHARE) -> pd.DataFrame:
    """Per conversation with CB-MCQ options (built or from the file): ``narrated_distractors``
    (distractors with at least ``threshold`` of their content words in utterance 2),
    ``earlier_distractors`` (distractors before the next step; NaN where the options' steps are
    unknown, i.e. options from the file), ``correct_narrated``, and ``elimination_accuracy``: the
    expected accuracy of a model that rules out the narrated options and guesses among the rest
    (among all four when every option is narrated).

    >>> conv = pd.DataFrame({"procedure_id": ["X"], "options_source": ["file"], "next_step": [3], "answer": [0],
    ...                      "utterances": [["Hi?", "They wash the rice and soak the rice.", "Then?", "..."]],
    ...                      "options": [["Steam it in a basket.", "Wash the rice.", "Soak the rice.", "Serve it hot."]]})
    >>> cb_option_audit(conv)[["narrated_distractors", "correct_narrated", "elimination_accuracy"]].values.tolist()
    [[2, False, 0.5]]
    """
    rows = []
    for conv in conversations[conversations["answer"] >= 0].itertuples(index=False):
        told = [narrated_share(o, _narration_utterance(conv)) >= threshold for o in conv.options]
        left = [i for i, t in enumerate(told) if not t] or list(range(len(told)))
        steps = getattr(conv, "option_steps", None)
        others = [i for i in range(len(told)) if i != conv.answer]
        rows.append({
            "procedure_id": conv.procedure_id, "options_source": conv.options_source,
            "distractors": len(others), "narrated_distractors": sum(told[i] for i in others),
            "earlier_distractors": (sum(steps[i] < conv.next_step for i in others)
                                    if isinstance(steps, list) else np.nan),
            "correct_narrated": told[conv.answer],
            "elimination_accuracy": 1 / len(left) if conv.answer in left else 0.0,
        })
    return pd.DataFrame(rows, columns=["procedure_id", "options_source", "distractors", "narrated_distractors",
                                       "earlier_distractors", "correct_narrated", "elimination_accuracy"])


def elimination_chance(conversations: pd.DataFrame, threshold: float = NARRATED_SHARE) -> float:
    """The CB-MCQ "elimination chance": the mean :func:`cb_option_audit` elimination accuracy, i.e.
    what a model scores that rules out the options utterance 2 already narrates and guesses among
    the rest — the level to beat beside 0.25 (NaN without options).

    >>> from culturelab.captex.data import load
    >>> d = load(data_source="sample")
    >>> round(elimination_chance(cb_mcq_options(d.conversations, d.procedures, distractors="any")), 3)
    0.344
    """
    audit = cb_option_audit(conversations, threshold)
    return float(audit["elimination_accuracy"].mean()) if len(audit) else float("nan")


def distractor_rules_table(conversations: pd.DataFrame, procedures: pd.DataFrame, seed: int = 0,
                           threshold: float = NARRATED_SHARE) -> pd.DataFrame:
    """The CB-MCQ options each distractor rule builds (:data:`DISTRACTOR_RULES`; conversations whose
    file has options keep them, ``options`` then says ``file``), audited (:func:`cb_option_audit`):
    conversations, distractors, narrated and earlier distractors, conversations with a narrated
    distractor, the elimination chance and the four-option chance.

    >>> from culturelab.captex.data import load
    >>> d = load(data_source="sample")
    >>> distractor_rules_table(d.conversations, d.procedures)[["options", "narrated_distractors"]].values.tolist()
    [['unnarrated', 11], ['any', 107]]
    """
    rows = []
    for rule in DISTRACTOR_RULES:
        built = cb_mcq_options(conversations, procedures, seed, distractors=rule, threshold=threshold)
        audit = cb_option_audit(built, threshold)
        generated = (audit["options_source"] == "generated").any()
        rows.append({"options": rule if generated else "file", "conversations": len(audit),
                     "distractors": int(audit["distractors"].sum()),
                     "narrated_distractors": int(audit["narrated_distractors"].sum()),
                     "earlier_distractors": audit["earlier_distractors"].sum(min_count=1),
                     "with_narrated_distractor": int((audit["narrated_distractors"] > 0).sum()),
                     "elimination_chance": audit["elimination_accuracy"].mean(), "chance": 0.25})
        if not generated:
            break
    return pd.DataFrame(rows)


def with_cb_options(data: CaptexData, seed: int = 0) -> CaptexData:
    """``data`` with CB-MCQ options for the conversations whose file has none
    (:func:`cb_mcq_options`, seeded, distractors from the steps not yet narrated), and a note
    saying so; unchanged when the file has them.

    >>> from culturelab.captex.data import load
    >>> d = with_cb_options(load(data_source="sample"), seed=0)
    >>> set(d.conversations["options_source"]), d.notes[0][:43]
    ({'generated'}, 'CB-MCQ options are not in Conversations.csv')
    """
    if not (data.conversations["options_source"] == "none").any():
        return data
    note = (f"CB-MCQ options are not in {FILES['conversations']}: built by us with seed {seed} "
            "(correct = the conversation's next step N, distractors = 3 steps the conversation has not narrated: "
            f"after N and under {NARRATED_SHARE:.0%} of their content words in utterance 2)")
    return replace(data, conversations=cb_mcq_options(data.conversations, data.procedures, seed=seed),
                   notes=[note, *data.notes])
