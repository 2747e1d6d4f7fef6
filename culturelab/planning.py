"""``culturelab plan``: count a run's model requests and tokens, and estimate its wall time.

How: each notebook of the plan runs with a *counting* model (``$CULTURELAB_COUNT_REQUESTS``
names a folder of JSON-lines logs; :meth:`culturelab.runner.Run.model` then hands out a
:class:`~culturelab.models.counting.CountingModel` instead of loading weights). It records every request the notebook sends
(kind, count, prompt tokens) and answers with cheap dummies, so the notebooks' own
request-building code is what is counted. The other places that would load weights count
instead of computing while :func:`counting` is true: encoder embeddings
(:mod:`culturelab.models.encoders`, kind ``embed``) and fine-tuning
(:mod:`culturelab.turkish_plu.finetune`, kind ``finetune``: forward-pass-equivalent tokens,
a training step counted as three forward passes).

Prompt tokens use the spec's real tokenizer when it is available offline, else ``len(text) / 4``
(the ``tokens`` column); a call of more than :data:`SAMPLE` requests is tokenized on an evenly
strided sample and scaled, so counting stays fast at any size (request counts are always exact).
Generated tokens are ``max_new_tokens`` per generation request: an upper bound (early stops are
not foreseen). A request is billed once per notebook, as the response cache serves its repeats
(Turkish PLU's second normalisation re-sends the first one's requests); requests already cached
by an earlier run, or re-sent by another notebook (``captex/05_aggregate``), are billed again:
a warm cache makes the run cheaper than the bill.

The wall time comes from a short calibration: a few requests of each kind timed on this device,
giving seconds per prompt token and per generated token. A hub model with no local weights is
not timed: its rates are the bundled model's scaled by the ratio of parameter counts (forward
FLOPs are about ``2 x parameters`` per token), with the count taken from a local config, else
the model id ("7b", "270m", "1.1B"), else ``--params`` (:func:`parameter_count`).

>>> sorted(KIND_LABELS)
['embed', 'finetune', 'generate', 'generate_constrained', 'loglikelihood', 'rank_candidates']
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import platform
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab.models.counting import ENV, count_tokens, offline_tokenizer
from culturelab.models.ray_backend import split_ray_spec
from culturelab.models.size import parameter_count
from culturelab.runner import RunPlan, execute, notebook_defaults, notebook_file

KIND_LABELS = {"loglikelihood": "log-likelihood", "generate": "generation", "rank_candidates": "ranking pairs",
               "generate_constrained": "constrained generation", "embed": "embeddings", "finetune": "fine-tuning"}
#: the model whose measured rates are scaled for models that cannot be timed here
REFERENCE = "bundled:gemma3-270m"

@contextmanager
def quiet() -> Iterator[None]:
    """No library warnings, log lines or progress bars within the block (a calibration loads and
    runs a model: ``plan`` prints its bill, not transformers' deprecation notices)."""
    import warnings

    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        hf_logging.set_verbosity(level)
        hf_logging.enable_progress_bar()


@quiet()
def calibrate(spec: str, *, device: str = "auto", n: int = 16, n_generate: int = 8,
              new_tokens: int = 16) -> dict[str, float] | str:
    """Seconds per context token and per scored continuation token (scoring) and per generated
    token of ``spec`` on ``device``, timed on ``n`` scoring requests (distinct contexts of about 50
    tokens, first with one-word continuations, then with 16-word ones) and one batch of
    ``n_generate`` generation requests, batched as the notebooks' calls are; or the reason it
    cannot be measured.

    >>> calibrate("hf:Qwen/Qwen2.5-7B-Instruct-not-here")
    'uncalibrated: no local weights'
    """
    from culturelab.models import load_model

    tok = offline_tokenizer(spec)
    if tok is None or spec.split(":", 1)[0] not in {"bundled", "hf"}:
        return "uncalibrated: no local weights"
    words = ["rice", "tea", "bread", "soup", "onion", "garlic", "lentils", "saffron", "flour", "water",
             "sugar", "salt", "pepper", "butter", "egg", "milk", "fish", "beans", "noodles", "ginger"]
    rng = np.random.default_rng(0)  # distinct contexts from the first token: no shared prefix to reuse
    contexts = [" ".join(rng.permutation(words * 2)) + "." for _ in range(n)]
    longer = [" " + " ".join(rng.permutation(words)[:16]) for _ in range(n)]

    def tokens(texts: list[str]) -> int:
        return sum(len(ids) for ids in tok(texts, add_special_tokens=False)["input_ids"])

    try:
        lm = load_model(spec, device=device, cache=False, progress=False)
        lm.loglikelihood([("warm up", " now")])
        clock, where = _clock(device)
        t0 = clock()
        lm.loglikelihood([(c, " rice") for c in contexts])
        short_s = clock() - t0
        t0 = clock()
        lm.loglikelihood(list(zip(contexts, longer)))
        long_s = clock() - t0
        t0 = clock()
        outs = lm.generate([f"Count to {i + 5}." for i in range(n_generate)], max_new_tokens=new_tokens)
        made = sum(max(1, len(tok(o)["input_ids"])) for o in outs)
        gen_s = (clock() - t0) / made
    except OSError:
        return "uncalibrated: no local weights"
    prompt_s = short_s / tokens(contexts)
    scored_s = max(0.0, (long_s - short_s) / tokens(longer) - prompt_s)
    return {"s_per_prompt_token": prompt_s, "s_per_scored_token": scored_s, "s_per_generated_token": gen_s,
            "where": where}


@quiet()
def calibrate_encoder(spec: str, *, device: str = "auto", n: int = 16) -> dict[str, float] | str:
    """Seconds per embedded token (characters / 4) of an encoder, timed on ``n`` short texts.

    >>> calibrate_encoder("st:/nonexistent-encoder")
    'uncalibrated: no local weights'
    """
    from culturelab.models.encoders import load_encoder

    texts = [f"Sentence number {i} about cooking rice with saffron and tea." for i in range(n)]
    try:
        enc = load_encoder(spec, device=device, cache=False)
        enc.encode(texts[:2])
        clock, where = _clock(device)
        t0 = clock()
        enc.encode(texts)
        return {"s_per_prompt_token": (clock() - t0) / count_tokens(texts), "s_per_generated_token": 0.0,
                "where": where}
    except Exception:  # no local copy of the encoder
        return "uncalibrated: no local weights"


#: the calibrations of earlier plans, per model, device and machine (:func:`remembered`)
RATES_FILE = "plan_rates.json"


def _machine() -> str:
    """This machine's CPU model and the cores this process may use (what a calibration depends on)."""
    from culturelab.runner import available_cores

    cpu = next((line.split(":", 1)[1].strip() for line in _cpuinfo().splitlines() if line.startswith("model name")),
               platform.processor() or platform.machine())
    return f"{cpu} x {available_cores()}"


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return ""


def _identity(spec: str) -> str:
    """What names the weights a spec loads: a bundled package's version, a local folder's fingerprint, else the spec."""
    backend, _, arg = spec.partition(":")
    if backend == "bundled":
        from culturelab.models.bundled import BUNDLED

        return BUNDLED[arg].version() if arg in BUNDLED else arg
    if Path(arg).expanduser().is_dir():
        from culturelab.models.identity import local_fingerprint

        return local_fingerprint(Path(arg).expanduser())
    return spec


def remembered(measure: Any, *, refresh: bool = False) -> Any:
    """``measure`` (:func:`calibrate` or :func:`calibrate_encoder`) with its measurements kept in
    ``<cache>/plan_rates.json`` per model (its weights' identity), device and machine, so that a
    later plan reuses them instead of loading and timing the model again; the ``where`` of reused
    rates says when and at which load they were measured. ``refresh`` measures again (``plan
    --recalibrate``) and keeps the new measurement. Failures (no local weights) are not kept.

    >>> import tempfile, unittest.mock
    >>> calls = []
    >>> fake = lambda spec, device="auto": calls.append(spec) or {"s_per_prompt_token": 0.1, "where": "cpu (load 0.5)"}
    >>> with unittest.mock.patch.dict(os.environ, {"CULTURELAB_CACHE": tempfile.mkdtemp()}):
    ...     first, again = remembered(fake)("hf:/doctest/x", "cpu"), remembered(fake)("hf:/doctest/x", "cpu")
    >>> len(calls), again["where"].startswith("cpu (load 0.5), measured ")
    (1, True)
    """
    from datetime import date

    from culturelab import config
    from culturelab.models.device import resolve_device

    file = config.cache_dir() / RATES_FILE

    @functools.cache
    def cached(spec: str, device: str = "auto") -> dict[str, Any] | str:
        key = f"{measure.__name__}|{spec}|{_identity(spec)}|{resolve_device(device)}|{_machine()}"
        store = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
        if key in store and not refresh:
            found = dict(store[key])
            when = found.pop("date")
            return {**found, "where": f"{found['where']}, measured {when} and reused (--recalibrate measures again)"}
        result = measure(spec, device=device)
        if isinstance(result, dict):
            store[key] = {**result, "date": date.today().isoformat()}
            file.write_text(json.dumps(store, indent=1), encoding="utf-8")
        return result

    return cached


def _clock(device: str) -> tuple[Any, str]:
    """The clock a calibration times with, and where it ran: wall time, or — on a CPU busier than
    its cores (other jobs' load) — this process's CPU time per thread, the wall time it would take
    on the idle machine the bill is for (wall time under a load of 8 on 2 cores was 30x an idle one)."""
    from culturelab.runner import available_cores

    where = _where(device)
    threads = sys.modules["torch"].get_num_threads() if "torch" in sys.modules else available_cores()
    if where.startswith("cpu") and os.getloadavg()[0] > available_cores():
        return (lambda: time.process_time() / threads), f"{where}: busy, timed by CPU time / {threads} threads"
    return time.perf_counter, where


def _where(device: str) -> str:
    """The device a calibration ran on, with the CPU load beside it (timings on a shared box vary)."""
    from culturelab.models.device import resolve_device

    return f"{resolve_device(device)} (load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"


def _speeds(rates: dict[str, float]) -> str:
    """Rates as speeds, e.g. ``45 prompt tokens/s, 2.1 generated tokens/s``."""
    scored = rates.get("s_per_scored_token", 0.0)
    return (f"{1 / rates['s_per_prompt_token']:.0f} prompt tokens/s"
            + (f" + {scored * 1000:.2g} ms per scored continuation token" if scored else "")
            + f", {1 / rates['s_per_generated_token']:.1f} generated tokens/s")


def model_rates(spec: str, *, device: str = "auto", params: float | None = None,
                measure: Any = calibrate) -> tuple[dict[str, float] | str, str]:
    """The rates to bill ``spec`` with and how they were obtained: measured here, or (no local
    weights) :data:`REFERENCE`'s measured rates x parameter ratio, stated as an extrapolation
    (``params`` overrides the parameter count; ``measure`` is :func:`calibrate` or a memo of it).

    >>> fake = lambda spec, device="auto": ({"s_per_prompt_token": 0.001, "s_per_generated_token": 0.01}
    ...                                     if spec == REFERENCE else "uncalibrated: no local weights")
    >>> rates, basis = model_rates("hf:org/x-7b", measure=fake)
    >>> round(rates["s_per_prompt_token"] / 0.001, 1) == round(7e9 / parameter_count(REFERENCE)[0], 1), basis[:12]
    (True, 'extrapolated')
    >>> sharded, basis = model_rates("ray:2:bundled:gemma3-270m", measure=fake)
    >>> sharded["s_per_generated_token"], basis.endswith("rates / 2 (an even split)")
    (0.005, True)
    >>> model_rates("hf:org/chat", measure=fake)[0]
    'uncalibrated: no local weights and no parameter count (pass --params, e.g. --params 7e9)'
    """
    sharded = split_ray_spec(spec)
    if sharded:  # N actors, each the wrapped model: its rates, the work split evenly
        rates, basis = model_rates(sharded[1], device=device, params=params, measure=measure)
        if isinstance(rates, dict):
            rates = {k: v / sharded[0] for k, v in rates.items()}
            basis += f"; {spec}: sharded over {sharded[0]} Ray actors, rates / {sharded[0]} (an even split)"
        return rates, basis
    own = measure(spec, device=device)
    if isinstance(own, dict):
        own = dict(own)
        return own, f"measured: {spec} on {own.pop('where', '') or _where(device)}: {_speeds(own)}"
    size = parameter_count(spec, params)
    if size is None:
        return ("uncalibrated: no local weights and no parameter count (pass --params, e.g. --params 7e9)",
                "not estimated")
    base, base_size = measure(REFERENCE, device=device), parameter_count(REFERENCE)
    if not isinstance(base, dict) or base_size is None:
        return f"uncalibrated: {REFERENCE} cannot be timed here either", "not estimated"
    base = dict(base)
    where = f"{base.pop('where', '') or _where(device)}: {_speeds(base)}"
    ratio = size[0] / base_size[0]
    rates = {k: v * ratio for k, v in base.items()}
    return rates, (f"extrapolated: {spec} has {size[0]:.3g} parameters ({size[1]}); {REFERENCE} "
                   f"({base_size[0]:.3g}, {base_size[1]}) measured on {where}, rates x {ratio:.1f} "
                   "(FLOPs ~ 2 x parameters per token)")


def summarize(counts: dict[str, list[dict[str, Any]]], rates: dict[str, dict[str, float] | str] | dict[str, float] | str,
              tokens: str) -> pd.DataFrame:
    """One row per notebook plus a total: requests by kind, tokens and the estimated seconds.

    ``rates`` maps a model spec to its rates (rows of a spec without rates are not timed), or
    is one set of rates for every row.

    >>> summarize({"nb": [{"kind": "generate", "requests": 2, "prompt_tokens": 10, "generated_tokens": 5}]},
    ...           {"s_per_prompt_token": 0.1, "s_per_generated_token": 1.0}, "chars/4")["est_seconds"].tolist()
    [6.0, 6.0]
    """
    uniform = isinstance(rates, str) or "s_per_prompt_token" in rates
    rows, unpriced = [], set()
    for name, records in counts.items():
        frame = pd.DataFrame(records, columns=["kind", "model", "requests", "prompt_tokens", "generated_tokens",
                                               "scored_tokens"]).fillna({"scored_tokens": 0})
        seconds = 0.0
        for (spec, kind), part in frame.groupby([frame["model"].fillna(""), "kind"]):
            r = rates if uniform else rates.get(spec, "uncalibrated")
            if isinstance(r, dict):
                seconds += (part["prompt_tokens"].sum() * r["s_per_prompt_token"]
                            + part["scored_tokens"].sum() * r.get("s_per_scored_token", 0.0)
                            + part["generated_tokens"].sum() * r["s_per_generated_token"])
            else:
                unpriced.add(f"{spec or 'model'} {KIND_LABELS.get(kind, kind)}: {r}")
        by_kind = frame.groupby("kind")["requests"].sum().to_dict()
        rows.append({"notebook": name,
                     "requests": " ".join(f"{KIND_LABELS.get(k, k)}={int(v)}" for k, v in sorted(by_kind.items())),
                     **{KIND_LABELS[k]: int(by_kind.get(k, 0)) for k in KIND_LABELS},
                     "prompt_tokens": int(frame["prompt_tokens"].sum()),
                     "generated_tokens": int(frame["generated_tokens"].sum()),
                     "est_seconds": round(seconds, 1)})
    table = pd.DataFrame(rows, columns=["notebook", "requests", *KIND_LABELS.values(), "prompt_tokens",
                                        "generated_tokens", "est_seconds"])
    total = table.drop(columns=["notebook", "requests"]).sum(numeric_only=True)
    table.loc[len(table)] = {"notebook": "TOTAL", "requests": " ".join(
        f"{v}={int(total[v])}" for v in KIND_LABELS.values() if total[v]), **total.to_dict()}
    table["est_seconds"] = table["est_seconds"].round(1)
    if uniform and isinstance(rates, str):
        table["est_seconds"] = rates
    table["tokens"] = tokens
    table.attrs["unpriced"] = sorted(unpriced)
    return table


def has_model_parameter(params: dict[str, Any]) -> bool:
    """Whether a notebook's parameters name a model or an encoder (else it sends no requests and
    ``plan`` does not execute it).

    >>> has_model_parameter({"model": "bundled:gemma3-270m"}), has_model_parameter({"max_recipes": 0})
    (True, False)
    >>> has_model_parameter({"encoder": "bundled:e5-small", "seed": 0})
    True
    """
    return any(re.search(r"(model|encoder|backbone)s?$", k) and v for k, v in params.items())


def _run_cells(name: str, params: dict[str, Any]) -> str:
    """Execute notebook ``name``'s code cells in this process, ``params`` assigned right after its
    ``parameters`` cell (as papermill injects them), in the notebook's folder; ``ok`` or why not."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    path = notebook_file(name)
    os.chdir(path.parent)
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    injected = "\n".join(f"{key} = {value!r}" for key, value in params.items())
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        tagged = "parameters" in cell.get("metadata", {}).get("tags", [])
        for code in [source, injected] if tagged else [source]:
            result = shell.run_cell(code, silent=True)
            if not result.success:
                err = result.error_in_exec or result.error_before_exec
                return f"failed: {type(err).__name__}: {err}"
    return "ok"


def _import_once(names: list[str]) -> None:
    """Run the notebooks' top-level ``import`` statements in this process before it forks, so that each
    forked notebook finds its libraries (pandas, scipy.stats, scikit-learn, its paper's package) imported."""
    import ast

    for name in names:
        for cell in json.loads(notebook_file(name).read_text(encoding="utf-8"))["cells"]:
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            if cell["cell_type"] != "code" or "import" not in source:
                continue
            try:
                imports = [node for node in ast.parse(source).body if isinstance(node, (ast.Import, ast.ImportFrom))]
                exec(compile(ast.Module(imports, type_ignores=[]), name, "exec"), {})
            except Exception:  # the notebook's own run reports it
                continue


def _count_one(name: str, params: dict[str, Any], status_file: Path) -> None:
    """A forked child: run one notebook with the counting model (:func:`_run_cells`), its output
    in ``<status_file>.log``, its status in ``status_file``."""
    with status_file.with_suffix(".log").open("w", encoding="utf-8") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            status = _run_cells(name, params)
        except BaseException as err:  # the child reports every failure in its status file
            status = f"failed: {type(err).__name__}: {err}"
        status_file.write_text(status, encoding="utf-8")


def count_notebooks(active: list[tuple[str, dict[str, Any]]], *, jobs: int, work_dir: Path) -> dict[str, str]:
    """Run each notebook of ``active`` under the counting model in a process forked from this one,
    ``jobs`` at a time: the libraries this process imported and the tokenizer it loaded are shared,
    so a notebook costs its own request-building work only (no kernel start, no imports). Returns
    each notebook's status (``ok`` or ``failed: …``)."""
    from multiprocessing.connection import wait

    import matplotlib

    matplotlib.use("Agg")  # before the fork: no notebook opens a window
    import IPython.core.interactiveshell  # noqa: F401  (imported once for every child)

    _import_once([name for name, _ in active])

    folder = work_dir / "status"
    folder.mkdir(parents=True, exist_ok=True)
    fork = multiprocessing.get_context("fork")
    pending, running, status = list(active), {}, {}
    while pending or running:
        while pending and len(running) < max(1, jobs):
            name, params = pending.pop(0)
            child = fork.Process(target=_count_one, args=(name, params, folder / name.replace("/", "__")))
            sys.stdout.flush()
            sys.stderr.flush()
            child.start()
            running[child.sentinel] = (name, child)
        for sentinel in wait(list(running)):
            name, child = running.pop(sentinel)
            child.join()
            file = folder / name.replace("/", "__")
            status[name] = (file.read_text(encoding="utf-8") if file.exists()
                            else f"failed: the counting process exited with {child.exitcode}")
    return status


def plan_requests(run_plan: Any, *, model: str | None = None, jobs: int = 1, work_dir: Path,
                  params: float | None = None, calibrate_models: bool = True, recalibrate: bool = False) -> pd.DataFrame:
    """Run every notebook of ``run_plan`` that names a model with counting models; return the
    :func:`summarize` table (``attrs["basis"]``: how the rates were obtained).

    The notebooks write their outputs under ``work_dir`` (not the real runs or figures folders).
    Notebooks with no model or encoder parameter are not executed (``counting_run``: "no model").
    """

    logs = work_dir / "requests"
    logs.mkdir(parents=True, exist_ok=True)
    defaults = {n: notebook_defaults(notebook_file(n)) for n, _ in run_plan.jobs}
    jobs_ = [(n, {**p, **({"model": model} if model and "model" in defaults[n] else {})}) for n, p in run_plan.jobs]
    active = [(n, p) for n, p in jobs_ if has_model_parameter({**defaults[n], **p})]
    env = {ENV: str(logs), "CULTURELAB_RUNS": str(work_dir / "runs"), "CULTURELAB_FIGURES": str(work_dir / "figures"),
           "CULTURELAB_RUN_NAME": "plan"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        if "fork" in multiprocessing.get_all_start_methods():
            for spec in {p.get("model") or defaults[n].get("model") for n, p in active} - {None}:
                offline_tokenizer(spec)  # loaded once here, shared by every forked notebook
            status = count_notebooks(active, jobs=jobs, work_dir=work_dir)
        else:  # no fork (Windows): each notebook in a kernel of its own, as a run does
            status = execute(RunPlan(run_plan.params_file, "plan", work_dir / "figures", active), jobs=jobs)
            status = dict(zip(status["notebook"], status["status"]))
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    counts = {}
    for name, _ in jobs_:
        f = logs / (name.replace("/", "__") + ".jsonl")
        counts[name] = [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []
    spec = model or (jobs_[0][1].get("model") if jobs_ else None) or REFERENCE
    tokens = "tokenizer" if offline_tokenizer(spec) is not None else "chars/4 estimate"
    rates: dict[str, Any] = {}
    basis = []
    measure, measure_encoder = remembered(calibrate, refresh=recalibrate), remembered(calibrate_encoder, refresh=recalibrate)
    if calibrate_models:
        for s in sorted({r["model"] for rs in counts.values() for r in rs}):
            if any(r["model"] == s and r["kind"] == "embed" for rs in counts.values() for r in rs):
                rates[s] = measure_encoder(s)
                if isinstance(rates[s], dict):
                    rates[s] = dict(rates[s])
                    basis.append(f"{s}: measured on {rates[s].pop('where')}")
                else:
                    basis.append(f"{s}: {rates[s]}")
            else:
                rates[s], how = model_rates(s, params=params if s == spec else None, measure=measure)
                basis.append(how)
    table = summarize(counts, rates, tokens)
    table["counting_run"] = [status.get(n, "no model" if n != "TOTAL" else "") for n in table["notebook"]]
    table.attrs["basis"] = basis
    return table
