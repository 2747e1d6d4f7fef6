"""Figures saved as data and drawn again (issue 29): the exact tables and call come back, the paper
rendering fits a column or the text width with no text under 6 pt and its provenance in a caption file,
a result figure with no panel above the small-n rule is refused, a run never writes the checkout's
figures/, and the audit fails on each defect seen in the committed figures, on a figure built to show it."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from culturelab import config, plots
from culturelab.cli import main
from culturelab.plots import audit, render
from culturelab.plots.layout import WIDTHS, rendering
from culturelab.plots.recipe import Recipe, RecipeError, drawing, load

MODEL = "bundled:gemma3-270m"


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


TABLES = {
    "plain": pd.DataFrame({"a": [1, 2], "b": [0.1, np.nan], "c": ["x", "y"], "d": [True, False]}),
    "mixed objects": pd.DataFrame({"m": [None, "s", 1, [1, 2]], "f": [np.inf, -np.inf, 1e-300, 0.30000000000000004]}),
    "pivot with bool columns": pd.DataFrame({"setting": ["a", "a", "b", "b"], "context": [False, True] * 2,
                                             "v": [1.0, 2, 3, 4]}).pivot_table(index="setting", columns="context",
                                                                               values="v"),
    "ordered categories": pd.DataFrame({"c": pd.Categorical(["x", "y", "x"], categories=["y", "x"], ordered=True)}),
    "multi-index rows": pd.DataFrame({"v": [1, 2]}, index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)],
                                                                                    names=["k", None])),
    "empty": pd.DataFrame(columns=["a", "b"]),
    "strings that look like numbers or nulls": pd.DataFrame({"s": ["1", "nan", "", "None", None]}),
    "nullable ints": pd.DataFrame({"i": pd.array([1, None], dtype="Int64")}),
    "int column labels": pd.DataFrame([[1, 2], [3, 4]], columns=[10, 20], index=["r1", "r2"]),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_a_saved_table_comes_back_exactly(name, tmp_path):
    table = TABLES[name]
    series = pd.Series({"en": 3, "fr": 2}, name="lang").rename_axis("language")
    spec = Recipe("m:f", {"t": table, "s": series, "chance": {1: 0.25, (2, 3): [0.5, np.float64(2)]},
                          "pair": ("a", None)}).dump(tmp_path, "fig")
    back = load(json.loads(json.dumps(spec)), tmp_path).arguments
    pd.testing.assert_frame_equal(back["t"], table)
    pd.testing.assert_series_equal(back["s"], series)
    assert back["chance"] == {1: 0.25, (2, 3): [0.5, 2.0]} and back["pair"] == ("a", None)
    assert (tmp_path / "fig.csv").is_file() and (tmp_path / "fig.s.csv").is_file()


def test_an_argument_that_is_no_table_or_value_is_refused_by_name(tmp_path):
    with pytest.raises(RecipeError, match="argument key: a function cannot be saved"):
        Recipe("m:f", {"key": lambda x: x}).dump(tmp_path, "fig")


@drawing
def _two_panels(table: pd.DataFrame, *, titles: tuple[str, str] = ("left", "right"), min_n: int = 10) -> plt.Figure:
    fig, axes = plots.panel_grid(2, panel=(4.0, 3.0))
    for ax, title in zip(axes, titles):
        plots.grouped_bars(table, "lang", "acc", "model", n="n", chance=0.25, ax=ax, title=title, min_n=min_n,
                           legend=False)
    plots.layout.shared_legend(fig, axes)
    plots.claim(fig, kind="score", method="generate", chance=0.25)
    return fig


SCORES = pd.DataFrame({"lang": ["en", "fa", "tr"], "model": f"{MODEL} (generate)", "acc": [0.6, 0.4, 0.3],
                       "n": [40, 30, 25]})


def _save(fig: plt.Figure, tmp_path: Path, name: str = "acc", **kwargs) -> render.SavedFigure:
    return render.save_figure(fig, name, data_dir=tmp_path / "run" / "nb" / "figures", figures_dir=tmp_path / "nbfig",
                              claims={"kind": "score", "model": MODEL, "method": "generate"},
                              context={"notebook": "percul/01_benchmark", "paper": "percul", "run": "t"}, **kwargs)


@pytest.mark.parametrize("width", ["column", "text"])
def test_the_paper_rendering_fits_its_width_with_no_small_text_and_a_caption_file(width, tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "data"))
    fig = _two_panels(SCORES)
    plots.caption(fig, f"data: {tmp_path / 'data' / 'percul'} · protocol: same · model: {MODEL}")
    saved = _save(fig, tmp_path, data_source="sample")
    notebook_width = audit.pdf_facts(saved.paths[0])["width_in"]
    assert notebook_width > WIDTHS["text"]  # the notebook look: sized for a screen
    (done,) = render.render_run(tmp_path / "run", style="paper", width=width, out=tmp_path / "paper")
    assert done.problems == []
    pdf = tmp_path / "paper" / "percul" / "acc.pdf"
    facts = audit.pdf_facts(pdf)
    assert facts["width_in"] <= WIDTHS[width] + 0.01 and min(facts["font_sizes"]) >= 6.0
    assert "Type3" not in facts["font_types"] and set(facts["font_types"]) & {"CIDFontType2", "TrueType"}
    caption = (tmp_path / "paper" / "percul" / "acc.caption.md").read_text()
    assert "- data: $CULTURELAB_DATA/percul" in caption and f"- model: {MODEL}" in caption
    assert "- chance: 0.25" in caption and "- n: 25–40 items per mark" in caption and str(tmp_path) not in caption
    # the provenance in the PDF's metadata (UTF-16 there, for the "·" between its parts)
    assert b"/Subject" in pdf.read_bytes() and "$CULTURELAB_DATA/percul".encode("utf-16-be") in pdf.read_bytes()


def test_the_notebook_rendering_is_given_back_from_the_data(tmp_path):
    fig = _two_panels(SCORES, titles=("by language", "again"))
    plots.caption(fig, "data: sample data (ours) · protocol: same · model: x")
    saved = _save(fig, tmp_path, data_source="sample")
    original = json.loads(saved.spec_path.read_text())["facts"]
    (done,) = render.render_run(tmp_path / "run", style="notebook", out=tmp_path / "nb2")
    assert done.problems == []
    assert audit.pdf_facts(done.paths[0])["width_in"] == pytest.approx(audit.pdf_facts(saved.paths[0])["width_in"],
                                                                         abs=0.02)
    with rendering("notebook"):
        redrawn = render.load(json.loads(saved.spec_path.read_text())["recipe"], saved.spec_path.parent).draw()
        render.stamp_sample(redrawn, "notebook")
        plots.caption(redrawn, "data: sample data (ours) · protocol: same · model: x")
        render.place_margins(redrawn)
        assert audit.inspect(redrawn)["texts"] == original["texts"]


def test_panels_wrap_into_rows_in_the_paper_style():
    with rendering("paper", "text"):
        fig, axes = plots.panel_grid(5, panel=(3.0, 2.6))
    rows = {round(ax.get_position().y0, 3) for ax in axes}
    assert fig.get_figwidth() <= WIDTHS["text"] and len(rows) == 2
    fig, axes = plots.panel_grid(5, panel=(3.0, 2.6))
    assert fig.get_figwidth() == 15.0 and len({round(ax.get_position().y0, 3) for ax in axes}) == 1


def test_a_score_figure_whose_every_mark_is_under_the_small_n_rule_is_refused(tmp_path):
    few = SCORES.assign(n=[3, 2, 4])
    saved = _save(_two_panels(few), tmp_path, name="few")
    assert saved.paths == [] and len(saved.refused) == 2 and "every one of its 3 marks" in saved.refused[0]
    spec = json.loads(saved.spec_path.read_text())
    assert spec["refused"] == saved.refused and (saved.spec_path.parent / "few.csv").is_file()
    assert render.render_run(tmp_path / "run", style="paper", out=tmp_path / "p") == []
    forced = render.render_run(tmp_path / "run", style="paper", out=tmp_path / "p", force=True)
    assert [r.name for r in forced] == ["few"]
    mixed = SCORES.assign(n=[3, 40, 4])  # one mark with the data: the panel says something
    assert _save(_two_panels(mixed), tmp_path, name="mixed").refused == []


def test_run_savefig_refuses_in_the_notebook_and_records_why(notebook_run):
    run = notebook_run("percul/01_benchmark", MODEL)
    run.set_data_source("sample")
    assert run.savefig(_two_panels(SCORES.assign(n=2)), "thin", kind="score", method="generate") == []
    assert list(run.info["refused_figures"]) == ["thin"] and not (run.figures_dir / "thin.pdf").exists()
    assert run.savefig(_two_panels(SCORES), "thick", kind="score", method="generate")[0].parent == run.figures_dir


def test_a_run_writes_its_figures_under_its_own_folder_never_the_checkouts(tmp_path, monkeypatch):
    """A user's run (a YAML with no figures_dir, JupyterLab) leaves figures/ as make reproduce drew it."""
    from culturelab.runner import Run

    monkeypatch.delenv("CULTURELAB_FIGURES", raising=False)
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    committed = config.committed_figures_dir()
    before = {p: p.stat().st_mtime_ns for p in committed.rglob("*") if p.is_file()}
    run = Run("percul/01_benchmark", {"model": MODEL}, name="my-qwen")
    paths = run.savefig(_two_panels(SCORES), "acc", kind="score", method="generate")
    assert paths and all(tmp_path / "runs" / "my-qwen" / "figures" / "percul" in p.parents or p.parent ==
                         tmp_path / "runs" / "my-qwen" / "figures" / "percul" for p in paths)
    assert {p: p.stat().st_mtime_ns for p in committed.rglob("*") if p.is_file()} == before


