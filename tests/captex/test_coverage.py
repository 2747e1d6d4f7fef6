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
    sizes = cx.load(data_source="sample").sizes()
    table = reported.compare(reported.load("captex", "dataset"), sizes, on=["measure"],
                             data=reported.data_of("sample"), protocol="same")
    assert table["ours"].notna().all() and table["reported"].notna().all()  # every measure joins
    assert not table["comparable"].any() and table["delta"].isna().all()  # sample data: no Δ
    assert table.set_index("measure").loc["mcqs", "ours"] == 8 * table.set_index("measure").loc["procedures", "ours"]


def test_our_fig8_points_carry_their_comparability():
    import pandas as pd

    from culturelab.captex import aggregate

    ours = pd.DataFrame({"model": ["hf:Qwen/Qwen2.5-7B-Instruct", "bundled:gemma3-270m"], "score": [0.5, 0.2]})
    paper = aggregate.reported_fig8().set_index("model")["score"]
    same = aggregate.beside_fig8(ours, "released", lmax_mode="max_cells").set_index("model")
    qwen = same.loc["hf:Qwen/Qwen2.5-7B-Instruct"]
    assert qwen["comparable"] and qwen["delta"] == pytest.approx(0.5 - paper["Qwen2.5-7B-Instruct"])
    gemma = same.loc["bundled:gemma3-270m"]
    assert gemma["paper_row"] == "" and pd.isna(gemma["delta"]) and "no Table 4 row" in gemma["protocol"]
    other = aggregate.beside_fig8(ours, "released").set_index("model").loc["hf:Qwen/Qwen2.5-7B-Instruct"]
    assert not other["comparable"] and "L_max per_instance" in other["protocol"] and pd.isna(other["delta"])
    sample = aggregate.beside_fig8(ours, "sample", lmax_mode="max_cells")
    assert not sample["comparable"].any() and sample["data"].str.contains("sample").all()
