"""``culturelab run FILE --executor ray``: each notebook of a batch as a Ray task.

The driver (the ``culturelab run`` process) submits a notebook once the notebooks it depends on
(:func:`culturelab.runner.depends_on`) have finished, longest chains first, each task asking for
one CPU and, where its ``device`` asks for one (``cuda``, or ``auto`` on a cluster with GPUs), one
GPU; Ray places them on the cluster's nodes. A task executes its notebook with papermill exactly as
the local executor does (the runner hands its papermill call over), with the driver's folders and
settings, and its model answers go to **a cache shard of its own** (``$CULTURELAB_CACHE_SHARD``:
``<cache>/shards/<run>/<notebook>.sqlite``, read in front of the run's cache,
:class:`~culturelab.models.cache.ShardedCache`): no two processes write one SQLite file. A
notebook that fails, or whose worker or node dies, is run again (Ray's ``max_retries``) and resumes
from its shard and the run's cache. When a task is done the driver copies back the files it wrote
that it cannot see (a node without the driver's file system), merges its shard into the run's
cache (``ATTACH`` + ``INSERT OR IGNORE``; the driver is that file's only writer) and removes it, so
a re-run reuses every answer. The summary has one more column than the local executor's: ``node``,
the host that ran each notebook.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from culturelab import config
from culturelab.distributed import connect, require_ray
from culturelab.models.cache import SHARD_ENV, merge_into
from culturelab.models.ray_backend import split_ray_spec, wants_gpu
from culturelab.params import notebook_defaults

#: times a notebook that failed, or whose worker or node died, is run again
RETRIES = 2
#: the summary's columns under this executor
COLUMNS = ["notebook", "status", "seconds", "output", "node"]
#: settings of the driver's environment a task runs with (besides its folders): culturelab's, the
#: Hugging Face libraries' (offline mode, hub cache), matplotlib's backend
_PASSED = ("CULTURELAB_", "HF_", "TRANSFORMERS_", "MPLBACKEND")


class NotebookFailed(Exception):
    """Raised in a task whose notebook failed, so that Ray runs it again; carries the summary row
    and the files of the last try.

    >>> import pickle; err = pickle.loads(pickle.dumps(NotebookFailed({"status": "failed: x"}, {})))
    >>> str(err), err.row
    ('failed: x', {'status': 'failed: x'})
    """

    def __init__(self, row: dict[str, Any], outputs: dict[str, Any]):
        super().__init__(row["status"])
        self.row, self.outputs = row, outputs

    def __reduce__(self) -> tuple:
        return NotebookFailed, (self.row, self.outputs)


def shard_path(run_name: str, notebook: str) -> Path:
    """The cache shard a notebook's task writes.

    >>> shard_path("smoke", "captex/02_reordering").relative_to(config.cache_dir()).as_posix()
    'shards/smoke/captex__02_reordering.sqlite'
    """
    return config.cache_dir() / "shards" / run_name / f"{notebook.replace('/', '__')}.sqlite"


def task_env() -> dict[str, str]:
    """The environment a task runs its notebook with: the driver's settings (:data:`_PASSED`) and its
    folders (absolute).

    >>> env = task_env(); Path(env["CULTURELAB_RUNS"]) == config.runs_dir(), "CULTURELAB_CACHE_SHARD" in env
    (True, False)
    """
    env = {k: v for k, v in os.environ.items() if k.startswith(_PASSED) and k != SHARD_ENV}
    env.update(CULTURELAB_RUNS=str(config.runs_dir()), CULTURELAB_FIGURES=str(config.figures_dir()),
               CULTURELAB_CACHE=str(config.cache_dir()), CULTURELAB_DATA=str(config.data_dir()))
    return env


def resources(notebook_path: str, params: dict[str, Any], cluster_gpus: float) -> dict[str, float]:
    """What a notebook's task asks Ray for: one CPU, and one GPU where its ``device`` asks for one
    (a ``ray:N:`` model's actors hold their own GPUs instead).

    >>> from culturelab.runner import notebook_file
    >>> nb = str(notebook_file("00_quickstart"))
    >>> resources(nb, {"device": "auto"}, 0), resources(nb, {"device": "auto"}, 4)
    ({'num_cpus': 1, 'num_gpus': 0}, {'num_cpus': 1, 'num_gpus': 1})
    >>> resources(nb, {"device": "auto", "model": "ray:2:bundled:gemma3-270m"}, 4)["num_gpus"]
    0
    """
    full = {**notebook_defaults(notebook_path), **params}
    sharded = any(isinstance(v, str) and split_ray_spec(v) for k, v in full.items() if k.endswith("model"))
    gpu = "device" in full and not sharded and wants_gpu(str(full["device"]), cluster_gpus)
    return {"num_cpus": 1, "num_gpus": 1 if gpu else 0}


def written_files(run_name: str, notebook: str, info: dict[str, Any], shard: Path) -> list[Path]:
    """The files a notebook's run wrote: its executed notebook, its results folder, the figures
    its ``run_info.json`` lists, and its cache shard.

    >>> written_files("r", "nb", {}, Path("/nonexistent.sqlite"))
    []
    """
    folder = config.runs_dir() / run_name / notebook
    found = [config.runs_dir() / run_name / f"{notebook}.ipynb", shard, *(Path(p) for p in info.get("figures", []))]
    found += [p for p in sorted(folder.rglob("*")) if p.is_file()] if folder.is_dir() else []
    return [p for p in dict.fromkeys(found) if p.is_file()]


def fingerprint(path: Path) -> tuple[int, int]:
    """Size and modification time (ns) of a file: the same on a shared file system, different for
    a copy on another node (the copy is fetched then)."""
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def run_notebook(run_one: Callable[[tuple], dict[str, Any]], job: tuple,
                 env: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The task: execute one notebook with ``run_one(job)`` (the runner's papermill call) and
    ``env`` (the driver's settings and this notebook's shard); its summary row with ``node``, and
    what it wrote (``files``: path → :func:`fingerprint`; ``node_id``). Raises
    :class:`NotebookFailed` when the notebook failed, so that Ray runs it again."""
    import json
    from unittest import mock

    import ray

    # a ray:N model in the notebook joins this cluster instead of starting one
    with mock.patch.dict(os.environ, {**env, "RAY_ADDRESS": ray.get_runtime_context().gcs_address}):
        row = {**run_one(job), "node": socket.gethostname()}
        name, run_name = job[0], job[3]
        info_file = config.runs_dir() / run_name / name / "run_info.json"
        info = json.loads(info_file.read_text(encoding="utf-8")) if info_file.is_file() else {}
        files = written_files(run_name, name, info, Path(env[SHARD_ENV]))
    outputs = {"node_id": ray.get_runtime_context().get_node_id(),
               "files": {str(p): fingerprint(p) for p in files}}
    if not row["status"].startswith("ok"):
        raise NotebookFailed(row, outputs)
    return row, outputs


def read_files(paths: list[str]) -> dict[str, bytes]:
    """The bytes of files on the node this runs on (the driver asks the node that wrote them)."""
    return {p: Path(p).read_bytes() for p in paths}


def missing_here(files: dict[str, tuple[int, int]]) -> list[str]:
    """The files of a task's manifest that this machine does not see as the task left them.

    >>> import tempfile; f = Path(tempfile.mkdtemp()) / "a.txt"; _ = f.write_text("x")
    >>> missing_here({str(f): fingerprint(f), "/nonexistent/b.txt": (1, 0)})
    ['/nonexistent/b.txt']
    """
    return [p for p, stamp in files.items() if not Path(p).is_file() or fingerprint(Path(p)) != tuple(stamp)]


def fetch(ray: Any, outputs: dict[str, Any]) -> list[str]:
    """Copy the files of a task that this machine does not see (a node without the driver's file
    system) from the node that wrote them; the paths copied."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    paths = missing_here(outputs.get("files", {}))
    if not paths:
        return []
    strategy = NodeAffinitySchedulingStrategy(outputs["node_id"], soft=False)
    for path, blob in ray.get(ray.remote(read_files).options(scheduling_strategy=strategy, num_cpus=0)
                              .remote(paths)).items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(blob)
    return paths


def merge_shards(shards: list[Path]) -> int:
    """Merge cache shards into the run's cache (:func:`~culturelab.models.cache.merge_into`) and
    remove them; the rows added.

    >>> merge_shards([])
    0
    """
    base = config.cache_dir() / "responses.sqlite"
    added = 0
    for shard in shards:
        if shard.is_file():
            added += merge_into(base, shard)
            for leftover in (shard, *shard.parent.glob(shard.name + "-*")):
                leftover.unlink(missing_ok=True)
    return added


def _finished(ray: Any, ref: Any, name: str) -> dict[str, Any]:
    """A finished task's summary row, the files it wrote copied here where this machine does not see them."""
    from ray.exceptions import RayError

    outputs: dict[str, Any] = {}
    try:
        row, outputs = ray.get(ref)
    except RayError as err:
        cause = getattr(err, "cause", None)
        if isinstance(cause, NotebookFailed):  # the notebook failed on every try
            row, outputs = cause.row, cause.outputs
        else:  # its worker or node died on every try
            detail = str(err).strip().splitlines()[0] if str(err).strip() else ""
            row = {"notebook": name, "status": f"failed: its Ray task died: {type(err).__name__}: {detail}",
                   "seconds": float("nan"), "output": "", "node": ""}
    try:
        fetch(ray, outputs)
    except RayError as err:  # the node left with the files
        row["status"] += f" (its files were lost with its node: {type(err).__name__})"
    return row


def execute_on_ray(work: list[tuple], waits: dict[str, set[str]], run_one: Callable[[tuple], dict[str, Any]], *,
                   address: str | None = None, num_cpus: int | None = None,
                   retries: int = RETRIES) -> list[dict[str, Any]]:
    """Run ``work`` (``run_one``'s arguments, notebook name first, in priority order; each notebook
    after those ``waits`` names for it) as Ray tasks on the cluster at ``address`` (else a local
    one of ``num_cpus`` CPUs, shut down afterwards); one summary row per notebook, with the ``node``
    that ran it."""
    ray = require_ray()
    started = connect(address, num_cpus=num_cpus)
    try:
        return _run_all(ray, work, waits, run_one, retries)
    finally:
        if started:
            ray.shutdown()


def _run_all(ray: Any, work: list[tuple], waits: dict[str, set[str]], run_one: Callable[[tuple], dict[str, Any]],
             retries: int) -> list[dict[str, Any]]:
    if not work:
        return []
    run_name = work[0][3]
    merge_shards(sorted((config.cache_dir() / "shards" / run_name).glob("*.sqlite")))  # of a run cut short
    env, gpus = task_env(), ray.cluster_resources().get("GPU", 0)
    task = ray.remote(run_notebook)
    pending, running, done, rows = list(work), {}, set(), []
    while pending or running:
        for job in [job for job in pending if waits[job[0]] <= done]:
            pending.remove(job)
            options = {**resources(job[1], job[2], gpus), "max_retries": retries, "retry_exceptions": [NotebookFailed],
                       "name": f"notebook {job[0]}"}
            if options["num_gpus"] > gpus:  # it would wait for a GPU for ever
                rows.append({"notebook": job[0], "status": "failed: not run: its device asks for a GPU and the Ray "
                             "cluster has none (use device: auto)", "seconds": float("nan"), "output": "", "node": ""})
                done.add(job[0])
                continue
            shard = {**env, SHARD_ENV: str(shard_path(run_name, job[0]))}
            running[task.options(**options).remote(run_one, job, shard)] = job
        if not running:
            if pending and not any(waits[job[0]] <= done for job in pending):
                raise RuntimeError(f"notebooks wait for each other: {sorted(job[0] for job in pending)}")
            continue
        ready, _ = ray.wait(list(running), num_returns=1)
        for ref in ready:
            name = running.pop(ref)[0]
            rows.append(_finished(ray, ref, name))
            merge_shards([shard_path(run_name, name)])
            done.add(name)
    return rows