def test_culturelab_figures_renders_a_run_and_says_what_it_did(tmp_path, capsys):
    _save(_two_panels(SCORES), tmp_path)
    assert main(["figures", str(tmp_path / "run"), "--style", "paper", "--width", "column",
                 "--out", str(tmp_path / "out")]) == 0
    assert "1 figures (paper style)" in capsys.readouterr().out
    assert (tmp_path / "out" / "percul" / "acc.caption.md").is_file()
    assert main(["figures", str(tmp_path / "nowhere")]) == 2
    (tmp_path / "empty").mkdir()
    assert main(["figures", str(tmp_path / "empty")]) == 1


# ------------------------------------------------------------------ the defects of the committed figures
def problems_of(fig: plt.Figure, **claims) -> list[str]:
    claims = {"kind": "score", "model": MODEL, "method": "generate", "chance": 0.25, **claims}
    plots.claim(fig, **claims)
    return audit.problems(audit.inspect(fig), audit.claims_of(fig))


def has(found: list[str], fragment: str) -> bool:
    return any(fragment in p for p in found)


def test_panels_titled_by_a_shadowed_loop_variable_fail():
    """Turkish PLU heatmap_panels: every panel titled "tf-idf char — …" (the loop variable shadowed the title)."""
    matrix = pd.DataFrame([[0.3, 0.7]], index=["gi"], columns=["a", "b"])
    fig, axes = plt.subplots(1, 2)
    for ax in axes:
        plots.heatmap(matrix, ax=ax, title="tf-idf char — picks", cbar=False)
    assert has(problems_of(fig, kind="data"), "'tf-idf char — picks' titles more than one panel")


