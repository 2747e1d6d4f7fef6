"""Every notebook executes end to end under papermill_params/smoke.yaml (one test each), and every
figure it saves passes the figure audit (:mod:`culturelab.plots.audit`, one test each).

The notebooks run once, as ``culturelab run papermill_params/smoke.yaml`` does (one batch, a kernel
per core, aggregates after their papers' notebooks); each test then checks its own notebook's row,
results and figures. On 2 cores this halves the wall time of running them one by one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from culturelab import config
from culturelab.plots import audit
from culturelab.runner import all_notebooks, available_cores, execute, plan

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"


@pytest.fixture(scope="module")
def smoke_run(request) -> tuple[str, pd.DataFrame]:
    """Run the notebooks this session selected (``-k`` picks some), in one batch."""
    selected = {item.callspec.params["notebook"] for item in request.session.items
                if getattr(item, "originalname", "") in {"test_notebook_runs_under_smoke_params",
                                                         "test_every_figure_passes_the_audit"}}
    run_plan = plan(SMOKE, [name for name in all_notebooks() if name in selected])
    return run_plan.run_name, execute(run_plan, jobs=available_cores()).set_index("notebook")


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", all_notebooks())
def test_notebook_runs_under_smoke_params(notebook, smoke_run):
    run_name, summary = smoke_run
    assert summary.loc[notebook, "status"] == "ok", summary.loc[notebook].to_dict()
    info = json.loads((config.runs_dir() / run_name / notebook / "run_info.json").read_text())
    assert info["versions"]["culturelab"]
    assert info["results"], f"{notebook} wrote no results table"
    assert info["figures"], f"{notebook} wrote no figure"


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", all_notebooks())
def test_every_figure_passes_the_audit(notebook, smoke_run):
    """The audit records ``Run.savefig`` wrote for this run's figures: no figure breaks a rule for
    what it claims (n, chance, model, method, sample stamp, overlaps, legends, greyed panels)."""
    run_name, summary = smoke_run
    if summary.loc[notebook, "status"] != "ok":
        pytest.skip(f"{notebook} did not run: {summary.loc[notebook, 'status']}")
    folder = config.runs_dir() / run_name / notebook
    info = json.loads((folder / "run_info.json").read_text())
    names = list(dict.fromkeys(Path(path).stem for path in info["figures"]))
    found = {}
    for name in names:
        record = json.loads((folder / "figures" / f"{name}.json").read_text())
        found[name] = audit.problems(record["facts"], record["claims"])
    assert names and not any(found.values()), {name: p for name, p in found.items() if p}
