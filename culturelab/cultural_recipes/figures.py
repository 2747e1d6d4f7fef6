"""Notebook 02's figures, each captioned with what it shows beside the paper — data, model and
each system's protocol (:func:`culturelab.cultural_recipes.protocol.caption`). The metric figures draw
one panel per direction; Figure 4 draws the literal-translation rates above the share of invalid outputs.

>>> import pandas as pd
>>> rates = pd.DataFrame({"concept": ["oil"] * 2, "direction": ["zh2en"] * 2, "system": ["m (llm prompt)", "Ref = retrieved recipe"],
...                       "rate": [0.3, 0.5], "ci_low": [0.1, 0.2], "ci_high": [0.6, 0.8], "c_source": [12, 12],
...                       "c_valid": [10, 12], "invalid_share": [1 / 6, 0.0], "invalid_low": [0.05, 0.0],
...                       "invalid_high": [0.45, 0.25]})
>>> fig = literal_rates(rates, "silver", "data: same · protocol: same", style="llm")
>>> fig.get_suptitle(), fig.axes[1].get_ylabel().split()[:2], fig.texts[-1].get_text()
('Literal translation of culture-specific concepts\\n(silver split: Ref = retrieved recipe; llm prompt)', ['invalid', 'output'], 'data: same · protocol: same')
>>> plt.close("all")
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.cultural_recipes.adaptation import REFERENCES, SOURCE_COPY
from culturelab.cultural_recipes.data import ARROWS
from culturelab.cultural_recipes.evaluation import NO_CHANCE, long_form
from culturelab.plots import caption, claim, figsize, grouped_bars, panel_grid, shared_legend, stamp_title
from culturelab.plots.recipe import drawing
from culturelab.plots.render import wrap_line


def _bars(scores: pd.DataFrame, metrics: tuple[str, ...], floor: str = "Source copy") -> pd.DataFrame:
    """Long-form metric bars of every system but the references (a reference scores itself), each
    with the share of its outputs that are valid (``valid``: in the target language, not empty);
    *Source copy* (no adaptation) is named ``floor`` and has no valid share (it stays in the source
    language by design: "0 % valid" would read as a failure).

    >>> s = pd.DataFrame({"direction": "zh2en", "split": "gold", "system": ["bundled:m (llm prompt)", "Ref = x"],
    ...                   "compat": "corrected", "n": 4, "invalid": [1, 0], "BLEU": [10.0, 100.0]})
    >>> _bars(s, ("BLEU",))[["system", "valid", "value"]].to_dict("records")
    [{'system': 'm (llm)', 'valid': 0.75, 'value': 10.0}]
    >>> _bars(s.assign(system=["Source copy", "Ref = x"], invalid=4), ("BLEU",))["valid"].isna().all()
    np.True_
    """
    valid = 1 - scores["invalid"] / scores["n"] if "invalid" in scores else np.nan
    valid = pd.Series(valid, index=scores.index).where(scores["system"] != SOURCE_COPY)  # in the source language by design
    long = long_form(scores.assign(valid=valid), ("direction", "split", "system", "compat", "n", "valid"))
    long = long[long["metric"].isin(metrics) & ~long["system"].str.startswith("Ref = ")]
    name = long["system"].str.replace(" prompt)", ")").str.replace("bundled:", "")
    return long.assign(system=name.replace({"Source copy": floor}))


def _by_direction(plot: pd.DataFrame, *, x: str, hue: str, ylabel: str, title: str) -> plt.Figure:
    """One panel of bars per direction (its title: the direction and split of its own rows), n and
    the share of valid outputs on each bar, one legend above the panels and ``title`` over them."""
    directions = list(dict.fromkeys(plot["direction"]))
    fig, axes = panel_grid(len(directions), panel=(3.4, 2.8), sharey=True)
    err = {"err_low": "ci_low", "err_high": "ci_high"} if "ci_low" in plot else {}
    for ax, direction in zip(axes, directions):
        part = plot[plot["direction"] == direction]
        splits = ", ".join(dict.fromkeys(part["split"].astype(str))) if "split" in part else ""
        grouped_bars(part, x=x, y="value", hue=hue, n="n", valid="valid", ax=ax, **err, legend=False, ylabel=ylabel if ax is axes[0] else "",
                     title=ARROWS.get(direction, direction) + (f" ({splits} split)" if splits else ""))
    axes[0].set_ylim(bottom=0)
    shared_legend(fig, axes)
    _heading(fig, title)
    return fig


def _heading(fig: plt.Figure, title: str) -> None:
    """``title`` over the whole figure, above its legend (:func:`culturelab.plots.stamp_title`), at
    the rendering's figure-title size.

    >>> fig = plt.figure(); _heading(fig, "Figure 4"); fig.get_suptitle(), fig._suptitle.get_fontsize()
    ('Figure 4', 10.0)
    >>> plt.close(fig)
    """
    size = plt.rcParams["figure.titlesize"]
    size = size if isinstance(size, float | int) else 10.0
    chars = max(24, int(fig.get_figwidth() * 72 / (0.55 * size)))  # the figure's width in title characters
    stamp_title(fig, wrap_line(title, chars))
    fig._suptitle.set_fontsize(size)  # type: ignore[union-attr]


#: the metrics of :func:`metrics` (its caption compares these only:
#: :func:`culturelab.cultural_recipes.protocol.metrics_caption`)
SHOWN = ("BLEU", "ChrF", "R-L")


@drawing
def metrics(scores: pd.DataFrame, split: str, text: str, *, model: str, style: str) -> plt.Figure:
    """BLEU, chrF and ROUGE-L (corrected, :data:`SHOWN`) per system, one panel per direction, with
    95 % intervals, n and the share of valid outputs on each bar, of ``model`` with the ``style``
    prompt on ``split``, captioned with ``text``.

    >>> s = pd.DataFrame({"direction": ["zh2en", "en2zh"], "split": "gold", "system": "bundled:m (llm prompt)",
    ...                   "compat": "corrected", "n": 40, "invalid": [4, 0], "BLEU": [10.0, 12.0], "ChrF": 30.0,
    ...                   "R-L": 20.0})
    >>> fig = metrics(s, "gold", "data: same", model="bundled:m", style="llm")
    >>> [ax.get_title() for ax in fig.axes], fig.axes[0].texts[0].get_text()
    (['zh→en (gold split)', 'en→zh (gold split)'], 'n=40 · 90 % valid')
    >>> plt.close("all")
    """
    plot = _bars(scores, SHOWN, floor="Source copy (no adaptation: the floor)")
    fig = _by_direction(plot[plot["compat"] == "corrected"], x="metric", hue="system", ylabel="score (×100)",
                        title=f"Adaptation metrics of {model} ({style} prompt), corrected")
    claim(fig, kind="score", method=list(SHOWN), no_chance=NO_CHANCE)
    return caption(fig, text)


@drawing
def rouge_vs_release(scores: pd.DataFrame, text: str, *, model: str, style: str) -> plt.Figure:
    """ROUGE-L corrected beside the authors' released script's (``compat``) per system, one panel
    per direction, n and the share of valid outputs on each bar (``model`` with the ``style`` prompt).

    >>> s = pd.DataFrame({"direction": "zh2en", "split": "gold", "system": "Retrieval", "n": 40, "invalid": 0,
    ...                   "compat": ["corrected", "coastalcph-2023"], "R-L": [20.0, 31.0]})
    >>> [t.get_text() for t in rouge_vs_release(s, "", model="m", style="llm").legends[0].get_texts()]
    ['corrected', 'coastalcph-2023']
    >>> plt.close("all")
    """
    fig = _by_direction(_bars(scores, ("R-L",), floor="Source copy\n(the floor)"), x="system", hue="compat", ylabel="ROUGE-L (×100)",
                        title=f"ROUGE-L of {model} ({style} prompt): corrected vs the release script")
    claim(fig, kind="score", method="ROUGE-L", no_chance=NO_CHANCE)
    return caption(fig, text)


def systems_with_rates(rates: pd.DataFrame) -> list[str]:
    """The systems of Figure 4's rates (:func:`culturelab.cultural_recipes.concepts.literal_rates`)
    that are not a reference and have a literal-translation rate somewhere (a valid output): without
    one, Figure 4 has nothing to set beside *Ref*, and the notebook shows the table instead.

    >>> r = pd.DataFrame({"system": ["m", "m", "Ref = retrieved recipe"], "rate": [np.nan, 0.5, 0.2]})
    >>> systems_with_rates(r), systems_with_rates(r.assign(rate=[np.nan, np.nan, 0.2]))
    (['m'], [])
    """
    ours = rates[~rates["system"].str.startswith("Ref = ") & rates["rate"].notna()]
    return list(dict.fromkeys(ours["system"]))


@drawing
def literal_rates(rates: pd.DataFrame, split: str, text: str, *, style: str = "") -> plt.Figure:
    """Figure 4: the literal-translation rate of each concept and direction per system on
    ``split`` over the occurrences whose output is valid (n = those occurrences), and below it the
    share of the occurrences whose output is invalid — their own class, never counted as adapted
    (:func:`culturelab.cultural_recipes.concepts.literal_rates`); the references (*Ref*: what it is
    on ``split`` is in the title) are always valid, so the lower panel holds the systems only.
    ``text`` is the caption; ``style``: the prompt of the systems (their method)."""
    shown = rates[rates["c_source"] > 0]
    shown = shown.assign(concept=shown["concept"] + "\n(" + shown["direction"].map(ARROWS) + ")",
                         c_valid=shown["c_valid"].where(shown["c_valid"] > 0))
    # the references' rows stay in the lower panel, empty: each system's bar sits where it sits above
    ref = shown["system"].str.startswith("Ref = ")
    invalid = ["invalid_share", "invalid_low", "invalid_high", "c_source"]
    systems = shown.assign(**{c: shown[c].where(~ref) for c in invalid})
    width = max(4.0, 0.65 * shown["concept"].nunique() * max(shown["system"].nunique() / 2, 1) + 2)
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=figsize(min(11.0, width), 4.6))
    # the lower panel first: the shared x-limits are final before the upper one is drawn
    grouped_bars(systems, x="concept", y="invalid_share", hue="system", err_low="invalid_low",
                 err_high="invalid_high", n="c_source", ax=bottom, legend=False,
                 ylabel="invalid output\n(share of occurrences)", ylim=(0, 1))
    grouped_bars(shown, x="concept", y="rate", hue="system", err_low="ci_low", err_high="ci_high", n="c_valid",
                 ax=top, legend=False, ylabel="literal-translation rate\n(of valid outputs)", ylim=(0, 1))
    shared_legend(fig, [top, bottom])
    _heading(fig, f"Literal translation of culture-specific concepts ({split} split: {REFERENCES[split]}"
                  + (f"; {style} prompt)" if style else ")"))
    claim(fig, kind="score", method=f"{style} prompt" if style else None,
          no_chance="a literal-translation rate has no chance level")
    return caption(fig, text)
