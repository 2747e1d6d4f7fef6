"""PERCUL figures in the paper style (issue 29): each drawing, given small synthetic data of the shape its
notebook gives it — at the default run's size (our 34-story sample) and at the release's — passes the figure
audit at its width (``audit.problems`` + ``audit.paper_problems``), and the defects the independent read found
are gone: Figure 8 of 70 hatched cells in 3-pt text, a sample banner over the paper's numbers in Figures 5 and
16, a share axis to 1.2 (position bias), Figure 5's hundreds of overlapping cell texts, Figure 7's overlapping
Δ labels and share axis beyond 1, scoring methods not named, free-generation scores without their valid share."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from culturelab.percul import distractors, figures, paper, robustness, translation
from culturelab.percul.data import CATEGORIES, load, released_counts
from culturelab.percul.protocol import method_name
from culturelab.percul.scoring import per_category, summary
from culturelab.plots import audit
from culturelab.plots.honest import SMALL_N
from culturelab.plots.layout import current, rendering
from culturelab.plots.render import finish_paper, stamp_sample
from culturelab.plots.style import place_margins

MODEL = "bundled:gemma3-270m"
LOGLIK = method_name("loglikelihood")
GENERATION = method_name("generate")


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def audited(draw, width: str | None, claims: dict, *, style: str = "paper", data_source: str | None = None,
            **arguments) -> tuple[plt.Figure, list[str]]:
    """``draw(**arguments)`` rendered as ``culturelab figures`` renders it (``style`` at ``width``; the
    sample banner stamped where ``data_source`` is sample), and the audit's problems with it."""
    with rendering(style, width):
        fig = draw(**arguments)
        stated = audit.claim(fig, data_source=data_source, **claims)
        if data_source == "sample":
            stamp_sample(fig, style)
        if style == "paper":
            finish_paper(fig)
        place_margins(fig)
        found = audit.problems(audit.inspect(fig), stated)
        if style == "paper":
            found += audit.paper_problems(fig, current())
        return fig, found


def answers(sizes: dict[str, int], methods=("loglik-text-mean",), models=(MODEL,), seed: int = 0,
            valid: float = 1.0) -> pd.DataFrame:
    """Seeded answers: ``sizes`` stories per category, right a third of the time, ``valid`` of the
    generated ones readable."""
    rng = np.random.default_rng(seed)
    rows = [{"model": m, "method": meth, "id": f"{c}-{i}", "category": c, "correct": rng.random() < 0.35,
             "valid": meth != "generate" or rng.random() < valid}
            for m in models for meth in methods for c, n in sizes.items() for i in range(n)]
    out = pd.DataFrame(rows)
    return out.assign(correct=out["correct"] & out["valid"])


SAMPLE_SIZES = load(data_source="sample").items["category"].value_counts().to_dict()  # 3–4 stories each


@pytest.fixture(scope="module")
def sample_picks():
    """One model's answers on our 34 sample stories, wrong two times in three: its distractor picks."""
    items = load(data_source="sample").items
    rng = np.random.default_rng(1)
    pred = [(a + int(rng.integers(1, 4))) % 4 if rng.random() < 0.7 else a for a in items["answer"]]
    res = items.assign(model=MODEL, pred=pred, valid=True)
    return distractors.distractor_picks(res.assign(correct=res["pred"] == res["answer"])), items


def test_fig8_pools_the_categories_at_the_default_size_and_passes_the_audit(sample_picks):
    """Before: 70 of 77 cells hatched (2–3 picks per category), cell texts at 3 pt."""
    picks, items = sample_picks
    assert not figures.carries_signal(picks.groupby("category").size())
    claims = {"kind": "score", "model": MODEL, "method": LOGLIK, "chance": figures.CHANCE_RULES}
    fig, found = audited(figures.fig8_with_base_rates, "column", claims, data_source="sample", picks=picks,
                         items=items, method=LOGLIK)
    assert found == []
    assert audit.small_n_panels(fig) == [] and not [p for p in fig.axes[0].patches if p.get_gid() == SMALL_N]
    assert "all 11 categories pooled" in " ".join(fig.get_suptitle().split())  # the title, above the legend
    # the chance bars' n counts the distractors shown (72), not picks: the axis says both
    assert "n=72" in [t.get_text() for t in fig.axes[0].texts]
    assert "chance: distractors shown" in " ".join(fig.axes[0].get_ylabel().split())
    sizes = [t.get_fontsize() for t, _ in audit.sized_texts(fig)]
    assert min(sizes) >= 6.0


def test_fig8_per_category_with_enough_picks_passes_the_audit_at_text_width(sample_picks):
    _, items = sample_picks
    rng = np.random.default_rng(2)
    many = pd.concat([items.assign(model=f"m{k}", pred=[(a + int(rng.integers(1, 4))) % 4 for a in items["answer"]],
                                   valid=True) for k in range(5)], ignore_index=True)
    picks = distractors.distractor_picks(many.assign(correct=False))
    claims = {"kind": "score", "model": sorted(many["model"].unique()), "method": LOGLIK,
              "chance": figures.CHANCE_RULES}
    fig, found = audited(figures.fig8_with_base_rates, "text", claims, data_source="sample", picks=picks,
                         items=items, method=LOGLIK)
    assert found == [] and fig.get_suptitle().startswith("Figure 8") and "per category" in fig.get_suptitle()
    hatched = [p for p in fig.axes[0].patches if p.get_gid() == SMALL_N]
    assert len(hatched) <= 7 * 12 / 2  # most rows rest on 10+ picks