def test_a_legend_entry_with_no_data_fails():
    """FMLAMA fig3_code_switching_ours: a "with context" proxy and no with-context point."""
    fig, ax = plt.subplots()
    ax.scatter([0, 1], [10.0, 6.0], marker="o")
    ax.annotate("n=30", (0, 10.0))
    ax.annotate("n=30", (1, 6.0))
    ax.axhline(0.25, label="chance")
    proxies = [plt.Line2D([], [], marker="o", linestyle="", color="#444444", label="without context"),
               plt.Line2D([], [], marker="s", linestyle="", markerfacecolor="none", color="#444444",
                          label="with context")]
    ax.legend(handles=proxies, loc="lower left")
    found = problems_of(fig, model=[], kind="score")
    assert has(found, "legend entry 'with context' stands for nothing drawn")
    assert not has(found, "'without context'")


def test_a_legend_patch_that_appears_nowhere_fails():
    """CulturalRecipes figure4_literal_rates: a black legend patch matching no bar."""
    from matplotlib.patches import Patch

    fig, ax = plt.subplots()
    ax.bar([0, 1], [0.3, 0.5], color="#0072B2", label="ours")
    ax.legend(handles=[Patch(facecolor="#0072B2", label="ours"), Patch(facecolor="black", label="Ref")])
    assert audit.legend_without_data(fig) == ["Ref"]


