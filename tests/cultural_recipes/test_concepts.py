"""Figure 4: an invalid output (empty, or in the source language) is its own class — never counted
as an adaptation that avoided the literal translation — and the figure shows its share."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from culturelab.cultural_recipes import concepts, figures
from culturelab.plots import audit

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
    heights = sorted(round(p.get_height(), 2) for p in bottom.patches)
    assert heights == [0.0, 0.5]  # the model's six empty outputs, none of Ref's
    assert not audit.problems(audit.inspect(fig), audit.claims_of(fig))
    plt.close(fig)


def test_outputs_without_a_validity_column_are_all_valid():
    rates = concepts.literal_rates(_outputs(["Steam", "Bake"], [True, True]).drop(columns="valid"), STEAM).iloc[0]
    assert rates["rate"] == 0.5 and rates["c_invalid"] == 0
