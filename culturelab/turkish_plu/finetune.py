"""Fine-tuned multiple-choice baselines: the paper's "FT" rows of Table 6, with a model that is here.

The paper fine-tunes BERTurk, DistilBERTurk and XLM-R with ``AutoModelForMultipleChoice`` on each
task's *train* split (124K–539K items) and evaluates on test. The train splits are not in the
release (they are on the Hugging Face hub, :func:`culturelab.turkish_plu.data.load_mc_train`), so
without a copy of them the protocol here fine-tunes on the **validation** split and evaluates on
test; pass ``split="train"`` with the hub copy (or a local one) for the paper's protocol. Either
way the training items whose goal is a test item's goal are dropped by default (goal-disjoint:
:func:`goal_overlap` measures the overlap — 325 of the 1,021 step-ordering test items share their
goal with a validation item — and :func:`drop_test_goals` removes it). What each task's rows
trained on and what was dropped is their ``protocol`` label
(:func:`culturelab.turkish_plu.protocol.finetune_effective`): a deviation unless it is the paper's
train split as released.

An encoder (``hf:dbmdz/bert-base-turkish-cased`` …) is the paper's model: 🤗
``AutoModelForMultipleChoice`` with its own head (BERT and XLM-R: pooler, dropout and a linear
layer; DistilBERT: pre-classifier, ReLU, dropout and a linear layer), fed the tokenizer's segment
ids as ``run_swag`` feeds them. A decoder (``bundled:gemma3-270m`` …, not one of the paper's
models) has no multiple-choice class: its last hidden state at the last token goes through a
linear head (ours). Either reads each option as the paper's models do (``input_format="swag"``,
:func:`option_inputs`: the pair ``sent1``, ``sent2 + " " + ending`` of the released SWAG-schema
files, step ordering padded to four options with the files' ``xxx`` endings) or after our Cetvel
prompts (``"prompt"``: "<prompt> <option>", :func:`culturelab.turkish_plu.mc.add_prompts`); the
options of an item are compared by softmax cross-entropy. One model per task, as in the paper.
``layers`` trains only the top transformer layers (with the head; 0 = all), which makes a CPU run
affordable. ``seeds`` > 1 trains that many models per task and reports the best run (the paper's
footnote 5) and the mean over runs (:func:`summarise_seeds`).

>>> find_layers(torch.nn.Module()) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from culturelab.protocol import model_specs
from culturelab.turkish_plu.data import FINETUNE_INPUTS
from culturelab.turkish_plu.data import FINETUNE_SPLITS as SPLITS
from culturelab.turkish_plu.mc import _finish, add_prompts, subset

#: the placeholder of an unused field of the released SWAG-schema files
SWAG_PLACEHOLDER = "xxx"
#: the paper runs step ordering as a four-way choice, ``ending2``/``ending3`` being the placeholder (spec §2.0)
SO_SWAG_OPTIONS = 4


def backbone_path(spec: str) -> str:
    """The 🤗 folder or hub id of a model spec (``bundled:<name>`` is converted once, ``hf:<id>``
    is used as is).

    >>> backbone_path("hf:dbmdz/bert-base-turkish-cased")
    'dbmdz/bert-base-turkish-cased'
    """
    backend, _, name = spec.partition(":")
    if backend == "bundled":
        from culturelab.models.bundled import bundled_model_dir

        return str(bundled_model_dir(name))
    if backend == "hf":
        return name
    raise ValueError(f"fine-tuning needs a 'bundled:' or 'hf:' model (weights to train), not {spec!r}")


def find_layers(backbone: torch.nn.Module) -> torch.nn.ModuleList | None:
    """The backbone's list of transformer blocks (the longest ``ModuleList`` in it), or None."""
    lists = [m for m in backbone.modules() if isinstance(m, torch.nn.ModuleList)]
    return max(lists, key=len) if lists else None


def is_decoder(model_type: str) -> bool:
    """Whether a 🤗 model type is a decoder-only LM (pooled at its last token) rather than an
    encoder (pooled at its first, ``[CLS]``, token).

    >>> is_decoder("gemma3_text"), is_decoder("bert"), is_decoder("xlm-roberta")
    (True, False, False)
    """
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    return model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES


class OptionScorer(torch.nn.Module):
    """One score per (prompt, option) row: an encoder's ``AutoModelForMultipleChoice`` (the
    paper's head), or a decoder's hidden state at the last token → a linear head (ours)."""

    def __init__(self, path: str, layers: int = 0):
        from transformers import AutoConfig, AutoModel, AutoModelForMultipleChoice

        super().__init__()
        self.last_token = is_decoder(AutoConfig.from_pretrained(path).model_type)
        self.multiple_choice: torch.nn.Module | None = None
        self.head: torch.nn.Module | None = None
        if self.last_token:
            self.backbone = AutoModel.from_pretrained(path, dtype=torch.float32)
            self.head = torch.nn.Linear(self.backbone.config.get_text_config().hidden_size, 1)
        else:
            self.multiple_choice = AutoModelForMultipleChoice.from_pretrained(path, dtype=torch.float32)
            self.backbone = self.multiple_choice.base_model
        if layers:  # train only the top `layers` blocks (and what follows them) with the head
            blocks = find_layers(self.backbone)
            self.backbone.requires_grad_(False)
            if blocks is None:
                raise ValueError(f"{path}: no transformer blocks found to train the top {layers} of")
            for block in list(blocks)[-layers:]:
                block.requires_grad_(True)
            for name, module in self.backbone.named_children():
                if "norm" in name or "pooler" in name:
                    module.requires_grad_(True)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        if self.multiple_choice is not None:  # each row one "choice" of its own: the head scores rows alike
            extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids.unsqueeze(1)}
            return self.multiple_choice(input_ids=input_ids.unsqueeze(1), attention_mask=attention_mask.unsqueeze(1),
                                        **extra).logits.squeeze(-1)
        hidden = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        at = attention_mask.sum(1) - 1  # right padding: a row's last real token is at (its length − 1)
        return self.head(hidden[torch.arange(len(hidden), device=hidden.device), at]).squeeze(-1)


def option_inputs(frame: pd.DataFrame, input_format: str = "swag", version: str = "v1"
                  ) -> list[list[str | tuple[str, str]]]:
    """What the scorer reads for each option of each item. ``swag`` (the paper's, §4.2: the
    repository's ``run_swag`` training script): the pair (``sent1``, ``sent2 + " " + ending``) of
    the released files — ``sent1`` is the goal for next-event prediction and the files' ``xxx``
    placeholder for the other tasks, ``sent2`` what the model reads (:func:`read_mc`'s
    ``context``). ``prompt`` (ours): "<prompt> <option>" with the Cetvel prompts (step ordering:
    the two orders of its step pair). The paper runs step ordering as a four-way choice whose
    ``ending2``/``ending3`` are the files' ``xxx`` (spec §2.0): ``swag`` adds them, so a model can
    pick one (and be wrong).

    >>> t = pd.DataFrame({"task": ["si"], "goal": ["Kek Pişirmek"], "context": ["Kek Pişirmek"],
    ...                   "options": [["Un ele.", "Araba yıka."]]})
    >>> option_inputs(t)[0][0], option_inputs(t, "prompt")[0][0]
    (('xxx', ' Kek Pişirmek Un ele.'), 'Hedef: Kek Pişirmek Örnek Adım: Un ele.')
    >>> len(option_inputs(t.assign(task="so"))[0])
    4
    """
    if input_format == "swag":
        # the second segment starts with a space: an encoder's tokenizer drops it, a decoder's
        # (which joins a pair without a separator) keeps the two segments apart
        firsts = [g if t == "nep" else "xxx" for t, g in zip(frame["task"], frame["goal"])]
        endings = [[*opts, *[SWAG_PLACEHOLDER] * (SO_SWAG_OPTIONS - len(opts))] if t == "so" else list(opts)
                   for t, opts in zip(frame["task"], frame["options"])]
        return [[(first, f" {context} {o}") for o in opts]
                for first, context, opts in zip(firsts, frame["context"], endings)]
    if input_format != "prompt":
        raise ValueError(f"input_format must be one of {FINETUNE_INPUTS}, not {input_format!r}")
    prompted = add_prompts(frame, version)
    return [[f"{p} {o}" for o in opts] for p, opts in zip(prompted["prompt"], prompted["llm_options"])]


