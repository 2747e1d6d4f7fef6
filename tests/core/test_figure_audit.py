"""The figure audit (culturelab.plots.audit) fails on each defect class seen in the committed figures
(issue 23), reproduced here on small synthetic figures, and the plot functions pass it on the same data.
The audit of every figure the smoke run writes is in tests/test_notebooks.py."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.patches import Rectangle

from culturelab import plots
from culturelab.plots import audit
from culturelab.plots.honest import SMALL_N_COLOUR
from culturelab.plots.recipe import RecipeError

MODEL = "bundled:gemma3-270m"


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def found(fig, **claims) -> list[str]:
    """The audit's problems of ``fig`` under ``claims`` (a score figure of MODEL by default)."""
    claims = {"kind": "score", "model": MODEL, "method": "generate", **claims}
    plots.claim(fig, **claims)
    return audit.problems(audit.inspect(fig), audit.claims_of(fig))


def has(problems: list[str], fragment: str) -> bool:
    return any(fragment in p for p in problems)


COUNTRIES = ["China", "Japan", "Iran", "India", "Indonesia", "Pakistan", "Nigeria"]


def test_fig3_without_chance_line_and_n_fails_and_grouped_bars_with_them_pass():
    """CAPTEx Fig. 3: 14 bars below footnote 4's chance of 0.151, drawn without the chance line or n."""
    cells = pd.DataFrame({"country": np.repeat(COUNTRIES, 2), "lang": ["English", "native"] * 7,
                          "score": np.linspace(0.07, 0.14, 14), "n": 10})
    title = f"Language impact — {MODEL} (generate)"
    bare = plots.grouped_bars(cells, "country", "score", "lang", title=title)
    problems = found(bare, chance=0.151)
    assert has(problems, "chance 0.151 is declared but no line") and has(problems, "14 marks of ours but 0 n labels")
    fixed = plots.grouped_bars(cells, "country", "score", "lang", n="n", chance=0.151, title=title)
    assert found(fixed, chance=0.151) == []


def test_a_score_figure_must_declare_chance_or_why_not_and_its_method():
    fig, ax = plt.subplots()
    ax.plot([5, 6], [0.1, 0.2], marker="o", label=MODEL)
    ax.annotate("n=30", (5, 0.1))
    ax.annotate("n=31", (6, 0.2))
    ax.legend(loc="lower right")
    problems = audit.problems(audit.inspect(fig), audit.Claims(kind="score", models=[MODEL]))
    assert has(problems, "declares neither a chance level") and has(problems, "declares no scoring method")
    assert audit.problems(audit.inspect(fig), audit.Claims(kind="score", models=[MODEL], methods=[MODEL],
                                                           no_chance="ROUGE has none")) == []
    assert has(audit.problems(audit.inspect(fig), audit.Claims(kind=None)), "declares no kind")


def test_all_grey_heatmap_panel_fails_and_the_heatmap_hatches_instead():
    """PERCUL Fig. 8: every cell of the picked-distractor panel greyed (2–3 picks per category)."""
    shares = pd.DataFrame(np.full((4, 3), 0.3), index=list("abcd"), columns=["R1", "R2", "R3"])
    counts = pd.DataFrame(2, index=shares.index, columns=shares.columns)
    fig = plots.heatmap(shares, title=f"picked — {MODEL} (generate)", chance=0.33, vmin=0, vmax=1)
    for i in range(4):
        for j in range(3):
            fig.axes[0].add_patch(Rectangle((j, i), 1, 1, facecolor=SMALL_N_COLOUR, zorder=2))
    assert has(found(fig, chance=0.33), "12 of 12 marks greyed out")
    fixed = plots.heatmap(shares, counts=counts, title=f"picked — {MODEL} (generate)", chance=0.33, vmin=0, vmax=1)
    problems = found(fixed, chance=0.33)
    assert not has(problems, "greyed out") and not has(problems, "n labels"), problems


