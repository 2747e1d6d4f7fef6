"""Linking actions (R@n on a hand-made pool, BM25+ equal to rank_bm25) and the ROUGE tokenizer
difference on Turkish text."""

from __future__ import annotations

import numpy as np
import pytest

from culturelab.metrics.generation import rouge
from culturelab.turkish_plu import linking as lk
from culturelab.turkish_plu import summarization as sm

POOL = ["Yazıcı Kurmak", "Kek Pişirmek", "Köpek Eğitmek", "Yazıcı Kartuşu Değiştirmek", "Bahçe Sulamak"]


def ranks_of(scores: np.ndarray, gold: np.ndarray, block: int = 2):
    return lk.rank_gold(lambda q: scores[[int(i) for i in q]], [str(i) for i in range(len(scores))], gold, block=block)


def test_recall_at_n_on_a_hand_made_pool():
    # query 0: gold 0 ranked 1st; query 1: gold 1 ranked 3rd; query 2: gold 2 ranked 5th (last)
    scores = np.array([[0.9, 0.1, 0.2, 0.3, 0.0],
                       [0.5, 0.4, 0.1, 0.6, 0.0],
                       [0.5, 0.4, 0.0, 0.6, 0.3]])
    gold = np.array([0, 1, 2])
    ranks = ranks_of(scores, gold)
    assert ranks["expected_rank"].tolist() == [1, 3, 5] and ranks["top"].tolist()[1] == [3, 0, 1]
    table = lk.recall_table(ranks, ns=(1, 3, 5), groups=["original", "translated", "translated"])
    got = table.set_index(["group", "metric"])["value"].round(4).to_dict()
    assert got[("all", "R@1")] == pytest.approx(100 / 3, abs=1e-3)
    assert got[("all", "R@3")] == pytest.approx(200 / 3, abs=1e-3)
    assert got[("all", "R@5")] == 100.0
    assert got[("all", "MRR")] == pytest.approx((1 + 1 / 3 + 1 / 5) / 3, abs=1e-4)
    assert got[("translated", "R@1")] == 0.0 and got[("original", "R@1")] == 100.0
    every = table[table["group"] == "all"]
    assert (every["ci_low"] <= every["value"]).all() and (every["value"] <= every["ci_high"]).all()
    # R@n without ties is a proportion: Wilson's interval (in %), not the bootstrap's [0, 100] for 1 of 3
    from culturelab.stats import proportion_ci

    assert every.set_index("metric").loc["R@1", ["ci_low", "ci_high"]].tolist() == \
        pytest.approx([100 * b for b in proportion_ci(1, 3)])


def test_ties_count_at_their_expected_rank_whatever_the_pool_order():
    scores = np.zeros((1, 4))  # four equal scores: the gold is at rank 1..4 with equal chance
    table = lk.recall_table(ranks_of(scores, np.array([2])), ns=(1, 2, 4)).set_index("metric")["value"]
    assert table.to_dict() == pytest.approx({"R@1": 25.0, "R@2": 50.0, "R@4": 100.0, "MRR": (1 + 1/2 + 1/3 + 1/4) / 4})
    # the same numbers whichever column the gold sits in (the old rule gave R@1 = 100 for column 0)
    for g in range(4):
        assert lk.recall_table(ranks_of(scores, np.array([g])), ns=(1,))["value"].iloc[0] == 25.0


def test_expected_ties_equal_the_mean_over_random_tie_breaks():
    from culturelab.metrics.retrieval import recall_at_n, reciprocal_rank

    rng = np.random.default_rng(1)
    scores = rng.integers(0, 3, size=(40, 12)).astype(float)
    gold = rng.integers(0, 12, size=40)
    truth = np.zeros(scores.shape, bool)
    truth[np.arange(40), gold] = True
    table = lk.recall_table(ranks_of(scores, gold, block=7), ns=(1, 3)).set_index("metric")["value"]
    draws = [scores + 1e-3 * rng.random(scores.shape) for _ in range(4000)]  # jitter only reorders ties
    for n in (1, 3):
        mc = np.mean([100 * recall_at_n(d, truth, n).mean() for d in draws])
        assert table[f"R@{n}"] == pytest.approx(mc, abs=0.6)
        assert table[f"R@{n}"] == pytest.approx(100 * recall_at_n(scores, truth, n, ties="expected").mean())
    mrr = np.mean([reciprocal_rank(d, truth).mean() for d in draws])
    assert table["MRR"] == pytest.approx(mrr, abs=0.005)
    assert table["MRR"] == pytest.approx(reciprocal_rank(scores, truth, ties="expected").mean())


