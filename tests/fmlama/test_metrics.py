"""FMLAMA metrics against hand-computed cases and against the paper's own numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab import reported
from culturelab.fmlama import metrics as M
from culturelab.fmlama.tables import summarise_probing, wide_cells


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


def test_group_cis_resample_dishes():
    per_dish = pd.DataFrame({"model": "m", "template": [1, 2] * 4, "group": ["A"] * 8,
                             "url": ["a", "a", "b", "b", "c", "c", "d", "d"],
                             "ap": [1, 1, 0, 0, 1, 1, 0, 0]})
    ci = M.group_cis(per_dish, "ap", ["model"]).set_index("group")
    assert ci.loc["A", "n_dishes"] == 4 and ci.loc["A", "mean"] == 0.5
    assert 0 <= ci.loc["A", "ci_low"] < 0.5 < ci.loc["A", "ci_high"] <= 1




def _ws_over_every_order(scores: np.ndarray, gold: list[list[str]], cands: list[str], vectors: np.ndarray) -> float:
    """WS averaged over every order of the candidates (ties broken by that order): the expected value."""
    import itertools

    values = []
    for perm in itertools.permutations(range(len(cands))):
        order = list(perm)
        values.append(M.word_similarity(scores[:, order], gold, [cands[j] for j in order], vectors[order])[0])
    return float(np.mean(values))


def test_word_similarity_takes_its_top_l_at_the_expected_order_of_ties():
    cands = ["a", "b", "c", "d"]
    vectors = np.array([[1, 0], [0, 1], [0.6, 0.8], [0.8, 0.6]], float)
    scores = np.array([[0.1, 0.9, 0.9, 0.9]])  # b, c, d tie for the one slot of a one-gold dish
    ws = M.word_similarity(scores, [["a"]], cands, vectors)[0]
    assert ws == pytest.approx((0.0 + 0.6 + 0.8) / 3)  # not b's 0.0, which candidate order would pick
    assert ws == pytest.approx(_ws_over_every_order(scores, [["a"]], cands, vectors))
    two = np.array([[0.9, 0.5, 0.5, 0.1]])  # a sure, then b/c tied for the second slot of a two-gold dish
    assert M.word_similarity(two, [["a", "d"]], cands, vectors)[0] == pytest.approx(
        _ws_over_every_order(two, [["a", "d"]], cands, vectors))


def test_random_ranking_ws_is_the_mean_over_every_top_l():
    import itertools

    rng = np.random.default_rng(0)
    cands = list("abcdef")
    vectors = rng.normal(size=(6, 4))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    gold = [["a", "c"], ["f"]]
    sims = vectors @ vectors.T
    for i, items in enumerate(gold):
        idx = [cands.index(g) for g in items]
        brute = np.mean([np.mean(sims[np.ix_(idx, top)].max(axis=1))
                         for top in itertools.combinations(range(6), len(items))])
        assert M.random_ranking_ws(gold, cands, vectors)[i] == pytest.approx(brute)
    zero = np.vstack([vectors[:5], np.zeros(4)])  # an OOV candidate is left out of the draw
    assert np.isfinite(M.random_ranking_ws([["a"]], cands, zero)).all()
    assert np.isnan(M.random_ranking_ws([["f"]], cands, zero)).all()  # a gold without a vector: NaN