def test_mostly_grey_bars_and_a_legend_over_them_fail():
    """CulturalRecipes figure4_literal_rates: 25 of 28 bars greyed, the legend over bars."""
    fig, ax = plt.subplots(figsize=(12, 2.5))
    bars = ax.bar(np.arange(28), np.linspace(0.2, 1.0, 28), label="ours")
    for bar in bars[3:]:
        bar.set_facecolor(SMALL_N_COLOUR)
    for x in range(28):
        ax.annotate("n=3", (x, 0))
    ax.legend(loc="upper right", fontsize=12)
    ax.set_title(MODEL)
    problems = found(fig, no_chance="none")
    assert has(problems, "25 of 28 marks greyed out") and has(problems, "legend over plotted data (bars)")


def test_grouped_bars_fade_small_groups_in_their_colour_and_keep_the_legend_off_the_bars():
    rates = pd.DataFrame({"concept": np.repeat([f"concept {i}" for i in range(7)], 4),
                          "system": ["llm", "retrieval", "copy", "ref"] * 7,
                          "rate": np.tile([0.2, 1.0, 0.9, 1.0], 7), "n": [12] * 3 + [3] * 25})
    fig = plots.grouped_bars(rates, "concept", "rate", "system", n="n", title=f"literal rates — {MODEL} (generate)")
    assert found(fig, no_chance="a rate has none") == []
    faded = [p for p in fig.axes[0].patches if p.get_gid() == plots.honest.SMALL_N]
    assert len(faded) == 25 and len({p.get_edgecolor() for p in faded}) == 4  # each system keeps its colour


def test_colliding_tick_labels_fail_and_grouped_bars_slant_them():
    """rouge_corrected_vs_release: "Source copy" ran into "gemma3-270m (llm)"."""
    labels = ["gemma3-270m (llm)\nzh2en", "Retrieval\nzh2en", "Source copy\nzh2en", "gemma3-270m (llm)\nen2zh"]
    fig, ax = plt.subplots(figsize=(4, 2.5))
    ax.bar(labels, [1, 2, 3, 4])
    assert has(found(fig, kind="data"), "overlapping text: 'Source copy\\nzh2en' and 'gemma3-270m (llm)\\nen2zh'")
    table = pd.DataFrame({"system": labels, "value": [1, 2, 3, 4], "compat": "corrected"})
    fixed = plots.grouped_bars(table, "system", "value", "compat")
    fixed.set_size_inches(4, 2.5)
    plots.bars.fit_ticklabels(fixed.axes[0])
    assert not has(found(fixed, kind="data"), "overlapping text")


def test_n_labels_on_black_bars_fail_and_grouped_bars_write_them_on_white():
    """PERCUL Fig. 7 (position bias) and bli_labels: dark rotated n labels on black bars."""
    fig, ax = plt.subplots()
    ax.bar([0, 1], [0.4, 0.3], color="#000000")
    for x in (0, 1):
        ax.annotate(f"n={136 + x}", (x, 0), xytext=(0, 2), textcoords="offset points", rotation=90, fontsize=5,
                    color="#333333")
    assert has(found(fig, kind="data"), "unreadable text 'n=136' on its bar or cell (contrast 1.66")
    table = pd.DataFrame({"position": [1, 2], "series": MODEL, "share": [0.4, 0.3], "n": 136})
    fixed = plots.grouped_bars(table, "position", "share", "series", n="n", chance=0.25)
    assert fixed.axes[0].patches[0].get_facecolor()[:3] == (0.0, 0.0, 0.0)  # the first series is black
    assert not has(found(fixed, chance=0.25), "unreadable")


