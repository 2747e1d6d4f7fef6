"""The configurations of the VecMap-style mapping (:mod:`culturelab.embeddings.align`): every
knob in :class:`MappingConfig`, one preset per mode in :data:`PRESETS`.

Kept apart from the torch code, so parameter checks can list the modes without loading torch.

>>> MODES[:2], config_for("supervised").self_learning
(('supervised', 'semi_supervised'), False)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

NORMALIZE_ACTIONS = ("unit", "center", "unitdim", "centeremb")
MODES = ("supervised", "semi_supervised", "identical", "unsupervised", "acl2017_seed")
INITS = ("seed", "identical", "numerals", "unsupervised")
DIRECTIONS = ("forward", "backward", "union")


@dataclass(frozen=True)
class MappingConfig:
    """Every knob of the mapping; :data:`PRESETS` fills them per mode."""

    init: str = "seed"
    normalize: tuple[str, ...] = ("unit", "center", "unit")
    self_learning: bool = True
    #: keep the orthogonal self-learning map at the end instead of the multi-step mapping
    orthogonal: bool = False
    whiten: bool = True
    src_reweight: float = 0.5
    trg_reweight: float = 0.5
    src_dewhiten: str | None = "src"
    trg_dewhiten: str | None = "trg"
    dim_reduction: int = 0
    vocabulary_cutoff: int = 20000
    csls_k: int = 10
    direction: str = "union"
    stochastic_initial: float = 0.1
    stochastic_multiplier: float = 2.0
    stochastic_interval: int = 50
    threshold: float = 1e-6
    #: cap on self-learning iterations (0 = run to convergence)
    max_iter: int = 0
    unsupervised_vocab: int = 4000
    #: memory budget (MiB) for one block of a similarity matrix
    budget_mb: int = 512

    def __post_init__(self) -> None:
        if self.init not in INITS:
            raise ValueError(f"init must be one of {INITS}, not {self.init!r}")
        bad = [a for a in self.normalize if a not in NORMALIZE_ACTIONS]
        if bad:
            raise ValueError(f"unknown normalisation step(s) {bad}; use {NORMALIZE_ACTIONS}")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, not {self.direction!r}")
        for name in ("src_dewhiten", "trg_dewhiten"):
            if getattr(self, name) not in {None, "src", "trg"}:
                raise ValueError(f"{name} must be None, 'src' or 'trg'")
        if not 0 < self.stochastic_initial <= 1:
            raise ValueError("stochastic_initial must be in (0, 1]")


_RECOMMENDED = MappingConfig()
#: the paper's recommended configurations (AAAI 2018 / ACL 2018) and the ACL 2017 system
PRESETS: dict[str, MappingConfig] = {
    "supervised": replace(_RECOMMENDED, init="seed", self_learning=False),
    "semi_supervised": replace(_RECOMMENDED, init="seed"),
    "identical": replace(_RECOMMENDED, init="identical"),
    "unsupervised": replace(_RECOMMENDED, init="unsupervised"),
    "acl2017_seed": replace(_RECOMMENDED, init="seed", normalize=("unit", "center"), orthogonal=True, whiten=False,
                            src_reweight=0.0, trg_reweight=0.0, src_dewhiten=None, trg_dewhiten=None,
                            vocabulary_cutoff=0, csls_k=0, direction="forward", stochastic_initial=1.0,
                            stochastic_interval=1),
}


#: the settings of VecMap's stopping rule: keep_prob starts at ``stochastic_initial``, is multiplied by
#: ``stochastic_multiplier`` after ``stochastic_interval`` iterations without an improvement of at least
#: ``threshold``, and the loop ends when that happens at keep_prob 1 (map_embeddings.py's training loop)
CRITERION = ("stochastic_initial", "stochastic_multiplier", "stochastic_interval", "threshold")


def criterion_changes(mode: str, config: MappingConfig) -> dict[str, tuple[Any, Any]]:
    """The settings of the stopping rule (:data:`CRITERION`) in which ``config`` differs from the
    preset of ``mode``, each as ``(value, preset)``: empty when a fit that stops by the rule has
    converged as VecMap defines it for that mode.

    >>> criterion_changes("acl2017_seed", config_for("acl2017_seed", stochastic_interval=8))
    {'stochastic_interval': (8, 1)}
    >>> criterion_changes("semi_supervised", config_for("semi_supervised", max_iter=5))
    {}
    """
    preset = PRESETS[mode]
    return {key: (getattr(config, key), getattr(preset, key)) for key in CRITERION
            if getattr(config, key) != getattr(preset, key)}


def criterion_note(mode: str, config: MappingConfig) -> str:
    """:func:`criterion_changes` in words (``""`` when there are none).

    >>> criterion_note("semi_supervised", config_for("semi_supervised", stochastic_interval=8))
    "stochastic_interval 8 (VecMap's semi_supervised: 50)"
    """
    return "; ".join(f"{key} {value} (VecMap's {mode}: {preset})"
                     for key, (value, preset) in criterion_changes(mode, config).items())


def config_for(mode: str, **overrides: Any) -> MappingConfig:
    """The preset of ``mode`` with some fields overridden.

    >>> config_for("semi_supervised", max_iter=5).max_iter
    5
    >>> config_for("acl2017_seed").orthogonal
    True
    """
    if mode not in PRESETS:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    unknown = set(overrides) - set(MappingConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown mapping option(s) {sorted(unknown)}")
    return replace(PRESETS[mode], **overrides)
