"""Every backend through the PERCUL sections, at the level of the package functions the notebooks
call: what a backend can answer runs, what it cannot is skipped with one recorded line, and the
tables and figures after it still build (from what exists)."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from culturelab.percul import distractors, figures, paper, pipeline, robustness, translation
from culturelab.percul.data import load
from culturelab.percul.protocol import label, results_of
from culturelab.percul.scoring import per_category, summary

from ..core.fake_openai import FakeOpenAI

ANSWER = '{"Explanation": "…", "Choice Number": 2}'


@pytest.fixture()
def make_run(notebook_run):
    return lambda spec: notebook_run("percul/01_benchmark", spec)


@pytest.fixture(scope="module")
def items():
    return pipeline.stories(load(data_source="sample"), max_instances=4)


def downstream(run, results, items) -> None:
    """The notebooks' steps after the model, on whatever the backend produced."""
    run.set_data_source("sample")
    overview = label(run, summary(results, ["model", "method"]))
    board = paper.leaderboard(overview, results_of(run))
    assert (board["type"] == "ours").sum() == len(overview) and (board["type"] != "ours").sum() == 25
    assert not board.loc[board["type"] == "ours", "comparable"].any()
    cats = per_category(results, ["model"])
    figures.fig5_heatmap(paper.fig5_matrix(), cats)
    figures.fig16_beside_paper(paper.fig16_matrix(), distractors.distractor_picks(results), items)
    if len(results):  # both splits, as notebook 3 has them
        both = pd.concat([results, results.assign(split=translation.ENGLISH)], ignore_index=True)
        figures.fig7_translation(translation.split_gap(summary(both, ["model", "split"])))
    plt.close("all")


def skipped(run) -> list[str]:
    return [s["kind"] for s in run.info.get("skipped", [])]


def test_a_causal_lm_answers_both_ways(make_run, items, tiny_causal_dir):
    run = make_run(f"hf:{tiny_causal_dir}")
    results = pipeline.run_models(run, items, [run.params["model"]], max_new_tokens=4)
    assert set(results["method"]) == {"generate", "loglik-text-mean"} and skipped(run) == []
    downstream(run, results, items)


def test_a_masked_lm_skips_generation_and_still_scores_options(make_run, items, tiny_masked_dir):
    run = make_run(f"masked:{tiny_masked_dir}")
    results = pipeline.run_models(run, items, [run.params["model"]], max_new_tokens=4)
    assert set(results["method"]) == {"loglik-text-mean"} and len(results) == len(items)
    assert skipped(run) == ["generate"]
    info = json.loads((run.out_dir / "run_info.json").read_text())
    assert info["skipped"][0]["section"] == pipeline.SECTIONS["generate"]
    downstream(run, results, items)
    assert len(robustness.permutation_summary(results.assign(perm_id=0, order=[[0, 1, 2, 3]] * len(results))))


def test_an_openai_compatible_server_answers_both_ways(make_run, items):
    with FakeOpenAI(answer=ANSWER) as server:
        run = make_run(f"openai-compatible:{server.base_url}#fake")
        results = pipeline.run_models(run, items, [run.params["model"]], max_new_tokens=8)
    gen = results[results["method"] == "generate"]
    assert len(gen) == len(items) and (gen["pred"] == 1).all() and gen["valid"].all()
    assert set(results["method"]) == {"generate", "loglik-text-mean"} and skipped(run) == []
    downstream(run, results, items)


def test_the_openai_api_skips_log_likelihoods_without_loading_anything(make_run, items):
    run = make_run("openai:gpt-4o")
    results = pipeline.run_models(run, items, ["openai:gpt-4o"], ["loglikelihood"])
    assert results.empty and "method" in results and skipped(run) == ["loglikelihood"] and run._models == {}
    downstream(run, results, items)
    assert summary(results, ["model", "method"]).empty


def test_a_replay_file_of_generations_is_rescored(make_run, items, tmp_path):
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps({"prompt": p, "response": ANSWER}, ensure_ascii=False) + "\n"
                              for p in items["prompt"]), encoding="utf-8")
    run = make_run(f"replay:{replay}")
    results = pipeline.run_models(run, items, [run.params["model"]])
    assert set(results["method"]) == {"generate"} and (results["pred"] == 1).all()
    assert skipped(run) == ["loglikelihood"]
    downstream(run, results, items)


def test_unknown_methods_are_refused(make_run, items):
    with pytest.raises(ValueError, match="methods"):
        pipeline.run_models(make_run("openai:gpt-4o"), items, ["openai:gpt-4o"], ["guess"])
