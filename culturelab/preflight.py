"""What ``culturelab check`` and ``culturelab run`` verify before any notebook starts or model loads.

Each notebook's models and data are looked up, never loaded:

* a model or encoder read from the Hugging Face hub (``hf:``, ``masked:``, ``seq2seq:``, ``st:``,
  a BERTScore backbone named by its hub id) is in the local Hugging Face cache (config and
  weights), else — while the hub is on — on the hub itself (:func:`huggingface_hub.auth_check`:
  it exists and ``$HF_TOKEN`` may read it); with the hub off (``HF_HUB_OFFLINE=1``) a model that is
  not in the cache is refused, naming the command that fetches it. A local folder or file must
  exist, a bundled model needs its package, a replay file must exist, ``openai:`` needs
  ``$OPENAI_API_KEY`` and an ``openai-compatible:`` server must answer ``GET <base_url>/models``.
  A section switched off by its flag (the paper's ``MODEL_PARAMS`` part with a ``when``) is not looked up.
* the data: a ``$CULTURELAB_DATA`` that does not exist is refused; a notebook whose paper finds no
  copy of its data (``missing``) is refused with the paper's note; every file the paper's
  ``locate`` names (:attr:`culturelab.protocol.DataUsed.files`) exists, or will be downloaded (its
  URL answers a ``HEAD`` request; a hub URL only while the hub is on), or is named as missing.

What a lookup cannot tell (a download that fails half-way, a server that answers ``/models`` and
then fails a request) is said in the notes ``--verbose`` prints. :func:`report` turns the findings
and the plan's deviations into ``check``'s lines: one per notebook and a verdict.

>>> hub_repo("hf:Qwen/Qwen2.5-7B-Instruct"), hub_repo("bert-base-uncased"), hub_repo("bundled:gemma3-270m")
('Qwen/Qwen2.5-7B-Instruct', 'bert-base-uncased', None)
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from culturelab.data.sources import hub_offline
from culturelab.params import _is_encoder_key, _is_model_key
from culturelab.protocol import DataUsed, model_specs, paper_protocol

#: seconds a server or a download URL has to answer
TIMEOUT = 5.0
#: backends whose argument is a hub id or a local folder
_HUB_BACKENDS = ("hf", "masked", "seq2seq", "st")
#: one of these beside ``config.json`` in the cache means the weights are there
_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")


@dataclass
class Findings:
    """What the lookups of one notebook found: ``problems`` stop the run (one line each),
    ``notes`` say how each thing was found or what could not be verified, ``downloads`` are the
    files the run will fetch."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)


def _is_backbone_key(key: str) -> bool:
    return key.endswith("_backbone") or re.fullmatch(r"bertscore_[a-z]{2}", key) is not None


def _looks_local(arg: str) -> bool:
    return arg.startswith(("/", ".", "~")) or Path(arg).expanduser().exists()


def hub_repo(value: str) -> str | None:
    """The hub id a model, encoder or backbone value loads from; ``None`` for a local path, a
    bundled model, an API, a replay file or fastText vectors.

    >>> hub_repo("st:sentence-transformers/LaBSE"), hub_repo("masked:/models/bert"), hub_repo("openai:gpt-4o")
    ('sentence-transformers/LaBSE', None, None)
    """
    backend, sep, arg = value.partition(":")
    if not sep:  # a backbone named by its bare hub id or folder
        backend, arg = "hf", value
    if backend not in _HUB_BACKENDS or _looks_local(arg):
        return None
    return arg


def in_hf_cache(repo: str) -> bool:
    """Whether the local Hugging Face cache holds ``repo``'s config and weights (no network).

    >>> in_hf_cache("org/never-downloaded-model")
    False
    """
    from huggingface_hub import try_to_load_from_cache

    def cached(name: str) -> bool:
        return isinstance(try_to_load_from_cache(repo, name), str)

    return cached("config.json") and any(cached(name) for name in _WEIGHTS)