def test_two_footers_over_each_other_fail_and_footnotes_are_stacked(tmp_path):
    """PERCUL's reliability diagram: the sample stamp and the small-n caption on one line."""
    fig, ax = plt.subplots(figsize=(3.8, 3.6))
    ax.plot([0.2, 0.8], [0.3, 0.6])
    fig.text(0.01, -0.01, "sample data (not the paper's data)", fontsize=6, ha="left", va="top")
    fig.text(0.99, -0.01, "grey: hollow grey bins with n < 10 items (too few to mean anything)", fontsize=6,
             ha="right", va="top")
    assert has(found(fig, kind="data"), "overlapping text: \"sample data (not the paper's data)\" and 'grey: hollow")
    fixed, ax = plt.subplots(figsize=(3.8, 3.6))
    ax.plot([0.2, 0.8], [0.3, 0.6])
    plots.footnote(fixed, "no chance ring: the pooled tasks state none")
    plots.note_small_n(fixed, what="hollow bins")
    plots.save(fixed, tmp_path / "reliability")  # save stacks the captions below everything drawn
    assert not has(found(fixed, kind="data"), "overlapping")


def test_a_caption_under_a_figure_legend_at_the_lower_edge_is_stacked_below_it(tmp_path):
    """Turkish PLU's panels put one legend under the axes; a caption at a fixed place under the figure
    lands on it (the per-paper caption helpers wrote one there), plots.caption goes below it."""
    def panels() -> plt.Figure:
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.bar(["gi", "si"], [30, 40], label="llm (mean)")
        ax.axhline(25, linestyle=":", label="chance (25)")
        fig.legend(loc="lower center", ncols=2, frameon=False)
        fig.tight_layout(rect=(0, 0.12, 1, 1))
        return fig

    text = "data: sample data (ours) · protocol: option log-likelihood instead of fine-tuning · model: not the paper's"
    naive = panels()
    naive.text(0.01, 0.02, text, fontsize=6, ha="left", va="bottom")
    assert has(found(naive, kind="data"), "overlapping text")
    fig = plots.caption(panels(), text)
    plots.save(fig, tmp_path / "table6")
    assert not has(found(fig, kind="data"), "overlapping")
    renderer = audit.renderer_of(fig)
    below = fig.texts[-1].get_window_extent(renderer).y1
    assert below < fig.legends[0].get_window_extent(renderer).y0 and "\n" in fig.texts[-1].get_text()


def test_a_chance_per_row_must_be_shown_and_the_heatmap_writes_it_under_each_row():
    """FMLAMA Fig. 4: each prompt language ranks its own candidate pool, so its random-ranking mAP
    differs by row; one mark on the colour bar would be wrong for every row but one."""
    from culturelab.plots.heatmap import CHANCE_PER_ROW

    m = pd.DataFrame([[3.0, 4.0], [5.0, 6.0]], index=["en", "zh"], columns=["Asia", "ALL"])
    title = f"Figure 4 ({MODEL}, generate)"
    bare = plots.heatmap(m, counts=m * 0 + 12, fmt=".1f", title=title)
    assert has(found(bare, chance=CHANCE_PER_ROW), f"chance reference '{CHANCE_PER_ROW}' is declared but")
    fig = plots.heatmap(m, counts=m * 0 + 12, fmt=".1f", title=title, chance=pd.Series({"zh": 1.8, "en": 2.1}))
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["en\n(chance 2.1)", "zh\n(chance 1.8)"]
    assert found(fig) == []


def test_radar_with_seven_bands_and_every_point_greyed_fails_and_the_radar_keeps_colours():
    """CAPTEx's country radar: 7 overlapping 95 % bands, every point on 2 procedures greyed."""
    cats = ["Food", "Celebrations", "Etiquette", "Crafts", "Agriculture"]
    cells = pd.DataFrame([{"category": c, "country": k, "score": 0.2 + 0.01 * i, "ci_low": 0.05, "ci_high": 0.4,
                           "n": 2} for i, k in enumerate(COUNTRIES) for c in cats])
    fig = plots.radar(cells, "category", "score", "country", n="n", ci_low="ci_low", ci_high="ci_high", max_bands=7,
                      title=f"{MODEL} (generate)")
    for coll in fig.axes[0].collections:
        if coll.get_gid() == plots.honest.SMALL_N:
            coll.set_edgecolor(SMALL_N_COLOUR)  # as the radar drew them before
    problems = found(fig, no_chance="footnote 6 has none")
    assert has(problems, "7 overlapping bands") and has(problems, "35 of 35 marks greyed out")
    fixed = plots.radar(cells, "category", "score", "country", n="n", ci_low="ci_low", ci_high="ci_high",
                        title=f"{MODEL} (generate)")
    problems = found(fixed, no_chance="footnote 6 has none")
    assert not has(problems, "bands") and not has(problems, "greyed"), problems
    assert any(t.get_text().startswith("no 95 % bands: 7 series") for t in fixed.texts)


