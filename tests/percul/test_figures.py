"""Figures build from tidy tables (Persian glyphs render)."""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from culturelab.percul import distractors, figures, paper


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_paper_figures_build():
    assert figures.fig4_size(paper.size_points(), pd.DataFrame({"family": ["Gemma 3"], "params_b": [0.27],
                                                                "macro": [0.3]}), human=0.93).axes[0].get_xscale() == "log"
    t5 = paper.table5_wide(paper.PERSIAN).set_index("model")
    fig = figures.fig5_heatmap(t5.loc[paper.fig5_models(), [c for c in t5.columns if c in paper.CATEGORIES]])
    assert len(fig.axes[0].get_yticklabels()) == 23
    long = paper.table5_categories(paper.fig15_models())
    assert len(long) == 9 * 11 and set(long["split"]) == {paper.PERSIAN} and "Macro Avg." not in set(long["category"])
    assert len(figures.fig15_radar(long, value="value").axes[0].lines) == 9
    assert len(figures.fig7_translation(paper.translation_gap()).axes[0].patches) >= 10
    assert len(figures.fig6_finetune(paper.finetune_gap()).axes) == 2
    m = paper.fig16_matrix()
    fig = figures.rule_heatmap(m, title="Figure 16")
    assert fig.axes[0].get_xticklabels()[0].get_text().startswith("R1")


def test_persian_labels_render_without_missing_glyphs(tmp_path):
    per_cat = pd.DataFrame({"model": "m", "category": ["Foods", "Music"], "accuracy": [0.5, 0.25],
                            "ci_low": [0.2, 0.0], "ci_high": [0.8, 0.6]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = figures.category_bars(per_cat, human=0.93)
        fig.savefig(tmp_path / "x.png")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert "Foods\nغذا" in labels
    assert not [w for w in caught if "missing from" in str(w.message)]


def test_our_rule_matrix_figure_has_unit_rows():
    picks = pd.DataFrame({"model": ["a", "a", "b"], "category": "Foods", "rule": ["R1", "UA", "R3"]})
    m = distractors.rule_matrix(picks, "model")
    fig = figures.rule_heatmap(m, title="ours")
    assert fig is not None and m.sum(axis=1).tolist() == [1.0, 1.0]
