"""The four tasks end to end: an oracle model (answers known) checks the wiring between
prompts, shuffles, options and scores; the tiny random GPT-2 checks the real backend path,
batching and the response cache."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.captex import aggregate, questions, reordering, setup
from culturelab.captex import evaluate as ev
from culturelab.models.base import LanguageModel, LogLikelihood
from culturelab.models.hf import HFCausalLM
from culturelab.parsing import LETTERS


class Oracle(LanguageModel):
    """Answers from a lookup table prompt → text; scores " X" highest when X is the key's letter."""

    backend = "oracle"

    def __init__(self, answers: dict[str, str]):
        super().__init__("oracle", cache=False, progress=False)
        self.answers = answers
        self.calls: list[tuple[str, int]] = []

    def _generate(self, prompts, **params):
        self.calls.append(("generate", len(prompts)))
        return [self.answers.get(p, "I do not know.") for p in prompts]

    def _loglikelihood(self, requests):
        self.calls.append(("loglikelihood", len(requests)))
        return [LogLikelihood(0.0 if self.answers.get(c, "").startswith(x.strip()) else -5.0, 1, True)
                for c, x in requests]


@pytest.fixture(scope="module")
def data():
    return setup.load_data(max_procedures=7, seed=0)


def test_oracle_reordering_scores_perfectly_and_echo_scores_like_the_shuffle(data):
    s = ev.Settings()
    inst = reordering.reorder_instances(data.procedures, seed=s.seed)
    prompts = reordering.render_prompts(inst, ev._template("reorder", s))
    oracle = Oracle(dict(zip(prompts, inst["gold"])))
    scored = ev.run_reorder(oracle, data, s)
    assert scored["valid"].all() and scored["exact"].all() and (scored["rho"] == 1).all() and (scored["ld"] == 0).all()
    assert sum(n for _, n in oracle.calls) == len(inst) and oracle.stats.requested == len(inst)  # one batched call
    echo = Oracle({p: ", ".join(LETTERS[:n]) for p, n in zip(prompts, inst["n_steps"])})
    echoed = ev.run_reorder(echo, data, s)
    # answering A, B, C… in shown order means predicting the shuffle itself
    from culturelab.metrics.ranking import spearman_rho
    assert echoed["rho"].tolist() == pytest.approx([spearman_rho(p) for p in inst["perm"]])
    # both languages of a procedure got the same shuffle, hence the same echo score
    assert (echoed.groupby("procedure_id")["rho"].nunique() == 1).all()


def test_oracle_mcqs_and_the_two_scoring_methods(data):
    s = ev.Settings()
    frame = questions.pb_mcq_frame(data.mcqs, ev._template("pb_mcq", s))
    answers = {p: LETTERS[a] for p, a in zip(frame["prompt"], frame["answer"])}
    oracle = Oracle(answers)
    res = ev.run_pb_mcq(oracle, data, s)
    assert set(res["method"]) == {"generate", "loglikelihood"}
    assert res["correct"].all() and res["valid"].all()
    ll_calls = [n for kind, n in oracle.calls if kind == "loglikelihood"]
    # every option of every question in one loglikelihood call (the base class commits it in chunks)
    assert sum(ll_calls) == 4 * len(frame) and oracle.stats.requested == 5 * len(frame)
    # a model that always answers "A" is right exactly when the gold letter is A, and invalid answers count as wrong
    always_a = Oracle({p: "A" for p in frame["prompt"]})
    res_a = questions.score_mcqs(always_a, frame, ["generate"])
    assert res_a["correct"].tolist() == (frame["answer"] == 0).tolist()
    mute = questions.score_mcqs(Oracle({}), frame, ["generate"])
    assert not mute["valid"].any() and not mute["correct"].any()
    table = questions.accuracy_by(mute, ["method"])
    assert table["accuracy"].item() == 0 and table["invalid_rate"].item() == 1


