"""Full step reordering from ordered methods: 5–10 steps only, deterministic per seed, scored with
the shared CAPTEx code."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.models import load_model
from culturelab.tasks.reorder import shuffle_permutation
from culturelab.turkish_plu import reordering as ro


def test_builder_never_emits_an_instance_outside_5_to_10_steps(toy_corpus):
    inst = ro.build_reorder_instances(toy_corpus, seed=3)
    assert inst["n_steps"].between(5, 10).all() and sorted(inst["n_steps"].unique()) == list(range(5, 11))
    assert len(inst) == 6  # one ordered method per length; the unordered twins and the repeated-step method are out
    assert all(sorted(p) == list(range(n)) for p, n in zip(inst["perm"], inst["n_steps"]))
    assert all(len(s) == n for s, n in zip(inst["shown_steps"], inst["n_steps"]))
    for per_length in (None, 1):
        sample = ro.build_reorder_instances(toy_corpus, seed=0, per_length=per_length, ordered_only=False)
        assert sample["n_steps"].between(5, 10).all()
    with pytest.raises(ValueError, match="min_steps"):
        ro.build_reorder_instances(toy_corpus, min_steps=1)
    with pytest.raises(ValueError, match="max_steps"):
        ro.build_reorder_instances(toy_corpus, max_steps=27)


def test_builder_is_deterministic_per_seed(toy_corpus):
    a = ro.build_reorder_instances(toy_corpus, seed=7, ordered_only=False, per_length=1)
    b = ro.build_reorder_instances(toy_corpus.sample(frac=1, random_state=1), seed=7, ordered_only=False, per_length=1)
    pd.testing.assert_frame_equal(a, b)  # input order does not matter
    c = ro.build_reorder_instances(toy_corpus, seed=8, ordered_only=False, per_length=1)
    assert a["perm"].tolist() != c["perm"].tolist()
    # a method's shuffle depends only on (seed, id): the same in the full set and in any sample
    full = ro.build_reorder_instances(toy_corpus, seed=7, ordered_only=False).set_index("id")["perm"]
    assert all(full[i] == p for i, p in zip(a["id"], a["perm"]))
    assert a["perm"].iloc[0] == shuffle_permutation(int(a["n_steps"].iloc[0]), 7, a["id"].iloc[0])


def test_real_corpus_instances(real_root):
    from culturelab.turkish_plu.data import Release

    inst = ro.build_reorder_instances(Release(real_root.parent).corpus())
    assert len(inst) == 2631 and inst["n_steps"].between(5, 10).all() and inst["id"].is_unique


def test_scoring_uses_the_shared_metrics(toy_corpus, tiny_causal_dir, tmp_cache):
    inst = ro.build_reorder_instances(toy_corpus, seed=0).head(2)
    shown = ro.as_shown_baseline(inst)
    assert shown["valid"].all() and shown["rho"].between(-1, 1).all()
    gold = ro.add_pair_accuracy(inst.assign(pred_order=[list(range(n)) for n in inst["n_steps"]]))
    assert (gold["pair_acc"] == 1.0).all()
    assert ro.adjacent_pair_accuracy([2, 1, 0], 3) == 0.0
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    out = ro.run_reordering(lm, inst, max_new_tokens=6)
    assert len(out) == 2 and {"raw_output", "valid", "rho", "tau", "ld", "pair_acc", "parse_method"} <= set(out)
    assert out["prompt"].iloc[0].startswith('Aşağıdaki adımlar "') and "A. " in out["prompt"].iloc[0]
    assert (~out["valid"]).sum() == 0 or (out.loc[~out["valid"], "rho"] == 0).all()  # policy "zero"
    table = ro.by_length(pd.concat([shown, out]), ["method"])
    assert set(table["metric"]) == set(ro.METRICS) and table["valid_share"].between(0, 1).all()


def test_random_expectation_per_length():
    t = ro.random_expectation([5, 10, 5], n_samples=3000).set_index(["n_steps", "metric"])["value"]
    assert t[(5, "pair_acc")] == 0.5 and abs(t[(10, "rho")]) < 0.05 and t[(10, "ld")] > t[(5, "ld")]


def test_table6_so_beside_puts_each_method_beside_each_paper_row_beyond_the_paper(start):
    from culturelab.turkish_plu import protocol

    scored = pd.DataFrame({"method": ["as shown", "as shown", "llm"], "model": ["baseline", "baseline", "hf:x"],
                           "id": ["a", "b", "a"], "pair_acc": [0.5, 0.6, 1.0], "valid": True})
    run = start("03_step_ordering")
    run.set_data_source("released", {"methods": 2})
    methods = scored.groupby("method")["id"].nunique()
    table = ro.table6_so_beside(scored, protocol.method_labels(run, lambda row: {"methods": int(methods[row["method"]])}))
    assert len(table) == 2 * len(ro.SO_PAPER_ROWS) and set(table["paper_model"]) == set(ro.SO_PAPER_ROWS)
    row = table[(table["method"] == "as shown") & (table["paper_model"] == "Random")].iloc[0]
    assert row["ours"] == pytest.approx(55.0) and row["reported"] == 50.0 and np.isnan(row["delta"]) and not row["comparable"]
    assert table["protocol"].str.startswith("beyond the paper: full reordering").all()
    llm = table[table["method"] == "llm"].set_index("paper_model")
    assert llm.loc["BERTurk FT", "model_status"] == "hf:x beside the paper's BERTurk"
    assert llm.loc["BERTurk FT", "data"].startswith("1 of 6,720 methods; n_per_length 30") and row["data"] == "2 of 6,720 methods"


def test_table6_so_beside_scores_valid_answers_only_with_their_share(start):
    """Issue 30 item 15: free generation's invalid answers (pair accuracy 0 under policy "zero") must
    not print "ours 0.0" beside the paper's Random 50: the valid answers are scored, their share beside."""
    from culturelab.turkish_plu import protocol

    free = pd.DataFrame({"method": "llm, free", "model": "hf:x", "id": list("abcd"), "pair_acc": [0.75, 0.0, 0.0, 0.0],
                         "valid": [True, False, False, False]})
    never = free.assign(method="llm, never valid", valid=False)
    table = ro.table6_so_beside(pd.concat([free, never]), protocol.method_labels(start("03_step_ordering")))
    random = table[table["paper_model"] == "Random"].set_index("method")
    assert random.loc["llm, free", "ours"] == pytest.approx(75.0)  # not the 18.75 of all four answers
    assert random.loc["llm, free", ["n", "answers", "valid_share"]].tolist() == [1, 4, 0.25]
    assert np.isnan(random.loc["llm, never valid", "ours"]) and random.loc["llm, never valid", "valid_share"] == 0
    assert np.isnan(random.loc["llm, never valid", "delta"])


