"""Every backend through notebook 02's sections (at the level of the package functions it calls):
a masked LM skips the model's adaptations with one recorded line, replayed generations are
re-scored, an OpenAI-compatible server answers; the metrics, comparisons, Figure 4 and the case
study are computed from whatever systems there are, and a Δ to the paper only where comparable."""

from __future__ import annotations

import json

import numpy as np
import pytest

from culturelab.cultural_recipes import adaptation, concepts, evaluation, protocol
from culturelab.cultural_recipes.data import DIRECTIONS, load_split
from culturelab.reported import load as load_reported

from ..core.fake_openai import FakeOpenAI

NO_BERTSCORE = {"en": None, "zh": None}


@pytest.fixture()
def make_run(notebook_run):
    return lambda spec: notebook_run("cultural_recipes/02_adaptation", spec)


@pytest.fixture(scope="module")
def splits():
    data = {d: load_split(d, "gold", data_source="sample").head(2) for d in DIRECTIONS}
    silver = {d: load_split(d, "silver", data_source="sample") for d in DIRECTIONS}
    return data, silver


def downstream(run, outputs, *, data_source: str = "sample"):
    run.set_data_source(data_source)
    scores = evaluation.score_outputs(outputs, compat=[None, "coastalcph-2023"], bertscore=NO_BERTSCORE,
                                      n_bootstrap=50)
    side = evaluation.compare_with_paper(scores, load_reported("cultural_recipes", "table4"),
                                         protocol.labeller(run, split="gold"))
    assert "Retrieval" in set(side["method"]) and side["ours"].notna().all()
    assert set(concepts.literal_rates(outputs)["system"]) == set(outputs["system"])
    assert {"MT-zs", "MT-ft", "GPT-4"} <= set(adaptation.case_study(outputs)["system"])
    return scores, side


def test_a_masked_lm_skips_the_models_adaptations(make_run, splits, tiny_masked_dir):
    run = make_run(f"masked:{tiny_masked_dir}")
    outputs = adaptation.all_systems(run, *splits)
    assert set(outputs["system"]) == {"Retrieval", "Source copy", "Ref = human adaptation"} and run._models == {}
    assert [s["kind"] for s in run.info["skipped"]] == ["generate"]
    _, side = downstream(run, outputs)
    assert side["delta"].isna().all()


def test_a_causal_lm_adapts_with_the_papers_prompt(make_run, splits, tiny_causal_dir):
    run = make_run(f"hf:{tiny_causal_dir}")
    outputs = adaptation.all_systems(run, *splits, max_new_tokens=4)
    mine = outputs[outputs["system"].str.endswith("(llm prompt)")]
    assert len(mine) == 4 and mine["prompt"].str.startswith("Convert the provided").all()
    downstream(run, outputs)


def test_an_openai_compatible_server_answers(make_run, splits):
    answer = "Title: Red Bean Soup, Ingredients: 1 cup adzuki beans, Steps: Soak the beans. Simmer."
    with FakeOpenAI(answer=answer) as server:
        run = make_run(f"openai-compatible:{server.base_url}#fake")
        outputs = adaptation.all_systems(run, *splits, temperature=0.7)
    mine = outputs[outputs["system"].str.startswith("openai-compatible")]
    chat = [r for r in server.requests if "messages" in r]  # after the one probe for prompt log-probabilities
    assert (mine["prediction"] == answer).all() and chat[0]["temperature"] == 0.7
    assert mine.set_index("direction")["valid"].to_dict() == {"zh2en": True, "en2zh": False}  # English answer
    downstream(run, outputs)


def test_replayed_generations_are_rescored_beside_the_paper_system_they_stand_for(make_run, splits, tmp_path):
    data, _ = splits
    lines = [{"prompt": p, "response": f"Title: Soup {i}, Ingredients: beans water, Steps: Boil the beans."}
             for d, matched in data.items() for i, p in enumerate(adaptation.build_prompts(matched, d))]
    replay = tmp_path / "gpt4.jsonl"
    replay.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    run = make_run(f"replay:{replay}")
    run.params["paper_method"] = "GPT-4"  # the replayed outputs stand for the paper's GPT-4
    outputs = adaptation.all_systems(run, *splits, system="GPT-4")
    assert (outputs.loc[outputs["system"] == "GPT-4", "prediction"].str.startswith("Title: Soup")).all()
    _, side = downstream(run, outputs, data_source="released")
    gpt = side[side["method"] == "GPT-4"].set_index(["direction", "metric", "compat"])
    # #Tok is computed as the paper does: a Δ on the same data; chrF only where computed as the paper states
    assert gpt.loc[("zh2en", "#Tok", "corrected"), "delta"] == pytest.approx(
        gpt.loc[("zh2en", "#Tok", "corrected"), "ours"] - 216.6)
    chrf = gpt.loc[("zh2en", "ChrF", "corrected")]  # computed as the paper states, but the paper's cell is unsure
    assert chrf["protocol"] == "same" and chrf["status"] == "uncertain cell (scrambled-likely)"
    assert not chrf["comparable"] and np.isnan(chrf["delta"])
    assert not gpt.loc[("zh2en", "ChrF", "coastalcph-2023"), "comparable"]
    run.params["paper_method"] = ""  # a replay nobody names is no paper system: beside it, no Δ
    _, side = downstream(run, outputs, data_source="released")
    unnamed = side[side["method"] == "GPT-4"]
    assert unnamed["delta"].isna().all() and unnamed["model_status"].str.endswith("beside the paper's GPT-4").all()
