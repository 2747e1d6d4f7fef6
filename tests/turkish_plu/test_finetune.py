"""Fine-tuned baselines: a tiny random model learns a planted rule from the training items and
beats chance on held-out items, reading the paper's SWAG pairs or our prompts; bad inputs fail
clearly (what the rows trained on is their label: test_protocol.py)."""

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
    # the planted rule needs the same four goals in training and test: not goal-disjoint
    scored, losses = ft.finetune_predictions(train, test, epochs=8, goal_disjoint=False, **kwargs)
    assert scored["correct"].mean() >= 0.75  # chance is 0.25
    assert set(scored["method"]) == {"fine-tuned (val→test)"} and set(scored["model"]) == {kwargs["model"]}
    first, last = losses.groupby("epoch")["loss"].mean().iloc[[0, -1]]
    assert last < first
    untrained, _ = ft.train_and_score(train.head(0), test, epochs=1, **kwargs)
    assert (untrained.argmax(1) == test["label"].to_numpy()).mean() < 0.6  # the rule is learnt, not given


def test_the_paper_input_is_the_swag_pair_of_the_released_files(tiny_causal_dir):
    items = pd.DataFrame({"task": ["nep", "gi"], "goal": ["Kek Pişirmek", "Kek Pişirmek"],
                          "context": ["Unu ele.", "Keki fırına koy."], "options": [["Yumurta kır."], ["Kek Pişirmek"]]})
    assert ft.option_inputs(items) == [[("Kek Pişirmek", " Unu ele. Yumurta kır.")],  # NEP: sent1 = the goal
                                       [("xxx", " Keki fırına koy. Kek Pişirmek")]]  # the files' placeholder
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_causal_dir))
    tokenizer.pad_token = tokenizer.eos_token
    (_, n, ids, _), = ft._batches(ft.option_inputs(items), tokenizer, 8, 64, "cpu")
    assert n == 2 and tokenizer.decode(ids[1]).startswith("xxx Keki")  # one sequence of the pair, two segments


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
    with pytest.raises(ValueError, match="input_format must be one of"):
        ft.option_inputs(planted(2, 0), "text")


def goal_items(task: str, goals: list[str], prefix: str) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"{prefix}-{i}" for i in range(len(goals))], "task": task, "goal": goals,
                         "context": goals, "options": [["a", "b"]] * len(goals), "label": 0, "n_options": 2})


def test_fine_tuning_is_goal_disjoint_by_default_and_says_so(monkeypatch):
    seen: dict[str, pd.DataFrame] = {}

    def fake_train(train, test, **kwargs):  # records what each task's model would be trained on
        seen[train["task"].iloc[0]] = train
        return np.zeros((len(test), 2)), pd.DataFrame({"epoch": [0], "step": [0], "loss": [1.0]})

    monkeypatch.setattr(ft, "train_and_score", fake_train)
    train = pd.concat([goal_items("so", ["g1", "g1", "g2", "g3", "g4", "g5"], "so-val"),
                       goal_items("si", ["g1", "g6"], "si-val")], ignore_index=True)
    test = pd.concat([goal_items("so", ["g1", "g2", "g9"], "so-test"), goal_items("si", ["g7"], "si-test")],
                     ignore_index=True)
    overlap = ft.goal_overlap(train, test).set_index("task")
    assert overlap.loc["so", ["test_items", "test_sharing", "train_items", "train_sharing"]].tolist() == [3, 2, 6, 3]
    assert overlap.loc["si", ["test_sharing", "train_sharing"]].tolist() == [0, 0]  # g1 is an SO test goal only

    scored, _ = ft.finetune_predictions(train, test, model="hf:x", n_train=2, seed=0)
    assert set(seen["so"]["goal"]) <= {"g3", "g4", "g5"} and len(seen["so"]) == 2  # dropped first, then 2 drawn
    assert sorted(seen["si"]["goal"]) == ["g1", "g6"]
    assert set(scored["method"]) == {"fine-tuned (goal-disjoint val→test)"}
    assert ft.goal_overlap(ft.drop_test_goals(train, test), test)["test_sharing"].sum() == 0

    ft.finetune_predictions(train, test, model="hf:x", goal_disjoint=False, split="train")
    assert sorted(seen["so"]["goal"]) == ["g1", "g1", "g2", "g3", "g4", "g5"]


def test_the_released_validation_split_shares_goals_with_the_test_sets_and_the_labels_say_so(real_root, start):
    from culturelab.turkish_plu import data as tp

    from .test_protocol import finetuned

    release = tp.Release(real_root.parent)
    corpus = release.corpus()
    val, test = (pd.concat([release.mc(t, split, corpus) for t in ("so", "nep")], ignore_index=True)
                 for split in ("val", "test"))
    overlap = ft.goal_overlap(val, test).set_index("task")
    assert overlap.loc["so", ["test_items", "test_sharing", "train_sharing"]].tolist() == [1021, 325, 405]
    assert overlap.loc["nep", ["test_items", "test_sharing"]].tolist() == [655, 15]
    disjoint = ft.drop_test_goals(val, test)
    assert len(val) - len(disjoint) == overlap["train_sharing"].sum()
    assert ft.goal_overlap(disjoint, test)["test_sharing"].sum() == 0
    row = finetuned(start, "val", False, ft.goal_overlap(val, test).query("task == 'so'"))  # the defect
    assert "325 of the 1,021 Step Ordering test items share their goal with a validation item" in row["protocol"]


def test_each_model_of_a_list_is_fine_tuned_an_encoder_with_its_multiple_choice_head(tiny_causal_dir, tiny_masked_dir):
    from transformers import BertForMultipleChoice

    encoder = ft.OptionScorer(str(tiny_masked_dir))
    assert isinstance(encoder.multiple_choice, BertForMultipleChoice) and encoder.head is None  # pooler + dropout
    models = [f"hf:{tiny_causal_dir}", f"hf:{tiny_masked_dir}"]
    scored, losses = ft.finetune_models(planted(8, 0), planted(4, 1), models, epochs=1, goal_disjoint=False,
                                        batch_size=4, device="cpu", seeds=2)
    assert list(dict.fromkeys(scored["model"])) == models == list(dict.fromkeys(losses["model"]))
    assert set(scored["method"]) == {"fine-tuned (val→test, best of 2 seeds)", "fine-tuned (val→test, mean of 2 seeds)"}
    per_model = scored.groupby(["model", "method"]).size().unstack()
    assert (per_model["fine-tuned (val→test, best of 2 seeds)"] == 4).all()
    assert (per_model["fine-tuned (val→test, mean of 2 seeds)"] == 8).all()
    assert sorted(set(losses["seed"])) == [0, 1]


def test_step_ordering_is_the_papers_four_way_choice_with_xxx_endings():
    items = pd.DataFrame({"task": ["so"], "goal": ["Kek"], "context": ["Kek"], "options": [["Un ele.", "Fırına koy."]]})
    assert ft.option_inputs(items) == [[("xxx", " Kek Un ele."), ("xxx", " Kek Fırına koy."), ("xxx", " Kek xxx"),
                                        ("xxx", " Kek xxx")]]
    assert len(ft.option_inputs(items, "prompt")[0]) == 2  # our prompts: the two orders
