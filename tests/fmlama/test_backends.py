"""FMLAMA's ranking notebooks with a backend that cannot rank (a replay file of generations): they
say so in one line, keep the frequency baseline and the chance line, labelled as analyses beyond
the paper, and finish (issues 13.3, 21)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from culturelab import config
from culturelab.runner import RunPlan, execute, plan

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"
RANKING = ["fmlama/02_probing", "fmlama/03_code_switching"]


@pytest.mark.notebooks
def test_the_ranking_notebooks_finish_with_a_replay_file_of_generations(tmp_path, monkeypatch, tmp_cache):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    replay = tmp_path / "generations.jsonl"
    replay.write_text(json.dumps({"prompt": "p", "response": "r"}) + "\n")
    spec = f"replay:{replay}"
    jobs = [(name, {**params, "model": spec}) for name, params in plan(SMOKE, RANKING).jobs]
    status = execute(RunPlan(SMOKE, "replay", tmp_path / "figures", jobs), jobs=2)
    assert status["status"].tolist() == ["ok"] * len(RANKING), status.to_dict("records")
    for name in RANKING:
        info = json.loads((tmp_path / "runs" / "replay" / name / "run_info.json").read_text())
        assert [s["section"] for s in info["skipped"]] == ["Cloze ranking by the model"]
        rows = pd.read_csv(tmp_path / "runs" / "replay" / name / "results.csv")
        assert set(rows["model"]) == {"frequency baseline", "random ranking (expected)"} and len(rows) > 0
        assert rows["protocol"].str.startswith("beyond the paper").all()