@functools.cache
def hub_problem(repo: str) -> tuple[str | None, str]:
    """``(problem, note)`` of a hub model: ``None`` and how it was found, or why the run would
    not get it.

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"HF_HUB_OFFLINE": "1"}):
    ...     hub_problem("does/not-exist")[0]
    'not in the local Hugging Face cache and the hub is off (HF_HUB_OFFLINE=1): fetch it first with `hf download does/not-exist` (or name a local folder)'
    """
    if in_hf_cache(repo):
        return None, "in the local Hugging Face cache"
    if hub_offline():
        return (f"not in the local Hugging Face cache and the hub is off (HF_HUB_OFFLINE=1): fetch it first with "
                f"`hf download {repo}` (or name a local folder)"), ""
    from huggingface_hub import auth_check
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    try:
        auth_check(repo, token=os.environ.get("HF_TOKEN") or None)
    except GatedRepoError:
        return f"gated on the Hugging Face hub: accept its terms at https://huggingface.co/{repo} and export HF_TOKEN", ""
    except RepositoryNotFoundError:
        return "no such model on the Hugging Face hub (a private one needs HF_TOKEN)", ""
    except Exception as err:  # no network, a proxy, a time-out: the run could not download it either
        return (f"not in the local Hugging Face cache, and the hub could not be reached to look it up "
                f"({type(err).__name__}): fetch it with `hf download {repo}` where the hub is reachable"), ""
    return None, "on the Hugging Face hub, downloaded on first use (not verified: the download itself)"


@functools.cache
def server_problem(base_url: str) -> str | None:
    """Why an OpenAI-compatible server at ``base_url`` cannot be used (``None``: it answers ``/models``).

    >>> server_problem("http://127.0.0.1:9/v1")[:58]
    'no OpenAI-compatible server answers at http://127.0.0.1:9/'
    """
    import requests

    try:
        requests.get(base_url.rstrip("/") + "/models", timeout=TIMEOUT).raise_for_status()
    except requests.RequestException as err:
        return f"no OpenAI-compatible server answers at {base_url} ({type(err).__name__}): start it first"
    return None


def spec_problem(value: str) -> tuple[str | None, str]:
    """``(problem, note)`` of one model, encoder or backbone value, found without loading it.

    >>> spec_problem("replay:/nonexistent.jsonl")
    ('replay:/nonexistent.jsonl: /nonexistent.jsonl does not exist', '')
    >>> spec_problem("bundled:gemma3-270m")[0] is None
    True
    >>> spec_problem("ray:2:replay:/nonexistent.jsonl")[0]  # the model a ray: spec shards is looked up
    'replay:/nonexistent.jsonl: /nonexistent.jsonl does not exist'
    """
    from culturelab.models.ray_backend import unwrap

    if unwrap(value) != value:
        return spec_problem(unwrap(value))
    backend, sep, arg = value.partition(":")
    if not sep:
        backend, arg = "hf", value
    repo = hub_repo(value)
    if repo is not None:
        problem, note = hub_problem(repo)
        return (f"{value}: {problem}" if problem else None), (f"{value}: {note}" if note else "")
    if backend in (*_HUB_BACKENDS, "fasttext", "replay") and not Path(arg).expanduser().exists():
        return f"{value}: {arg} does not exist", ""
    bundled = _bundled_models().get(arg) if backend == "bundled" else None
    if bundled is not None:
        try:
            bundled.version()
        except ModuleNotFoundError as err:
            return f"{value}: {err}", ""
    if backend == "openai" and not os.environ.get("OPENAI_API_KEY"):
        return f"{value}: OPENAI_API_KEY is not set", ""
    if backend == "openai-compatible":
        problem = server_problem(arg.partition("#")[0])
        if problem:
            return f"{value}: {problem}", ""
        return None, f"{value}: the server answers /models (not verified: the model's own requests)"
    return None, ""


def _bundled_models() -> Mapping[str, Any]:
    from culturelab.models.bundled import BUNDLED

    return BUNDLED


