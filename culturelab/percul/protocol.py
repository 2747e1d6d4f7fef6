"""PERCUL's protocol as data (§3–4, Figure 9, Tables 1, 3 and 5), for :func:`culturelab.protocol.compare`.

Every label of a PERCUL table, figure, coverage row and profile row comes from the comparison of
a run with these sections; ``culturelab check`` prints it and a ``protocol: paper`` file refuses
to run while it is not empty.

The paper states its data (the release, 592 stories in 11 categories, Table 1), its prompt
(Figure 9, printed), its decoding (§4: temperature 0, models "allowed to generate up to their
maximum generation length") and its metric (macro accuracy, Table 3). It prints no parser and no
prompt for the translated split (§4.2). Where it is silent, the value below is **our reading,
declared as such** in its ``cite``. Each notebook's generation section is the paper's protocol;
its ``.loglikelihood`` part is our option log-likelihood scoring (no token budget, no JSON
instruction, no parser), always a deviation of method. Results on the English split always
deviate: the English prompt is ours, and its label says whether it keeps Figure 9's "Your
answer must be in Persian" (:func:`split_settings`).

>>> from culturelab.protocol import compare
>>> d = compare(PROTOCOL["01_benchmark"], {"method": "generate", "max_new_tokens": 40, "stop_after_json": True},
...             locate("01_benchmark", {"data_source": "sample", "data_dir": ""}))
>>> d.lines()
["data: sample data (ours, not the paper's)", 'protocol: 40 new tokens (the paper: at least 1024, §4)', 'protocol: stopped at the closing JSON brace (the paper: no early stop, §4)']
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from culturelab import reported
from culturelab.percul.data import CATEGORIES, REPO_ID, SPLITS, find_split_file
from culturelab.percul.parsing import LENIENT_RULE, STRICT_RULE
from culturelab.protocol import DataUsed, Deviations, Release, Section, Setting, compare, is_same, label_rows

PERSIAN, ENGLISH = SPLITS
#: the release (teias-ai/percul on the hub, gated): 592 stories (Table 1; the card: 592 rows per split),
#: each of the 11 categories with Table 1's count (:func:`release_counts` stamps how many match)
RELEASE = Release(f"PERCUL ({REPO_ID}, gated)", {"stories": 592, "categories sized as in Table 1": len(CATEGORIES)},
                  "Table 1", f"https://huggingface.co/datasets/{REPO_ID}")
#: the chance level of a four-option question
CHANCE = 0.25
#: §4: "allowed to generate up to their maximum generation length"; a limit of at least this many
#: new tokens, with no early stop, counts as that (a Figure 9 answer is a short JSON object)
PAPER_MAX_NEW_TOKENS = 1024

_STORIES = Setting(0, "Table 1: all 592 stories", what="max_instances {}", kind="data")
_GENERATED = "the paper: generated answers, §4"
_METHOD = {
    # the paper's method is generation (§4); our option log-likelihood scoring runs beside it
    "method": Setting("generate", "§4", describe=lambda v: "option log-likelihood"
                      f"{'' if v == 'loglikelihood' else f' ({v})'} instead of generation ({_GENERATED})"),
    "methods": Setting(["generate"], "§4", accept=lambda v: "generate" in v,
                       describe=lambda v: f"methods {', '.join(v)} without generation ({_GENERATED})"),
}
_PROMPT = {
    # Figure 9 as printed; its {CAT} word is attested for Appropriacy only (Figure 12): the other ten are our reading
    "prompt_version": Setting("v1", "Figure 9 ({CAT} words: Appropriacy's attested, Figure 12; the other ten ours)",
                              what="prompt {}", describe=lambda v: f"prompt {v} (the paper: Figure 9 as printed, v1)",
                              reading="its {CAT} word is ours for ten of the eleven categories"),
    # §4.2: the translated split (Table 5 † rows); the paper does not print its English prompt
    "split": Setting(PERSIAN, "§4", describe=lambda v: "the English split asked with our English prompt, Figure 9 "
                     "translated by us (the paper's prompt for its translated split is not published, §4.2)"),
}
_ANSWER_LANGUAGE = {
    False: "without 'Your answer must be in Persian' (the paper: Figure 9 keeps it)",
    "kept": "the English prompt keeps Figure 9's 'Your answer must be in Persian'",
    "dropped": "the English prompt drops Figure 9's 'Your answer must be in Persian'",
}
_GENERATION = {
    # Figure 9's response instruction; on the English split :func:`split_settings` passes "kept"/"dropped"
    "answer_in_persian": Setting(True, "Figure 9", accept=lambda v: v is True,
                                 describe=lambda v: _ANSWER_LANGUAGE[v]),
    # §4: temperature 0 (hard-coded in scoring.run_generation), up to the maximum generation length
    "max_new_tokens": Setting(PAPER_MAX_NEW_TOKENS, "§4", what="{} new tokens", at_least=True),
    "stop_after_json": Setting(False, "§4", describe=lambda v: "stopped at the closing JSON brace "
                               "(the paper: no early stop, §4)"),
    # inferred from Table 5 (every cell is k/n_c with n_c from Table 1, PersianMind's refusals included):
    # unparseable answers are wrong
    "invalid_policy": Setting("wrong", "Table 5 (k/n_c cells)", describe=lambda v: "unparseable answers excluded "
                              "(the paper counts them wrong, Table 5)"),
    # the paper prints no parser; our reading (spec §2.3): the JSON "Choice Number" only; a lone number or
    # the option text is the spec's "last resort", off. The key of the parsers' lenient mode (percul.parsing)
    "lenient": Setting(False, f"§4 prints no parser (our reading, spec §2.3: {STRICT_RULE} only)",
                       describe=lambda v: f"answers also read leniently: {LENIENT_RULE} (our reading of the paper, "
                                          f"which prints no parser: {STRICT_RULE} only)",
                       what="strict parsing", reading="the paper prints no parser"),
}
_GENERATE = {"max_instances": _STORIES, **_METHOD, **_PROMPT, **_GENERATION}
_LOGLIK = {"max_instances": _STORIES, **_METHOD, **_PROMPT}
#: the effective setting of every number built on distractor rules (Figures 8 and 16, lure rates): the
#: paper's per-option labels (Figure 11's rules R1–R6, UA) are not released, so whichever labels a run
#: reads (``distractor_rules.csv``, ours on the sample) are a deviation
_RULES = {"rule_labels": Setting("the paper's", "§4.3 (the per-option rule labels are not released)",
                                 accept=lambda v: False,
                                 describe=lambda v: f"distractor rules from {v}, not the paper's (not released, §4.3)")}

#: §4 and its footnote 1 name the models without versions or snapshot dates: a dated snapshot of a
#: model is matched by its name, and every paper-model label says the version is unknown
MODEL_NOTE = "the paper gives no model versions (§4): matched by name"

PROTOCOL: dict[str, Section] = {
    "01_benchmark": Section("§4, Figure 9, Tables 1 and 3", RELEASE, _GENERATE),
    "01_benchmark.loglikelihood": Section("ours: the Figure 9 question, options scored by log-likelihood", RELEASE,
                                          _LOGLIK),
    "02_models_and_categories": Section("§4.1, Figures 4, 5 and 15, Table 5", RELEASE, _GENERATE),
    "02_models_and_categories.loglikelihood": Section("ours, beside Figures 4, 5 and 15", RELEASE, _LOGLIK),
    "03_translation": Section("§4.2, Figure 7, Table 5 † rows", RELEASE, _GENERATE),
    "03_translation.loglikelihood": Section("ours, beside Figure 7", RELEASE, _LOGLIK),
    # Figures 8 and 16 also need the per-option rule labels, which the release does not have (coverage.csv)
    "04_distractors": Section("§4.3, Figures 8 and 16", RELEASE, {**_GENERATE, **_RULES}),
    "04_distractors.loglikelihood": Section("ours, beside Figures 8 and 16", RELEASE, {**_LOGLIK, **_RULES}),
    "05_robustness": Section("ours", RELEASE, {"max_instances": _STORIES},
                             beyond="every story under several option orders, by option log-likelihood"),
}
PROTOCOL = {key: replace(section, model_note=MODEL_NOTE) for key, section in PROTOCOL.items()}


@functools.cache
def _model_ids() -> dict[str, str]:
    """Hub/API id (lower case, organisation and date suffix removed) → Table 5 name."""
    t = reported.load("percul", "model_ids")
    return dict(zip(t["id"], t["model"]))


def paper_name(spec: str) -> str | None:
    """The Table 5 row of a model spec we ran, if the paper evaluated that model.

    >>> paper_name("hf:meta-llama/Llama-3.1-8B-Instruct"), paper_name("openai:gpt-4o-2024-08-06")
    ('Llama 3.1 8B', 'GPT 4o')
    >>> paper_name("bundled:gemma3-270m") is None
    True
    """
    name = str(spec).split("#")[-1].split(":", 1)[-1].rstrip("/").split("/")[-1].lower()
    name = re.sub(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest|\d{3})$", "", name)
    return _model_ids().get(name)


#: the paper's models: a spec → its Table 5 row (``reported/percul/model_ids.csv``)
MODELS = paper_name


def split_settings(split: str, answer_in_persian: bool) -> dict[str, Any]:
    """The effective prompt settings of results on ``split``, for :meth:`culturelab.runner.Run.deviations`:
    on the English split the label says whether our English prompt keeps Figure 9's "Your answer
    must be in Persian" (the paper does not say what its † runs asked, §4.2).

    >>> split_settings("gpt_english_translation", True)
    {'split': 'gpt_english_translation', 'answer_in_persian': 'kept'}
    >>> split_settings("original_persian", False)
    {'split': 'original_persian', 'answer_in_persian': False}
    """
    if split == PERSIAN:
        return {"split": split, "answer_in_persian": answer_in_persian}
    return {"split": split, "answer_in_persian": "kept" if answer_in_persian else "dropped"}


def results_of(run: Any) -> Callable[[Mapping[str, Any]], Deviations]:
    """The comparison of one group of a PERCUL results table with the paper, for
    :func:`culturelab.protocol.label_rows` and :func:`culturelab.percul.paper.beside_paper`: the
    group's ``method`` (``generate``, else the ``.loglikelihood`` part; default: the notebook's
    ``method``), ``split`` (default: the notebook's, else Persian, through :func:`split_settings`)
    and any other column (``model``: a spec) as effective settings.

    >>> from culturelab.runner import Run
    >>> run = Run("percul/03_translation", {"model": "bundled:gemma3-270m", "method": "generate",
    ...           "max_new_tokens": 1024, "stop_after_json": False, "answer_in_persian": True}, name="doctest")
    >>> run.set_data_source("released", counts={"stories": 592, "categories sized as in Table 1": 11})
    >>> of = results_of(run)
    >>> of({"split": "original_persian", "model": "hf:meta-llama/Llama-3.1-8B-Instruct"}).comparable
    True
    >>> of({"split": "gpt_english_translation"}).protocol.split("; ")[1]
    "the English prompt keeps Figure 9's 'Your answer must be in Persian'"
    >>> of({"method": "loglik-text-mean"}).protocol
    'option log-likelihood (loglik-text-mean) instead of generation (the paper: generated answers, §4)'
    """
    params = run.params

    def of(group: Mapping[str, Any]) -> Deviations:
        effective = dict(group)
        method = str(effective.pop("method", params.get("method", "generate")))
        split = str(effective.pop("split", params.get("split", PERSIAN)))
        part = None if method == "generate" else "loglikelihood"
        prompt = split_settings(split, bool(params.get("answer_in_persian", True)))
        return run.deviations(part, method=method, **prompt, **effective)

    return of


def label(run: Any, table: Any, by: tuple[str, ...] = ("model", "method", "split"), **fixed: Any) -> Any:
    """``table`` with the label columns of each group's comparison with the paper
    (:func:`results_of`; :data:`culturelab.protocol.LABEL_COLUMNS`), one comparison per distinct
    value of the ``by`` columns it has; ``fixed`` settings hold for every row (e.g.
    ``split="gpt_english_translation"`` for a Persian → English gap, which rests on both splits).

    >>> import pandas as pd
    >>> from culturelab.runner import Run
    >>> run = Run("percul/02_models_and_categories", {"model": "bundled:gemma3-270m", "method": "loglikelihood"},
    ...           name="doctest")
    >>> run.set_data_source("sample")
    >>> label(run, pd.DataFrame({"model": ["bundled:gemma3-270m"], "macro": [0.3]}))["protocol"].item()[:43]
    'option log-likelihood instead of generation'
    """
    of = results_of(run)
    return label_rows(table, lambda group: of({**fixed, **group}), [c for c in by if c in table])


def paper_numbers() -> Deviations:
    """The labels of what a notebook draws from the paper's own published numbers (Tables 1, 3,
    5, Figure 16): the paper's data and protocol, no model of ours.

    >>> paper_numbers().caption()
    'data: same · protocol: same'
    """
    return compare(None, {}, DataUsed("reported"))


def method_name(method: str) -> str:
    """How a PERCUL result was scored, in words (figures name it beside the paper's numbers).

    >>> method_name("generate"), method_name("loglik-text-mean")
    ('generation', 'option log-likelihood (loglik-text-mean)')
    """
    if method == "generate":
        return "generation"
    return "option log-likelihood" + ("" if method == "loglikelihood" else f" ({method})")


def figure_caption(ours: Mapping[str, Deviations] | None = None, paper: str = "", *, paper_note: str = "") -> str:
    """The caption of a PERCUL figure: the paper's numbers it redraws (``paper``: which table or
    figure; generated answers, §4) and our results beside them — ``ours`` maps what a reader
    tells apart in the figure (a method, :func:`method_name`; a split) to its comparison with the
    paper (:func:`results_of`): the data and the model once, the protocol of each. A comparison
    without a model (several models in one figure) says the legend names them. ``paper_note``
    says what the figure adds to the paper's numbers (e.g. intervals the paper does not print).

    >>> figure_caption(paper="Table 3")
    'paper: Table 3 as published (generated answers, §4)'
    >>> figure_caption(paper="Table 5", paper_note="intervals ours")
    'paper: Table 5 as published (generated answers, §4; intervals ours)'
    >>> figure_caption({method_name("loglikelihood"): paper_numbers()}, paper="Table 5")
    'paper: Table 5 as published (generated answers, §4) | ours — data: same · models: as labelled · protocol: [option log-likelihood] same'
    """
    note = f"; {paper_note}" if paper_note else ""
    parts = [f"paper: {paper} as published (generated answers, §4{note})"] if paper else []
    if ours:
        first = next(iter(ours.values()))
        model = ("models: as labelled" if first.model_spec is None else f"model: {first.model_spec}"
                 + ("" if is_same(first.model) else " (not one of the paper's)"))
        protocols = " ".join(f"[{what}] {d.protocol}" for what, d in ours.items())
        parts.append(f"ours — data: {first.data} · {model} · protocol: {protocols}")
    return " | ".join(parts)


def release_counts(stories: int, categories_as_table1: int) -> dict[str, int]:
    """The counts a run stamps (keys as :data:`RELEASE`'s): the stories it used, and how many of
    the 11 categories of the copy it read hold Table 1's number of stories.

    >>> compare(PROTOCOL["05_robustness"], {}, DataUsed("released", release_counts(20, 11))).data
    '20 of 592 stories'
    >>> compare(PROTOCOL["05_robustness"], {}, DataUsed("released", release_counts(592, 10))).data
    '10 of 11 categories sized as in Table 1'
    """
    return {"stories": stories, "categories sized as in Table 1": categories_as_table1}


def locate(topic: str, params: Mapping[str, Any]) -> DataUsed:
    """The data a PERCUL notebook's parameters will read, found without loading it: our sample,
    the local copy (``data_dir`` or ``$CULTURELAB_DATA/percul``; the note says where), the gated
    release to download, or the release that is missing (the note says how to get it).

    >>> locate("01_benchmark", {"data_source": "sample"}).source
    'sample'
    >>> locate("01_benchmark", {"data_source": "auto", "data_dir": "/nonexistent"}).source
    'missing'
    >>> import os, unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_DATA": "/nonexistent"}):
    ...     locate("01_benchmark", {"data_source": "auto", "data_dir": ""}).note
    'no copy of the gated release (https://huggingface.co/datasets/teias-ai/percul) under /nonexistent/percul, so `auto` uses our sample'
    """
    from pathlib import Path

    from culturelab import config

    source = params.get("data_source", "auto")
    if source == "sample":
        return DataUsed("sample")
    folder = Path(params["data_dir"]).expanduser() if params.get("data_dir") else config.data_dir() / "percul"
    if folder.is_dir() and find_split_file(folder, PERSIAN) is not None:
        return DataUsed("released", note=str(folder))
    if source == "download":
        return DataUsed("released", note=f"downloaded from {RELEASE.url} (gated: needs HF_TOKEN)")
    if source == "auto" and not params.get("data_dir"):
        return DataUsed("sample", note=f"no copy of the gated release ({RELEASE.url}) under {folder}, so `auto` "
                                       "uses our sample")
    return DataUsed("missing", note=f"no copy of the release under {folder}; put {RELEASE.url} (gated) there or set "
                                    "data_source: download")
