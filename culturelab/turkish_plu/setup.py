"""Allowed parameter values of the Turkish PLU notebooks, in one place, and their one entry
point :func:`open`.

``culturelab check``, ``culturelab run`` and ``start_run`` apply :data:`CHOICES` (keys shared by
the notebooks), :data:`NOTEBOOK_CHOICES` (per-notebook overrides) and :func:`check` (rules that tie
several keys) before any data or model is loaded.

>>> from culturelab.params import check_choices
>>> check_choices({"tasks": ["gi", "xx"], "max_steps": 30}, CHOICES)
["tasks: ['xx'] not allowed; choose from gi, si, so, nep", 'max_steps: must be between 2 and 26, got 30']
>>> check("03_step_ordering", {"min_steps": 8, "max_steps": 6})
['min_steps: must be ≤ max_steps (8 > 6)']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from culturelab import prompts
from culturelab.data.sources import DATA_SOURCES
from culturelab.params import Choice, in_range, one_of
from culturelab.parsing import LETTERS
from culturelab.tasks.reorder import DECODINGS, POLICIES
from culturelab.turkish_plu.data import FINETUNE_INPUTS, FINETUNE_SPLITS, SUMMARIZATION_SPLITS, TASKS, Release
from culturelab.turkish_plu.mc import MC_TEMPLATES, NORMALISATIONS
from culturelab.turkish_plu.rerank import INSERT_AFTER

if TYPE_CHECKING:
    from culturelab.runner import Run

PAPER = "turkish_plu"
#: the notebooks that can run on a sample (``data_source`` ``sample``, or ``auto`` without a local copy)
SAMPLE_NOTEBOOKS = ("05_summarization",)
#: the release's files have a local copy or a verified download, but no sample
RELEASE_SOURCES = tuple(s for s in DATA_SOURCES if s != "sample")
#: the 4-option tasks (step ordering has 2 options, so it has no distractor ranks)
FOUR_WAY = tuple(t for t in TASKS if t != "so")


def _versions(*templates: str) -> list[str]:
    """The prompt versions every one of ``templates`` has."""
    common = set.intersection(*(set(prompts.versions(PAPER, t)) for t in templates))
    return sorted(common)


_COUNT = in_range(0, 10**6)

CHOICES: dict[str, Choice] = {
    "data_source": one_of(RELEASE_SOURCES),
    "tasks": one_of(TASKS),
    "normalisations": one_of(NORMALISATIONS),
    "normalisation": one_of(NORMALISATIONS),
    "policy": one_of(POLICIES),
    "decoding": one_of(DECODINGS),
    "split": one_of(SUMMARIZATION_SPLITS),
    "min_steps": in_range(2, len(LETTERS)),
    "max_steps": in_range(2, len(LETTERS)),
    "bm25_prefix": in_range(0, 20),
    "max_queries": _COUNT,
    "n_dense_queries": _COUNT,
    "dense_pool_size": _COUNT,
    "n_rerank_queries": _COUNT,
    "rerank_depth": in_range(INSERT_AFTER + 1, 1000),
    "finetune_split": one_of(("auto", *FINETUNE_SPLITS)),
    "finetune_input": one_of(FINETUNE_INPUTS),
    "finetune_epochs": in_range(1, 1000),
    "finetune_layers": in_range(0, 1000),
    "finetune_seeds": in_range(1, 100),
    "finetune_batch_size": in_range(1, 4096),
    "finetune_lr": lambda lr: None if 0 < lr < 1 else f"must be between 0 and 1, got {lr}",
    "lead_ks": lambda ks: None if all(k >= 1 for k in ks) else f"every k must be ≥ 1, got {list(ks)}",
}

NOTEBOOK_CHOICES: dict[str, dict[str, Choice]] = {
    "02_mc_tasks": {"prompt_version": one_of(_versions(*MC_TEMPLATES))},
    "03_step_ordering": {"prompt_version": one_of(_versions("reorder"))},
    "04_linking": {"prompt_version": one_of(_versions("rerank"))},
    "05_summarization": {"data_source": one_of(DATA_SOURCES), "prompt_version": one_of(_versions("summarize"))},
    "06_distractors": {"tasks": one_of(FOUR_WAY), "prompt_version": one_of(_versions(*MC_TEMPLATES))},
}


def check(topic: str, params: Mapping[str, Any]) -> list[str]:
    """Rules that tie several parameters: ``min_steps`` ≤ ``max_steps``.

    >>> check("03_step_ordering", {"min_steps": 5, "max_steps": 10})
    []
    """
    if "min_steps" in params and "max_steps" in params and params["min_steps"] > params["max_steps"]:
        return [f"min_steps: must be ≤ max_steps ({params['min_steps']} > {params['max_steps']})"]
    return []


def finetune_split(split: str, train_dir: str = "") -> str:
    """The split the fine-tuned rows train on: ``auto`` is ``train`` when a copy of the train
    splits is given (``train_dir``), else ``val`` (the released validation split); ``val`` and
    ``train`` are taken as they are (``train`` without a copy reads the hub re-upload).

    >>> finetune_split("auto"), finetune_split("auto", "/data/plu-train"), finetune_split("val", "/data/plu-train")
    ('val', 'train', 'val')
    """
    if split not in ("auto", *FINETUNE_SPLITS):
        raise ValueError(f"finetune_split must be auto or one of {FINETUNE_SPLITS}, not {split!r}")
    return ("train" if train_dir else "val") if split == "auto" else split


#: the language-model section of each notebook: what it asks of the model and its name
LM_SECTIONS = {"02_mc_tasks": ("loglikelihood", "zero-shot LM scoring"),
               "03_step_ordering": ("generate", "LM reordering"),
               "04_linking": ("loglikelihood", "LM reranking"),
               "05_summarization": ("generate", "zero-shot LM summaries"),
               "06_distractors": ("loglikelihood", "LM scoring of the distractor items")}


def lm_section(run: Run) -> bool:
    """Whether the notebook's language-model section runs: ``run_llm`` is on and the model can
    answer what the section asks (:data:`LM_SECTIONS`; when it cannot — e.g. generation with a
    masked LM, log-probabilities from the OpenAI API — the run says so in one line, records the
    skip and the notebook goes on without the section)."""
    if not run.params.get("run_llm", False):
        return False
    kind, section = LM_SECTIONS[run.notebook.rsplit("/", 1)[-1]]
    return run.supports(kind, section)


def open(run: Run) -> Release:
    """The release as the notebook's parameters ask for it (``data_dir``, ``data_source``,
    ``summ_dir``), with where the data comes from stamped on ``run``
    (:func:`culturelab.turkish_plu.protocol.locate`, nothing loaded): ``released`` (a local copy,
    or the files downloaded from GitHub), ``rebuilt`` for linking (the release's steps, our
    candidate pool), ``example``/``sample`` for summarization without a copy of its test split.
    A release that is asked for and missing stops here, saying what to do. Files are read on
    demand through the returned :class:`~culturelab.turkish_plu.data.Release`; the notebooks
    stamp the counts they use with :func:`stamp_counts` once they have restricted the data."""
    from culturelab.turkish_plu.protocol import locate

    p = run.params
    used = locate(run.notebook.rsplit("/", 1)[-1], p)
    if used.source == "missing":
        raise FileNotFoundError(used.note)
    run.set_data_source(used.source, note=used.note)
    return Release(p.get("data_dir", ""), p.get("data_source", "auto"), p.get("summ_dir", ""))


def stamp_counts(run: Run, counts: dict[str, int] | None = None, source: str | None = None, note: str = "") -> None:
    """Stamp on ``run`` the counts of the data it actually uses (keys of the paper's release in
    :mod:`culturelab.turkish_plu.protocol`: a release cut down by a size knob is then a subset,
    never the paper's data) and, when the data turned out to come from elsewhere, its ``source``
    (and a ``note`` on it)."""
    used = run.data_used
    run.set_data_source(source or used.source, counts=counts, note=note or used.note)
