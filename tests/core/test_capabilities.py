"""What a backend can answer is known from its spec alone, and a notebook section that needs
more says so in one line, records the skip and goes on."""

from __future__ import annotations

import json

import pytest

from culturelab.models import capabilities
from culturelab.runner import Run


def test_capabilities_by_backend(tmp_path):
    gens = tmp_path / "gens.jsonl"
    gens.write_text(json.dumps({"prompt": "p", "response": "r"}) + "\n")
    scores = tmp_path / "scores.jsonl"
    scores.write_text(json.dumps({"prompt": "p", "response": "r", "context": "c", "continuation": " x",
                                  "logprob": -1.0}) + "\n")
    assert set(capabilities("hf:some/model").values()) == {None}
    assert capabilities("masked:bert")["generate"] and capabilities("masked:bert")["rank_candidates"] is None
    assert capabilities("openai:gpt-4o")["loglikelihood"] and capabilities("openai:gpt-4o")["generate"] is None
    served = capabilities("openai-compatible:http://h/v1#m")
    assert served["generate_constrained"] and {v for k, v in served.items() if k != "generate_constrained"} == {None}
    assert capabilities(f"replay:{gens}")["loglikelihood"] and capabilities(f"replay:{gens}")["generate"] is None
    replayed = capabilities(f"replay:{scores}")
    assert replayed["generate_constrained"] and {v for k, v in replayed.items() if k != "generate_constrained"} == {None}
    with pytest.raises(FileNotFoundError):
        capabilities(f"replay:{tmp_path / 'absent.jsonl'}")


def test_run_supports_records_the_skipped_section(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    run = Run("fmlama/04_decoder_llms", {"model": "masked:bert", "seed": 0}, name="t")
    assert run.supports("rank_candidates", "Ranking") is True
    assert run.supports("generate", "Decoder prompts") is False
    info = json.loads((tmp_path / "t" / "fmlama/04_decoder_llms" / "run_info.json").read_text())
    assert info["skipped"] == [{"section": "Decoder prompts", "model": "masked:bert", "kind": "generate",
                                "reason": "a masked LM does not generate text"}]


@pytest.mark.notebooks
def test_the_quickstart_finishes_with_a_masked_lm_by_log_likelihood_only(tmp_path, monkeypatch, tmp_cache, tiny_masked_dir):
    import pandas as pd

    from culturelab import config
    from culturelab.runner import RunPlan, execute, plan

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    smoke = config.project_root() / "papermill_params" / "smoke.yaml"
    jobs = [(n, {**p, "model": f"masked:{tiny_masked_dir}"}) for n, p in plan(smoke, ["00_quickstart"]).jobs]
    assert execute(RunPlan(smoke, "masked", tmp_path / "figures", jobs))["status"].tolist() == ["ok"]
    info = json.loads((tmp_path / "runs" / "masked" / "00_quickstart" / "run_info.json").read_text())
    assert [s["section"] for s in info["skipped"]] == ["MCQs answered by a generated letter"]
    methods = set(pd.read_csv(tmp_path / "runs" / "masked" / "00_quickstart" / "results.csv")["method"])
    assert methods and all(m.startswith("loglik") for m in methods), methods
