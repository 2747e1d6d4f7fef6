"""FMLAMA's protocol as data (issue 21): the candidate pool and its chance line, eq. 2 over the
candidate's own sub-tokens, T5/mT5 span scoring as the paper's protocol, mWS only with vectors
of the probed language, the baselines out of the mAP–mWS correlation, and the labels every table
carries — all from one comparison (``culturelab/fmlama/protocol.py``)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from culturelab import config
from culturelab.fmlama import data as F
from culturelab.fmlama import probing as P
from culturelab.fmlama import protocol as paper
from culturelab.fmlama import tables
from culturelab.fmlama.metrics import gold_matrix, random_ranking_ap, rank_metrics
from culturelab.models.base import LogLikelihood
from culturelab.params import notebook_defaults
from culturelab.protocol import check_notebook
from culturelab.runner import Run, notebook_file, plan

PAPER_FILE = config.project_root() / "papermill_params" / "paper.yaml"
MT5 = "seq2seq:google/mt5-base"


def _defaults(notebook: str, **params) -> dict:
    """The notebook's own parameter defaults, updated with ``params`` (what ``culturelab check`` sees)."""
    return {**notebook_defaults(notebook_file(notebook)), **params}


@pytest.fixture()
def released_run(tmp_path, monkeypatch):
    """``make(notebook, **params)``: a :class:`Run` (outputs under ``tmp_path``) stamped as reading the release."""
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))

    def make(notebook: str, **params) -> Run:
        run = Run(notebook, _defaults(notebook, **params), name="t")
        run.set_data_source("released")
        return run

    return make


# ------------------------------------------------------------------ the pool and its chance line
def test_random_ranking_ap_is_the_exact_expectation_of_a_seeded_simulation():
    rng = np.random.default_rng(0)
    for n, n_gold in [(7, 1), (7, 3), (30, 5), (64, 2)]:
        gold = np.zeros((20_000, n), bool)
        gold[:, :n_gold] = True
        simulated = rank_metrics(rng.random(gold.shape), gold)["ap"]
        assert random_ranking_ap(n, n_gold) == pytest.approx(simulated.mean(), abs=4 * simulated.std() / 141)
    assert random_ranking_ap(5, 5) == 1.0 and np.isnan(random_ranking_ap(5, 0))


def test_the_chance_line_of_the_pool_used_and_of_the_papers_pool_is_in_every_probing_table():
    en = F.load_language("en", data_source="sample")
    small, full = (P.probe_jobs({"en": en}, per_group=1, max_total=t, max_candidates=k, seed=0)[0] for t, k in ((2, 3),
                                                                                                              (0, 0)))
    rows = P.probe_grid(None, [small], template_ids=[1], contexts=[False])
    assert set(rows["model"]) == {P.BASELINE, P.RANDOM}
    chance = tables.chance_of(tables.summarise_probing(rows, by=("lang", "model", "context")))
    gold = gold_matrix(list(small.table["ingredients"]), small.candidates)
    assert chance["ALL"] == pytest.approx(100 * np.mean(random_ranking_ap(len(small.candidates), gold.sum(1))))
    pools = tables.pool_table([small])
    assert pools.loc[0, "random-ranking mAP, this pool"] == pytest.approx(chance["ALL"])
    every = gold_matrix(list(en["ingredients"]), full.candidates).sum(1)
    assert pools.loc[0, "random-ranking mAP, the paper's pool"] == pytest.approx(
        100 * np.mean(random_ranking_ap(len(full.candidates), every)))
    assert small.pool == f"{len(small.candidates)} of {len(full.candidates)}" and full.pool == 0


def test_the_default_pool_is_declared_and_the_paper_file_uses_the_full_pool():
    for notebook, knobs in (("fmlama/02_probing", ["max_candidates"]),
                            ("fmlama/03_code_switching", ["max_candidates", "pair_candidates"])):
        check = check_notebook(notebook, _defaults(notebook, data_source="sample"))
        assert {f"{k} {_defaults(notebook)[k]}: the probed dishes' gold" for k in knobs} <= {
            line.split(" ingredients")[0] for line in check.protocol.split("; ")}
    run_plan = plan(PAPER_FILE, ["fmlama/*"])
    for name, params in run_plan.jobs:
        lines = run_plan.deviations[name].lines()
        assert not [line for line in lines if "candidates" in line or re.search(r"\bdishes\b", line.split("(")[0])], (name, lines)
        assert all(params.get(k, 0) == 0 for k in ("max_candidates", "pair_candidates", "max_dishes")), name


