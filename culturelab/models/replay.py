"""Replay released or earlier predictions as if they came from a model.

A replay file is JSONL, CSV or parquet with a prompt column and a response column (defaults
``prompt`` and ``response``; ``output``/``prediction``/``generation`` are recognised too).
Every results table culturelab writes has both, so any earlier run can be re-scored, or a
collaborator's GPU outputs evaluated on a laptop.

>>> import json, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "p.jsonl")
>>> _ = open(path, "w").write(json.dumps({"prompt": "2+2=", "response": "4"}) + "\\n")
>>> ReplayModel(path, cache=False).generate(["2+2="])
['4']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from culturelab.models.base import LanguageModel, LogLikelihood

RESPONSE_COLUMNS = ("response", "output", "prediction", "generation", "raw_output")


def read_table(path: Path) -> pd.DataFrame:
    """Read JSONL, JSON, CSV or parquet by file extension.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("prompt,response\\n2+2=,4\\n")
    >>> read_table(p).to_dict("records")
    [{'prompt': '2+2=', 'response': 4}]
    """
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return pd.read_json(path, lines=True, dtype=False)
    if suffix == ".json":
        return pd.read_json(path, dtype=False)
    if suffix == ".csv":
        return pd.read_csv(path, keep_default_na=False)
    if suffix == ".parquet":
        return pd.read_parquet(path)
    raise ValueError(f"{path}: replay files must be .jsonl, .json, .csv or .parquet")


def replay_capabilities(path: str) -> dict[str, str]:
    """What a replay file cannot answer (kind → reason): log-likelihoods need ``context``,
    ``continuation`` and ``logprob`` columns. Reads only the file's columns.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "gen.jsonl"
    >>> _ = f.write_text('{"prompt": "p", "response": "r"}\\n')
    >>> sorted(replay_capabilities(str(f)))
    ['loglikelihood', 'rank_candidates']
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise FileNotFoundError(f"replay file not found: {path}")
    columns = set(read_table(file).columns)
    if {"context", "continuation", "logprob"} <= columns:
        return {}
    reason = f"the replay file {file.name} holds generations only (no context/continuation/logprob columns)"
    return {"loglikelihood": reason, "rank_candidates": reason}


class ReplayModel(LanguageModel):
    """Answers from a file of ``(prompt, response)`` rows; a prompt not in the file is an error
    (or an empty answer, counted, with ``missing="empty"``)."""

    backend = "replay"

    def __init__(self, path: str, *, prompt_field: str = "prompt", response_field: str | None = None,
                 missing: str = "error", **kwargs: Any):
        file = Path(path).expanduser()
        if not file.is_file():
            raise FileNotFoundError(f"replay file not found: {path}")
        table = read_table(file)
        if response_field is None:
            response_field = next((c for c in RESPONSE_COLUMNS if c in table.columns), None)
        for col in (prompt_field, response_field):
            if col is None or col not in table.columns:
                raise ValueError(f"{file}: replay file needs columns {prompt_field!r} and one of {RESPONSE_COLUMNS}; "
                                 f"it has {list(table.columns)}")
        if missing not in {"error", "empty"}:
            raise ValueError("missing must be 'error' or 'empty'")
        self.responses = dict(zip(table[prompt_field].astype(str), table[response_field].astype(str)))
        self.loglik = None
        if {"context", "continuation", "logprob"} <= set(table.columns):
            self.loglik = {(c, x): (lp, n, g) for c, x, lp, n, g in zip(
                table["context"], table["continuation"], table["logprob"],
                table.get("n_tokens", pd.Series([1] * len(table))), table.get("is_greedy", pd.Series([False] * len(table))))}
        self.missing = missing
        self.n_missing = 0
        kwargs.setdefault("cache", False)  # the file is the cache
        super().__init__(str(file.resolve()), revision=None, **kwargs)

    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        absent = [p for p in prompts if p not in self.responses]
        if absent and self.missing == "error":
            raise KeyError(f"{len(absent)} of {len(prompts)} prompts are not in the replay file {self.model_id}; "
                           f"first one: {absent[0][:200]!r}. Were they made with the same prompt version?")
        self.n_missing += len(absent)
        return [self.responses.get(p, "") for p in prompts]

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        if self.loglik is None:
            raise NotImplementedError(f"{self.model_id} holds generations only (no context/continuation/logprob columns)")
        out = []
        for req in requests:
            if req not in self.loglik:
                raise KeyError(f"request not in replay file: {req!r}")
            lp, n, g = self.loglik[req]
            out.append(LogLikelihood(float(lp), int(n), bool(g)))
        return out