def test_the_sample_banner_over_the_papers_panels_fails_and_stamp_sample_puts_it_on_ours():
    """PERCUL Fig. 5/16: "sample data (not the paper's data)" printed over the paper's published panels."""
    def drawn() -> plt.Figure:
        fig, (paper, ours) = plt.subplots(1, 2, figsize=(8, 3))
        paper.bar([0, 1], [0.8, 0.6])
        paper.set_title("the paper (Figure 16)")
        plots.mark_reported(paper)
        ours.bar([0, 1], [0.5, 0.4])
        ours.set_title("ours")
        for x in (0, 1):
            ours.annotate("n=40", (x, 0.1))
        return fig

    fig = drawn()
    plots.stamp_title(fig, "sample data (not the paper's data)")
    assert has(problems_of(fig, model=[], data_source="sample"), "banner sits over panels of the paper's numbers")
    fig = drawn()
    render.stamp_sample(fig, "notebook")
    found = problems_of(fig, model=[], data_source="sample")
    assert not has(found, "banner") and not has(found, "without \"sample data\"") and "sample data" in fig.axes[1].get_title()


def test_radial_tick_labels_over_the_data_fail():
    """CAPTEx radars: radial tick labels printed over the polygons."""
    fig = plt.figure()
    ax = fig.add_subplot(projection="polar")
    angles = np.linspace(0, 2 * np.pi, 6)
    ax.plot(angles, [0.4] * 6, marker="o")
    ax.set_rlabel_position(0)
    ax.set_ylim(0, 1)
    assert audit.ticks_over_data(fig, audit.renderer_of(fig)) == ["axes 0"]


def test_a_radar_of_the_project_keeps_its_tick_labels_off_the_data():
    t = pd.DataFrame({"category": ["food", "music", "sport", "art", "law"], "model": "m",
                      "acc": [0.4, 0.45, 0.5, 0.42, 0.38]})
    fig = plots.radar(t, "category", "acc", "model", rmax=1)
    assert audit.ticks_over_data(fig, audit.renderer_of(fig)) == []


def test_two_reference_lines_drawn_as_one_fail():
    """CAPTEx cbmcq_elimination_chance: chance 0.25 and elimination 0.251 as one line."""
    fig, ax = plt.subplots()
    ax.bar([0], [0.6], label="ours")
    ax.annotate("n=40", (0, 0.1))
    ax.axhline(0.25, label="chance (0.25)", linestyle=":")
    ax.axhline(0.251, label="elimination chance (0.251)", linestyle="--")
    ax.set_ylim(0, 1)
    assert has(problems_of(fig), "'chance (0.25)' and 'elimination chance (0.251)' are drawn as one line")


def test_a_share_axis_beyond_one_fails():
    """PERCUL position_bias: a share axis up to 1.2."""
    fig, ax = plt.subplots()
    ax.bar([0, 1, 2, 3], [0.2, 0.3, 0.4, 0.1])
    ax.set_ylabel("share of answers")
    ax.set_ylim(0, 1.2)
    assert has(problems_of(fig, kind="data"), "a share axis ('share of answers') runs to 1.20")


def test_one_point_alone_on_a_size_axis_fails():
    """CAPTEx fig8_size_ours: one point on a log axis auto-scaled to 0.170–0.1875."""
    fig, ax = plt.subplots()
    ax.plot([0.27], [0.18], marker="o", label=f"{MODEL} (generate)")
    ax.annotate("n=70", (0.27, 0.18))
    ax.set_xscale("log")
    ax.axhline(0.25)
    ax.legend()
    assert has(problems_of(fig), "one point alone on its axes")


def test_bars_that_are_all_zero_fail():
    """CulturalRecipes figure4_literal_rates: every model bar 0, only error bars visible."""
    t = pd.DataFrame({"concept": ["tofu", "rice"], "system": "m (llm prompt)", "rate": [0.0, 0.0],
                      "lo": [0.0, 0.0], "hi": [0.3, 0.2], "n": [12, 14]})
    fig = plots.grouped_bars(t, "concept", "rate", "system", err_low="lo", err_high="hi", n="n")
    assert has(problems_of(fig, model="m", method="llm prompt", chance=None, no_chance="rates"), "every bar of ours is 0")


def test_an_absolute_path_in_a_caption_fails_and_portable_removes_it(monkeypatch, tmp_path):
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path))
    text = f"data: the release in {tmp_path}/fmlama"
    assert audit.absolute_path(text) and not audit.absolute_path(render.portable(text))
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2])
    with rendering("paper", "column"):
        found = audit.paper_problems(fig, plots.layout.current(), {"captions": [text]})
    assert has(found, "absolute path in the caption")