def test_constrained_decoding_gives_valid_orders_labelled_a_deviation(toy_corpus, tiny_causal_dir, tmp_cache, start):
    from culturelab.tasks.reorder import DECODING_LABELS, answer_habits
    from culturelab.turkish_plu import protocol

    inst = ro.build_reorder_instances(toy_corpus, seed=0).iloc[[0, 5]]  # 5 and 10 steps
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    free = ro.run_reordering(lm, inst, max_new_tokens=6)
    constrained = ro.run_reordering(lm, inst, decoding="constrained")
    assert constrained["valid"].all() and (constrained["parse_method"] == "letters").all()
    assert set(constrained["method"]) == {ro.llm_method("constrained")} and "deviation" in DECODING_LABELS["constrained"]
    assert set(free["method"]) == {ro.llm_method("free")} and set(constrained["decoding"]) == {"constrained"}
    assert lm.stats.by_kind == {"generate": 2, "generate_constrained": 2}
    habits = answer_habits(pd.concat([free, constrained]), ["decoding"]).set_index("decoding")
    assert habits.loc["constrained", "valid_answers"] == 2 and habits["starts_with_example"].between(0, 1).all()
    labels = protocol.method_labels(start("03_step_ordering", model=lm.spec, decoding=["free", "constrained"]))
    beside = ro.table6_so_beside(pd.concat([free, constrained]), labels)
    assert beside["delta"].isna().all() and not beside["comparable"].any()  # beyond the paper: never a Δ
    settings = {m: [d.key for d in labels({"method": m, "model": lm.spec}).items] for m in beside["method"].unique()}
    assert "decoding" in settings[ro.llm_method("constrained")]  # the run's comparison names the deviation
    assert "decoding" not in settings[ro.llm_method("free")]  # CAPTEx's protocol, whatever the run's list says


