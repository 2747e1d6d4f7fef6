"""Figures build from tidy tables (Persian glyphs render), and every figure of our models shows
n and a 95 % CI per point or cell, the chance level, and marks what rests on < 10 stories (faded bars,
hollow points, hatched cells: each series keeps its colour)."""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from culturelab.percul import distractors, figures, paper, robustness
from culturelab.percul.data import load
from culturelab.plots.honest import SMALL_N


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def results():
    """Seeded random answers of two models on our sample (34 stories with rule labels)."""
    items = load(data_source="sample").items
    rng = np.random.default_rng(0)
    out = pd.concat([items.assign(model=m, pred=rng.integers(0, 4, len(items)), valid=True,
                                  scores=[list(rng.normal(size=4)) for _ in range(len(items))])
                     for m in ("a", "b")], ignore_index=True)
    return out.assign(correct=out["pred"] == out["answer"])


def texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_paper_figures_build():
    assert figures.fig4_size(paper.size_points(), pd.DataFrame({"family": ["Gemma 3"], "params_b": [0.27],
                                                                "macro": [0.3]}), human=0.93).axes[0].get_xscale() == "log"
    fig = figures.fig5_heatmap(paper.fig5_matrix())
    assert len(fig.axes[0].get_yticklabels()) == 23
    long = paper.table5_categories(paper.fig15_models())
    assert len(long) == 9 * 11 and set(long["split"]) == {paper.PERSIAN} and "Macro Avg." not in set(long["category"])
    ax = figures.fig15_radar(long, value="value").axes[0]
    assert len(ax.lines) == 10 and ax.get_legend().get_title().get_text().startswith("radius: accuracy")  # its metric
    assert ax.lines[-1].get_label() == "chance (0.25)" and ax.lines[-1].get_linestyle() == "--"  # 9 models + chance
    assert len(figures.fig7_translation(paper.translation_gap()).axes[0].patches) >= 10
    assert len(figures.fig6_finetune(paper.finetune_gap()).axes) == 2
    fig = figures.fig16_beside_paper(paper.fig16_matrix())
    assert fig.axes[0].get_xticklabels()[0].get_text().startswith("R1") and len(fig.axes[0].texts) == 27 * 7


def test_figure_16_puts_our_models_beside_the_papers_27(results):
    items = load(data_source="sample").items
    picks = distractors.distractor_picks(results)
    fig = figures.fig16_beside_paper(paper.fig16_matrix(), picks, items)
    heat = [ax for ax in fig.axes if ax.get_title()]
    assert len(heat) == 2 and heat[0].get_title().startswith("paper: 27 models")
    ours = heat[1].get_yticklabels()
    assert [t.get_text() for t in ours] == ["a", "b", "chance: rule base rate"]
    n_a = int((picks["model"] == "a").sum())
    cell = [t.get_text() for t in heat[1].texts]
    assert all(f"n={n_a}" in c for c in cell[:7]) and "[" in cell[0]  # n and a 95 % interval per cell
    # a model with fewer than 10 picks is hatched
    few = picks[picks["model"] == "a"].head(6)
    fig = figures.fig16_beside_paper(paper.fig16_matrix(), few, items)
    hatched = [p for p in fig.axes[1].patches if p.get_gid() == SMALL_N]
    assert len(hatched) == 7


def test_figure_8_shows_the_base_rate_beside_the_picks(results):
    """Eight models' picks: most categories hold 10+ picks, so Figure 8 draws them per category."""
    items = load(data_source="sample").items
    many = pd.concat([results.assign(model=f"{m}{k}") for k in range(4) for m in ("a", "b")], ignore_index=True)
    picks = distractors.distractor_picks(many)
    fig = figures.fig8_with_base_rates(picks, items)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == ["picked by a0, a1, a2, a3, b0, b1, b2, b3, sum_counts", figures.CHANCE_RULES]
    assert fig.get_suptitle().endswith("per category")
    assert fig.axes[0].get_yticklabels()[0].get_text() == "all categories"
    pooled = [t.get_text() for t in fig.axes[0].texts[:7]]  # the pooled row's cells: every pick, n and interval
    assert all(t.endswith(f"n={len(picks)}") and "[" in t for t in pooled), pooled


def test_our_points_carry_n_ci_and_chance(results):
    from culturelab.percul.scoring import per_category, summary

    ours = summary(results, ["model"]).assign(family="Gemma 3", params_b=[0.27, 1.0])
    fig = figures.fig4_size(paper.size_points(), ours)
    assert "n=34 stories" in texts(fig) and "chance (0.25)" in [line.get_label() for line in fig.axes[0].lines]
    cats = per_category(results, ["model"])
    fig = figures.fig5_heatmap(paper.fig5_matrix(), cats)
    hatched = [p for p in fig.axes[1].patches if p.get_gid() == SMALL_N]  # ours: 3–4 stories per cell
    assert len(hatched) == 2 * 11 and all(t.count("\n") == 2 and t.endswith(("n=3", "n=4")) for t in
                                          [t.get_text() for t in fig.axes[1].texts])  # share, interval, n
    ax = figures.fig15_radar(cats, n="n", ci_low="ci_low", ci_high="ci_high", chance=0.25).axes[0]
    assert ax.get_xticklabels()[0].get_text().startswith("Objects\nn=")


