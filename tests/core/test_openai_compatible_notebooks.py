"""CAPTEx's and FMLAMA's model notebooks with an OpenAI-compatible server (the loopback fake): the
backend answers every request kind but constrained decoding, so every section runs but CAPTEx's
constrained reordering (skipped in one line), and the server is what answered (issue 13.3: every
backend through every notebook)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from culturelab import config
from culturelab.runner import RunPlan, execute, plan

from .fake_openai import FakeOpenAI

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"
NOTEBOOKS = ["captex/02_reordering", "captex/03_mcq", "captex/04_cbqa", "captex/05_aggregate",
             "fmlama/02_probing", "fmlama/03_code_switching", "fmlama/04_decoder_llms"]


@pytest.mark.notebooks
def test_captex_and_fmlama_notebooks_run_every_section_on_an_openai_compatible_server(tmp_path, monkeypatch, tmp_cache):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    with FakeOpenAI(answer="B") as server:
        spec = f"openai-compatible:{server.base_url}#fake"
        jobs = [(name, {**params, "model": spec}) for name, params in plan(SMOKE, NOTEBOOKS).jobs]
        status = execute(RunPlan(SMOKE, "api", tmp_path / "figures", jobs), jobs=2)
        paths = {r["path"] for r in server.requests}
    assert status["status"].tolist() == ["ok"] * len(NOTEBOOKS), status.to_dict("records")
    assert {"/v1/chat/completions", "/v1/completions"} <= paths, paths  # generations and log-probabilities
    runs = tmp_path / "runs" / "api"
    for name in NOTEBOOKS:
        info = json.loads((runs / name / "run_info.json").read_text())
        constrained = ["Step reordering, constrained to valid orders (protocol deviation)"]
        expected = constrained if name == "captex/02_reordering" else []
        assert [s["section"] for s in info.get("skipped", [])] == expected, (name, info.get("skipped"))
        calls = info["models"][spec]["calls"]
        assert calls["requested"] > 0, name
        # the aggregate re-sends 02–04's requests, after them: every answer comes from the cache
        assert (calls["computed"] == 0) if name == "captex/05_aggregate" else (calls["computed"] > 0), (name, calls)
    mcq = pd.read_csv(runs / "captex/03_mcq" / "results.csv")
    assert set(mcq["method"]) == {"generate", "loglikelihood"} and len(mcq) > 0
    probing = pd.read_csv(runs / "fmlama/02_probing" / "results.csv")
    assert spec in set(probing["model"]) and "frequency baseline" in set(probing["model"])
