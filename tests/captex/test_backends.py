"""CAPTEx with a backend that cannot do every task: the notebooks run what the model can answer,
say in one line what they skip, and finish (issue 13.3)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from culturelab import config
from culturelab.runner import RunPlan, execute, plan

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"
CAPTEX = ["captex/02_reordering", "captex/03_mcq", "captex/04_cbqa", "captex/05_aggregate"]


@pytest.mark.notebooks
def test_the_captex_notebooks_finish_with_a_masked_lm_and_record_what_they_skip(tmp_path, monkeypatch, tmp_cache,
                                                                                 tiny_masked_dir):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    spec = f"masked:{tiny_masked_dir}"
    jobs = [(name, {**params, "model": spec}) for name, params in plan(SMOKE, CAPTEX).jobs]
    status = execute(RunPlan(SMOKE, "masked", tmp_path / "figures", jobs), jobs=2)
    assert status["status"].tolist() == ["ok"] * len(CAPTEX), status.to_dict("records")
    skipped = {name: {s["section"] for s in json.loads((tmp_path / "runs" / "masked" / name / "run_info.json")
                                                       .read_text()).get("skipped", [])} for name in CAPTEX}
    generate_mcq = "MCQs answered by a generated letter"
    assert skipped == {"captex/02_reordering": {"Task 1, step reordering (generation)"},
                       "captex/03_mcq": {generate_mcq},
                       "captex/04_cbqa": {"Task 4, CB-QA (generation)"},
                       "captex/05_aggregate": {generate_mcq, "Task 1, step reordering (generation)",
                                               "Task 4, CB-QA (generation)"}}
    mcq = pd.read_csv(tmp_path / "runs" / "masked" / "captex/03_mcq" / "results.csv")
    assert set(mcq["method"]) == {"loglikelihood"} and mcq["valid"].all() and len(mcq) > 0
    # every results table carries the labels of the run's comparison with the paper (issue 21)
    for name in CAPTEX:
        for path in sorted((tmp_path / "runs" / "masked" / name).glob("*.csv")):
            table = pd.read_csv(path)
            assert {"data", "protocol", "model_status", "comparable"} <= set(table.columns), path
            assert table["data"].str.startswith("sample data (ours, not the paper's)").all(), path
            assert not table["comparable"].any(), path
    assert mcq["protocol"].str.contains("option log-likelihood instead of generation").all()
    assert mcq["model_status"].str.endswith("not one of the paper's models (placed beside them)").all()
    built = mcq["protocol"].str.contains("CB-MCQ options built by us")
    assert (built == (mcq["task"] == "CB-MCQ")).all() and built.any()
