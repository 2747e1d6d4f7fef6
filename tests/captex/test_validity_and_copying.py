"""What the CAPTEx figures and sentences must not hide (issue 30, items 7, 8 and 10): answers that are copies
of one answer, aggregates that rest on invalid answers, language tests read from invalid answers' shapes,
small-n rules that count answers instead of procedures, and intervals chosen by the values rather than by the
metric's kind; and the notebooks' sentences about a run, rendered from its numbers, say what any model did."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from culturelab.captex import aggregate, cbqa, figures, questions, reordering
from culturelab.captex import evaluate as ev
from culturelab.tasks.reorder import decoding_findings, decoding_summary, modal_answers


def _orders(n_procedures: int, *, copies: bool) -> pd.DataFrame:
    """Constrained answers to 5- and 6-step procedures in two languages: all one order (copies) or all different."""
    rng = np.random.default_rng(1)
    rows = []
    for k in range(n_procedures):
        n = 5 + k % 2
        for lang in ("English", "native"):
            order = [1, 0, *range(2, n)] if copies else [int(i) for i in rng.permutation(n)]
            rows.append({"procedure_id": f"p{k}", "lang_group": lang, "n_steps": n, "perm": list(range(n)),
                         "pred_order": order, "valid": True, "decoding": "constrained", "rho": 0.5})
    return pd.DataFrame(rows)


def test_the_share_of_the_most_common_answer_is_in_the_table_and_the_sentences():
    copied = reordering.by_steps_valid(_orders(12, copies=True).assign(tau=0.1, ld=1, exact=False))
    assert copied["modal_share"].tolist() == [1.0, 1.0] and copied["modal_answer"].tolist() == ["B, A, C, D, E",
                                                                                               "B, A, C, D, E, F"]
    varied = modal_answers(_orders(12, copies=False))
    assert (varied["modal_share"] < 0.5).all()
    text = decoding_findings(decoding_summary(_orders(12, copies=True)), figure="Fig. 5")
    assert "100.0% of them are the most common answer of their step count, so the n under Fig. 5's points counts " \
           "copies" in text
    assert "counts copies" not in decoding_findings(decoding_summary(_orders(12, copies=False)), figure="Fig. 5")


def test_the_small_n_rule_of_the_sentences_counts_procedures_not_answers():
    few = _orders(6, copies=False)  # 12 answers (over the rule's 10) from 6 procedures (under it)
    summary = decoding_summary(few)
    assert summary[["valid_answers", "valid_procedures"]].values.tolist() == [[12, 6]]
    assert "too few to place against the random expectation" in decoding_findings(summary)


def _language_pairs(n: int, n_valid: int) -> pd.DataFrame:
    """English answers with more extra letters than native ones (LD 8 vs 6) unless valid (LD 2 both)."""
    rows = []
    for k in range(n):
        valid = k < n_valid
        for lang, ld in (("English", 8), ("native", 6)):
            rows.append({"procedure_id": f"p{k}", "lang_group": lang, "valid": valid, "rho": 0.0 if not valid else 0.3,
                         "tau": 0.0 if not valid else 0.2, "ld": 2.0 if valid else ld + k % 3})
    return pd.DataFrame(rows)


def test_language_tests_read_valid_pairs_only_or_say_there_are_too_few():
    shapes = reordering.paired_language_wilcoxon(_language_pairs(20, 2)).set_index("metric")
    # the invalid answers' shapes alone differ in every one of 18 pairs: no test is run on 2 valid pairs
    assert shapes.loc["ld", ["n_procedures", "n_pairs"]].tolist() == [20, 2] and np.isnan(shapes.loc["ld", "p_value"])
    text = reordering.language_findings(shapes.reset_index(), {"ld": "LD"})
    assert "LD: 2 of the 20 procedures have valid answers in both languages, too few for a paired test" in text
    enough = reordering.paired_language_wilcoxon(_language_pairs(20, 20)).set_index("metric")
    assert enough.loc["ld", "n_pairs"] == 20 and enough.loc["ld", "p_value"] == 1.0  # valid pairs: LD 2 both


def test_aggregate_cells_and_figures_carry_the_valid_share():
    per_lang = pd.DataFrame({"procedure_id": ["a", "a", "b", "b"], "country": "Iran", "category": "Food and Cuisine",
                             "lang_group": ["English", "native"] * 2, "rho": 0.0, "tau": 0.0, "ld_norm": 1.0,
                             "pb_mcq": [0.5, 0.25, 0.5, 0.25], "reorder_valid": [0.0, 0.0, 1.0, 0.0],
                             "pb_mcq_valid": 1.0})
    cells = aggregate.fig3_cells(per_lang)
    assert cells.set_index("lang_group")["reorder_valid"].to_dict() == {"English": 0.5, "native": 0.0}
    fig = figures.fig3_language_impact(cells, lmax_mode="per_instance", chance=0.15)
    note = [t.get_text() for t in fig.texts if t.get_text().startswith("valid answers")]
    assert note and "reordering 25.0% (English 50.0%, native 0.0%), PB-MCQ 100.0%" in note[0]  # the caption's line
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]  # and on the figure itself
    assert "English (valid: reordering 50 %, PB-MCQ 100 %)" in legend and "native (valid: reordering 0 %, PB-MCQ 100 %)" in legend
    ours = pd.DataFrame({"model": ["m"], "family": ["F"], "params_b": [0.3], "score": [0.1], "n": [2],
                         "reorder_valid": [0.25], "pb_mcq_valid": [1.0], "valid_share": [0.6]})
    size = figures.fig8_size(aggregate.reported_fig8(), lmax_mode="table4", ours=ours, label="model", n="n",
                             valid="valid_share")
    assert [a.get_text() for a in size.axes[0].texts] == ["n=2"]
    assert "ours: m (valid: reordering 25 %, PB-MCQ 100 %)" in [  # per task: the pooled 60 % would hide 25 %
        " ".join(t.get_text().split()) for t in size.axes[0].get_legend().get_texts()]
    assert "rest mostly on invalid reordering answers" in aggregate.validity_findings(ours)
    assert "rest mostly" not in aggregate.validity_findings(ours.assign(reorder_valid=1.0))
    plt.close("all")


def test_intervals_follow_the_metrics_kind_not_its_values():
    zeros = pd.DataFrame({"country": "Iran", "lang_group": "English", "procedure_id": list("abcd"), "rho": 0.0,
                          "tau": 0.0, "ld_norm": 1.0, "pb_mcq": 0.0})
    cell = aggregate.fig3_cells(zeros).iloc[0]  # every footnote-4 score is 0: still no proportion
    assert (cell["score"], cell["ci_low"], cell["ci_high"]) == (0.0, 0.0, 0.0)
    reference = pd.DataFrame({"system": "reference", "rouge_l": [1.0] * 5, "bertscore": [1.0] * 5, "ss": [1.0] * 5})
    assert cbqa.summarise_metrics(reference)[["ci_low", "ci_high"]].drop_duplicates().values.tolist() == [[1.0, 1.0]]
    accuracy = questions.accuracy_by(pd.DataFrame({"method": "g", "procedure_id": list("abcd"), "correct": True,
                                                   "valid": True}), ["method"]).iloc[0]
    assert accuracy["ci_low"] < 1.0  # a proportion keeps its Wilson interval at 4/4


def test_the_sentences_say_what_a_valid_and_correct_model_did():
    overall = pd.DataFrame({"task": ["PB-MCQ"], "method": ["generate"], "accuracy": [1.0], "ci_low": [0.9],
                            "ci_high": [1.0], "n": [40], "n_clusters": [5], "invalid_rate": [0.0],
                            "conflict_share": [0.0]})
    text = questions.findings(overall)
    assert "above chance (1/4); 0.0% of the answers are not scored." in text and "names one option" not in text
    free = pd.DataFrame({"valid": [True] * 4, "issues": "", "ld": 0.0, "n_steps": 5})
    assert reordering.policy_findings(free, pd.DataFrame(), pd.DataFrame()).startswith(
        "All 4 free answers of this run are valid orders")
    ours = pd.DataFrame({"model": ["m"], "reorder_valid": [1.0], "pb_mcq_valid": [1.0]})
    assert aggregate.validity_findings(ours) == "m: 100.0% of its reordering answers and 100.0% of its PB-MCQ answers " \
                                               "are valid."
    assert "every median reaches" in aggregate.size_findings(20, 60, 40)


def test_valid_shares_pool_the_tasks_a_score_rests_on():
    results = {"reorder": pd.DataFrame({"valid": [False] * 199 + [True]}),
               "pb_mcq": pd.DataFrame({"method": ["generate"] * 4 + ["loglikelihood"] * 4,
                                       "valid": [False, True, True, True] + [True] * 4})}
    shares = ev.valid_shares(results, "generate")
    assert shares == pytest.approx({"reorder_valid": 0.005, "pb_mcq_valid": 0.75, "valid_share": 4 / 204})


def test_a_few_procedures_answered_alike_in_both_languages_are_not_called_copies():
    """Three procedures (5, 6, 5 steps, each shuffled its own way) answered correctly in both languages: the two
    answers of one procedure agree (same shuffle), so the most common answer of a step count takes 2/4 or 2/2 of
    its answers — agreement, not copying, and too few procedures to say either."""
    rng = np.random.default_rng(3)
    rows = []
    for k in range(3):
        n = 5 + k % 2
        perm = [int(i) for i in rng.permutation(n)]
        for lang in ("English", "native"):
            rows.append({"procedure_id": f"p{k}", "lang_group": lang, "n_steps": n, "perm": perm,
                         "pred_order": list(range(n)), "valid": True, "decoding": "constrained", "rho": 1.0})
    summary = decoding_summary(pd.DataFrame(rows))
    assert summary["modal_answer"].iloc[0] > 0.5  # the share itself is high
    text = decoding_findings(summary, figure="Fig. 5")
    assert "counts copies" not in text and "this share says nothing of copying" in text
