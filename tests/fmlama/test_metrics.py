"""FMLAMA metrics against hand-computed cases and against the paper's own numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab import reported
from culturelab.fmlama import metrics as M
from culturelab.fmlama.tables import ROW_ORDER, compare_probing, summarise_probing, wide_cells


def test_average_precision_by_hand():
    cands = ["a", "b", "c", "d", "e"]
    scores = np.array([[5, 4, 3, 2, 1],     # ranking a b c d e
                       [1, 2, 3, 4, 5]], float)  # ranking e d c b a
    gold = M.gold_matrix([["b", "d"], ["a"]], cands)
    out = M.rank_metrics(scores, gold)
    # dish 1: gold at ranks 2 and 4 → (1/2 + 2/4) / 2 = 0.5; dish 2: gold at rank 5 → 1/5
    np.testing.assert_allclose(out["ap"], [0.5, 0.2])
    np.testing.assert_allclose(out["p1"], [0.0, 0.0])
    np.testing.assert_allclose(out["p5"], [2 / 5, 1 / 5])


def test_unrankable_gold_leaves_the_denominator_and_dishes_without_gold_are_skipped():
    scores = np.array([[3.0, 2.0, -np.inf], [3.0, 2.0, -np.inf]])
    gold = np.array([[False, True, True], [False, False, True]])
    out = M.rank_metrics(scores, gold)
    assert out["ap"][0] == pytest.approx(0.5)  # only "b" (rank 2) counts: 1/2 over 1 found gold
    assert np.isnan(out["ap"][1]) and out["n_gold"].tolist() == [1, 0]
    # dishes whose gold is unrankable are left out of group means, not counted as 0
    per_dish = pd.DataFrame({"model": "m", "template": 1, "group": ["A", "A"], "ap": out["ap"]})
    assert M.group_means(per_dish, ["ap"], ["model", "template"])["ap"].tolist() == [0.5, 0.5]


def test_word_similarity_by_hand_with_zero_vectors():
    cands = ["egg", "flour", "rice", "oov"]
    vectors = np.array([[1, 0, 0], [0.6, 0.8, 0], [0, 0, 1], [0, 0, 0]], float)
    scores = np.array([[0.1, 0.9, 0.5, 0.0],    # top-2: flour, rice
                       [0.9, 0.1, 0.0, 0.5]])   # top-1: egg
    ws = M.word_similarity(scores, [["egg", "rice"], ["oov"]], cands, vectors)
    # dish 1: egg → max(cos(egg, flour)=0.6, cos(egg, rice)=0) = 0.6; rice → 1.0; mean 0.8
    assert ws[0] == pytest.approx(0.8)
    assert np.isnan(ws[1])  # a zero vector makes the cosine NaN, as with fastText in the paper


def test_over_templates_uses_the_sample_std_and_all_pools_dishes():
    per_dish = pd.DataFrame({"model": "m", "context": False, "template": [1, 1, 1, 2, 2, 2],
                             "group": ["A", "A", "B"] * 2, "url": list("xyzxyz"),
                             "ap": [1.0, 0.0, 0.0, 0.5, 0.5, 0.5]})
    summary = summarise_probing(per_dish)
    cell = summary.set_index(["group", "metric"]).loc[("A", "mAP")]
    assert cell["mean"] == pytest.approx(50.0) and cell["std"] == pytest.approx(0.0)
    all_row = summary.set_index(["group", "metric"]).loc[("ALL", "mAP")]
    # ALL pools the three dishes (1/3, then 1/2), it is not the mean of the group means
    assert all_row["mean"] == pytest.approx(100 * (1 / 3 + 1 / 2) / 2)
    assert all_row["std"] == pytest.approx(100 * np.std([1 / 3, 1 / 2], ddof=1))
    assert wide_cells(summary, "mAP").loc["ALL", "m"] == "41.67±11.79"


PAPER_R = reported.load("fmlama", "correlations").set_index(["table", "x", "y"])["value"]


@pytest.mark.parametrize(("lang", "table_id"), [("en", 2), ("ar", 6), ("he", 7), ("ru", 8)])
def test_paper_correlations_from_the_transcribed_tables(lang, table_id):
    expected = PAPER_R[(table_id, "mAP", "mWS")]
    table = reported.load("fmlama", "probing")
    part = table[(table["lang"] == lang) & (table["model"] != "Avg")]
    wide = part.pivot_table(index=["group", "model"], columns="metric", values="value").reset_index()
    assert len(wide) == 16 * part["model"].nunique()
    assert M.metric_correlation(wide)["pearson"] == pytest.approx(expected, abs=0.005)


def test_table4_correlations_with_human_scores():
    t4 = reported.load("fmlama", "table4").pivot_table(index=["group", "model"], columns="metric", values="value")
    for metric in ("mAP", "mWS"):
        expected = PAPER_R[(4, metric, "Human")]
        assert M.metric_correlation(t4.reset_index(), metric, "Human")["pearson"] == pytest.approx(expected, abs=0.005)


def test_transcribed_avg_columns_are_row_means():
    table = reported.load("fmlama", "probing")
    for (_, _, group), part in table.groupby(["lang", "metric", "group"]):
        models = part[part["model"] != "Avg"]["value"]
        avg = part[part["model"] == "Avg"]["value"].iloc[0]
        assert avg == pytest.approx(models.mean(), abs=0.01), group  # the paper rounds or truncates


def test_compare_probing_puts_ours_beside_the_paper():
    summary = pd.DataFrame({"model": "ours", "context": False, "group": ["U.S.", "ALL"], "metric": "mAP",
                            "mean": [10.0, 8.0], "std": [1.0, 1.0], "n_templates": 5})
    cmp = compare_probing(summary, "en", "mAP", data="same", protocol="same")
    row = cmp.set_index("group").loc["ALL"]
    assert row["reported"] == 7.04 and row["delta"] == pytest.approx(0.96) and row["comparable"]
    other = compare_probing(summary, "en", "mAP", data="20 of 508 dishes", protocol="same").set_index("group")
    assert other.loc["ALL", "ours"] == 8.0 and np.isnan(other.loc["ALL", "delta"]) and not other.loc["ALL", "comparable"]
    assert cmp["group"].tolist() == list(ROW_ORDER)  # every paper row, ours NaN where not run
    assert cmp.set_index("group").loc["Italy", "ours"] != cmp.set_index("group").loc["Italy", "ours"]


def test_group_cis_resample_dishes():
    per_dish = pd.DataFrame({"model": "m", "template": [1, 2] * 4, "group": ["A"] * 8,
                             "url": ["a", "a", "b", "b", "c", "c", "d", "d"],
                             "ap": [1, 1, 0, 0, 1, 1, 0, 0]})
    ci = M.group_cis(per_dish, "ap", ["model"]).set_index("group")
    assert ci.loc["A", "n_dishes"] == 4 and ci.loc["A", "mean"] == 0.5
    assert 0 <= ci.loc["A", "ci_low"] < 0.5 < ci.loc["A", "ci_high"] <= 1


def test_comparability_names_every_difference_from_the_paper():
    from culturelab.fmlama.probing import comparability, probe_jobs

    t = pd.DataFrame({"url": list("uvwxyzst"), "group": list("aaaabbbb"), "lang": "en",
                      "ingredients": [["egg"], ["rice"], ["tea", "egg"], ["salt"], ["milk"], ["beef"], ["oil"],
                                      ["corn"]]})
    whole = probe_jobs({"en": t}, per_group=0, max_total=0, max_candidates=0)[0]
    part = probe_jobs({"en": t}, per_group=1, max_total=0, max_candidates=2)[0]
    five = [1, 2, 3, 4, 5]
    assert comparability(whole, data_source="released", model_spec="masked:x", template_ids=five) == ("same", "same")
    data, protocol = comparability(part, data_source="released", model_spec="hf:gpt2", template_ids=[1, 2])
    assert data == "2 of 8 dishes"
    assert protocol.split("; ") == ["causal LM sentence scoring (paper: masked LMs)", "templates [1, 2] of 1-5",
                                    f"{len(part.candidates)} of 8 candidates"]
    assert comparability(whole, data_source="sample", model_spec="masked:x", template_ids=five)[0].startswith("sample")


def test_mws_is_compared_only_like_with_like_and_the_correlation_is_pooled():
    from culturelab.fmlama.probing import comparability, probe_jobs
    from culturelab.fmlama.tables import compare_probing, metric_correlations

    t = pd.DataFrame({"url": list("uv"), "group": "a", "lang": "en", "ingredients": [["egg"], ["rice"]]})
    job = probe_jobs({"en": t}, per_group=0, max_total=0, max_candidates=0)[0]
    kw = {"data_source": "released", "model_spec": "masked:x", "template_ids": [1, 2, 3, 4, 5], "metric": "mWS"}
    assert comparability(job, encoder_spec="fasttext:/v/cc.en.300.bin", **kw) == ("same", "same")
    data, protocol = comparability(job, encoder_spec="bundled:e5-small", **kw)
    assert protocol == "mWS from bundled:e5-small vectors (paper: fastText)"
    s = pd.DataFrame({"model": "m", "context": False, "group": ["ALL"], "metric": "mWS", "mean": [0.5], "std": [0.1]})
    cmp = compare_probing(s, "en", "mWS", data=data, protocol=protocol).query("group == 'ALL'")
    assert cmp["delta"].isna().all() and not cmp["comparable"].any() and cmp["ours"].tolist() == [0.5]
    # the correlation pools the cells of every model: two models of 3 groups = 6 cells, one row per language
    rng = np.random.default_rng(0)
    cells = pd.DataFrame({"lang": "en", "model": np.repeat(["m", "f"], 3).tolist() * 2, "context": False,
                          "group": list("abc") * 4, "metric": ["mAP"] * 6 + ["mWS"] * 6,
                          "mean": rng.uniform(size=12)})
    r = metric_correlations(cells)
    assert len(r) == 1 and r["cells"].item() == 6 and r["models"].item() == 2 and not r["comparable"].item()
    wide = cells.pivot_table(index=["model", "group"], columns="metric", values="mean")
    assert r["pearson"].item() == pytest.approx(np.corrcoef(wide["mAP"], wide["mWS"])[0, 1])
    assert metric_correlations(cells, encoder_spec="fasttext:cc.en.300.bin")["comparable"].item()
