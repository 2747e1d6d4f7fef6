"""Prompt templates as data: one YAML file per paper, each template versioned.

``culturelab/prompts/<paper>.yaml`` maps a template name to versions (``v1``, ``v2``, …);
a papermill parameter ``prompt_version`` picks one, and the version is recorded with the
results. Templates use ``str.format`` fields (``{question}``, ``{options}``, …).

>>> template = get("quickstart", "mcq_letter")
>>> "{question}" in template and "{options}" in template
True
>>> versions("quickstart", "mcq_letter")
['v1']
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml


@cache
def _load(paper: str) -> dict[str, Any]:
    path = resources.files("culturelab.prompts") / f"{paper}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt file for {paper!r} (expected culturelab/prompts/{paper}.yaml)")
    with path.open("r", encoding="utf-8") as fh:
        return yaml.safe_load(fh) or {}


def versions(paper: str, name: str) -> list[str]:
    """The versions available for a template.

    >>> versions("captex", "reorder")
    ['v1', 'v2', 'v3', 'v4']
    """
    table = _load(paper)
    if name not in table:
        raise KeyError(f"{paper}.yaml has no template {name!r}; it has {sorted(table)}")
    return sorted(table[name])


def get(paper: str, name: str, version: str = "v1") -> str:
    """The text of one template version.

    >>> get("turkish_plu", "si_context").format(goal="Çay demlemek")
    'Hedef: Çay demlemek Örnek Adım:'
    """
    available = versions(paper, name)
    if version not in available:
        raise KeyError(f"template {paper}/{name} has no version {version!r}; choose one of {available}")
    return _load(paper)[name][version]
