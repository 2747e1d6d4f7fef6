"""Device and dtype selection shared by the torch backends.

>>> resolve_device("cpu")
'cpu'
"""

from __future__ import annotations

import torch

VALID_DEVICES = ("auto", "cpu", "cuda", "mps")


def resolve_device(device: str = "auto") -> str:
    """``auto`` → ``cuda`` when a GPU is visible, else ``mps`` on Apple silicon, else ``cpu``.

    >>> resolve_device("cpu")
    'cpu'
    >>> resolve_device("auto") in {"cuda", "mps", "cpu"}
    True
    """
    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    if not (device in VALID_DEVICES or device.startswith("cuda:")):
        raise ValueError(f"device must be one of {VALID_DEVICES} or 'cuda:N', not {device!r}")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError(f"device={device!r} was asked for but torch sees no CUDA GPU; use device='auto'")
    return device


def default_dtype(device: str) -> torch.dtype:
    """bf16 on CUDA (fast and safe for inference), float32 elsewhere.

    >>> default_dtype("cuda:0"), default_dtype("cpu")
    (torch.bfloat16, torch.float32)
    """
    return torch.bfloat16 if device.startswith("cuda") else torch.float32
