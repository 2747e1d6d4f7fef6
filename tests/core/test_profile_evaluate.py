"""`culturelab evaluate` end to end: two models, one cheap benchmark, smoke size."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from culturelab.cli import main


@pytest.mark.notebooks
def test_evaluate_two_models_on_percul(tmp_path, monkeypatch, tmp_cache, tiny_causal_dir):
    """Two tiny causal LMs (different weights): the bundled ones took 43 s here for the same path
    (the smoke notebooks run the bundled Gemma through every notebook)."""
    from culturelab.models.tiny import build_tiny_gpt2
    from tests.conftest import CORPUS

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "figures"))
    other = build_tiny_gpt2(CORPUS, tmp_path / "tiny-b", seed=1)
    models = sorted([f"hf:{tiny_causal_dir}", f"hf:{other}"])
    argv = ["evaluate", "--benchmarks", "percul", "--size", "smoke"]
    assert main([*argv, *(a for m in models for a in ("--model", m))]) == 0
    out = tmp_path / "runs" / "profile-smoke"
    tidy = pd.read_csv(out / "results.csv")
    assert sorted(tidy["model"].unique()) == models and set(tidy["benchmark"]) == {"percul"}
    # the same stories for both models, so every instance is paired
    per_model = tidy.groupby("model")["instance"].apply(set)
    assert per_model.iloc[0] == per_model.iloc[1]
    tests = pd.read_csv(out / "profile" / "paired_tests.csv")
    assert len(tests) == 1 and tests["test"].iloc[0] == "McNemar (exact)"
    assert 0 <= tests["p_holm"].iloc[0] <= 1
    assert "<html" in (out / "profile.html").read_text(encoding="utf-8")[:2000].lower()
    # the score figure's data is saved under the run (never figures/); at smoke size (a few stories per model)
    # it is refused as a result, and the run says so
    assert (out / "profile" / "figures" / "scores.csv").is_file()
    assert not (tmp_path / "figures").exists()
    drawn = (out / "figures" / "profile" / "scores.png").is_file()
    refused = json.loads((out / "profile" / "run_info.json").read_text())["refused_figures"]
    assert not drawn and "fewer than 10 items" in refused["scores"][0]


def test_evaluate_rejects_an_unknown_benchmark(capsys):
    assert main(["evaluate", "--model", "bundled:gemma3-270m", "--benchmarks", "nope"]) == 2
    assert "unknown ['nope']" in capsys.readouterr().err


def test_each_backend_runs_the_tasks_that_fit_it(tmp_path, monkeypatch):
    from culturelab.profile.evaluate import fit, notebooks_for, params_file

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    every = notebooks_for([])
    kept, skipped = fit("masked:/models/bert", every)
    assert sorted(skipped) == ["captex/02_reordering", "cultural_recipes/02_adaptation", "fmlama/04_decoder_llms"]
    assert set(skipped.values()) == {"a masked LM does not generate text"}
    assert kept["captex/03_mcq"] == {"methods": ["loglikelihood"]} and "fmlama/02_probing" in kept
    kept, skipped = fit("openai:gpt-4o", every)  # no log-probabilities of given text
    assert sorted(skipped) == ["fmlama/02_probing", "turkish_plu/02_mc_tasks"]
    assert kept["captex/03_mcq"] == {"methods": ["generate"]}
    assert kept["percul/02_models_and_categories"] == {"method": "generate"}
    kept, skipped = fit("openai-compatible:http://127.0.0.1:1/v1#m", every)
    assert not skipped and set(kept) == set(every) and not any(kept.values())
    # the narrowed values reach the parameter file, on top of profile.yaml
    kept, _ = fit("openai:gpt-4o", ["percul/02_models_and_categories"])
    path = params_file("smoke", "openai:gpt-4o", list(kept), tmp_path / "p", kept)
    job = yaml.safe_load(path.read_text(encoding="utf-8"))["notebooks"]["percul/02_models_and_categories"]
    assert job["method"] == "generate" and job["max_instances"] == 4


@pytest.mark.notebooks
def test_evaluate_a_masked_model_runs_probing_and_skips_generation(tmp_path, monkeypatch, tmp_cache,
                                                                   tiny_masked_dir):
    from culturelab.profile.evaluate import run_models

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "figures"))
    spec = f"masked:{tiny_masked_dir}"
    tidy, summary = run_models([spec], ["fmlama"], "smoke")
    status = dict(zip(summary["notebook"], summary["status"]))
    assert status == {"fmlama/04_decoder_llms": "skipped: a masked LM does not generate text",
                      "fmlama/02_probing": "ok"}
    assert set(tidy["model"]) == {spec} and set(tidy["task"]) == {"probing P@1 (template 1)"}
    assert len(tidy) > 0 and tidy["chance"].between(0, 1).all()


def test_evaluate_says_when_nothing_fits(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    assert main(["evaluate", "--model", "masked:/models/bert", "--benchmarks", "cultural_recipes"]) == 1
    assert "no per-instance results to profile" in capsys.readouterr().err
    summary = pd.read_csv(tmp_path / "profile-smoke" / "summary.csv")
    assert summary["status"].tolist() == ["skipped: a masked LM does not generate text"]


def test_evaluate_passes_jobs_to_the_runner(tmp_path, monkeypatch):
    """`culturelab evaluate --jobs 2` runs each model's notebooks two at a time."""
    import pandas as pd

    from culturelab import runner
    from culturelab.cli import main

    seen = []

    def fake_execute(run_plan, *, jobs=1, **_):
        seen.append(jobs)
        return pd.DataFrame({"notebook": [n for n, _ in run_plan.jobs], "status": "failed: not run",
                             "seconds": 0.0, "output": ""})

    monkeypatch.setattr(runner, "execute", fake_execute)
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    assert main(["evaluate", "--model", "bundled:gemma3-270m", "--benchmarks", "percul", "--jobs", "2"]) == 1
    assert seen == [2]
