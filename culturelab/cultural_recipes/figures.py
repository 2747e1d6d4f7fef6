"""Notebook 02's figures, each captioned with what it shows beside the paper — data, model and
each system's protocol (:func:`culturelab.cultural_recipes.protocol.caption`).

>>> import pandas as pd
>>> rates = pd.DataFrame({"concept": ["oil"], "direction": ["zh2en"], "system": ["Ref = retrieved recipe"],
...                       "rate": [0.5], "ci_low": [0.2], "ci_high": [0.8], "c_source": [4], "c_valid": [4],
...                       "invalid_share": [0.0], "invalid_low": [0.0], "invalid_high": [0.5]})
>>> fig = literal_rates(rates, "silver", "data: same · protocol: same")
>>> fig.axes[0].get_title(), fig.axes[1].get_ylabel().split()[:2], fig.texts[-1].get_text()
('Literal translation of culture-specific concepts (silver split: Ref = retrieved recipe)', ['invalid', 'output'], 'data: same · protocol: same')
>>> plt.close("all")
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from culturelab.cultural_recipes.adaptation import REFERENCES
from culturelab.cultural_recipes.data import ARROWS
from culturelab.cultural_recipes.evaluation import NO_CHANCE, long_form
from culturelab.plots import caption, claim, grouped_bars
from culturelab.plots.recipe import drawing


def _bars(scores: pd.DataFrame, metrics: tuple[str, ...]) -> pd.DataFrame:
    """Long-form metric bars of every system but the references (a reference scores itself)."""
    long = long_form(scores)
    long = long[long["metric"].isin(metrics) & ~long["system"].str.startswith("Ref = ")]
    name = long["system"].str.replace(" prompt)", ")").str.replace("bundled:", "")
    return long.assign(system=name + "\n" + long["direction"].map(ARROWS))


#: the metrics of :func:`metrics` (its caption compares these only:
#: :func:`culturelab.cultural_recipes.protocol.metrics_caption`)
SHOWN = ("BLEU", "ChrF", "R-L")


@drawing
def metrics(scores: pd.DataFrame, split: str, text: str, *, model: str, style: str) -> plt.Figure:
    """BLEU, chrF and ROUGE-L (corrected, :data:`SHOWN`) per system and direction with 95 %
    intervals and n, of ``model`` with the ``style`` prompt, captioned with ``text``."""
    plot = _bars(scores, SHOWN)
    fig = grouped_bars(plot[plot["compat"] == "corrected"], x="system", y="value", hue="metric", err_low="ci_low",
                       err_high="ci_high", n="n", ylabel="score (x100)", rotate=0,
                       title=f"Adaptation metrics of {model} ({style} prompt), corrected\n"
                             f"({split} split; Source copy = the no-adaptation floor)")
    claim(fig, kind="score", method=list(SHOWN), no_chance=NO_CHANCE)
    return caption(fig, text)


@drawing
def rouge_vs_release(scores: pd.DataFrame, text: str, *, model: str, style: str) -> plt.Figure:
    """ROUGE-L corrected beside the authors' released script's (``compat``) per system and direction
    (``model`` with the ``style`` prompt)."""
    plot = _bars(scores, ("R-L",))
    fig = grouped_bars(plot, x="system", y="value", hue="compat", err_low="ci_low", err_high="ci_high", n="n",
                       ylabel="ROUGE-L (x100)",
                       title=f"ROUGE-L of {model} ({style} prompt): corrected vs the release script")
    claim(fig, kind="score", method="ROUGE-L", no_chance=NO_CHANCE)
    return caption(fig, text)


@drawing
def literal_rates(rates: pd.DataFrame, split: str, text: str, *, style: str = "") -> plt.Figure:
    """Figure 4: the literal-translation rate of each concept and direction per system on
    ``split`` over the occurrences whose output is valid (n = those occurrences), and below it the
    share of the occurrences whose output is invalid — their own class, never counted as adapted
    (:func:`culturelab.cultural_recipes.concepts.literal_rates`); the title says what *Ref* is
    there, ``text`` is the caption; ``style``: the prompt of the systems (their method)."""
    shown = rates[rates["c_source"] > 0]
    # every system in both panels (same colours, one legend naming all): one whose outputs all failed has
    # no rate and no n on top, only its invalid share below
    shown = shown.assign(concept=shown["concept"] + " (" + shown["direction"].map(ARROWS) + ")",
                         c_valid=shown["c_valid"].where(shown["c_valid"] > 0))
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(min(11.0, max(4.0, 0.65 * len(shown) + 2)), 5.2))
    # the lower panel first: the shared x-limits are final before the upper one places the legend
    grouped_bars(shown, x="concept", y="invalid_share", hue="system",
                 err_low="invalid_low", err_high="invalid_high", n="c_source", ax=bottom, legend=False,
                 ylabel="invalid output\n(share of occurrences)", ylim=(0, 1))
    grouped_bars(shown, x="concept", y="rate", hue="system", err_low="ci_low",
                 err_high="ci_high", n="c_valid", ax=top, ylabel="literal-translation rate\n(of valid outputs)",
                 title=f"Literal translation of culture-specific concepts ({split} split: {REFERENCES[split]})"
                       + (f"\n{style} prompt" if style else ""))
    claim(fig, kind="score", method=f"{style} prompt" if style else None,
          no_chance="a literal-translation rate has no chance level")
    return caption(fig, text)
