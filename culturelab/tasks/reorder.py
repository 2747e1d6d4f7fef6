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
from culturelab.reported import SAME

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

    >>> from culturelab.planning import CountingModel
    >>> generate_orders(CountingModel("hf:x", tokenizer=None), ["p1", "p2"], [3, 2], decoding="constrained")
    ['A, B, C', 'A, B']
    """
    if decoding == "free":
        return model.generate(list(prompts), max_new_tokens=max_new_tokens, chat=chat)
    if decoding == "constrained":
        constraints = [PermutationConstraint.letters(int(n), ANSWER_SEP) for n in n_steps]
        return model.generate(list(prompts), chat=chat, constraint=constraints)
    raise ValueError(f"decoding must be one of {DECODINGS}, not {decoding!r}")


def answer_habits(scored: pd.DataFrame, by: Sequence[str] = ("decoding",), example: str = "C, A, B") -> pd.DataFrame:
    """How much of the valid answers is habit rather than content, per group: the share that
    starts with the instruction's ``example`` letters (chance for a uniform random order of n ≥ 3
    steps: 1 / (n(n−1)(n−2)), at most 1/60), the share that repeats the letters in the order shown
    (A, B, C, …; chance 1/n!), and the share equal to the most common answer of its step count.

    >>> t = pd.DataFrame({"decoding": ["c"] * 3, "valid": [True] * 3, "perm": [[1, 0, 2, 3]] * 3,
    ...                   "pred_order": [[2, 1, 0, 3], [2, 1, 0, 3], [1, 0, 2, 3]], "n_steps": [4] * 3})
    >>> answer_habits(t).round(3).to_dict("records")
    [{'decoding': 'c', 'valid_answers': 3, 'starts_with_example': 0.667, 'as_shown': 0.333, 'modal_answer': 0.667}]
    """
    first = [part.strip() for part in example.split(",")]
    valid = scored[scored["valid"].astype(bool)]
    letters = [[LETTERS[list(perm).index(g)] for g in order] for perm, order in zip(valid["perm"], valid["pred_order"])]
    frame = valid[[*by, "n_steps"]].assign(
        answer=[", ".join(x) for x in letters],
        starts_with_example=[x[:len(first)] == first for x in letters],
        as_shown=[x == list(LETTERS[:len(x)]) for x in letters])
    modal = frame.groupby([*by, "n_steps"])["answer"].transform(lambda a: a.value_counts().iloc[0] / len(a))
    return (frame.assign(modal_answer=modal).groupby(list(by))
            .agg(valid_answers=("answer", "size"), starts_with_example=("starts_with_example", "mean"),
                 as_shown=("as_shown", "mean"), modal_answer=("modal_answer", "mean")).reset_index())


def supported_decodings(run: Any, decodings: Sequence[str], section: str = "Step reordering") -> list[str]:
    """The ``decodings`` the run's model can answer (``run.supports``: decided without loading it);
    each one it cannot is skipped with one line in the notebook and in ``run_info.json``.

    >>> class R:  # a run whose model writes text but cannot constrain its decoding
    ...     def supports(self, kind, section): return kind == "generate"
    >>> supported_decodings(R(), ["free", "constrained"])
    ['free']
    """
    return [d for d in decodings if run.supports(DECODING_KINDS[d], f"{section}, {DECODING_LABELS[d]}")]


def protocol_label(protocol: str, decoding: str) -> str:
    """A comparison's ``protocol`` label (:func:`culturelab.reported.compare`) with the decoding:
    constrained decoding is a deviation from the papers' free generation.

    >>> protocol_label("same", "free"), protocol_label("same", "constrained")
    ('same', 'constrained to valid orders (protocol deviation)')
    >>> protocol_label("another model", "constrained")
    'another model; constrained to valid orders (protocol deviation)'
    """
    if decoding == "free":
        return protocol
    return DECODING_LABELS[decoding] if protocol == SAME else f"{protocol}; {DECODING_LABELS[decoding]}"


def score_order(text: str, perm: Sequence[int], policy: str = "zero", steps: Sequence[str] | None = None) -> dict:
    """Parse one answer and score it against the gold order.

    ``steps`` are the step texts as shown (in letter order); when given, an answer that writes
    the steps out instead of their letters is matched back to the letters.

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
    parsed = parse_order(text, n, steps)
    gold_order = [perm[j] for j in parsed.order]  # predicted sequence of gold step indices
    row = {"valid": parsed.valid, "issues": ",".join(parsed.issues), "n_parsed": len(parsed.order),
           "parse_method": parsed.method, "pred_order": gold_order}
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
                 steps_col: str | None = None) -> pd.DataFrame:
    """Score a column of answers; adds ``raw_output``, ``valid``, ``issues``, ``rho``, ``tau``, ``ld``,
    ``exact``, ``pred_order`` and ``parse_method``. ``steps_col`` names a column with the shown
    step texts (letter order) for matching answers that write the steps out.

    >>> f = pd.DataFrame({"perm": [[1, 0, 2], [0, 1]]})
    >>> score_orders(f, ["B, A, C", "A"])[["valid", "rho", "ld"]].to_dict("records")
    [{'valid': True, 'rho': 1.0, 'ld': 0}, {'valid': False, 'rho': 0.0, 'ld': 1}]
    """
    shown = frame[steps_col] if steps_col else [None] * len(frame)
    scored = pd.DataFrame([score_order(t, p, policy, st) for t, p, st in zip(texts, frame[perm_col], shown)],
                          index=frame.index)
    out = frame.copy()
    out["raw_output"] = list(texts)
    return pd.concat([out, scored], axis=1)