@pytest.mark.skipif(F.local_root() is None, reason="the FMLAMA release is not in CULTURELAB_DATA")
def test_on_the_release_the_default_pool_makes_chance_an_order_of_magnitude_higher():
    en = F.load_language("en", data_source="local")
    default = P.probe_jobs({"en": en}, per_group=1, max_total=0, max_candidates=20, seed=0)[0]
    row = tables.pool_table([default]).iloc[0]
    assert row["all candidates"] == 1287 and 50 <= row["candidates ranked"] <= 70
    assert row["random-ranking mAP, the paper's pool"] < 1 < 5 < row["random-ranking mAP, this pool"]


# ------------------------------------------------------------------ eq. 2 over the candidate's sub-tokens
class _WordLM:
    """A stand-in causal LM with one token per word and a fixed log-probability per word."""

    def loglikelihood(self, pairs):
        logprobs = {"x": -3.0, "y": -1.5}
        out = []
        for _, continuation in pairs:
            words = continuation.split()
            out.append(LogLikelihood(sum(logprobs.get(w, -0.125) for w in words), len(words), False))
        return out


def test_eq2_averages_over_the_candidates_own_subtokens_not_the_rest_of_the_sentence():
    query, cands = ["[Y] is part of pho"], ["x", "y y y"]
    eq2 = P.score_queries(_WordLM(), query, cands, normalise="eq2")
    continuation = P.score_queries(_WordLM(), query, cands, normalise="continuation")
    # eq. 2: -3/1 and -4.5/3 for the candidates, plus the rest of the sentence (4 words at -0.125) for both
    np.testing.assert_allclose(eq2, [[-3.5, -2.0]])
    np.testing.assert_allclose(continuation, [[-3.5 / 5, -5.0 / 7]])
    assert eq2.argmax() == 1 and continuation.argmax() == 0  # the two rules rank differently here


def test_eq2_on_a_real_causal_model_equals_the_naive_computation(tiny_causal_dir):
    from culturelab.models import load_model

    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", cache=False, progress=False)
    queries, cands = ["[Y] is served with tea", "the food has ingredients of [Y] ."], ["rice", "saffron and butter"]
    scores = P.score_queries(lm, queries, cands)  # the default is the paper's rule
    expected = []
    for query in queries:
        prefix, suffix = query.split("[Y]")
        own = lm.naive_loglikelihood([(prefix, c) for c in cands])
        whole = lm.naive_loglikelihood([(prefix, c + suffix) for c in cands])
        expected.append([o.logprob / o.n_tokens + w.logprob - o.logprob for o, w in zip(own, whole)])
    np.testing.assert_allclose(scores, expected, rtol=1e-4, atol=1e-4)
    assert not np.allclose(scores, P.score_queries(lm, queries, cands, normalise="continuation"))


def test_continuation_is_refused_where_there_is_no_rest_of_the_sentence_and_labelled_where_there_is():
    from culturelab.fmlama import setup

    assert setup.check("02_probing", {"model": MT5, "normalise": "continuation"})
    assert setup.check("02_probing", {"model": "bundled:gemma3-270m", "scoring": "prefix", "normalise": "continuation"})
    assert setup.check("02_probing", {"model": "bundled:gemma3-270m", "normalise": "continuation"}) == []
    with pytest.raises(ValueError, match="continuation"):
        P.score_queries(_WordLM(), ["[Y] x"], ["y"], scoring="prefix", normalise="continuation")
    check = check_notebook("fmlama/02_probing", _defaults("fmlama/02_probing", normalise="continuation"))
    assert ("log-probability averaged over candidate and rest of the sentence (the paper: the mean over the "
            "candidate's own sub-tokens, eq. 2)") in check.protocol
    assert "eq. 2" not in check_notebook("fmlama/02_probing", _defaults("fmlama/02_probing")).protocol


# ------------------------------------------------------------------ the paper's models beside their columns
MBC = "masked:bert-base-multilingual-cased"


