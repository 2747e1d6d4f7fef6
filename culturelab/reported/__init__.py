"""The papers' own numbers, transcribed as CSV, and side-by-side comparison with ours.

Each paper has a folder ``culturelab/reported/<paper>/`` with one CSV per table in long form
(one row per reported cell, a ``value`` column plus the columns that identify the cell) and
a ``README.md`` saying where each number comes from.

Every comparison states its comparability: whether our number was computed on the paper's
data (``data="same"``, or what differs, e.g. ``"sample data"``) and with the paper's protocol
(``protocol="same"``, or which step differs). A Δ is printed only where both match; otherwise
the table shows both numbers and the reason.

>>> import pandas as pd
>>> rep = pd.DataFrame({"model": ["a", "b"], "value": [0.5, 0.7]})
>>> ours = pd.DataFrame({"model": ["a"], "value": [0.55]})
>>> compare(rep, ours, on=["model"], data="same", protocol="same").round(2).to_dict("records")[0]
{'model': 'a', 'reported': 0.5, 'ours': 0.55, 'delta': 0.05, 'data': 'same', 'protocol': 'same', 'comparable': True}
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

import pandas as pd


def available(paper: str) -> list[str]:
    """Names of the transcribed tables of a paper.

    >>> available("captex")
    ['coverage', 'dataset', 'models', 'table2', 'table3', 'table4', 'table5', 'table6']
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


SAME = "same"


def data_of(data_source: str | None) -> str:
    """The ``data`` comparability of a run from its data source (what ``run.set_data_source`` stamped).

    >>> data_of("released"), data_of("sample")
    ('same', "sample data (ours, not the paper's)")
    """
    return SAME if data_source == "released" else f"{data_source} data (ours, not the paper's)"


def compare(reported: pd.DataFrame, ours: pd.DataFrame, on: Sequence[str], value: str = "value",
            ours_value: str | None = None, *, data: str, protocol: str) -> pd.DataFrame:
    """Reported, ours and Δ = ours − reported, one row per reported cell (outer join on ``on``),
    with the comparability of the two numbers.

    ``data`` and ``protocol`` are ``"same"`` or say what differs (e.g. ``data="sample data"``,
    ``protocol="8 of 2,008 items; log-likelihood instead of fine-tuning"``). ``delta`` is only
    filled where both are ``"same"`` (``comparable``); otherwise both numbers stand side by side.
    Both are required: every number put beside a paper's says whether it can be compared.

    >>> rep = pd.DataFrame({"model": ["a"], "value": [0.5]})
    >>> ours = pd.DataFrame({"model": ["a"], "acc": [0.75]})
    >>> compare(rep, ours, on=["model"], ours_value="acc", data="same", protocol="same")["delta"].tolist()
    [0.25]
    >>> t = compare(rep, ours, on=["model"], ours_value="acc", data="sample data", protocol="same")
    >>> t[["delta", "comparable"]].to_dict("records")
    [{'delta': nan, 'comparable': False}]
    """
    left = reported[[*on, value]].rename(columns={value: "reported"})
    right = ours[[*on, ours_value or value]].rename(columns={ours_value or value: "ours"})
    table = left.merge(right, on=list(on), how="outer", sort=False)
    comparable = data == SAME and protocol == SAME
    table["delta"] = table["ours"] - table["reported"] if comparable else float("nan")
    table["data"] = data
    table["protocol"] = protocol
    table["comparable"] = comparable
    return table


#: the statuses of a paper's coverage table (:func:`coverage`)
COVERAGE_STATUSES = ("recomputed", "redrawn", "missing")


def coverage(paper: str) -> pd.DataFrame:
    """What of a paper culturelab covers, item by item (every table, figure and text claim):
    ``item, content, status`` (:data:`COVERAGE_STATUSES`: recomputed from data and models,
    redrawn from the paper's numbers only, or missing), the ``notebook`` that shows it and a
    ``note`` (for ``missing``: why). Ours, not the paper's: ``reported/<paper>/coverage.csv``.

    >>> c = coverage("percul")
    >>> sorted(c["status"].unique()), c.loc[c["item"] == "Figure 16", "notebook"].item()
    (['missing', 'recomputed', 'redrawn'], 'percul/04_distractors')
    """
    table = load(paper, "coverage").fillna({"notebook": ""})
    unknown = set(table["status"]) - set(COVERAGE_STATUSES)
    if unknown:
        raise ValueError(f"reported/{paper}/coverage.csv: unknown status {sorted(unknown)}; use {COVERAGE_STATUSES}")
    return table
