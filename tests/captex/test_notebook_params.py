"""The CAPTEx notebooks share their task settings, so notebook 05 re-uses the answers that
notebooks 02–04 left in the response cache; every parameter file entry validates."""

from __future__ import annotations

import pytest

from culturelab import config
from culturelab.params import notebook_defaults
from culturelab.runner import notebook_file, plan

NOTEBOOKS = ["captex/01_dataset", "captex/02_reordering", "captex/03_mcq", "captex/04_cbqa", "captex/05_aggregate"]


def test_aggregate_notebook_uses_the_task_notebooks_defaults():
    final = notebook_defaults(notebook_file("captex/05_aggregate"))
    for name in NOTEBOOKS[1:4]:
        for key, value in notebook_defaults(notebook_file(name)).items():
            if key in final and key not in {"paper_row"}:
                assert final[key] == value, f"{name}.{key} = {value!r} but 05_aggregate has {final[key]!r}"


@pytest.mark.parametrize("run", ["default.yaml", "smoke.yaml"])
def test_parameter_files_validate(run):
    jobs = dict(plan(config.project_root() / "papermill_params" / run, ["captex/*"]).jobs)
    assert sorted(jobs) == NOTEBOOKS
    # the aggregate notebook asks for the same token budgets as the task notebooks (cache hits)
    for key in ("max_reorder_tokens", "max_answer_tokens", "max_reply_tokens"):
        values = {jobs[n].get(key) for n in NOTEBOOKS if key in jobs[n]}
        assert len(values) <= 1 or values == {jobs["captex/05_aggregate"].get(key)}, key


def test_the_default_reordering_runs_both_decodings_on_every_procedure_the_sample_has():
    from culturelab.captex import setup

    def params(run: str) -> dict:
        return dict(plan(config.project_root() / "papermill_params" / run, ["captex/02_reordering"]).jobs)[
            "captex/02_reordering"]

    default = params("default.yaml")
    assert default["decoding"] == ["free", "constrained"] and params("paper.yaml")["decoding"] == ["free"]
    procedures = setup.load_data(max_procedures=default["max_procedures"]).procedures
    per_step = procedures[procedures["lang_group"].isin(["English", "native"])]["n_steps"].value_counts()
    whole = setup.load_data().procedures
    whole = whole[whole["lang_group"].isin(["English", "native"])]["n_steps"].value_counts()
    assert (per_step >= whole.clip(upper=30)).all()  # at least 30 answers per step count where the sample has them
