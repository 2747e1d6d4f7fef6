"""``culturelab plan``: count a run's model requests and tokens, and estimate its wall time.

How: each notebook of the plan runs with a *counting* model (``$CULTURELAB_COUNT_REQUESTS``
names a JSON-lines file; :meth:`culturelab.runner.Run.model` then hands out a
:class:`CountingModel` instead of loading weights). It records every request with its prompt
tokens (the spec's real tokenizer when it is available offline, else ``len(text) / 4``, stated in
the ``tokens`` column) and answers with cheap dummies, so the notebooks' own request-building code
is what is counted. Generated tokens are ``max_new_tokens`` per generation request: an upper
bound (early stops are not foreseen). Encoder embeddings (``culturelab.models.encoders``) are not
model requests and are not counted. The wall time comes from a short calibration: a few requests
of each kind timed on this device, giving seconds per prompt token and per generated token.

>>> m = CountingModel("hf:none", tokenizer=None)
>>> m.generate(["abcdefgh"], max_new_tokens=5), m.records
([''], [{'kind': 'generate', 'prompt_tokens': 2, 'generated_tokens': 5}])
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab.models.base import LanguageModel, LogLikelihood

ENV = "CULTURELAB_COUNT_REQUESTS"
KIND_LABELS = {"loglikelihood": "log-likelihood", "generate": "generation", "rank_candidates": "ranking pairs"}


def offline_tokenizer(spec: str) -> Any | None:
    """The spec's tokenizer when it loads without network (bundled or cached models), else ``None``.

    >>> offline_tokenizer("replay:/x.jsonl") is None
    True
    """
    backend, _, arg = spec.partition(":")
    if backend not in {"bundled", "hf", "masked"}:
        return None
    try:
        from transformers import AutoTokenizer

        if backend == "bundled":
            from culturelab.models.bundled import bundled_model_dir

            arg = str(bundled_model_dir(arg))
        return AutoTokenizer.from_pretrained(arg)
    except Exception:  # no local copy: token counts fall back to characters / 4
        return None


class CountingModel(LanguageModel):
    """Records each request (kind, prompt and generated tokens) and answers with dummies."""

    backend = "counting"

    def __init__(self, spec: str, *, tokenizer: Any | None, log: Path | None = None):
        super().__init__(spec, "counting", cache=False, progress=False)
        self.tokenizer = tokenizer
        self.log = log
        self.records: list[dict[str, Any]] = []

    def n_tokens(self, text: str) -> int:
        """Prompt tokens of ``text``: the real tokenizer's count, else ``len(text) // 4``."""
        if self.tokenizer is not None:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return max(1, len(text) // 4)

    def _record(self, kind: str, prompt_tokens: int, generated: int = 0) -> None:
        row = {"kind": kind, "prompt_tokens": prompt_tokens, "generated_tokens": generated}
        self.records.append(row)
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")

    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        for p in prompts:
            self._record("generate", self.n_tokens(p), int(params["max_new_tokens"]))
        return [""] * len(prompts)

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        for c, x in requests:
            self._record("loglikelihood", self.n_tokens(c + x))
        return [LogLikelihood(-1.0, 1, False) for _ in requests]

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        for t in templates:
            for c in candidates:
                self._record("rank_candidates", self.n_tokens(t.replace(slot, c)))
        return [np.zeros(len(candidates), dtype=np.float32) for _ in templates]


def calibrate(spec: str, *, device: str = "auto", n: int = 4, new_tokens: int = 16) -> dict[str, float] | str:
    """Seconds per prompt token (scoring) and per generated token of ``spec`` on ``device``,
    timed on ``n`` short requests of each kind; or the reason it cannot be measured.

    >>> calibrate("hf:Qwen/Qwen2.5-7B-Instruct-not-here")
    'uncalibrated: no local weights'
    """
    from culturelab.models import load_model

    tok = offline_tokenizer(spec)
    if tok is None or spec.split(":", 1)[0] not in {"bundled", "hf"}:
        return "uncalibrated: no local weights"
    try:
        lm = load_model(spec, device=device, cache=False, progress=False)
        text = "The quick brown fox jumps over the lazy dog near the river bank. " * 4
        lm.loglikelihood([("warm up", " now")])
        t0 = time.perf_counter()
        lm.loglikelihood([(text + str(i), " and runs away") for i in range(n)])
        score_s = (time.perf_counter() - t0) / (n * len(tok(text)["input_ids"]))
        t0 = time.perf_counter()
        outs = lm.generate([f"Count to {i + 5}." for i in range(n)], max_new_tokens=new_tokens)
        made = sum(max(1, len(tok(o)["input_ids"])) for o in outs)
        gen_s = (time.perf_counter() - t0) / made
    except OSError:
        return "uncalibrated: no local weights"
    return {"s_per_prompt_token": score_s, "s_per_generated_token": gen_s}


def summarize(counts: dict[str, list[dict[str, Any]]], rates: dict[str, float] | str, tokens: str) -> pd.DataFrame:
    """One row per notebook and kind plus a total, with the estimated seconds (when calibrated).

    >>> summarize({"nb": [{"kind": "generate", "prompt_tokens": 10, "generated_tokens": 5}]},
    ...           {"s_per_prompt_token": 0.1, "s_per_generated_token": 1.0}, "chars/4")["est_seconds"].tolist()
    [6.0, 6.0]
    """
    rows = []
    for name, records in counts.items():
        frame = pd.DataFrame(records, columns=["kind", "prompt_tokens", "generated_tokens"])
        by_kind = frame.groupby("kind").size().to_dict()
        rows.append({"notebook": name,
                     "requests": " ".join(f"{KIND_LABELS.get(k, k)}={v}" for k, v in sorted(by_kind.items())),
                     **{KIND_LABELS[k]: int(by_kind.get(k, 0)) for k in KIND_LABELS},
                     "prompt_tokens": int(frame["prompt_tokens"].sum()),
                     "generated_tokens": int(frame["generated_tokens"].sum())})
    table = pd.DataFrame(rows)
    total = table.drop(columns=["notebook", "requests"]).sum(numeric_only=True)
    table.loc[len(table)] = {"notebook": "TOTAL", "requests": " ".join(
        f"{v}={int(total[v])}" for v in KIND_LABELS.values() if total[v]), **total.to_dict()}
    if isinstance(rates, dict):
        table["est_seconds"] = (table["prompt_tokens"] * rates["s_per_prompt_token"]
                                + table["generated_tokens"] * rates["s_per_generated_token"]).round(1)
    else:
        table["est_seconds"] = rates
    table["tokens"] = tokens
    return table


def plan_requests(run_plan: Any, *, model: str | None = None, jobs: int = 1, work_dir: Path) -> pd.DataFrame:
    """Run every notebook of ``run_plan`` with a counting model; return the :func:`summarize` table.

    The notebooks write their outputs under ``work_dir`` (not the real runs or figures folders).
    """
    from culturelab.runner import RunPlan, execute

    logs = work_dir / "requests"
    logs.mkdir(parents=True, exist_ok=True)
    jobs_ = [(n, {**p, **({"model": model} if model else {})}) for n, p in run_plan.jobs]
    env = {ENV: str(logs), "CULTURELAB_RUNS": str(work_dir / "runs"), "CULTURELAB_FIGURES": str(work_dir / "figures")}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        status = execute(RunPlan(run_plan.params_file, "plan", work_dir / "figures", jobs_), jobs=jobs)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    counts = {}
    for name, _ in jobs_:
        f = logs / (name.replace("/", "__") + ".jsonl")
        counts[name] = [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []
    spec = model or (jobs_[0][1].get("model") if jobs_ else None) or "bundled:gemma3-270m"
    tokens = "tokenizer" if offline_tokenizer(spec) is not None else "chars/4 estimate"
    table = summarize(counts, calibrate(spec), tokens)
    failed = dict(zip(status["notebook"], status["status"]))
    table["counting_run"] = [failed.get(n, "") for n in table["notebook"]]
    return table
