"""Retrieve, then rerank (Table 5's reranker rows, issue 30 item 14): the paper's candidate lists (the top
30, the gold put in after the 10th when missing), a causal LM reordering them in one batched, cached call,
and every difference from the paper's fine-tuned cross-encoder declared in the protocol."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.models import load_model
from culturelab.protocol import check_notebook
from culturelab.turkish_plu import linking as lk
from culturelab.turkish_plu import protocol
from culturelab.turkish_plu import rerank as rr

POOL = [f"Başlık {i} Yapmak" for i in range(40)]


def test_candidate_lists_put_a_missing_gold_after_the_tenth_and_keep_the_retrievers_order():
    top = [list(range(30)), list(range(1, 31)), list(range(100, 130))]
    lists = rr.candidate_lists(top, [3, 0, 7], seed=0)
    assert lists["candidates"].map(len).tolist() == [30] * 3
    assert lists.loc[0, "gold_pos"] == 3 and not lists.loc[0, "inserted"]  # retrieved: left where it was
    for row in lists.iloc[1:].itertuples():
        assert row.inserted and 10 <= row.gold_pos < 30
        rest = [c for c in row.candidates if c != [3, 0, 7][row.Index]]
        assert rest == [c for c in top[row.Index] if c in rest] and len(rest) == 29  # order kept, the last dropped
    places = {int(rr.candidate_lists([list(range(1, 31))], [0], seed=s)["gold_pos"].item()) for s in range(200)}
    assert places == set(range(10, 30))  # uniformly after the 10th: every place 11–30 occurs
    pd.testing.assert_frame_equal(lists, rr.candidate_lists(top, [3, 0, 7], seed=0))  # seeded
    with pytest.raises(ValueError, match="fewer than depth"):
        rr.candidate_lists([[1, 2]], [1], depth=30)


def test_the_lm_reranks_every_list_in_one_cached_call(tiny_causal_dir, tmp_cache):
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    lists = rr.candidate_lists([list(range(30)), list(range(5, 35))], [31, 6], seed=1)
    steps = ["Yazıcını bilgisayarına bağla.", "Kıyafetlerini sık."]
    out = rr.lm_rerank(lm, steps, lists, POOL)
    assert lm.stats.requested == 60 and lm.stats.by_kind == {"loglikelihood": 60}
    assert np.array(out["scores"].tolist()).shape == (2, 30)
    assert all(sorted(t) == sorted(c) for t, c in zip(out["top"], lists["candidates"]))  # a reordering
    scores = np.array(out["scores"].tolist())
    gold = scores[np.arange(2), lists["gold_pos"]]
    assert out["above"].tolist() == (scores > gold[:, None]).sum(axis=1).tolist()
    again = rr.lm_rerank(lm, steps, lists, POOL)
    assert lm.stats.cached == 60 and again["scores"].tolist() == out["scores"].tolist()  # served from the cache
    per_step = rr.stages(pd.DataFrame({"step": steps, "goal": [POOL[31], POOL[6]], "origin": "translated"}), lists,
                         pd.DataFrame({"above": [0.0, 1.0], "tied": [1.0, 1.0]}), out, POOL,
                         first_stage="BM25+ unicode", model=lm.spec)
    recall = rr.recall_by_stage(per_step)
    assert set(recall["metric"]) == {"R@1", "R@10", "MRR"} and set(recall["system"]) == {"BM25+ unicode", lm.spec}


def test_rerank_rows_stand_beside_the_papers_rerankers_with_every_difference_declared(start):
    run = start("04_linking", model="hf:x")
    run.set_data_source(protocol.REBUILT_POOL, {"test steps": 440}, protocol.pool_note(51550, 0))
    recall = pd.DataFrame({"system": ["BM25+ unicode F5"] * 2 + ["hf:x"] * 2, "pool": "top 30 + gold", "group": "all",
                           "metric": ["R@1", "R@10"] * 2, "value": [20.0, 50.0, 25.0, 60.0], "n": 30})
    labels = protocol.rerank_labels(run, recall, "BM25+ unicode F5")
    beside = lk.beside_table5(recall[recall["system"] == "hf:x"], "+ BERTurk", labels, rr.PAPER_ROWS["+ BERTurk"])
    assert beside.set_index("metric")["reported"].to_dict() == {"R@1": 40.5, "R@10": 78.9}
    assert beside["delta"].isna().all() and not beside["comparable"].any()
    assert (beside["model_status"] == "hf:x beside the paper's BERTurk").all()
    ours, first = labels({"system": "hf:x", "pool": "top 30 + gold"}), labels({"system": "BM25+ unicode F5",
                                                                               "pool": "top 30 + gold"})
    assert {"reranker", "rerank_context", "rerank_first_stage", "n_rerank_queries"} <= {d.key for d in ours.items}
    assert "zero-shot log-likelihood" in ours.protocol and "fine-tuned on the 1,319 training links" in ours.protocol
    assert "candidates from BM25+ unicode F5" in ours.protocol and "our reading: gold goal put in" in ours.protocol
    assert "n_rerank_queries 30" in ours.data and first.model_spec is None and "no reranking" in first.protocol
    assert rr.best_first_stage(pd.DataFrame({"system": ["BM25+ a", "BM25+ b"], "pool": "full", "group": "all",
                                             "metric": "R@30", "value": [18.0, 25.0]})) == "BM25+ b"


def test_culturelab_check_names_the_rerankers_differences_while_the_section_is_on():
    params = {"encoder": "bundled:e5-small", "model": "bundled:gemma3-270m", "data_source": "auto", "data_dir": "",
              "max_queries": 0, "n_dense_queries": 0, "dense_pool_size": 0, "n_rerank_queries": 0, "rerank_depth": 30}
    on = "\n".join(check_notebook("turkish_plu/04_linking", {**params, "run_llm": True}).lines())
    assert "zero-shot log-likelihood" in on and "the step alone" in on and "Sup. SimCSE-TR BERTurk" in on
    assert "bundled:gemma3-270m (model) is not one of the paper's models" in on
    off = "\n".join(check_notebook("turkish_plu/04_linking", {**params, "run_llm": False}).lines())
    assert "zero-shot log-likelihood" not in off


def test_the_rerank_figure_sets_the_papers_first_stage_beside_its_rerankers():
    """Review: the rerank figure drew the paper's reranked R@1/R@10 beside our lists before and after, but not the
    paper's own lists before reranking (its best retriever: the gold put in after the 10th leaves its R@1 and R@10
    as they were), so the paper's gain could not be read beside ours; and no bar for R@30, which no reranker row has."""
    recall = pd.DataFrame({"system": ["BM25+ unicode", "hf:x"] * 2, "pool": "top 30 + gold", "group": "all",
                           "metric": ["R@1", "R@1", "R@10", "R@10"], "value": [5.0, 6.0, 40.0, 45.0],
                           "ci_low": 1.0, "ci_high": 60.0, "n": 30})
    table = rr.beside_paper(recall)
    first = table[table["system"] == rr.PAPER_FIRST_STAGE].set_index("metric")["value"]
    assert first.to_dict() == {"R@1": 33.4, "R@10": 55.7}
    assert set(table["metric"]) == {"R@1", "R@10"}
    assert list(dict.fromkeys(table["system"]))[:3] == [rr.PAPER_FIRST_STAGE, "paper + BERTurk", "paper + DistilBERTurk"]
    assert set(table.loc[table["system"].str.startswith("paper"), "n"]) == {440}
