"""The papers' own numbers, transcribed as CSV, and side-by-side comparison with ours.

Each paper has a folder ``culturelab/reported/<paper>/`` with one CSV per table in long form
(one row per reported cell, a ``value`` column plus the columns that identify the cell) and
a ``README.md`` saying where each number comes from.

Every comparison carries the labels of :func:`culturelab.protocol.compare` — the run set beside
its paper's protocol as declared in ``culturelab/<paper>/protocol.py``: whether our number was
computed on the paper's data (a ``data`` column: ``same``, or what differs, e.g. ``sample data``), with
the paper's protocol (``protocol``: ``same``, or every setting that differs) and by one of the paper's
models. A Δ is printed only where all match; otherwise the table shows both numbers and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

import pandas as pd

from culturelab.protocol import SAME, DataUsed, Deviations, is_same


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


def compare(reported: pd.DataFrame, ours: pd.DataFrame, on: Sequence[str], value: str = "value",
            ours_value: str | None = None, *, deviations: Deviations, model_row: str | None = None) -> pd.DataFrame:
    """Reported, ours and Δ = ours − reported, one row per reported cell (outer join on ``on``),
    with the labels of the one comparison of the run with the paper's protocol
    (:func:`culturelab.protocol.compare`): ``data``, ``protocol``, ``model_status``, ``comparable``.

    ``model_row`` names the paper's model whose numbers ``reported`` holds (``None`` when they
    belong to no model: dataset statistics, a random baseline). ``delta`` is filled only where
    data and protocol are the paper's and, for a model's row, the run's model is that model;
    otherwise both numbers stand side by side and the labels say why.

    >>> from culturelab.protocol import DataUsed, Section, Setting, compare as cmp
    >>> s = Section("§4", settings={"split": Setting("silver", "§5", what="split")})
    >>> rep = pd.DataFrame({"metric": ["acc"], "value": [0.5]})
    >>> ours = pd.DataFrame({"metric": ["acc"], "value": [0.75]})
    >>> compare(rep, ours, on=["metric"], deviations=cmp(s, {"split": "silver"}, DataUsed("released")))["delta"].tolist()
    [0.25]
    >>> t = compare(rep, ours, on=["metric"], deviations=cmp(s, {"split": "gold"}, DataUsed("released")))
    >>> t[["delta", "protocol", "comparable"]].to_dict("records")
    [{'delta': nan, 'protocol': 'split gold (the paper: silver, §5)', 'comparable': False}]
    >>> d = cmp(s, {}, DataUsed("released"), model="bundled:gemma3-270m", paper_models={"GPT-4": "gpt-4"})
    >>> compare(rep, ours, on=["metric"], deviations=d, model_row="GPT-4")["model_status"].item()
    "bundled:gemma3-270m beside the paper's GPT-4"
    """
    left = reported[[*on, value]].rename(columns={value: "reported"})
    right = ours[[*on, ours_value or value]].rename(columns={ours_value or value: "ours"})
    table = left.merge(right, on=list(on), how="outer", sort=False)
    model_status = deviations.model
    if model_row is not None and deviations.model_spec is not None and deviations.paper_model != model_row:
        model_status = f"{deviations.model_spec} beside the paper's {model_row}"
    comparable = is_same(deviations.data) and is_same(deviations.protocol) and is_same(model_status)
    table["delta"] = table["ours"] - table["reported"] if comparable else float("nan")
    table["data"] = deviations.data
    table["protocol"] = deviations.protocol
    table["model_status"] = model_status
    table["comparable"] = comparable
    return table


#: the statuses of a paper's coverage table (:func:`coverage`)
COVERAGE_STATUSES = ("recomputed", "redrawn", "code only", "missing")


def coverage(paper: str, data_used: DataUsed | None = None) -> pd.DataFrame:
    """What of a paper culturelab covers, item by item (every table, figure and text claim):
    ``item, content, status, needs, notebook, note``. Ours, not the paper's:
    ``reported/<paper>/coverage.csv``. The statuses (:data:`COVERAGE_STATUSES`):

    * ``recomputed`` — our code recomputes it from the paper's release alone;
    * ``redrawn`` — drawn from the paper's published numbers only;
    * ``code only`` — our code computes it, but only given what ``needs`` names (the paper's
      model outputs, human ratings, weights …), which this project cannot hold;
    * ``missing`` — not covered (``note`` says why).

    With the run's ``data_used`` (:meth:`culturelab.runner.Run.set_data_source`), a row that the
    release would recompute says ``code only (needs: the release)`` unless this run read the
    release, and every row carries the run's ``data`` label. No row claims ``recomputed``
    unless the release recomputes it in this run.

    >>> c = coverage("percul")
    >>> set(c["status"]) <= set(COVERAGE_STATUSES), c.loc[c["item"] == "Figure 16", "notebook"].item()
    (True, 'percul/04_distractors')
    >>> statuses = set(coverage("percul", DataUsed("sample"))["status"])
    >>> "code only (needs: the release)" in statuses, "recomputed" in statuses
    (True, False)
    """
    table = load(paper, "coverage").fillna({"notebook": "", "note": ""})
    if "needs" not in table:
        table.insert(3, "needs", "")
    table["needs"] = table["needs"].fillna("")
    unknown = set(table["status"]) - set(COVERAGE_STATUSES)
    if unknown:
        raise ValueError(f"reported/{paper}/coverage.csv: unknown status {sorted(unknown)}; use {COVERAGE_STATUSES}")
    bad = table[(table["status"] == "code only") != (table["needs"] != "")]
    if len(bad):
        raise ValueError(f"reported/{paper}/coverage.csv: {bad['item'].iloc[0]!r}: 'code only' rows, and only "
                         "they, name what they need (column needs)")
    if data_used is not None:
        released = data_used.label == SAME
        table["status"] = [f"code only (needs: {n})" if s == "code only"
                           else s if s != "recomputed" or released else "code only (needs: the release)"
                           for s, n in zip(table["status"], table["needs"])]
        table["data"] = [data_used.label if s == "recomputed" else "" for s in table["status"]]
    return table
