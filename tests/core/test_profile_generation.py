"""Profile adapters of the generation benchmarks (FmLAMA fill-in, CulturalRecipes adaptation) on
results written by the notebooks' own code, with an OpenAI-compatible loopback server as the model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab import config
from culturelab.profile import adapters, analysis

from .fake_openai import FakeOpenAI


@pytest.fixture()
def server():
    with FakeOpenAI(answer="The food has the ingredients of rice, egg and soy sauce.") as fake:
        yield fake


def _spec(server: FakeOpenAI) -> str:
    return f"openai-compatible:{server.base_url}#fake-model"


def test_fmlama_decoder_rows_from_the_notebooks_code(notebook_run, server):
    from culturelab.fmlama import data as F
    from culturelab.fmlama import generations, probing

    spec = _spec(server)
    run = notebook_run("fmlama/04_decoder_llms", spec)
    sampled = probing.limit(F.Release("sample").code_switching(), 1, 4, seed=0)
    rows = []
    for setting in ("EN_en", "ZH_zh"):
        scored, _ = generations.model_answers(run.model(), F.setting_view(sampled, setting), setting,
                                              max_new_tokens=8)
        rows.append(scored)
    run.save_results(pd.concat(rows, ignore_index=True), "model_per_dish")
    written = pd.read_csv(adapters.results_file(config.runs_dir() / run.name, "fmlama/04_decoder_llms"))
    assert {"dish", "lang", "origin", "context", "prompt", "predicted", "valid", "correct"} <= set(written.columns)

    tidy = adapters.collect(config.runs_dir() / run.name, spec)
    assert len(tidy) == 2 * len(sampled) and set(tidy["benchmark"]) == {"fmlama"}
    assert set(tidy["task"]) == {"fill-in any-match"} and tidy["binary"].all() and tidy["chance"].isna().all()
    assert tidy["score"].tolist() == written["correct"].astype(float).tolist()
    assert tidy["score"].sum() > 0  # "rice" or "egg" is gold for some dish
    assert tidy["language"].tolist() == ["en"] * len(sampled) + ["zh"] * len(sampled)
    assert tidy["instance"].str.endswith("/EN_en").sum() == len(sampled) and tidy["instance"].is_unique
    assert tidy["culture"].tolist() == written["group"].tolist()
    assert tidy["valid"].tolist() == written["valid"].tolist()
    # the same dish in both languages pairs for the English vs native gap
    gaps = analysis.language_gaps(tidy)
    assert set(gaps["native"]) == {"zh"} and gaps["n"].sum() == len(sampled)


def test_cultural_recipes_adapter_keeps_the_models_outputs(notebook_run, server):
    from culturelab.cultural_recipes import adaptation, evaluation, setup

    spec = _spec(server)
    run = notebook_run("cultural_recipes/02_adaptation", spec)
    run.params.update({"data_source": "sample", "data_dir": "", "directions": ["zh2en", "en2zh"], "split": "gold",
                       "figure4_split": "silver", "max_recipes": 2})
    data, silver, _ = setup.open(run)
    outputs = adaptation.all_systems(run, data, silver, max_new_tokens=8)
    seg = evaluation.score_segments(outputs, bertscore={"en": None, "zh": None})
    run.save_results(evaluation.per_output(outputs, seg), "per_output")

    tidy = adapters.collect(config.runs_dir() / run.name, spec)
    mine = ~outputs["system"].isin(adaptation.MODEL_FREE)
    assert mine.sum() == 4  # 2 recipes × 2 directions
    # BERTScore was not computed (no backbone): three metric tasks
    assert sorted(tidy["task"].unique()) == ["adaptation BLEU", "adaptation ROUGE-L", "adaptation chrF"]
    chrf = tidy[tidy["task"] == "adaptation chrF"]
    assert np.allclose(chrf["score"], seg.loc[mine, "ChrF"] / 100)
    assert chrf["language"].tolist() == outputs.loc[mine, "direction"].tolist()
    assert chrf["culture"].tolist() == ["en", "en", "zh", "zh"]
    assert chrf["valid"].tolist() == outputs.loc[mine, "valid"].tolist()
    assert not tidy["binary"].any() and tidy["chance"].isna().all()
    assert set(tidy["data_source"]) == {"sample"}


def test_cultural_recipes_adapter_without_model_outputs_gives_no_rows():
    frame = pd.DataFrame({"recipe_id": ["r1"], "direction": ["zh2en"], "system": ["Retrieval"], "valid": [True],
                          "ChrF": [20.0]})
    assert adapters.adapt("cultural_recipes/02_adaptation", frame, "masked:x").empty


def test_decoder_adapter_names_its_file_and_missing_column():
    with pytest.raises(KeyError, match=r"fmlama/04_decoder_llms: model_per_dish.csv lacks columns \['qid'\]"):
        adapters.adapt("fmlama/04_decoder_llms", pd.DataFrame({"setting": ["EN_en"], "lang": ["en"],
                                                               "correct": [True], "valid": [True]}), "m")
