"""On a local Ray cluster of two CPU workers (started here, shut down at the end): a smoke notebook
run as a Ray task gives the local executor's results byte for byte and its re-run is served by the
merged cache; a ``ray:2:`` model gives the single process's numbers, also when one of its actors is
killed mid-run; a notebook whose worker dies is run again and resumes from its cache shard.

Marked ``ray`` (``make test-ray``; skipped where Ray is not installed): starting the cluster and the
notebooks' kernels takes minutes on two cores, beyond ``make test``'s budget (benchmarks/README.md)."""

from __future__ import annotations

import dataclasses
import json
import socket
import threading

import pytest

from culturelab import config, runner
from culturelab.distributed import connect
from culturelab.distributed.executor import fetch, fingerprint, shard_path
from culturelab.models import load_model
from culturelab.models.base import PermutationConstraint
from culturelab.models.cache import ResponseCache
from culturelab.runner import RunPlan, execute, plan

from .test_runner import _tiny_notebook

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"


@pytest.fixture(scope="module")
def cluster(request):
    """A local Ray cluster of two CPUs for this module, shut down whatever happens."""
    if ray.is_initialized():
        ray.shutdown()
    request.addfinalizer(ray.shutdown)
    connect(num_cpus=2)
    return ray


@pytest.fixture()
def one_thread():
    """The single-process reference on one thread, as each actor computes (on a CPU a sum over
    another number of threads can differ in its last bit)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _run_in(folder, monkeypatch, converted_models, run_plan, executor):
    """``execute`` with runs, figures and a fresh cache (the converted models linked in) under ``folder``."""
    cache = folder / "cache"
    if not cache.exists():
        cache.mkdir(parents=True)
        (cache / "models").symlink_to(converted_models, target_is_directory=True)
    for var, sub in (("CULTURELAB_CACHE", "cache"), ("CULTURELAB_RUNS", "runs"), ("CULTURELAB_FIGURES", "figures")):
        monkeypatch.setenv(var, str(folder / sub))
    monkeypatch.setenv("CULTURELAB_RUN_NAME", run_plan.run_name)  # execute sets these: restored afterwards
    return execute(dataclasses.replace(run_plan, figures_dir=folder / "figures"), jobs=1, executor=executor)


def test_a_smoke_notebook_on_ray_matches_the_local_executor_and_a_rerun_reuses_the_merged_cache(
        cluster, tmp_path, monkeypatch, converted_models):
    run_plan = plan(SMOKE, ["00_quickstart"])
    local = _run_in(tmp_path / "local", monkeypatch, converted_models, run_plan, "local")
    on_ray = _run_in(tmp_path / "ray", monkeypatch, converted_models, run_plan, "ray")
    assert list(local["status"]) == list(on_ray["status"]) == ["ok"], (local, on_ray)
    assert list(on_ray.columns) == [*local.columns, "node"] and on_ray.loc[0, "node"] == socket.gethostname()
    tables = sorted(p.name for p in (tmp_path / "local" / "runs" / "smoke" / "00_quickstart").glob("*.csv"))
    assert tables
    for name in tables:
        ours = (tmp_path / "ray" / "runs" / "smoke" / "00_quickstart" / name).read_bytes()
        assert ours == (tmp_path / "local" / "runs" / "smoke" / "00_quickstart" / name).read_bytes(), name
    # the task's shard was merged into the run's cache and removed; a re-run computes nothing
    assert not shard_path("smoke", "00_quickstart").exists()
    info = tmp_path / "ray" / "runs" / "smoke" / "00_quickstart" / "run_info.json"
    calls = json.loads(info.read_text())["models"]["bundled:gemma3-270m"]["calls"]
    assert len(ResponseCache(tmp_path / "ray" / "cache" / "responses.sqlite")) == calls["computed"] > 0
    rerun = _run_in(tmp_path / "ray", monkeypatch, converted_models, run_plan, "ray")
    assert list(rerun["status"]) == ["ok"]
    calls = json.loads(info.read_text())["models"]["bundled:gemma3-270m"]["calls"]
    assert calls["computed"] == 0 and calls["cached"] == calls["requested"] > 0


def test_a_sharded_bundled_model_gives_the_single_process_scores(cluster, tmp_cache, one_thread):
    single = load_model("bundled:gemma3-270m", device="cpu", cache=False, progress=False, chunk_size=6)
    sharded = load_model("ray:2:bundled:gemma3-270m", device="cpu", cache=False, progress=False, chunk_size=6)
    assert sharded.identity() == single.identity() and sharded.spec == "ray:2:bundled:gemma3-270m"
    questions = [f"Question: which dish comes from {c}?\nAnswer:" for c in ("Japan", "Italy", "Iran", "Turkey")]
    pairs = [(q, f" {dish}") for q in questions for dish in ("sushi", "pizza", "ghormeh sabzi", "baklava", "pho")]
    assert sharded.loglikelihood(pairs) == single.loglikelihood(pairs)
    assert sharded.generate(questions, max_new_tokens=6) == single.generate(questions, max_new_tokens=6)
    assert sharded.describe()["sharded"]["ray_actors"] == 2


def test_killing_an_actor_mid_run_still_gives_identical_results(cluster, tiny_causal_dir, tmp_path, one_thread,
                                                                monkeypatch):
    single = load_model(f"hf:{tiny_causal_dir}", device="cpu", cache=False, progress=False, chunk_size=4)
    cache = ResponseCache(tmp_path / "responses.sqlite")
    sharded = load_model(f"ray:2:hf:{tiny_causal_dir}", device="cpu", cache=cache, progress=False, chunk_size=4)
    chunks_in = sharded._map_chunks

    def kill_after_the_first_chunk(compute, chunks):  # the test kills a worker while chunks are in flight
        for n, item in enumerate(chunks_in(compute, chunks)):
            if n == 0:
                ray.kill(sharded.actors[0])
            yield item

    monkeypatch.setattr(sharded, "_map_chunks", kill_after_the_first_chunk)
    pairs = [(f"tea {'rice ' * (i % 5)}cooked {i}", c) for i in range(24) for c in (" with sugar", " saffron")]
    answers = {}
    worker = threading.Thread(target=lambda: answers.update(ll=sharded.loglikelihood(pairs)))
    worker.start()
    worker.join(timeout=600)
    assert answers["ll"] == single.loglikelihood(pairs)
    assert sharded.replaced == 1 and len(cache) == len(set(pairs))
    assert (sharded.generate(["rice is", "tea"], constraint=PermutationConstraint.letters(3))
            == single.generate(["rice is", "tea"], constraint=PermutationConstraint.letters(3)))


def test_a_notebook_whose_worker_dies_is_run_again_and_resumes_from_its_cache_shard(cluster, tmp_path, monkeypatch):
    source = f"""