def test_shared_metrics_with_expected_ties_on_several_gold_items_match_brute_force():
    from itertools import permutations

    from culturelab.metrics.retrieval import recall_at_n, reciprocal_rank

    scores = np.array([[0.5, 0.5, 0.5, 0.5, 0.9, 0.1]])
    gold = np.array([[1, 0, 1, 0, 0, 0]], bool)  # two golds inside a block of four ties, one item above
    r_at, rr = {1: [], 2: [], 3: []}, []
    for perm in permutations(range(4)):  # every order of the tied block
        s = scores.copy()
        s[0, :4] += 1e-6 * np.array(perm)
        for n in r_at:
            r_at[n].append(recall_at_n(s, gold, n)[0])
        rr.append(reciprocal_rank(s, gold)[0])
    for n, hits in r_at.items():
        assert recall_at_n(scores, gold, n, ties="expected")[0] == pytest.approx(np.mean(hits))
    assert reciprocal_rank(scores, gold, ties="expected")[0] == pytest.approx(np.mean(rr))
    with pytest.raises(ValueError, match="ties must be one of"):
        recall_at_n(scores, gold, 1, ties="first")


def test_recall_and_mrr_agree_with_trec_eval_without_ties():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(0)
    scores = rng.random((60, 25))
    scores[rng.random(scores.shape) < 0.1] *= -1  # negative scores too; all distinct (trec_eval orders ties by name)
    gold = rng.integers(0, 25, size=60)
    qrels = {f"q{i}": {f"d{g}": 1} for i, g in enumerate(gold)}
    run = {f"q{i}": {f"d{j}": float(v) for j, v in enumerate(row)} for i, row in enumerate(scores)}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "success"}).evaluate(run)
    table = lk.recall_table(ranks_of(scores, gold, block=16),
                            ns=(1, 5, 10)).set_index("metric")["value"]
    for n in (1, 5, 10):
        assert table[f"R@{n}"] == pytest.approx(100 * np.mean([q[f"success_{n}"] for q in trec.values()]))
    assert table["MRR"] == pytest.approx(np.mean([q["recip_rank"] for q in trec.values()]))


def test_bm25s_scores_equal_rank_bm25_bm25plus():
    from rank_bm25 import BM25Plus

    queries = ["Yazıcı kartuşunu değiştir.", "Kek için un ele.", "Köpek eğitimi zor."]
    ours = lk.bm25_scores(queries, POOL)
    reference = BM25Plus(lk.tokenize(POOL))
    for q, row in zip(lk.tokenize(queries), ours):
        np.testing.assert_allclose(row, reference.get_scores(q), rtol=1e-5)


def test_bm25_finds_a_shared_word_and_tokenisation_matters():
    s = lk.bm25_scores(["yazıcı kartuşu değiştirmek"], POOL)
    assert int(np.argmax(s[0])) == 3
    # whitespace tokens keep case and punctuation: "Yazıcı" matches, "yazıcı" and "Yazıcı." do not
    hit = lk.bm25_scores(["Yazıcı"], POOL, scheme="whitespace")[0]
    assert hit[0] > hit[1] and hit[3] > hit[1]
    for miss in ("yazıcı", "Yazıcı."):
        white = lk.bm25_scores([miss], POOL, scheme="whitespace")[0]
        assert np.allclose(white, white[0])
    assert lk.bm25_scores(["yazıcını"], POOL, prefix=5)[0][[0, 3]].min() > lk.bm25_scores(["yazıcını"], POOL)[0].max()


def test_pool_building_adds_missing_golds_and_small_pool_keeps_them():
    pool, added = lk.build_pool(["Kek Nasıl Pişirilir?", "Köpek Eğitmek"], golds=["Kek Nasıl Pişirilir", "Yeni Hedef"])
    assert pool == ["Kek Nasıl Pişirilir", "Köpek Eğitmek", "Yeni Hedef"] and added == 1
    small = lk.small_pool(POOL, ["Bahçe Sulamak", "Kek Pişirmek"], 4, seed=1)
    assert small[:2] == ["Bahçe Sulamak", "Kek Pişirmek"] and len(small) == 4 and len(set(small)) == 4
    assert small == lk.small_pool(POOL, ["Bahçe Sulamak", "Kek Pişirmek"], 4, seed=1)
    with pytest.raises(KeyError, match="not in the pool"):
        lk.gold_index(["Yok Böyle Bir Hedef"], POOL)


