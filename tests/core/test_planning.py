"""``culturelab plan``: a counting model stands in for the weights and its counts are summed."""

from __future__ import annotations

import json

from culturelab.planning import ENV, CountingModel, calibrate, summarize
from culturelab.runner import Run


def test_run_model_counts_requests_without_weights_under_plan(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path))
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    run = Run("paper/01_x", {"model": "hf:Qwen/Qwen2.5-7B-Instruct", "seed": 0})
    lm = run.model()
    assert isinstance(lm, CountingModel)
    lm.loglikelihood([("abcd" * 3, "efgh"), ("abcd" * 3, "ijkl")])
    lm.generate(["12345678"], max_new_tokens=7)
    lm.rank_candidates(["a [Y] b"], ["x", "y", "z"])
    rows = [json.loads(x) for x in (tmp_path / "paper__01_x.jsonl").read_text().splitlines()]
    kinds = [r["kind"] for r in rows]
    assert kinds.count("loglikelihood") == 2 and kinds.count("generate") == 1 and kinds.count("rank_candidates") == 3
    table = summarize({"paper/01_x": rows}, calibrate("hf:Qwen/Qwen2.5-7B-Instruct"), "chars/4 estimate")
    total = table.set_index("notebook").loc["TOTAL"]
    assert total["generation"] == 1 and total["ranking pairs"] == 3 and total["generated_tokens"] == 7
    assert total["prompt_tokens"] == 2 * 4 + 2 + 3 * 1  # chars/4: 16-char pairs, 8-char prompt, 5-char fills
    assert total["est_seconds"] == "uncalibrated: no local weights"