def test_empty_figures_are_refused_with_their_name(tmp_path):
    """fig8_size_ours: no model had a size, every row was dropped and an empty axis was saved."""
    fig = plots.size_vs_score(pd.DataFrame({"family": [], "params_b": [], "score": []}), "params_b", "score",
                              "family", title="Aggregate vs size (our runs)")
    with pytest.raises(plots.EmptyFigureError, match="fig8_size_ours: nothing is plotted in axes 0 "
                                                     r"\('Aggregate vs size \(our runs\)'\)"):
        plots.save(fig, tmp_path / "fig8_size_ours.png")
    assert not list(tmp_path.iterdir())
    assert has(found(fig, kind="data"), "empty panel")


def test_model_method_and_sample_stamp_must_be_in_a_title_or_legend():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [0.2, 0.3], marker="o")
    ax.annotate("n=12", (1, 0.2))
    ax.annotate("n=12", (2, 0.3))
    ax.axhline(0.25)
    ax.set_title("Reordering vs step count")
    fig.text(0.01, -0.01, "sample data (not the paper's data)", fontsize=6)  # a footer only
    problems = found(fig, chance=0.25, method="free generation", data_source="sample")
    assert has(problems, f"model {MODEL} is named in no title, legend or axis")
    assert has(problems, "scoring method 'free generation' is named in no title, legend or axis")
    assert has(problems, 'without "sample data" in its title')
    ax.set_title("Reordering vs step count — gemma3-270m, free generation")
    plots.stamp_title(fig, "sample data (not the paper's data)")
    assert found(fig, chance=0.25, method="free generation", data_source="sample") == []


def test_reported_artists_need_no_n():
    fig, ax = plt.subplots()
    paper = ax.bar([0, 1], [0.5, 0.6], label="paper")
    ours = ax.bar([2], [0.3], label=f"{MODEL} (generate)")
    ax.annotate("n=34", (2, 0))
    ax.axhline(0.25, label="chance")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
    assert has(found(fig, chance=0.25), "3 marks of ours but 1 n labels")
    plots.mark_reported(paper)
    assert found(fig, chance=0.25) == [] and len(ours) == 1


def test_run_savefig_stamps_the_title_and_writes_the_audit_record(notebook_run):
    run = notebook_run("captex/02_reordering", MODEL)
    run.set_data_source("sample")
    table = pd.DataFrame({"step": ["5", "6"], "m": f"{MODEL} (free generation)", "rho": [0.1, 0.2], "n": [30, 31]})
    fig = plots.grouped_bars(table, "step", "rho", "m", n="n", chance=0.0, title="ρ by step count")
    run.savefig(fig, "fig5", kind="score", method="free generation", chance=0.0)
    assert fig.axes[0].get_title() == "ρ by step count\nsample data (not the paper's data)"  # a line of its title
    record = json.loads((run.out_dir / "figures" / "fig5.json").read_text())
    assert record["claims"]["models"] == [MODEL] and record["claims"]["data_source"] == "sample"
    assert audit.problems(record["facts"], record["claims"]) == []
    reported = plots.grouped_bars(table.assign(m="the paper"), "step", "rho", "m", title="ρ (paper)")
    run.savefig(reported, "paper", data_source="reported")
    record = json.loads((run.out_dir / "figures" / "paper.json").read_text())
    assert record["claims"]["kind"] == "reported" and not reported.get_suptitle()
    by_hand = plt.figure()
    by_hand.add_subplot().plot([1, 2])
    with pytest.raises(RecipeError, match="by_hand: drawn by hand"):  # it could not be drawn again from data
        run.savefig(by_hand, "by_hand", data_source="reported")


