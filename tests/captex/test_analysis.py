"""Aggregates, reported-number comparisons, word counts, CB-QA scoring and figures."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from culturelab.captex import aggregate, cbqa, figures, wordcount
from culturelab.captex import data as cx
from culturelab.plots.honest import N_ROW
from culturelab.reported import load as load_reported

matplotlib.use("Agg")


def test_footnote_weights_by_hand():
    cells = pd.DataFrame({"rho": [0.5], "tau": [0.25], "ld": [2.0], "ld_norm": [0.4], "pb_mcq": [0.6],
                          "cb_mcq": [0.7], "rouge_l": [0.2], "bertscore": [0.5], "ss": [0.4]})
    fig3 = aggregate.aggregate(cells, "fig3", lmax=4.0)[0]
    assert fig3 == pytest.approx(0.2 * 0.5 + 0.2 * 0.25 + 0.2 * 0.5 + 0.4 * 0.6)
    fig8 = aggregate.aggregate(cells, "fig8", lmax_mode="per_instance")[0]
    assert fig8 == pytest.approx(0.05 + 0.025 + 0.06 + 0.12 + 0.14 + 0.02 + 0.05 + 0.04)
    shifted = aggregate.aggregate(cells, "fig3", lmax=4.0, norm_scheme="shift")[0]
    assert shifted == pytest.approx(fig3 + 0.2 * (0.75 - 0.5) + 0.2 * (0.625 - 0.25))
    with pytest.raises(ValueError, match="lack the columns"):
        aggregate.aggregate(cells.drop(columns="ss"), "fig8")
    with pytest.raises(ValueError, match="ld_norm"):
        aggregate.aggregate(cells.drop(columns="ld_norm"), "fig3", lmax_mode="per_instance")


def test_fig8_from_table4_reproduces_the_derived_ordering():
    t = aggregate.reported_fig8().set_index("model")["score"]
    assert t["GPT-4o"] == pytest.approx(0.63, abs=0.005) and t["O3-mini"] == pytest.approx(0.61, abs=0.005)
    assert t["Qwen2.5-14B-Instruct"] == pytest.approx(0.57, abs=0.005)
    assert t["Mamba-1.4b-hf"] == pytest.approx(0.12, abs=0.005)
    assert t.idxmax() == "GPT-4o" and t.idxmin() in {"Mamba-1.4b-hf", "Mamba-2.8b-hf"}


def test_task_rank_correlations_match_the_spec():
    t = aggregate.task_rank_correlations().set_index("pair")
    expected = {"reordering–pb_mcq": (0.70, 0.86), "reordering–cb_mcq": (0.64, 0.82), "pb_mcq–cb_mcq": (0.76, 0.90),
                "reordering–cb_qa": (0.37, 0.49), "pb_mcq–cb_qa": (0.48, 0.62), "cb_mcq–cb_qa": (0.49, 0.61)}
    for pair, (kendall, spearman) in expected.items():
        assert t.loc[pair, "kendall"] == pytest.approx(kendall, abs=0.006)
        assert t.loc[pair, "spearman"] == pytest.approx(spearman, abs=0.006)


def test_reported_tables_are_complete():
    t4 = load_reported("captex", "table4")
    assert t4["model"].nunique() == 32 and len(t4) == 32 * 8
    assert load_reported("captex", "table5").shape[0] == 28
    t5 = load_reported("captex", "table5").pivot(index="model", columns="qtype", values="value")
    pb = t4[t4["metric"] == "pb_mcq"].set_index("model")["value"]
    # the paper's PB-MCQ column is the mean of the four types (spec §2, Task 2)
    for model, row in t5.iterrows():
        assert row.mean() == pytest.approx(pb[model], abs=0.006)
    t3 = load_reported("captex", "table3")
    assert set(t3["country"]) == set(cx.COUNTRIES) and len(t3) == 7 * (4 * 2 + 4)
    assert set(load_reported("captex", "table6")["category"]) == set(cx.CATEGORIES)


def test_compare_and_paper_model_lookup():
    from culturelab.captex.protocol import MODELS, PROTOCOL
    from culturelab.protocol import DataUsed, compare, paper_model_of

    assert paper_model_of("hf:mistralai/Mistral-Nemo-Instruct-2407", MODELS) == "Mistral-Nemo-Instruct-2407"
    assert paper_model_of("openai-compatible:http://x/v1#Qwen/Qwen2.5-14B", MODELS) == "Qwen2.5-14B"
    assert paper_model_of("openai:gpt-4o", MODELS) == "GPT-4o" and paper_model_of("bundled:gemma3-270m", MODELS) == ""
    release = DataUsed("released", {"procedures": 700, "mcqs": 5600, "conversations": 700})
    model_free = compare(PROTOCOL["02_reordering.random"], {}, release)
    table = aggregate.compare_with_table4({"ld": 5.5, "rho": 0.1}, "Random", ["rho", "ld"],
                                          deviations=model_free).set_index("metric")
    assert table.loc["ld", "delta"] == pytest.approx(-0.06) and table.loc["rho", "reported"] == 0.0
    bundled = compare(PROTOCOL["02_reordering"], {}, release, model="bundled:gemma3-270m", paper_models=MODELS)
    apart = aggregate.compare_with_table4({"ld": 5.5}, "Random", ["ld"], deviations=bundled)
    assert apart["ours"].item() == 5.5 and np.isnan(apart["delta"].item()) and not apart["comparable"].item()
    assert apart["model_status"].item() == "bundled:gemma3-270m beside the paper's Random"
    qwen = compare(PROTOCOL["02_reordering"], {}, release, model="hf:Qwen/Qwen2.5-7B-Instruct", paper_models=MODELS)
    own = aggregate.compare_with_table4({"ld": 4.0}, "Qwen2.5-7B-Instruct", ["ld"], deviations=qwen)
    assert own["delta"].item() == pytest.approx(4.0 - 3.65) and own["comparable"].item()


def test_fig_cells_and_components():
    proc = pd.DataFrame({"procedure_id": ["a", "b"], "country": ["Iran", "Iran"], "category": ["Food and Cuisine"] * 2,
                         "rho": [1.0, 0.0], "tau": [1.0, 0.0], "ld": [0.0, 5.0], "ld_norm": [0.0, 1.0],
                         "pb_mcq": [1.0, 0.0], "cb_mcq": [1.0, 0.0], "rouge_l": [1.0, 0.0], "bertscore": [1.0, 0.0],
                         "ss": [1.0, 0.0]})
    cells = aggregate.fig4_cells(proc)
    assert cells["score"].item() == pytest.approx(0.5) and cells["n"].item() == 2
    comp = aggregate.category_components(proc).set_index("component")["score"]
    assert comp["reordering"] == pytest.approx(0.5) and comp["aggregate"] == pytest.approx(0.5)
    per_lang = proc.assign(lang_group=["English", "native"])
    f3 = aggregate.fig3_cells(per_lang).set_index("lang_group")["score"]
    assert f3["English"] == pytest.approx(1.0) and f3["native"] == pytest.approx(0.0)
    by_cat = aggregate.fig3_cells(per_lang, by=("category", "lang_group"))
    assert by_cat["category"].unique().tolist() == ["Food and Cuisine"] and len(by_cat) == 2
    two_models = pd.concat([proc.assign(model="m1"), proc.assign(model="m2", rho=1.0, tau=1.0, ld_norm=0.0)])
    cells7 = aggregate.fig4_cells(two_models, by=("model", "category")).set_index("model")["score"]
    assert cells7["m1"] == pytest.approx(0.5) and cells7["m2"] > cells7["m1"]
    radar = figures.fig4_radar(cells7.reset_index().assign(category="Food and Cuisine"), series="model")
    assert {line.get_label() for line in radar.axes[0].lines} >= {"m1", "m2"}


def test_word_segmentation_per_language():
    assert wordcount.tokenize("Wash the rice , then soak it .", "en") == ["Wash", "the", "rice", "then", "soak", "it"]
    assert wordcount.tokenize("我喜欢吃饺子。", "zh") == ["我", "喜欢", "吃饺子"]
    assert wordcount.tokenize("昆布を水に浸す。", "ja") == ["昆布", "を", "水", "に", "浸す"]
    assert wordcount.count_words("برنج را بشویید.", "fa") == 3


def test_word_count_tables_compare_with_the_paper():
    data = cx.load(data_source="sample").subset(countries=["Iran"])
    counts = wordcount.word_counts(data.procedures, data.mcqs, data.conversations)
    table = wordcount.word_count_table(counts, "country")
    assert set(table["measure"]) == set(wordcount.MEASURES)
    steps = data.procedures.query("lang_group == 'English'")["steps"]
    expected = np.mean([sum(len(s.split()) for s in st) for st in steps])
    got = table.query("measure == 'procedure' and lang_group == 'English'")["value"].item()
    assert got == pytest.approx(expected, abs=0.05)
    from culturelab.protocol import DataUsed
    from culturelab.protocol import compare as against_paper
    from culturelab.reported import compare

    sample = against_paper(None, {}, DataUsed("sample"))
    cmp = compare(load_reported("captex", "table3"), table, on=["country", "measure", "lang_group"], deviations=sample)
    both = cmp.dropna(subset=["reported", "ours"])
    assert both["country"].unique().tolist() == ["Iran"] and len(both) == 12 and cmp["delta"].isna().all()
    wide = wordcount.wide(table, "country")
    assert wide.loc["Iran", "utt1"].count("/") == 0 and wide.loc["Iran", "procedure"].count("/") == 1


@pytest.mark.parametrize(("raw", "clean"), [
    ("Person B: They boil the rice.", "They boil the rice."),
    ("**Person B:** Next, they soak it. Next step: 3", "Next, they soak it."),
    ("They soak it.\nPerson A: Great, thanks!\nPerson B: You're welcome.", "They soak it."),
    ("<think>hmm</think>B: Wash it first.", "Wash it first."),
])
def test_clean_reply(raw, clean):
    assert cbqa.clean_reply(raw) == clean


def test_cbqa_metrics_rank_replies_sensibly():
    """Real ROUGE-L, BERTScore (MiniLM) and embedding similarity: exact > paraphrase > unrelated > empty."""
    frame = pd.DataFrame({
        "reference": ["The rice is soaked in salted water for two hours."] * 4,
        "reply": ["The rice is soaked in salted water for two hours.", "They soak the rice in salty water for a couple of hours.",
                  "The stock market fell sharply today.", ""]})
    scored = cbqa.score_replies(frame)
    for metric in ("rouge_l", "bertscore", "ss"):
        v = scored[metric].to_numpy()
        assert v[0] == pytest.approx(1.0, abs=1e-3) and v[0] > v[1] > v[2] >= v[3] == 0.0, metric
    rescaled = cbqa.score_replies(frame.assign(reference=["The rice is soaked in salted water for two hours.",
                                                          "Dance at the wedding.", "Fold the paper in half.",
                                                          "Greet the elder."]), bertscore_rescale=True)
    assert 0 < rescaled["bertscore_baseline"].iloc[0] < 1
    raw, res = rescaled["bertscore_raw"].to_numpy(), rescaled["bertscore"].to_numpy()
    assert res[0] == pytest.approx(1.0, abs=1e-3) and res[2] < raw[2]


def test_reference_baselines_cover_three_systems():
    data = cx.load(data_source="sample")
    frame = cbqa.cbqa_frame(data.conversations, "{country} {context}")
    base = cbqa.reference_baselines(frame, seed=0)
    assert base.groupby("system").size().to_dict() == {"echo_question": 105, "other_reference": 105, "reference": 105}
    other = base[base["system"] == "other_reference"]
    assert (other["reply"].to_numpy() != other["reference"].to_numpy()).all()


def test_figures_draw_from_tidy_tables():
    data = cx.load(data_source="sample")
    fig = figures.fig2_step_counts(data.procedures)
    assert len(fig.axes[0].patches) == 7 * 6  # countries × step counts (stacked)
    rng = np.random.default_rng(0)
    scored = pd.DataFrame({"n_steps": np.tile(np.repeat([5, 6, 7], 8), 2), "lang_group": ["English", "native"] * 24,
                           "rho": rng.uniform(-1, 1, 48), "tau": rng.uniform(-1, 1, 48), "ld": rng.integers(0, 7, 48),
                           "decoding": ["free"] * 24 + ["constrained"] * 24,
                           "valid": [i % 4 == 0 for i in range(24)] + [True] * 24})
    # every constrained answer of a step count is the same order (copies); the free ones differ
    scored["perm"] = [list(range(n)) for n in scored["n_steps"]]
    scored["pred_order"] = [[1, 0, *range(2, n)] if d == "constrained" else list(rng.permutation(n))
                            for n, d in zip(scored["n_steps"], scored["decoding"])]
    from culturelab.captex.reordering import random_baseline_table
    from culturelab.plots import audit
    from culturelab.tasks.reorder import DECODING_LABELS

    rand = random_baseline_table([5, 6, 7], n_samples=500)
    fig5 = figures.fig5_step_curves(scored, rand)
    # ρ, τ, LD from the valid answers (both decodings + the random line), the copies, the share of valid answers
    assert len(fig5.axes) == 5 and all(len(ax.lines) == 3 for ax in fig5.axes[:3]) and len(fig5.axes[4].lines) == 2
    # the share of valid answers equal to their step count's most common one: a panel of its own, and stated
    copies = [line.get_ydata().tolist() for line in fig5.axes[3].lines if np.isfinite(line.get_ydata()).any()]
    assert copies[1] == [1.0, 1.0, 1.0] and len(copies) == 2
    assert any("most common answer" in t.get_text() and "constrained to valid orders 100%" in t.get_text()
               for t in fig5.texts)
    assert sorted(t.get_text() for t in fig5.axes[0].texts if t.get_gid() == N_ROW) == sorted(["2"] * 3 + ["8"] * 3)  # valid only
    assert sorted(t.get_text() for t in fig5.axes[3].texts if t.get_gid() == N_ROW) == sorted(["2"] * 3 + ["8"] * 3)
    # validity over every answer: the same n for both decodings, written once per step count
    assert [t.get_text() for t in fig5.axes[4].texts if t.get_gid() == N_ROW] == ["8"] * 3
    assert [t.get_text() for t in fig5.legends[0].get_texts()] == [
        f"{DECODING_LABELS['free']} (25 % valid)", f"{DECODING_LABELS['constrained']} (100 % valid)", "random"]
    assert audit.problems(audit.inspect(fig5), audit.claims_of(fig5)) == []  # n, chance, both methods named
    # the free protocol alone with no valid answer: the metric panels keep the random line, the figure is not empty
    invalid = figures.fig5_step_curves(scored.iloc[:24].assign(valid=False), rand)
    assert [ax.lines[0].get_label() for ax in invalid.axes[:3]] == ["random"] * 3
    assert audit.problems(audit.inspect(invalid), audit.claims_of(invalid)) == []
    cells = pd.DataFrame({"country": ["Iran", "Iran", "Japan"], "lang_group": ["English", "native", "English"],
                          "score": [0.5, 0.4, 0.6], "ci_low": [0.4, 0.3, 0.5], "ci_high": [0.6, 0.5, 0.7]})
    assert len(figures.fig3_language_impact(cells, lmax_mode="per_instance").axes[0].patches) >= 3
    radar_cells = pd.DataFrame({"country": ["Iran", "Iran", "Japan"],
                                "category": ["Food and Cuisine", "Celebrations and Festivals", "Food and Cuisine"],
                                "score": [0.5, 0.4, 0.6]})
    fig4 = figures.fig4_radar(radar_cells)
    japan = next(line for line in fig4.axes[0].lines if line.get_label() == "Japan")
    assert np.isnan(japan.get_ydata()).any()  # a gap, not a zero, where Japan has no cell
    assert fig4.axes[0].get_legend().get_title().get_text() == "radius: footnote-6 score"  # names the metric
    honest = radar_cells.assign(ci_low=radar_cells["score"] - 0.1, ci_high=radar_cells["score"] + 0.1, n=[12, 3, 15])
    ax = figures.fig4_radar(honest, rlabel="score").axes[0]
    assert sorted(t.get_text().split("\n")[1] for t in ax.get_xticklabels()) == ["n=12", "n=3"]  # smallest n per spoke
    assert ax.get_legend().get_title().get_text() == "radius: score" and ax.collections  # CI bands drawn
    fig8 = figures.fig8_size(aggregate.reported_fig8(), lmax_mode="table4")
    sized = aggregate.reported_fig8().dropna(subset=["params_b"])
    labels = {line.get_label() for line in fig8.axes[0].lines if not line.get_label().startswith("_")}
    expected = {f + (" (base)" if v == "base" else "") for f, v in zip(sized["family"], sized["variant"])}
    assert labels == expected and {"Qwen2.5", "Qwen2.5 (base)", "Mamba (base)"} <= labels


def test_reported_figures_are_not_stamped_as_sample(tmp_path, monkeypatch):
    import culturelab as cl

    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "fig"))
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    run = cl.start_run("captex/01_dataset", {"seed": 0, "data_dir": "", "data_source": "sample",
                                              "countries": [], "categories": []})
    run.set_data_source("sample")
    counts = pd.DataFrame({"steps": ["5", "6"], "source": "procedures", "count": [3, 4]})
    stamped, reported = (cl.plots.grouped_bars(counts, "steps", "count", "source") for _ in range(2))
    run.savefig(stamped, "a", kind="data")
    run.savefig(reported, "b", data_source="reported")
    assert stamped.get_suptitle() == "sample data (not the paper's data)"  # in the title, not a footer
    assert reported.get_suptitle() == "" and reported.texts == []


def test_ld_term_is_clipped_when_answers_have_extra_letters():
    cells = pd.DataFrame({"rho": [0.0], "tau": [0.0], "ld": [14.0], "ld_norm": [1.75], "pb_mcq": [0.25]})
    assert aggregate.aggregate(cells, "fig3", lmax_mode="per_instance")[0] == pytest.approx(0.1)


def test_radars_carry_a_chance_ring_or_say_why_not():
    cells = pd.DataFrame({"country": ["Iran", "Iran"], "category": ["Food and Cuisine", "Celebrations and Festivals"],
                          "score": [0.5, 0.4]})
    fig = figures.fig4_radar(cells)  # footnote 6: ROUGE/BERTScore/SS have no chance level
    assert not [ln for ln in fig.axes[0].lines if ln.get_label().startswith("chance")]
    assert any(t.get_text().startswith("no chance ring: the footnote-6 score") for t in fig.texts)
    ax = figures.fig4_radar(cells, chance=0.2).axes[0]
    ring = next(ln for ln in ax.lines if ln.get_label().startswith("chance"))
    assert set(ring.get_ydata().tolist()) == {0.2} and ring.get_linestyle() == "--"
    pb = pd.DataFrame({"country": "Iran", "category": ["Food and Cuisine"] * 16, "method": "generate",
                       "procedure_id": list("aabbccddeeffgghh"), "correct": [1, 0, 0, 0] * 4, "valid": True})
    ax = figures.pb_mcq_radar(figures.pb_mcq_cells(pb, method="generate"), method="generate").axes[0]
    assert ax.lines[-1].get_label() == "chance (0.25)" and ax.get_xticklabels()[0].get_text().endswith("n=8")


def test_footnote4_chance_matches_random_answers():
    from culturelab.metrics.ranking import random_baseline

    counts = [5, 7, 7, 10]
    chance = aggregate.fig3_chance(counts)
    per_n = random_baseline(sorted(set(counts)), n_samples=20000, seed=0, by_length=True)
    ld_norm = np.mean([per_n[n]["ld"] / n for n in counts])
    rho, tau = np.mean([per_n[n]["rho"] for n in counts]), np.mean([per_n[n]["tau"] for n in counts])
    assert chance == pytest.approx(0.2 * rho + 0.2 * tau + 0.2 * (1 - ld_norm) + 0.4 * 0.25)
    assert 0.13 < chance < 0.17 and abs(rho) < 0.02  # ρ, τ ≈ 0 and LD/n ≈ 0.7–0.8 for random orders
    assert aggregate.fig3_chance(counts, lmax_mode="max_cells") is None


def test_the_pb_mcq_radar_counts_procedures_not_questions():
    from culturelab.plots.honest import SMALL_N

    sample = cx.load(data_source="sample")
    cells = sample.procedures.drop_duplicates("procedure_id").groupby(["country", "category"]).size()
    assert len(cells) == 35 and set(cells) == {3}  # 3 procedures per country × category
    pb = sample.mcqs.assign(method="generate", correct=np.arange(len(sample.mcqs)) % 3 == 0, valid=True)
    assert set(pb.groupby(["country", "category"]).size()) == {24}  # 24 questions per cell, from 3 procedures
    ax = figures.pb_mcq_radar(figures.pb_mcq_cells(pb, method="generate"), method="generate").axes[0]
    assert {t.get_text().split("\n")[1] for t in ax.get_xticklabels()} == {"n=3"}  # the independent unit
    hollow = [c for c in ax.collections if len(c.get_offsets()) and c.get_gid() == SMALL_N]
    assert sum(len(c.get_offsets()) for c in hollow) == 35  # every cell under 10 procedures, however many questions
    plt.close("all")
