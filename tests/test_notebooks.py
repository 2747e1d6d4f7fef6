"""Every notebook executes end to end under papermill_params/smoke.yaml (one test each)."""

from __future__ import annotations

import json

import pytest

from culturelab import config
from culturelab.runner import all_notebooks, execute, plan

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", all_notebooks())
def test_notebook_runs_under_smoke_params(notebook):
    run_plan = plan(SMOKE, [notebook])
    summary = execute(run_plan)
    assert summary["status"].tolist() == ["ok"], summary.to_dict("records")
    info = json.loads((config.runs_dir() / run_plan.run_name / notebook / "run_info.json").read_text())
    assert info["versions"]["culturelab"]
    assert info["results"], f"{notebook} wrote no results table"
    assert info["figures"], f"{notebook} wrote no figure"
