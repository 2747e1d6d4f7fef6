"""Allowed parameter values of the quickstart notebook, and its one entry point.

>>> from culturelab.params import check_choices
>>> check_choices({"methods": ["generate", "vote"]}, CHOICES)
["methods: ['vote'] not allowed; choose from loglikelihood, generate"]
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from culturelab import prompts
from culturelab.params import Choice, one_of

METHODS = ("loglikelihood", "generate")

CHOICES: dict[str, Choice] = {
    "methods": one_of(METHODS),
    "prompt_version": one_of(prompts.versions("quickstart", "mcq_letter")),
}


def open(run: Any) -> pd.DataFrame:
    """The quickstart questions, with ``sample`` stamped on ``run`` (they are written by us)."""
    from culturelab.quickstart.data import load_mcqs

    run.set_data_source("sample")
    return load_mcqs()
