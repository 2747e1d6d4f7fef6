"""CAPTEx's protocol as data (issue 21): the comparison of a run with the paper labels every
number beside a paper number; paper.yaml follows the paper where the project can; each CAPTEx
defect of the issue has its test here or in test_setup.py (the data a run used, the download)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from culturelab import config, reported
from culturelab.captex import aggregate, construction, figures, protocol, setup
from culturelab.captex import data as cx
from culturelab.protocol import DataUsed, compare
from culturelab.runner import plan

NOTEBOOKS = ["captex/01_dataset", "captex/02_reordering", "captex/03_mcq", "captex/04_cbqa", "captex/05_aggregate"]
RELEASED = DataUsed("released", {"procedures": 700, "mcqs": 5600, "conversations": 700})
QWEN = "hf:Qwen/Qwen2.5-7B-Instruct"


def _lines(params_file: str) -> dict[str, list[str]]:
    run_plan = plan(config.project_root() / "papermill_params" / params_file, ["captex/*"])
    return {name: run_plan.deviations[name].lines() for name, _ in run_plan.jobs}


def test_paper_yaml_follows_the_papers_protocol_and_says_what_data_it_would_read(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("CULTURELAB_DATA", "/nonexistent")
    lines = _lines("paper.yaml")
    assert sorted(lines) == NOTEBOOKS
    for name, found in lines.items():
        assert found[0] == ("data: sample data (ours, not the paper's) — offline (HF_HUB_OFFLINE is set): the public "
                            "release AmirHossein2002/CAPTex cannot be downloaded; `auto` uses our sample"), name
        # the paper is silent on its encoders and gives no CB-MCQ options in its release: those, and only those
        silent = [line.split(" (")[0].split(":")[1].strip()[:20] for line in found if line.startswith("protocol:")]
        assert silent == {"captex/03_mcq": ["CB-MCQ options built"],
                          "captex/04_cbqa": ["BERTScore on bundled", "SS as cosine of bund"],
                          "captex/05_aggregate": ["CB-MCQ options built", "BERTScore on bundled", "SS as cosine of bund"],
                          }.get(name, []), (name, found)
        assert [line for line in found if line.startswith("model:")] == ([] if name == "captex/01_dataset" else [
            "model: bundled:gemma3-270m is not one of the paper's models (placed beside them; no Δ)"])


def test_the_default_token_budgets_are_named_as_cut_short():
    lines = {name: [line for line in found if line.startswith("protocol:")] for name, found in _lines("default.yaml").items()}
    assert lines["captex/02_reordering"] == [
        "protocol: reordering answers cut at 24 new tokens (the paper gives none; ours: at least 64, room for the ten "
        "letters A–J twice, §3.1–3.2; reasoning models 2048 more)",
        "protocol: answers also constrained to valid orders (the paper: free generation, parsed afterwards, §3.2 Task 1)"]
    assert [line.split(" (")[0] for line in lines["captex/03_mcq"]][:1] == ["protocol: MCQ answers cut at 5 new tokens"]
    assert [line.split(" (")[0] for line in lines["captex/04_cbqa"]][:1] == ["protocol: CB-QA replies cut at 40 new tokens"]
    assert len(lines["captex/05_aggregate"]) == 7 and "1 − mean(LD/n)" in lines["captex/05_aggregate"][-1]


def test_the_paper_budgets_cut_no_paper_length_answer():
    from tokenizers import Tokenizer

    from culturelab.models.bundled import bundled_model_dir

    tokenizer = Tokenizer.from_file(str(bundled_model_dir("gemma3-270m") / "tokenizer.json"))
    sample = cx.load(data_source="sample")
    persian = " ".join(" ".join(o for o in sample.mcqs.loc[sample.mcqs["language"] == "fa", "options"].sum()).split()[:52])
    english = " ".join(" ".join(sample.conversations["reference"]).split()[:69])
    longest = {"max_reorder_tokens": ", ".join("ABCDEFGHIJ" * 2),  # ten steps (§3.1), twice
               "max_answer_tokens": f"C. {persian}",  # an option of twice the longest mean length (Table 3: 25.8)
               "max_reply_tokens": english}  # a 4th utterance of twice the longest mean length (Table 3: 34.3)
    for key, text in longest.items():
        assert len(tokenizer.encode(text).ids) < protocol.BUDGETS[key], key


def test_fig8_labels_each_quantity_and_compares_only_the_papers():
    t4 = aggregate.table4_wide().set_index("model")
    gpt = t4.loc[["GPT-4o"]].reset_index().assign(ld_norm=t4.loc["GPT-4o", "ld"] / 7.2)
    paper_point = aggregate.reported_fig8().set_index("model").loc["GPT-4o", "score"]
    assert aggregate.aggregate(gpt, "fig8", lmax_mode="table4")[0] == pytest.approx(paper_point)
    assert aggregate.aggregate(gpt, "fig8", lmax_mode="per_instance")[0] != pytest.approx(paper_point, abs=0.005)
    labels = {mode: figures.fig8_size(aggregate.reported_fig8(), lmax_mode=mode).axes[0].get_ylabel()
              for mode in aggregate.LMAX_MODES}
    assert len(set(labels.values())) == 3 and "1 − mean LD/5.59" in labels["table4"]
    assert "1 − mean(LD/n)" in labels["per_instance"]

    def beside(**effective):
        budgets = {**protocol.BUDGETS, "lmax_mode": "table4", **effective}
        return aggregate.beside_fig8(pd.DataFrame({"model": [QWEN], "score": [0.5]}), lambda spec: compare(
            protocol.PROTOCOL["05_aggregate"], budgets, RELEASED, model=spec, paper_models=protocol.MODELS)).iloc[0]

    same = beside()
    assert same["comparable"] and same["delta"] == pytest.approx(0.5 - aggregate.reported_fig8().set_index(
        "model").loc["Qwen2.5-7B-Instruct", "score"])
    other = beside(lmax_mode="per_instance")
    assert pd.isna(other["delta"]) and other["protocol"].startswith("LD entered as 1 − mean(LD/n)")
    backbones = beside(bertscore_backbone="bundled:minilm", ss_encoder="bundled:minilm")
    assert pd.isna(backbones["delta"]) and "the paper names no backbone" in backbones["protocol"]


@pytest.fixture(scope="module")
def release_with_cb_options(release, tmp_path_factory) -> Path:
    """The release-sized copy whose Conversations.csv carries CB-MCQ options (Choices, Answer)."""
    target = tmp_path_factory.mktemp("with-options") / "captex"
    shutil.copytree(release, target)
    conversations = construction.with_cb_options(cx.load(release, expect="sample")).conversations
    frame = pd.read_csv(target / "Conversations.csv", dtype=str, keep_default_na=False)
    frame["Choices"] = ["\n".join(f"{'ABCD'[i]}. {o}" for i, o in enumerate(opts)) for opts in conversations["options"]]
    frame["Answer"] = ["ABCD"[a] for a in conversations["answer"]]
    frame.to_csv(target / "Conversations.csv", index=False)
    return target


def test_cb_mcq_numbers_are_the_papers_only_with_the_releases_own_options(release, release_with_cb_options):
    def cb_deviations(folder: Path):
        conversations = setup.load_data(str(folder), "local").conversations
        effective = {**protocol.BUDGETS, "method": "generate", **protocol.cb_mcq_options(conversations)}
        return compare(protocol.PROTOCOL["03_mcq.cb_mcq"], effective, RELEASED, model=QWEN,
                       paper_models=protocol.MODELS)

    ours = cb_deviations(release)
    assert not ours.comparable and ours.protocol.startswith("CB-MCQ options built by us")
    table = aggregate.compare_with_table4({"cb_mcq": 0.5}, "Qwen2.5-7B-Instruct", ["cb_mcq"], deviations=ours)
    assert table["delta"].isna().all()
    theirs = cb_deviations(release_with_cb_options)
    assert theirs.comparable and theirs.protocol == "same"


def test_coverage_says_which_cb_mcq_options_are_used():
    c = reported.coverage("captex").set_index("item")
    assert not c["note"].str.contains("rebuilt from the PB-MCQ").any()
    task3 = c.loc["§3.2 Task 3"]
    assert task3["status"] == "code only" and "the paper's CB-MCQ options" in task3["needs"]
    assert "cb_mcq_options" in task3["note"]


def test_only_what_the_release_alone_recomputes_says_recomputed():
    c = reported.coverage("captex", DataUsed("released")).set_index("item")
    needs_models = ["Table 4", "Table 5", "Figure 3", "Figure 5", "§3.2 Task 1", "§3.2 Task 4"]
    assert c.loc[needs_models, "status"].str.startswith("code only (needs: ").all()
    assert c.loc[["Table 3", "Figure 2", "§3.1/§3.3 sizes", "Table 4 Random row"], "status"].eq("recomputed").all()
    on_sample = reported.coverage("captex", DataUsed("sample")).set_index("item")
    assert on_sample.loc["Table 3", "status"] == "code only (needs: the release)"


def test_word_counts_of_chinese_and_japanese_carry_our_segmenters():
    from culturelab.captex import wordcount

    ours = pd.DataFrame({"country": ["Iran", "Japan", "Japan"], "measure": ["question"] * 3,
                         "lang_group": ["native", "native", "English"], "value": [40.0, 45.0, 30.0]})
    table = wordcount.compare_with_paper(reported.load("captex", "table3"), ours, "country",
                                         lambda **kw: compare(protocol.PROTOCOL["01_dataset"], kw, RELEASED))
    table = table.dropna(subset=["ours"]).set_index(["country", "lang_group"])
    assert table.loc[("Iran", "native"), "comparable"] and table.loc[("Japan", "English"), "comparable"]
    japanese = table.loc[("Japan", "native")]
    assert pd.isna(japanese["delta"]) and "jieba" in japanese["protocol"] and "names none" in japanese["protocol"]
