"""Multiple-choice baselines, zero-shot LLM scoring (one batched call), predictions files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.data import DataError
from culturelab.metrics.choice import accuracy_table
from culturelab.models import load_model
from culturelab.turkish_plu import mc


def frame() -> pd.DataFrame:
    rows = [
        ("si", "Makas Nasıl Bileylenir?", None, ["Cami temizle.", "Makası sil.", "Tuvaleti sil.", "Kartonu kes."], 1),
        ("gi", "Kek hamurunu fırına koy.", None, ["Köpek Eğitmek", "Bahçe Sulamak", "Kek Pişirmek", "Araba Yıkamak"], 2),
        ("nep", "Kek Pişirmek", "Unu ele.", ["Yumurtayı kır.", "Arabayı yıka.", "Köpeği gezdir.", "Çimi biç."], 0),
        ("so", "Kek Pişirmek", None, ["Keki fırından çıkar.", "Hamuru fırına koy."], 1),
    ]
    out = pd.DataFrame([{"id": f"{t}-test-{i}", "task": t, "split": "test", "row": i,
                         "goal": g if t != "gi" else o[lab], "context": g if t != "nep" else p,
                         "prev_step": p, "options": o, "label": lab, "n_options": len(o),
                         "origin": "original", "category": "HE"} for i, (t, g, p, o, lab) in enumerate(rows)])
    out.loc[out["task"] == "nep", "context"] = "Unu ele."
    return out


def test_surface_baselines_read_what_the_model_reads():
    t = frame()
    over = mc.overlap_predictions(t)
    assert over.set_index("task").loc[["si", "gi"], "correct"].all()
    tfidf = mc.tfidf_predictions(t)
    assert tfidf["scores"].map(len).tolist() == [4, 4, 4, 2] and tfidf.set_index("task").loc["si", "correct"]
    assert mc.reader_text(t)[2] == "Kek Pişirmek Unu ele."


def test_options_only_audit_never_reads_the_prompt_and_ties_on_two_options():
    t = pd.DataFrame({"task": ["nep", "nep", "so"], "goal": ["G"] * 3, "context": ["x", "Yazıcıyı kur.", "y"],
                      "label": [2, 2, 0], "n_options": [4, 4, 2],
                      "options": [["Pastayı kes.", "Yazıcını kapat.", "Yazıcını aç.", "Yazıcı kablosunu aç."]] * 2
                      + [["Bir.", "İki."]]})
    out = mc.options_only_predictions(t)
    assert out["pred"].tolist()[:2] == [2, 2]  # the hub option wins whatever the prompt says
    assert out["scores"].iloc[0][0] < min(out["scores"].iloc[0][1:]) and out["scores"].iloc[2][0] == out["scores"].iloc[2][1]
    picks = {int(mc.options_only_predictions(t.iloc[[2]], seed=s)["pred"].item()) for s in range(20)}
    assert picks == {0, 1}  # a two-way tie is broken at random, by seed


def test_majority_uses_the_validation_labels_and_random_averages_seeds():
    t = frame()
    val = t.assign(label=[3, 3, 3, 0])
    maj = mc.majority_predictions(t, val)
    assert maj["pred"].tolist() == [3, 3, 3, 0]
    big = pd.concat([t] * 200, ignore_index=True)
    rnd = mc.random_predictions(big, seeds=range(3))
    assert len(rnd) == 3 * len(big) and set(rnd["seed"]) == {0, 1, 2}
    acc = accuracy_table(rnd, ["task"]).set_index("task")["accuracy"]
    assert abs(acc["so"] - 0.5) < 0.07 and abs(acc["si"] - 0.25) < 0.07
    assert rnd["pred"].tolist() == mc.random_predictions(big, seeds=range(3))["pred"].tolist()


def test_random_guesses_over_seeds_count_each_test_item_once():
    """Issue 30 item 16: five seeds over one test set are not 5 × n independent items (n = 4,185
    with a Wilson interval for GI's 837): the accuracy table pools the seeds per item."""
    t = frame()
    big = pd.concat([t] * 50, ignore_index=True).assign(id=lambda d: [f"x-{i}" for i in range(len(d))])
    rnd = mc.random_predictions(big, seeds=range(5))
    acc = mc.accuracy_by_task(rnd.assign(model="baseline")).set_index("task")
    assert acc["n"].to_dict() == big["task"].value_counts().to_dict()  # items, not seeds × items
    assert acc.loc["si", "accuracy"] == pytest.approx(
        accuracy_table(rnd[rnd["task"] == "si"], ["task"])["accuracy"].item())  # the same mean
    pooled = mc.pool_seeds(rnd, ["task", "method"])
    assert set(pooled["seeds"]) == {5} and pooled["correct"].isin([0, 0.2, 0.4, 0.6, 0.8, 1.0]).all()
    one = mc.accuracy_by_task(mc.random_predictions(big, seeds=[0]).assign(model="baseline")).set_index("task")
    assert one["n"].to_dict() == acc["n"].to_dict()  # one seed: the same items, Wilson over them


def test_prompts_and_step_ordering_options():
    p = mc.add_prompts(frame())
    assert p["prompt"].tolist() == ["Hedef: Makas Nasıl Bileylenir? Örnek Adım:",
                                    "Örnek Adım: Kek hamurunu fırına koy. Hedef:",
                                    "Hedef: Kek Pişirmek Adım: Unu ele. Bir sonraki adım:", "Hedef: Kek Pişirmek"]
    assert p["llm_options"].iloc[3] == ["Önce: Keki fırından çıkar. Sonra: Hamuru fırına koy.",
                                        "Önce: Hamuru fırına koy. Sonra: Keki fırından çıkar."]


def test_llm_scoring_is_one_batched_call_and_matches_naive_scores(tiny_causal_dir, tmp_cache):
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    out = mc.llm_predictions(lm, frame(), ("sum", "mean"))
    assert out["method"].value_counts().to_dict() == {"llm (sum)": 4, "llm (mean)": 4}
    assert lm.stats.computed == 14 and lm.stats.cached == 14  # the second normalisation is all cache
    prompted = mc.add_prompts(frame())
    naive = lm.naive_loglikelihood([(p, " " + o) for p, opts in zip(prompted["prompt"], prompted["llm_options"])
                                    for o in opts])
    sums = out[out["method"] == "llm (sum)"]["scores"].explode().astype(float).to_numpy()
    np.testing.assert_allclose(sums, [r.logprob for r in naive], rtol=1e-4, atol=1e-4)


def items(task: str, method: str, n: int, model: str = "baseline") -> pd.DataFrame:
    """``n`` scored items of a task (ids only), as the notebook's results hold them."""
    return pd.DataFrame({"id": [f"{task}-test-{i}" for i in range(n)], "task": task, "method": method, "model": model})


def test_predictions_file_scored_with_missing_and_bad_rows(tmp_path, start):
    from culturelab.protocol import DataUsed, compare
    from culturelab.turkish_plu import protocol

    t = frame()
    path = tmp_path / "berturk.csv"
    pd.DataFrame({"task": ["si", "gi", "so"], "row": [0, 1, 3], "pred": [1, 0, 1],
                  "model": "BERTurk FT"}).to_csv(path, index=False)
    scored = mc.score_predictions(t, mc.read_predictions(path))
    assert scored["correct"].tolist() == [True, False, False, True] and scored["valid"].tolist() == [True, True, False, True]
    acc = accuracy_table(scored, ["task", "method", "model"])
    run = start("02_mc_tasks")
    run.set_data_source("released")
    row = mc.table6_beside(acc, protocol.mc_labels(run, scored)).set_index("task").loc["si"]
    # one of the 612 test items: both numbers, no delta, and the reason; the file names the paper's model
    assert row["paper_row"] == "BERTurk FT" and row["reported"] == 91.34 and np.isnan(row["delta"])
    assert row["data"] == "1 of 612 si test items" and row["model_status"] == "same"
    assert row["protocol"].startswith("protocol not verified: a predictions file made elsewhere")
    every_item = lambda combo: compare(protocol.PROTOCOL["02_mc_tasks.predictions"], {}, DataUsed("released"),  # noqa: E731
                                       model=combo["model"], paper_models=protocol.MODELS)
    row = mc.table6_beside(acc, every_item).set_index("task").loc["si"]
    assert row["delta"] == pytest.approx(100 - 91.34)
    pd.DataFrame({"id": ["si-test-0", "gi-test-1"], "prediction": [1, "B"]}).to_csv(path, index=False)
    with pytest.raises(DataError, match=r"berturk\.csv, row 3, column 'prediction'"):
        mc.read_predictions(path)
    pd.DataFrame({"id": ["si-test-0", "si-test-0"], "pred": [1, 2]}).to_csv(path, index=False)
    with pytest.raises(DataError, match="duplicate"):
        mc.read_predictions(path)


def test_table6_beside_pairs_random_with_the_paper_random_row(start):
    from culturelab.turkish_plu import protocol

    acc = pd.DataFrame({"task": ["so", "gi", "gi"], "method": ["random", "random", "majority (val)"],
                        "model": "baseline", "accuracy": [0.5, 0.3, 0.25], "ci_low": [0.4, 0.2, 0.2],
                        "ci_high": [0.6, 0.4, 0.3], "n": [1021, 10, 10]})
    results = pd.concat([items("so", "random", 1021), items("gi", "random", 10), items("gi", "majority (val)", 10)])
    run = start("02_mc_tasks", max_instances=10)
    run.set_data_source("released", protocol.items_counts(results.drop_duplicates(["task", "id"])))
    b = mc.table6_beside(acc, protocol.mc_labels(run, results)).set_index(["task", "method"])
    # simulated guesses check the chance level; the paper's Random row is the exact chance: no delta
    assert np.isnan(b.loc[("so", "random"), "delta"]) and b.loc[("so", "random"), "reported"] == 50.0
    assert b.loc[("so", "random"), "protocol"].startswith("random: simulated uniform guesses")
    assert b.loc[("gi", "random"), "ci_low"] == 20.0
    # a subset of the test items: both numbers, no delta, and the reason
    assert np.isnan(b.loc[("gi", "random"), "delta"])
    assert b.loc[("gi", "random"), "data"] == "10 of 837 gi test items"
    assert b.loc[("gi", "majority (val)"), "protocol"].startswith("majority (val): the validation split's most frequent")
    llm = pd.DataFrame({"task": ["si"], "method": ["llm (mean)"], "model": ["hf:x"], "accuracy": [0.5], "n": [612]})
    row = mc.table6_beside(llm, protocol.mc_labels(run, items("si", "llm (mean)", 612, "hf:x"))).iloc[0]
    assert row["paper_row"] == "BERTurk ZS" and row["protocol"].startswith("beyond the paper: zero-shot log-likelihood")
    assert "randomly initialised head (ZS)" in row["protocol"] and np.isnan(row["delta"])
    assert row["model_status"] == "hf:x beside the paper's BERTurk"


def test_composition_and_subset():
    t = frame()
    comp = mc.composition({"si test": t[t["task"] == "si"]})
    assert comp[["n", "labels", "chance"]].iloc[0].tolist() == [1, "0/1/0/0", 0.25]
    big = pd.concat([t] * 5, ignore_index=True)
    assert mc.subset(big, 2, seed=1).equals(mc.subset(big, 2, seed=1)) and len(mc.subset(big, 2)) == 8
    assert len(mc.subset(big, 0)) == len(big)


def test_score_all_runs_every_scorer_on_the_same_items(tiny_causal_dir, tmp_cache):
    t = frame()
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    out = mc.score_all(t, model=lm, reference=t, random_seeds=[0, 1], max_llm_instances=1, normalisations=["mean"])
    counts = out["method"].value_counts().to_dict()
    assert counts == {"majority (val)": 4, "random": 8, "lexical overlap": 4, "tf-idf char": 4,
                      "options only (tf-idf)": 4, "llm (mean)": 4}
    assert set(out.loc[out["method"] != "llm (mean)", "model"]) == {"baseline"}
    every = mc.score_all(t, model=lm, max_llm_instances=0, normalisations=["mean"])  # 0 means all items
    assert (every["method"] == "llm (mean)").sum() == 4


@pytest.mark.parametrize(("correct", "said"), [(True, "above chance on GI, SI, SO, NEP"), (False, "above chance on no task")])
def test_the_interpretation_reads_the_runs_numbers_for_any_model(correct, said):
    """Issue 31 item 5: the sentences of notebook 02 come from the run's tables, so a model whose answers
    are all right, or all wrong, is described as such (nothing assumes the bundled 270M model)."""
    t = pd.concat([frame()] * 30, ignore_index=True).assign(id=lambda d: [f"i{k}" for k in range(len(d))])
    llm = pd.concat([t.assign(method=m, model="hf:x", valid=True, pred=t["label"] if correct else (t["label"] + 1) % 2,
                              correct=correct) for m in ("llm (sum)", "llm (mean)")])
    results = pd.concat([mc.random_predictions(t, seeds=[0, 1]).assign(model="baseline"), llm], ignore_index=True)
    frames = {f"{task} {split}": part.assign(split=split, origin="translated", category=None)
              for task, part in t.groupby("task") for split in ("val", "test")}
    text = mc.findings(mc.accuracy_by_task(results), mc.composition(frames), results, ["gi", "si", "so", "nep"])
    assert f"Zero-shot llm (sum) scores GI {100.0 if correct else 0.0:.1f} %" in text and said in text
    assert "pick the same option on 100% of the 120 items" in text


def test_the_interpretation_names_which_surface_baseline_beats_chance_where():
    """Review: a task where only character TF-IDF beats chance was written "Lexical overlap and character
    TF-IDF beat chance on GI", crediting lexical overlap with a result its own interval does not hold."""
    acc = pd.DataFrame({"task": ["gi", "gi", "si", "si"], "method": ["lexical overlap", "tf-idf char"] * 2,
                        "accuracy": [0.26, 0.40, 0.45, 0.50], "ci_low": [0.20, 0.35, 0.40, 0.45],
                        "ci_high": [0.32, 0.45, 0.50, 0.55], "n": 600, "chance": 0.25})
    text = mc.findings(acc, pd.DataFrame({"set": []}), pd.DataFrame({"method": []}), ["gi", "si"])
    assert "Character TF-IDF beats chance on GI, SI" in text
    assert "Lexical overlap beats chance on SI, not on GI" in text
    none = mc.findings(acc.assign(ci_low=0.1), pd.DataFrame({"set": []}), pd.DataFrame({"method": []}), ["gi", "si"])
    assert "Lexical overlap and character TF-IDF beat chance on no task" in none
