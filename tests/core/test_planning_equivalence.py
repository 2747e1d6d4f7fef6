"""``culturelab plan`` bills exactly the requests a real run computes: one notebook per paper, run at smoke
size with a tiny real model and a fresh cache, then planned with the counting model; the counts by kind
must agree (repeats within a notebook are served by the cache and billed once)."""

from __future__ import annotations

import json

import pytest

from culturelab import config
from culturelab.planning import KIND_LABELS, plan_requests
from culturelab.runner import RunPlan, execute, plan

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"
ONE_PER_PAPER = ["00_quickstart", "captex/03_mcq", "fmlama/02_probing", "turkish_plu/02_mc_tasks",
                 "cultural_recipes/02_adaptation", "percul/01_benchmark"]


@pytest.mark.notebooks
def test_plan_counts_equal_the_requests_a_real_smoke_run_sends(tiny_causal_dir, tmp_path, monkeypatch, tmp_cache):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("CULTURELAB_RUN_NAME", "real")  # execute() sets these two; restored after the test
    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "figures"))
    spec = f"hf:{tiny_causal_dir}"
    smoke = plan(SMOKE, ONE_PER_PAPER)
    # Turkish PLU's fine-tuning trains the bundled Gemma, not the model under test, and is billed
    # as a step of its own, not as requests: it is left out here (it cost ~100 s of this test)
    jobs = [(name, {**params, "model": spec, **({"run_finetune": False} if "run_finetune" in params else {})})
            for name, params in smoke.jobs]
    real = RunPlan(SMOKE, "real", tmp_path / "figures", jobs)
    status = execute(real, jobs=2)
    assert status["status"].tolist() == ["ok"] * len(jobs), status.to_dict("records")
    billed = plan_requests(real, model=spec, jobs=2, work_dir=tmp_path / "plan", calibrate_models=False)
    assert billed["counting_run"].tolist()[:-1] == ["ok"] * len(jobs)
    billed = billed.set_index("notebook")
    for name, _ in jobs:
        info = json.loads((tmp_path / "runs" / "real" / name / "run_info.json").read_text())
        calls = info["models"][spec]["calls"]
        computed = calls["by_kind"]  # a fresh cache: what the model computed = the distinct requests
        for kind in ("loglikelihood", "generate"):
            assert billed.loc[name, KIND_LABELS[kind]] == computed.get(kind, 0), (name, kind, calls)
        assert sum(computed.values()) > 0, f"{name} computed no request: the comparison would be empty"
    # Turkish PLU's second normalisation re-sends the first one's requests; they are billed once
    repeats = json.loads((tmp_path / "runs" / "real" / "turkish_plu/02_mc_tasks" / "run_info.json").read_text())
    calls = repeats["models"][spec]["calls"]
    assert calls["requested_by_kind"]["loglikelihood"] > calls["by_kind"]["loglikelihood"], calls
