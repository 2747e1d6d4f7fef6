"""Notebook-specific parameter checks, run right after ``start_run`` (before any data or model
is loaded); a bad value raises :class:`~culturelab.params.ParameterError` naming the key.

>>> check_choices("tasks", ["gi", "xx"], ["gi", "si"])
Traceback (most recent call last):
...
culturelab.params.ParameterError: tasks: unknown value(s) ['xx']; allowed: ['gi', 'si']
>>> check_choices("policy", "zero", ["zero", "repair"])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from culturelab.params import ParameterError


def check_choices(name: str, value: Any, allowed: Iterable[Any], *, allow_empty: bool = False) -> None:
    """``value`` (one item or a list) must only hold values from ``allowed``."""
    allowed = list(allowed)
    values: Sequence[Any] = value if isinstance(value, (list, tuple)) else [value]
    bad = [v for v in values if v not in allowed]
    if bad:
        raise ParameterError(f"{name}: unknown value(s) {bad}; allowed: {allowed}")
    if not values and not allow_empty:
        raise ParameterError(f"{name}: must not be empty; allowed: {allowed}")


def check_range(name: str, value: int, lo: int, hi: int) -> None:
    """An integer parameter must lie in ``lo``–``hi``.

    >>> check_range("max_steps", 30, 2, 26)
    Traceback (most recent call last):
    ...
    culturelab.params.ParameterError: max_steps: must be between 2 and 26, got 30
    """
    if not lo <= value <= hi:
        raise ParameterError(f"{name}: must be between {lo} and {hi}, got {value}")