def test_cb_mcq_frame_and_oracle(data):
    s = ev.Settings(methods=("generate",))
    frame = questions.cb_mcq_frame(data.conversations, ev._template("cb_mcq", s))
    assert len(frame) == 7 and frame["prompt"].str.contains("Person B:").all()
    assert not frame["prompt"].str.contains("Next step").any()
    oracle = Oracle({p: f"The answer is {LETTERS[a]}." for p, a in zip(frame["prompt"], frame["answer"])})
    assert ev.run_cb_mcq(oracle, data, s)["correct"].all()


def test_position_bias_detects_a_letter_driven_model(data):
    s = ev.Settings(methods=("loglikelihood",))
    template = ev._template("pb_mcq", s)
    frame = questions.pb_mcq_frame(data.mcqs, template)
    first_letter = Oracle({p: "A" for p in frame["prompt"]})
    base = questions.score_mcqs(first_letter, frame, ["loglikelihood"])
    permuted = questions.shuffle_option_order(frame, template, seed=1)
    first_letter.answers.update({p: "A" for p in permuted["prompt"]})
    again = questions.score_mcqs(first_letter, permuted, ["loglikelihood"])
    bias = questions.position_bias(base, again)
    assert bias["letter_agreement"] == 1.0 and bias["content_agreement"] < 0.5 and bias["top_letter_share"] == 1.0
    knows = {p: LETTERS[a] for p, a in zip(frame["prompt"], frame["answer"])}
    knows.update({p: LETTERS[a] for p, a in zip(permuted["prompt"], permuted["answer"])})
    smart = Oracle(knows)
    b2 = questions.position_bias(questions.score_mcqs(smart, frame, ["loglikelihood"]),
                                 questions.score_mcqs(smart, permuted, ["loglikelihood"]))
    assert b2["content_agreement"] == 1.0 and b2["accuracy_original"] == b2["accuracy_permuted"] == 1.0


def test_position_bias_table_reasks_both_tasks_in_other_orders(data):
    s = ev.Settings(methods=("generate", "loglikelihood"), seed=2)
    results = {"pb_mcq": ev.run_pb_mcq(Oracle({}), data, s), "cb_mcq": ev.run_cb_mcq(Oracle({}), data, s)}
    first_letter = Oracle({})
    first_letter._loglikelihood = lambda requests: [LogLikelihood(0.0 if x.strip() == "A" else -5.0, 1, True)
                                                    for _, x in requests]
    table = ev.position_bias_table(first_letter, results, s, n_orders=2, max_questions=5)
    assert table[["task", "order"]].to_dict("list") == {"task": ["PB-MCQ", "CB-MCQ"] * 2, "order": [1, 1, 2, 2]}
    assert table["n"].tolist() == [5, 5, 5, 5]  # a seeded subset of each task
    # the unknowing oracle always scores A highest, in any order: same letter, rarely the same option
    assert (table["letter_agreement"] == 1.0).all() and (table["content_agreement"] < 1.0).all()
    again = ev.position_bias_table(first_letter, results, s, n_orders=2, max_questions=5)
    pd.testing.assert_frame_equal(table, again)
    assert ev.position_bias_table(first_letter, {"cb_mcq": results["cb_mcq"]}, s)["task"].tolist() == ["CB-MCQ"]


def test_negation_consistency_and_paired_test(data):
    s = ev.Settings(methods=("generate",))
    frame = questions.pb_mcq_frame(data.mcqs, ev._template("pb_mcq", s))
    oracle = Oracle({p: LETTERS[a] if lg == "English" else "D" for p, a, lg in
                     zip(frame["prompt"], frame["answer"], frame["lang_group"])})
    res = questions.score_mcqs(oracle, frame, ["generate"])
    cons = questions.negation_consistency(res)
    assert set(cons["pair"]) == {"SA↔SN", "AA↔AN"} and (cons["same_choice"] == 1.0).all()
    test = questions.paired_language_test(res).iloc[0]
    assert test["acc_English"] == 1.0 and test["only_native"] == 0 and test["p_value"] < 0.001


