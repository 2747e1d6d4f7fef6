"""``culturelab plan``: count a run's model requests and tokens, and estimate its wall time.

How: each notebook of the plan runs with a *counting* model (``$CULTURELAB_COUNT_REQUESTS``
names a folder of JSON-lines logs; :meth:`culturelab.runner.Run.model` then hands out a
:class:`CountingModel` instead of loading weights). It records every request the notebook sends
(kind, count, prompt tokens) and answers with cheap dummies, so the notebooks' own
request-building code is what is counted. The other places that would load weights count
instead of computing while :func:`counting` is true: encoder embeddings
(:mod:`culturelab.models.encoders`, kind ``embed``) and fine-tuning
(:mod:`culturelab.turkish_plu.finetune`, kind ``finetune``: forward-pass-equivalent tokens,
a training step counted as three forward passes).

Prompt tokens use the spec's real tokenizer when it is available offline, else ``len(text) / 4``
(the ``tokens`` column); a call of more than :data:`SAMPLE` requests is tokenized on an evenly
strided sample and scaled, so counting stays fast at any size (request counts are always exact).
Generated tokens are ``max_new_tokens`` per generation request: an upper bound (early stops are
not foreseen). A request is billed once per notebook, as the response cache serves its repeats
(Turkish PLU's second normalisation re-sends the first one's requests); requests already cached
by an earlier run, or re-sent by another notebook (``captex/05_aggregate``), are billed again:
a warm cache makes the run cheaper than the bill.

The wall time comes from a short calibration: a few requests of each kind timed on this device,
giving seconds per prompt token and per generated token. A hub model with no local weights is
not timed: its rates are the bundled model's scaled by the ratio of parameter counts (forward
FLOPs are about ``2 x parameters`` per token), with the count taken from a local config, else
the model id ("7b", "270m", "1.1B"), else ``--params`` (:func:`parameter_count`).

>>> m = CountingModel("hf:none", tokenizer=None)
>>> m.generate(["abcdefgh"], max_new_tokens=5), m.records
([''], [{'kind': 'generate', 'model': 'hf:none', 'requests': 1, 'prompt_tokens': 2, 'generated_tokens': 5, 'scored_tokens': 0}])
"""

from __future__ import annotations

import functools
import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab.models.base import (
    SLOT,
    LanguageModel,
    LogLikelihood,
    PermutationConstraint,
    per_prompt,
    split_template,
)

ENV = "CULTURELAB_COUNT_REQUESTS"
KIND_LABELS = {"loglikelihood": "log-likelihood", "generate": "generation", "rank_candidates": "ranking pairs",
               "generate_constrained": "constrained generation", "embed": "embeddings", "finetune": "fine-tuning"}
#: requests per call tokenized exactly; larger calls are tokenized on a strided sample this size
SAMPLE = 512
#: the model whose measured rates are scaled for models that cannot be timed here
REFERENCE = "bundled:gemma3-270m"
_DUMMY = LogLikelihood(-1.0, 1, False)
_active_log: Path | None = None


def counting() -> bool:
    """Whether this process runs under ``culturelab plan`` (model requests are counted, not computed).

    >>> counting()
    False
    """
    return bool(os.environ.get(ENV))


def request_log(notebook: str) -> Path | None:
    """The JSON-lines file that records ``notebook``'s requests under ``culturelab plan``, else ``None``;
    also the file :func:`record` appends to from now on in this process.

    >>> request_log("captex/02_reordering") is None
    True
    """
    global _active_log
    folder = os.environ.get(ENV)
    _active_log = Path(folder) / (notebook.replace("/", "__") + ".jsonl") if folder else None
    return _active_log


