"""Notebook 02's prose is written from the run's numbers: it says what a model whose outputs are all
valid did, and what one whose outputs failed did, and never the bundled model's story for both."""

from __future__ import annotations

import pandas as pd

from culturelab.cultural_recipes import adaptation, concepts, evaluation


def _outputs(raw: list[str], valid: list[bool], system: str = "hf:x (llm prompt)") -> pd.DataFrame:
    n = len(raw)
    return pd.DataFrame({"direction": "zh2en", "recipe_id": [f"r{i}" for i in range(n)], "system": system,
                         "raw_output": raw, "prediction": raw, "valid": valid, "source_text": "蒸鱼。放油。"})


def test_the_validity_sentence_follows_the_outputs():
    good = adaptation.validity_findings(_outputs(["Steam the fish."] * 12, [True] * 12))
    assert "12 source recipes zh→en" in good and "12 of 12 outputs valid (0 empty, 0 not" in good
    assert "tables instead" not in good  # 12 recipes: the figures are drawn
    bad = adaptation.validity_findings(_outputs(["", "蒸鱼", "Steam."], [False, False, True]))
    assert "1 of 3 outputs valid (1 empty, 1 not mostly in the target language)" in bad and "show their tables instead" in bad
    none = adaptation.validity_findings(_outputs(["x"], [True], system="Source copy"))
    assert "No model adapted them" in none


def test_the_figure4_sentence_follows_the_rates():
    ref = _outputs(["Bake the fish. Add oil."] * 10, [True] * 10, system="Ref = retrieved recipe")
    literal = _outputs(["Steam the fish. Add oil."] * 10, [True] * 10)
    failed = _outputs([""] * 10, [False] * 10)
    steam_oil = concepts.load_concepts()
    said = concepts.figure4_findings(concepts.literal_rates(pd.concat([literal, ref]), steam_oil))
    assert "hf:x (llm prompt) — 0 of 20 concept occurrences had an invalid output" in said
    assert "above Ref's for 1 of 1 culture-specific concepts (oil, the control, left out)" in said  # steam literal
    said = concepts.figure4_findings(concepts.literal_rates(pd.concat([failed, ref]), steam_oil))
    assert "hf:x (llm prompt) — 20 of 20 concept occurrences had an invalid output" in said
    assert "above Ref's" not in said  # no valid output: no rate to compare


def test_the_delta_sentence_follows_the_comparison():
    side = pd.DataFrame({"delta": [0.5, 1.0], "comparable": True})
    assert "2 of 2 of our numbers" in evaluation.delta_findings(side) and "others" not in \
        evaluation.delta_findings(side)
    assert "0 of 2" in evaluation.delta_findings(side.assign(delta=float("nan")))


def test_the_control_concept_is_not_counted_as_more_literal_than_ref():
    """'oil' is the control (its literal translation is right): a system that keeps oil where Ref
    drops it is not "more literal than Ref" on a culture-specific concept."""
    ref = _outputs(["Bake the fish."] * 10, [True] * 10, system="Ref = retrieved recipe")
    mine = _outputs(["Bake the fish. Add oil."] * 10, [True] * 10)
    said = concepts.figure4_findings(concepts.literal_rates(pd.concat([mine, ref]), concepts.load_concepts()))
    assert "above Ref's for 0 of 1 culture-specific concepts (oil, the control, left out)" in said