def test_the_sample_banner_sits_over_our_panels_only(sample_picks):
    """Before: Figures 5 and 16 printed "sample data (not the paper's data)" over the paper's published numbers."""
    picks, items = sample_picks
    release = per_category(answers(released_counts()), ["model"])
    claims = {"kind": "score", "model": MODEL, "method": LOGLIK}
    fig5, found5 = audited(figures.fig5_heatmap, "text", {**claims, "chance": 0.25}, data_source="sample",
                           matrix=paper.fig5_matrix(), ours=release, method=LOGLIK)
    fig16, found16 = audited(figures.fig16_beside_paper, "text", {**claims, "chance": figures.CHANCE_RULES},
                             data_source="sample", published=paper.fig16_matrix(), picks=picks, items=items,
                             method=LOGLIK)
    assert found5 == [] and found16 == []
    for fig in (fig5, fig16):
        theirs, ours = fig.axes[0], fig.axes[1]
        assert theirs.get_gid() == audit.REPORTED and "sample data" not in theirs.get_title().lower()
        assert "sample data" in ours.get_title() and "sample data" not in fig.get_suptitle()
        assert not audit.banner_over_reported(fig)


def test_fig5_cells_stay_apart_and_readable_at_text_width():
    """Before: hundreds of overlapping cell texts at 4.3 pt, the paper's cells annotated with Table 1's n."""
    release = per_category(answers(released_counts(), methods=("generate",), valid=0.8), ["model"])
    claims = {"kind": "score", "model": MODEL, "method": GENERATION, "chance": 0.25}
    fig, found = audited(figures.fig5_heatmap, "text", claims, data_source="sample", matrix=paper.fig5_matrix(),
                         ours=release, method=GENERATION)
    assert found == []
    assert all("n=" not in t.get_text() for t in fig.axes[0].texts)  # the paper's cells: the share alone
    assert all(t.get_text().endswith(f"n={released_counts()[c]}") for t, c in zip(fig.axes[1].texts, CATEGORIES))
    assert "valid answers" in fig.axes[1].get_title()  # generated answers: the share read
    fig, found = audited(figures.fig5_heatmap, "text", {"kind": "reported"}, data_source="reported",
                         matrix=paper.fig5_matrix())  # the default run: our cells in the table
    assert found == [] and len([ax for ax in fig.axes if ax.get_title()]) == 1


def test_fig7_names_the_method_keeps_shares_in_0_1_and_labels_apart():
    """Before: Δ labels over each other, a share axis to 1.1, the paper's bars under the sample banner."""
    both = answers(SAMPLE_SIZES, methods=("generate",), valid=0.7)
    both = pd.concat([both.assign(split=translation.PERSIAN), both.assign(split=translation.ENGLISH)])
    ours = translation.split_gap(summary(both, ["model", "split"]))
    gap = pd.concat([paper.translation_gap().assign(model=lambda d: d["model"] + " (paper)"),
                     ours.assign(model=ours["model"] + " (ours)")], ignore_index=True)
    claims = {"kind": "score", "model": MODEL, "method": GENERATION, "chance": 0.25}
    for style, width in (("paper", "text"), ("notebook", None)):
        fig, found = audited(figures.fig7_translation, width, claims, style=style, data_source="sample", gap=gap,
                             method=GENERATION)
        assert found == [], style
    assert all(ax.get_ylim()[1] <= 1.0 for ax in fig.axes)
    assert any("% valid" in t.get_text() for t in fig.axes[1].texts)  # each generated bar: its valid share


def test_position_bias_keeps_its_shares_on_a_0_1_axis():
    """Before: a share axis up to 1.25 to make room for the legend."""
    items = pd.DataFrame({"id": [f"s{i}" for i in range(34)], "options": [list("abcd")] * 34, "answer": 0})
    rng = np.random.default_rng(3)
    res = robustness.permute_items(items, "cyclic").assign(model=MODEL, pred=rng.integers(0, 4, 4 * 34))
    claims = {"kind": "score", "model": MODEL, "method": "text log-likelihood", "chance": 0.25}
    for style, width in (("paper", "column"), ("notebook", None)):
        fig, found = audited(figures.position_bars, width, claims, style=style, data_source="sample",
                             prior=robustness.position_prior(res), method="text log-likelihood")
        assert found == [], style
        assert fig.axes[0].get_ylim() == (0.0, 1.0)


