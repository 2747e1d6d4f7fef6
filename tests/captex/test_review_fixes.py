"""The CAPTEx review's findings (labels the check could not see, reasoning budgets, L_max on cell
means, the radar's CB-MCQ chance, clustered PB-MCQ intervals, Fig. 8's same-size models): each
test fails on the code before the fix."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from culturelab import config
from culturelab.captex import aggregate, construction, figures, protocol, questions, setup
from culturelab.captex import data as cx
from culturelab.captex import evaluate as ev
from culturelab.protocol import DataUsed, compare
from culturelab.runner import Run, plan

QWEN = "hf:Qwen/Qwen2.5-7B-Instruct"


def _paper_plan(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("CULTURELAB_DATA", "/nonexistent")
    return plan(config.project_root() / "papermill_params" / "paper.yaml", ["captex/*"])


def test_check_and_the_paper_refusal_name_the_encoders_and_our_cb_mcq_options(monkeypatch):
    refusals = _paper_plan(monkeypatch).refusals()
    text = {name: "\n".join(lines) for name, lines in refusals.items()}
    assert "CB-MCQ options built by us" in text["captex/03_mcq"]
    assert "BERTScore on bundled:minilm" in text["captex/04_cbqa"] and "SS as cosine of bundled:minilm" in text[
        "captex/04_cbqa"]
    for needle in ("CB-MCQ options built by us", "BERTScore on", "SS as cosine of"):
        assert needle in text["captex/05_aggregate"], needle
    assert "CB-MCQ" not in text["captex/02_reordering"] and "BERTScore" not in text["captex/02_reordering"]


def test_locate_reads_whether_the_file_has_cb_mcq_options(release, tmp_path):
    assert protocol.locate("03_mcq", {"data_dir": str(release), "data_source": "local"}).settings[
        "cb_mcq_options"] == "generated"
    with_options = tmp_path / "captex"
    shutil.copytree(release, with_options)
    frame = pd.read_csv(with_options / "Conversations.csv", dtype=str, keep_default_na=False)
    frame.assign(Choices="A. x\nB. y\nC. z\nD. w", Answer="A").to_csv(with_options / "Conversations.csv", index=False)
    used = protocol.locate("03_mcq", {"data_dir": str(with_options), "data_source": "local"})
    assert used.settings["cb_mcq_options"] == "file"
    assert compare(protocol.PROTOCOL["03_mcq.cb_mcq"], {**protocol.BUDGETS}, used).protocol == "same"


def test_each_cb_qa_metric_carries_its_own_encoder_only():
    params = {**protocol.BUDGETS, "bertscore_backbone": "roberta-large", "bertscore_rescale": False,
              "ss_encoder": "st:all-mpnet-base-v2", "rouge_stemmer": True}
    released = DataUsed("released", {"procedures": 700, "mcqs": 5600, "conversations": 700})

    def of(part):
        return compare(protocol.PROTOCOL[part], params, released, model=QWEN, paper_models=protocol.MODELS)

    assert of("04_cbqa.rouge_l").comparable
    assert "BERTScore on roberta-large" in of("04_cbqa.bertscore").protocol and "SS" not in of("04_cbqa.bertscore").protocol
    assert of("04_cbqa.ss").protocol.startswith("SS as cosine of st:all-mpnet-base-v2")
    assert not of("04_cbqa").comparable


def test_a_run_labels_cb_mcq_numbers_with_our_options_and_the_footnote4_score_without(tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    run = Run("captex/05_aggregate", {"model": "bundled:gemma3-270m", "bertscore_backbone": "bundled:minilm",
                                      "ss_encoder": "bundled:minilm", "lmax_mode": "table4"}, name="t")
    data = setup.load_data(data_source="sample", max_procedures=7)
    run.set_data_source("sample", note="", settings={**protocol.READINGS, **protocol.cb_mcq_options(data.conversations)})
    assert "CB-MCQ options built by us" in run.deviations().protocol  # footnote 6: CB-MCQ, BS, SS averaged in
    assert "CB-MCQ options built by us" in run.deviations(model=QWEN).columns()["protocol"]  # beside_fig8's rows
    four = run.deviations("footnote4").protocol
    assert "CB-MCQ" not in four and "BERTScore" not in four and "SS as" not in four
    assert run.deviations("pb_mcq").protocol == "same"


def test_the_cb_qa_reference_marker_is_a_declared_reading():
    setting = protocol.PROTOCOL["04_cbqa"].settings["reference_marker"]
    assert "our reading" in setting.cite and setting.follows(protocol.READINGS["reference_marker"])
    assert "Next step" not in " ".join(cx.load(data_source="sample").conversations["reference"])
    assert "reference_marker" in protocol.locate("04_cbqa", {"data_source": "sample"}).settings


class _Budgets:
    """A model that records the token budget of each generation."""

    def __init__(self, spec: str):
        self.spec, self.budgets = spec, []

    def generate(self, prompts, max_new_tokens: int = 0, **_):
        self.budgets.append(max_new_tokens)
        return ["A"] * len(prompts)


@pytest.mark.parametrize("spec, extra", [("hf:deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", 2048),
                                         ("openai:o3-mini", 2048), (QWEN, 0)])
def test_reasoning_models_get_room_for_their_reasoning(spec, extra):
    data = setup.load_data(data_source="sample", max_procedures=1)
    s = ev.Settings(methods=("generate",), answer_tokens=protocol.BUDGETS["max_answer_tokens"])
    model = _Budgets(spec)
    ev.run_cb_mcq(model, data, s)
    assert model.budgets and set(model.budgets) == {protocol.BUDGETS["max_answer_tokens"] + extra}
    assert protocol.REASONING_TOKENS == 2048  # the spec's proposal (§4), cited in the budgets' settings
    assert "reasoning models get 2048 more" in protocol.PROTOCOL["03_mcq"].settings["max_answer_tokens"].cite


def test_table4_lmax_scores_a_cells_mean_ld_not_clipped_procedures():
    procs = pd.DataFrame({"country": ["Iran"] * 2, "category": ["Food and Cuisine"] * 2, "lang_group": ["English"] * 2,
                          "rho": [0.0, 0.0], "tau": [0.0, 0.0], "ld": [0.0, 9.0], "ld_norm": [0.0, 0.9],
                          "pb_mcq": [0.0, 0.0], "cb_mcq": [0.0, 0.0], "rouge_l": [0.0, 0.0], "bertscore": [0.0, 0.0],
                          "ss": [0.0, 0.0]})
    mean_ld_term = 1 - 4.5 / 5.59  # footnote 4: 1 − L/L_max on the cell's mean LD, as Table 4's LD is a mean
    cell3 = aggregate.fig3_cells(procs, lmax_mode="table4")
    assert cell3["score"].item() == pytest.approx(0.2 * mean_ld_term)
    cell4 = aggregate.fig4_cells(procs, lmax_mode="table4")
    assert cell4["score"].item() == pytest.approx(0.1 * mean_ld_term)
    parts = aggregate.category_components(procs, lmax_mode="table4").set_index("component")["score"]
    assert parts["reordering"] == pytest.approx(mean_ld_term / 3)
    # per_instance keeps its per-row clipping (LD/n is a per-instance normalisation)
    assert aggregate.fig3_cells(procs.assign(ld_norm=[0.0, 1.5]), lmax_mode="per_instance")["score"].item() == \
        pytest.approx(0.2 * 0.5)
    # the chance ring is the same quantity: 1 − (mean LD of random orders of 10 steps, about 8.3)/5.59 is below zero,
    # so the ring sits below PB-MCQ's 0.4 · 1/4 (a clipped term would leave it at exactly 0.1)
    chance = aggregate.fig3_chance([10, 10], lmax_mode="table4")
    assert chance < 0.4 * 0.25 - 0.05


def test_the_task_radar_draws_the_cb_mcq_elimination_chance():
    data = setup.load_data(data_source="sample", max_procedures=7)
    elimination = construction.elimination_chance(data.conversations)
    rings = aggregate.component_chance([5, 6], cb_mcq_chance=elimination)
    assert rings["cb_mcq"] == pytest.approx(elimination) and rings["pb_mcq"] == 0.25
    source = (config.notebooks_dir() / "captex" / "05_aggregate.ipynb").read_text(encoding="utf-8")
    assert "cb_mcq_chance=construction.elimination_chance(data.conversations)" in source


def test_pb_mcq_intervals_are_clustered_by_procedure():
    # 8 procedures × 8 questions, each procedure all right or all wrong: 8 independent answers, not 64
    t = pd.DataFrame({"method": "generate", "procedure_id": np.repeat(list("abcdefgh"), 8),
                      "correct": np.repeat([1, 0, 1, 0, 1, 0, 1, 0], 8), "valid": True})
    row = questions.accuracy_by(t, ["method"]).iloc[0]
    from culturelab.stats import proportion_ci

    assert (row["ci_low"], row["ci_high"]) == pytest.approx(proportion_ci(4, 8))
    assert row["n"] == 64 and row["n_clusters"] == 8


def test_fig8_joins_models_of_one_size_through_their_mean():
    t = pd.DataFrame({"family": ["Mistral"] * 3, "variant": ["instruct"] * 3, "params_b": [7.2, 7.2, 12.2],
                      "score": [0.40, 0.36, 0.41]})
    ax = figures.fig8_size(t, lmax_mode="table4").axes[0]
    line = next(li for li in ax.lines if li.get_label() == "Mistral")
    assert list(line.get_xdata()) == [7.2, 12.2] and line.get_ydata()[0] == pytest.approx(0.38)
    points = next(li for li in ax.lines if li.get_label().startswith("_"))
    assert len(points.get_xdata()) == 3


def test_the_reported_fig8_is_titled_as_our_reading_and_its_lmax_is_declared():
    section = protocol.PROTOCOL["05_aggregate.reported"]
    assert "lmax_mode" in section.settings and "our reading" in section.settings["lmax_mode"].cite
    source = (config.notebooks_dir() / "captex" / "05_aggregate.ipynb").read_text(encoding="utf-8")
    assert "Our footnote-6 reading of Table 4" in source and "Fig. 8 from Table 4 (paper's numbers)" not in source
    assert "cbqa_metrics" not in source  # every label from the run's own comparison (the encoders are parameters)
