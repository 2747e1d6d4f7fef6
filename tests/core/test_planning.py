"""``culturelab plan``: a counting model stands in for the weights and its counts are summed."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from culturelab import config, planning, plots
from culturelab.models.counting import ENV, SAMPLE, CountingModel, count_tokens
from culturelab.models.size import parameter_count
from culturelab.planning import calibrate, model_rates, summarize
from culturelab.runner import Run


def _rows(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_run_model_counts_requests_without_weights_under_plan(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path))
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    run = Run("paper/01_x", {"model": "hf:Qwen/Qwen2.5-7B-Instruct", "seed": 0})
    lm = run.model()
    assert isinstance(lm, CountingModel) and lm.spec == "hf:Qwen/Qwen2.5-7B-Instruct"
    lm.loglikelihood([("abcd" * 3, "efgh"), ("abcd" * 3, "ijkl")])
    lm.generate(["12345678"], max_new_tokens=7)
    assert lm.rank_candidates(["a [Y] b"], ["x", "y", "z"]).shape == (1, 3)
    rows = _rows(tmp_path / "paper__01_x.jsonl")
    assert [(r["kind"], r["requests"]) for r in rows] == [("loglikelihood", 2), ("generate", 1),
                                                          ("rank_candidates", 3)]
    table = summarize({"paper/01_x": rows}, calibrate("hf:Qwen/Qwen2.5-7B-Instruct"), "chars/4 estimate")
    total = table.set_index("notebook").loc["TOTAL"]
    assert total["log-likelihood"] == 2 and total["generation"] == 1 and total["ranking pairs"] == 3
    assert total["generated_tokens"] == 7
    # chars/4: two 16-char pairs, an 8-char prompt; ranking: "a  b" (1) x 3 candidates + 3 one-char candidates
    assert total["prompt_tokens"] == 2 * 4 + 2 + (3 * 1 + 3 * 1)
    assert total["est_seconds"] == "uncalibrated: no local weights"


def test_a_figure_under_plan_is_neither_laid_out_nor_written(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "figures"))
    run = Run("paper/01_x", {"model": "hf:none", "seed": 0})
    fig = plots.grouped_bars(pd.DataFrame({"x": ["a", "b"], "h": "s", "y": [1, 2]}), "x", "y", "h")
    monkeypatch.setenv(ENV, str(tmp_path / "counts"))
    assert run.savefig(fig, "counted") == [] and not (tmp_path / "figures").exists()
    assert run.info["figures"] == [] and not list((tmp_path / "runs").rglob("counted*"))
    monkeypatch.delenv(ENV)
    assert [p.suffix for p in run.savefig(fig, "real", kind="data")] == [".pdf", ".png"]
    plt.close(fig)


def test_large_calls_are_counted_exactly_and_tokenized_on_a_sample():
    lm = CountingModel("hf:none", tokenizer=None)
    pairs = [(f"{i:08d}" + "x" * 32, "y" * (4 * (i % 3 + 1))) for i in range(30_000)]  # 11, 12 or 13 tokens each
    out = lm.loglikelihood(pairs)
    assert len(out) == 30_000 and out[0].logprob == -1.0
    (row,) = lm.records
    assert row["requests"] == 30_000
    assert abs(row["prompt_tokens"] - 30_000 * 12) < 30_000 * 12 * 0.01
    assert abs(row["scored_tokens"] - 30_000 * 2) < 30_000 * 2 * 0.01
    assert count_tokens(["abcd"] * (SAMPLE * 3)) == SAMPLE * 3


def test_encoders_bertscore_and_finetuning_count_instead_of_computing(tmp_path, monkeypatch):
    from culturelab.metrics.generation import bertscore
    from culturelab.models.encoders import load_encoder
    from culturelab.turkish_plu.finetune import option_inputs, train_and_score

    monkeypatch.setenv(ENV, str(tmp_path))
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    Run("paper/02_y", {"seed": 0})
    vectors = load_encoder("st:/no/such/encoder", cache=False).encode(["rice", "tea", "rice"], role="query")
    assert vectors.shape == (3, 16) and np.allclose(vectors[0], vectors[2])
    assert bertscore(["a cat"], ["the cat"], model="/no/such/backbone").tolist() == [0.0]
    items = pd.DataFrame({"task": ["si"] * 2, "goal": ["Kek"] * 2, "context": ["Kek"] * 2,
                          "options": [["Un ele.", "Su dök."]] * 2, "label": [0, 1]})
    scores, history = train_and_score(items, items.iloc[:1], model="hf:/no/such/model", epochs=3)
    assert scores.shape == (1, 2) and len(history) == 3
    rows = _rows(tmp_path / "paper__02_y.jsonl")
    assert [(r["kind"], r["model"], r["requests"]) for r in rows] == [
        ("embed", "st:/no/such/encoder", 3), ("embed", "/no/such/backbone", 2),
        ("finetune", "hf:/no/such/model", 3 * 2 + 1)]
    item_tokens = count_tokens(["".join(o) for o in option_inputs(items.iloc[:1])[0]])  # chars/4 of the SWAG pair
    assert rows[2]["prompt_tokens"] == 3 * 3 * (2 * item_tokens) + item_tokens  # 3 epochs x 3 passes + test


def test_hub_model_without_weights_is_billed_by_parameter_ratio():
    measured = {"s_per_prompt_token": 0.002, "s_per_generated_token": 0.05}

    def fake(spec, device="auto"):
        return measured if spec == planning.REFERENCE else "uncalibrated: no local weights"

    base = parameter_count(planning.REFERENCE)[0]
    rates, basis = model_rates("hf:meta-llama/Llama-2-7b-hf", measure=fake)
    assert rates["s_per_prompt_token"] == pytest.approx(0.002 * 7e9 / base)
    assert rates["s_per_generated_token"] == pytest.approx(0.05 * 7e9 / base)
    assert basis.startswith("extrapolated") and "model id 'meta-llama/Llama-2-7b-hf'" in basis
    rates, basis = model_rates("hf:org/chat", params=1.3e9, measure=fake)
    assert rates["s_per_prompt_token"] == pytest.approx(0.002 * 1.3e9 / base) and "--params" in basis
    rates, basis = model_rates("bundled:gemma3-270m", measure=fake)
    assert rates == measured and basis.startswith("measured: bundled:gemma3-270m on cpu (load ")


def test_bundled_parameter_count_comes_from_its_config():
    n, source = parameter_count(planning.REFERENCE)
    assert source == "local config" and 2.5e8 < n < 3.0e8  # Gemma-3 270M: 268M with its tied embeddings


def test_summarize_prices_each_model_with_its_own_rates():
    rows = [{"kind": "generate", "model": "m", "requests": 2, "prompt_tokens": 10, "generated_tokens": 4},
            {"kind": "embed", "model": "e", "requests": 5, "prompt_tokens": 100, "generated_tokens": 0},
            {"kind": "embed", "model": "x", "requests": 1, "prompt_tokens": 7, "generated_tokens": 0}]
    rates = {"m": {"s_per_prompt_token": 1.0, "s_per_generated_token": 10.0},
             "e": {"s_per_prompt_token": 0.1, "s_per_generated_token": 0.0}, "x": "uncalibrated: no local weights"}
    table = summarize({"nb": rows}, rates, "tokenizer").set_index("notebook")
    assert table.loc["nb", "est_seconds"] == 10 + 40 + 10.0
    assert table.loc["TOTAL", "embeddings"] == 6 and table.loc["TOTAL", "generation"] == 2
    assert table.attrs["unpriced"] == ["x embeddings: uncalibrated: no local weights"]


def test_notebooks_without_a_model_are_not_executed_even_with_model(tmp_path):
    from culturelab.planning import plan_requests
    from culturelab.runner import plan

    params = config.project_root() / "papermill_params" / "paper.yaml"
    run_plan = plan(params, ["fmlama/01_dataset", "cultural_recipes/01_bli_alignment"])
    table = plan_requests(run_plan, model="hf:meta-llama/Llama-2-7b-hf", work_dir=tmp_path, calibrate_models=False)
    assert table["counting_run"].tolist() == ["no model", "no model", ""]
    assert not (tmp_path / "runs" / "plan" / "fmlama" / "01_dataset.ipynb").exists()


def test_scoring_bills_context_tokens_and_scored_continuation_tokens_at_their_own_rates():
    """A continuation token needs the full-vocabulary output, a context token does not (Turkish PLU's
    long options took ~4x the per-token time of the calibration's contexts): both are counted and
    billed apart; repeats are billed once."""
    m = CountingModel("hf:none", tokenizer=None)
    m.loglikelihood([("abcdefgh" * 4, " abcdefgh"), ("abcdefgh" * 4, " abcdefgh"), ("abcdefgh" * 4, " abcd")])
    assert [(r["requests"], r["prompt_tokens"], r["scored_tokens"]) for r in m.records] == [(2, 10 + 9, 2 + 1)]
    rates = {"s_per_prompt_token": 1.0, "s_per_scored_token": 10.0, "s_per_generated_token": 0.0}
    assert summarize({"nb": m.records}, rates, "chars/4")["est_seconds"].tolist() == [19 + 30.0] * 2
