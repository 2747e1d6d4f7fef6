"""The CAPTEx coverage table: every table and figure the paper captions has a status, a reason and a notebook."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from culturelab import reported
from culturelab.captex import data as cx
from culturelab.runner import all_notebooks

PAPER = Path("/work/shared/papers/captex.txt")


def _numbers(items: list[str], kind: str) -> set[int]:
    return {int(m[1]) for item in items if (m := re.match(rf"{kind} (\d+)", item))}


def test_coverage_has_every_table_and_figure_with_a_status_and_a_reason():
    c = reported.coverage("captex")
    assert set(c["status"]) <= set(reported.COVERAGE_STATUSES)
    assert _numbers(list(c["item"]), "Table") == set(range(1, 9))
    assert _numbers(list(c["item"]), "Figure") == set(range(1, 9))
    assert c["note"].str.len().gt(10).all()
    notebooks = set(all_notebooks())
    shown = c.loc[c["status"] != "missing", "notebook"]
    assert shown.str.len().gt(0).all() and set(shown) <= notebooks
    assert (c.loc[c["status"] == "missing", "notebook"] == "").all()


@pytest.mark.skipif(not PAPER.exists(), reason="paper text not here")
def test_coverage_matches_the_paper_captions():
    text = PAPER.read_text(encoding="utf-8")
    items = list(reported.coverage("captex")["item"])
    for kind in ("Table", "Figure"):
        captioned = {int(n) for n in re.findall(rf"^{kind} (\d+):", text, flags=re.M)}
        assert captioned == _numbers(items, kind), kind


def test_sizes_line_up_with_the_reported_dataset_sizes():
    from culturelab.captex.protocol import PROTOCOL
    from culturelab.protocol import DataUsed, compare

    sizes = cx.load(data_source="sample").sizes()
    table = reported.compare(reported.load("captex", "dataset"), sizes, on=["measure"],
                             deviations=compare(PROTOCOL["01_dataset"], {}, DataUsed("sample")))
    assert table["ours"].notna().all() and table["reported"].notna().all()  # every measure joins
    assert not table["comparable"].any() and table["delta"].isna().all()  # sample data: no Δ
    assert table.set_index("measure").loc["mcqs", "ours"] == 8 * table.set_index("measure").loc["procedures", "ours"]
