"""The CAPTEx notebooks' allowed parameter values and their one entry point.

:data:`CHOICES` declares, once for all five notebooks, the values each choice parameter may
take; ``culturelab check``, ``culturelab run`` and ``start_run`` apply it (with :func:`check`
for the rules that tie keys together) before any data or model is loaded. :func:`open` then
resolves ``data_source``, loads and restricts the data and stamps it on the run.

>>> from culturelab.params import check_choices
>>> check_choices({"languages": "german", "countries": ["iran"], "categories": []}, CHOICES)
["languages: 'german' is not one of both, en, native"]
>>> check_choices({"countries": ["iran", "Mars"]}, CHOICES)[0][:36]
"countries: 'Mars': unknown country ("
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from culturelab import prompts, reported
from culturelab.captex import construction, protocol
from culturelab.captex.aggregate import LMAX_MODES, NORM_SCHEMES
from culturelab.captex.data import CaptexData, load, normalise_category, normalise_country
from culturelab.captex.evaluate import LANGUAGES, TASKS
from culturelab.captex.questions import METHODS
from culturelab.data.sources import DATA_SOURCES
from culturelab.params import Choice, one_of
from culturelab.tasks.reorder import DECODINGS, POLICIES, stable_int


def known_names(normalise: Callable[[Any], str]) -> Callable[[Any], str | None]:
    """A choice for a list of names that ``normalise`` must recognise (an empty list means all).

    >>> known_names(normalise_country)(["ir", "Atlantis"])[:40]
    "'Atlantis': unknown country (expected on"
    >>> known_names(normalise_country)([]) is None
    True
    """
    def problem(values: Sequence[Any]) -> str | None:
        bad = []
        for value in values:
            try:
                normalise(value)
            except ValueError as err:
                bad.append(f"{value!r}: {err}")
        return "; ".join(bad) or None

    return problem


#: the prompt versions every CAPTEx task has (one ``prompt_version`` drives all four prompts)
PROMPT_VERSIONS = tuple(v for v in prompts.versions("captex", TASKS[0])
                        if all(v in prompts.versions("captex", task) for task in TASKS))

CHOICES: dict[str, Choice] = {
    "data_source": one_of(DATA_SOURCES),
    "countries": known_names(normalise_country),
    "categories": known_names(normalise_category),
    "languages": one_of(LANGUAGES),
    "prompt_version": one_of(PROMPT_VERSIONS),
    "invalid_policy": one_of(POLICIES),
    "decoding": one_of(DECODINGS),
    "methods": one_of(METHODS),
    "mcq_method": one_of(METHODS),
    "tasks": one_of(TASKS),
    "norm_scheme": one_of(NORM_SCHEMES),
    "lmax_mode": one_of(LMAX_MODES),
    # "" = matched from the model id; else a row of the paper's Table 4
    "paper_row": one_of(["", *reported.load("captex", "table4")["model"].drop_duplicates()]),
}


def check(_topic: str, params: Mapping[str, Any]) -> list[str]:
    """Rules that tie keys together (the same for every notebook, whatever its topic): the MCQ
    scoring that enters the aggregates must be one of the scorings that run.

    >>> check("05_aggregate", {"methods": ["loglikelihood"], "mcq_method": "generate"})
    ["mcq_method: 'generate' is not among methods ['loglikelihood']"]
    """
    if "mcq_method" in params and "methods" in params and params["mcq_method"] not in params["methods"]:
        return [f"mcq_method: {params['mcq_method']!r} is not among methods {list(params['methods'])}"]
    return []


def select_procedures(procedures: pd.DataFrame, max_procedures: int, seed: int = 0) -> list[str]:
    """Up to ``max_procedures`` procedure ids (0 = all), spread over countries round-robin and,
    within a country, over categories round-robin (each country starting at a different
    category, procedures in a seeded order), so that small runs still cover every country and
    every category.

    >>> procs = load(data_source="sample").procedures
    >>> ids = select_procedures(procs, 7)
    >>> sorted(i[:2] for i in ids)
    ['CN', 'ID', 'IN', 'IR', 'JP', 'NG', 'PK']
    >>> procs[procs["procedure_id"].isin(ids)]["category"].nunique()
    5
    """
    first = procedures.drop_duplicates("procedure_id")
    if not max_procedures or max_procedures >= len(first):
        return first["procedure_id"].tolist()
    categories = sorted(first["category"].unique())
    queues = []
    for i, (_, part) in enumerate(first.groupby("country", sort=True)):
        by_category = {c: sorted(g["procedure_id"], key=lambda p: stable_int(f"{seed}:{p}"))
                       for c, g in part.groupby("category")}
        rotation = categories[i % len(categories):] + categories[:i % len(categories)]
        queue: list[str] = []
        while any(by_category.values()):
            queue += [by_category[c].pop(0) for c in rotation if by_category.get(c)]
        queues.append(queue)
    chosen: list[str] = []
    while len(chosen) < max_procedures:
        for queue in queues:
            if queue and len(chosen) < max_procedures:
                chosen.append(queue.pop(0))
    return chosen


def load_data(data_dir: str = "", data_source: str = "auto", *, countries: Sequence[str] = (),
              categories: Sequence[str] = (), max_procedures: int = 0, seed: int = 0) -> CaptexData:
    """CAPTEx (:func:`culturelab.captex.data.load`) with CB-MCQ options where the release has
    none (seeded, :func:`culturelab.captex.construction.with_cb_options`), restricted as the
    notebook parameters say (empty lists mean every country / category; ``max_procedures``
    through :func:`select_procedures`).

    >>> d = load_data(data_source="sample", countries=["Iran"], max_procedures=2, seed=0)
    >>> d.data_source, d.procedures["procedure_id"].nunique(), bool((d.conversations["answer"] >= 0).all())
    ('sample', 2, True)
    """
    data = construction.with_cb_options(load(data_dir, data_source=data_source), seed)
    data = data.subset(countries=list(countries) or None, categories=list(categories) or None)
    return data.subset(procedure_ids=select_procedures(data.procedures, max_procedures, seed))


def open(run: Any) -> CaptexData:
    """A CAPTEx notebook's data, right after ``start_run``: ``data_source`` resolved
    (:func:`culturelab.captex.data.where`: ``auto`` = the local copy under ``data_dir`` or
    ``$CULTURELAB_DATA``, else the Hugging Face release — downloaded once, then cached — else our
    sample, saying why), loaded and restricted by :func:`load_data` with the run's parameters.
    The run is stamped with ``sample`` or ``released``, the counts actually used (a release cut
    down by ``max_procedures``, ``countries`` or ``categories`` is a subset, never the paper's
    data), where the data came from and the settings the data fixes (the CB-MCQ options the
    release lacks and we build, :func:`culturelab.captex.protocol.cb_mcq_options`); the loader's
    notes are printed."""
    p = run.params
    data = load_data(p["data_dir"], p["data_source"], countries=p["countries"], categories=p["categories"],
                     max_procedures=p.get("max_procedures", 0), seed=p["seed"])
    run.set_data_source(data.data_source, counts=data.counts(), note=data.source_note,
                        settings={**protocol.READINGS, **protocol.cb_mcq_options(data.conversations)})
    for note in [data.source_note, *data.notes]:
        if note:
            print("note:", note)
    return data
