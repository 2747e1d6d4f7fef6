"""The Turkish PLU figures in both renderings (issue 29): each drawn from small synthetic tables passes
the figure audit in the notebook style and, in the paper style at its width, the paper audit too
(width, text sizes, overlaps, each panel titled by its own data, no reference lines drawn as one, no
radial tick label over a radar's data, n on every mark); the heatmaps keep their n when drawn again
from the saved data."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from culturelab.plots import audit
from culturelab.plots.layout import current, rendering
from culturelab.plots.render import finish_paper, render_run, save_figure
from culturelab.plots.style import place_margins
from culturelab.turkish_plu import figures

MODEL = "bundled:gemma3-270m"
METHODS = ["lexical overlap", "options only (tf-idf)", "tf-idf char", "llm (mean)"]
GROUPS = ["gi · all (translated)", "nep · C&E", "si · C&OV", "si · HE"]


def paper_problems(draw, width: str) -> list[str]:
    """What the audit finds in ``draw()`` rendered in the paper style at ``width``, as
    ``culturelab figures --style paper`` judges it."""
    with rendering("paper", width):
        fig = draw()
        claims = audit.claims_of(fig)
        finish_paper(fig)
        found = audit.problems(audit.inspect(fig), claims) + audit.paper_problems(fig, current())
        plt.close(fig)
    return found


def notebook_problems(draw) -> list[str]:
    """What the audit finds in ``draw()`` laid out as the notebook rendering saves it (captions under it)."""
    fig = draw()
    place_margins(fig)
    found = audit.problems(audit.inspect(fig), audit.claims_of(fig))
    plt.close(fig)
    return found


def pick_matrices(seed: int = 0, rows: list[str] = GROUPS) -> dict[str, pd.DataFrame]:
    """Matrices as :func:`culturelab.turkish_plu.distractors.pick_matrix` makes them: row labels
    with their n, ``attrs["n"]`` the items per row (some rows under 10 items)."""
    rng = np.random.default_rng(seed)
    out = {}
    for method in METHODS:
        n = rng.integers(3, 40, len(rows))
        shares = rng.dirichlet(np.ones(4), len(rows))
        m = pd.DataFrame(shares, index=pd.Index([f"{r} (n={k})" for r, k in zip(rows, n)], name="group"),
                         columns=pd.Index(["gold", "rank 1", "rank 2", "rank 3"], name="picked"))
        m.attrs["n"] = n.tolist()
        out[method] = m
    return out


def heatmaps() -> plt.Figure:
    return figures.heatmap_panels(pick_matrices(), chance=0.25, title="Distractors picked, released test sets",
                                  model=MODEL)


def test_heatmap_panels_title_each_panel_by_its_own_method_and_the_figure_by_its_title():
    """The loop variable ``title`` once shadowed the parameter: the figure was titled by the last
    method ("tf-idf char (no LM run)")."""
    fig = figures.heatmap_panels(pick_matrices(), chance=0.25, title="Distractors picked, original GI items")
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == METHODS
    assert fig.get_suptitle() == "Distractors picked, original GI items (no LM run)"
    assert not audit.inspect(fig)["duplicate_titles"]
    plt.close(fig)


def test_heatmap_panels_write_n_in_every_cell_and_hatch_the_small_rows():
    """"N marks of ours but N n labels": the n of a row of shares now stands in each of its cells."""
    matrices = pick_matrices()
    fig = figures.heatmap_panels(matrices, chance=0.25, title="t")
    first = fig.axes[0]
    texts = [t.get_text() for t in first.texts]
    n = matrices[METHODS[0]].attrs["n"]
    assert texts[:4] == [f"{v:.2f}\nn={n[0]}" for v in matrices[METHODS[0]].iloc[0]]
    hatched = [p for p in first.patches if p.get_gid() == audit.SMALL_N]
    assert len(hatched) == 4 * sum(k < 10 for k in n)
    assert [t.get_text() for t in first.get_yticklabels()] == GROUPS  # the n left the row labels for the cells
    plt.close(fig)


def test_heatmap_panels_share_one_colour_bar_with_the_chance_on_it_and_rows_across_methods():
    """One scale for all panels; a method that lacks a row (an LM scored on fewer items) keeps the
    others' rows in the same place."""
    matrices = pick_matrices()
    llm = matrices["llm (mean)"].iloc[:-2].copy()
    llm.attrs["n"] = matrices["llm (mean)"].attrs["n"][:-2]
    matrices["llm (mean)"] = llm
    fig = figures.heatmap_panels(matrices, chance=0.25, title="t", model=MODEL)
    bars = [ax for ax in fig.axes if getattr(ax, "_colorbar", None) is not None]
    assert len(bars) == 1 and "chance 0.25" in bars[0].get_ylabel()
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert all(ax.get_ylim() == panels[0].get_ylim() for ax in panels)
    assert sum(bool(t.get_text()) for t in panels[-1].texts) == 4 * (len(GROUPS) - 2)
    assert audit.problems(audit.inspect(fig), audit.claims_of(fig)) == []
    plt.close(fig)