def test_tab5_pools_the_categories_at_the_default_size_and_shows_the_valid_share():
    """Our sample's 3–4 stories per category: the macro over them instead (a figure of faded bars was refused)."""
    both = answers(SAMPLE_SIZES, methods=("generate", "loglik-text-mean"), valid=0.75)
    cats, macro = per_category(both, ["model", "method"]), summary(both, ["model", "method"])
    claims = {"kind": "score", "model": MODEL, "method": [GENERATION, method_name("loglik-text-mean")],
              "chance": 0.25}
    fig, found = audited(figures.category_bars, "column", claims, data_source="sample", table=cats, macro=macro,
                         hue="method", human=0.93, title=f"PERCUL — {MODEL}")
    assert found == [] and audit.small_n_panels(fig) == []
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["macro\n(11 categories)"]
    title = " ".join(fig.get_suptitle().split())  # the macro, the mean of the categories: not pooled (micro)
    assert "macro over the categories" in title and "pooled" not in title
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert labels[0].startswith("n=34 · ") and labels[0].endswith(" % valid") and labels[1] == "n=34"


def test_tab5_and_the_radar_draw_each_category_at_the_release_size():
    both = answers(released_counts(), methods=("generate", "loglik-text-mean"), valid=0.9)
    cats, macro = per_category(both, ["model", "method"]), summary(both, ["model", "method"])
    assert figures.carries_signal(cats["n"])
    claims = {"kind": "score", "model": MODEL, "method": [GENERATION, method_name("loglik-text-mean")],
              "chance": 0.25}
    fig, found = audited(figures.category_bars, "text", claims, data_source="sample", table=cats, macro=macro,
                         hue="method", human=0.93, title=f"PERCUL — {MODEL}")
    assert found == [] and len(fig.axes[0].get_xticklabels()) == 12  # 11 categories and the macro
    ours = per_category(answers(released_counts()), ["model"])
    fig, found = audited(figures.fig15_radar, "column", {"kind": "score", "model": MODEL, "method": LOGLIK},
                         data_source="sample", long=ours, n="n", ci_low="ci_low", ci_high="ci_high",
                         title="Per-category accuracy — our runs", method=LOGLIK)
    assert found == []


def test_the_papers_own_figures_pass_the_audit_at_their_widths():
    points = paper.size_points()
    ours = summary(answers(SAMPLE_SIZES), ["model"]).assign(family="Gemma 3", params_b=0.27)
    cases = [(figures.fig4_size, "column", {"kind": "score", "model": MODEL, "method": LOGLIK}, "sample",
              {"points": points, "ours": ours, "human": 0.93, "method": LOGLIK}),
             (figures.fig15_radar, "column", {"kind": "reported"}, "reported",
              {"long": paper.table5_categories(paper.fig15_models()), "value": "value"}),
             (figures.fig6_finetune, "text", {"kind": "reported"}, "reported", {"table": paper.finetune_gap()}),
             (figures.fig16_beside_paper, "text", {"kind": "reported"}, "reported",
              {"published": paper.fig16_matrix()})]
    for draw, width, claims, source, arguments in cases:
        fig, found = audited(draw, width, claims, data_source=source, **arguments)
        assert found == [], draw.__name__
        assert fig.get_figwidth() <= 7.0


def test_reliability_diagram_passes_at_a_column():
    rng = np.random.default_rng(4)
    items = pd.DataFrame({"id": [f"s{i}" for i in range(34)], "options": [list("abcd")] * 34, "answer": 0})
    res = robustness.permute_items(items, "cyclic").assign(model=MODEL, scores=[list(rng.normal(size=4))
                                                                                for _ in range(4 * 34)])
    bins = robustness.reliability_bins(res, n_bins=5)
    _, found = audited(figures.reliability_diagram, "column", {"kind": "score", "model": MODEL,
                                                                 "method": "text log-likelihood", "chance": 0.25},
                       data_source="sample", bins=bins, title="Reliability (text log-likelihood)",
                       method="text log-likelihood")
    assert found == []


def test_reliability_diagram_writes_each_n_clear_of_the_lines():
    """The sample run's diagram: "n=5" and "n=13" were crossed by the line through their points."""
    from matplotlib.path import Path

    bins = pd.DataFrame({"model": MODEL, "confidence": [0.37, 0.45, 0.54, 0.65, 0.74, 0.84, 0.93],
                         "accuracy": [0.45, 0.23, 0.14, 0.23, 0.28, 0.2, 0.6], "n": [5, 16, 18, 21, 13, 7, 3]})
    fig, found = audited(figures.reliability_diagram, "column", {"kind": "score", "model": MODEL,
                                                                 "method": "text log-likelihood", "chance": 0.25},
                         bins=bins, title="Reliability (text log-likelihood)", method="text log-likelihood")
    assert found == []
    ax, renderer = fig.axes[0], audit.renderer_of(fig)
    labels = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().startswith("n=")]
    lines = [Path(line.get_transform().transform(line.get_xydata())) for line in ax.lines]
    assert len(labels) == 7
    assert not [box for box in labels if any(line.intersects_bbox(box, filled=False) for line in lines)]
    assert not any(a.overlaps(b) for i, a in enumerate(labels) for b in labels[i + 1:])
