"""PERCUL's protocol as data (§3–4, Figure 9, Table 1), for :func:`culturelab.protocol.compare`.

Every label of a PERCUL table, figure, coverage row and profile row comes from the comparison of
a run with these sections; ``culturelab check`` prints it and a ``protocol: paper`` file refuses
to run while it is not empty.

>>> from culturelab.protocol import compare
>>> d = compare(PROTOCOL["01_benchmark"], {"method": "generate", "max_new_tokens": 40, "stop_after_json": True},
...             locate("01_benchmark", {"data_source": "sample", "data_dir": ""}))
>>> d.lines()
["data: sample data (ours, not the paper's)", 'protocol: 40 new tokens (the paper: at least 1024, §4)', 'protocol: stopped at the closing JSON brace (the paper: no early stop, §4)']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from culturelab.percul.data import SPLITS, find_split_file
from culturelab.protocol import DataUsed, Release, Section, Setting

#: the release: 592 stories over 11 categories (Table 1; teias-ai/percul on the hub, gated)
RELEASE = Release("PERCUL (teias-ai/percul)", {"stories": 592}, "Table 1",
                  "https://huggingface.co/datasets/teias-ai/percul")
PAPER_MAX_NEW_TOKENS = 1024

_STORIES = Setting(0, "Table 1: all 592 stories", what="max_instances {}", kind="data")
_DECODING = {
    # §4: temperature 0, models "allowed to generate up to their maximum generation length"
    "max_new_tokens": Setting(PAPER_MAX_NEW_TOKENS, "§4", what="{} new tokens", at_least=True),
    "stop_after_json": Setting(False, "§4", describe=lambda v: "stopped at the closing JSON brace "
                               "(the paper: no early stop, §4)"),
    # Figure 9 as printed
    "prompt_version": Setting("v1", "Figure 9", what="prompt {}", describe=lambda v: f"prompt {v} "
                              "(the paper: Figure 9 as printed)"),
    "answer_in_persian": Setting(True, "Figure 9", describe=lambda v: "without 'Your answer must be in Persian' "
                                 "(the paper: Figure 9 keeps it)"),
    # App. (inferred from Table 5: every cell is k/n_c with n_c from Table 1): unparseable answers are wrong
    "invalid_policy": Setting("wrong", "Table 5 (k/n_c cells)", describe=lambda v: "unparseable answers excluded "
                              "(the paper counts them wrong)"),
    # the paper's method is generation; our option log-likelihood runs beside it
    "method": Setting("generate", "§4", describe=lambda v: "option log-likelihood instead of generation "
                      "(the paper: generated answers, §4)"),
    "methods": Setting(["generate"], "§4", accept=lambda v: "generate" in v,
                       describe=lambda v: f"methods {list(v)} without generation (the paper: generated answers, §4)"),
}
_PERSIAN = Setting(SPLITS[0], "§4", describe=lambda v: "the English split with our English prompt: Figure 9 "
                   "translated by us, keeping 'Your answer must be in Persian' (the paper's prompt for the "
                   "translated split is not published, §4.2)")

PROTOCOL: dict[str, Section] = {
    "01_benchmark": Section("§4, Figure 9, Table 3", RELEASE,
                            {"max_instances": _STORIES, "split": _PERSIAN, **_DECODING}),
    "02_models_and_categories": Section("§4.1, Figures 4–6, 15, Table 5", RELEASE,
                                        {"max_instances": _STORIES, **_DECODING}),
    "03_translation": Section("§4.2, Figure 7, Table 5 † rows", RELEASE,
                              {"max_instances": _STORIES, "split": _PERSIAN, **_DECODING}),
    "04_distractors": Section("§4.3, Figures 8 and 16", RELEASE, {"max_instances": _STORIES, **_DECODING}),
    "05_robustness": Section("ours", RELEASE, {"max_instances": _STORIES},
                             beyond="every story under several option orders, by option log-likelihood"),
}


def _models(spec: str) -> str | None:
    from culturelab.percul.paper import paper_name

    return paper_name(spec)


#: the paper's models: a spec → its Table 5 row (``reported/percul/model_ids.csv``)
MODELS = _models


def locate(topic: str, params: Mapping[str, Any]) -> DataUsed:
    """The data a PERCUL notebook's parameters will read, found without loading it: our sample,
    the local copy (``data_dir`` or ``$CULTURELAB_DATA/percul``), or the release that is missing.

    >>> locate("01_benchmark", {"data_source": "sample"}).source
    'sample'
    >>> locate("01_benchmark", {"data_source": "auto", "data_dir": "/nonexistent"}).source
    'missing'
    >>> import os, unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_DATA": "/nonexistent"}):
    ...     locate("01_benchmark", {"data_source": "auto", "data_dir": ""}).source
    'sample'
    """
    from pathlib import Path

    from culturelab import config

    source = params.get("data_source", "auto")
    if source == "sample":
        return DataUsed("sample")
    folder = Path(params["data_dir"]).expanduser() if params.get("data_dir") else config.data_dir() / "percul"
    if folder.is_dir() and find_split_file(folder, SPLITS[0]) is not None:
        return DataUsed("released", note=str(folder))
    if source == "download":
        return DataUsed("released", note=f"downloaded from {RELEASE.url} (gated: needs HF_TOKEN)")
    hint = f"no copy of the release under {folder}; put {RELEASE.url} (gated) there or set data_source: download"
    if source == "auto" and not params.get("data_dir"):
        return DataUsed("sample", note=f"{hint} (`auto` falls back to our sample)")
    return DataUsed("missing", note=hint)
