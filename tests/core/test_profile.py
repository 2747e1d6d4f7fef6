"""The cultural profile: adapters from the notebooks' per-instance results, its statistics, the report loader."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from culturelab.profile import adapters, analysis, report
from culturelab.profile.evaluate import notebooks_for, params_file

#: the labels every results table carries (the run's comparison with its paper)
LABELS = {"data": "sample data (ours, not the paper's)", "protocol": "same"}


def _captex_mcq() -> pd.DataFrame:
    # shaped like runs/<run>/captex/03_mcq/results.csv
    return pd.DataFrame({
        "notebook": "captex/03_mcq", "run": "smoke", "data_source": "sample",
        "procedure_id": ["CN-05", "CN-05", "IR-01", "IR-01"], "country": ["China", "China", "Iran", "Iran"],
        "category": ["Food", "Food", "Rites", "Rites"], "language": ["en", "zh", "en", "fa"],
        "qtype": "SA", "row": [3, 3, 7, 7], "options": json.dumps(["a", "b", "c", "d"]),
        "method": "loglikelihood", "valid": ["True", "True", "False", "True"], "correct": [True, False, False, True],
        "model": "bundled:x", **LABELS})


def test_captex_adapter_maps_every_tidy_column():
    tidy = adapters.adapt("captex/03_mcq", _captex_mcq(), "bundled:x")
    assert tidy.columns.tolist() == adapters.TIDY
    assert tidy["score"].tolist() == [1.0, 0.0, 0.0, 1.0]
    assert tidy["valid"].tolist() == [True, True, False, True]
    assert tidy["culture"].tolist() == ["China", "China", "Iran", "Iran"]
    assert set(tidy["chance"]) == {0.25} and tidy["binary"].all()
    assert tidy["instance"].tolist() == ["CN-05/3", "CN-05/3", "IR-01/7", "IR-01/7"]
    assert tidy["data"].tolist() == [LABELS["data"]] * 4 and set(tidy["protocol"]) == {"same"}


def test_profile_rows_carry_each_rows_labels_and_refuse_unlabelled_results():
    frame = _captex_mcq().assign(protocol=["same", "same", "option log-likelihood", "option log-likelihood"])
    kept = adapters.adapt("captex/03_mcq", frame.iloc[2:], "bundled:x")  # a filtered frame keeps its rows' labels
    assert kept["protocol"].tolist() == ["option log-likelihood"] * 2
    with pytest.raises(KeyError, match="without the 'protocol' label"):
        adapters.adapt("captex/03_mcq", _captex_mcq().drop(columns="protocol"), "bundled:x")


def test_adapter_keeps_only_the_model_asked_for():
    frame = pd.concat([_captex_mcq(), _captex_mcq().assign(model="bundled:y", correct=True)])
    assert adapters.adapt("captex/03_mcq", frame, "bundled:y")["score"].tolist() == [1.0] * 4


def test_turkish_plu_and_percul_adapters_chance_from_the_options():
    tr = pd.DataFrame({"id": ["1", "2"], "task": "so", "method": "llm (sum)", "correct": [True, False],
                       "valid": True, "scores": [json.dumps([-1.0, -2.0])] * 2, "category": ["Food", None], **LABELS})
    t = adapters.adapt("turkish_plu/02_mc_tasks", tr, "m")
    assert t["chance"].tolist() == [0.5, 0.5] and t["task"].iloc[0] == "so (llm (sum))"
    fa = pd.DataFrame({"id": [1], "method": "loglik-text-mean", "correct": [True], "category": ["Food"],
                       "options": [json.dumps(list("abcd"))], "valid": [True], **LABELS})
    assert adapters.adapt("percul/02_models_and_categories", fa, "m")[["culture", "chance"]].iloc[0].tolist() == \
        ["Iran", 0.25]


def test_fmlama_and_reorder_adapters():
    probe = pd.DataFrame({"dish": ["Pizza"], "lang": ["en"], "template": [1], "p1": [1.0], "n_candidates": [8],
                          "group": ["Italy"], **LABELS})
    assert adapters.adapt("fmlama/02_probing", probe, "m")["chance"].iloc[0] == pytest.approx(1 / 8)
    three_gold = adapters.adapt("fmlama/02_probing", probe.assign(n_gold=3), "m")  # a random top is gold 3 times in 8
    assert three_gold["chance"].iloc[0] == pytest.approx(3 / 8)
    reorder = pd.DataFrame({"procedure_id": ["CN-01"], "language": ["zh"], "rho": [0.4], "valid": [False],
                            "country": ["China"], **LABELS})
    t = adapters.adapt("captex/02_reordering", reorder, "m")
    assert not t["binary"].iloc[0] and t["score"].iloc[0] == 0.4 and not t["valid"].iloc[0]


def test_adapter_names_the_missing_column():
    with pytest.raises(KeyError, match=r"captex/03_mcq: results.csv lacks columns \['qtype'\]"):
        adapters.adapt("captex/03_mcq", _captex_mcq().drop(columns="qtype"), "m")


def test_collect_reads_the_run_folder(tmp_path):
    (tmp_path / "captex" / "03_mcq").mkdir(parents=True)
    _captex_mcq().to_csv(tmp_path / "captex" / "03_mcq" / "results.csv", index=False)
    tidy = adapters.collect(tmp_path, "bundled:x")
    assert len(tidy) == 4 and set(tidy["benchmark"]) == {"captex"}


def test_scores_invalid_rate_and_language_gap():
    tidy = adapters.adapt("captex/03_mcq", _captex_mcq(), "bundled:x")
    table = analysis.scores(tidy)
    assert table[["mean", "n", "invalid_rate"]].iloc[0].tolist() == [0.5, 4, 0.25]
    gaps = analysis.language_gaps(tidy).set_index("culture")
    assert gaps.loc["China", "gap"] == 1.0 and gaps.loc["Iran", "gap"] == -1.0


def test_holm_matches_the_textbook_example():
    # p = .01, .02, .03, .04 with m = 4: 4·.01, 3·.02, max(.06, 2·.03), max(.06, .04)
    assert analysis.holm([0.04, 0.01, 0.03, 0.02]).round(4).tolist() == [0.06, 0.04, 0.06, 0.06]
    assert analysis.holm([0.9, 0.8]).tolist() == [1.0, 1.0]


def test_paired_comparison_mcnemar_and_permutation():
    rng = np.random.default_rng(0)
    n = 60
    a = rng.random(n) < 0.8
    rows = [{"model": m, "benchmark": "b", "task": "t", "instance": str(i), "score": float(v), "binary": True}
            for m, vals in (("a", a), ("b", np.zeros(n, bool))) for i, v in enumerate(vals)]
    rows += [{"model": m, "benchmark": "b", "task": "rho", "instance": str(i), "score": v, "binary": False}
             for m, off in (("a", 0.0), ("b", 0.0)) for i, v in enumerate(rng.normal(off, 1, 5))]
    out = analysis.compare_models(pd.DataFrame(rows)).set_index("task")
    assert out.loc["t", "test"] == "McNemar (exact)" and out.loc["t", "significant"]
    assert out.loc["t", "p_holm"] == pytest.approx(min(1.0, 2 * out.loc["t", "p_value"]))
    assert out.loc["rho", "test"] == "paired permutation" and not out.loc["rho", "significant"]


def test_four_continuous_items_all_in_one_direction_are_not_significant():
    """Four paired differences of the same sign: the exact sign-flip p is 2/16 = 0.125 (a bootstrap of
    four points gives ~0.0005, far too optimistic)."""
    rows = [{"model": m, "benchmark": "b", "task": "chrF", "instance": str(i), "score": v, "binary": False}
            for m, vals in (("a", [0.5, 0.6, 0.7, 0.8]), ("b", [0.1, 0.2, 0.3, 0.35])) for i, v in enumerate(vals)]
    out = analysis.compare_models(pd.DataFrame(rows))
    assert out.loc[0, "p_value"] == pytest.approx(0.125) and not out.loc[0, "significant"]


def test_nearest_reported_turkish_plu_uses_table6_in_percent():
    ours = pd.DataFrame({"model": ["m"], "benchmark": ["turkish_plu"], "task": ["so (llm (sum))"], "mean": [0.6],
                         "data": ["same"], "protocol": ["log-likelihood instead of fine-tuning"]})
    row = analysis.nearest_reported(ours).iloc[0]
    assert row["data"] == "same" and row["source"] == "turkish_plu table6"
    assert row["protocol"] == "log-likelihood instead of fine-tuning"  # the comparison's label, carried
    below = float(row["below"].rsplit("(", 1)[1].rstrip(")"))
    above = float(row["above"].rsplit("(", 1)[1].rstrip(")"))
    assert below <= 0.6 < above


def test_load_results_rejects_a_foreign_file(tmp_path):
    f = tmp_path / "x.csv"
    pd.DataFrame({"a": [1]}).to_csv(f, index=False)
    with pytest.raises(KeyError, match="not a profile results file"):
        report.load_results(str(f), run_dir=tmp_path, model="m")


def test_params_file_overrides_model_and_validates(tmp_path, monkeypatch):
    from culturelab.runner import plan

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    notebooks = notebooks_for(["captex"])
    path = params_file("smoke", "bundled:smollm2-135m", notebooks, tmp_path / "profile-smoke")
    run_plan = plan(path, notebooks)
    jobs = dict(run_plan.jobs)
    assert run_plan.run_name == "profile-smoke/bundled-smollm2-135m"
    assert jobs["captex/03_mcq"]["model"] == "bundled:smollm2-135m"
    assert jobs["captex/03_mcq"]["max_procedures"] == 1  # smoke.yaml's size kept


def test_profile_yaml_goes_on_top_of_the_size(tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    path = params_file("smoke", "bundled:x", ["turkish_plu/02_mc_tasks"], tmp_path / "p")
    job = yaml.safe_load(path.read_text())["notebooks"]["turkish_plu/02_mc_tasks"]
    assert job["run_finetune"] is False and job["max_instances"] == 60 and job["model"] == "bundled:x"


def test_load_results_says_when_the_run_has_nothing(tmp_path):
    with pytest.raises(FileNotFoundError, match="no per-instance results of m"):
        report.load_results("", run_dir=tmp_path, model="m")


def test_profile_radar_draws_the_mean_chance_as_a_dashed_ring():
    import matplotlib.pyplot as plt

    from culturelab.profile import figures

    tidy = pd.DataFrame({"model": "m", "benchmark": "b", "task": "t", "binary": True,
                         "chance": [0.25] * 6 + [0.5] * 6, "culture": ["A", "B", "C"] * 4, "score": [1.0, 0.0, 1.0] * 4})
    ax = figures.profile_radar(tidy, "culture").axes[0]
    ring = [ln for ln in ax.lines if ln.get_label().startswith("chance")]
    assert len(ring) == 1 and set(ring[0].get_ydata().tolist()) == {0.375} and ring[0].get_linestyle() == "--"
    no_chance = figures.profile_radar(tidy.assign(chance=np.nan), "culture")
    assert not [ln for ln in no_chance.axes[0].lines if ln.get_label().startswith("chance")]
    assert any(t.get_text().startswith("no chance ring") for t in no_chance.texts)
    plt.close("all")


def test_profile_radar_leaves_out_cultures_too_small_for_every_model_and_names_them():
    import matplotlib.pyplot as plt

    from culturelab.profile import figures

    big = pd.DataFrame({"model": ["m1", "m2"] * 30, "culture": ["A", "B", "C"] * 20, "score": [1.0, 0.0] * 30})
    small = pd.DataFrame({"model": ["m1", "m1", "m2"] + ["m1"] * 12, "culture": ["U.S."] * 3 + ["Italy"] * 12,
                          "score": 1.0})
    tidy = pd.concat([big, small]).assign(benchmark="b", task="t", binary=True, chance=0.25)
    fig = figures.profile_radar(tidy, "culture")
    spokes = [t.get_text().split("\n")[0] for t in fig.axes[0].get_xticklabels()]
    assert spokes == ["A", "B", "C", "Italy"]  # Italy: 12 items for m1, so it stays (hollow for m2)
    assert "not drawn (n < 10 for every model): U.S. (n=2)" in [t.get_text() for t in fig.texts]
    plt.close("all")


def test_score_bars_put_each_benchmark_in_its_own_panel_and_stay_readable_at_profile_size():
    import matplotlib.pyplot as plt

    from culturelab.plots.honest import SMALL_N
    from culturelab.profile import figures

    sizes = {"captex": 11, "turkish_plu": 8, "cultural_recipes": 4, "fmlama": 3, "percul": 1}
    table = pd.DataFrame([{"model": m, "benchmark": b, "task": f"task {i}", "mean": 0.5, "ci_low": 0.4,
                           "ci_high": 0.6, "n": 5 if i == 0 else 40, "chance": 0.25, "invalid_rate": 0.0}
                          for b, k in sizes.items() for i in range(k) for m in ("m1", "m2")])
    fig = figures.score_bars(table)
    assert sorted(ax.get_title(loc="left") for ax in fig.axes) == sorted(sizes)
    assert [len(ax.get_yticklabels()) for ax in fig.axes if ax.get_title(loc="left") == "captex"] == [11]
    width, height = fig.get_size_inches()
    assert height < 12 and width <= 11, (width, height)  # one column of 27 tasks × 2 models was 25 in tall
    faded = [p for ax in fig.axes for p in ax.patches if p.get_gid() == SMALL_N]
    assert len(faded) == 2 * len(sizes)  # task 0 of each benchmark rests on 5 items, for both models
    plt.close("all")


def test_no_radar_never_says_small_spokes_have_enough_items():
    """Smoke sizes: every category under the small-n rule. The reason must not count them as having
    MIN_N items (spokes() keeps them all to draw hollow), and a radar of small spokes only is not drawn."""
    from culturelab.profile import figures

    two = pd.DataFrame({"model": "m", "binary": True, "category": ["Music"] * 3 + ["Dress"] * 2, "score": 1.0})
    why = figures.no_radar(two, "category")
    assert "0 categories have at least 10 items, 2 fewer (Music, n=3, Dress, n=2)" in why
    five = pd.DataFrame({"model": "m", "binary": True, "culture": list("ABCDE") * 2, "score": 1.0})
    assert "0 cultures have at least 10 items, 5 fewer" in figures.no_radar(five, "culture")


def test_profile_radar_writes_captexs_categories_as_its_figures_do():
    """Eleven spokes mixing CAPTEx's long category names with the other benchmarks' short ones overlapped at a
    paper's width: CAPTEx's spokes take the short names of CAPTEx's own figures."""
    import matplotlib.pyplot as plt

    from culturelab.profile import figures

    names = ["Celebrations and Festivals", "Craftsmanship and Artisan Skills", "H&C"]
    tidy = pd.DataFrame({"model": "m", "benchmark": "b", "task": "t", "binary": True, "chance": 0.25,
                         "category": names * 12, "score": [1.0, 0.0, 1.0] * 12})
    fig = figures.profile_radar(tidy, "category")
    assert [t.get_text().split("\n")[0] for t in fig.axes[0].get_xticklabels()] == ["Celebrations", "Craftsmanship",
                                                                                    "H&C"]
    plt.close(fig)
