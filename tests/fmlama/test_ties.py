"""Ranking metrics with tied scores and queries without gold: expected values under a random
order of ties, checked against trec_eval and scikit-learn, and FMLAMA's case-collision ties."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from culturelab.fmlama import metrics as M
from culturelab.metrics import retrieval as R

pytrec_eval = pytest.importorskip("pytrec_eval")


def _trec(scores: np.ndarray, gold: np.ndarray, names: list[list[str]]) -> list[dict[str, float]]:
    """trec_eval's map, P_1, P_2, recip_rank, success_1 per query, candidate j of query i named names[i][j]
    (trec_eval breaks equal scores by name, so the names fix the order of ties)."""
    qrels = {f"q{i}": {names[i][j]: int(g) for j, g in enumerate(row)} for i, row in enumerate(gold)}
    run = {f"q{i}": {names[i][j]: float(v) for j, v in enumerate(row)} for i, row in enumerate(scores)}
    out = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.1,2", "recip_rank", "success.1"}).evaluate(run)
    return [out[f"q{i}"] for i in range(len(scores))]


OURS = {"map": R.average_precision, "P_1": lambda s, g: R.precision_at_k(s, g, 1),
        "P_2": lambda s, g: R.precision_at_k(s, g, 2), "recip_rank": R.reciprocal_rank,
        "success_1": lambda s, g: R.recall_at_n(s, g, 1)}


def _pools() -> tuple[np.ndarray, np.ndarray]:
    """Five candidates per query: random pools with ties (scores 0-2), all-tied pools, distinct
    scores, one gold or several, and queries without gold."""
    rng = np.random.default_rng(3)
    scores = np.vstack([rng.integers(0, 3, size=(12, 5)), np.ones((4, 5)), rng.permutation(5)[None] * [[1.0]]])
    gold = rng.random(scores.shape) < 0.4
    gold[12:14] = [[0, 0, 1, 0, 0], [1, 0, 0, 1, 0]]  # all tied: one gold, two gold
    gold[14] = False  # all tied, no gold
    gold[3] = False  # ties, no gold
    return scores.astype(float), gold


def test_expected_metrics_are_the_mean_of_trec_eval_over_every_order_of_the_ties():
    scores, gold = _pools()
    n = scores.shape[1]
    orders = list(itertools.permutations(range(n)))  # 120 relabellings: every order of every tied block
    per_order = [_trec(scores, gold, [[f"d{perm[j]}" for j in range(n)]] * len(scores)) for perm in orders]
    has_gold = gold.any(axis=1)
    for measure, ours in OURS.items():
        expected = np.mean([[q[measure] for q in trec] for trec in per_order], axis=0)
        got = ours(scores, gold)
        np.testing.assert_allclose(got[has_gold], expected[has_gold], atol=1e-9, err_msg=measure)
        # a query without gold: trec_eval scores 0, we leave it out (NaN) — the documented rule
        assert np.isnan(got[~has_gold]).all() and (expected[~has_gold] == 0).all(), measure
    assert R.n_without_gold(gold) == (~has_gold).sum() >= 2


def test_ap_and_p_at_k_do_not_depend_on_where_a_tied_gold_is_listed():
    scores = np.zeros((4, 4))
    gold = np.eye(4, dtype=bool)  # the one gold item listed first, second, third, last
    ap = R.average_precision(scores, gold)
    np.testing.assert_allclose(ap, (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    np.testing.assert_allclose(R.precision_at_k(scores, gold, 1), 0.25)
    np.testing.assert_allclose(R.precision_at_k(scores, gold, 2), 0.25)
    # a stable sort (and trec_eval, by document name) ranks the gold 1st to 4th: AP 1.0 ... 0.25
    np.testing.assert_allclose(R.average_precision(scores, gold, ties="stable"), [1, 1 / 2, 1 / 3, 1 / 4])
    assert [q["map"] for q in _trec(scores, gold, [["d3", "d2", "d1", "d0"]] * 4)] == [1.0, 0.5, pytest.approx(1 / 3), 0.25]


def test_scikit_learn_agrees_on_distinct_scores_and_takes_a_tied_block_as_one_threshold():
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(1)
    scores = rng.normal(size=(40, 30))
    gold = rng.random(scores.shape) < 0.15
    gold[np.arange(40), rng.integers(0, 30, size=40)] = True
    np.testing.assert_allclose(R.average_precision(scores, gold),
                               [average_precision_score(g, s) for g, s in zip(gold, scores)], atol=1e-12)
    trec = _trec(scores, gold, [[f"d{j:02d}" for j in range(30)]] * 40)
    np.testing.assert_allclose(R.average_precision(scores, gold), [q["map"] for q in trec], atol=1e-6)
    np.testing.assert_allclose(R.precision_at_k(scores, gold, 2), [q["P_2"] for q in trec], atol=1e-6)
    # ties: scikit-learn retrieves the whole block at once (precision of the block, 1/4 here) — order-free
    # like ours, but not the expected AP of any tie-breaking ranker
    tied, one = np.zeros(4), np.array([0, 0, 1, 0], bool)
    assert average_precision_score(one, tied) == 0.25
    assert R.average_precision(tied[None], one[None])[0] == pytest.approx(25 / 48)


def test_blocks_of_queries_give_the_unblocked_values(monkeypatch):
    scores, gold = _pools()
    whole = {m: f(scores, gold) for m, f in OURS.items()}
    monkeypatch.setattr(R, "BLOCK_ROWS", 3)
    for m, f in OURS.items():
        np.testing.assert_array_equal(f(scores, gold), whole[m])
    assert np.isnan(R.average_precision(np.zeros((2, 0)), np.zeros((2, 0), bool))).all()  # no candidates


def test_dishes_without_rankable_gold_are_nan_in_every_metric_and_counted():
    scores = np.array([[3.0, 2.0, -np.inf], [3.0, 2.0, -np.inf]])
    gold = np.array([[False, True, True], [False, False, True]])  # dish 2's only gold is unrankable
    out = M.rank_metrics(scores, gold)
    assert out[["ap", "p1", "p5"]].iloc[1].isna().all() and out["p5"].iloc[0] == pytest.approx(0.2)
    per_dish = out.assign(model="m", template=1)
    assert M.without_gold(per_dish, ["model"]).to_dict("records") == [{"model": "m", "queries": 2, "without_gold": 1}]


@pytest.fixture(scope="module")
def uncased_mlm(tmp_path_factory):
    from culturelab.models import load_model
    from culturelab.models.tiny import build_tiny_bert

    corpus = ["the food pilav has the ingredients of rice and saffron", "tea is served with sugar and water",
              "rice is cooked with butter"] * 4
    folder = build_tiny_bert(corpus, tmp_path_factory.mktemp("tiny-bert-uncased"), lowercase=True)
    return load_model(f"masked:{folder}", device="cpu", cache=False, progress=False, max_masks=4)


def test_case_collisions_of_an_uncased_model_tie_and_the_metrics_ignore_candidate_order(uncased_mlm):
    from culturelab.fmlama.probing import probe

    dishes = pd.DataFrame({"url": ["u1", "u2"], "dish": ["pilav", "tea"], "origin": "Iran", "group": "Iran",
                           "ingredients": [["saffron", "rice"], ["Sugar"]]})
    listed = ["Saffron", "saffron", "rice", "Sugar", "sugar", "butter", "water"]
    runs = [probe(uncased_mlm, dishes, "en", order, template_ids=[1]).set_index("url")
            for order in (listed, listed[::-1])]
    for metric in ("ap", "p1", "p5"):
        pd.testing.assert_series_equal(runs[0][metric], runs[1][metric])
    # the collision really ties: "Saffron" and "saffron" get one score, so a stable sort would rank
    # whichever is listed first above the other
    from culturelab.fmlama.probing import score_queries

    s = score_queries(uncased_mlm, ["The food pilav has the ingredients of [Y] ."], listed)[0]
    assert s[0] == s[1] and s[3] == s[4]
