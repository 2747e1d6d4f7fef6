"""Glue shared by the FMLAMA notebooks: parameter checks, data-source bookkeeping, probing a
model over several languages / settings / contexts in one go, candidate vectors for mWS.

>>> check_params(languages=["en", "fr"])
Traceback (most recent call last):
...
culturelab.params.ParameterError: languages: 'fr' is not one of en, zh, ar, he, ru, ko
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.data import fmlama as F
from culturelab.fmlama import probing
from culturelab.params import ParameterError

ALLOWED: dict[str, tuple] = {
    "languages": F.LANGUAGES, "cross_languages": F.LANGUAGES, "settings": F.SETTINGS,
    "generations_setting": F.SETTINGS,
    "templates": (1, 2, 3, 4, 5), "contexts": (False, True), "scoring": probing.SCORINGS,
    "source": ("auto", "local", "download", "sample"), "instructions": ("full", "one"),
    "prompts": ("WC", "QA"), "prompt_version": ("v1", "v2", "v3"),
}


def check_params(**values: Any) -> None:
    """Raise :class:`ParameterError` (one line per bad key) for values outside the allowed sets;
    list-valued parameters must not be empty."""
    problems = []
    for key, value in values.items():
        allowed = ALLOWED[key]
        items = value if isinstance(value, (list, tuple)) else [value]
        if isinstance(value, (list, tuple)) and not value:
            problems.append(f"{key}: must not be empty (choose from {', '.join(map(str, allowed))})")
        for item in items:
            if item not in allowed or isinstance(item, bool) != isinstance(allowed[0], bool):
                problems.append(f"{key}: {item!r} is not one of {', '.join(map(str, allowed))}")
    if problems:
        raise ParameterError("\n".join(problems))


def check_paper_model(paper_model: str, languages: Sequence[str]) -> None:
    """The paper column to compare with must exist in every probed language's table.

    >>> check_paper_model("Avg", ["en", "zh"]) is None
    True
    """
    from culturelab import reported

    table = reported.load("fmlama", "probing")
    problems = []
    for lang in languages:
        models = list(dict.fromkeys(table[table["lang"] == lang]["model"]))
        if paper_model not in models:
            problems.append(f"paper_column: {paper_model!r} is not in the paper's table for {lang} "
                            f"(choose from {', '.join(models)})")
    if problems:
        raise ParameterError("\n".join(problems))


def open_data(run: Any, data_dir: str | os.PathLike | None, source: str) -> str:
    """Resolve the data source, record it on the run (``sample`` or ``released``), and return it.

    >>> class Run:
    ...     def set_data_source(self, s): self.source = s
    >>> r = Run(); open_data(r, None, "local"), r.source
    ('local', 'released')
    """
    resolved = F.resolve_source(data_dir or None, source)
    run.set_data_source("sample" if resolved == "sample" else "released")
    F.warn_if_sample(resolved)
    return resolved


def candidate_vectors(encoder: Any, candidates: Sequence[str]) -> np.ndarray | None:
    """L2-normalised vectors of the candidate ingredients (``None`` when no encoder is given).

    >>> candidate_vectors(None, ["egg"]) is None
    True
    """
    if encoder is None:
        return None
    return encoder.encode(list(candidates), role="query")


def probe_grid(model: Any, jobs: Iterable[dict[str, Any]], *, template_ids: Sequence[int], contexts: Sequence[bool],
               version: str = "v1", scoring: str = "auto", encoder: Any = None,
               baseline: bool = True, seed: int = 0) -> pd.DataFrame:
    """Probe ``model`` on several jobs (each: ``table``, ``lang``, ``candidates``, ``reference``
    and extra columns to stamp, e.g. ``setting``), in every context, plus the frequency
    baseline once per job. Returns one tidy per-(dish, template) table.

    >>> t = pd.DataFrame({"url": ["u1", "u2"], "dish": ["a", "b"], "group": "G", "origin": "Italy",
    ...                   "ingredients": [["egg"], ["egg"]]})
    >>> job = {"table": t, "lang": "en", "candidates": ["egg", "tea"], "reference": t, "setting": "EN_en"}
    >>> from culturelab.models.base import LogLikelihood
    >>> class Fake:  # a stand-in model: shorter continuations are likelier
    ...     spec = "fake"
    ...     def loglikelihood(self, pairs):
    ...         return [LogLikelihood(-len(c), 1, False) for _, c in pairs]
    >>> out = probe_grid(Fake(), [job], template_ids=[1], contexts=[False])
    >>> out[["model", "setting", "ap"]].drop_duplicates().to_dict("records")
    [{'model': 'fake', 'setting': 'EN_en', 'ap': 1.0}, {'model': 'frequency baseline', 'setting': 'EN_en', 'ap': 1.0}]
    """
    parts = []
    for job in jobs:
        extra = {k: v for k, v in job.items() if k not in {"table", "lang", "candidates", "reference"}}
        vectors = candidate_vectors(encoder, job["candidates"])
        for context in contexts:
            out = probing.probe(model, job["table"], job["lang"], job["candidates"], context=context,
                                template_ids=template_ids, version=version, scoring=scoring, vectors=vectors)
            parts.append(out.assign(**extra))
        if baseline:
            base = probing.probe_frequency(job["table"], job["lang"], job["candidates"], reference=job["reference"],
                                           vectors=vectors, seed=seed)
            parts.extend(base.assign(context=c, **extra) for c in contexts)
    return pd.concat(parts, ignore_index=True)


def limit(table: pd.DataFrame, per_group: int, max_total: int, *, seed: int = 0, group: str = "group") -> pd.DataFrame:
    """Seeded sample of up to ``per_group`` dishes per group (0 = all), then at most
    ``max_total`` of them (0 = no cap).

    >>> t = pd.DataFrame({"group": list("aab"), "url": list("xyz")})
    >>> limit(t, 1, 0, seed=0)["group"].tolist()
    ['a', 'b']
    """
    sampled = probing.sample_dishes(table, per_group, seed=seed, group=group)
    if max_total and len(sampled) > max_total:
        sampled = sampled.sample(n=max_total, random_state=seed).sort_index().reset_index(drop=True)
    return sampled