def test_turkish_plu_table6_names_the_model_it_was_given():
    """The paper's reference lines (BERTurk ZS/FT) once shadowed the model named in the title."""
    from culturelab.turkish_plu import figures

    acc = pd.DataFrame({"task": "gi", "method": ["llm (mean)", "random"], "accuracy": [0.3, 0.25], "ci_low": 0.2,
                        "ci_high": 0.4, "n": [60, 837], "chance": 0.25})
    paper = pd.DataFrame({"task": "gi", "model": ["BERTurk FT", "Random"], "value": [72.4, 25.0]})
    fig = figures.accuracy_panels(acc, paper, ["gi"], model=MODEL)
    assert MODEL in fig.get_suptitle() and audit.claims_of(fig).models == [MODEL]
    assert audit.problems(audit.inspect(fig), audit.claims_of(fig)) == []


def test_a_caption_that_the_saved_layout_puts_under_a_figure_legend_fails(tmp_path):
    """A figure legend anchored to the figure's lower edge looks clear of a caption under the figure
    while drawn, but ``savefig.bbox: tight`` cuts the figure to what is drawn and the legend moves
    with the new edge onto the caption (the Turkish PLU Table 6 figure): the audit sees the saved
    layout, and ``plots.save`` anchors figure legends where they are drawn before it places captions."""
    def drawn() -> plt.Figure:
        plots.apply_style()
        fig, ax = plt.subplots(figsize=(4, 2.5))
        ax.bar(["a", "b"], [0.3, 0.6], label="ours")
        fig.legend(*ax.get_legend_handles_labels(), loc="lower center", frameon=False)
        fig.tight_layout(rect=(0, 0.16, 1, 1))
        return fig

    fig = drawn()
    fig.text(0.01, -0.02, "data: same · protocol: same · model: bundled:gemma3-270m", fontsize=6, va="top")
    with plt.rc_context({"savefig.bbox": "standard"}):  # as drawn: clear
        assert not audit.inspect(fig)["overlapping_text"]
    assert any("data: same" in a + b and "ours" in a + b for a, b in audit.inspect(fig)["overlapping_text"])
    saved = plots.caption(drawn(), "data: same · protocol: same · model: bundled:gemma3-270m")
    plots.save(saved, tmp_path / "legend", audit_to=tmp_path / "legend.json")
    assert not json.loads((tmp_path / "legend.json").read_text())["facts"]["overlapping_text"]


def test_turkish_plu_table6_saved_with_its_caption_keeps_one_chance_entry_per_panel_level(tmp_path):
    """Each panel draws its own chance (25; step ordering 50 — the paper's Random row) under one legend
    entry, and the legend above the panels stays clear of the caption once saved."""
    from culturelab.turkish_plu import figures

    acc = pd.DataFrame({"task": ["gi", "gi", "so", "so"], "method": ["llm (mean)", "random"] * 2,
                        "accuracy": [0.3, 0.25, 0.6, 0.5], "ci_low": 0.2, "ci_high": 0.7, "n": [60, 837, 60, 1021],
                        "chance": [0.25, 0.25, 0.5, 0.5]})
    paper = pd.DataFrame({"task": ["gi", "gi", "so", "so"], "model": ["BERTurk FT", "Random"] * 2,
                          "value": [72.4, 25.0, 72.1, 50.0]})
    fig = figures.accuracy_panels(acc, paper, ["gi", "so"], model=MODEL)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels.count(figures.CHANCE_LABEL) == 1 and not any("Random" in t and "paper" in t[:6] for t in labels)
    chance = [[line.get_ydata()[0] for line in ax.lines if line.get_label() == figures.CHANCE_LABEL] for ax in fig.axes]
    assert chance == [[25.0], [50.0]]
    plots.caption(fig, "data: same · protocol: same · a caption long enough to reach the legend " * 3)
    plots.save(fig, tmp_path / "table6", audit_to=tmp_path / "table6.json")
    record = json.loads((tmp_path / "table6.json").read_text())
    assert audit.problems(record["facts"], record["claims"]) == []