def _flat_text(option: str | tuple[str, str]) -> str:
    return option if isinstance(option, str) else "".join(option)


def _batches(texts: list[list[str | tuple[str, str]]], tokenizer, size: int, max_length: int, device: str):
    """Per batch of items: the first item, the number of items, the token ids and the other inputs
    (``attention_mask``, and ``token_type_ids`` where the tokenizer makes segment ids)."""
    for start in range(0, len(texts), size):
        chunk = [t for opts in texts[start : start + size] for t in opts]
        pairs = [t for t in chunk if isinstance(t, tuple)]
        args = ([a for a, _ in pairs], [b for _, b in pairs]) if pairs else (chunk,)
        enc = tokenizer(*args, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        extra = {k: enc[k].to(device) for k in ("attention_mask", "token_type_ids") if k in enc}
        yield start, len(texts[start : start + size]), enc["input_ids"].to(device), extra


def train_and_score(train: pd.DataFrame, test: pd.DataFrame, *, model: str = "bundled:gemma3-270m",
                    epochs: int = 3, layers: int = 0, lr: float = 5e-5, batch_size: int = 16, seed: int = 0,
                    device: str = "auto", max_length: int = 128, input_format: str = "swag", version: str = "v1"
                    ) -> tuple[np.ndarray, pd.DataFrame]:
    """Fine-tune one :class:`OptionScorer` on ``train`` (items of one task: ``options``, ``label``)
    and score every option of ``test``; returns the test scores (items × options) and the training
    loss per step (``epoch, step, loss``). The defaults are the paper's (AdamW, lr 5e-5 decaying
    linearly to 0, 3 epochs, batch 16, 128 tokens, SWAG pairs: :func:`option_inputs`). Under ``culturelab plan`` nothing is trained:
    the work is counted (:func:`count_finetune`) and the scores are zeros."""
    from transformers import AutoTokenizer

    from culturelab.models import counting
    from culturelab.models.device import resolve_device

    if counting.counting():
        return count_finetune(train, test, model=model, epochs=epochs, input_format=input_format, version=version)

    device = resolve_device(device)
    torch.manual_seed(seed)
    path = backbone_path(model)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "right"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    scorer = OptionScorer(path, layers).to(device)
    optimiser = torch.optim.AdamW([p for p in scorer.parameters() if p.requires_grad], lr=lr, weight_decay=0.0)
    texts = option_inputs(train, input_format, version)
    labels = torch.tensor(train["label"].to_numpy(), dtype=torch.long)
    total = max(1, epochs * -(-len(texts) // batch_size))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: max(0.0, 1 - step / total))
    rng = np.random.default_rng(seed)
    history = []
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda"))
    for epoch in range(epochs):
        order = rng.permutation(len(texts))
        scorer.train()
        for step, (start, n, ids, extra) in enumerate(_batches([texts[i] for i in order], tokenizer, batch_size,
                                                               max_length, device)):
            with autocast:
                scores = scorer(ids, **_inputs(scorer, extra)).float().view(n, -1)
            loss = torch.nn.functional.cross_entropy(scores, labels[order[start : start + n]].to(device))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            history.append({"epoch": epoch, "step": step, "loss": float(loss.detach())})
    scorer.eval()
    test_texts, out = option_inputs(test, input_format, version), []
    with torch.no_grad(), autocast:
        for _, n, ids, extra in _batches(test_texts, tokenizer, batch_size * 2, max_length, device):
            out.append(scorer(ids, **_inputs(scorer, extra)).float().view(n, -1).cpu().numpy())
    return (np.concatenate(out) if out else np.zeros((0, 0))), pd.DataFrame(history)


def _inputs(scorer: OptionScorer, extra: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The inputs besides the token ids: segment ids go to an encoder's multiple-choice model only."""
    return extra if scorer.multiple_choice is not None else {"attention_mask": extra["attention_mask"]}


def count_finetune(train: pd.DataFrame, test: pd.DataFrame, *, model: str, epochs: int, input_format: str = "swag",
                   version: str = "v1") -> tuple[np.ndarray, pd.DataFrame]:
    """Record a fine-tuning run's cost for ``culturelab plan`` (kind ``finetune``: forward-pass
    tokens, a training step counted as three forward passes) and return what
    :func:`train_and_score` returns, with zero scores and NaN losses (one row per epoch).

    >>> t = pd.DataFrame({"task": ["si"], "goal": ["Kek"], "context": ["Kek"], "options": [["Un.", "Su."]],
    ...                   "label": [0]})
    >>> scores, history = count_finetune(t, t, model="hf:none", epochs=2)
    >>> scores.shape, history["epoch"].tolist()
    ((1, 2), [0, 1])
    """
    from culturelab.models import counting

    train_texts, test_texts = (option_inputs(t, input_format, version) for t in (train, test))
    tok = counting.offline_tokenizer(model)
    tokens = (3 * epochs * counting.count_tokens([_flat_text(t) for o in train_texts for t in o], tok)
              + counting.count_tokens([_flat_text(t) for o in test_texts for t in o], tok))
    counting.record("finetune", model, epochs * len(train_texts) + len(test_texts), tokens)
    width = max((len(o) for o in test_texts), default=0)
    return np.zeros((len(test_texts), width)), pd.DataFrame({"epoch": range(epochs), "step": 0, "loss": np.nan})


def goal_overlap(train: pd.DataFrame, test: pd.DataFrame) -> pd.DataFrame:
    """Per task, how far the training items share goals with the test items: ``test_items``,
    ``test_sharing`` (test items whose goal is the goal of a training item of the task) and its
    ``test_share``, ``train_items`` and ``train_sharing`` (training items with a test item's goal:
    what goal-disjoint fine-tuning drops, :func:`drop_test_goals`).

    >>> train = pd.DataFrame({"task": ["so"] * 3, "goal": ["a", "a", "b"]})
    >>> test = pd.DataFrame({"task": ["so"] * 2, "goal": ["a", "c"]})
    >>> goal_overlap(train, test)[["task", "test_items", "test_sharing", "test_share", "train_sharing"]].values.tolist()
    [['so', 2, 1, 0.5, 2]]
    """
    rows = []
    for task, te in test.groupby("task", sort=False):
        tr = train[train["task"] == task]
        sharing = te["goal"].isin(set(tr["goal"]))
        rows.append({"task": task, "test_items": len(te), "test_sharing": int(sharing.sum()),
                     "test_share": float(sharing.mean()) if len(te) else float("nan"), "train_items": len(tr),
                     "train_sharing": int(tr["goal"].isin(set(te["goal"])).sum())})
    return pd.DataFrame(rows, columns=["task", "test_items", "test_sharing", "test_share", "train_items",
                                       "train_sharing"])


def drop_test_goals(train: pd.DataFrame, test: pd.DataFrame) -> pd.DataFrame:
    """``train`` without the items whose goal is the goal of a ``test`` item of the same task, so
    that a model is tested on goals (tutorials) it was not trained on.

    >>> train = pd.DataFrame({"task": ["so", "so", "si"], "goal": ["a", "b", "a"]})
    >>> drop_test_goals(train, pd.DataFrame({"task": ["so"], "goal": ["a"]}))["goal"].tolist()
    ['b', 'a']
    """
    test_goals = set(zip(test["task"], test["goal"]))
    keep = [(t, g) not in test_goals for t, g in zip(train["task"], train["goal"])]
    return train[keep]


def method_name(split: str, goal_disjoint: bool = True, seeds: int = 1, summary: str = "") -> str:
    """The ``method`` of fine-tuned rows: what they trained on, and over several seeds (``seeds``)
    which ``summary`` of the runs they are (``best``: the best run's items; ``mean``: every run's).

    >>> method_name("val"), method_name("train", goal_disjoint=False, seeds=3, summary="best")
    ('fine-tuned (goal-disjoint val→test)', 'fine-tuned (train→test, best of 3 seeds)')
    """
    runs = f", {summary} of {seeds} seeds" if seeds > 1 else ""
    return f"fine-tuned ({'goal-disjoint ' if goal_disjoint else ''}{split}→test{runs})"


def summarise_seeds(scored: pd.DataFrame, split: str, goal_disjoint: bool, seeds: int) -> pd.DataFrame:
    """The scored items of several runs (column ``seed``) of one task and model as two methods:
    the best run's items (the run of highest accuracy, as the paper reports, footnote 5) and every
    run's items (their accuracy is the mean over runs); one run stays as it is.

    >>> runs = pd.DataFrame({"seed": [0, 0, 1, 1], "correct": [True, False, True, True]})
    >>> out = summarise_seeds(runs, "val", False, 2)
    >>> out.groupby("method", sort=False)["correct"].mean().to_dict()
    {'fine-tuned (val→test, best of 2 seeds)': 1.0, 'fine-tuned (val→test, mean of 2 seeds)': 0.75}
    """
    if seeds == 1:
        return scored.assign(method=method_name(split, goal_disjoint))
    best = scored.groupby("seed")["correct"].mean().idxmax()
    return pd.concat([scored[scored["seed"] == best].assign(method=method_name(split, goal_disjoint, seeds, "best")),
                      scored.assign(method=method_name(split, goal_disjoint, seeds, "mean"))], ignore_index=True)


def finetune_predictions(train: pd.DataFrame, test: pd.DataFrame, *, split: str = "val", goal_disjoint: bool = True,
                         n_train: int = 0, tasks: Sequence[str] | None = None, seeds: int = 1, **kwargs
                         ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One fine-tuned model per task (``train`` → ``test``, keyword arguments of
    :func:`train_and_score`): the scored test items in the shape of the other scorers
    (:mod:`culturelab.turkish_plu.mc`; ``method`` :func:`method_name`, ``model`` the spec) and the
    training losses (with ``task`` and ``seed``). ``goal_disjoint`` (default) first drops the training items
    whose goal is the goal of a test item of the task (:func:`drop_test_goals`; the validation
    split shares goals with 325 of the 1,021 step-ordering test items); ``n_train`` then keeps at
    most that many training items per task (seeded with ``seed``; 0 = all). ``seeds`` runs per
    task (seeds ``seed``, ``seed + 1`` …) are summarised by :func:`summarise_seeds`."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    model = kwargs.get("model", "bundled:gemma3-270m")
    first = kwargs.pop("seed", 0)
    if goal_disjoint:
        train = drop_test_goals(train, test)
    parts, losses = [], []
    for task in tasks or list(dict.fromkeys(test["task"])):
        tr = subset(train[train["task"] == task], n_train, first)
        te = test[test["task"] == task]
        if tr.empty or te.empty:
            raise ValueError(f"fine-tuning {task!r}: {len(tr)} training and {len(te)} test items")
        runs = []
        for seed in range(first, first + seeds):
            scores, history = train_and_score(tr, te, seed=seed, **kwargs)
            runs.append(_finish(te, scores, "").assign(model=model, seed=seed))
            losses.append(history.assign(task=task, seed=seed))
        parts.append(summarise_seeds(pd.concat(runs, ignore_index=True), split, goal_disjoint, seeds))
    return pd.concat(parts, ignore_index=True), pd.concat(losses, ignore_index=True)


def finetune_models(train: pd.DataFrame, test: pd.DataFrame, models: str | Sequence[str], **kwargs
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`finetune_predictions` of each model of ``models`` (one spec or a list: the paper
    fine-tunes BERTurk, DistilBERTurk and XLM-R), the scored items of all of them and their
    training losses (with the ``method`` of the rows of every run and the ``model``)."""
    parts, losses = [], []
    for spec in model_specs(models):
        tuned, history = finetune_predictions(train, test, model=spec, **kwargs)
        parts.append(tuned)
        losses.append(history.assign(method=tuned["method"].iloc[-1], model=spec))
    if not parts:
        raise ValueError(f"no model to fine-tune in {models!r}")
    return pd.concat(parts, ignore_index=True), pd.concat(losses, ignore_index=True)
