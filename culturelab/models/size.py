"""A model's parameter count without loading its weights: from a local config (instantiated on
the ``meta`` device), else from its id ("7b", "270m").

>>> params_from_id("Qwen/Qwen2.5-7B-Instruct")
7000000000.0
"""

from __future__ import annotations

import re

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
    >>> parameter_count("ray:2:hf:meta-llama/Llama-2-7b-hf")[0]
    7000000000.0
    """
    if explicit:
        return float(explicit), "--params"
    from culturelab.models.ray_backend import unwrap

    spec = unwrap(spec)  # ray:N:<spec> shards the model <spec> names
    n = params_from_config(spec)
    if n:
        return n, "local config"
    arg = spec.partition(":")[2].partition("#")[-1] if "#" in spec else spec.partition(":")[2]
    n = params_from_id(arg)
    return (n, f"model id {arg!r}") if n else None