def record(kind: str, model: str, requests: int, prompt_tokens: int, generated_tokens: int = 0,
           log: Path | None = None, scored_tokens: int = 0) -> dict[str, Any]:
    """Append one counted call to ``log`` (default: the current notebook's :func:`request_log`).
    ``scored_tokens``: the continuation tokens among the prompt tokens of scoring requests (each
    needs the full-vocabulary output, a context token does not).

    >>> record("embed", "bundled:e5-small", 3, 12)
    {'kind': 'embed', 'model': 'bundled:e5-small', 'requests': 3, 'prompt_tokens': 12, 'generated_tokens': 0, 'scored_tokens': 0}
    """
    row = {"kind": kind, "model": model, "requests": int(requests), "prompt_tokens": int(prompt_tokens),
           "generated_tokens": int(generated_tokens), "scored_tokens": int(scored_tokens)}
    log = log or _active_log
    if log is not None:
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    return row


def count_tokens(texts: Sequence[str], tokenizer: Any | None = None) -> int:
    """Tokens of all ``texts``: the tokenizer's count (else ``len(text) // 4``, at least 1 each),
    exact up to :data:`SAMPLE` texts, else from an evenly strided sample scaled to ``len(texts)``.

    >>> count_tokens(["abcdefgh", "abcd"]), count_tokens(["abcdefgh"] * 10_000)
    (3, 20000)
    """
    n = len(texts)
    if n == 0:
        return 0
    sample = texts if n <= SAMPLE else [texts[i] for i in range(0, n, -(-n // SAMPLE))]
    if tokenizer is not None:
        counts = [len(ids) for ids in tokenizer(list(sample), add_special_tokens=False)["input_ids"]]
    else:
        counts = [max(1, len(t) // 4) for t in sample]
    return round(sum(counts) * n / len(sample))


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
    """Counts each call's requests and tokens (one log row per call) and answers with dummies:
    empty generations, log-likelihood -1 per request, all-zero ranking scores."""

    backend = "counting"

    def __init__(self, spec: str, *, tokenizer: Any | None, log: Path | None = None):
        super().__init__(spec, "counting", cache=False, progress=False)
        self.counted_spec = spec
        self.tokenizer = tokenizer
        self.log = log
        self.records: list[dict[str, Any]] = []
        # hashes of the requests billed so far (the response cache serves repeats); a hash, not the
        # request, so that the memory of a 60M-pair plan stays small
        self._seen: set[int] = set()

    def _new(self, keys: Sequence[tuple]) -> list[int]:
        """Positions of the keys not billed before (the first of repeats within the call), marked billed."""
        fresh = []
        for i, key in enumerate(keys):
            h = hash(key)
            if h not in self._seen:
                self._seen.add(h)
                fresh.append(i)
        return fresh

    @property
    def spec(self) -> str:
        """The spec being planned for (notebooks key tables and reference rows by it)."""
        return self.counted_spec

    def _count(self, kind: str, requests: int, prompt_tokens: int, generated: int = 0, scored: int = 0) -> None:
        self.stats.requested += requests
        self.stats.requested_by_kind[kind] = self.stats.requested_by_kind.get(kind, 0) + requests
        self.records.append(record(kind, self.counted_spec, requests, prompt_tokens, generated,
                                   log=self.log or Path(os.devnull), scored_tokens=scored))

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int = 64,
                 constraint: PermutationConstraint | Sequence[PermutationConstraint] | None = None,
                 **params: Any) -> list[str]:
        """Count the distinct generation requests of ``max_new_tokens`` each; with a ``constraint``,
        constrained generation requests of two tokens per label (label and separator, the end
        token last), answered with the labels in their order.

        >>> m = CountingModel("hf:none", tokenizer=None)
        >>> _ = m.generate(["a", "a", "b"], max_new_tokens=4); _ = m.generate(["a"], max_new_tokens=4)
        >>> [r["requests"] for r in m.records], m.generate(["a"], max_new_tokens=8) and m.records[-1]["requests"]
        ([2, 0], 1)
        >>> m.generate(["a"], constraint=PermutationConstraint.letters(3)), m.records[-1]["kind"], m.records[-1]["generated_tokens"]
        (['A, B, C'], 'generate_constrained', 6)
        """
        prompts = [str(p) for p in prompts]
        if constraint is not None:
            constraints = per_prompt(constraint, len(prompts))
            decoding = tuple(sorted((k, repr(v)) for k, v in params.items() if k not in {"stop"}))
            fresh = self._new([("generate_constrained", p, c, *decoding) for p, c in zip(prompts, constraints)])
            self._count("generate_constrained", len(fresh), count_tokens([prompts[i] for i in fresh], self.tokenizer),
                        sum(2 * len(constraints[i].labels) for i in fresh))
            return [c.sep.join(c.labels) for c in constraints]
        decoding = (int(max_new_tokens), *sorted((k, repr(v)) for k, v in params.items()))
        fresh = [prompts[i] for i in self._new([("generate", p, *decoding) for p in prompts])]
        self._count("generate", len(fresh), count_tokens(fresh, self.tokenizer), len(fresh) * int(max_new_tokens))
        return self._generate(prompts)

    def _count_pairs(self, pairs: list[tuple[str, str]]) -> None:
        step = max(1, -(-len(pairs) // SAMPLE))
        sample = pairs[::step]
        scale = len(pairs) / max(1, len(sample))
        whole = count_tokens([c + x for c, x in sample], self.tokenizer)
        scored = count_tokens([x for _, x in sample], self.tokenizer)
        self._count("loglikelihood", len(pairs), round(whole * scale), scored=round(min(scored, whole) * scale))

    def loglikelihood(self, requests: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        """Count the distinct scoring requests (context + continuation tokens).

        >>> m = CountingModel("hf:none", tokenizer=None)
        >>> _ = m.loglikelihood([("q", " a"), ("q", " b"), ("q", " a")]); _ = m.loglikelihood([("q", " b")])
        >>> [r["requests"] for r in m.records]
        [2, 0]
        """
        requests = [(str(c), str(x)) for c, x in requests]
        self._count_pairs([requests[i] for i in self._new([("loglikelihood", c, x) for c, x in requests])])
        return self._loglikelihood(requests)

    def loglikelihood_groups(self, groups: Sequence[tuple[str, Sequence[str]]]) -> list[list[LogLikelihood]]:
        """Count every (context, continuation) pair of the groups not billed before as one scoring
        request; a repeated group is served whole from its cache row, pairs billed one by one by
        :meth:`loglikelihood` are reused (as :meth:`LanguageModel.loglikelihood_groups` does)."""
        groups = [(str(c), [str(x) for x in xs]) for c, xs in groups]
        pairs = []
        for i in self._new([("group", c, *xs) for c, xs in groups]):
            context, continuations = groups[i]
            pairs += [(context, x) for x in continuations if hash(("loglikelihood", context, x)) not in self._seen]
        self._count_pairs(pairs)
        return [[_DUMMY] * len(xs) for _, xs in groups]

    def rank_candidates(self, templates: Sequence[str], candidates: Sequence[str], *, slot: str = SLOT,
                        reduce: str = "mean") -> np.ndarray:
        """Count ``len(templates) x len(candidates)`` ranking pairs (template + candidate tokens)."""
        if reduce not in {"mean", "sum"}:
            raise ValueError(f"reduce must be 'mean' or 'sum', not {reduce!r}")
        templates, candidates = [str(t) for t in templates], [str(c) for c in candidates]
        frames = ["".join(split_template(t, slot)) for t in templates]
        tokens = (count_tokens(frames, self.tokenizer) * len(candidates)
                  + count_tokens(candidates, self.tokenizer) * len(templates))
        self._count("rank_candidates", len(templates) * len(candidates), tokens)
        return np.asarray(self._rank_candidates(templates, candidates, slot=slot, reduce=reduce),
                          dtype=np.float32).reshape(len(templates), len(candidates))

    def _generate(self, prompts: list[str], **params: Any) -> list[str]:
        return [""] * len(prompts)

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        return [_DUMMY] * len(requests)

    def _rank_candidates(self, templates: list[str], candidates: list[str], *, slot: str,
                         reduce: str) -> list[np.ndarray]:
        return [np.zeros(len(candidates), dtype=np.float32) for _ in templates]


def dummy_vectors(texts: Sequence[str], dim: int = 16) -> np.ndarray:
    """Stand-in embeddings under ``plan``: one fixed unit vector per distinct text (same text, same vector).

    >>> v = dummy_vectors(["rice", "tea", "rice"])
    >>> v.shape, bool((v[0] == v[2]).all()), round(float(np.linalg.norm(v[1])), 3)
    ((3, 16), True, 1.0)
    """
    import zlib

    rows = [np.random.default_rng(zlib.crc32(t.encode("utf-8"))).standard_normal(dim) for t in texts]
    out = np.asarray(rows, dtype=np.float32).reshape(len(texts), dim)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


# ---------------------------------------------------------------- parameter counts and rates
_SIZE = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)([bmk])(?![A-Za-z])", re.I)


def params_from_id(model_id: str) -> float | None:
    """The parameter count written in a model id ("7b", "270m", "1.1B"), else ``None``
    (the last match wins: ``Qwen2.5-7B`` is 7B, not 2.5).

    >>> params_from_id("meta-llama/Llama-2-7b-hf"), params_from_id("gemma-3-270m"), params_from_id("TinyLlama-1.1B")
    (7000000000.0, 270000000.0, 1100000000.0)
    >>> params_from_id("Qwen/Qwen2.5-7B-Instruct"), params_from_id("bert-base-cased") is None
    (7000000000.0, True)
    """
    found = _SIZE.findall(model_id.rsplit("/", 1)[-1])
    if not found:
        return None
    number, unit = found[-1]
    return float(number) * {"b": 1e9, "m": 1e6, "k": 1e3}[unit.lower()]


def params_from_config(spec: str) -> float | None:
    """Exact parameter count from the model's config when one is available offline (instantiated
    on the ``meta`` device: no memory, no weights), else ``None``.

    >>> params_from_config("hf:meta-llama/Llama-2-7b-hf") is None
    True
    """
    backend, _, arg = spec.partition(":")
    if backend not in {"bundled", "hf", "masked", "seq2seq"}:
        return None
    try:
        import torch
        from transformers import AutoConfig, AutoModel

        if backend == "bundled":
            from culturelab.models.bundled import bundled_model_dir

            arg = str(bundled_model_dir(arg))
        config = AutoConfig.from_pretrained(arg)
        with torch.device("meta"):
            model = AutoModel.from_config(config)
        total = sum(p.numel() for p in model.parameters())
        vocab, hidden = getattr(config, "vocab_size", 0), getattr(config, "hidden_size", 0)
        untied = not getattr(config, "tie_word_embeddings", True)
        return float(total + (vocab * hidden if untied else 0))  # AutoModel has no LM head
    except Exception:  # no local config: fall back to the id or --params
        return None


def parameter_count(spec: str, explicit: float | None = None) -> tuple[float, str] | None:
    """``(parameters, source)`` of a model: ``explicit`` (``--params``), else its local config,
    else its id; ``None`` when none says.

    >>> parameter_count("hf:meta-llama/Llama-2-7b-hf")
    (7000000000.0, "model id 'meta-llama/Llama-2-7b-hf'")
    >>> parameter_count("hf:my-org/chat", 1.3e9)
    (1300000000.0, '--params')
    """
    if explicit:
        return float(explicit), "--params"
    n = params_from_config(spec)
    if n:
        return n, "local config"
    arg = spec.partition(":")[2].partition("#")[-1] if "#" in spec else spec.partition(":")[2]
    n = params_from_id(arg)
    return (n, f"model id {arg!r}") if n else None


def calibrate(spec: str, *, device: str = "auto", n: int = 16, n_generate: int = 8,
              new_tokens: int = 16) -> dict[str, float] | str:
    """Seconds per context token and per scored continuation token (scoring) and per generated
    token of ``spec`` on ``device``, timed on ``n`` scoring requests (distinct contexts of about 50
    tokens, first with one-word continuations, then with 16-word ones) and one batch of
    ``n_generate`` generation requests, batched as the notebooks' calls are; or the reason it
    cannot be measured.

    >>> calibrate("hf:Qwen/Qwen2.5-7B-Instruct-not-here")
    'uncalibrated: no local weights'
    """
    from culturelab.models import load_model

    tok = offline_tokenizer(spec)
    if tok is None or spec.split(":", 1)[0] not in {"bundled", "hf"}:
        return "uncalibrated: no local weights"
    words = ["rice", "tea", "bread", "soup", "onion", "garlic", "lentils", "saffron", "flour", "water",
             "sugar", "salt", "pepper", "butter", "egg", "milk", "fish", "beans", "noodles", "ginger"]
    rng = np.random.default_rng(0)  # distinct contexts from the first token: no shared prefix to reuse
    contexts = [" ".join(rng.permutation(words * 2)) + "." for _ in range(n)]
    longer = [" " + " ".join(rng.permutation(words)[:16]) for _ in range(n)]

    def tokens(texts: list[str]) -> int:
        return sum(len(ids) for ids in tok(texts, add_special_tokens=False)["input_ids"])

    try:
        lm = load_model(spec, device=device, cache=False, progress=False)
        lm.loglikelihood([("warm up", " now")])
        t0 = time.perf_counter()
        lm.loglikelihood([(c, " rice") for c in contexts])
        short_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        lm.loglikelihood(list(zip(contexts, longer)))
        long_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        outs = lm.generate([f"Count to {i + 5}." for i in range(n_generate)], max_new_tokens=new_tokens)
        made = sum(max(1, len(tok(o)["input_ids"])) for o in outs)
        gen_s = (time.perf_counter() - t0) / made
    except OSError:
        return "uncalibrated: no local weights"
    prompt_s = short_s / tokens(contexts)
    scored_s = max(0.0, (long_s - short_s) / tokens(longer) - prompt_s)
    return {"s_per_prompt_token": prompt_s, "s_per_scored_token": scored_s, "s_per_generated_token": gen_s}


def calibrate_encoder(spec: str, *, device: str = "auto", n: int = 16) -> dict[str, float] | str:
    """Seconds per embedded token (characters / 4) of an encoder, timed on ``n`` short texts.

    >>> calibrate_encoder("st:/nonexistent-encoder")
    'uncalibrated: no local weights'
    """
    from culturelab.models.encoders import load_encoder

    texts = [f"Sentence number {i} about cooking rice with saffron and tea." for i in range(n)]
    try:
        enc = load_encoder(spec, device=device, cache=False)
        enc.encode(texts[:2])
        t0 = time.perf_counter()
        enc.encode(texts)
        return {"s_per_prompt_token": (time.perf_counter() - t0) / count_tokens(texts),
                "s_per_generated_token": 0.0}
    except Exception:  # no local copy of the encoder
        return "uncalibrated: no local weights"


def _where(device: str) -> str:
    """The device a calibration ran on, with the CPU load beside it (timings on a shared box vary)."""
    from culturelab.models.device import resolve_device

    return f"{resolve_device(device)} (load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"


def _speeds(rates: dict[str, float]) -> str:
    """Rates as speeds, e.g. ``45 prompt tokens/s, 2.1 generated tokens/s``."""
    scored = rates.get("s_per_scored_token", 0.0)
    return (f"{1 / rates['s_per_prompt_token']:.0f} prompt tokens/s"
            + (f" + {scored * 1000:.2g} ms per scored continuation token" if scored else "")
            + f", {1 / rates['s_per_generated_token']:.1f} generated tokens/s")


def model_rates(spec: str, *, device: str = "auto", params: float | None = None,
                measure: Any = calibrate) -> tuple[dict[str, float] | str, str]:
    """The rates to bill ``spec`` with and how they were obtained: measured here, or (no local
    weights) :data:`REFERENCE`'s measured rates x parameter ratio, stated as an extrapolation
    (``params`` overrides the parameter count; ``measure`` is :func:`calibrate` or a memo of it).

    >>> fake = lambda spec, device="auto": ({"s_per_prompt_token": 0.001, "s_per_generated_token": 0.01}
    ...                                     if spec == REFERENCE else "uncalibrated: no local weights")
    >>> rates, basis = model_rates("hf:org/x-7b", measure=fake)
    >>> round(rates["s_per_prompt_token"] / 0.001, 1) == round(7e9 / parameter_count(REFERENCE)[0], 1), basis[:12]
    (True, 'extrapolated')
    >>> model_rates("hf:org/chat", measure=fake)[0]
    'uncalibrated: no local weights and no parameter count (pass --params, e.g. --params 7e9)'
    """
    own = measure(spec, device=device)
    where = _where(device)
    if isinstance(own, dict):
        return own, f"measured: {spec} on {where}: {_speeds(own)}"
    size = parameter_count(spec, params)
    if size is None:
        return ("uncalibrated: no local weights and no parameter count (pass --params, e.g. --params 7e9)",
                "not estimated")
    base, base_size = measure(REFERENCE, device=device), parameter_count(REFERENCE)
    if not isinstance(base, dict) or base_size is None:
        return f"uncalibrated: {REFERENCE} cannot be timed here either", "not estimated"
    ratio = size[0] / base_size[0]
    rates = {k: v * ratio for k, v in base.items()}
    where += f": {_speeds(base)}"
    return rates, (f"extrapolated: {spec} has {size[0]:.3g} parameters ({size[1]}); {REFERENCE} "
                   f"({base_size[0]:.3g}, {base_size[1]}) measured on {where}, rates x {ratio:.1f} "
                   "(FLOPs ~ 2 x parameters per token)")


def summarize(counts: dict[str, list[dict[str, Any]]], rates: dict[str, dict[str, float] | str] | dict[str, float] | str,
              tokens: str) -> pd.DataFrame:
    """One row per notebook plus a total: requests by kind, tokens and the estimated seconds.

    ``rates`` maps a model spec to its rates (rows of a spec without rates are not timed), or
    is one set of rates for every row.

    >>> summarize({"nb": [{"kind": "generate", "requests": 2, "prompt_tokens": 10, "generated_tokens": 5}]},
    ...           {"s_per_prompt_token": 0.1, "s_per_generated_token": 1.0}, "chars/4")["est_seconds"].tolist()
    [6.0, 6.0]
    """
    uniform = isinstance(rates, str) or "s_per_prompt_token" in rates
    rows, unpriced = [], set()
    for name, records in counts.items():
        frame = pd.DataFrame(records, columns=["kind", "model", "requests", "prompt_tokens", "generated_tokens",
                                               "scored_tokens"]).fillna({"scored_tokens": 0})
        seconds = 0.0
        for (spec, kind), part in frame.groupby([frame["model"].fillna(""), "kind"]):
            r = rates if uniform else rates.get(spec, "uncalibrated")
            if isinstance(r, dict):
                seconds += (part["prompt_tokens"].sum() * r["s_per_prompt_token"]
                            + part["scored_tokens"].sum() * r.get("s_per_scored_token", 0.0)
                            + part["generated_tokens"].sum() * r["s_per_generated_token"])
            else:
                unpriced.add(f"{spec or 'model'} {KIND_LABELS.get(kind, kind)}: {r}")
        by_kind = frame.groupby("kind")["requests"].sum().to_dict()
        rows.append({"notebook": name,
                     "requests": " ".join(f"{KIND_LABELS.get(k, k)}={int(v)}" for k, v in sorted(by_kind.items())),
                     **{KIND_LABELS[k]: int(by_kind.get(k, 0)) for k in KIND_LABELS},
                     "prompt_tokens": int(frame["prompt_tokens"].sum()),
                     "generated_tokens": int(frame["generated_tokens"].sum()),
                     "est_seconds": round(seconds, 1)})
    table = pd.DataFrame(rows, columns=["notebook", "requests", *KIND_LABELS.values(), "prompt_tokens",
                                        "generated_tokens", "est_seconds"])
    total = table.drop(columns=["notebook", "requests"]).sum(numeric_only=True)
    table.loc[len(table)] = {"notebook": "TOTAL", "requests": " ".join(
        f"{v}={int(total[v])}" for v in KIND_LABELS.values() if total[v]), **total.to_dict()}
    table["est_seconds"] = table["est_seconds"].round(1)
    if uniform and isinstance(rates, str):
        table["est_seconds"] = rates
    table["tokens"] = tokens
    table.attrs["unpriced"] = sorted(unpriced)
    return table


def has_model_parameter(params: dict[str, Any]) -> bool:
    """Whether a notebook's parameters name a model or an encoder (else it sends no requests and
    ``plan`` does not execute it).

    >>> has_model_parameter({"model": "bundled:gemma3-270m"}), has_model_parameter({"max_recipes": 0})
    (True, False)
    >>> has_model_parameter({"encoder": "bundled:e5-small", "seed": 0})
    True
    """
    return any(re.search(r"(model|encoder|backbone)s?$", k) and v for k, v in params.items())


def plan_requests(run_plan: Any, *, model: str | None = None, jobs: int = 1, work_dir: Path,
                  params: float | None = None, calibrate_models: bool = True) -> pd.DataFrame:
    """Run every notebook of ``run_plan`` that names a model with counting models; return the
    :func:`summarize` table (``attrs["basis"]``: how the rates were obtained).

    The notebooks write their outputs under ``work_dir`` (not the real runs or figures folders).
    Notebooks with no model or encoder parameter are not executed (``counting_run``: "no model").
    """
    from culturelab.runner import RunPlan, execute, notebook_defaults, notebook_file

    logs = work_dir / "requests"
    logs.mkdir(parents=True, exist_ok=True)
    defaults = {n: notebook_defaults(notebook_file(n)) for n, _ in run_plan.jobs}
    jobs_ = [(n, {**p, **({"model": model} if model and "model" in defaults[n] else {})}) for n, p in run_plan.jobs]
    active = [(n, p) for n, p in jobs_ if has_model_parameter({**defaults[n], **p})]
    env = {ENV: str(logs), "CULTURELAB_RUNS": str(work_dir / "runs"), "CULTURELAB_FIGURES": str(work_dir / "figures")}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        status = execute(RunPlan(run_plan.params_file, "plan", work_dir / "figures", active), jobs=jobs)
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
    spec = model or (jobs_[0][1].get("model") if jobs_ else None) or REFERENCE
    tokens = "tokenizer" if offline_tokenizer(spec) is not None else "chars/4 estimate"
    rates: dict[str, Any] = {}
    basis = []
    measure = functools.cache(calibrate)
    if calibrate_models:
        for s in sorted({r["model"] for rs in counts.values() for r in rs}):
            if any(r["model"] == s and r["kind"] == "embed" for rs in counts.values() for r in rs):
                rates[s] = calibrate_encoder(s)
                basis.append(f"{s}: " + ("measured" if isinstance(rates[s], dict) else rates[s]))
            else:
                rates[s], how = model_rates(s, params=params if s == spec else None, measure=measure)
                basis.append(how)
    table = summarize(counts, rates, tokens)
    ran = dict(zip(status["notebook"], status["status"]))
    table["counting_run"] = [ran.get(n, "no model" if n != "TOTAL" else "") for n in table["notebook"]]
    table.attrs["basis"] = basis
    return table