def test_tiny_model_runs_all_tasks_and_uses_the_cache(tiny_causal_dir, tmp_cache, data):
    from culturelab import config
    from culturelab.models.cache import ResponseCache

    cache = ResponseCache(config.cache_dir() / "responses.sqlite")
    lm = HFCausalLM(str(tiny_causal_dir), device="cpu", cache=cache, progress=False, batch_size=8)
    small = data.subset(procedure_ids=data.procedures["procedure_id"].unique()[:2].tolist())
    s = ev.Settings(reorder_tokens=6, answer_tokens=3, reply_tokens=6)
    out = ev.run_tasks(lm, small, s, ["reorder", "pb_mcq", "cb_mcq"])
    assert len(out["reorder"]) == 4 and len(out["pb_mcq"]) == 2 * 16 and len(out["cb_mcq"]) == 2 * 2
    r = out["reorder"]
    assert r["raw_output"].map(lambda t: isinstance(t, str)).all()
    assert r["rho"].between(-1, 1).all() and (r["ld"] >= 0).all() and r["valid"].dtype == bool
    ll = out["pb_mcq"][out["pb_mcq"]["method"] == "loglikelihood"]
    assert ll["valid"].all() and ll["scores"].map(len).eq(4).all()
    computed = lm.stats.computed
    again = ev.run_tasks(lm, small, s, ["reorder", "pb_mcq", "cb_mcq"])
    assert lm.stats.computed == computed  # everything served from the cache
    pd.testing.assert_frame_equal(again["reorder"][["raw_output", "rho"]], r[["raw_output", "rho"]])


def test_constrained_reordering_on_the_real_backend_is_valid_and_never_beside_the_paper(tiny_causal_dir, tmp_cache,
                                                                                          data, tmp_path, monkeypatch):
    from culturelab.captex.protocol import PROTOCOL
    from culturelab.protocol import DataUsed, compare
    from culturelab.runner import Run

    lm = HFCausalLM(str(tiny_causal_dir), device="cpu", progress=False, batch_size=8)
    small = data.subset(procedure_ids=data.procedures["procedure_id"].unique()[:2].tolist())
    s = ev.Settings(reorder_tokens=6)
    scored = pd.concat([ev.run_reorder(lm, small, s, decoding=d) for d in ("free", "constrained")], ignore_index=True)
    constrained = scored[scored["decoding"] == "constrained"]
    assert len(constrained) == 4 and constrained["valid"].all()
    assert lm.stats.by_kind == {"generate": 4, "generate_constrained": 4}
    # the paper's data and no model (a model-free comparison): only the decoding can keep a Δ away
    release = DataUsed("released", {"procedures": 700})
    table = aggregate.table4_by_decoding(scored, "Random", lambda d: compare(PROTOCOL["02_reordering"], {"decoding": d},
                                                                              release)).set_index("decoding")
    assert table.loc["free", "protocol"].eq("same").all() and table.loc["free", "delta"].notna().all()
    assert table.loc["constrained", "protocol"].str.startswith("answers constrained to valid orders").all()
    assert table.loc["constrained", "delta"].isna().all()  # a deviation is never compared with the paper
    # a run of both decodings labels each row by its own decoding (Run.label by "decoding")
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    run = Run("captex/02_reordering", {"model": lm.spec, "decoding": ["free", "constrained"]}, name="t")
    labelled = run.label(scored, ["decoding"]).set_index("decoding")["protocol"]
    assert labelled["constrained"].str.contains("constrained to valid orders").all()
    assert not labelled["free"].str.contains("constrained").any()
    assert "answers also constrained" in run.deviations().protocol  # the run as a whole (culturelab check)
    steps = reordering.by_steps_valid(scored, ["decoding"])
    assert (steps["n"] == (steps["answers"] * steps["valid_rate"]).round().astype(int)).all()