def model_values(notebook: str, params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(key, value)`` of every model, encoder and BERTScore backbone the notebook's full
    parameter set names, except those of a part switched off by its flag (the paper's
    ``MODEL_PARAMS`` part whose :class:`~culturelab.protocol.Section` has a false ``when``).

    >>> list(model_values("turkish_plu/02_mc_tasks", {"model": "hf:a/b", "finetune_model": ["hf:c/d"],
    ...                                                "run_finetune": False, "bertscore_rescale": False}))
    [('model', 'hf:a/b')]
    """
    paper, _, topic = notebook.rpartition("/")
    module = paper_protocol(paper) if paper else None
    sections = getattr(module, "PROTOCOL", {})
    off = {param for part, param in getattr(module, "MODEL_PARAMS", {}).items()  # this notebook's parts only
           if part.split(".")[0] == topic and (s := sections.get(part)) is not None and s.when
           and not params.get(s.when)}
    for key, value in params.items():
        if key not in off and (_is_model_key(key) or _is_encoder_key(key) or _is_backbone_key(key)):
            for spec in model_specs(value):
                yield key, spec


def _host(url: str) -> str:
    return urlparse(url).netloc or url


@functools.cache
def download_problem(url: str) -> str | None:
    """Why ``url`` cannot be downloaded now (``None``: it answers a ``HEAD`` request); a hub URL is
    not tried while the hub is off.

    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"HF_HUB_OFFLINE": "1"}):
    ...     download_problem("https://huggingface.co/datasets/org/x/resolve/main/a.csv")
    'the hub is off (HF_HUB_OFFLINE=1)'
    """
    if _host(url).endswith("huggingface.co") and hub_offline():
        return "the hub is off (HF_HUB_OFFLINE=1)"
    import requests

    try:
        answer = requests.head(url, timeout=TIMEOUT, allow_redirects=True)
    except requests.RequestException as err:
        return f"{_host(url)} cannot be reached ({type(err).__name__})"
    return f"HTTP {answer.status_code} from {url}" if answer.status_code >= 400 else None


def data_problems(params: Mapping[str, Any], used: DataUsed | None) -> Findings:
    """What stops a notebook from reading its data: a ``$CULTURELAB_DATA`` that does not exist
    (when the notebook reads it), a ``missing`` source, and each file of ``used.files`` that is
    absent and cannot be downloaded now; the files to be downloaded are ``downloads``.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "a.csv").write_text("x")
    1
    >>> found = data_problems({}, DataUsed("released", files={str(root / "a.csv"): "", str(root / "b.csv"): ""}))
    >>> [p.replace(str(root), "ROOT") for p in found.problems]
    ['ROOT/b.csv is missing (it cannot be downloaded: put it there)']
    """
    out = Findings()
    env = os.environ.get("CULTURELAB_DATA")
    if ("data_dir" in params and not params["data_dir"] and params.get("data_source") != "sample" and env
            and not Path(env).expanduser().is_dir()):
        out.problems.append(f"CULTURELAB_DATA={env} does not exist: point it at the folder that holds the papers' "
                            "data, or unset it")
    if used is None:
        return out
    if used.source == "missing":
        out.problems.append(f"no copy of its data: {used.note or used.label}")
    absent = {path: url for path, url in used.files.items() if not Path(path).expanduser().is_file()}
    with ThreadPoolExecutor(max_workers=8) as pool:
        why = dict(zip(absent, pool.map(lambda url: download_problem(url) if url else None, absent.values())))
    for path, url in absent.items():
        if not url:
            out.problems.append(f"{path} is missing (it cannot be downloaded: put it there)")
        elif why[path]:
            out.problems.append(f"{path} is missing and cannot be downloaded now: {why[path]} ({url})")
        else:
            out.downloads.append(path)
            out.notes.append(f"{path}: downloaded from {url} on first use")
    return out


def notebook_findings(notebook: str, params: Mapping[str, Any], used: DataUsed | None) -> Findings:
    """Every lookup of one notebook (``params``: its full parameter set, defaults filled in).

    >>> notebook_findings("00_quickstart", {"model": "hf:/nonexistent/folder"}, None).problems
    ['model: hf:/nonexistent/folder: /nonexistent/folder does not exist']
    """
    out = data_problems(params, used)
    for key, value in dict.fromkeys(model_values(notebook, params)):
        problem, note = spec_problem(value)
        if problem:
            out.problems.append(f"{key}: {problem}")
        elif note:
            out.notes.append(f"{key}: {note}")
    return out


def preflight(run_plan: Any) -> dict[str, Findings]:
    """The :func:`notebook_findings` of every notebook of a :class:`~culturelab.runner.RunPlan`."""
    from culturelab.runner import notebook_defaults, notebook_file

    out = {}
    for name, values in run_plan.jobs:
        deviations = run_plan.deviations.get(name)
        out[name] = notebook_findings(name, {**notebook_defaults(notebook_file(name)), **values},
                                      deviations.data_used if deviations is not None else None)
    return out


# --------------------------------------------------------------------- `culturelab check`'s report
def status(deviations: Any, found: Findings, refused: bool = False) -> str:
    """One notebook's verdict in a few words: ``refused: <first problem>``, ``ok`` or ``deviates: n
    settings (<keys>)`` (``refused``: the file says ``protocol: paper`` and this notebook differs),
    with the files it will download.

    >>> from culturelab.protocol import Deviation, Deviations
    >>> d = Deviations((Deviation("max_new_tokens", "protocol", 40, 1024, "§4", "40 new tokens"),))
    >>> status(d, Findings()), status(None, Findings(problems=["a", "b"]))
    ('deviates: 1 setting (max_new_tokens)', 'refused: a (+1 more: --verbose)')
    """
    if found.problems:
        more = len(found.problems) - 1
        return f"refused: {found.problems[0]}" + (f" (+{more} more: --verbose)" if more else "")
    items = deviations.items if deviations is not None else ()
    keys = list(dict.fromkeys(item.key.removeprefix("count:") for item in items))
    text = (f"deviates: {len(items)} setting{'s' * (len(items) > 1)} ({', '.join(keys[:5])}{', …' * (len(keys) > 5)})"
            if items else "ok")
    if refused:
        text += " — refused under protocol: paper"
    if found.downloads:
        text += f"; downloads {len(found.downloads)} file{'s' * (len(found.downloads) > 1)} on first use"
    return text


def _details(name: str, params: Mapping[str, Any], deviations: Any, found: Findings) -> list[str]:
    """``--verbose``: a notebook's parameters, every data, protocol and model line, and every lookup."""
    lines = [f"{name}: {dict(params)}"]
    used = deviations.data_used if deviations is not None else None
    if used is not None and used.source == "released":  # other sources are named by the data line
        lines.append("  data: the paper's release" + (f" ({used.note})" if used.note else ""))
    if deviations is not None:
        lines += [f"  {line}" for line in deviations.lines() or ["same data and protocol as the paper"]]
    lines += [f"  lookup: {note}" for note in found.notes] + [f"  refused: {p}" for p in found.problems]
    return lines