import os
from pathlib import Path
from culturelab.models.cache import default_cache
cache = default_cache()
found = len(cache.get_many([f"k{{i}}" for i in range(10)]))
marker = Path({str(tmp_path / "died")!r})
if not marker.exists():  # the first try: half the answers, then its worker dies as with a lost node
    cache.put_many({{f"k{{i}}": i for i in range(5)}})
    marker.write_text("once")
    os.kill(os.getppid(), 9)
    os._exit(1)
cache.put_many({{f"k{{i}}": i for i in range(10)}})
Path({str(tmp_path / "found.txt")!r}).write_text(str(found))
"""
    _tiny_notebook(tmp_path / "dies.ipynb", source)
    _tiny_notebook(tmp_path / "bad.ipynb", "raise ValueError('broken on purpose')")
    _tiny_notebook(tmp_path / "gpu.ipynb", "x = 1")
    monkeypatch.setattr(runner, "notebook_file", lambda name: tmp_path / f"{name}.ipynb")
    for var, sub in (("CULTURELAB_CACHE", "cache"), ("CULTURELAB_RUNS", "runs")):
        monkeypatch.setenv(var, str(tmp_path / sub))
    monkeypatch.setenv("CULTURELAB_RUN_NAME", "retry")
    jobs = [("dies", {}), ("bad", {}), ("gpu", {"device": "cuda"})]
    summary = execute(RunPlan(tmp_path / "p.yaml", "retry", None, jobs), executor="ray")
    assert summary.loc[0, "status"] == "ok", summary
    assert (tmp_path / "found.txt").read_text() == "5"  # the second try found the first one's answers
    assert summary.loc[1, "status"].startswith("failed: ValueError") and "broken on purpose" in summary.loc[1, "status"]
    assert (tmp_path / "runs" / "retry" / "bad.ipynb").is_file()
    assert summary.loc[2, "status"].startswith("failed: not run: its device asks for a GPU")  # never scheduled
    assert len(ResponseCache(tmp_path / "cache" / "responses.sqlite")) == 10
    assert not list((tmp_path / "cache" / "shards" / "retry").glob("*"))


def test_a_sharded_model_asking_for_gpus_on_a_cluster_without_any_says_so(cluster, tiny_causal_dir):
    with pytest.raises(RuntimeError, match="asks for a GPU per actor, but the Ray cluster has none"):
        load_model(f"ray:2:hf:{tiny_causal_dir}", device="cuda", cache=False)


def test_files_the_driver_does_not_see_are_copied_from_the_node_that_wrote_them(cluster, tmp_path):
    written = tmp_path / "runs" / "results.csv"
    written.parent.mkdir()
    written.write_text("a,b\n1,2\n")
    outputs = {"node_id": ray.get_runtime_context().get_node_id(), "files": {str(written): (999, 0)}}
    assert fetch(ray, outputs) == [str(written)] and written.read_text() == "a,b\n1,2\n"
    outputs["files"] = {str(written): fingerprint(written)}
    assert fetch(ray, outputs) == []
