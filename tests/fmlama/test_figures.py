"""FMLAMA figures in the paper style (issue 29): each drawing, given small synthetic data of the shape its
notebook gives it, passes the figure audit at its width; the defects the independent read found are gone
(a legend entry with no data, a Wilson interval on one dish's AP, Figure 4 of one dish per cell, Table 13's
n labels over each other and no share of valid answers)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from culturelab import plots
from culturelab.fmlama import data as F
from culturelab.fmlama import figures, tables
from culturelab.plots import audit
from culturelab.plots.layout import current, rendering
from culturelab.plots.render import finish_paper
from culturelab.plots.style import place_margins

MODEL = "bundled:gemma3-270m"
METHOD = "log-likelihood ranking"


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def paper(draw, width: str, claims: dict, **arguments) -> tuple[plt.Figure, list[str]]:
    """``draw(**arguments)`` in the paper style at ``width``, finished as ``culturelab figures`` does, and the
    audit's problems with it (the generic ones and the paper's: width, text sizes)."""
    with rendering("paper", width):
        fig = draw(**arguments)
        stated = audit.claim(fig, **claims)
        finish_paper(fig)
        place_margins(fig)
        return fig, audit.problems(audit.inspect(fig), stated) + audit.paper_problems(fig, current())


def ours_by_setting(n: int, contexts=(False,)) -> pd.DataFrame:
    rows = [{"model": model, "setting": setting, "context": ctx, "group": "ALL", "metric": "mAP",
             "mean": 30.0 + 5 * i + 2 * ctx + (10 if model == MODEL else 0), "n_dishes": n}
            for model in (MODEL, "frequency baseline") for i, setting in enumerate(F.SETTINGS) for ctx in contexts]
    return pd.DataFrame(rows)


CHANCE = {s: 20.0 + i for i, s in enumerate(F.SETTINGS)}


def test_fig3_ours_names_only_the_contexts_drawn_and_passes_the_audit():
    """fig3_code_switching_ours drew a "with context" legend entry when the run probed no context."""
    fig, found = paper(figures.setting_dots, "text", {"kind": "score", "model": MODEL, "method": METHOD},
                       scores=ours_by_setting(12), chance=CHANCE, title=f"This run ({MODEL}, ranked by {METHOD})")
    assert found == []
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["without context", figures.CHANCE]
    fig, found = paper(figures.setting_dots, "text", {"kind": "score", "model": MODEL, "method": METHOD},
                       scores=ours_by_setting(12, (False, True)), chance=CHANCE, title=f"{MODEL}, {METHOD}")
    assert found == [] and len(fig.legends[0].get_texts()) == 3


def test_fig3_points_on_too_few_dishes_are_faded_so_the_figure_is_refused():
    small = figures.setting_dots(ours_by_setting(6), chance=CHANCE)
    assert audit.small_n_panels(small) != []
    assert audit.small_n_panels(figures.setting_dots(ours_by_setting(12), chance=CHANCE)) == []


def test_fig3_released_and_fig10_pass_the_audit_at_their_widths():
    released = ours_by_setting(12, (False, True)).drop(columns="n_dishes").assign(model=lambda t: t["model"].str[:5])
    _, found = paper(figures.setting_dots, "text", {"kind": "reported"}, scores=released, chance=CHANCE,
                     title="Figure 3 (released scores): ALL mAP, 508 dishes")
    assert found == []
    lines = pd.DataFrame([{"model": "Avg", "metric": "mAP", "setting": s, "context": c, "group": g, "mean": 5.0 + i + j}
                          for i, s in enumerate(F.SETTINGS) for c in (False, True) for j, g in enumerate(F.CS_GROUPS)])
    fig, found = paper(figures.group_lines, "text", {"kind": "reported"}, scores=lines, groups=list(F.CS_GROUPS),
                       chance={g: 2.0 for g in F.CS_GROUPS}, title="Figure 10 (released)")
    assert found == []  # before: one panel, 'mAP (Avg)' at 6.9 pt once its nine-entry legend was scaled to a column
    assert [ax.get_title() for ax in fig.axes] == ["without context", "with context"]


def test_fig2_has_one_chance_entry_and_passes_the_audit():
    summary = pd.DataFrame([{"group": "ALL", "metric": m, "model": model, "context": c, "n_dishes": 12,
                             "mean": v * (1.1 if c else 1.0)}
                            for m, v in (("mAP", 30.0), ("mWS", 0.8)) for model in (MODEL, "frequency baseline")
                            for c in (False, True)])
    fig, found = paper(figures.context_bars, "text", {}, summary=summary, title="FMLAMA-en: 12 dishes",
                       chance={"mAP": 20.0, "mWS": 0.7}, method=METHOD, encoder="bundled:e5-small")
    assert found == []
    # before: one entry per panel's chance line ("chance (20)", "chance (0.7)")
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [figures.CHANCE, "without context", "with context"]


def per_dish(sizes: dict[str, int]) -> pd.DataFrame:
    """Per-(dish, model) AP of FMLAMA-en's shape: ``sizes`` dishes per group."""
    rng = np.random.default_rng(0)
    rows = [{"lang": "en", "model": model, "group": group, "url": f"{group}{k}", "ap": float(rng.uniform(0.1, 0.6))}
            for group, size in sizes.items() for k in range(size) for model in (MODEL, "frequency baseline")]
    return pd.DataFrame(rows)