def test_a_faithful_masked_lm_run_is_compared_with_its_own_column(released_run):
    run = released_run("fmlama/02_probing", model=MBC, max_dishes_per_group=0, max_candidates=0,
                       templates=[1, 2, 3, 4, 5], encoder="fasttext:/v/cc.{lang}.300.bin")
    mbc = paper.row_deviations(run, MBC)
    assert mbc.comparable and mbc.paper_model == "mB-c"
    summary = pd.DataFrame({"model": [MBC, P.RANDOM], "context": False, "group": "ALL", "metric": "mAP",
                            "mean": [8.2, 0.7], "std": [1.0, 0.0]})
    cmp = tables.compare_probing(summary, "en", deviations_of=lambda m: paper.row_deviations(run, m)).query(
        "group == 'ALL'").set_index("model")
    assert cmp.loc[MBC, "paper_model"] == "mB-c" and cmp.loc[MBC, "reported"] == 7.7
    assert cmp.loc[MBC, "delta"] == pytest.approx(0.5) and cmp.loc[MBC, "chance"] == 0.7
    assert np.isnan(cmp.loc[P.RANDOM, "delta"]) and cmp.loc[P.RANDOM, "protocol"].startswith("beyond the paper")
    # T5 in English, mBERT through a local folder; a causal model is ranked beyond the paper
    assert check_notebook("fmlama/03_code_switching", _defaults("fmlama/03_code_switching", model=MT5)).paper_model == "mT5"
    assert paper.row_deviations(run, "seq2seq:google-t5/t5-base").paper_model == "T5"
    assert paper.row_deviations(run, "masked:/models/bert-base-multilingual-cased").paper_model == "mB-c"
    causal = check_notebook("fmlama/02_probing", _defaults("fmlama/02_probing"))
    assert "bundled:gemma3-270m ranked as a causal LM by log-likelihood (beyond the paper" in causal.protocol
    assert "ranked as a causal LM" not in check_notebook("fmlama/02_probing", _defaults("fmlama/02_probing",
                                                                                          model=MT5)).protocol


def test_t5_rows_name_the_paper_era_regex_fill_and_get_no_delta(released_run):
    """The paper-era T5/mT5 code filled templates with re.sub("[X]", …) (a character class: the
    brackets stay); ours fills literally, so a T5/mT5 row is not the paper's protocol."""
    run = released_run("fmlama/02_probing", model=MT5, max_dishes_per_group=0, max_candidates=0,
                       templates=[1, 2, 3, 4, 5])
    mt5 = paper.row_deviations(run, MT5)
    assert mt5.paper_model == "mT5" and not mt5.comparable and 're.sub("[X]", …)' in mt5.protocol
    summary = pd.DataFrame({"model": [MT5], "context": False, "group": "ALL", "metric": "mAP", "mean": [6.0],
                            "std": [1.0]})
    cmp = tables.compare_probing(summary, "en", deviations_of=lambda m: paper.row_deviations(run, m))
    assert cmp.query("group == 'ALL'")["delta"].isna().all()
    assert "re.sub" not in paper.row_deviations(run, MBC).protocol  # the masked path filled literally too


def test_uncased_models_name_the_tie_rule_and_context_rows_our_country_names(released_run):
    run = released_run("fmlama/02_probing", model=MBC, max_dishes_per_group=0, max_candidates=0,
                       templates=[1, 2, 3, 4, 5])
    uncased = paper.row_deviations(run, "masked:bert-base-multilingual-uncased")
    assert not uncased.comparable and "expected rank" in uncased.protocol and "sorted" in uncased.protocol
    assert paper.row_deviations(run, MBC).comparable
    with_context = paper.row_deviations(run, MBC, context=True)
    assert not with_context.comparable and "33 countries" in with_context.protocol
    table = pd.DataFrame({"model": MBC, "lang": "en", "context": [False, True], "ap": [0.1, 0.2]})
    assert paper.label(run, table, pools={"en": 0})["comparable"].tolist() == [True, False]


# ------------------------------------------------------------------ mWS: vectors of the probed language
def test_mws_is_comparable_only_with_fasttext_vectors_of_the_probed_language(released_run):
    run = released_run("fmlama/02_probing", model=MBC, max_dishes_per_group=0, max_candidates=0,
                       templates=[1, 2, 3, 4, 5])

    def mws(encoder: str, lang: str = "en"):
        return paper.row_deviations(run, MBC, metric="mWS", lang=lang, encoder=encoder)

    assert mws("fasttext:/v/cc.en.300.bin").comparable and mws("fasttext:/v/cc.{lang}.300.bin", "ar").comparable
    assert not mws("fasttext:/v/cc.ar.300.bin").comparable  # fastText, but Arabic vectors for English
    assert "the paper: fastText cc.en.300.bin" in mws("fasttext:/v/cc.ar.300.bin").protocol
    assert not mws("bundled:e5-small").comparable
    assert paper.row_deviations(run, MBC, metric="mAP", encoder="bundled:e5-small").comparable  # mAP needs none
    fixed = check_notebook("fmlama/02_probing", _defaults("fmlama/02_probing", encoder="fasttext:/v/cc.en.300.bin"))
    assert "for every language" in fixed.protocol
    per_lang = check_notebook("fmlama/02_probing", _defaults("fmlama/02_probing", encoder="fasttext:/v/cc.{lang}.300.bin"))
    assert "mWS" not in per_lang.protocol
    assert P.encoder_spec("fasttext:/v/cc.{lang}.300.bin", "he") == "fasttext:/v/cc.he.300.bin"


