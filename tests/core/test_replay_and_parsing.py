"""Replay of earlier predictions, and the generic answer parsers."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from culturelab.models import load_model
from culturelab.parsing import parse_choice, parse_order
from culturelab.tasks import mcq


def test_replay_rescores_a_results_table(tmp_path):
    table = pd.DataFrame({"prompt": ["q1", "q2"], "raw_output": ["B", "I don't know"],
                          "options": [["x", "y"], ["x", "y"]], "answer": [1, 0]})
    path = tmp_path / "results.csv"
    table.to_csv(path, index=False)
    model = load_model(f"replay:{path}")
    scored = mcq.score_generation(model, table.drop(columns="raw_output"))
    assert scored["correct"].tolist() == [True, False] and scored["valid"].tolist() == [True, False]
    with pytest.raises(KeyError, match="not in the replay file"):
        model.generate(["q3"])
    lenient = load_model(f"replay:{path}", missing="empty")
    assert lenient.generate(["q3"]) == [""] and lenient.n_missing == 1


def test_replay_needs_prompt_and_response_columns(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"question": "q", "answer": "a"}) + "\n")
    with pytest.raises(ValueError, match="needs columns"):
        load_model(f"replay:{path}")


@pytest.mark.parametrize(("text", "expected"), [
    ("C", 2), ("(b)", 1), ("Answer: D", 3), ("The correct option is B.", 1), ("<think>A?</think>C", 2),
    ("A. Paris", 0), ("a bowl of rice", None), ("I cannot answer.", None), ("", None), ("E", None),
])
def test_parse_choice(text, expected):
    assert parse_choice(text, 4).index == expected


@pytest.mark.parametrize(("text", "order", "valid"), [
    ("A, B, C", [0, 1, 2], True), ("A B C", [0, 1, 2], True), ("The order is: C,A,B", [2, 0, 1], True),
    ("c, a, b", [2, 0, 1], True), ("C, A, A, B", [2, 0, 1], False), ("B -> C -> A", [1, 2, 0], True),
    ("Sure! B, C, A. Hope this helps.", [1, 2, 0], True), ("A, B", [0, 1], False), ("no letters", [], False),
    ("A, B, C, D", [0, 1, 2], False),
])
def test_parse_order(text, order, valid):
    parsed = parse_order(text, 3)
    assert parsed.order == order and parsed.valid == valid