def test_category_bars_position_bars_and_reliability_are_honest(results):
    from culturelab.metrics.choice import accuracy_table

    fig = figures.category_bars(accuracy_table(results, ["model", "category"]), human=0.93)
    assert "n=3" in texts(fig) and any(p.get_gid() == SMALL_N for p in fig.axes[0].patches)
    prior = robustness.position_prior(results)
    assert set(prior["n_predictions"]) == {34} and (prior["ci_low"] <= prior["predicted_share"]).all()
    fig = figures.position_bars(prior)
    assert "n=34" in texts(fig) and "chance (0.25)" in [line.get_label() for line in fig.axes[0].lines]
    fig = figures.reliability_diagram(robustness.reliability_bins(results, n_bins=5))
    assert any(t.startswith("n=") for t in texts(fig)) and "chance (0.25)" in [ln.get_label() for ln in
                                                                                fig.axes[0].lines]


def test_persian_labels_render_without_missing_glyphs(tmp_path):
    per_cat = pd.DataFrame({"model": "m", "category": ["Foods", "Music"], "accuracy": [0.5, 0.25],
                            "ci_low": [0.2, 0.0], "ci_high": [0.8, 0.6], "n": [12, 4]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = figures.category_bars(per_cat, human=0.93)
        fig.savefig(tmp_path / "x.png")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert "Foods\nغذا" in labels
    assert not [w for w in caught if "missing from" in str(w.message)]


def test_position_bars_count_and_grey_by_stories():
    """Eight stories in four orders: 32 predictions, but the interval and the n rest on 8 stories."""
    items = pd.DataFrame({"id": [f"s{i}" for i in range(8)], "options": [list("abcd")] * 8, "answer": 0})
    res = robustness.permute_items(items, "cyclic").assign(model="m", pred=[0, 1, 2, 3] * 8)
    fig = figures.position_bars(robustness.position_prior(res))
    assert "n=8" in texts(fig) and "n=32" not in texts(fig) and "n = stories" in fig.axes[0].get_title()
    faded = [p for p in fig.axes[0].patches if p.get_gid() == SMALL_N]
    assert len(faded) == 8  # every bar: 32 predictions ≥ MIN_N, but 8 stories < MIN_N


def test_figure_7_says_the_intervals_on_the_papers_bars_are_ours():
    gap = paper.translation_gap().assign(model=lambda d: d["model"] + " (paper)")
    fig = figures.fig7_translation(gap)
    assert figures.PAPER_INTERVALS in [t.get_text() for t in fig.texts]
    assert figures.DELTA_NOTE in [t.get_text() for t in fig.texts]  # the Δ under the names says its direction
    plain = figures.fig7_translation(gap.drop(columns=[c for c in gap if c.endswith(("_ci_low", "_ci_high"))]))
    assert figures.PAPER_INTERVALS not in [t.get_text() for t in plain.texts]


def test_figure_6_draws_the_binomial_intervals_it_promises():
    from matplotlib.container import ErrorbarContainer

    tuning = paper.finetune_gap()
    fig = figures.fig6_finetune(tuning)
    for ax in fig.axes[:2]:
        whiskers = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        assert len(whiskers) == 2  # base and fine-tuned, one whisker per bar (11 categories + macro)
        spans = [seg[1][1] - seg[0][1] for c in whiskers for seg in c.lines[2][0].get_segments()]
        assert len(spans) == 24 and min(spans) > 0  # open also where an accuracy is 0
    assert figures.FIG6_INTERVALS in [t.get_text() for t in fig.texts]
    for ax in fig.axes[:2]:  # accuracies of four-option questions: chance (¼) drawn, as on every accuracy figure
        assert [line.get_ydata()[0] for line in ax.lines if "chance" in str(line.get_label())] == [0.25]


def test_reliability_diagram_counts_stories_not_orders():
    items = pd.DataFrame({"id": ["a", "b", "c"], "options": [list("wxyz")] * 3, "answer": 0})
    res = robustness.permute_items(items, "cyclic").assign(model="m", scores=[[2.0, 0.0, 0.0, 0.0]] * 12)
    bins = robustness.reliability_bins(res, n_bins=5)
    assert bins["n"].max() == 3 and bins["n_predictions"].max() == 12
    fig = figures.reliability_diagram(bins)
    assert "n=3" in texts(fig) and "n=12" not in texts(fig) and "n = stories" in fig.axes[0].get_title()
