"""Every CAPTEx figure drawn for a paper (issue 29): each, drawn from small synthetic data in the paper style at
its width (``rendering("paper", ...)`` + ``finish_paper``), passes the figure audit (``audit.problems`` and
``audit.paper_problems``), and the defects the independent read found are gone — a lone point on Fig. 8's size
axis, radial tick labels over a radar's data, chance rings drawn as one, chance and elimination chance drawn as
one line, Fig. 2's legend over its tick labels, CB-QA's labels, Table 5's colliding model names, Fig. 5's n
counting answers, and valid shares and the copying crosses read only in a caption."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import pairwise

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb

from culturelab import config, reported
from culturelab.captex import aggregate, figures
from culturelab.captex.data import CATEGORIES, COUNTRIES, load
from culturelab.plots import audit
from culturelab.plots.honest import N_ROW, SMALL_N
from culturelab.plots.layout import rendering
from culturelab.plots.render import finish_paper
from culturelab.tasks.reorder import DECODING_LABELS

MODEL = "bundled:gemma3-270m"
RNG = np.random.default_rng(0)


def paper(draw: Callable[[], plt.Figure], width: str = "column", **claims) -> tuple[plt.Figure, list[str]]:
    """``draw()`` in the paper style at ``width``, finished for a paper, and what the audit finds in it (a score
    figure names the model, as ``Run.savefig`` claims it)."""
    with rendering("paper", width) as chosen:
        fig = draw()
        if audit.claims_of(fig).kind is None:
            claims.setdefault("kind", "score")
        if claims.get("kind", audit.claims_of(fig).kind) == "score":
            claims.setdefault("model", MODEL)
        stated = audit.claim(fig, **claims)
        finish_paper(fig)
        found = audit.problems(audit.inspect(fig), stated) + audit.paper_problems(fig, chosen)
    return fig, found


def legend_texts(fig: plt.Figure) -> list[str]:
    """The entries and titles of every legend of ``fig``."""
    legends = [legend for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)] if legend is not None]
    return [t.get_text() for legend in legends for t in [*legend.get_texts(), legend.get_title()] if t.get_text()]


def test_our_model_is_a_star_on_the_papers_fig8_not_a_lone_point():
    ours = pd.DataFrame({"model": [MODEL], "family": ["Gemma"], "params_b": [0.268], "score": [0.31], "n": [70],
                         "valid_share": [0.82]})
    fig, found = paper(lambda: figures.fig8_size(aggregate.reported_fig8(), lmax_mode="table4", ours=ours,
                                                 label="model", n="n", valid="valid_share",
                                                 title="Ours among Table 4's models (MCQs by generate)"),
                       method="generate", no_chance=figures.NO_CHANCE_FIG6)
    assert found == []
    ax = fig.axes[0]
    star = next(line for line in ax.lines if line.get_marker() == "*" and line.get_gid() != audit.REPORTED)
    assert star.get_xydata().tolist() == [[0.268, 0.31]] and [t.get_text() for t in ax.texts] == ["n=70"]
    assert "ours: gemma3-270m (82 % valid)" in [" ".join(t.split()) for t in legend_texts(fig)]  # its valid share
    papers = [line for line in ax.lines if line.get_gid() == audit.REPORTED and line.get_marker() not in ("None", None)]
    assert sum(len(line.get_xdata()) for line in papers) >= 25  # the paper's models around it
    audit.renderer_of(fig)  # sizes written plainly: a 10^x superscript falls under a paper's 6 pt
    assert [t.get_text() for t in audit.visible_ticklabels(ax, "x")] == ["0.3", "1", "3", "10"]
    with pytest.raises(ValueError, match="ours is missing"):
        figures.fig8_size(ours, lmax_mode="table4", label="model")
    plt.close("all")


def _cells(series: str, names: list[str], n: int = 14) -> pd.DataFrame:
    cells = pd.DataFrame([{series: s, "category": c, "score": RNG.uniform(0.15, 0.5), "n": n, "reorder_valid": 0.01,
                           "pb_mcq_valid": 0.98, "cb_mcq_valid": 0.97} for s in names for c in CATEGORIES])
    return cells.assign(ci_low=cells["score"] - 0.05, ci_high=cells["score"] + 0.05)


def _components() -> pd.DataFrame:
    valid = {"reordering": 0.01, "pb_mcq": 0.98, "cb_mcq": 0.97}
    return pd.DataFrame([{"category": c, "component": k, "score": RNG.uniform(0.05, 0.6), "n": 14,
                          "valid_share": valid.get(k, np.nan)}
                         for c in CATEGORIES for k in [*aggregate.COMPONENTS, "aggregate"]])


def _pb() -> pd.DataFrame:
    mcqs = load(data_source="sample").mcqs
    return mcqs.assign(method="generate", correct=RNG.random(len(mcqs)) < 0.35, valid=RNG.random(len(mcqs)) < 0.97)


RADARS = {
    "countries": lambda: figures.fig4_radar(_cells("country", list(COUNTRIES)), method="generate",
                                            title=f"Categories × countries — {MODEL}"),
    "pooled": lambda: figures.fig4_radar(_cells("country", ["all countries"], n=98), method="generate",
                                         title=f"Categories, countries pooled — {MODEL}"),
    "models": lambda: figures.fig4_radar(_cells("model", [MODEL, "hf:Qwen/Qwen2.5-0.5B-Instruct"]), series="model",
                                         method="generate", title="Categories × models (footnote 6)"),
    "tasks": lambda: figures.fig4_radar(_components(), series="component", rlabel="task score", method="generate",
                                        chance={"reordering": 0.084, "pb_mcq": 0.25, "cb_mcq": 0.251},
                                        chance_note="CB-QA and the footnote-6 aggregate have none",
                                        title=f"Task scores by category — {MODEL}"),
    "language": lambda: figures.fig4_radar(_cells("lang_group", ["English", "native"]).drop(columns="cb_mcq_valid"),
                                           series="lang_group", rlabel="footnote-4 score", chance=0.151,
                                           method="generate", title=f"English vs native by category — {MODEL}"),
    "pb_mcq": lambda: figures.pb_mcq_radar(figures.pb_mcq_cells(_pb(), method="generate"), method="generate",
                                           title=f"PB-MCQ accuracy — {MODEL}"),
    "pb_mcq_language": lambda: figures.pb_mcq_radar(figures.pb_mcq_cells(_pb(), method="generate", series="lang_group"),
                                                    method="generate", series="lang_group",
                                                    title=f"PB-MCQ accuracy, English vs native — {MODEL}"),
}


@pytest.mark.parametrize("name", list(RADARS))
def test_every_radar_passes_the_paper_audit_with_its_ring_labels_off_the_data(name):
    models = [MODEL, "hf:Qwen/Qwen2.5-0.5B-Instruct"] if name == "models" else [MODEL]
    fig, found = paper(RADARS[name], model=models)
    assert found == [], name  # no tick label over the data, no two rings drawn as one, n per spoke, chance drawn
    ax = fig.axes[0]
    assert ax.get_theta_offset() == pytest.approx(np.pi / 2) and ax.get_theta_direction() == -1  # first spoke up
    assert any("valid" in t for t in legend_texts(fig))  # the valid shares on the figure, not only in its caption
    plt.close("all")


def test_equal_chance_levels_are_one_named_ring():
    fig, found = paper(RADARS["tasks"])
    assert found == []
    rings = [line.get_label() for line in fig.axes[0].lines if line.get_label().startswith("chance")]
    assert rings == ["chance: reordering (0.084)", "chance: PB-MCQ, CB-MCQ (0.25)"]
    texts = legend_texts(fig)
    assert "reordering\n(1 % valid)" in texts and "PB-MCQ\n(98 % valid)" in texts and "CB-QA" in texts
    plt.close("all")


def _cb(elimination: float) -> plt.Figure:
    table = pd.DataFrame({"task": "CB-MCQ", "method": ["generate", "loglikelihood"], "accuracy": [0.31, 0.28],
                          "ci_low": [0.2, 0.18], "ci_high": [0.42, 0.4], "n": 70, "n_clusters": 70,
                          "invalid_rate": [0.04, 0.0]})
    return figures.accuracy_bars(table, "task", "accuracy", "method", err_low="ci_low", err_high="ci_high",
                                 elimination=elimination, ylabel="accuracy",
                                 title=f"CB-MCQ beside chance and the elimination chance — {MODEL}")


def test_chance_and_a_coinciding_elimination_chance_are_one_line_named_for_both():
    fig, found = paper(lambda: _cb(0.251), method=["generate", "loglikelihood"])
    assert found == []
    assert [line.get_label() for line in fig.axes[0].lines if line.get_label().startswith("chance")] == [
        "chance (0.25) = elimination chance (0.251): one line"]
    assert "n=70 · 96 % valid" in [t.get_text() for t in fig.axes[0].texts]  # generated answers' valid share
    fig, found = paper(lambda: _cb(0.34), method=["generate", "loglikelihood"])  # apart: two lines
    assert found == [] and {"chance (0.25)", "elimination chance (0.340)"} <= set(legend_texts(fig))
    plt.close("all")


@pytest.mark.parametrize("countries", [["Iran", "Japan"], list(COUNTRIES)])
def test_fig2_keeps_its_legend_off_the_tick_labels(countries):
    procedures = load(data_source="sample").procedures
    procedures = procedures[procedures["country"].isin(countries)]
    fig, found = paper(lambda: figures.fig2_step_counts(procedures, title="Procedure step counts by country"),
                       kind="data")
    assert found == []
    assert "above a bar: mean steps" in legend_texts(fig)
    plt.close("all")


def test_cbqa_names_its_metrics_and_systems_and_shows_the_valid_share():
    systems = [MODEL, "echo_question", "other_reference", "reference"]
    summary = pd.DataFrame([{"system": s, "metric": m, "mean": 1.0 if s == "reference" else RNG.uniform(0.1, 0.5),
                             "n": 70} for m in ("rouge_l", "bertscore", "ss") for s in systems])
    summary = summary.assign(ci_low=summary["mean"] - 0.05, ci_high=(summary["mean"] + 0.05).clip(upper=1.0))
    fig, found = paper(lambda: figures.cbqa_bars(summary, model=MODEL, valid_share=0.99,
                                                 title=f"CB-QA: {MODEL}'s greedy replies vs calibration replies"),
                       method="greedy", no_chance="calibration replies")
    assert found == []
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ROUGE-L", "BERTScore", "SS"]
    assert set(legend_texts(fig)) == {"gemma3-270m (greedy)", "Person A's question echoed",
                                      "another conversation's answer", "the reference itself"}
    assert [t.get_text() for t in ax.texts].count("n=70 · 99 % valid") == 3
    plt.close("all")


def test_table5_model_names_stand_apart():
    source = json.loads((config.notebooks_dir() / "captex" / "05_aggregate.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in source["cells"] if "table5_reported" in "".join(c["source"]))
    assert "rotate=" not in cell  # the labels' angle is chosen where they fit, as drawn here
    t5 = reported.load("captex", "table5")
    fig, found = paper(lambda: figures.accuracy_bars(t5, "model", "value", "qtype", top=0.88,
                                                     ylabel="PB-MCQ accuracy", title="Table 5 by question type"),
                       kind="reported")
    assert found == []
    renderer = audit.renderer_of(fig)
    boxes = [audit.text_corners(t, renderer) for t in audit.visible_ticklabels(fig.axes[0], "x")]
    apart = 3 * fig.dpi / 72  # neighbouring names at least 3 pt apart
    assert len(boxes) == 7 and not any(audit.overlap(a, b, -apart) for a, b in pairwise(boxes))
    plt.close("all")


def _orders() -> pd.DataFrame:
    """Answers to procedures of 5 to 10 steps (12, 6, 10, 10, 5 and 3 of them, as many as the default run's), each in
    English and its native language: constrained, all valid, and free, a third valid."""
    rows = []
    for k, n in enumerate([5] * 12 + [6] * 6 + [7] * 10 + [8] * 10 + [9] * 5 + [10] * 3):
        for lang in ("English", "native"):
            order = [int(i) for i in RNG.permutation(n)]
            rows.append({"procedure_id": f"p{k}", "lang_group": lang, "n_steps": n, "perm": list(range(n)),
                         "pred_order": order, "valid": True, "decoding": "constrained", "rho": RNG.uniform(-1, 1),
                         "tau": RNG.uniform(-1, 1), "ld": RNG.integers(0, n)})
    free = pd.DataFrame(rows).assign(decoding="free", valid=[i % 3 == 0 for i in range(len(rows))])
    return pd.concat([free, pd.DataFrame(rows)], ignore_index=True)


def same_colour(colours, colour) -> bool:
    return len(colours) > 0 and bool(np.allclose(to_rgb(colours[0]), to_rgb(colour)))


def test_fig5_counts_procedures_and_shows_copying_in_a_panel_of_its_own():
    from culturelab.captex.reordering import random_baseline_table

    scored = _orders()
    rand = random_baseline_table(list(range(5, 11)), n_samples=500)
    fig, found = paper(lambda: figures.fig5_step_curves(scored, rand, decodings=["free", "constrained"],
                                                        title=f"Reordering vs step count — {MODEL}"), "text")
    assert found == []  # the n labels of six step counts too stand apart
    rho = fig.axes[0]
    # 12 answers from 6 procedures: the 6-step point rests on too few procedures, however many answers
    colour = rho.lines[1].get_color()  # the constrained answers, all valid
    counts = ["12", "6", "10", "10", "5", "3"]
    assert [t.get_text() for t in rho.texts if t.get_color() == colour and t.get_gid() == N_ROW] == counts
    hollow = [xy[0] for c in rho.collections if c.get_gid() == SMALL_N and same_colour(c.get_edgecolor(), colour)
              for xy in c.get_offsets()]
    assert hollow == [6.0, 9.0, 10.0]
    methods = [f"{DECODING_LABELS['free']} (34 % valid)", f"{DECODING_LABELS['constrained']} (100 % valid)"]
    copies = fig.axes[3]  # the share of valid answers equal to their step count's most common one: a panel of its own
    assert copies.get_ylabel().startswith("share of valid answers equal to")
    assert [line.get_label() for line in copies.lines if np.isfinite(line.get_ydata()).any()] == methods
    assert [t.get_text() for t in copies.texts
            if t.get_color() == copies.lines[1].get_color() and t.get_gid() == N_ROW] == counts
    assert "n = procedures" in legend_texts(fig)
    plt.close("all")


def test_fig3_passes_the_paper_audit_with_its_valid_shares_in_the_legend():
    cells = pd.DataFrame([{"country": c, "lang_group": g, "score": RNG.uniform(0.1, 0.3), "n": 10, "ci_low": 0.05,
                           "ci_high": 0.35, "reorder_valid": 0.01, "pb_mcq_valid": 0.98}
                          for c in COUNTRIES for g in ("English", "native")])
    fig, found = paper(lambda: figures.fig3_language_impact(cells, lmax_mode="per_instance", chance=0.151,
                                                            title=f"Language impact — {MODEL}"))
    assert found == []
    assert "English (valid: reordering 1 %, PB-MCQ 98 %)" in legend_texts(fig)
    plt.close("all")


def test_fig8_gives_each_tasks_valid_share_where_a_pooled_share_hides_the_invalid_reordering():
    """PB-MCQ's 8 answers per procedure outweigh reordering's 2 in a pooled share (82 %), while the footnote-6
    aggregate weights reordering 0.3: the star's legend gives the shares per task, 0.5 % reordering among them."""
    ours = pd.DataFrame({"model": [MODEL], "family": ["Gemma"], "params_b": [0.268], "score": [0.31], "n": [70],
                         "reorder_valid": [0.005], "pb_mcq_valid": [1.0], "cb_mcq_valid": [1.0], "valid_share": [0.82]})
    fig, found = paper(lambda: figures.fig8_size(aggregate.reported_fig8(), lmax_mode="table4", ours=ours,
                                                 label="model", n="n", valid="valid_share",
                                                 title="Ours among Table 4's models (MCQs by generate)"),
                       method="generate", no_chance=figures.NO_CHANCE_FIG6)
    assert found == []
    assert "ours: gemma3-270m (valid: reordering 0.5 %, PB-MCQ 100 %, CB-MCQ 100 %)" in [
        " ".join(t.split()) for t in legend_texts(fig)]
    plt.close("all")
