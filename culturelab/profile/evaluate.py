"""``culturelab evaluate``: run the paper notebooks per model at one size, collect their
per-instance results into one tidy table, and execute ``notebooks/profile.ipynb`` on it.

Per model, the notebooks of the chosen benchmarks run with the size's parameter file
(``papermill_params/{smoke,default,paper}.yaml``), then ``papermill_params/profile.yaml``'s values,
then ``model`` set to the spec — through :func:`culturelab.runner.plan` (every parameter
validated first) and :func:`culturelab.runner.execute`, so the notebooks' task code and the
response cache are the ones used. Everything goes under ``runs/profile-<size>/``.

Each model runs the tasks that fit it (:func:`fit`, from :func:`culturelab.models.capabilities`,
without loading it): a notebook whose model part needs a request kind the model cannot answer is
skipped (a ``skipped: …`` row in the summary; e.g. generation for ``masked:`` models), and a
notebook with a choice of method is narrowed to the methods it can (e.g. CAPTEx MCQs by
log-likelihood only for a masked LM, by generation only for ``openai:``).

>>> [n for n in notebooks_for(["captex", "percul"])]
['captex/02_reordering', 'captex/03_mcq', 'percul/02_models_and_categories']
>>> slug("hf:Qwen/Qwen2.5-0.5B")
'hf-Qwen-Qwen2.5-0.5B'
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from culturelab import config
from culturelab.params import ParameterError
from culturelab.profile.adapters import ADAPTERS, TIDY, collect

SIZES = ("smoke", "default", "paper")
BENCHMARKS = tuple(dict.fromkeys(nb.split("/")[0] for nb in ADAPTERS))
#: the request kind the model part of a notebook needs (a model that cannot answer it skips the notebook)
NEEDS = {"captex/02_reordering": "generate", "fmlama/02_probing": "rank_candidates",
         "fmlama/04_decoder_llms": "generate", "turkish_plu/02_mc_tasks": "loglikelihood",
         "cultural_recipes/02_adaptation": "generate"}
#: notebook → {kind the model cannot answer: the parameters that leave it out}
NARROW = {"captex/03_mcq": {"generate": {"methods": ["loglikelihood"]}, "loglikelihood": {"methods": ["generate"]}},
          "percul/02_models_and_categories": {"loglikelihood": {"method": "generate"}}}


def notebooks_for(benchmarks: Sequence[str]) -> list[str]:
    """The adapted notebooks of ``benchmarks`` (every benchmark with an adapter when empty).

    >>> notebooks_for(["nope"])
    Traceback (most recent call last):
    ValueError: --benchmarks: unknown ['nope'] (have: captex, fmlama, turkish_plu, percul, cultural_recipes)
    """
    unknown = [b for b in benchmarks if b not in BENCHMARKS]
    if unknown:
        raise ValueError(f"--benchmarks: unknown {unknown} (have: {', '.join(BENCHMARKS)})")
    chosen = benchmarks or BENCHMARKS
    return [nb for nb in ADAPTERS if nb.split("/")[0] in chosen]


def slug(spec: str) -> str:
    """A folder name for a model spec."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-")


