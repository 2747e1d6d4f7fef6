"""Reordering metrics against hand-computed cases, the policies for invalid answers, the
random baseline, and the order parser on adversarial outputs (issue 3 requirements)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from culturelab.captex.reordering import paper_step_mix, random_baseline_table
from culturelab.metrics.ranking import (
    kendall_distance,
    kendall_tau,
    levenshtein,
    partial_positions,
    random_baseline,
    rank_correlations_with_ties,
    spearman_rho,
)
from culturelab.parsing import parse_order
from culturelab.tasks.reorder import score_order

# (predicted sequence of gold indices, ρ, τ, LD) computed by hand:
#   ρ = 1 − 6Σd²/(n(n²−1)), τ = (C − D)/(n(n−1)/2), LD = edits between letter sequences
HAND = [
    ([0, 1, 2, 3, 4], 1.0, 1.0, 0),
    ([1, 0, 2, 3, 4], 1 - 6 * 2 / 120, (9 - 1) / 10, 2),          # one adjacent swap: Σd² = 2
    ([4, 3, 2, 1, 0], -1.0, -1.0, 4),                              # reversed: 4 substitutions
    ([2, 0, 1, 3, 4], 1 - 6 * 6 / 120, (8 - 2) / 10, 2),           # step 3 moved first: Σd² = 4+1+1
    (list(range(10)), 1.0, 1.0, 0),
    ([9, *range(9)], 1 - 6 * 90 / 990, (36 - 9) / 45, 2),          # last step moved first: Σd² = 81 + 9
    # five adjacent swaps: LD 6 = drop the leading B, 4 substitutions, append J
    ([1, 0, 3, 2, 5, 4, 7, 6, 9, 8], 1 - 6 * 10 / 990, (40 - 5) / 45, 6),
]


@pytest.mark.parametrize(("order", "rho", "tau", "ld"), HAND)
def test_metrics_match_hand_computed_values(order, rho, tau, ld):
    n = len(order)
    assert spearman_rho(order) == pytest.approx(rho)
    assert kendall_tau(order) == pytest.approx(tau)
    assert levenshtein(order, n) == ld
    # the tie-aware scipy path agrees on complete permutations
    ties = rank_correlations_with_ties(order, n)
    assert ties["rho"] == pytest.approx(rho) and ties["tau"] == pytest.approx(tau)


def test_metrics_reject_non_permutations():
    with pytest.raises(ValueError, match="not a permutation"):
        spearman_rho([0, 0, 1])
    with pytest.raises(ValueError, match="not a partial order"):
        partial_positions([0, 0], 3)


def test_ties_hand_computed():
    # steps 0,1,2 ranked, steps 3 and 4 missing → tie at position 3.5
    assert partial_positions([0, 1, 2], 5).tolist() == [0, 1, 2, 3.5, 3.5]
    got = rank_correlations_with_ties([0, 1, 2], 5)
    # Spearman on average ranks (1,2,3,4.5,4.5) vs (1..5): cov 9.5, var 9.5 and 10
    assert got["rho"] == pytest.approx(9.5 / math.sqrt(9.5 * 10))
    # τ-b: 9 concordant, 0 discordant, one tied pair in the prediction: 9/√(9·10)
    assert got["tau"] == pytest.approx(9 / math.sqrt(90))
    assert rank_correlations_with_ties([], 5) == {"rho": 0.0, "tau": 0.0}


def test_kendall_distance_counts_adjacent_swaps():
    assert kendall_distance([0, 1, 2]) == 0
    assert kendall_distance([1, 0, 2, 3]) == 1
    assert kendall_distance([9, *range(9)]) == 9


IDENTITY5 = [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("text", "policy", "rho", "tau", "ld", "valid"), [
    ("A, B, C, D, E", "zero", 1.0, 1.0, 0, True),
    ("A, B, C", "zero", 0.0, 0.0, 2, False),                     # missing: LD = 2 insertions
    ("A, B, C", "repair", 1.0, 1.0, 0, False),                   # D, E appended in shown order
    ("A, B, C", "ties", 9.5 / math.sqrt(95), 9 / math.sqrt(90), 2, False),
    ("A, B, B, C, D, E", "zero", 0.0, 0.0, 1, False),            # repeated letter: one deletion
    ("A, B, C, D, E, F, G", "zero", 0.0, 0.0, 2, False),         # letters beyond E count as edits
    ("A, B, C, D, E, F, G", "repair", 1.0, 1.0, 0, False),
    ("no idea", "zero", 0.0, 0.0, 5, False),                     # empty parse: LD = n
])
def test_invalid_answer_policies(text, policy, rho, tau, ld, valid):
    row = score_order(text, IDENTITY5, policy)
    assert row["valid"] is valid
    assert row["rho"] == pytest.approx(rho) and row["tau"] == pytest.approx(tau) and row["ld"] == ld


def test_drop_policy_gives_nan_and_unknown_policy_fails():
    assert math.isnan(score_order("A, B", IDENTITY5, "drop")["rho"])
    assert score_order("A, B, C, D, E", IDENTITY5, "drop")["rho"] == 1.0
    with pytest.raises(ValueError, match="invalid-answer policy"):
        score_order("A", IDENTITY5, "lenient")


def test_scoring_maps_letters_through_the_shuffle():
    perm = [2, 0, 1]  # A shows gold step 3, B step 1, C step 2 → gold answer "B, C, A"
    assert score_order("B, C, A", perm)["exact"] is True
    assert score_order("A, B, C", perm)["pred_order"] == [2, 0, 1]


def test_random_baseline_matches_the_paper_at_its_step_mix():
    mix = paper_step_mix()
    assert 7.1 < np.mean(mix) < 7.3
    base = random_baseline(mix, n_samples=20000, seed=0)
    assert base["ld"] == pytest.approx(5.56, abs=0.05)  # Table 4, row Random
    assert abs(base["rho"]) < 0.02 and abs(base["tau"]) < 0.02


def test_random_baseline_per_length_is_close_to_exact_expectations():
    # expected edit distance of a uniform random permutation, n = 5…10 (1e6-sample simulation)
    known = {5: 3.48, 6: 4.44, 7: 5.38, 8: 6.34, 9: 7.31, 10: 8.28}
    table = random_baseline_table(list(known), n_samples=8000, seed=1).set_index("n_steps")
    for n, value in known.items():
        assert table.loc[n, "ld"] == pytest.approx(value, abs=0.06)


ADVERSARIAL = [
    ("A, B, C", [0, 1, 2], True),
    ("A B C", [0, 1, 2], True),
    ("The order is: C,A,B", [2, 0, 1], True),
    ("c, a, b", [2, 0, 1], True),
    ("C, A, A, B", [2, 0, 1], False),                       # duplicate
    ("C, A, B, D", [2, 0, 1], False),                       # extra letter beyond the steps
    ("C, A", [2, 0], False),                                # missing letter
    ("Sure! Here is the correct order: B, C, A. I hope this helps!", [1, 2, 0], True),
    ("I think A is first, but the answer is C, A, B", [2, 0, 1], True),
    ("'C', 'A', 'B'", [2, 0, 1], True),
    ("[C, A, B]", [2, 0, 1], True),
    ("**C → A → B**", [2, 0, 1], True),
    ("1. C\n2. A\n3. B", [2, 0, 1], True),
    ("C. Wash the rice\nA. Soak it\nB. Boil it", [2, 0, 1], True),
    ("Step C, then step A, and finally step B.", [2, 0, 1], True),
    ("CAB", [2, 0, 1], True),
    ("<think>maybe A, B, C?</think>C, A, B", [2, 0, 1], True),
    ("I cannot determine the order.", [], False),
    ("", [], False),
]


@pytest.mark.parametrize(("text", "order", "valid"), ADVERSARIAL)
def test_parse_order_on_adversarial_outputs(text, order, valid):
    parsed = parse_order(text, 3)
    assert parsed.order == order and parsed.valid is valid


def test_parse_order_records_issues_and_raw_letters():
    p = parse_order("C, A, A, B, D", 3)
    assert p.issues == ["duplicate", "out_of_range"] and p.duplicates == 1 and p.out_of_range == 1
    assert p.raw == [2, 0, 0, 1, 3]


def test_parse_order_matches_written_out_steps():
    steps = ["Boil the rice in salted water", "Wash the rice until clear", "Soak the rice for two hours"]
    text = "1. Wash the rice until the water is clear.\n2. Soak the rice for two hours.\n3. Boil the rice."
    p = parse_order(text, 3, steps, lenient=True)
    assert p.method == "step_text" and p.order == [1, 2, 0] and p.valid and p.verdict == "lenient"
    assert parse_order(text, 3, steps).valid is False  # a lenient reading: scored only on request
    assert parse_order(text, 3, lenient=True).valid is False  # without the steps nothing can be matched


def test_reordering_summary_reports_the_lenient_share():
    import pandas as pd

    from culturelab.captex.reordering import summarise_reordering
    from culturelab.tasks.reorder import score_orders

    steps = ["Boil the rice in salted water", "Wash the rice until clear", "Soak the rice for two hours"]
    frame = pd.DataFrame({"perm": [[0, 1, 2]] * 2, "steps": [steps] * 2, "lang": ["en", "fa"]})
    texts = ["A, B, C", "1. Boil the rice in salted water.\n2. Wash the rice until clear.\n3. Soak the rice."]
    strict = score_orders(frame, texts, steps_col="steps")
    assert strict["parse_verdict"].tolist() == ["strict", "lenient"] and strict["valid"].tolist() == [True, False]
    assert strict["parse_answer"].tolist() == ["ABC", "ABC"]
    assert score_orders(frame, texts, steps_col="steps", lenient=True)["valid"].tolist() == [True, True]
    table = summarise_reordering(strict, ["lang"]).set_index("lang")
    assert table.loc["en", "lenient_share"] == 0.0 and table.loc["fa", "lenient_share"] == 1.0
    assert summarise_reordering(strict)["lenient_share"].tolist() == [0.5]


def test_cbqa_replies_drop_reasoning_that_ends_in_a_lone_closing_tag():
    from culturelab.captex.cbqa import clean_reply, parse_reply

    text = "Okay, the user wants the next step. Maybe fold it.</think>\n\nPerson B: Fold the edges.\nPerson A: Thanks"
    assert clean_reply(text) == "Fold the edges."
    assert parse_reply(text).verdict == "strict" and parse_reply("Sorry, I can't help with that.").verdict == "refusal"
