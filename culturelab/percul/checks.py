"""Notebook-specific parameter checks, run right after ``start_run`` and before any model loads.

>>> check_choices({"split": "persian"}, {"split": ["original_persian", "gpt_english_translation"]})
Traceback (most recent call last):
...
culturelab.params.ParameterError: split: 'persian' is not allowed; choose one of ['original_persian', 'gpt_english_translation']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from culturelab.params import ParameterError


def check_choices(params: Mapping[str, Any], allowed: Mapping[str, Sequence[Any]], *, where: str = "") -> None:
    """Every named parameter must be one of its allowed values (each element, for lists; lists
    must not be empty). All problems are reported at once, one line per key."""
    problems = []
    prefix = f"{where}: " if where else ""
    for key, choices in allowed.items():
        if key not in params:
            continue
        value = params[key]
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if isinstance(value, (list, tuple)) and not values:
            problems.append(f"{prefix}{key}: must not be empty; choose from {list(choices)}")
        bad = [v for v in values if v not in choices]
        if bad:
            shown = bad[0] if not isinstance(value, (list, tuple)) else bad
            problems.append(f"{prefix}{key}: {shown!r} is not allowed; choose one of {list(choices)}")
    if problems:
        raise ParameterError("\n".join(problems))


#: allowed values of the PERCUL notebooks' choice parameters (only keys a notebook declares are checked)
ALLOWED: dict[str, Sequence[Any]] = {
    "split": ("original_persian", "gpt_english_translation"),
    "source": ("auto", "local", "hf", "sample"),
    "methods": ("generate", "loglikelihood"),
    "method": ("generate", "loglikelihood"),
    "prompt_version": ("v1", "v2"),
    "loglik_target": ("text", "number"),
    "invalid_policy": ("wrong", "exclude"),
    "permutations": ("cyclic", "all", "random"),
    "fig16_row_order": ("printed", "macro"),
    "fig8_pooling": ("sum_counts", "mean_of_models"),
}


def check_params(params: Mapping[str, Any], *, where: str = "") -> None:
    """Check every PERCUL choice parameter present in ``params`` against :data:`ALLOWED`.

    >>> check_params({"prompt_version": "v1", "methods": ["generate"]}) is None
    True
    """
    check_choices(params, ALLOWED, where=where)