def test_table2_groups_under_the_small_n_rule_are_pooled():
    """table2_groups_ci_en drew one bar per group on one dish each (a Wilson interval on one AP)."""
    cis = tables.pooled_intervals(per_dish({"Italy": 12, "U.S.": 10, "Iran": 3, "Greece": 4}))
    assert cis[cis["model"] == MODEL]["group"].tolist() == ["Italy", "U.S.", "2 other groups", "ALL"]
    assert cis.set_index(["model", "group"]).loc[(MODEL, "2 other groups"), "n_dishes"] == 7
    assert tables.pooled_intervals(per_dish({g: 1 for g in F.GROUPS}))["group"].unique().tolist() == ["ALL"]
    fig, found = paper(figures.ci_bars, "column", {"kind": "score", "model": MODEL, "method": METHOD,
                                                  "chance": "frequency baseline"},
                       cis=cis, ylabel="mAP (%)", n="n_dishes", title=f"FMLAMA-en: mAP per group, {METHOD}")
    assert found == [] and audit.small_n_panels(fig) == []


def test_fig4_continents_under_the_small_n_rule_are_pooled():
    """fig4_prompt_language_continent: 36 of 42 cells on one dish."""
    picked = pd.DataFrame({"url": [f"d{i}" for i in range(24)],
                           "continent": ["Europe"] * 12 + ["Asia"] * 6 + ["Africa"] * 2 + ["Oceania"] * 4})
    assert tables.pool_small(picked, "continent", noun="continents").value_counts().to_dict() == {
        "Europe": 12, "3 other continents": 12}
    one_each = picked.drop_duplicates("continent")
    assert tables.pool_small(one_each, "continent", noun="continents").nunique() == 1


def test_fig4_pooled_over_continents_passes_the_audit():
    languages = list(F.LANGUAGES)
    rows = pd.DataFrame([{"model": MODEL, "setting": la, "context": False, "group": "ALL", "metric": "mAP",
                          "mean": 20.0 + i, "n_dishes": 12} for i, la in enumerate(languages)])
    fig, found = paper(figures.setting_dots, "column", {"kind": "score", "model": MODEL, "method": METHOD},
                       scores=rows, settings=languages, xlabel="prompt language", chance={la: 15.0 for la in languages},
                       title=f"Figure 4, continents pooled: mAP by prompt language ({MODEL}, {METHOD}, 12 dishes)")
    assert found == [] and audit.small_n_panels(fig) == []


def test_fig4_heatmap_of_pooled_continents_passes_the_audit():
    columns = ["Europe", "Asia", "North America", "3 other continents", "ALL"]
    rng = np.random.default_rng(1)
    matrix = pd.DataFrame(rng.uniform(10, 40, (6, 5)), index=list(F.LANGUAGES), columns=columns)
    counts = pd.DataFrame([[93, 36, 35, 11, 175]] * 6, index=matrix.index, columns=columns)
    matrix.index.name, matrix.columns.name = "prompt language", "continent"
    fig, found = paper(plots.heatmap, "column", {"kind": "score", "model": MODEL, "method": METHOD},
                       matrix=matrix, counts=counts, chance=pd.Series(5.0, index=matrix.index), fmt=".1f",
                       cbar_label="mAP (%)", title=f"Figure 4: mAP by prompt language and continent\n({MODEL}, {METHOD})",
                       figsize=(3.3, 0.55 * len(matrix) + 1.1))  # as the notebook: six rows of two-line labels
    assert found == [] and audit.small_n_panels(fig) == []


def test_table13_shows_n_and_the_valid_share_without_overlap():
    """table13_chatgpt_groups: four bars per group in one column, their n labels over each other, no valid share."""
    ours = pd.DataFrame([{"setting": s, "group": g, "source": "ours, strict reading", "accuracy": 40.0 + i,
                          "ci_low": 30.0 + i, "ci_high": 50.0 + i, "n": 508 if g == "All" else 60, "valid_share": 0.97}
                         for s in ("EN_en", "ZH_zh") for i, g in enumerate([*F.CS_GROUPS, "All"])])
    theirs = ours.assign(source="paper (Table 13)", accuracy=ours["accuracy"] - 3, ci_low=np.nan, ci_high=np.nan,
                         n=np.nan, valid_share=np.nan)
    fig, found = paper(figures.accuracy_panels, "text", {"kind": "score", "model": "gpt-3.5-turbo",
                                                         "method": "strict reading", "no_chance": "open answers"},
                       rows=pd.concat([ours, theirs], ignore_index=True), reported=["paper (Table 13)"],
                       title="gpt-3.5-turbo: released answers, strict reading")
    assert found == []
    assert [ax.get_title() for ax in fig.axes] == ["EN_en (ours: 97 % of the answers valid)",
                                                   "ZH_zh (ours: 97 % of the answers valid)"]