def test_heatmap_panels_fit_the_text_width_of_a_paper():
    """They were 20.3 in wide: in the paper style they wrap into rows of the 6.9-in text width, one
    colour bar, no text under 6 pt, the row labels on the first column only."""
    with rendering("paper", "text"):
        fig = heatmaps()
        claims = audit.claims_of(fig)
        finish_paper(fig)
        assert audit.problems(audit.inspect(fig), claims) + audit.paper_problems(fig, current()) == []
        panels = [ax for ax in fig.axes if ax.get_title()]
        assert len({round(ax.get_position().y0, 2) for ax in panels}) == 2  # four panels in two rows
        labelled = [ax for ax in panels if any(t.get_text() for t in audit.visible_ticklabels(ax, "y"))]
        assert labelled == [ax for ax in panels if ax.get_subplotspec().is_first_col()]
        plt.close(fig)


def test_heatmap_counts_survive_saving_and_drawing_again(tmp_path):
    """The counts once travelled in ``attrs``, which a saved CSV loses: drawn again from the saved
    data, the heatmaps had no n and no hatching."""
    fig = heatmaps()
    save_figure(fig, "distractor_picks", data_dir=tmp_path / "run" / "06" / "figures", figures_dir=tmp_path / "nb",
                claims={"kind": "score"})
    drawn = render_run(tmp_path / "run", style="paper", out=tmp_path / "paper", formats=(".pdf",))
    assert [r.name for r in drawn] == ["distractor_picks"] and drawn[0].problems == []
    caption = (tmp_path / "paper" / "figures" / "distractor_picks.caption.md").read_text()
    assert "items per mark" in caption


def accuracy(tasks=("gi", "si", "so", "nep")) -> tuple[pd.DataFrame, pd.DataFrame]:
    methods = ["lexical overlap", "llm (mean)", "llm (sum)", "majority (val)", "options only (tf-idf)", "random",
               "tf-idf char"]
    rows = [{"task": t, "method": m, "model": MODEL if m.startswith("llm") else "baseline", "accuracy": 0.2 + 0.05 * i,
             "ci_low": 0.1 + 0.05 * i, "ci_high": 0.3 + 0.05 * i, "n": 60 if m.startswith("llm") else 612,
             "chance": 0.5 if t == "so" else 0.25} for t in tasks for i, m in enumerate(methods)]
    paper = pd.DataFrame([(t, m, v) for t in tasks for m, v in (("Random", 25.0), ("BERTurk ZS", 26.52),
                                                                ("BERTurk FT", 72.4))],
                         columns=["task", "model", "value"])
    return pd.DataFrame(rows), paper


def table6() -> plt.Figure:
    acc, paper = accuracy()
    return figures.accuracy_panels(acc, paper, ["gi", "si", "so", "nep"], model=MODEL)


def test_table6_draws_the_papers_zero_shot_row_apart_from_chance():
    """The paper's BERTurk ZS (26.5) and chance (25) were two horizontal lines drawn as one: the
    paper's rows are now grey bars of their own beside ours, chance the one dotted line."""
    fig = table6()
    assert not audit.inspect(fig)["coincident_lines"]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels.count(figures.CHANCE_LABEL) == 1
    assert {"paper: BERTurk ZS (random head)", "paper: BERTurk FT"} <= set(labels)
    first = fig.axes[0]
    paper = [c for c in first.containers if c.get_label().startswith("paper:")]
    assert [round(c.patches[0].get_height(), 2) for c in paper] == [26.52, 72.4]
    assert all(p.get_gid() == audit.REPORTED for c in paper for p in c.patches)  # no n asked of the paper's
    assert [ax.get_title() for ax in fig.axes] == ["Goal Inference", "Step Inference", "Step Ordering",
                                                   "Next Event Prediction"]
    plt.close(fig)


def per_category() -> plt.Figure:
    cats = ["C&E", "HE", "H&G", "H&C", "P&A", "C&OV"]
    rows = [{"task": t, "category": c, "method": m, "model": MODEL, "accuracy": 0.3, "ci_low": 0.2, "ci_high": 0.4,
             "n": 30 if c != "C&OV" else 4} for t in ("si", "nep") for c in cats
            for m in ("lexical overlap", "llm (mean)", "random", "tf-idf char")]
    return figures.category_panels(pd.DataFrame(rows), ["si", "nep"], model=MODEL)


