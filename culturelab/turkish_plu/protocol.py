"""Turkish PLU's protocol as data (§3–4, App. A, B and G, Tables 3–8), for :func:`culturelab.protocol.compare`.

Every label of a Turkish PLU table, figure and results row comes from the comparison of a run
with these sections; ``culturelab check`` prints it and a ``protocol: paper`` file refuses to run
while it is not empty.

The paper's data: the released test sets (Table 4: 837 / 612 / 1,021 / 656 — the released NEP
file holds 655), the original-Turkish corpus part (Table 3 "Original" row), the linking pairs (440
test steps; the candidate pool, every goal title of the merged corpus, ~51.5K, is **not
released**: ours is rebuilt from the released titles) and the summarization test split (5,984
pairs of ``ardauzunoglu/tr-wikihow-summ``; only the release's example tutorial is here). Its
methods: encoders with a multiple-choice head, fine-tuned on each task's train split (§4.2,
Table 6; the "ZS" rows are the same encoders with a randomly initialised head), retrievers over
the full pool (§4.1, Table 5), fine-tuned seq2seq summarizers scored with HF ``evaluate``'s ROUGE
(§4.3, App. G, Table 7). Zero-shot scoring or generation with a causal LM, our lexical
baselines, full reordering and the distractor audits are **beyond the paper**: labelled so, placed
beside the paper's rows with no Δ.

>>> from culturelab.protocol import compare
>>> d = compare(PROTOCOL["02_mc_tasks.finetune"], {"finetune_split": "val", "finetune_epochs": 1},
...             DataUsed("released", {"so test items": 1021}))
>>> [line.split(" (")[0] for line in d.lines()]
['protocol: fine-tuned on the released validation split', 'protocol: 1 epoch(s)']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from culturelab.protocol import (
    DataUsed,
    Deviations,
    Release,
    Section,
    Setting,
    compare,
    is_same,
    paper_model_of,
)
from culturelab.tasks.reorder import DECODING_LABELS, decoding_setting
from culturelab.turkish_plu.data import FILES, HF_MC, HF_SUMMARIZATION, SUBDIR, TASK_NAMES, TASKS
from culturelab.turkish_plu.rerank import DEPTH
from culturelab.turkish_plu.summarization import ROUGE_L, VARIANTS

if TYPE_CHECKING:
    import pandas as pd

    from culturelab.runner import Run

GITHUB_URL = "https://github.com/GGLAB-KU/turkish-plu"
HUB_SUMMARIZATION = f"https://huggingface.co/datasets/{HF_SUMMARIZATION[0]}"
#: the released test sets (Table 4; the released NEP file holds 655 items, Table 4 says 656)
TEST_ITEMS = {"gi": 837, "si": 612, "so": 1021, "nep": 655}
#: the train splits the paper fine-tunes on (Table 4, K-rounded)
TRAIN_SIZES = {"gi": "255K", "si": "124K", "so": "539K", "nep": "82K"}

TEST_SETS = Release("Turkish PLU multiple-choice test sets (GGLAB-KU/turkish-plu, mc/)",
                    {f"{t} test items": n for t, n in TEST_ITEMS.items()},
                    "Table 4 (NEP: 656; the released file holds 655)", GITHUB_URL)
#: the original-Turkish part of the corpus: Table 3 rounds it to 2K tutorials, 7K methods and 38K steps
#: (19.15 steps and 3.35 methods per tutorial); the released file's exact counts give those averages
CORPUS = Release("Turkish PLU corpus, original-Turkish part (GGLAB-KU/turkish-plu @83bd26d)",
                 {"tutorials": 2009, "methods": 6720, "steps": 38481},
                 "Table 3 'Original' row (2K / 7K / 38K, 19.15 steps and 3.35 methods per tutorial)", GITHUB_URL)
LINKING = Release("Turkish PLU linking actions (hyperlinks.json)", {"test steps": 440}, "Table 4", GITHUB_URL)
SUMMARIZATION = Release(f"tr-wikihow-summ ({HF_SUMMARIZATION[0]})", {"test pairs": 5984},
                        "Table 4 (6K; the hub's test split holds 5,984 pairs)", HUB_SUMMARIZATION)

#: the data source of a linking run: the release's test steps, a candidate pool rebuilt by us
REBUILT_POOL = "rebuilt"
POOL_NOTE = ("the release's test steps, with the candidate pool rebuilt from its translated titles and original "
             "corpus titles: the paper's pool (every goal of the merged corpus, ~51.5K, §4.1) is not released")

ALL = "Table 4: every test item"


def _size(knob: str, what: str, cite: str = ALL) -> Setting:
    """A size knob (0 = all): another value runs on a subset (of the paper's data, or, ``cite``
    ``"ours"``, of an analysis the paper does not have)."""
    paper = "0: all" if cite == "ours" else f"the paper: all, {cite}"
    return Setting(0, cite, kind="data", describe=lambda v: f"{knob} {v}: at most {v} {what} ({paper})")


def _tasks(v: Any) -> str:
    return f"tasks {', '.join(v)} only (the paper: all four, Table 6)"


#: what each of our chance baselines is, beside the paper's Random row (the exact chance 1/options)
_BASELINES = {
    "random": "random: simulated uniform guesses over the run's seeds (each item counted once: its share of seeds "
              "right), a check of the chance level (the paper's Random row: the exact chance 1/options, Table 6)",
    "majority (val)": "majority (val): the validation split's most frequent label (the paper's Random row: the exact "
                      "chance 1/options, Table 6)",
}

_BEYOND_LM = ("zero-shot log-likelihood of a causal LM with the Cetvel prompts; the paper's models are encoders "
              "with a multiple-choice head, fine-tuned (FT) or with a randomly initialised head (ZS), §4.2, Table 6")


# ------------------------------------------------------------------ fine-tuning (§4.2, Table 6 FT rows)
@dataclass(frozen=True)
class Training:
    """What one task's fine-tuned model was trained on — the effective value of ``finetune_split``
    and ``finetune_goal_disjoint`` for that task's rows (:func:`finetune_effective`): the split,
    its items of the task, how many were dropped for sharing a goal with a test item, and how
    many test items share their goal with an item of the split.

    >>> t = Training("so", "val", False, 10000, 0, 1021, 325)
    >>> _split_text(t)
    'fine-tuned on the released validation split (10,000 Step Ordering items; the paper: its train split, 539K items, Table 4); 325 of the 1,021 Step Ordering test items share their goal with a validation item it was trained on'
    """

    task: str
    split: str
    goal_disjoint: bool
    train_items: int
    dropped: int
    test_items: int
    test_sharing: int

    @property
    def name(self) -> str:
        return TASK_NAMES.get(self.task, self.task)

    @property
    def split_name(self) -> str:
        return "validation" if self.split == "val" else self.split


def _split_text(v: Any) -> str:
    paper = "the paper: each task's train split, 82K–539K items, Table 4"
    if not isinstance(v, Training):
        if v == "auto":
            return f"finetune_split auto: the released validation split unless train_dir is given ({paper})"
        return f"fine-tuned on the {'released validation' if v == 'val' else v} split ({paper})"
    text = (f"fine-tuned on the released validation split ({v.train_items:,} {v.name} items; the paper: its train "
            f"split, {TRAIN_SIZES.get(v.task, '?')} items, Table 4)")
    if not v.goal_disjoint and v.test_sharing:
        text += (f"; {v.test_sharing:,} of the {v.test_items:,} {v.name} test items share their goal with a "
                 "validation item it was trained on")
    return text


def _drop_text(v: Any) -> str:
    paper = "the paper trains on its split as released, Table 4"
    if not isinstance(v, Training):
        return f"training items that share a goal with a test item dropped (goal-disjoint; {paper})"
    return (f"{v.dropped:,} of the {v.train_items:,} {v.split_name} {v.name} items dropped for sharing their goal "
            f"with a test item ({v.test_sharing:,} of the {v.test_items:,} test items share one; goal-disjoint; {paper})")


_FINETUNE = {
    "finetune_split": Setting("train", "§4.2, Table 4", accept=lambda v: (v.split if isinstance(v, Training) else v) == "train",
                              describe=_split_text),
    "finetune_goal_disjoint": Setting(False, "Table 4", describe=_drop_text,
                                      accept=lambda v: v.dropped == 0 if isinstance(v, Training) else not v),
    "n_finetune_train": _size("n_finetune_train", "training items per task", "Table 4: the whole train split"),
    "n_finetune_test": _size("n_finetune_test", "test items per task"),
    # §4.2: "we employ the cross-entropy loss to fine-tune our models" (the whole encoder)
    "finetune_layers": Setting(0, "§4.2", describe=lambda v: f"only the top {v} layers and the head trained (the "
                               "paper: the whole encoder, §4.2)"),
    # App. G names no epochs or learning rate (and Adafactor); the authors' multiple-choice run scripts:
    # AdamW, lr 5e-5 decaying linearly to 0, 3 epochs, batch 16, 128 tokens (spec §3.1; train_and_score's defaults)
    "finetune_epochs": Setting(3, "the authors' run scripts (App. G gives none)", what="{} epoch(s)"),
    "finetune_lr": Setting(5e-5, "the authors' run scripts: AdamW, linear decay (App. G gives none)",
                           what="learning rate {}"),
    # §4.2, the repository's train.py (HF run_swag): the encoder reads the pair (sent1, sent2 + " " + ending)
    "finetune_input": Setting("swag", "§4.2 (the repository's train.py: SWAG pairs)", describe=lambda v: (
        "options read after our Cetvel prompts as one text (the paper: SWAG pairs — sent1, sent2 + ' ' + ending; "
        "§4.2)")),
    # footnote 5: runs with several seeds were checked and only the best is reported (how many: not stated)
    "finetune_seeds": Setting("best", "footnote 5 (the best run over seeds; how many seeds: not stated)",
                              accept=lambda v: v >= 2 if isinstance(v, int) else str(v).startswith("best"),
                              describe=lambda v: _seeds_text(v)),
    # App. G: 4 T4s with gradient accumulation; the run scripts: 16 per device. Our reading: 4 × 16 = 64 per
    # optimiser step (the accumulation steps are not stated)
    "finetune_batch_size": Setting(64, "our reading of App. G and the run scripts: 16 per device on 4 T4s; "
                                   "gradient-accumulation steps not stated", what="batch {} per optimiser step"),
}


def _seeds_text(v: Any) -> str:
    paper = "the paper: the best run over several seeds, footnote 5"
    if isinstance(v, int):
        return f"one fine-tuning run per task and model ({paper})"
    return f"{v} ({paper})"


def seeds_of(method: str) -> int | str:
    """What a fine-tuned ``method`` (:func:`culturelab.turkish_plu.finetune.method_name`) says of
    its runs over seeds: ``1`` (one run), or ``"best of k seeds"`` / ``"mean of k seeds"``.

    >>> seeds_of("fine-tuned (val→test)"), seeds_of("fine-tuned (train→test, best of 3 seeds)")
    (1, 'best of 3 seeds')
    """
    found = re.search(r", ((?:best|mean) of \d+ seeds)\)$", method)
    return found.group(1) if found else 1


def finetune_effective(overlap: pd.DataFrame, split: str, goal_disjoint: bool) -> dict[str, dict[str, Training]]:
    """Per task, the effective settings of its fine-tuned rows (pass them to
    :meth:`~culturelab.runner.Run.deviations` with part ``finetune``): what the model trained on,
    from :func:`culturelab.turkish_plu.finetune.goal_overlap` of the training split with the
    fine-tuned test items.

    >>> import pandas as pd
    >>> o = pd.DataFrame({"task": ["so"], "test_items": [1021], "test_sharing": [325], "train_items": [10000],
    ...                   "train_sharing": [405]})
    >>> t = finetune_effective(o, "val", True)["so"]["finetune_goal_disjoint"]
    >>> _drop_text(t)
    '405 of the 10,000 validation Step Ordering items dropped for sharing their goal with a test item (325 of the 1,021 test items share one; goal-disjoint; the paper trains on its split as released, Table 4)'
    """
    out = {}
    for row in overlap.itertuples(index=False):
        t = Training(row.task, split, goal_disjoint, int(row.train_items),
                     int(row.train_sharing) if goal_disjoint else 0, int(row.test_items), int(row.test_sharing))
        out[row.task] = {"finetune_split": t, "finetune_goal_disjoint": t}
    return out


# ------------------------------------------------------------------ the sections
_CORPUS_PART = Setting("whole", "Table 3 category rows: all 52K tutorials", kind="data", describe=lambda v: (
    f"the original-Turkish part only ({CORPUS.counts['tutorials']:,} of ~52K tutorials); the paper's category rows "
    "count the whole corpus, whose ~50K translated tutorials are not in the release (Table 3)"))
_MC_DATA = {"tasks": Setting(list(TASKS), "Table 6: all four tasks", kind="data",
                             accept=lambda v: set(TASKS) <= set(v), describe=_tasks),
            "max_instances": _size("max_instances", "test items per task")}
#: §4.1, App. A.1: rank_bm25's BM25Plus (k1 1.5, b 0.75, δ 1); the paper does not say how it tokenised
_BM25 = Setting("whitespace", "App. A.1 (rank_bm25's BM25Plus; tokens not stated — our reading: split(' '), "
                "as in rank_bm25's README)", describe=lambda v: (
                    f"BM25+ on {v} tokens (our reading of the paper: split(' '), case and punctuation kept; "
                    "App. A.1 does not say)"))
#: the reranker of Table 5's last rows (§4.1, §5.1, App. G: Zhou et al. 2022's, fine-tuned): what ours differs in
_RERANKERS = {
    "zero-shot LM": "candidates reordered by a causal LM's zero-shot log-likelihood of each title after the step, "
                    "untrained, the retrieval score not used",
    "none": "no reranking: the candidate list in the first stage's order (a reference for the reranked rows)",
}
_PAPER_RERANKER = ("a cross-encoder (BERTurk, DistilBERTurk) fine-tuned on the 1,319 training links with 29 retrieved "
                   "negatives each, its [CLS] score combined with the retrieval cosine; §4.1, App. G")
#: the first stage of our rerank rows when the run has not named it (``culturelab check``)
BEST_FIRST_STAGE = "the best full-pool retriever of the run (by R@30)"
_RERANK = {
    "reranker": Setting("fine-tuned cross-encoder", "§4.1, App. G", value_of=lambda e: e.get("reranker", "zero-shot LM"),
                        describe=lambda v: f"{_RERANKERS.get(v, v)} (the paper: {_PAPER_RERANKER})"),
    # §4.1: the step's context (its goal, the steps around it); the release's hyperlinks.json maps steps to goals only
    "rerank_context": Setting("the step with its goal and neighbouring steps", "§4.1",
                              value_of=lambda e: "the step alone", describe=lambda v: (
                                  f"the reranker reads {v} (the paper: the step with its goal and the steps around "
                                  "it, §4.1; the release's hyperlinks.json holds the step and its link only)")),
    "rerank_first_stage": Setting("Sup. SimCSE-TR BERTurk", "Table 5 caption: the best retriever's top 30",
                                  value_of=lambda e: e.get("rerank_first_stage", BEST_FIRST_STAGE),
                                  describe=lambda v: (f"candidates from {v} (the paper: the top 30 of its best "
                                                      "retriever, Sup. SimCSE-TR BERTurk, Table 5 caption)")),
    "rerank_depth": Setting(DEPTH, "Table 5 caption", what="the top {} candidates reranked"),
    # §5.1: the gold goal "introduced … randomly after the 10th candidate" when the retriever missed it
    "gold_insertion": Setting("after the 10th", "§5.1", value_of=lambda e: "after the 10th", what="gold goal put in "
                              "{} when missing", reading="§5.1 says 'randomly after the 10th candidate': ours draws "
                              "its place uniformly among 11–30, shifts the candidates below it down and drops the last"),
    "n_rerank_queries": _size("n_rerank_queries", "test steps reranked"),
}
#: the paper's ROUGE: HF evaluate's (rouge_score's default tokenizer and Porter stemmer)
PAPER_ROUGE = next(iter(VARIANTS))
_ROUGE = Setting(PAPER_ROUGE, "the repository's test.py (HF evaluate's rouge: rouge_score's default tokenizer, "
                 "use_stemmer=True)",
                 describe=lambda v: (f"ROUGE with {v} tokens: Unicode words, Turkish lower-casing, no stemmer (the "
                                     "paper: HF evaluate's rouge — rouge_score's default tokenizer and Porter stemmer, "
                                     "which drop ç ğ ı ö ş ü; the repository's test.py)"))
#: Table 7's ROUGE-L: rougeL or rougeLsum is not stated; our reading: rougeLsum, the only variant that reads the
#: newlines test.py puts between the sentences of sent_tokenize
_ROUGE_L = Setting("rougeLsum", "our reading: Table 7 says ROUGE-L, not which; the repository's test.py joins "
                   "sent_tokenize sentences with newlines, which only rougeLsum reads", describe=lambda v: (
                       f"ROUGE-L as {v} (our reading of Table 7's ROUGE-L: rougeLsum — not stated; the repository's "
                       "test.py joins sent_tokenize sentences with newlines, which only rougeLsum reads)"))

PROTOCOL: dict[str, Section] = {
    "01_corpus": Section("§3.1, Table 3 ('Original' row)", CORPUS),
    "01_corpus.categories": Section("Table 3 (category rows)", CORPUS, {"corpus": _CORPUS_PART}),
    "01_corpus.table8": Section("App. B, Table 8 (the confusion matrix its four metrics imply)"),
    "01_corpus.profile": Section("ours", CORPUS, beyond="category profile and steps per method of the "
                                 "original-Turkish part (the paper: Table 3's counts only)"),
    "02_mc_tasks": Section("§4.2, Tables 4 and 6", TEST_SETS, _MC_DATA),
    # the Random row is the exact chance (1/options: 25, SO 50); simulated guesses are a check of it, not a Δ
    "02_mc_tasks.random": Section("Table 6 Random row", TEST_SETS, {"baseline": Setting(
        "exact chance", "Table 6 Random row", describe=lambda v: _BASELINES.get(v, v))}),
    "02_mc_tasks.surface": Section("ours", TEST_SETS, beyond="surface-similarity scorers (word-stem overlap, "
                                   "character TF-IDF) and the prompt-free options-only audit"),
    "02_mc_tasks.llm": Section("ours", TEST_SETS, {"max_llm_instances": _size("max_llm_instances", "test items per "
                                                                             "task given to the LM", "ours")},
                               beyond=_BEYOND_LM, when="run_llm"),
    "02_mc_tasks.finetune": Section("§4.2, App. G, Table 6 FT rows", TEST_SETS, _FINETUNE, when="run_finetune"),
    # predictions made elsewhere: the file names its model; how that model was trained and run is not known here
    "02_mc_tasks.predictions": Section("Table 6 (a predictions file, as its model column names it)", TEST_SETS, {
        "predictions_protocol": Setting("verified", "§4.2, Table 6", describe=lambda v: (
            "protocol not verified: a predictions file made elsewhere, trusted by its model column (the paper: "
            "§4.2's fine-tuning and test scripts)"))}),
    "03_step_ordering": Section("ours", CORPUS, beyond="full reordering of the ordered original-Turkish methods; the "
                                "paper's step ordering is a two-way choice between consecutive steps of its SO test "
                                "set (§3.2, Table 6)"),
    "03_step_ordering.llm": Section("ours", CORPUS, {"n_per_length": _size("n_per_length", "methods per step count "
                                                                           "given to the model", "ours"),
                                                     "decoding": decoding_setting("CAPTEx §3.2 Task 1",
                                                                                  "CAPTEx's protocol, ours here")},
                                    beyond="full reordering by a generating LM (not in the paper)", when="run_llm"),
    "04_linking": Section("§4.1, App. A.1, Table 5 (BM25 row); ties at their expected rank (not stated)", LINKING,
                          {"max_queries": _size("max_queries", "test steps"), "bm25_tokens": _BM25}),
    "04_linking.comparison": Section("§4.1, Table 5 (dense retrievers beside BM25)", LINKING, {
        "bm25_tokens": _BM25, "n_dense_queries": _size("n_dense_queries", "test steps"),
        "dense_pool_size": Setting(0, "§4.1: the full pool", kind="data", describe=lambda v: (
            f"a small pool: every test gold plus random titles up to {v} (the paper: every goal title, §4.1)"))}),
    "04_linking.rerank": Section("§4.1, §5.1, App. G, Table 5 (reranker rows)", LINKING, _RERANK, when="run_llm"),
    "05_summarization": Section("§4.3, App. G, Table 7", SUMMARIZATION, {
        "split": Setting("test", "Table 7", what="split {}"),
        "max_documents": _size("max_documents", "pairs", "Table 7: the whole test split"),
        "rouge_tokenizer": _ROUGE, "rouge_l": _ROUGE_L}),
    "05_summarization.tokens": Section("ours", CORPUS, beyond="how many words of the original-Turkish corpus's step "
                                       "headlines (the text of the summaries) rouge_score's default tokenizer damages "
                                       "(the paper: §4.3 scores ROUGE with it and does not measure this)"),
    "05_summarization.lead": Section("ours", SUMMARIZATION, {"rouge_tokenizer": _ROUGE},
                                     beyond="extractive lead-k baselines (the paper: fine-tuned seq2seq models)"),
    "05_summarization.llm": Section("ours", SUMMARIZATION, {
        "rouge_tokenizer": _ROUGE,
        "n_llm_summaries": _size("n_llm_summaries", "documents summarised by the LM", "ours")},
        beyond="zero-shot summaries of a causal LM (the paper: seq2seq models fine-tuned on the train split, §4.3)",
        when="run_llm"),
    "06_distractors": Section("ours", TEST_SETS, {
        "max_instances": _size("max_instances", "goal-inference items built from the released negatives (of 2,008)",
                               "ours"),
        "max_test_items": _size("max_test_items", "items per test set")},
        beyond="distractor similarity ranks against pick rates and answer positions (the paper: §3.2 describes "
               "its negative sampling only)"),
    "06_distractors.llm": Section("ours", TEST_SETS, {"max_llm_instances": _size(
        "max_llm_instances", "items per set given to the LM", "ours")}, beyond=_BEYOND_LM, when="run_llm"),
}

# ------------------------------------------------------------------ the paper's models
#: the paper's models with a public checkpoint: name → hub id. Table 6 (App. A.2; spec §3.1), Table 5
#: (App. A.1, footnotes 9–10; SimCSE-TR: App. C, released on the hub) and Table 7 (App. A.3, footnotes
#: 12–14; the PRO models: released on the hub, spec §5.3). Some ids are our reading (:data:`HUB_ID_READINGS`).
HUB_IDS = {
    "BERTurk": "dbmdz/bert-base-turkish-cased",
    "DistilBERTurk": "dbmdz/distilbert-base-turkish-cased",
    "XLM-R": "xlm-roberta-base",
    "LaBSE": "sentence-transformers/LaBSE",
    "XLM-R-XL-Paraphrase": "sentence-transformers/paraphrase-xlm-r-multilingual-v1",
    "Sup. SimCSE-TR BERTurk": "ardauzunoglu/sup-simcse-tr-bert-base",
    "Unsup. SimCSE-TR BERTurk": "ardauzunoglu/unsup-simcse-tr-bert-base",
    "Sup. SimCSE-TR XLM-R": "ardauzunoglu/sup-simcse-tr-xlm-roberta-base",
    "Unsup. SimCSE-TR XLM-R": "ardauzunoglu/unsup-simcse-tr-xlm-roberta-base",
    "TR-BART OOD": "mukayese/transformer-turkish-summarization",
    "mBART OOD": "mukayese/mbart-large-turkish-summarization",
    "mT5-base OOD": "mukayese/mt5-base-turkish-summarization",
    "TR-BART PRO": "ardauzunoglu/tr-bart-pro-summ",
    "mBART PRO": "ardauzunoglu/mbart-pro-summ",
    "mT5-base PRO": "ardauzunoglu/mt5-base-pro-summ",
}
#: the ids of :data:`HUB_IDS` the paper and its repository do not state: our reading of them
HUB_ID_READINGS = {
    "BERTurk": "our reading: the cased BERTurk, which the repository's zero-shot script loads (the paper does not "
               "say cased or uncased; the negative sampling uses the uncased one; spec §3.1)",
    "DistilBERTurk": "our reading: dbmdz's only DistilBERTurk (the paper and the repository name no id; spec §3.1)",
}
#: the parameter that names each notebook's (or part's) model where it is not ``model``: the linking
#: encoder, the models the multiple-choice notebook fine-tunes
MODEL_PARAMS = {"04_linking": "encoder", "04_linking.rerank": "model", "02_mc_tasks.finetune": "finetune_model"}


def paper_model(row: str) -> str | None:
    """The paper's model of a row of Table 5, 6 or 7 (``None`` for Random): Table 6's ``ZS``/``FT``
    rows are one encoder each, with a random or a fine-tuned head.

    >>> paper_model("BERTurk FT"), paper_model("mBART PRO"), paper_model("Random")
    ('BERTurk', 'mBART PRO', None)
    """
    if row == "Random":
        return None
    return row.rsplit(" ", 1)[0] if row.endswith((" ZS", " FT")) else row


def _paper_rows() -> dict[str, str]:
    from culturelab import reported

    rows = {m for t in ("table5", "table6", "table7") for m in reported.load("turkish_plu", t)["model"]}
    return {row: model for row in rows if (model := paper_model(row)) is not None and not row.startswith("+ ")}


_ROWS = _paper_rows()


def _models(spec: str) -> str:
    """A spec's paper model: a hub id of :data:`HUB_IDS`, or a row name of Tables 5–7 (the model column
    of a predictions file, e.g. ``BERTurk FT``)."""
    return _ROWS.get(spec.split(":", 1)[-1].strip()) or paper_model_of(spec, HUB_IDS)


#: the paper's models: a spec (or a predictions file's model name) → the paper's name
MODELS: Callable[[str], str] = _models


# ------------------------------------------------------------------ labels of rows
def task_counts(task: str, n: int) -> dict[str, int]:
    """The counts of one task's rows: ``n`` of that task's test items (the other tasks are not in
    the row, so their sets count in full).

    >>> task_counts("so", 60)["so test items"], task_counts("so", 60)["gi test items"]
    (60, 837)
    """
    return {f"{t} test items": (n if t == task else full) for t, full in TEST_ITEMS.items()}


def items_counts(frame: pd.DataFrame) -> dict[str, int]:
    """Test items per task of a table of items (``task`` column), keyed as :data:`TEST_SETS`.

    >>> import pandas as pd
    >>> items_counts(pd.DataFrame({"task": ["gi", "gi", "so"]}))
    {'gi test items': 2, 'so test items': 1}
    """
    return {f"{t} test items": int(n) for t, n in frame["task"].value_counts(sort=False).items()}


def corpus_counts(corpus: pd.DataFrame) -> dict[str, int]:
    """Tutorials (unique titles, as the paper counts them), methods and steps of a corpus table.

    >>> import pandas as pd
    >>> corpus_counts(pd.DataFrame({"tutorial": ["a", "a", "b"], "n_steps": [3, 5, 4]}))
    {'tutorials': 2, 'methods': 3, 'steps': 12}
    """
    return {"tutorials": int(corpus["tutorial"].nunique()), "methods": len(corpus), "steps": int(corpus["n_steps"].sum())}


def mc_part(method: str) -> str:
    """The section (part of ``02_mc_tasks``) a multiple-choice method's rows are compared with.

    >>> [mc_part(m) for m in ("random", "majority (val)", "tf-idf char", "llm (mean)", "predictions: x")]
    ['random', 'random', 'surface', 'llm', 'predictions']
    """
    if method in ("random", "majority (val)"):
        return "random"
    for key, part in (("llm", "llm"), ("fine-tuned", "finetune"), ("predictions", "predictions")):
        if method.startswith(key):
            return part
    return "surface"


def mc_labels(run: Run, results: pd.DataFrame, finetune: Mapping[str, Mapping[str, Any]] | None = None
              ) -> Callable[[Mapping[str, Any]], Deviations]:
    """The labels of one (``task``, ``method``, ``model``) of ``results`` (the scored items of the
    multiple-choice notebook): its part (:func:`mc_part`), the test items it scored
    (:func:`task_counts`), its model (``None`` for a baseline), and for fine-tuned rows what they
    trained on (``finetune``: :func:`finetune_effective`). For
    :func:`culturelab.protocol.label_rows` and :func:`culturelab.turkish_plu.mc.table6_beside`."""
    items = results.groupby(["task", "method"])["id"].nunique()

    def of(row: Mapping[str, Any]) -> Deviations:
        task, method = row["task"], row["method"]
        part = mc_part(method)
        effective: dict[str, Any] = dict((finetune or {}).get(task, {})) if part == "finetune" else {}
        if part == "finetune":
            effective["finetune_seeds"] = seeds_of(method)
        if part == "random":
            effective["baseline"] = method
        if part == "predictions":
            effective["predictions_protocol"] = "unverified"
        model = row.get("model")
        return run.deviations(part, counts=task_counts(task, int(items.get((task, method), 0))),
                              model=None if model in (None, "baseline") else model, **effective)
    return of


def pool_note(pool_size: int, n_added: int) -> str:
    """The data note of a linking run: :data:`POOL_NOTE` with the size of our pool.

    >>> pool_note(51571, 1).endswith("(ours: 51,571 titles, 1 test gold missing from them added)")
    True
    """
    return f"{POOL_NOTE} (ours: {pool_size:,} titles, {n_added} test gold{'s' if n_added != 1 else ''} missing " \
           "from them added)"


def linking_labels(run: Run, recall: pd.DataFrame) -> Callable[[Mapping[str, Any]], Deviations]:
    """The labels of one retrieval run (``system``, ``pool``) of the linking notebook's recall
    table: a BM25+ run by its tokens, a dense run by its encoder (the model); the full pool is the
    notebook's main comparison, any other pool the second one (part ``comparison``); the counts are
    its test steps. For :func:`culturelab.protocol.label_rows` and
    :func:`culturelab.turkish_plu.linking.table5_beside`."""
    steps = recall[recall["group"] == "all"].groupby(["system", "pool"])["n"].max()

    def of(row: Mapping[str, Any]) -> Deviations:
        system, pool = row["system"], row["pool"]
        bm25 = system.startswith("BM25")
        effective = {"bm25_tokens": system.removeprefix("BM25+ ")} if bm25 else {}
        return run.deviations(None if pool == "full" else "comparison", model=None if bm25 else system,
                              counts={"test steps": int(steps.get((system, pool), 0))}, **effective)
    return of


def rerank_labels(run: Run, recall: pd.DataFrame, first_stage: str) -> Callable[[Mapping[str, Any]], Deviations]:
    """The labels of one run (``system``, ``pool``) of the rerank recall table: the first stage's
    order of the candidate lists (``system`` = ``first_stage``: no model, reranker ``none``) or the
    LM's reordering of them (``system`` = its spec); the counts are its test steps. For
    :func:`culturelab.protocol.label_rows` and :func:`culturelab.turkish_plu.linking.beside_table5`."""
    steps = recall[recall["group"] == "all"].groupby(["system", "pool"])["n"].max()

    def of(row: Mapping[str, Any]) -> Deviations:
        system = row["system"]
        ours = system != first_stage
        return run.deviations("rerank", model=system if ours else None,
                              counts={"test steps": int(steps.get((system, row["pool"]), 0))},
                              reranker="zero-shot LM" if ours else "none", rerank_first_stage=first_stage)
    return of


def method_labels(run: Run, counts: Callable[[Mapping[str, Any]], dict[str, int]] | None = None
                  ) -> Callable[[Mapping[str, Any]], Deviations]:
    """The labels of one ``method`` of a notebook's rows: a language model's rows (``llm …``)
    compared with the notebook's part ``llm``, with their ``model`` (the run's when the row has
    none) and the decoding the method names (:data:`~culturelab.tasks.reorder.DECODING_LABELS`:
    constrained decoding is a deviation), any other method (a model-free baseline) with the
    notebook's section; ``counts`` of the row, when given, say how much of the release it used. For
    :func:`culturelab.protocol.label_rows`, :func:`figure_caption` and
    :func:`culturelab.turkish_plu.reordering.table6_so_beside`.

    >>> from culturelab.runner import Run
    >>> run = Run("turkish_plu/03_step_ordering", {"model": "hf:x", "decoding": ["free"]}, name="doctest")
    >>> [d.key for d in method_labels(run)({"method": "llm, " + DECODING_LABELS["constrained"]}).items]
    ['decoding']
    """
    def of(row: Mapping[str, Any]) -> Deviations:
        method = str(row["method"])
        lm = method.startswith("llm")
        model = row.get("model") if row.get("model") not in (None, "baseline") else run.params.get("model")
        named = [d for d, name in DECODING_LABELS.items() if lm and name in method]
        return run.deviations("llm" if lm else None, model=model if lm else None,
                              counts=counts(row) if counts is not None else None,
                              **({"decoding": named[0]} if named else {}))
    return of


#: where :meth:`culturelab.turkish_plu.data.Release.summarization` read its pairs → the data source of the run
SUMMARIZATION_SOURCES = {"local": "released", "download": "released", "example": "example", "sample": "sample"}


def summary_labels(run: Run, scores: pd.DataFrame) -> Callable[[Mapping[str, Any]], Deviations]:
    """The labels of one ``system`` (and ROUGE ``tokenizer``, and ROUGE-L ``metric``: our reading of
    Table 7's ROUGE-L) of the summarization notebook: lead-k
    (part ``lead``), the LM's zero-shot summaries (``zero-shot <spec>``: part ``llm``) and a
    predictions file's systems (the notebook's section; the system's name is its model, e.g.
    ``mBART PRO``); the counts are the pairs each system summarised (``scores``: ``system, id``)."""
    pairs = scores.groupby("system")["id"].nunique()

    def of(row: Mapping[str, Any]) -> Deviations:
        system = str(row["system"])
        part, model = (("lead", None) if system.startswith("lead-") else
                       ("llm", system.removeprefix("zero-shot ")) if system.startswith("zero-shot ") else (None, system))
        counts = {"test pairs": int(pairs.get(system, 0))} if run.params.get("split") == "test" else None
        variant = {"rouge_l": row["metric"]} if row.get("metric") in ROUGE_L else {}
        return run.deviations(part, model=model, counts=counts, rouge_tokenizer=row.get("tokenizer", PAPER_ROUGE),
                              **variant)
    return of


def figure_caption(run: Run, labels: Callable[[Mapping[str, Any]], Deviations], table: pd.DataFrame, by: list[str],
                   name: str = "method") -> str:
    """A short caption for a figure of several methods (or systems): the run's own data and
    protocol labels (:meth:`~culturelab.protocol.Deviations.caption`), then, per method, whether it follows the
    paper's protocol, is beyond the paper, or differs — naming the settings in which it differs
    beyond the run's own — from ``labels`` of each distinct ``by`` combination of ``table``. Each
    row's full labels are in the results tables.

    >>> import pandas as pd
    >>> from culturelab.runner import Run
    >>> run = Run("turkish_plu/02_mc_tasks", {"max_llm_instances": 8}, name="doctest")
    >>> run.set_data_source("released", dict(TEST_SETS.counts))
    >>> t = pd.DataFrame({"method": ["random", "majority (val)", "llm (sum)"], "task": "si", "id": 0,
    ...                   "model": ["baseline", "baseline", "hf:x"]})
    >>> print(figure_caption(run, mc_labels(run, t), t, ["task", "method", "model"]).replace(" · ", "\\n"))
    data: same
    protocol: same
    random: differs in baseline
    majority (val): differs in baseline
    llm (sum): beyond the paper (max_llm_instances)
    model hf:x: not one of the paper's (labels of each row: the results tables)
    """
    base = run.deviations()
    seen = {d.key for d in base.items}
    keys: dict[str, dict[str, None]] = {}
    beyond: set[str] = set()
    models: dict[str, None] = {}
    for row in table[by].drop_duplicates().to_dict("records"):
        d, method = labels(row), str(row[name])
        keys.setdefault(method, {}).update(dict.fromkeys(x.key for x in d.items if x.key not in seen
                                                         and not x.key.startswith("count:")))
        if d.beyond:
            beyond.add(method)
        if not is_same(d.model) and d.model_spec:
            models[f"model {d.model_spec}: not one of the paper's"] = None
    parts = [f"data: {base.data}", f"protocol: {base.protocol}"]
    for method, extra in keys.items():
        listed = ", ".join(extra)
        parts.append(f"{method}: " + (f"beyond the paper{f' ({listed})' if listed else ''}" if method in beyond
                                      else f"differs in {listed}" if listed else "as the paper"))
    return " · ".join([*parts, *models]) + " (labels of each row: the results tables)"


def reported_deviations(part: str) -> Deviations:
    """The labels of numbers drawn or derived from the paper's own (``DataUsed("reported")``).

    >>> reported_deviations("01_corpus.table8").caption()
    'data: same · protocol: same'
    """
    return compare(PROTOCOL[part], {}, DataUsed("reported"))


def released_deviations(part: str, counts: Mapping[str, int]) -> Deviations:
    """The labels of a result computed from release files other than the notebook's own data
    (``counts`` of what it read, keyed as the section's release), e.g. the corpus headlines of the
    summarization notebook, whose run reads the summarization set (or its stand-ins).

    >>> released_deviations("05_summarization.tokens", {"tutorials": 2009, "methods": 6720, "steps": 38481}).data
    'same'
    """
    return compare(PROTOCOL[part], {}, DataUsed("released", dict(counts)))


# ------------------------------------------------------------------ where the data is
def _needs(topic: str, params: Mapping[str, Any]) -> list[str]:
    tasks = list(params.get("tasks") or TASKS)
    return {"01_corpus": ["corpus"], "03_step_ordering": ["corpus"],
            "02_mc_tasks": ["corpus", *(f"{t}-{s}" for t in tasks for s in ("val", "test"))],
            "04_linking": ["hyperlinks", "translated-goals", "corpus"],
            "06_distractors": ["corpus", "goal-negatives", *(f"{t}-test" for t in tasks)]}.get(topic, ["corpus"])


def _train_splits(params: Mapping[str, Any]) -> str:
    """Why the train splits the fine-tuning asks for cannot be read (``""`` when they can)."""
    from culturelab.data import sources

    if params.get("train_dir"):
        folder = Path(params["train_dir"]).expanduser()
        return "" if folder.is_dir() else f"train_dir {folder} is not a folder"
    repos = [HF_MC[t] for t in params.get("tasks") or TASKS]
    if sources.hub_offline() and not all(sources.hf_cached(r, revision=v, allow_patterns=["*train*.csv"])
                                         for r, v in repos):
        return ("offline (HF_HUB_OFFLINE is set) and the train splits (mcemilg/turkish-plu-*) are not cached: "
                "give train_dir a copy of them")
    return ""


def _summarization(params: Mapping[str, Any]) -> DataUsed:
    from culturelab import config
    from culturelab.data import sources
    from culturelab.turkish_plu.data import Release as Files

    files = Files(params.get("data_dir", ""), params.get("data_source", "auto"), params.get("summ_dir", ""))
    try:
        source = files.summarization_source()
    except FileNotFoundError as err:
        return DataUsed("missing", note=str(err))
    if source == "local":
        return DataUsed("released", note=f"local copy at {files._summarization_copy()}")
    if source == "download":
        repo, revision = HF_SUMMARIZATION
        if sources.hub_offline() and sources.hf_cached(repo, revision=revision) is None:
            return DataUsed("missing", note=f"offline (HF_HUB_OFFLINE is set): {repo} cannot be downloaded")
        return DataUsed("released", note=f"{repo} from the hub ({HUB_SUMMARIZATION})")
    why = (f"no copy of the summarization set ({SUMMARIZATION.counts['test pairs']:,} test pairs of "
           f"{HF_SUMMARIZATION[0]}) under {config.data_dir(params.get('data_dir', ''))}/{SUBDIR}: put one there or "
           "pass summ_dir")
    example = config.data_dir(params.get("data_dir", "")) / SUBDIR / FILES["example-tutorial"].local
    if example.is_file():
        return DataUsed("example", note=f"{why}; pairs built with the paper's recipe from {example}")
    return DataUsed("sample", note=f"{why}; the release's example tutorial is downloaded when the network allows, "
                                   "else the pairs written by us")


def locate(topic: str, params: Mapping[str, Any]) -> DataUsed:
    """The data a Turkish PLU notebook's parameters will read, found without loading it: the
    release's files (a local copy under ``<data_dir>/turkish_plu``, else their download from
    GitHub at the pinned commits), ``missing`` (a ``local`` copy that is not there, or train splits
    that cannot be had), the summarization set or its stand-ins (``example``, ``sample``), and for
    linking the ``rebuilt`` pool (:data:`POOL_NOTE`).

    >>> locate("01_corpus", {"data_source": "local", "data_dir": "/nonexistent"}).source
    'missing'
    >>> locate("04_linking", {"data_source": "download", "data_dir": ""}).source
    'rebuilt'
    >>> [Path(f).name for f in locate("01_corpus", {"data_source": "auto", "data_dir": "/nonexistent"}).files]
    ['original-wikihow-tr-wikihow.json']
    """
    from culturelab import config

    if topic == "05_summarization":
        return _summarization(params)
    source = params.get("data_source", "auto")
    root = config.data_dir(params.get("data_dir", "")) / SUBDIR
    absent = [FILES[k].local for k in _needs(topic, params) if source == "download" or not (root / FILES[k].local).is_file()]
    if absent and source == "local":
        return DataUsed("missing", note=f"no local copy of {', '.join(absent)} under {root}: set CULTURELAB_DATA or "
                                        "data_dir, or use data_source 'download'")
    note = (f"downloaded from {GITHUB_URL} at its pinned commits (SHA-256 checked): {', '.join(absent)}" if absent
            else f"local copy under {root}")
    # each file it reads, with where it comes from when absent (`culturelab check` looks the URL up)
    files = {str(root / FILES[k].local): FILES[k].remote().url for k in _needs(topic, params)}
    if topic == "02_mc_tasks" and params.get("run_finetune") and (
            params.get("finetune_split") == "train" or (params.get("finetune_split") == "auto" and params.get("train_dir"))):
        why = _train_splits(params)
        if why:
            return DataUsed("missing", note=why)
    if topic == "04_linking":
        return DataUsed(REBUILT_POOL, note=f"{POOL_NOTE}; {note}", files=files)
    return DataUsed("released", note=note, files=files)