def test_rouge_default_tokenizer_mangles_a_turkish_pair():
    pred, ref = "Güç düğmesine bas.", "Göç dağına bak."
    assert sm.default_tokens(pred) == ["g", "d", "mesine", "bas"]  # ü, ç, ğ dropped
    assert sm.unicode_tokens(pred) == ["güç", "düğmesine", "bas"]
    paper = rouge([pred], [ref], ("rouge1",), tokenizer="default", use_stemmer=True)["rouge1"][0]
    uni = rouge([pred], [ref], ("rouge1",), tokenizer="unicode")["rouge1"][0]
    assert uni == 0.0 and paper == pytest.approx(0.25)  # "g" matches "g": a spurious overlap
    # dotted capital İ: the default tokenizer splits "İSTANBUL" into "i stanbul", Unicode lower-casing does not
    same = rouge(["İSTANBUL'A GİT"], ["istanbul'a git"], ("rouge1",), tokenizer="unicode")["rouge1"][0]
    assert same == 1.0
    assert rouge(["İSTANBUL'A GİT"], ["istanbul'a git"], ("rouge1",), tokenizer="default")["rouge1"][0] < 1.0


def test_rouge_long_has_both_variants_and_lsum_uses_sentences():
    table = sm.rouge_long(["Aç. Kapat."], ["Aç. Kapat."], ["d0"], "copy")
    assert set(table["tokenizer"]) == set(sm.VARIANTS) and set(table["metric"]) == set(sm.TYPES)
    assert (table["value"] == 100.0).all()
    assert sm.lead(["İlk cümle. İkinci cümle. Üçüncü."], k=2) == ["İlk cümle. İkinci cümle."]


def test_summary_predictions_file_by_id_by_order_and_bad_rows(tmp_path):
    import json

    import pandas as pd

    from culturelab.data import DataError

    ids = ["summ-test-0", "summ-test-1"]
    by_id = tmp_path / "preds.jsonl"
    by_id.write_text("\n".join(json.dumps({"id": i, "prediction": p, "model": "mT5-base"}, ensure_ascii=False)
                               for i, p in zip(ids[::-1], ["Kapağı kapat.", "Yazıcını aç."])), encoding="utf-8")
    got = sm.read_summary_predictions(by_id, ids)
    assert dict(zip(got["id"], got["prediction"])) == {"summ-test-1": "Kapağı kapat.", "summ-test-0": "Yazıcını aç."}
    in_order = tmp_path / "bart.csv"
    pd.DataFrame({"generated": ["A.", "B."]}).to_csv(in_order, index=False)
    got = sm.read_summary_predictions(in_order, ids)
    assert got["id"].tolist() == ids and set(got["model"]) == {"bart"}
    with pytest.raises(DataError, match="2 rows for 1 documents"):
        sm.read_summary_predictions(in_order, ids[:1])
    bad = tmp_path / "bad.jsonl"  # an empty summary is a (poor) output; a non-text value is a bad row
    bad.write_text('{"id": "summ-test-0", "prediction": "ok"}\n{"id": "summ-test-1", "prediction": 3}\n')
    with pytest.raises(DataError, match=r"bad.jsonl, row 2, column 'prediction'"):
        sm.read_summary_predictions(bad, ids)
    no_col = tmp_path / "nocol.csv"
    pd.DataFrame({"id": ids, "text": ["a", "b"]}).to_csv(no_col, index=False)
    with pytest.raises(DataError, match="needs a column 'prediction'"):
        sm.read_summary_predictions(no_col, ids)