def recall() -> plt.Figure:
    table = pd.DataFrame([("paper BM25", m, v, np.nan, np.nan, 440) for m, v in (("R@1", 2.0), ("R@10", 9.0))]
                         + [("BM25+ unicode / full", m, v, v - 3, v + 3, 60) for m, v in (("R@1", 5.0), ("R@10", 20.0))],
                         columns=["system", "metric", "value", "ci_low", "ci_high", "n"])
    return figures.recall_bars(table, 51550)


def rouge() -> plt.Figure:
    table = pd.DataFrame([(s, tok, m, 20.0, 18.0, 22.0, 300, valid) for s, valid in (("lead-1", 1.0),
                                                                                      (f"zero-shot {MODEL}", 0.8))
                          for tok in ("default", "unicode") for m in ("rouge1", "rouge2", "rougeL")],
                         columns=["system", "tokenizer", "metric", "value", "ci_low", "ci_high", "n", "valid"])
    return figures.rouge_panels(table, ["default", "unicode"])


def radar() -> plt.Figure:
    cats = ["C&E", "HE", "H&G", "H&C", "P&A", "C&OV"]
    rng = np.random.default_rng(1)
    profile = pd.DataFrame([(c, f, v) for f in ("steps / method", "methods / tutorial", "ordered %",
                                                "tutorial share %") for c, v in zip(cats, rng.uniform(0.05, 1, 6))],
                           columns=["category", "feature", "scaled"])
    return figures.category_radar(profile)


@pytest.mark.parametrize(("draw", "width"), [(table6, "text"), (per_category, "text"),
                                              (recall, "column"), (rouge, "text"), (radar, "column")])
def test_each_figure_passes_the_paper_audit_at_its_width(draw, width):
    """Among others: Table 6's title over its legend, the radar's ring labels over its lines."""
    assert paper_problems(draw, width) == []


@pytest.mark.parametrize("draw", [per_category, recall, rouge, radar])
def test_each_figure_passes_the_audit_in_the_notebook_style(draw):
    assert notebook_problems(draw) == []


def test_the_radar_names_its_rings_in_the_title_instead_of_labels_on_the_lines():
    fig = radar()
    ax = fig.axes[0]
    assert not any(t.get_text() for t in ax.get_yticklabels()) and list(ax.get_yticks()) == list(figures.RINGS)
    assert "rings at" in ax.get_title()
    plt.close(fig)


def test_rouge_panels_write_the_valid_share_of_free_generation_beside_n():
    fig = rouge()
    assert {t.get_text() for t in fig.axes[0].texts} == {"n=300 · 100 % valid", "n=300 · 80 % valid"}
    plt.close(fig)


def test_a_legend_under_the_panels_stays_clear_of_them_with_a_caption_under_it(tmp_path):
    """The notebook rendering anchors figure legends where they are drawn before it stacks the
    captions: a legend placed by the layout engine ("outside lower center") then fell onto the panels."""
    from culturelab import plots

    fig = plots.caption(table6(), "data: same · protocol: same · model: " + MODEL)
    plots.save(fig, tmp_path / "table6", audit_to=tmp_path / "table6.json", formats=(".pdf",))
    import json

    record = json.loads((tmp_path / "table6.json").read_text())
    assert audit.problems(record["facts"], record["claims"]) == []
    plt.close(fig)


def test_reordering_legend_fills_the_free_cells_of_a_wrapped_paper_figure(toy_corpus):
    """Five panels wrap into rows of four in a paper: the legend goes into the last row's free cells
    (it hung in a gap of a sixth of the figure's height above the panels), the figure's title above."""
    from culturelab.turkish_plu import reordering as ro

    inst = ro.build_reorder_instances(toy_corpus, seed=0)
    shown = ro.as_shown_baseline(inst)
    random = ro.random_expectation(inst["n_steps"], n_samples=200)

    with rendering("paper", "text"):
        fig = figures.reorder_curves(shown, random, hue_order=["as shown"])
        claims = audit.claims_of(fig)
        finish_paper(fig)
        assert audit.problems(audit.inspect(fig), claims) + audit.paper_problems(fig, current()) == []
        room = [ax for ax in fig.axes if not ax.axison]
        assert len(room) == 1 and room[0].get_legend() is not None and not fig.legends
        top = max(ax.get_position().y1 for ax in fig.axes if ax.axison)
        assert top > 0.85  # no band left empty between the title and the panels
        plt.close(fig)