def test_a_paper_figure_too_wide_or_with_small_text_fails():
    with rendering("paper", "column") as chosen:
        fig, ax = plt.subplots(figsize=(6.0, 2.0))
        ax.plot([1, 2], [1, 2])
        ax.annotate("n=12", (1, 1), fontsize=5)
        found = audit.paper_problems(fig, chosen)
        assert has(found, "more than the column width (3.3 in)") and has(found, "texts need 6 pt")
        render.finish_paper(fig)
        assert audit.paper_problems(fig, chosen) == []


def test_the_paper_palette_keeps_the_first_series_apart_in_grey():
    from matplotlib.colors import to_rgb

    def lightness(colour: str) -> float:
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour))
        y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        return 116 * y ** (1 / 3) - 16 if y > 0.008856 else 903.3 * y

    with rendering("paper"):
        shades = sorted(lightness(c) for c in plots.palette(4))
    assert min(np.diff(shades)) >= 15  # CIE L*: far enough apart to tell in greyscale


def test_plot_functions_size_for_the_rendering_in_force():
    table = pd.DataFrame({"lang": list("abcdefghij"), "model": "m", "acc": np.linspace(0.2, 0.7, 10), "n": 30})
    wide = plots.grouped_bars(table, "lang", "acc", "model", n="n")
    with rendering("paper", "column"):
        narrow = plots.grouped_bars(table, "lang", "acc", "model", n="n")
    assert wide.get_figwidth() > WIDTHS["column"] >= narrow.get_figwidth()


def test_a_new_run_of_a_notebook_forgets_the_figures_of_the_last(tmp_path, monkeypatch):
    """A figure the last run saved and this one does not is no longer in the run's folder (nor redrawn)."""
    from culturelab.runner import Run

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.delenv("CULTURELAB_FIGURES", raising=False)
    first = Run("percul/01_benchmark", {"model": MODEL}, name="r")
    old = first.savefig(_two_panels(SCORES), "old", kind="score", method="generate")
    assert [r.name for r in render.render_run(tmp_path / "runs" / "r", out=tmp_path / "p")] == ["old"]
    second = Run("percul/01_benchmark", {"model": MODEL}, name="r")
    second.savefig(_two_panels(SCORES), "new", kind="score", method="generate")
    assert not any(p.exists() for p in old) and not (second.out_dir / "figures" / "old.json").exists()
    assert [r.name for r in render.render_run(tmp_path / "runs" / "r", out=tmp_path / "q")] == ["new"]


@drawing
def _one_panel(table: pd.DataFrame, *, title: str, suptitle: str = "", panels: int = 1) -> plt.Figure:
    fig, axes = plots.panel_grid(panels, panel=(4.0, 3.0))
    for ax in axes:
        plots.grouped_bars(table, "lang", "acc", "model", n="n", chance=0.25, ax=ax, title=title, legend=False)
    if suptitle:
        fig.suptitle(suptitle)
    plots.layout.shared_legend(fig, axes)
    return fig


def _finished(fig: plt.Figure, sample: bool = False) -> plt.Figure:
    if sample:
        render.stamp_sample(fig, "paper")
    render.finish_paper(fig)
    render.place_margins(fig)
    return fig


def test_a_title_sits_above_the_legend_over_the_panels_not_between_them():
    with rendering("paper", "column"):
        fig = _finished(_one_panel(SCORES, title="Accuracy by language"), sample=True)
        renderer = audit.renderer_of(fig)
        (ax,) = fig.axes
        legend, title = fig.legends[0].get_window_extent(renderer), fig._suptitle.get_window_extent(renderer)
        assert fig.get_suptitle() == f"Accuracy by language\n{render.SAMPLE_STAMP['paper']}" and ax.get_title() == ""
        assert title.y0 >= legend.y1 - 1
        assert legend.y0 - ax.get_window_extent(renderer).y1 < 0.15 * fig.dpi  # no room left for a title gone
    with rendering("paper", "text"):
        fig = _finished(_one_panel(SCORES, title="by language", suptitle="Figure 7", panels=2))
        renderer = audit.renderer_of(fig)
        legend, title = fig.legends[0].get_window_extent(renderer), fig._suptitle.get_window_extent(renderer)
        assert title.y0 >= legend.y1 - 1 and [ax.get_title() for ax in fig.axes] == ["by language"] * 2