def test_table5_beside_compares_only_full_pool_bm25_runs_over_all_queries_with_the_bm25_row(start):
    import pandas as pd

    from culturelab.reported import load
    from culturelab.turkish_plu import protocol

    rows = [("full", "all", "BM25+ whitespace", "R@1", 6.5), ("full", "all", "BM25+ whitespace", "MRR", 0.1),
            ("full", "original", "BM25+ whitespace", "R@1", 1.0), ("full", "all", "BM25+ unicode", "R@1", 4.5),
            ("small (80)", "all", "BM25+ unicode", "R@1", 50.0), ("small (80)", "all", "bundled:e5-small", "R@1", 60.0)]
    recall = pd.DataFrame(rows, columns=["pool", "group", "system", "metric", "value"]).assign(n=440)
    run = start("04_linking")
    run.set_data_source(protocol.REBUILT_POOL, {"test steps": 440}, protocol.pool_note(51571, 1))
    table = lk.table5_beside(recall, protocol.linking_labels(run, recall))
    reported = load("turkish_plu", "table5")
    bm25 = reported[reported["model"] == lk.BM25_ROW].set_index("metric")["value"]
    assert table["system"].unique().tolist() == ["BM25+ whitespace", "BM25+ unicode"]
    assert set(table["paper_model"]) == {lk.BM25_ROW}
    r1 = table[table["metric"] == "R@1"].set_index("system")
    assert r1.loc["BM25+ whitespace", "ours"] == 6.5 and r1.loc["BM25+ whitespace", "reported"] == bm25["R@1"]
    # our pool is rebuilt from the release, so no delta is printed; the reasons stand beside the numbers
    assert table["delta"].isna().all() and not table["comparable"].any()
    assert table["data"].str.contains("candidate pool rebuilt").all() and table["data"].str.contains("51,571").all()
    assert r1.loc["BM25+ whitespace", "protocol"] == "same"  # split(" "): our reading of the paper's tokens
    assert r1.loc["BM25+ unicode", "protocol"].startswith("BM25+ on unicode tokens")
    assert table.loc[table["metric"] == "R@10", "ours"].isna().all()  # reported cells we have no run for
    bars = lk.recall_with_paper(recall)
    assert {"BM25+ whitespace / full", "BM25+ unicode / small (80)", f"paper {lk.BEST_ROW}"} <= set(bars["system"])
    assert "MRR" not in set(bars["metric"])
    dense = protocol.linking_labels(run, recall)({"system": "bundled:e5-small", "pool": "small (80)"})
    assert "a small pool" in dense.data and dense.model.startswith("bundled:e5-small: not one of the paper's")
    labse = protocol.linking_labels(run, recall)({"system": "st:sentence-transformers/LaBSE", "pool": "full"})
    assert labse.paper_model == "LaBSE" and labse.model == "same"


def test_summarization_without_data_says_so_loudly():
    with pytest.warns(UserWarning, match="No summarization data: these 4 pairs are the 4 method-level pairs"):
        message = sm.warn_if_not_real("example", 4)
    assert "not the paper's test split" in message and "data_source=sample" in message
    with pytest.warns(UserWarning, match="pairs written by us"):
        sm.warn_if_not_real("sample", 12)
    assert sm.warn_if_not_real("download", 5984) is None


def test_the_example_pairs_are_an_illustrated_table_and_the_tokenizer_figure_reads_real_headlines(real_root):
    """Issue 30 item 16: the release's one example tutorial is not drawn as Table 7's result figure
    (notebook 05 shows its pairs as a table); the figure of what the tokenizer does reads the 38K real
    step headlines of the released corpus."""
    import json

    import matplotlib.pyplot as plt

    from culturelab import config
    from culturelab.plots import audit
    from culturelab.turkish_plu import figures, protocol
    from culturelab.turkish_plu.data import Release

    assert [sm.is_result(s) for s in ("example", "sample", "local", "download")] == [False, False, True, True]
    cells = json.loads((config.notebooks_dir() / "turkish_plu/05_summarization.ipynb").read_text(encoding="utf-8"))
    drawing = ["".join(c["source"]) for c in cells["cells"] if "table7_rouge_tokenizers" in "".join(c["source"])]
    assert len(drawing) == 1 and "if sm.is_result(used):" in drawing[0].split("table7_rouge_tokenizers")[0]
    corpus = Release(real_root.parent).corpus()
    loss = sm.token_loss(sm.corpus_headlines(corpus))
    assert len(loss) == protocol.corpus_counts(corpus)["steps"] == 38481
    assert loss["damaged_word_share"].mean() == pytest.approx(0.44, abs=0.01)  # of a headline's words lose a letter
    fig = figures.token_damage(loss)
    assert audit.problems(audit.inspect(fig), audit.claims_of(fig)) == []
    plt.close(fig)
    assert protocol.released_deviations("05_summarization.tokens", protocol.corpus_counts(corpus)).data == "same"
