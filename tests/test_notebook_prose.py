"""No notebook states a result number by hand: every number its Markdown gives about a run is rendered
from the run's tables (``culturelab.report.md``), so it cannot go stale when sizes or models change.
What counts (decimals, percentages, n = …, counts per unit, counts a run scores) and what is allowed
(the paper's numbers where they cite it, section/table/figure numbers, years, model sizes, code spans)
is defined in :mod:`culturelab.report`."""

from __future__ import annotations

import json

import pytest

from culturelab import config
from culturelab.report import typed_numbers
from culturelab.runner import all_notebooks


@pytest.mark.parametrize("notebook", all_notebooks())
def test_markdown_states_no_result_number_by_hand(notebook):
    path = config.notebooks_dir() / f"{notebook}.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    typed = {cell.get("id"): hits for cell in cells if cell["cell_type"] == "markdown"
             and (hits := typed_numbers("".join(cell["source"])))}
    assert not typed, f"{notebook}: result numbers typed into Markdown (render them with culturelab.report.md): {typed}"


@pytest.mark.parametrize("stale", [
    "in the default run each type holds 70 questions (35 per language), so the CIs span about ±0.1",
    "every radar cell is one procedure and every country–language bar 5 procedures in the default run",
    "In the default run the step counts 5–9 hold 2–32 instances each (no 10-step procedure is drawn)",
    "echoing Person A's question scores ≈ 0.45–0.5 on both, higher than the model's own replies (≈ 0.38)",
])
def test_the_stale_prose_of_issue_23_is_caught(stale):
    assert typed_numbers(stale)


def test_rendered_markdown_takes_its_numbers_from_the_table():
    import pandas as pd

    from culturelab import report

    summary = pd.DataFrame({"system": ["echo_question", "m"], "metric": "ss", "mean": [0.4127, 0.35]})
    text = report.md("Echo {e:.2f}, model {m:.2f}.", e=report.cell(summary, "mean", system="echo_question", metric="ss"),
                     m=report.cell(summary, "mean", system="m", metric="ss")).data
    assert text == "Echo 0.41, model 0.35." and typed_numbers(text)  # stated by code, not typed into Markdown


@pytest.mark.parametrize("ours", [
    "In the variant the paper reports it re-scores the released answers to ZH_zh 20.47 % (paper 20.28, +1 of 508)",
    "The paper's Table 4 row, against which our run measured 0.41 on the sample",
])
def test_a_result_set_beside_the_papers_number_is_not_excused_by_the_citation(ours):
    assert typed_numbers(ours)


def test_the_papers_own_numbers_stay_allowed():
    assert typed_numbers("The paper's Table 4 gives 0.63 for GPT-4o, and GPT-4 scores 0.58 (Table 4).") == []
