"""CAPTEx's protocol as data (§3–4, Tables 2–5, footnotes 4 and 6), for :func:`culturelab.protocol.compare`.

Every label of a CAPTEx table, figure and coverage row comes from the comparison of a run with
these sections; ``culturelab check`` prints it and a ``protocol: paper`` file refuses to run
while it is not empty.

The paper states its data (the release: 700 procedures in English and one native language,
5,600 MCQs, 700 conversations), its tasks and answer formats (§3.2), its metrics and aggregate
weights (footnotes 4 and 6) and its models (Table 4). It prints no prompt, decoding budget,
parser, invalid-answer rule, L_max, ρ/τ normalisation, BERTScore backbone or similarity model.
Where it is silent, the value below is **our reading, declared as such** in its ``cite``:
``same`` means "as the paper states it, and our declared reading where it states nothing". Two
silences cannot be read away, because any choice moves the numbers by tens of points: the
BERTScore backbone (``bertscore_backbone``) and the similarity model (``ss_encoder``) are a
deviation of every BERTScore and SS number, always (the ``04_cbqa.<metric>`` parts label one
metric's numbers: ROUGE-L carries neither). Token budgets the paper does not give are set so
that no answer of the length the paper asks for is cut (:data:`BUDGETS`; reasoning models get
:data:`REASONING_TOKENS` more, :func:`budget_for`). Where the release has no CB-MCQ options we
build them: :func:`locate` (before a run) and :func:`cb_mcq_options` (in it) report that as
the data's own setting ``cb_mcq_options``, so ``culturelab check`` lists it.

>>> from culturelab.protocol import compare
>>> d = compare(PROTOCOL["04_cbqa"], {"max_reply_tokens": 48, "max_procedures": 0, "ss_encoder": "bundled:minilm"},
...             locate("04_cbqa", {"data_source": "sample", "data_dir": ""}))
>>> d.lines()[0], d.lines()[1][:42], d.lines()[2][:35]
("data: sample data (ours, not the paper's)", 'protocol: CB-QA replies cut at 48 new toke', 'protocol: SS as cosine of bundled:m')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from culturelab.captex import data as cx
from culturelab.protocol import DataUsed, Deviations, Release, Section, Setting, compare
from culturelab.tasks.reorder import decoding_setting

#: the release (footnote 1: AmirHossein2002/CAPTex on the hub, CC BY-NC 4.0): §3.1 (100 procedures
#: per country, 700 in all, each in English and the native language), §3.2 (5,600 MCQs), §3.3
#: (700 conversations); ``reported/captex/dataset.csv`` holds the same sizes
RELEASE = Release(f"CAPTEx ({cx.REPO_ID}, {cx.LICENSE})", {"procedures": 700, "mcqs": 5600, "conversations": 700},
                  "§3.1–3.3", cx.HUB_URL)

#: Token budgets. The paper gives none (§4.1 names no decoding setting); ours are set so that no
#: answer of the length the paper asks for is cut: reordering — the longest answer, the ten
#: letters "A, B, …, J" (§3.2; at most 10 steps, §3.1), is 28 characters (20 Gemma-3 tokens);
#: MCQ — "only the correct choice option" (§3.2): a letter, or a letter with its option written
#: out, whose mean length reaches 26 words (Table 3: China, English incorrect options; 25.8 words
#: in Persian), ≈ 50 tokens; CB-QA — Person B's fourth utterance, 23.6–34.3 words on average
#: (Table 3), ≈ 45 tokens. Each budget has room for twice the longest of these
#: (tests/captex/test_protocol.py counts them with the bundled tokenizer). A reasoning model
#: (:func:`is_reasoning`) writes its reasoning first and would have it cut there, its answer never
#: reached: :func:`budget_for` gives it :data:`REASONING_TOKENS` more.
BUDGETS = {"max_reorder_tokens": 64, "max_answer_tokens": 128, "max_reply_tokens": 256}
#: room for the reasoning of a reasoning model before its answer (the spec's proposal, §4: 2048
#: new tokens for the R1 distills and o3-mini; the paper gives no budget, §4.1)
REASONING_TOKENS = 2048
#: the reasoning models of Table 4 (DeepSeek-R1 distills, o3-mini) and their kin, by model id
_REASONING = re.compile(r"deepseek-r1|r1-distill|qwq|(?:^|[:/#])o[134](?:-mini|-pro)?(?:$|[-@/])", re.I)


def is_reasoning(spec: str) -> bool:
    """Whether a model spec names a reasoning model, which writes a ``<think>`` block (or hidden
    reasoning tokens) before its answer.

    >>> [is_reasoning(s) for s in ("hf:deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "openai:o3-mini",
    ...                            "hf:Qwen/Qwen2.5-7B-Instruct", "bundled:gemma3-270m", "openai:gpt-5-mini")]
    [True, True, False, False, True]
    """
    from culturelab.models.openai_api import is_openai_reasoning

    spec = spec or ""
    return bool(_REASONING.search(spec)) or (spec.startswith("openai:") and is_openai_reasoning(spec[len("openai:"):]))


def budget_for(spec: str, tokens: int) -> int:
    """The new-token budget a model gets for an answer budget of ``tokens``: ``tokens``, plus
    :data:`REASONING_TOKENS` for a reasoning model (its reasoning comes first and is stripped
    before parsing, :func:`culturelab.parsing.strip_think`).

    >>> budget_for("hf:deepseek-ai/DeepSeek-R1-Distill-Llama-8B", 64), budget_for("hf:Qwen/Qwen2.5-7B", 64)
    (2112, 64)
    """
    return tokens + (REASONING_TOKENS if is_reasoning(spec) else 0)
_BUDGET_CITES = {
    "max_reorder_tokens": ("reordering answers", "room for the ten letters A–J twice, §3.1–3.2"),
    "max_answer_tokens": ("MCQ answers", "room for a letter and an option twice the longest mean length, Table 3"),
    "max_reply_tokens": ("CB-QA replies", "room for a 4th utterance twice the longest mean length, Table 3"),
}


def _budget(key: str) -> Setting:
    what, room = _BUDGET_CITES[key]
    return Setting(BUDGETS[key], f"§4.1 gives no budget; reasoning models get {REASONING_TOKENS} more", at_least=True,
                   describe=lambda v: f"{what} cut at {v} new tokens (the paper gives none; ours: at least "
                                      f"{BUDGETS[key]}, {room}; reasoning models {REASONING_TOKENS} more)")


def _names(what: str, paper: str) -> Setting:
    return Setting([], paper, kind="data",
                   describe=lambda v: f"{what} {', '.join(map(str, v))} only (the paper: all, {paper})")


_DATA = {
    "countries": _names("countries", "Table 2: seven countries"),
    "categories": _names("categories", "§3.1: ten categories"),
    "max_procedures": Setting(0, "§3.1: 700 procedures", what="max_procedures {}", kind="data"),
}
_LANGUAGES = {"languages": Setting("both", "§3.2: English and native", kind="data",
                                   describe=lambda v: f"{'English' if v == 'en' else 'native'} items only (the paper: "
                                                      "English and native, §3.2)")}
_PROMPT = {"prompt_version": Setting(
    "v1", "§3.2 prints no prompt; v1 is our reconstruction of its instructions (culturelab/prompts/captex.yaml)",
    describe=lambda v: f"prompt {v} (the paper prints none; our reading of its §3.2 instructions is v1)")}
_REORDER = {
    **_PROMPT, "max_reorder_tokens": _budget("max_reorder_tokens"),
    # §3.2 says nothing of invalid orders; ours: ρ = τ = 0, LD on the letters parsed (spec §2, Task 1)
    "invalid_policy": Setting("zero", "§3.2 (invalid orders: not stated; our reading: ρ = τ = 0)",
                              describe=lambda v: f"invalid orders scored by '{v}' (our reading of the paper: "
                                                 "'zero', ρ = τ = 0; §3.2 says nothing)"),
    # §3.2: the model writes "a comma-separated list of the letters"; nothing restricts what it may write
    "decoding": decoding_setting("§3.2 Task 1"),
}
_GENERATED = "the paper: a generated letter, 'only the correct choice option', §3.2"
_MCQ = {
    **_PROMPT, "max_answer_tokens": _budget("max_answer_tokens"),
    "methods": Setting(["generate"], "§3.2", accept=lambda v: "generate" in v,
                       describe=lambda v: f"MCQs by {', '.join(v)} only ({_GENERATED})"),
    "method": Setting("generate", "§3.2", describe=lambda v: f"option log-likelihood instead of generation "
                                                             f"({_GENERATED})"),
}
_CB_BUILT = ("CB-MCQ options built by us (culturelab.captex.construction.cb_mcq_options: the next step and three "
             "steps the conversation has not narrated), not the paper's")
_CB_WHY = {"generated": "Conversations.csv has none",
           "unknown": "until the release is downloaded we cannot tell whether its Conversations.csv has them"}
#: where the CB-MCQ options come from — a setting of the data (:func:`locate`, :func:`cb_mcq_options`):
#: ``file`` (the release's own), ``generated`` (ours) or ``unknown`` (the release is not downloaded yet)
_CB_OPTIONS = {"cb_mcq_options": Setting(
    "file", "§3.2 Task 3", describe=lambda v: f"{_CB_BUILT}: {_CB_WHY.get(v, v)} (§3.2 Task 3: 'the same answer "
                                              "choices as PB-MCQ')")}
_CBQA = {
    **_PROMPT, "max_reply_tokens": _budget("max_reply_tokens"),
    "rouge_stemmer": Setting(True, "§3.2 (ROUGE-L, Lin 2004; stemming not stated: our reading, Porter stemmer)",
                             describe=lambda v: "ROUGE-L without stemming (our reading of the paper: Porter stemmer)"),
    # the reference is utterance 4 without its 'Next step: N' line (data.read_conversations): the paper's
    # generation prompt asks for that line (App. A.4), its scoring does not say whether it is kept
    "reference_marker": Setting("stripped", "§3.2, App. A.4 (not stated; our reading: stripped)",
                                describe=lambda v: f"the 'Next step: N' marker {v} in the CB-QA reference (our "
                                                   "reading of the paper: stripped; §3.2 does not say)"),
}
#: the CB-QA encoders: the paper names neither, so every BERTScore and SS number deviates, always
_BERTSCORE = {
    "bertscore_backbone": Setting(None, "§3.2", accept=lambda v: False,
                                  describe=lambda v: f"BERTScore on {v} (the paper names no backbone, §3.2)"),
    "bertscore_rescale": Setting(False, "§3.2 (rescaling not stated; our reading: none)",
                                 describe=lambda v: "BERTScore rescaled by a baseline of this data (our reading of "
                                                    "the paper: no rescaling; §3.2 does not say)"),
}
_SS = {"ss_encoder": Setting(None, "§3.2", accept=lambda v: False,
                             describe=lambda v: f"SS as cosine of {v} embeddings (the paper names no model, §3.2)")}
_AGGREGATE = {
    "tasks": Setting(["reorder", "pb_mcq", "cb_mcq", "cb_qa"], "footnote 6: all four tasks",
                     accept=lambda v: {"reorder", "pb_mcq", "cb_mcq", "cb_qa"} <= set(v),
                     describe=lambda v: f"tasks {', '.join(v)} only (the paper: all four, footnote 6)"),
    "mcq_method": Setting("generate", "§3.2", describe=lambda v: f"aggregates on MCQs by {v} ({_GENERATED})"),
    # footnotes 4/6 leave ρ/τ normalisation and L_max open; raw ρ, τ with L_max = 5.59 (the largest LD
    # of Table 4) is the reading that gives the order the paper describes for Fig. 8 (spec §3)
    "norm_scheme": Setting("raw", "footnotes 4/6 (not stated; our reading: raw ρ and τ)",
                           describe=lambda v: "ρ and τ shifted to (x+1)/2 (our reading of the paper: raw, "
                                              "footnotes 4/6)"),
    "lmax_mode": Setting("table4", "footnotes 4/6 (L_max not defined; our reading: 5.59, the largest LD of Table 4, "
                         "applied to a cell's mean LD as Table 4's LD is a mean)",
                         describe=lambda v: f"LD entered as {LD_TERMS[v]} (the paper's points as we redraw them: "
                                            f"{LD_TERMS['table4']}; footnotes 4/6 leave L_max undefined)"),
}
#: how each ``lmax_mode`` enters LD into an aggregate (axis labels and the comparison)
LD_TERMS = {"per_instance": "1 − mean(LD/n)", "max_cells": "1 − LD/(largest mean LD of the cells compared)",
            "table4": "1 − mean LD/5.59 (5.59 = largest LD of Table 4)"}

PROTOCOL: dict[str, Section] = {
    "01_dataset": Section("§3.1–3.3, Tables 2, 3, 6, Figure 2", RELEASE, {
        **_DATA,
        # effective setting of the word counts that include Chinese or Japanese (wordcount.compare_with_paper)
        "segmenter": Setting("", "Tables 3 and 6 name no segmenter", accept=lambda v: not v,
                             describe=lambda v: f"Chinese and Japanese words counted by our segmenters ({v}); the "
                                                "paper names none, Tables 3 and 6")}),
    "02_reordering": Section("§3.2 Task 1, §4.1, Table 4 (ρ, LD, τ), Figure 5", RELEASE,
                             {**_DATA, **_LANGUAGES, **_REORDER}),
    "02_reordering.random": Section("Table 4 Random row (uniform random orders)", RELEASE, {
        **_DATA, **_LANGUAGES,
        "step_counts": Setting("release", "Table 4 Random row", describe=lambda v: f"on step counts estimated from "
                               f"Table 3 ('{v}' estimate; the paper's Random row: the release's step counts)")}),
    "03_mcq": Section("§3.2 Task 2, §4.1, Table 4 (PB-MCQ), Table 5", RELEASE, {**_DATA, **_LANGUAGES, **_MCQ}),
    "03_mcq.cb_mcq": Section("§3.2 Task 3, §4.1, Table 4 (CB-MCQ)", RELEASE, {**_DATA, **_MCQ, **_CB_OPTIONS}),
    "03_mcq.position_bias": Section("ours", RELEASE, {},
                                    beyond="the same questions under other option orders, by option log-likelihood"),
    "04_cbqa": Section("§3.2 Task 4, §4.1, Table 4 (R-L, BS, SS)", RELEASE, {**_DATA, **_CBQA, **_BERTSCORE, **_SS}),
    # one metric's numbers: each carries its own encoder only
    "04_cbqa.rouge_l": Section("§3.2 Task 4, Table 4 (R-L)", RELEASE, {**_DATA, **_CBQA}),
    "04_cbqa.bertscore": Section("§3.2 Task 4, Table 4 (BS)", RELEASE, {**_DATA, **_CBQA, **_BERTSCORE}),
    "04_cbqa.ss": Section("§3.2 Task 4, Table 4 (SS)", RELEASE, {**_DATA, **_CBQA, **_SS}),
    "05_aggregate": Section("footnotes 4 and 6, Figures 3, 4, 6, 7, 8", RELEASE,
                            {**_DATA, **_LANGUAGES, **_REORDER, **_MCQ, **_CB_OPTIONS, **_CBQA, **_BERTSCORE, **_SS,
                             **_AGGREGATE}),
    # the footnote-4 score (Figs. 3/6): reordering and PB-MCQ only
    "05_aggregate.footnote4": Section("footnote 4, Figures 3, 6", RELEASE,
                                      {**_DATA, **_LANGUAGES, **_REORDER, **_MCQ, **_AGGREGATE}),
    # PB-MCQ accuracy alone (its radars): no aggregate, no CB task
    "05_aggregate.pb_mcq": Section("§3.2 Task 2, Table 4 (PB-MCQ)", RELEASE, {**_DATA, **_LANGUAGES, **_MCQ}),
    "05_aggregate.reported": Section("Tables 4–5, footnote 6, Figure 8 redrawn from Table 4", None,
                                     {k: _AGGREGATE[k] for k in ("norm_scheme", "lmax_mode")}),
}


def _models() -> dict[str, str]:
    from culturelab import reported

    meta = reported.load("captex", "models").dropna(subset=["hf_id"])
    # the two API models of Table 4 (their versions and dates are not given, §4)
    return {**dict(zip(meta["model"], meta["hf_id"])), "GPT-4o": "gpt-4o", "O3-mini": "o3-mini"}


#: the paper's 31 models: Table 4 name → hub id (``reported/captex/models.csv``) or OpenAI model id
MODELS: dict[str, str] = _models()


#: how :func:`culturelab.captex.data.read_conversations` reads the data where the paper is silent (the
#: data's own settings, beside :func:`cb_mcq_options`): the CB-QA reference without its 'Next step: N'
READINGS = {"reference_marker": "stripped"}


def cb_mcq_options(conversations: Any) -> dict[str, str]:
    """The effective setting of a run's CB-MCQ numbers: ``file`` when every conversation's options
    are the release's own, else ``generated`` (ours, :func:`culturelab.captex.construction.with_cb_options`).

    >>> import pandas as pd
    >>> cb_mcq_options(pd.DataFrame({"options_source": ["file", "generated"]}))
    {'cb_mcq_options': 'generated'}
    """
    return {"cb_mcq_options": "file" if (conversations["options_source"] == "file").all() else "generated"}


def estimated_step_counts(estimator: str) -> Deviations:
    """The labels of a random reordering baseline scored on step counts estimated from Table 3
    (:func:`culturelab.captex.reordering.paper_step_mix`): the paper's numbers, but not the
    release's step counts, so no Δ with Table 4's Random row.

    >>> estimated_step_counts("options").comparable
    False
    """
    return compare(PROTOCOL["02_reordering.random"], {"step_counts": estimator}, DataUsed("reported"))


def reported_deviations(params: Mapping[str, Any]) -> Deviations:
    """The labels of what notebook 05 draws from the paper's own numbers (Fig. 8 from Table 4,
    Table 5): the paper's data; the normalisation of ρ and τ and L_max as ``params`` say (both
    our reading of footnote 6: "same" means "as we read it", never the paper's printed points).

    >>> reported_deviations({"norm_scheme": "raw", "lmax_mode": "table4"}).caption()
    'data: same · protocol: same'
    >>> reported_deviations({"lmax_mode": "per_instance"}).protocol[:36]
    'LD entered as 1 − mean(LD/n) (the pa'
    """
    return compare(PROTOCOL["05_aggregate.reported"], params, DataUsed("reported"))


def locate(topic: str, params: Mapping[str, Any]) -> DataUsed:
    """The data a CAPTEx notebook's parameters will read, found without loading or downloading
    it (:func:`culturelab.captex.data.where`): our sample, the release (a local copy, the cached
    hub copy, or the hub when the network allows — the note says which) or missing; and where its
    CB-MCQ options will come from (``cb_mcq_options``: the file's header says whether it has
    them, :func:`culturelab.captex.data.has_cb_options`; ``unknown`` before a download).

    >>> locate("02_reordering", {"data_source": "sample"}).source
    'sample'
    >>> locate("02_reordering", {"data_source": "local", "data_dir": "/nonexistent"}).source
    'missing'
    >>> locate("03_mcq", {"data_source": "sample"}).settings
    {'reference_marker': 'stripped', 'cb_mcq_options': 'generated'}
    """
    kind, folder, note = cx.where(params.get("data_dir", ""), params.get("data_source", "auto"))
    source = {"local": "released", "cached": "released", "download": "released"}.get(kind, kind)
    options = {"download": "unknown"}.get(kind) if folder is None else \
        "file" if cx.has_cb_options(folder) else "generated"
    return DataUsed(source, note=note, settings={**READINGS, **({"cb_mcq_options": options} if options else {})})
