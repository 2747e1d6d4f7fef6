"""Figures: one style, PDF + PNG (HTML for plotly), CJK and Persian text without missing glyphs."""

from __future__ import annotations

import re
import warnings

import matplotlib.pyplot as plt
import pandas as pd
import plotly.express as px
import pytest

from culturelab import plots


def test_save_writes_vector_pdf_and_png(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4])
    written = plots.save(fig, tmp_path / "sub" / "fig.pdf")
    assert sorted(p.suffix for p in written) == [".pdf", ".png"]
    assert written[0].read_bytes().startswith(b"%PDF") and written[1].read_bytes().startswith(b"\x89PNG")


def test_plotly_figures_become_self_contained_html(tmp_path):
    fig = px.bar(pd.DataFrame({"x": ["a", "b"], "y": [1, 2]}), x="x", y="y")
    (path,) = plots.save(fig, tmp_path / "bar")
    html = path.read_text()
    assert path.suffix == ".html" and len(html) > 1_000_000  # plotly.js is inlined…
    assert not re.search(r"<script[^>]*src=[\"']https?:", html)  # …so it opens offline


@pytest.mark.parametrize("label", ["饺子 北京烤鸭", "寿司", "김치", "ته‌دیگ و برنج", "Türk mutfağı"])
def test_labels_in_every_script_render_without_missing_glyphs(tmp_path, label):
    plots.apply_style()
    fig, ax = plt.subplots()
    ax.set_title(label)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*[Gg]lyph.*missing.*")
        fig.savefig(tmp_path / "t.png")
    plt.close(fig)


def test_palette_is_distinct_in_greyscale():
    from matplotlib.colors import to_rgb

    greys = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in map(to_rgb, plots.palette(4))]
    assert min(abs(a - b) for i, a in enumerate(greys) for b in greys[i + 1:]) > 0.05


def test_radar_heatmap_curves_bars_draw(tmp_path):
    df = pd.DataFrame({"cat": list("abcabc"), "model": list("mmmnnn"), "acc": [0.1, 0.5, 0.9, 0.3, 0.3, 0.6],
                       "size": [1, 1, 1, 7, 7, 7]})
    figs = [plots.radar(df, "cat", "acc", "model"),
            plots.heatmap(df.pivot(index="model", columns="cat", values="acc")),
            plots.metric_curve(df, "size", "acc", hue="cat"),
            plots.grouped_bars(df, "cat", "acc", "model"),
            plots.size_vs_score(df.groupby(["model", "size"], as_index=False)["acc"].mean().assign(family="f"),
                                "size", "acc", "family")]
    for i, fig in enumerate(figs):
        assert len(plots.save(fig, tmp_path / f"f{i}")) == 2


def _dashed_rings(ax: plt.Axes) -> list:
    """Lines of constant radius drawn dashed around the whole circle (the chance ring)."""
    import numpy as np

    return [line for line in ax.lines if line.get_linestyle() == "--" and np.ptp(line.get_ydata()) == 0
            and np.ptp(line.get_xdata()) >= 6.2]


@pytest.mark.parametrize("chance", [0.25, 0.0, 0.5])
def test_radar_chance_ring_at_the_chance_radius(chance):
    df = pd.DataFrame({"cat": list("abc"), "model": "m", "acc": [0.1, 0.5, 0.9]})
    ax = plots.radar(df, "cat", "acc", "model", rmax=1.0, chance=chance).axes[0]
    rings = _dashed_rings(ax)
    assert len(rings) == 1 and set(rings[0].get_ydata().tolist()) == {chance}
    assert rings[0].get_label() == f"chance ({chance:.2g})"
    assert f"chance ({chance:.2g})" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")


def test_radar_gives_each_series_its_own_chance_ring():
    df = pd.DataFrame({"cat": list("abcabcabc"), "task": list("xxxyyyzzz"), "score": [0.3] * 9})
    fig = plots.radar(df, "cat", "score", "task", chance={"x": 0.25, "y": 0.0}, chance_note="z has none")
    rings = {ln.get_label(): ln for ln in _dashed_rings(fig.axes[0])}
    assert set(rings) == {"chance: x (0.25)", "chance: y (0)"}
    series = {ln.get_label(): ln.get_color() for ln in fig.axes[0].lines if ln.get_label() in {"x", "y"}}
    assert rings["chance: x (0.25)"].get_color() == series["x"] and set(rings["chance: y (0)"].get_ydata()) == {0.0}
    assert [t.get_text() for t in fig.texts] == ["no chance ring: z has none"]  # z lacks a ring
    full = plots.radar(df, "cat", "score", "task", chance={"x": 0.2, "y": 0.1, "z": 0.3}, chance_note="unused")
    assert len(_dashed_rings(full.axes[0])) == 3 and not full.texts
    plt.close("all")


def test_radar_chance_ring_stays_inside_the_axes():
    df = pd.DataFrame({"cat": list("abc"), "model": "m", "acc": [0.0, 0.05, 0.1]})  # all below chance
    ax = plots.radar(df, "cat", "acc", "model", chance=0.25).axes[0]
    assert ax.get_ylim()[1] > 0.25 and _dashed_rings(ax)
    ax = plots.radar(df.assign(lo=0.0, hi=0.6), "cat", "acc", "model", ci_low="lo", ci_high="hi").axes[0]
    assert ax.get_ylim()[1] >= 0.6  # the 95 % band is not clipped
    plt.close("all")


def test_radar_without_chance_has_no_ring_and_says_why():
    df = pd.DataFrame({"cat": list("abc"), "model": "m", "acc": [0.1, 0.5, 0.9]})
    fig = plots.radar(df, "cat", "acc", "model")
    assert _dashed_rings(fig.axes[0]) == [] and not fig.texts
    fig = plots.radar(df, "cat", "acc", "model", chance_note="ROUGE-L has no chance level")
    assert _dashed_rings(fig.axes[0]) == []
    assert [t.get_text() for t in fig.texts] == ["no chance ring: ROUGE-L has no chance level"]
    plt.close("all")