def report(run_plan: Any, findings: Mapping[str, Findings], *, verbose: bool = False,
           allow_deviation: bool = False) -> tuple[list[str], bool]:
    """``culturelab check``'s lines — one per notebook (every setting and lookup under ``verbose``)
    and a closing verdict — and whether ``culturelab run`` would refuse the plan (a notebook that
    cannot run, or a ``protocol: paper`` file that differs, unless ``allow_deviation``)."""
    refusals = {} if allow_deviation else run_plan.refusals()
    lines: list[str] = []
    for name, params in run_plan.jobs:
        deviations, found = run_plan.deviations.get(name), findings.get(name, Findings())
        lines += (_details(name, params, deviations, found) if verbose
                  else [f"{name}: {status(deviations, found, name in refusals)}"])
    blocked = [name for name, found in findings.items() if found.problems]
    deviating = sum(1 for name, _ in run_plan.jobs
                    if (d := run_plan.deviations.get(name)) is not None and d.items)
    command = f"`culturelab run {run_plan.params_file}`"
    if blocked or refusals:
        parts = [f"{len(blocked)} notebook{'s' * (len(blocked) > 1)} cannot run (refused above)"] if blocked else []
        if refusals:
            parts.append(f"{len(refusals)} differ from their papers and the file says protocol: paper "
                         "(--allow-deviation runs them anyway; every output then says so)")
        lines.append(f"verdict: refused — {command} stops before any notebook: {'; '.join(parts)}")
    else:
        lines.append(f"verdict: ok — {command} runs all {len(run_plan.jobs)} notebooks"
                     + (f"; {deviating} deviate from their papers (every table and caption says how)" if deviating else ""))
    if not verbose:
        lines[-1] += " (--verbose: every setting and lookup)"
    return lines, bool(blocked or refusals)
