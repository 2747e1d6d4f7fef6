"""Step reordering: seeded shuffles labelled A–J, parsing and scoring (ρ, τ, LD).

A shuffle is a permutation ``perm`` where ``perm[j]`` is the gold index of the step shown
under letter ``j``. It depends only on the seed and an instance key, so the English and the
native version of one procedure get the same permutation.

Invalid answers (missing, repeated or extra letters) are scored by a policy:

* ``zero`` (default): ρ = τ = 0, LD on the letters as written (an empty answer has LD = n;
  repeated letters and letters beyond the n steps count as edits);
* ``repair``: missing letters are appended in the order shown, then scored normally;
* ``drop``: the instance gets NaN metrics and is left out of means;
* ``ties``: the missing steps tie for last place; ρ (average ranks) and Kendall τ-b are
  computed with :mod:`scipy.stats`, LD as for ``zero``.

Every scored row also keeps ``pred_order`` (the predicted sequence of gold step indices,
first occurrences only) and ``parse_method`` (see :func:`culturelab.parsing.parse_order`).

Answers are decoded freely (the papers' protocol) or constrained to permutations of the step
letters (:func:`generate_orders`, a protocol deviation that measures order knowledge apart from
following the answer format).

>>> perm = shuffle_permutation(5, seed=0, key="proc-1")
>>> sorted(perm) == list(range(5)) and perm == shuffle_permutation(5, seed=0, key="proc-1")
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.metrics.ranking import kendall_tau, levenshtein, rank_correlations_with_ties, spearman_rho
from culturelab.models.base import LanguageModel, PermutationConstraint
from culturelab.parsing import LETTERS, parse_order
from culturelab.protocol import Setting

POLICIES = ("zero", "repair", "drop", "ties")
#: how answers are decoded: ``free`` (the papers' protocol) or ``constrained`` (:func:`generate_orders`)
DECODINGS = ("free", "constrained")
#: the request kind each decoding needs of a model (:func:`culturelab.models.capabilities`)
DECODING_KINDS = {"free": "generate", "constrained": "generate_constrained"}
#: each decoding as tables and figures name it: constrained decoding is a deviation from the papers' protocol
DECODING_LABELS = {"free": "free generation (CAPTEx's protocol)",
                   "constrained": "constrained to valid orders (protocol deviation)"}
#: what joins the letters of an answer (the prompts' format, "C, A, B")
ANSWER_SEP = ", "


def stable_int(key: str) -> int:
    """A process-independent integer hash of a string (Python's ``hash`` is salted).

    >>> stable_int("proc-1")
    6317917647723386582
    """
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "little")


def shuffle_permutation(n: int, seed: int, key: str) -> list[int]:
    """A deterministic non-identity permutation of ``n`` steps for ``(seed, key)``.

    >>> shuffle_permutation(2, seed=0, key="any"), shuffle_permutation(1, seed=0, key="any")
    ([1, 0], [0])
    """
    rng = np.random.default_rng([seed, stable_int(key)])
    while True:
        perm = [int(i) for i in rng.permutation(n)]
        if n < 2 or perm != list(range(n)):
            return perm


def render_shuffled(steps: Sequence[str], perm: Sequence[int]) -> str:
    """The shuffled steps, one per line, labelled ``A. …``, ``B. …``.

    >>> render_shuffled(["boil", "eat"], [1, 0])
    'A. eat\\nB. boil'
    """
    return "\n".join(f"{LETTERS[j]}. {steps[g]}" for j, g in enumerate(perm))


def gold_answer(perm: Sequence[int]) -> str:
    """The letters in gold order, e.g. ``"B, A"`` for ``perm = [1, 0]``.

    >>> gold_answer([2, 0, 1])
    'B, C, A'
    """
    return ANSWER_SEP.join(LETTERS[list(perm).index(g)] for g in range(len(perm)))


def generate_orders(model: LanguageModel, prompts: Sequence[str], n_steps: Sequence[int], *, decoding: str = "free",
                    max_new_tokens: int = 32, chat: bool = True) -> list[str]:
    """The model's answers to reordering prompts, in one batched call. ``free``: generated up to
    ``max_new_tokens`` and parsed afterwards (the papers' protocol). ``constrained``: at each
    position only the letters of the ``n`` steps not yet written may come next, joined by
    :data:`ANSWER_SEP` (:class:`~culturelab.models.base.PermutationConstraint`), so every answer is
    a valid order and its score measures what the model knows about the order rather than
    whether it follows the format; a deviation from the papers' protocol.

    >>> from culturelab.models.counting import CountingModel
    >>> generate_orders(CountingModel("hf:x", tokenizer=None), ["p1", "p2"], [3, 2], decoding="constrained")
    ['A, B, C', 'A, B']
    """
    if decoding == "free":
        return model.generate(list(prompts), max_new_tokens=max_new_tokens, chat=chat)
    if decoding == "constrained":
        constraints = [PermutationConstraint.letters(int(n), ANSWER_SEP) for n in n_steps]
        return model.generate(list(prompts), chat=chat, constraint=constraints)
    raise ValueError(f"decoding must be one of {DECODINGS}, not {decoding!r}")


def _written_letters(valid: pd.DataFrame) -> list[list[str]]:
    """The letters each valid answer wrote, in its order (from ``perm`` and ``pred_order``)."""
    return [[LETTERS[list(perm).index(g)] for g in order] for perm, order in zip(valid["perm"], valid["pred_order"])]


def modal_answers(scored: pd.DataFrame, by: Sequence[str] = ("decoding",)) -> pd.DataFrame:
    """Per group of ``by`` and step count, over the valid answers: how many (``valid_answers``), the
    most common answer (``modal_answer``, the letters as written) and the share of the valid answers
    that are it (``modal_share``). A model that writes one answer whatever the steps gives a share
    near 1: the answers of a point are then copies, not independent readings of the model's knowledge.

    >>> t = pd.DataFrame({"decoding": ["c"] * 3, "valid": [True] * 3, "perm": [[1, 0, 2, 3]] * 3,
    ...                   "pred_order": [[2, 1, 0, 3], [2, 1, 0, 3], [1, 0, 2, 3]], "n_steps": [4] * 3})
    >>> modal_answers(t).round(3).to_dict("records")
    [{'decoding': 'c', 'n_steps': 4, 'valid_answers': 3, 'modal_answer': 'C, A, B, D', 'modal_share': 0.667}]
    """
    keys = [*by, "n_steps"]
    valid = scored[scored["valid"].astype(bool)]
    frame = valid[keys].assign(answer=[ANSWER_SEP.join(x) for x in _written_letters(valid)])
    rows = [{**dict(zip(keys, key if isinstance(key, tuple) else (key,))), "valid_answers": len(part),
             "modal_answer": part["answer"].value_counts().index[0],
             "modal_share": part["answer"].value_counts().iloc[0] / len(part)}
            for key, part in frame.groupby(keys, sort=True, observed=True)]
    return pd.DataFrame(rows, columns=[*keys, "valid_answers", "modal_answer", "modal_share"])


def answer_habits(scored: pd.DataFrame, by: Sequence[str] = ("decoding",), example: str = "C, A, B") -> pd.DataFrame:
    """How much of the valid answers is habit rather than content, per group: the share that
    starts with the instruction's ``example`` letters (chance for a uniform random order of n ≥ 5
    steps: 1 / (n(n−1)(n−2)), at most 1/60), the share that repeats the letters in the order shown
    (A, B, C, …; chance 1/n!), and the share equal to the most common answer of its step count
    (:func:`modal_answers`).

    >>> t = pd.DataFrame({"decoding": ["c"] * 3, "valid": [True] * 3, "perm": [[1, 0, 2, 3]] * 3,
    ...                   "pred_order": [[2, 1, 0, 3], [2, 1, 0, 3], [1, 0, 2, 3]], "n_steps": [4] * 3})
    >>> answer_habits(t).round(3).to_dict("records")
    [{'decoding': 'c', 'valid_answers': 3, 'starts_with_example': 0.667, 'as_shown': 0.333, 'modal_answer': 0.667}]
    """
    first = [part.strip() for part in example.split(",")]
    valid = scored[scored["valid"].astype(bool)]
    letters = _written_letters(valid)
    frame = valid[list(by)].assign(starts_with_example=[x[:len(first)] == first for x in letters],
                                   as_shown=[x == list(LETTERS[:len(x)]) for x in letters])
    modal = modal_answers(valid, by)
    copies = (modal["modal_share"] * modal["valid_answers"]).groupby([modal[b] for b in by], sort=True).sum()
    table = (frame.groupby(list(by), sort=True).agg(valid_answers=("as_shown", "size"),
                                                    starts_with_example=("starts_with_example", "mean"),
                                                    as_shown=("as_shown", "mean")).reset_index())
    return table.assign(modal_answer=copies.to_numpy() / table["valid_answers"].to_numpy())


def decoding_summary(scored: pd.DataFrame, by: Sequence[str] = ("decoding",), *, seed: int = 0) -> pd.DataFrame:
    """Per ``by`` group: all ``answers`` and the share of valid ones (``valid_rate``), and over the
    valid answers (``valid_answers``) the mean ρ with its 95 % CI (``rho``, ``rho_ci_low``,
    ``rho_ci_high``; NaN without a valid answer), the share that starts with the instruction's
    example and the share equal to the most common answer of its step count (:func:`answer_habits`)
    — what a notebook's prose states of each decoding (:func:`culturelab.report.cell`). With a
    ``procedure_id`` column, ``valid_procedures`` counts the procedures the valid answers come from
    (the independent unit: one procedure is asked in two languages with one shuffle).

    >>> t = pd.DataFrame({"decoding": ["free"] * 2 + ["constrained"] * 2, "valid": [False, False, True, True],
    ...                   "rho": [0.0, 0.0, 0.5, 1.0], "perm": [[1, 0, 2]] * 4, "n_steps": [3] * 4,
    ...                   "pred_order": [[], [], [2, 1, 0], [0, 1, 2]]})
    >>> decoding_summary(t)[["decoding", "answers", "valid_rate", "valid_answers", "rho", "starts_with_example", "modal_answer"]].to_dict("records")
    [{'decoding': 'free', 'answers': 2, 'valid_rate': 0.0, 'valid_answers': 0, 'rho': nan, 'starts_with_example': nan, 'modal_answer': nan}, {'decoding': 'constrained', 'answers': 2, 'valid_rate': 1.0, 'valid_answers': 2, 'rho': 0.75, 'starts_with_example': 0.5, 'modal_answer': 0.5}]
    >>> decoding_summary(t.assign(procedure_id=["a", "a", "b", "b"]))["valid_procedures"].tolist()
    [0, 1]
    >>> decoding_summary(t.iloc[:2])[["valid_answers", "rho", "starts_with_example"]].to_dict("records")  # none valid
    [{'valid_answers': 0, 'rho': nan, 'starts_with_example': nan}]
    """
    from culturelab.stats import summarise

    keys = list(by)
    table = scored.groupby(keys, sort=False)["valid"].agg(answers="size", valid_rate="mean").reset_index()
    valid = scored[scored["valid"].astype(bool)]
    # ρ is no proportion (never Wilson's); one procedure asked in two languages is resampled whole
    cluster = "procedure_id" if "procedure_id" in valid else None
    rho = summarise(valid, "rho", keys, seed=seed, binary=False, cluster=cluster).rename(
        columns={"mean": "rho", "ci_low": "rho_ci_low", "ci_high": "rho_ci_high", "n": "valid_answers",
                 "n_clusters": "valid_procedures"})
    habits = answer_habits(valid, keys)[[*keys, "starts_with_example", "modal_answer"]] if len(valid) else None
    table = table.merge(rho, on=keys, how="left") if len(valid) else table.assign(
        rho=np.nan, rho_ci_low=np.nan, rho_ci_high=np.nan, valid_answers=0, valid_procedures=0)
    table = table.merge(habits, on=keys, how="left") if habits is not None else table.assign(
        starts_with_example=np.nan, modal_answer=np.nan)
    counts = ["valid_answers", *(["valid_procedures"] if cluster else [])]
    table[counts] = table[counts].fillna(0).astype(int)
    return table[[*keys, "answers", "valid_rate", *counts, "rho", "rho_ci_low", "rho_ci_high",
                  "starts_with_example", "modal_answer"]]


def decoding_findings(summary: pd.DataFrame, *, free_follows: str = "the paper's protocol",
                      figure: str = "the figure") -> str:
    """What a run shows of each decoding, as Markdown sentences rendered from its
    :func:`decoding_summary` (no number typed by hand: :mod:`culturelab.report`): the share of valid
    free answers, and whether the constrained answers' mean ρ lies above, on or below the random
    expectation of 0 (its 95 % CI; fewer procedures — or, without them, answers — than the figures'
    small-n rule are too few to say), with the share that copies the instruction's example and the
    share equal to the most common answer of its step count (then, from enough procedures, the n of
    ``figure``'s points counts copies; from fewer, one procedure's two answers alone make that share high). ``free_follows`` names whose protocol free generation is, ``figure`` the figure
    without a free curve when no free answer is valid.

    >>> t = pd.DataFrame({"decoding": ["free", "constrained"], "answers": [4, 40], "valid_rate": [0.0, 1.0],
    ...                   "valid_answers": [0, 40], "rho": [np.nan, 0.05], "rho_ci_low": [np.nan, -0.2],
    ...                   "rho_ci_high": [np.nan, 0.3], "starts_with_example": [np.nan, 0.75],
    ...                   "modal_answer": [np.nan, 0.8]})
    >>> print(decoding_findings(t, figure="Fig. 5"))  # doctest: +NORMALIZE_WHITESPACE
    Under free generation (the paper's protocol) 0.0% of this run's 4 answers are valid orders: Fig. 5 has no free
    curve. Constrained to valid orders (a protocol deviation), the mean ρ over its 40 answers is 0.05 (95 % CI -0.20
    to 0.30): on the random expectation of 0. 75.0% of them open with the instruction's example "C, A, B" (a random
    order of five or more steps does so at most 1/60 of the time): the format example pulls the answers more than
    the steps do. 80.0% of them are the most common answer of their step count, so the n under Fig. 5's points
    counts copies of one answer, not independent readings.
    >>> t.loc[0, ["valid_rate", "valid_answers", "rho"]] = [0.5, 2, 1.0]
    >>> print(decoding_findings(t.iloc[:1]))  # doctest: +NORMALIZE_WHITESPACE
    Under free generation (the paper's protocol) 50.0% of this run's 4 answers are valid orders; 2 valid answers are
    too few to estimate their mean ρ.
    """
    from culturelab.plots.honest import MIN_N  # the figures' small-n rule

    rows = summary.set_index("decoding")
    out = []
    if "free" in rows.index:
        f = rows.loc["free"]
        valid = int(f["valid_answers"])
        rest = (f": {figure} has no free curve" if valid == 0 else
                f"; {valid} valid answers are too few to estimate their mean ρ" if valid < MIN_N else
                f"; their mean ρ is {f['rho']:.2f} (95 % CI {f['rho_ci_low']:.2f} to {f['rho_ci_high']:.2f})")
        out.append(f"Under free generation ({free_follows}) {f['valid_rate']:.1%} of this run's {int(f['answers'])} "
                   f"answers are valid orders{rest}.")
    if "constrained" in rows.index:
        c = rows.loc["constrained"]
        enough = int(c.get("valid_procedures", c["valid_answers"])) >= MIN_N  # the independent unit
        place = ("too few to place against" if not enough else
                 "above" if c["rho_ci_low"] > 0 else "below" if c["rho_ci_high"] < 0 else "on")
        pull = (": the format example pulls the answers more than the steps do"
                if c["starts_with_example"] > 0.5 and enough else "")
        # few procedures share a step count trivially (one procedure's two languages, one shuffle): no copying said
        copies = (f", so the n under {figure}'s points counts copies of one answer, not independent readings"
                  if c["modal_answer"] > 0.5 and enough else
                  f"; from fewer than {MIN_N} procedures this share says nothing of copying" if not enough else "")
        interval = (f" (95 % CI {c['rho_ci_low']:.2f} to {c['rho_ci_high']:.2f})"
                    if np.isfinite([c["rho_ci_low"], c["rho_ci_high"]]).all() else "")
        out.append(f"Constrained to valid orders (a protocol deviation), the mean ρ over its {int(c['answers'])} "
                   f"answers is {c['rho']:.2f}{interval}: {place} "
                   f"the random expectation of 0. {c['starts_with_example']:.1%} of them open with the instruction's "
                   f'example "C, A, B" (a random order of five or more steps does so at most 1/60 of the time){pull}. '
                   f"{c['modal_answer']:.1%} of them are the most common answer of their step count{copies}.")
    return " ".join(out)


def supported_decodings(run: Any, decodings: Sequence[str], section: str = "Step reordering") -> list[str]:
    """The ``decodings`` the run's model can answer (``run.supports``: decided without loading it);
    each one it cannot is skipped with one line in the notebook and in ``run_info.json``.

    >>> class R:  # a run whose model writes text but cannot constrain its decoding
    ...     def supports(self, kind, section): return kind == "generate"
    >>> supported_decodings(R(), ["free", "constrained"])
    ['free']
    """
    return [d for d in decodings if run.supports(DECODING_KINDS[d], f"{section}, {DECODING_LABELS[d]}")]


def decoding_setting(cite: str, protocol: str = "the paper") -> Setting:
    """The ``decoding`` parameter as a setting of a paper's protocol (:class:`~culturelab.protocol.Setting`):
    free generation follows ``protocol``, any constrained decoding (alone or beside the free one)
    is a protocol deviation, so its numbers never get a Δ beside the paper's.

    >>> s = decoding_setting("§3.2")
    >>> s.follows("free"), s.follows(["free"]), s.follows("constrained")
    (True, True, False)
    >>> s.deviation("decoding", ["free", "constrained"]).text
    'answers also constrained to valid orders (the paper: free generation, parsed afterwards, §3.2)'
    """
    def describe(value: Any) -> str:
        also = "also " if not isinstance(value, str) and "free" in value else ""
        return f"answers {also}constrained to valid orders ({protocol}: free generation, parsed afterwards, {cite})"

    return Setting("free", cite, accept=lambda v: set([v] if isinstance(v, str) else v) <= {"free"}, describe=describe)


def score_order(text: str, perm: Sequence[int], policy: str = "zero", steps: Sequence[str] | None = None, *,
                lenient: bool = False) -> dict:
    """Parse one answer (:func:`~culturelab.parsing.parse_order`) and score it against the gold order.

    ``steps`` are the step texts as shown (in letter order); when given, an answer that writes
    the steps out instead of their letters is matched back to the letters — a lenient reading,
    scored only with ``lenient=True`` (else the answer is invalid and scored by the ``policy``).

    >>> score_order("B, A, C", [1, 0, 2])["rho"]
    1.0
    >>> score_order("A", [1, 0, 2], policy="zero")["ld"]
    2
    >>> round(score_order("B, A", [0, 1, 2, 3], policy="ties")["tau"], 4)
    0.5477
    """
    if policy not in POLICIES:
        raise ValueError(f"invalid-answer policy must be one of {POLICIES}, not {policy!r}")
    n = len(perm)
    parsed = parse_order(text, n, steps, lenient=lenient)
    gold_order = [perm[j] for j in parsed.order]  # predicted sequence of gold step indices
    row = {"valid": parsed.valid, "issues": ",".join(parsed.issues), "n_parsed": len(parsed.order),
           "parse_method": parsed.method, "parse_verdict": parsed.verdict,
           "parse_answer": "".join(LETTERS[j] for j in parsed.answer or []), "pred_order": gold_order}
    if parsed.valid or policy == "repair":
        full = gold_order + [perm[j] for j in range(n) if j not in parsed.order]
        row.update(rho=spearman_rho(full), tau=kendall_tau(full), ld=levenshtein(full, n),
                   exact=full == list(range(n)))
    elif policy in {"zero", "ties"}:
        # the letters as written, as gold indices; letters beyond the n steps never match
        written = [perm[j] if j < n else -1 - j for j in parsed.raw]
        ranks = rank_correlations_with_ties(gold_order, n) if policy == "ties" else {"rho": 0.0, "tau": 0.0}
        row.update(**ranks, ld=levenshtein(written, n), exact=False)
    else:
        row.update(rho=np.nan, tau=np.nan, ld=np.nan, exact=np.nan)
    return row


def score_orders(frame: pd.DataFrame, texts: Sequence[str], policy: str = "zero", perm_col: str = "perm",
                 steps_col: str | None = None, *, lenient: bool = False) -> pd.DataFrame:
    """Score a column of answers; adds ``raw_output``, ``valid``, ``issues``, ``rho``, ``tau``, ``ld``,
    ``exact``, ``pred_order``, ``parse_method``, ``parse_verdict`` and ``parse_answer`` (the letters
    read). ``steps_col`` names a column with the shown step texts (letter order) for matching answers
    that write the steps out (a lenient reading, scored with ``lenient=True``).

    >>> f = pd.DataFrame({"perm": [[1, 0, 2], [0, 1]]})
    >>> score_orders(f, ["B, A, C", "A"])[["valid", "rho", "ld"]].to_dict("records")
    [{'valid': True, 'rho': 1.0, 'ld': 0}, {'valid': False, 'rho': 0.0, 'ld': 1}]
    """
    shown = frame[steps_col] if steps_col else [None] * len(frame)
    scored = pd.DataFrame([score_order(t, p, policy, st, lenient=lenient)
                           for t, p, st in zip(texts, frame[perm_col], shown)],
                          index=frame.index)
    out = frame.copy()
    out["raw_output"] = list(texts)
    return pd.concat([out, scored], axis=1)
