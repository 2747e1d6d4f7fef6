"""Every backend through every Turkish PLU notebook: a language-model section runs when the model
can answer what it asks and is skipped (one line, recorded in run_info.json) when it cannot; what
runs is exercised on the package functions the notebooks call, with tiny models, the loopback
OpenAI-compatible server and a replay file (not by re-running every notebook per backend)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from culturelab.models import load_model
from culturelab.runner import Run
from culturelab.turkish_plu import mc, setup
from culturelab.turkish_plu import reordering as ro

from ..core.fake_openai import FakeOpenAI
from .test_mc import frame

NOTEBOOKS = ("02_mc_tasks", "03_step_ordering", "05_summarization", "06_distractors")


def steps() -> pd.DataFrame:
    corpus = pd.DataFrame({"tutorial": ["Çay Nasıl Demlenir?"], "method": ["m"], "category": ["H&G"],
                           "steps": [["Suyu kaynat.", "Demliğe çay koy.", "Suyu dök.", "Demlenmesini bekle.",
                                      "Bardağa koy."]], "n_steps": [5], "is_ordered": [1]})
    return ro.build_reorder_instances(corpus)


@pytest.fixture()
def replay_file(tmp_path):
    path = tmp_path / "answers.jsonl"  # released generations: prompts and responses, no log-probabilities
    prompt = ro.render_prompts(steps())[0]
    path.write_text(json.dumps({"prompt": prompt, "response": "A, B, C, D, E"}, ensure_ascii=False) + "\n")
    return path


def test_each_section_runs_or_is_skipped_by_what_the_backend_can_do(tmp_path, monkeypatch, tiny_causal_dir,
                                                                     tiny_masked_dir, replay_file):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    everything = dict.fromkeys(NOTEBOOKS, True)
    scoring_only = {"02_mc_tasks": True, "03_step_ordering": False, "05_summarization": False, "06_distractors": True}
    generation_only = {nb: not ok for nb, ok in scoring_only.items()}
    expected = {f"hf:{tiny_causal_dir}": everything, f"masked:{tiny_masked_dir}": scoring_only,
                "openai-compatible:http://127.0.0.1:9/v1#m": everything, "openai:gpt-4o": generation_only,
                f"replay:{replay_file}": generation_only}
    for spec, sections in expected.items():
        for nb, runs in sections.items():
            run = Run(f"turkish_plu/{nb}", {"model": spec, "seed": 0, "run_llm": True}, name="t")
            assert setup.lm_section(run) is runs, (spec, nb)
            skipped = run.info.get("skipped", [])
            assert [s["section"] for s in skipped] == ([] if runs else [setup.LM_SECTIONS[nb][1]])
    off = Run("turkish_plu/03_step_ordering", {"model": "masked:x", "seed": 0, "run_llm": False}, name="t")
    assert setup.lm_section(off) is False and "skipped" not in off.info  # switched off: nothing to say


def test_masked_lm_scores_the_multiple_choice_items(tiny_masked_dir, tmp_cache):
    lm = load_model(f"masked:{tiny_masked_dir}", device="cpu", progress=False)
    out = mc.llm_predictions(lm, frame(), normalise=["mean"])
    assert len(out) == 4 and out["valid"].all()
    assert all(len(s) == n and np.isfinite(s).all() for s, n in zip(out["scores"], out["n_options"]))


def test_openai_compatible_server_scores_and_generates(tmp_cache):
    with FakeOpenAI(answer="B, A, C, D, E") as server:
        lm = load_model(f"openai-compatible:{server.base_url}#fake", progress=False)
        scored = mc.llm_predictions(lm, frame(), normalise=["sum"])
        assert len(scored) == 4 and all(np.isfinite(s).all() for s in scored["scores"])
        reordered = ro.run_reordering(lm, steps())
    assert reordered["valid"].all() and reordered["raw_output"].tolist() == ["B, A, C, D, E"]
    assert sorted(reordered["pred_order"].iloc[0]) == [0, 1, 2, 3, 4]


def test_replayed_answers_are_scored_without_a_model(replay_file, tmp_cache):
    lm = load_model(f"replay:{replay_file}")
    scored = ro.run_reordering(lm, steps())
    assert scored["raw_output"].tolist() == ["A, B, C, D, E"] and scored["valid"].all()
    assert scored["exact"].iloc[0] == (steps()["gold"].iloc[0] == "A, B, C, D, E")
