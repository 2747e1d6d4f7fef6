"""The FMLAMA notebooks' allowed parameter values (in one place) and their one entry point.

``culturelab check`` / ``culturelab run`` and ``start_run`` apply :data:`CHOICES` and
:func:`check` before any model loads; :func:`open` then resolves the data source and hands the
notebook a :class:`~culturelab.fmlama.data.Release`.

>>> from culturelab.params import check_choices
>>> check_choices({"languages": ["en", "fr"], "contexts": [False, 1]}, CHOICES)
["languages: ['fr'] not allowed; choose from en, zh, ar, he, ru, ko", 'contexts: [1] not allowed; choose from False, True']
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from culturelab import prompts, reported
from culturelab.data.sources import DATA_SOURCES, resolve_source
from culturelab.fmlama.data import INSTRUCTIONS, LANGUAGES, SETTINGS, Release, local_root
from culturelab.fmlama.generations import READINGS
from culturelab.fmlama.metrics import TIES
from culturelab.fmlama.probing import NORMALISES, SCORINGS, SLOT_FILLS, backend_of
from culturelab.fmlama.templates import N_TEMPLATES, NAMES
from culturelab.params import Choice, one_of

#: the probing templates' prompt versions per language (``prompts/fmlama.yaml``; v3 is Hebrew only)
PROBE_VERSIONS = {la: prompts.versions("fmlama", f"probe_{la}") for la in LANGUAGES}

CHOICES: dict[str, Choice] = {
    "data_source": one_of(DATA_SOURCES),
    "languages": one_of(LANGUAGES),
    "cross_languages": one_of(LANGUAGES),
    "settings": one_of(SETTINGS),
    "model_settings": one_of(SETTINGS),
    "generations_setting": one_of(SETTINGS),
    "templates": one_of(range(1, N_TEMPLATES + 1)),
    "contexts": one_of((False, True)),
    "scoring": one_of(SCORINGS),
    "normalise": one_of(NORMALISES),
    "instructions": one_of(INSTRUCTIONS),
    "model_instructions": one_of(INSTRUCTIONS),
    "model_contexts": one_of((False, True)),
    # the paper's options beside ours (culturelab/fmlama/protocol.py): ties, template fill, country names, reading
    "ties": one_of(TIES),
    "slot_fill": one_of(SLOT_FILLS),
    "country_names": one_of(NAMES),
    "reading": one_of(READINGS),
    "prompt_version": one_of(sorted({v for versions in PROBE_VERSIONS.values() for v in versions})),
}


def _template_languages(params: Mapping[str, Any]) -> list[str]:
    """The (valid) languages whose probing templates the notebook fills."""
    langs = [*params.get("languages", []), *params.get("cross_languages", []),
             *(s.split("_")[0].lower() for s in params.get("settings", []) if s in SETTINGS)]
    return [la for la in dict.fromkeys(langs) if la in LANGUAGES]


def check(_topic: str, params: Mapping[str, Any]) -> list[str]:
    """Rules that tie keys together (the notebook's topic is unused: its keys say which rules apply):
    ``paper_column`` (unless ``auto``: the run's model's own column, else the paper's average) must
    be a column of the paper's probing table of every language probed, ``prompt_version`` must
    exist for every template language, and ``normalise: continuation`` needs causal sentence scoring.

    >>> check("02_probing", {"languages": ["en", "zh"], "paper_column": "mB-c", "prompt_version": "v3"})
    ['prompt_version: v3 has no templates for en, zh (it exists for he)']
    >>> check("02_probing", {"languages": ["en", "zh"], "paper_column": "Bb-zh"})
    ["paper_column: 'Bb-zh' is not in the paper's table for en (choose from auto, Bb-c, Bb-u, Bl-c, Bl-u, mB-c, mB-u, mT5, T5, Avg)"]
    >>> check("02_probing", {"model": "seq2seq:google/mt5-base", "normalise": "continuation"})
    ["normalise: 'continuation' averages over candidate and rest of the sentence, which only causal sentence scoring has; seq2seq:google/mt5-base scores the candidate alone (use eq2)"]
    """
    langs = _template_languages(params)
    problems = []
    sentence = backend_of(params.get("model")) == "causal" and params.get("scoring") != "prefix"
    if params.get("normalise") == "continuation" and params.get("model") and not sentence:
        problems.append("normalise: 'continuation' averages over candidate and rest of the sentence, which only causal "
                        f"sentence scoring has; {params['model']} scores the candidate alone"
                        f"{' (scoring: prefix)' if params.get('scoring') == 'prefix' else ''} (use eq2)")
    if params.get("paper_column", "auto") != "auto":
        table = reported.load("fmlama", "probing")
        for lang in [la for la in dict.fromkeys(params.get("languages", [])) if la in LANGUAGES]:
            models = list(dict.fromkeys(table[table["lang"] == lang]["model"]))
            if params["paper_column"] not in models:
                problems.append(f"paper_column: {params['paper_column']!r} is not in the paper's table for {lang} "
                                f"(choose from auto, {', '.join(models)})")
    version = params.get("prompt_version")
    missing = [la for la in langs if version not in PROBE_VERSIONS[la]]
    if version is not None and missing:
        having = [la for la in LANGUAGES if version in PROBE_VERSIONS[la]]
        problems.append(f"prompt_version: {version} has no templates for {', '.join(missing)}"
                        f" (it exists for {', '.join(having) or 'no language'})")
    return problems


_SAMPLE_NOTICE = ("Using OUR FMLAMA sample (culturelab/data/samples/fmlama_sample.json, written by us, same layout "
                  "as the release). Numbers are not the paper's; set CULTURELAB_DATA to the release for real results.")


def open(run: Any) -> Release:
    """The FMLAMA release for ``run``: its ``data_source`` resolved (``auto`` = the local copy
    under ``data_dir``, each file it lacks downloaded and verified when first read, else the
    verified download of the paper-era release), ``sample`` or ``released`` stamped on the run with
    where it came from (:func:`~culturelab.fmlama.protocol.locate`: the files to download named; a
    warning on the sample). The notebook stamps the counts it uses once it has sampled them
    (:func:`stamp_counts`).

    >>> class Run:
    ...     params = {"data_source": "sample", "data_dir": ""}
    ...     def set_data_source(self, stamp, counts=None, note=""): self.stamp = stamp
    >>> run = Run()
    >>> open(run), run.stamp
    (Release(data_source='sample', data_dir=''), 'sample')
    """
    from culturelab.fmlama.protocol import locate

    data_dir = run.params.get("data_dir", "")
    asked = run.params.get("data_source", "auto")
    data_source = resolve_source(asked, local_root(data_dir), auto="download",
                                 what="the FMLAMA release (fmlama/data/Dishes.csv)", data_dir=data_dir)
    used = locate(str(getattr(run, "notebook", "")).rpartition("/")[2], {**run.params, "data_source": asked})
    run.set_data_source("released" if used.source == "missing" else used.source, note=used.note)
    if data_source == "sample":
        warnings.warn(_SAMPLE_NOTICE, stacklevel=2)
    # auto with a local copy: a file it lacks is downloaded (verified) when first read
    return Release("auto" if asked == "auto" and data_source == "local" else data_source, data_dir)


def stamp_counts(run: Any, counts: Mapping[str, int]) -> None:
    """Stamp the dishes a notebook actually probes on ``run`` (keys as the paper's
    :class:`~culturelab.protocol.Release`: :func:`culturelab.fmlama.protocol.dishes_key`, ``CS_DISHES`` …),
    so every label says "N of M dishes" for a sample of the release.

    >>> class Run:
    ...     data_source, data_used = "released", None
    ...     def set_data_source(self, source, counts=None, note=""): self.counts = counts
    >>> run = Run(); stamp_counts(run, {"FMLAMA-en dishes": 15}); run.counts
    {'FMLAMA-en dishes': 15}
    """
    held = dict(getattr(run.data_used, "counts", None) or {})
    run.set_data_source(run.data_source, counts={**held, **counts}, note=getattr(run.data_used, "note", ""))