@drawing
def _one_heatmap(table: pd.DataFrame, *, title: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(4.0, 3.5))
    fig.colorbar(ax.imshow(table.to_numpy(dtype=float)), ax=ax)
    ax.set_title(title)
    return fig


def test_the_title_of_a_one_panel_figure_wraps_to_the_figures_width_not_its_panels():
    with rendering("paper", "column"):
        fig = _finished(_one_heatmap(pd.DataFrame([[1, 2], [3, 4]]), title="Template × dish-name language, ALL mAP "
                                     "(bundled:gemma3-270m, log-likelihood ranking, 12 dishes)"))
        assert fig.axes[0].get_title().count("\n") <= 1


@drawing
def _histogram(values: pd.Series, *, title: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=plots.figsize(4.0, 2.5))
    ax.hist(values, bins=10)
    ax.set(title=title, xlabel="share of the words", ylabel="texts")
    return fig


def test_a_one_panel_title_spans_the_figure_centred_on_its_panel_within_the_column():
    title = "rouge_score's default tokenizer on 38,481 step headlines of the original-Turkish corpus"
    with rendering("paper", "column") as chosen:
        fig = _finished(_histogram(pd.Series(np.linspace(0, 1, 50) ** 2), title=title))
        box = fig.axes[0].title.get_window_extent(audit.renderer_of(fig))
        assert fig.axes[0].get_title().count("\n") == 1 and box.x0 >= 0 and box.x1 <= fig.bbox.width
        assert audit.paper_problems(fig, chosen) == []


def test_a_panel_of_more_bars_than_a_column_holds_takes_the_text_width(tmp_path):
    crowded = pd.DataFrame([{"lang": lang, "model": f"system {i}", "acc": 0.1 * i, "n": 440}
                            for lang in ("R@1", "R@10", "R@30") for i in range(7)])
    fig = _one_panel(crowded, title="Linking actions")
    saved = _save(fig, tmp_path)
    assert json.loads(saved.spec_path.read_text())["width"] == "text"
    spec = json.loads(saved.spec_path.read_text())  # a spec saved before: the column, still re-rendered at the text width
    saved.spec_path.write_text(json.dumps({**spec, "width": "column"}))
    (done,) = render.render_run(tmp_path / "run", style="paper", out=tmp_path / "paper")
    assert WIDTHS["column"] + 0.1 < audit.pdf_facts(done.paths[0])["width_in"] <= WIDTHS["text"] + 0.01
    assert json.loads(_save(_one_panel(SCORES, title="few bars"), tmp_path, "few").spec_path.read_text())["width"] == \
        "column"


def _steps(n_by_series: dict[str, int]) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame([{"steps": steps, "method": method, "rho": rng.uniform(-1, 1), "valid": True}
                         for method, n in n_by_series.items() for steps in range(5, 11) for _ in range(n + steps)])


def test_n_per_point_is_written_under_the_axis_apart_and_once_when_the_series_share_it():
    """Turkish PLU fig_reordering_vs_steps: rows of "n=694n=601…" ran together, lay on the
    Levenshtein curve and on the valid-answers panel's band."""
    with rendering("paper", "text") as chosen:
        fig = plots.curves.valid_answer_curves(_steps({"as shown": 690, "llm": 25}), "steps", {"rho": "Spearman ρ"},
                                               hue="method", title="Step ordering — " + MODEL)
        render.finish_paper(fig)
        renderer = audit.renderer_of(fig)
        for ax in fig.axes[:2]:
            counts = [t for t in ax.texts if t.get_text().isdigit()]
            assert len(counts) == 12 and {t.get_color() for t in counts} == {"#000000", plots.style.palette(2)[1]}
            assert all(t.get_window_extent(renderer).y1 < ax.get_window_extent(renderer).y0 for t in counts)
        assert problems_of(fig, chance=None, no_chance="a toy", method=["as shown", "llm"]) == [] == audit.paper_problems(fig, chosen)
        shared = plots.curves.metric_curve(_steps({"a": 30, "b": 30}), "steps", "rho", hue="method").axes[0]
        assert [t.get_text() for t in shared.texts if t.get_text().isdigit()] == [str(30 + s) for s in range(5, 11)]


