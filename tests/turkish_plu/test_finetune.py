"""Fine-tuned baselines: a tiny random model learns a planted rule from the training items and
beats chance on held-out items; the protocol is stated; bad inputs fail clearly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.turkish_plu import finetune as ft

FOODS = {"rice": "rice is cooked with saffron", "bread": "bread is baked with flour",
         "tea": "tea is served with sugar", "soup": "the soup has lentils"}


def planted(n: int, seed: int, task: str = "si") -> pd.DataFrame:
    """4-option items: the goal names a food, the right option is the one about it (options shuffled)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        options = list(rng.permutation(list(FOODS)))
        goal = options[int(rng.integers(4))]
        rows.append({"id": f"{task}-x-{i}", "task": task, "goal": goal, "context": goal,
                     "options": [FOODS[o] for o in options], "label": options.index(goal), "n_options": 4})
    return pd.DataFrame(rows)


def test_a_fine_tuned_tiny_model_learns_the_planted_rule(tiny_causal_dir):
    train, test = planted(32, 0), planted(24, 1)
    kwargs = dict(model=f"hf:{tiny_causal_dir}", lr=5e-3, batch_size=8, seed=0, device="cpu")
    scored, losses = ft.finetune_predictions(train, test, epochs=8, **kwargs)
    assert scored["correct"].mean() >= 0.75  # chance is 0.25
    assert set(scored["method"]) == {"fine-tuned (val→test)"} and set(scored["model"]) == {kwargs["model"]}
    first, last = losses.groupby("epoch")["loss"].mean().iloc[[0, -1]]
    assert last < first
    untrained, _ = ft.train_and_score(train.head(0), test, epochs=1, **kwargs)
    assert (untrained.argmax(1) == test["label"].to_numpy()).mean() < 0.6  # the rule is learnt, not given


def test_training_only_the_top_layers_freezes_the_rest(tiny_causal_dir):
    scorer = ft.OptionScorer(str(tiny_causal_dir), layers=1)
    blocks = ft.find_layers(scorer.backbone)
    assert len(blocks) == 2
    assert not any(p.requires_grad for p in blocks[0].parameters())
    assert all(p.requires_grad for p in blocks[1].parameters())
    assert not scorer.backbone.get_input_embeddings().weight.requires_grad
    assert all(p.requires_grad for p in scorer.head.parameters())


def test_bad_inputs_fail_clearly(tiny_causal_dir):
    with pytest.raises(ValueError, match="needs a 'bundled:' or 'hf:' model"):
        ft.backbone_path("openai:gpt-4o")
    with pytest.raises(ValueError, match="split must be one of"):
        ft.finetune_predictions(planted(2, 0), planted(2, 1), split="dev")
    with pytest.raises(ValueError, match="'nep': 0 training and 2 test items"):
        ft.finetune_predictions(planted(2, 0), planted(2, 1, "nep"), model=f"hf:{tiny_causal_dir}")
    assert "instead of train" in ft.protocol("val", "m", 10, 1, 0)
    assert "instead of train" not in ft.protocol("train", "m", 0, 1, 0)