def test_procedure_scores_and_table4_row(data):
    reorder = pd.DataFrame({"procedure_id": ["a", "a"], "country": ["Iran"] * 2, "category": ["Food and Cuisine"] * 2,
                            "lang_group": ["English", "native"], "rho": [1.0, 0.0], "tau": [1.0, 0.0], "ld": [0, 4],
                            "ld_norm": [0.0, 0.8], "valid": [True, False]})
    pb = pd.DataFrame({"procedure_id": ["a"] * 4, "country": ["Iran"] * 4, "category": ["Food and Cuisine"] * 4,
                       "lang_group": ["English", "English", "native", "native"], "method": ["generate"] * 4,
                       "correct": [True, True, False, True], "valid": True})
    per_lang = ev.procedure_scores({"reorder": reorder, "pb_mcq": pb}, by_language=True)
    assert per_lang.set_index("lang_group")["pb_mcq"].to_dict() == {"English": 1.0, "native": 0.5}
    # beside every score, how much of it rests on valid answers (the native order was invalid, scored 0)
    assert per_lang.set_index("lang_group")[["reorder_valid", "all_valid"]].to_dict("index") == {
        "English": {"reorder_valid": 1.0, "all_valid": True}, "native": {"reorder_valid": 0.0, "all_valid": False}}
    pooled = ev.procedure_scores({"reorder": reorder, "pb_mcq": pb})
    assert pooled["rho"].item() == 0.5 and pooled["pb_mcq"].item() == 0.75 and pooled["reorder_valid"].item() == 0.5
    row = ev.table4_row({"reorder": reorder, "pb_mcq": pb})
    assert row["rho"] == 0.5 and row["ld"] == 2 and row["pb_mcq"] == 0.75


def test_select_procedures_is_balanced_deterministic_and_prefix_stable(data):
    procs = setup.load_data().procedures
    a = setup.select_procedures(procs, 10, seed=3)
    assert a == setup.select_procedures(procs, 10, seed=3)
    assert setup.select_procedures(procs, 14, seed=3)[:10] == a  # a smaller run is a prefix: cache re-use
    assert pd.Series([i[:2] for i in a]).value_counts().max() == 2
    assert len(setup.select_procedures(procs, 0)) == 105
    category = procs.drop_duplicates("procedure_id").set_index("procedure_id")["category"]
    for seed in range(6):  # small runs cover every category, evenly
        counts = category[setup.select_procedures(procs, 7, seed=seed)].value_counts()
        assert len(counts) == 5 and counts.max() - counts.min() <= 1
        per_country = category[setup.select_procedures(procs, 14, seed=seed)].groupby(lambda i: i[:2])
        assert (per_country.nunique() == 2).all()  # a country's two picks are different categories


def test_settings_from_params():
    s = ev.settings_from({"max_reorder_tokens": 20, "bertscore_rescale": True, "unrelated": 1})
    assert s.reorder_tokens == 20 and s.bertscore_rescale is True and s.methods == ("generate", "loglikelihood")
    assert ev.settings_from({"methods": ["loglikelihood"]}).methods == ("loglikelihood",)


def test_step_number_leaks_ignore_quantities_shared_with_english():
    procs = pd.DataFrame({
        "procedure_id": ["p", "p"], "country": ["Japan"] * 2, "language": ["en", "ja"],
        "lang_group": ["English", "native"], "n_steps": [5, 5],
        "steps": [["Soak for 3 hours.", "b", "c", "d", "Add the stock."],
                  ["3時間浸す。", "b", "c", "d", "2と3を加える。"]]})
    leaks = reordering.step_number_leaks(procs)
    assert leaks["leaks"].item() == [(5, [2, 3])]


def test_minor_swaps_and_policy_rescoring():
    t = pd.DataFrame({"perm": [[0, 1, 2, 3]] * 3, "shown_steps": [None] * 3,
                      "raw_output": ["B, A, C, D", "D, C, B, A", "A, B"]})
    scored = reordering.score_orders(t.drop(columns="raw_output"), t["raw_output"], steps_col="shown_steps")
    scored["kendall_dist"] = [1, 6, np.nan]
    swaps = reordering.minor_swap_share(scored)
    assert swaps["wrong_valid"].item() == 2 and swaps["one_swap_share"].item() == 0.5
    pol = reordering.rescore_policies(t).set_index("policy")
    assert pol.loc["drop", "scored_share"] == pytest.approx(2 / 3)
    assert pol.loc["repair", "rho"] > pol.loc["zero", "rho"]