def test_metrics_by_length_and_the_figure_come_from_valid_answers(toy_corpus):
    from culturelab.plots import audit
    from culturelab.turkish_plu.figures import reorder_curves

    inst = ro.build_reorder_instances(toy_corpus, seed=0)
    shown = ro.as_shown_baseline(inst)
    gold = ro.add_pair_accuracy(pd.concat([shown.assign(method="free", raw_output="", valid=False, rho=0.0),
                                           shown.assign(method="constrained", rho=1.0)]))
    table = ro.by_length(pd.concat([shown, gold]), ["method"]).query("metric == 'rho'").set_index(["method", "n_steps"])
    assert (table.loc["free", "n"] == 0).all() and table.loc["free", "mean"].isna().all()  # no valid answer
    assert (table.loc["free", "answers"] == 1).all() and (table.loc["free", "valid_share"] == 0).all()
    assert (table.loc["constrained", "mean"] == 1).all() and (table.loc["constrained", "n"] == 1).all()
    random = ro.random_expectation(inst["n_steps"], n_samples=500)
    fig = reorder_curves(pd.concat([shown, gold]), random, hue_order=["as shown", "free", "constrained"])
    assert audit.problems(audit.inspect(fig), audit.claims_of(fig)) == []  # n, chance, methods named
    assert len(fig.axes) == 5 and fig.axes[-1].get_ylabel() == "valid answers (share)"
    rho_lines = {line.get_label() for line in fig.axes[0].lines}
    assert rho_lines == {"as shown (100 % valid)", "constrained (100 % valid)", "random"}  # free: no valid answer
    validity = {line.get_label(): list(line.get_ydata()) for line in fig.axes[-1].lines}
    assert validity["free (0 % valid)"] == [0.0] * 6 and validity["constrained (100 % valid)"] == [1.0] * 6
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["as shown (100 % valid)", "free (0 % valid)",
                                                                 "constrained (100 % valid)", "random"]


def test_a_backend_that_cannot_constrain_keeps_the_free_protocol(tmp_path, monkeypatch, tiny_causal_dir):
    from culturelab.runner import Run
    from culturelab.tasks.reorder import supported_decodings

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    for spec, expected in [(f"hf:{tiny_causal_dir}", ["free", "constrained"]), ("openai:gpt-4o", ["free"]),
                           ("openai-compatible:http://127.0.0.1:9/v1#m", ["free"])]:
        run = Run("turkish_plu/03_step_ordering", {"model": spec, "seed": 0}, name="t")
        assert supported_decodings(run, ["free", "constrained"]) == expected, spec
        assert len(run.info.get("skipped", [])) == 2 - len(expected)


def test_the_default_run_scores_at_least_30_methods_per_step_count(real_root):
    from culturelab import config
    from culturelab.params import notebook_defaults
    from culturelab.runner import notebook_file, plan
    from culturelab.turkish_plu.data import Release

    def params(run: str) -> dict:
        name = "turkish_plu/03_step_ordering"
        return dict(plan(config.project_root() / "papermill_params" / f"{run}.yaml", [name]).jobs)[name]

    default, paper = params("default"), params("paper")
    assert default["decoding"] == ["free", "constrained"] and paper["decoding"] == ["free"]
    # the notebook opened as it is (JupyterLab, no parameter file) draws the same figure as the default run
    own = notebook_defaults(notebook_file("turkish_plu/03_step_ordering"))
    assert {k: own[k] for k in ("run_llm", "n_per_length", "decoding")} == \
        {k: default[k] for k in ("run_llm", "n_per_length", "decoding")}
    sample = ro.build_reorder_instances(Release(real_root.parent).corpus(), per_length=default["n_per_length"])
    assert sample.groupby("n_steps").size().to_dict() == dict.fromkeys(range(5, 11), 30)
