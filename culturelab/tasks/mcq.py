"""Multiple-choice questions, scored two ways from one tidy table.

The table has one row per question with a rendered ``prompt``, a list of ``options`` and
the 0-based ``answer``. :func:`score_loglikelihood` scores every option from one shared
encoding of the prompt (the model backend reuses the prefix); :func:`score_generation` lets
the model answer in free text and parses the letter, counting unparseable answers.

>>> format_options(["rice", "bread"])
'A. rice\\nB. bread'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.models.base import LanguageModel
from culturelab.parsing import LETTERS, Choice, parse_choice


def format_options(options: Sequence[str], style: str = "{letter}. {text}") -> str:
    """One line per option, lettered A, B, C, …

    >>> format_options(["rice", "bread"], style="({letter}) {text}")
    '(A) rice\\n(B) bread'
    """
    return "\n".join(style.format(letter=LETTERS[i], text=o) for i, o in enumerate(options))


def render(template: str, question: str, options: Sequence[str], **fields: Any) -> str:
    """Fill a prompt template's ``{question}`` and ``{options}`` (and any other fields).

    >>> render("{lang}: {question} {options}", "Staple?", ["rice", "tea"], lang="en")
    'en: Staple? A. rice\\nB. tea'
    """
    return template.format(question=question, options=format_options(options), **fields)


def shuffle_options(options: Sequence[str], answer: int, rng: np.random.Generator) -> tuple[list[str], int, list[int]]:
    """Permute the options; return them, the new answer index and the permutation used.

    >>> shuffle_options(["a", "b", "c"], 0, np.random.default_rng(3))
    (['c', 'b', 'a'], 2, [2, 1, 0])
    """
    perm = [int(i) for i in rng.permutation(len(options))]
    return [options[i] for i in perm], perm.index(answer), perm


def score_loglikelihood(model: LanguageModel, frame: pd.DataFrame, *, target: str = "letter",
                        normalise: str = "sum", prompt_col: str = "prompt", options_col: str = "options",
                        answer_col: str = "answer", labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Pick the option with the highest log-likelihood after the prompt.

    ``target="letter"`` scores `` A``, `` B``, … (the prompt ends with "Answer:");
    ``target="text"`` scores each option's own text (``normalise="mean"`` divides by its
    token count, removing the bias towards short options). Adds ``pred``, ``correct``,
    ``valid`` (always true), ``scores`` and ``method``. ``labels`` replaces the letters of
    ``target="letter"`` (e.g. Persian numerals ``["۱", "۲", "۳", "۴"]``).

    >>> from culturelab.models.base import LogLikelihood as LL  # a stand-in model that prefers " B":
    >>> class Fake: loglikelihood = lambda _, rs: [LL(-1.0 if c == " B" else -3.0, 1, False) for _, c in rs]
    >>> f = pd.DataFrame({"prompt": ["Q? Answer:"], "options": [["x", "y"]], "answer": [1]})
    >>> score_loglikelihood(Fake(), f)[["scores", "pred", "correct"]].to_dict("records")
    [{'scores': [-3.0, -1.0], 'pred': 1, 'correct': True}]
    """
    if target not in {"letter", "text"} or normalise not in {"sum", "mean"}:
        raise ValueError("target must be 'letter' or 'text' and normalise 'sum' or 'mean'")
    requests, owner = [], []
    for row, (prompt, options) in enumerate(zip(frame[prompt_col], frame[options_col])):
        for i, text in enumerate(options):
            label = (labels or LETTERS)[i]
            requests.append((prompt, " " + (label if target == "letter" else str(text).strip())))
            owner.append(row)
    results = model.loglikelihood(requests)
    scores: list[list[float]] = [[] for _ in range(len(frame))]
    for row, r in zip(owner, results):
        scores[row].append(r.mean if normalise == "mean" else r.logprob)
    out = frame.copy()
    out["scores"] = scores
    out["pred"] = [int(np.argmax(s)) for s in scores]
    out["valid"] = True
    out["correct"] = out["pred"] == out[answer_col]
    out["method"] = f"loglik-{target}-{normalise}"
    return out


def score_generation(model: LanguageModel, frame: pd.DataFrame, *,
                     parser: Callable[[str, int, Sequence[str]], Choice] | None = None, lenient: bool = False,
                     max_new_tokens: int = 8, prompt_col: str = "prompt", options_col: str = "options",
                     answer_col: str = "answer", **generate_kwargs: Any) -> pd.DataFrame:
    """Let the model answer, parse the choice (:func:`~culturelab.parsing.parse_choice`, strict
    unless ``lenient``; or ``parser``); invalid → wrong, counted. Adds ``raw_output``, ``pred`` (−1
    when not scored), ``valid``, ``correct``, ``parse_method``, ``parse_verdict`` (strict, lenient,
    conflict, refusal, invalid), ``parse_answer`` (the option read, 0-based, also when not scored) and ``method``.

    >>> class Fake: generate = lambda self, prompts, **kw: ["Answer: B", "no idea"]  # a stand-in model
    >>> f = pd.DataFrame({"prompt": ["p1", "p2"], "options": [["x", "y"]] * 2, "answer": [1, 0]})
    >>> score_generation(Fake(), f)[["pred", "valid", "correct"]].to_dict("records")
    [{'pred': 1, 'valid': True, 'correct': True}, {'pred': -1, 'valid': False, 'correct': False}]
    """
    parser = parser or (lambda text, n, options: parse_choice(text, n, options, lenient=lenient))
    texts = model.generate(list(frame[prompt_col]), max_new_tokens=max_new_tokens, **generate_kwargs)
    parsed = [parser(t, len(o), list(o)) for t, o in zip(texts, frame[options_col])]
    out = frame.copy()
    out["raw_output"] = texts
    out["pred"] = [p.index if p.valid else -1 for p in parsed]
    out["valid"] = [p.valid for p in parsed]
    out["parse_method"] = [p.method for p in parsed]
    out["parse_verdict"] = [p.verdict for p in parsed]
    out["parse_answer"] = pd.Series([p.answer for p in parsed], index=out.index, dtype=object)
    out["correct"] = out["pred"] == out[answer_col]
    out["method"] = "generate"
    return out