def test_an_n_label_taller_than_its_bar_goes_above_the_whisker_and_the_audit_sees_one_that_does_not():
    """FMLAMA table13, Turkish per_category_accuracy and table5_rerank, PERCUL fig8: the white n
    label at the foot of a short bar hid the bar's top and its whisker's lower end."""
    bars = pd.DataFrame({"lang": ["R@1", "R@10"], "model": "m", "acc": [0.04, 0.7], "lo": [0.01, 0.6],
                         "hi": [0.3, 0.8], "n": [440, 440]})
    with rendering("paper", "column"):
        fig = plots.grouped_bars(bars, "lang", "acc", "model", n="n", err_low="lo", err_high="hi", chance=0.25,
                                 title=f"recall — {MODEL} (generate)", ylim=(0, 1))
        render.finish_paper(fig)
        ax, renderer = fig.axes[0], audit.renderer_of(fig)
        short, tall = ax.texts
        whisker_top = ax.transData.transform((0, 0.3))[1]
        assert short.get_window_extent(renderer).y0 >= whisker_top  # lifted over the whisker
        assert tall.get_window_extent(renderer).y1 < ax.transData.transform((0, 0.6))[1]  # at the foot of its bar
        assert problems_of(fig) == []
        short.lifted = lambda renderer: False  # left at the foot, as before
        assert has(problems_of(fig), "'n=440' on its box hides the top of a bar")


def test_the_sample_banner_of_a_one_panel_figure_with_no_legend_above_is_a_line_of_its_title():
    """Quickstart quickstart_accuracy: the banner, at 9 pt, on a line of its own above a 7-pt title."""
    with rendering("paper", "column") as chosen:
        fig = _finished(_histogram(pd.Series(np.linspace(0, 1, 50)), title="Quickstart MCQs"), sample=True)
        (ax,) = fig.axes
        assert fig.get_suptitle() == "" and ax.get_title() == f"Quickstart MCQs\n{render.SAMPLE_STAMP['paper']}"
        assert audit.paper_problems(fig, chosen) == []
        assert not has(problems_of(fig, kind="data", data_source="sample"), "sample data")


@pytest.mark.parametrize("panels, engine", [(1, None), (2, "constrained")])
def test_a_legend_above_the_panels_sits_on_them_without_a_gap(panels, engine):
    """CAPTEx cbmcq_elimination_chance: about 0.25 in of empty space between the legend and its panel."""
    with rendering("paper", "column" if panels == 1 else "text"):
        fig = _one_panel(SCORES, title="Accuracy by language", panels=panels)
        if engine:
            fig.set_layout_engine(engine)
        fig = _finished(fig)
        renderer = audit.renderer_of(fig)
        top = max(ax.get_tightbbox(renderer).y1 for ax in fig.axes)
        gap = (fig.legends[0].get_window_extent(renderer).y0 - top) / renderer.points_to_pixels(1.0)
        assert 0 <= gap <= 3


@pytest.mark.parametrize("words", range(4))
def test_a_wrapped_title_keeps_n_equals_its_unit_on_one_line(words):
    """PERCUL: a wrapped title broke inside its parenthesis, "(n\\n= stories)"."""
    title = " ".join(["Reliability", "of", "the", "text", "log-likelihood"][:words + 1]) + \
        " confidences per option order and model size (n = stories)"
    with rendering("paper", "column"):
        fig = _finished(_histogram(pd.Series(np.linspace(0, 1, 50)), title=title))
        shown = fig.axes[0].get_title()
        assert "\n" in shown and "(n = stories)" in shown.split("\n")[-1]


def test_pdf_facts_reads_a_stream_whose_compressed_data_ends_in_a_carriage_return(tmp_path):
    """turkish_plu/table5_rerank.pdf: a content stream whose last compressed byte is \\r lost that byte to the
    end-of-line before ``endstream``, failed to inflate, and the PDF seemed to hold no text at all."""
    import zlib

    content = next(c for i in range(100_000)
                   if (c := zlib.compress(f"BT /F1 7 Tf (x{i}) Tj ET".encode()))[-1:] == b"\r")
    pdf = tmp_path / "f.pdf"
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj << /MediaBox [0 0 216 144] >> endobj\n2 0 obj << /Filter /FlateDecode >>\n"
                    b"stream\n" + content + b"\nendstream\nendobj\n%%EOF\n")
    assert audit.pdf_facts(pdf)["font_sizes"] == [7.0]
