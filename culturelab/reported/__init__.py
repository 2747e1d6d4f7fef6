"""The papers' own numbers, transcribed as CSV, and side-by-side comparison with ours.

Each paper has a folder ``culturelab/reported/<paper>/`` with one CSV per table in long form
(one row per reported cell, a ``value`` column plus the columns that identify the cell) and
a ``README.md`` saying where each number comes from.

>>> import pandas as pd
>>> rep = pd.DataFrame({"model": ["a", "b"], "value": [0.5, 0.7]})
>>> ours = pd.DataFrame({"model": ["a"], "value": [0.55]})
>>> compare(rep, ours, on=["model"]).round(2).to_dict("records")
[{'model': 'a', 'reported': 0.5, 'ours': 0.55, 'delta': 0.05}, {'model': 'b', 'reported': 0.7, 'ours': nan, 'delta': nan}]
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

import pandas as pd


def available(paper: str) -> list[str]:
    """Names of the transcribed tables of a paper.

    >>> available("captex")
    ['dataset', 'models', 'table2', 'table3', 'table4', 'table5', 'table6']
    """
    folder = resources.files("culturelab.reported") / paper
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".csv"))


def load(paper: str, table: str) -> pd.DataFrame:
    """A transcribed table of a paper, e.g. ``load("captex", "table4")``.

    >>> t = load("captex", "table4")
    >>> t.columns.tolist(), "rho" in set(t["metric"])
    (['model', 'metric', 'value'], True)
    """
    path = resources.files("culturelab.reported") / paper / f"{table}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no transcribed table {table!r} for {paper!r}; available: {available(paper)}")
    with path.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh, comment="#")


def compare(reported: pd.DataFrame, ours: pd.DataFrame, on: Sequence[str], value: str = "value",
            ours_value: str | None = None) -> pd.DataFrame:
    """Reported, ours and Δ = ours − reported, one row per reported cell (outer join on ``on``).

    >>> rep = pd.DataFrame({"model": ["a"], "value": [0.5]})
    >>> ours = pd.DataFrame({"model": ["a"], "acc": [0.75]})
    >>> compare(rep, ours, on=["model"], ours_value="acc").to_dict("records")
    [{'model': 'a', 'reported': 0.5, 'ours': 0.75, 'delta': 0.25}]
    """
    left = reported[[*on, value]].rename(columns={value: "reported"})
    right = ours[[*on, ours_value or value]].rename(columns={ours_value or value: "ours"})
    table = left.merge(right, on=list(on), how="outer", sort=False)
    table["delta"] = table["ours"] - table["reported"]
    return table