def test_the_baseline_and_the_chance_line_stay_out_of_the_correlation():
    rng = np.random.default_rng(0)
    groups = list("abcde")
    cells = pd.DataFrame([{"lang": "en", "model": m, "context": False, "group": g, "metric": metric,
                           "mean": rng.uniform()} for m in ("ours", P.BASELINE, P.RANDOM)
                          for metric in ("mAP", "mWS") for g in groups])
    r = tables.metric_correlations(cells)
    assert r["cells"].item() == len(groups) and r["models"].item() == 1
    only = cells[cells["model"] == "ours"].pivot_table(index="group", columns="metric", values="mean")
    assert r["pearson"].item() == pytest.approx(np.corrcoef(only["mAP"], only["mWS"])[0, 1])


# ------------------------------------------------------------------ labels from the one comparison
def test_every_row_is_labelled_by_its_own_model_pool_and_language(released_run):
    run = released_run("fmlama/02_probing")
    table = pd.DataFrame({"model": ["bundled:gemma3-270m", P.BASELINE, P.RANDOM], "lang": "en",
                          "ap": [0.1, 0.2, 0.09]})
    labelled = paper.label(run, table, pools={"en": "64 of 1,287"}).set_index("model")
    # the pool is a deviation of every row, the baselines' (beyond the paper) included
    assert labelled["protocol"].str.contains("64 of 1,287 candidates").tolist() == [True, True, True]
    assert labelled.loc[P.BASELINE, "protocol"].startswith("beyond the paper: frequency-only")
    assert labelled.loc[P.RANDOM, "protocol"].startswith("beyond the paper: the expected score of a random ranking")
    assert "not one of the paper's models" in labelled.loc["bundled:gemma3-270m", "model_status"]
    assert not labelled["comparable"].any()
    assert not hasattr(P, "comparability")  # the hand-written labels are gone


def test_decoder_rows_name_the_subset_of_settings_the_chat_format_and_the_variant(released_run):
    run = released_run("fmlama/04_decoder_llms", model="hf:lmsys/vicuna-7b-v1.5")
    rescored = run.deviations("released", model=paper.RELEASED_ANSWERS,
                              counts={paper.CS_DISHES: 508, paper.CS_SETTINGS: 2})
    assert rescored.data == "2 of 4 code-switching settings"
    assert run.deviations("released", model=paper.RELEASED_ANSWERS,
                          counts={paper.CS_DISHES: 508, paper.CS_SETTINGS: 4}).data == "same"
    ours = run.deviations()
    assert "FastChat's conversation template" in ours.protocol and "best-performing" in ours.protocol
    api = released_run("fmlama/04_decoder_llms", model="openai:gpt-3.5-turbo").deviations()
    assert "conversation template" not in api.protocol and "best-performing" in api.protocol


# ------------------------------------------------------------------ captions and the dataset statistics (issue 30, item 5)
def test_a_caption_over_several_settings_names_each_ones_pool(released_run):
    run = released_run("fmlama/03_code_switching")
    pools = {"EN_en": "20 of 421", "ZH_en": "20 of 368"}
    caption = paper.row_deviations(run, "bundled:gemma3-270m", pool=paper.pool_of(pools)).caption()
    assert "20 of 421 (EN_en), 20 of 368 (ZH_en) candidates" in caption
    assert paper.row_deviations(run, "bundled:gemma3-270m", pool=paper.pool_of({"EN_en": 0, "ZH_en": 0})).comparable \
        is False  # the causal model, not the pool
    assert "candidates" not in paper.row_deviations(run, MBC, pool=paper.pool_of({"EN_en": 0, "ZH_en": 0})).protocol


def test_the_whole_crawl_statistics_get_no_delta_the_subsets_do(released_run):
    from culturelab import reported

    run = released_run("fmlama/01_dataset")
    crawl = run.deviations("statistics", crawl="Dishes.csv")
    assert not crawl.comparable and "differs from the data §3 counts" in crawl.data
    stats = reported.load("fmlama", "dataset")
    table = reported.compare(stats, stats.assign(value=stats["value"] + 1), on=["quantity"], deviations=crawl)
    assert table["delta"].isna().all() and run.deviations().comparable
    assert "crawl" not in str(check_notebook("fmlama/01_dataset", _defaults("fmlama/01_dataset")).lines())