def fit(model: str, notebooks: Sequence[str]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The notebooks that fit ``model`` with the parameters that narrow them to what it can answer,
    and the skipped ones with the reason.

    >>> kept, skipped = fit("masked:bert-base-multilingual-cased", ["captex/02_reordering", "captex/03_mcq"])
    >>> kept, skipped
    ({'captex/03_mcq': {'methods': ['loglikelihood']}}, {'captex/02_reordering': 'a masked LM does not generate text'})
    """
    from culturelab.models import capabilities

    cannot = {kind: why for kind, why in capabilities(model).items() if why is not None}
    kept: dict[str, dict[str, Any]] = {}
    skipped: dict[str, str] = {}
    for nb in notebooks:
        if NEEDS.get(nb) in cannot:
            skipped[nb] = cannot[NEEDS[nb]]
            continue
        narrowed = [NARROW.get(nb, {}).get(kind) for kind in cannot]
        if len([n for n in narrowed if n]) > 1:  # every method is out of reach
            skipped[nb] = "; ".join(cannot.values())
            continue
        kept[nb] = next((n for n in narrowed if n), {})
    return kept, skipped


def params_file(size: str, model: str, notebooks: Sequence[str], out_dir: Path,
                narrow: dict[str, dict[str, Any]] | None = None) -> Path:
    """Write the parameter file of one model's run: the size's file, ``profile.yaml`` on top,
    then ``narrow[notebook]`` (see :func:`fit`), ``model`` = ``model``; only ``notebooks``.
    Returns its path."""
    if size not in SIZES:
        raise ValueError(f"--size must be one of {', '.join(SIZES)}, not {size!r}")
    params_dir = config.project_root() / "papermill_params"
    base = yaml.safe_load((params_dir / f"{size}.yaml").read_text(encoding="utf-8")) or {}
    extra = yaml.safe_load((params_dir / "profile.yaml").read_text(encoding="utf-8")) or {}
    per_nb = {}
    for nb in notebooks:
        per_nb[nb] = {**(base.get("notebooks") or {}).get(nb, {}), **(extra.get("notebooks") or {}).get(nb, {}),
                      **(narrow or {}).get(nb, {}), "model": model}
    root = config.runs_dir()
    spec = {"run_name": str((out_dir / slug(model)).relative_to(root)),
            "figures_dir": str(out_dir / slug(model) / "figures"),
            "common": {**(base.get("common") or {}), **(extra.get("common") or {})}, "notebooks": per_nb}
    path = out_dir / slug(model) / "params.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def run_models(models: Sequence[str], benchmarks: Sequence[str] = (), size: str = "smoke", *,
               jobs: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the benchmarks' notebooks that fit each model (:func:`fit`), ``jobs`` notebooks at a time;
    return (tidy results, per-notebook summary with the skipped notebooks). All parameter files are
    validated before anything runs."""
    from culturelab.runner import execute, plan

    out_dir = config.runs_dir() / f"profile-{size}"
    notebooks = notebooks_for(list(benchmarks))
    fits = {m: fit(m, notebooks) for m in models}
    plans = {m: plan(params_file(size, m, list(kept), out_dir, kept), list(kept))
             for m, (kept, _) in fits.items() if kept}
    tidy, summaries = [], []
    for model, (_, skipped) in fits.items():
        if skipped:
            summaries.append(pd.DataFrame({"notebook": list(skipped), "status": [f"skipped: {why}" for why in
                                                                                  skipped.values()],
                                           "seconds": 0.0, "output": "", "model": model}))
        if model in plans:
            summaries.append(execute(plans[model], jobs=jobs).assign(model=model))
            tidy.append(collect(config.runs_dir() / plans[model].run_name, model))
    return (pd.concat(tidy, ignore_index=True) if tidy else pd.DataFrame(columns=TIDY),
            pd.concat(summaries, ignore_index=True))


def report(results: Path, out_dir: Path, params: dict[str, Any] | None = None) -> Path:
    """Execute ``notebooks/profile.ipynb`` on a tidy results file into ``out_dir/profile.ipynb`` and
    write the standalone ``out_dir/profile.html``; returns the HTML path."""
    import nbformat
    import papermill as pm
    from nbconvert import HTMLExporter

    source = config.notebooks_dir() / "profile.ipynb"
    target = out_dir / "profile.ipynb"
    pm.execute_notebook(str(source), str(target), parameters={"results": str(results), **(params or {})},
                        cwd=str(source.parent), progress_bar=False)
    body, _ = HTMLExporter().from_notebook_node(nbformat.read(target, 4))
    html = out_dir / "profile.html"
    html.write_text(body, encoding="utf-8")
    return html


def evaluate(models: Sequence[str], benchmarks: Sequence[str] = (), size: str = "smoke", *, jobs: int = 1) -> int:
    """The ``evaluate`` command: run, collect to ``runs/profile-<size>/results.csv``, report (figures
    under ``runs/profile-<size>/figures/profile``); exit status."""
    import os
    import time

    t0 = time.perf_counter()
    try:
        tidy, summary = run_models(models, benchmarks, size, jobs=jobs)
    except (ParameterError, ValueError, FileNotFoundError) as err:
        print(f"culturelab evaluate: {err}", file=sys.stderr)
        return 2
    out_dir = config.runs_dir() / f"profile-{size}"
    results = out_dir / "results.csv"
    out_dir.mkdir(parents=True, exist_ok=True)
    tidy.to_csv(results, index=False)
    summary.to_csv(out_dir / "summary.csv", index=False)
    print(summary.to_string(index=False))
    if tidy.empty:
        print(f"culturelab evaluate: no per-instance results to profile (see {out_dir / 'summary.csv'})",
              file=sys.stderr)
        return 1
    os.environ["CULTURELAB_RUN_NAME"] = f"profile-{size}"
    os.environ["CULTURELAB_FIGURES"] = str(out_dir / "figures")
    html = report(results, out_dir, {"model": models[0]})
    print(f"{len(tidy)} tidy rows → {results}\nreport → {html}\n{time.perf_counter() - t0:.0f} s in all")
    return 0 if summary["status"].str.match(r"ok|skipped").all() else 1
