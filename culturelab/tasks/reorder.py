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

>>> perm = shuffle_permutation(5, seed=0, key="proc-1")
>>> sorted(perm) == list(range(5)) and perm == shuffle_permutation(5, seed=0, key="proc-1")
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.metrics.ranking import kendall_tau, levenshtein, rank_correlations_with_ties, spearman_rho
from culturelab.parsing import LETTERS, parse_order

POLICIES = ("zero", "repair", "drop", "ties")


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
    return ", ".join(LETTERS[list(perm).index(g)] for g in range(len(perm)))


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
