"""A dozen multilingual cultural MCQs (en, fa, tr, zh, ja, id, ur, ha), written for the
quickstart notebook; answers are spread over the four positions.

Columns: ``id``, ``language``, ``question``, ``options`` (4 strings), ``answer`` (0-based).

>>> t = load_mcqs()
>>> len(t), sorted(t["answer"].unique().tolist())
(12, [0, 1, 2, 3])
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from culturelab.data.validate import validate_rows

SAMPLE = "quickstart_mcq.jsonl"


def load_mcqs() -> pd.DataFrame:
    """The quickstart questions as a tidy table (validated).

    >>> load_mcqs().columns.tolist()
    ['id', 'language', 'question', 'options', 'answer']
    """
    path = resources.files("culturelab.data") / "samples" / SAMPLE
    with path.open("r", encoding="utf-8") as fh:
        table = pd.read_json(fh, lines=True, dtype=False)
    validate_rows(table, f"samples/{SAMPLE}", {
        "id": lambda v: bool(v) or "empty id",
        "options": lambda v: (isinstance(v, list) and len(v) == 4 and all(v)) or "needs 4 non-empty options",
        "answer": lambda v: v in (0, 1, 2, 3) or "must be 0–3",
    }, header_rows=0)
    return table
