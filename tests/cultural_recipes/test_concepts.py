"""Figure 4: an invalid output (empty, or in the source language) is its own class — never counted
as an adaptation that avoided the literal translation — and the figure shows its share."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from culturelab.cultural_recipes import concepts, figures
from culturelab.plots import audit
from culturelab.plots.style import place_margins

STEAM = (concepts.Concept("steam", "zh2en", ("蒸",), ("steam",)),)


def _outputs(predictions: list[str], valid: list[bool]) -> pd.DataFrame:
    return pd.DataFrame({"direction": "zh2en", "system": "m", "source_text": "蒸鱼十分钟",
                         "prediction": predictions, "valid": valid})


def test_invalid_outputs_are_not_counted_as_adapted():
    # two outputs steam the fish, two failed (empty / still Chinese): the rate is 2 of 2 valid, not 2 of 4
    rates = concepts.literal_rates(_outputs(["Steam the fish", "Steam it", "", "蒸鱼"], [True, True, False, False]),
                                   STEAM).iloc[0]
    assert rates["rate"] == 1.0 and (rates["c_valid"], rates["c_invalid"], rates["c_source"]) == (2, 2, 4)
    assert rates["invalid_share"] == 0.5 and rates["invalid_low"] < 0.5 < rates["invalid_high"]
    every_failed = concepts.literal_rates(_outputs(["", "蒸"], [False, False]), STEAM).iloc[0]
    assert pd.isna(every_failed["rate"]) and every_failed["invalid_share"] == 1.0


def test_figure4_shows_the_invalid_class_and_passes_the_audit():
    outputs = pd.concat([_outputs(["Steam the fish"] * 6 + [""] * 6, [True] * 6 + [False] * 6),
                         _outputs(["Bake the fish"] * 12, [True] * 12).assign(system="Ref = retrieved recipe")])
    rates = concepts.literal_rates(outputs, STEAM)
    fig = figures.literal_rates(rates, "silver", "data: sample data (ours, not the paper's)", style="llm")
    top, bottom = fig.axes
    assert "valid outputs" in top.get_ylabel() and "invalid" in bottom.get_ylabel()
    heights = [round(p.get_height(), 2) for p in bottom.patches if p.get_height() == p.get_height()]
    assert heights == [0.5]  # the model's six empty outputs; Ref (always valid) has no bar below
    place_margins(fig)  # as saving does: the title above the legend
    assert not audit.problems(audit.inspect(fig), audit.claims_of(fig))
    plt.close(fig)


def test_outputs_without_a_validity_column_are_all_valid():
    rates = concepts.literal_rates(_outputs(["Steam", "Bake"], [True, True]).drop(columns="valid"), STEAM).iloc[0]
    assert rates["rate"] == 0.5 and rates["c_invalid"] == 0


def test_a_model_whose_outputs_all_failed_is_in_the_legend_and_no_legend_covers_a_bar():
    """The smoke run's Figure 4: the model's outputs all invalid, Ref's rates high on the first concepts."""
    from culturelab.stats import proportion_ci

    concepts_ = [("baking", "en2zh", 7, 6), ("cheese", "en2zh", 3, 3), ("steam", "zh2en", 4, 0), ("oil", "zh2en", 2, 0),
                 ("oil", "en2zh", 2, 0)]
    rows = []
    for name, direction, n, hits in concepts_:
        rows.append({"concept": name, "direction": direction, "system": "bundled:gemma3-270m (llm prompt)", "c_source": n, "c_valid": 0,
                     "rate": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "invalid_share": 1.0,
                     "invalid_low": proportion_ci(n, n)[0], "invalid_high": 1.0})
        low, high = proportion_ci(hits, n)
        rows.append({"concept": name, "direction": direction, "system": "Ref = retrieved recipe", "c_source": n,
                     "c_valid": n, "rate": hits / n, "ci_low": low, "ci_high": high, "invalid_share": 0.0,
                     "invalid_low": 0.0, "invalid_high": proportion_ci(0, n)[1]})
    fig = figures.literal_rates(pd.DataFrame(rows), "silver", "data: sample data (ours, not the paper's)", style="llm")
    assert "bundled:gemma3-270m (llm prompt)" in [t.get_text() for t in fig.legends[0].get_texts()]
    audit.claim(fig, model="bundled:gemma3-270m")
    place_margins(fig)
    assert not audit.problems(audit.inspect(fig), audit.claims_of(fig))
    plt.close(fig)
