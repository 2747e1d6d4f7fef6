"""Schema checks that point at the exact file, row and column of a problem.

>>> import pandas as pd
>>> df = pd.DataFrame({"steps": [3, 11]})
>>> validate_rows(df, "procs.csv", {"steps": lambda v: 5 <= v <= 10 or "must be 5–10"})
Traceback (most recent call last):
...
culturelab.data.validate.DataError: procs.csv, row 2, column 'steps': must be 5–10 (got 3)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd


class DataError(ValueError):
    """A data file does not have the expected shape; the message names file, row and column.

    >>> isinstance(DataError("a.csv, row 2, column 'x': empty"), ValueError)
    True
    """


def require_columns(frame: pd.DataFrame, required: Iterable[str], source: str | Path) -> None:
    """Raise :class:`DataError` listing the missing columns.

    >>> require_columns(pd.DataFrame({"id": [1]}), ["id", "answer"], "items.csv")
    Traceback (most recent call last):
    ...
    culturelab.data.validate.DataError: items.csv: missing column(s) ['answer']; found ['id']
    """
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise DataError(f"{source}: missing column(s) {missing}; found {list(frame.columns)}")


def validate_rows(frame: pd.DataFrame, source: str | Path, checks: dict[str, Callable[[Any], bool | str]],
                  *, header_rows: int = 1) -> None:
    """Apply one check per column to every row.

    A check returns ``True`` when the value is fine, or ``False``/a message when it is not.
    Rows are reported 1-based as in a spreadsheet, counting ``header_rows`` lines of header
    (so "row 2" is the first data row of a CSV).

    >>> validate_rows(pd.DataFrame({"lang": ["en", ""]}), "items.csv", {"lang": lambda v: bool(v)})
    Traceback (most recent call last):
    ...
    culturelab.data.validate.DataError: items.csv, row 3, column 'lang': invalid value (got '')
    """
    require_columns(frame, checks, source)
    for column, check in checks.items():
        for pos, value in enumerate(frame[column].tolist()):
            try:
                verdict = check(value)
            except Exception as err:  # a check that crashes is a malformed value too
                verdict = f"{type(err).__name__}: {err}"
            if verdict is not True:
                reason = verdict if isinstance(verdict, str) else "invalid value"
                raise DataError(f"{source}, row {pos + 1 + header_rows}, column {column!r}: {reason} (got {value!r})")
