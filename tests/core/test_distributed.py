"""The parts of the Ray support that need no Ray: ``ray:N:`` specs validate like the others, chunks
that come back out of order are committed in place, cache shards merge into the run's cache and a
re-run reuses every merged answer, the wall time on N workers, and one line on how to install Ray.
(The tests that start a Ray cluster are in test_ray.py, ``make test-ray``.)"""

from __future__ import annotations

import sys

import pytest

from culturelab import config
from culturelab.cli import main
from culturelab.distributed.schedule import wall_seconds
from culturelab.models import capabilities, parse_spec
from culturelab.models.base import LanguageModel, LogLikelihood
from culturelab.models.cache import SHARD_ENV, ResponseCache, ShardedCache, default_cache, merge_into
from culturelab.params import check_value


class Scorer(LanguageModel):
    """log P = -len(context + continuation); generates the prompt upper-cased; counts computed requests.
    ``reverse``: chunks computed last to first, as workers finishing out of order would hand them back."""

    backend = "fake"

    def __init__(self, cache, reverse: bool = False):
        super().__init__("scorer", "r1", cache=cache, progress=False, chunk_size=3)
        self.reverse, self.computed = reverse, 0

    def _generate(self, prompts, **params):
        self.computed += len(prompts)
        return [p.upper() for p in prompts]

    def _loglikelihood(self, requests):
        self.computed += len(requests)
        return [LogLikelihood(-float(len(c + x)), len(x), False) for c, x in requests]

    def _map_chunks(self, compute, chunks):
        order = range(len(chunks) - 1, -1, -1) if self.reverse else range(len(chunks))
        for i in order:
            yield i, compute(chunks[i])


PAIRS = [(f"context {i % 4} " + "x" * i, f" option {i}") for i in range(11)]
GROUPS = [(f"query {g} ", [f"candidate {i}" * (g + 1) for i in range(7)]) for g in range(3)]


def test_chunks_that_come_back_out_of_order_are_answered_in_request_order(tmp_path):
    plain, shuffled = Scorer(ResponseCache(tmp_path / "a.sqlite")), Scorer(ResponseCache(tmp_path / "b.sqlite"), True)
    prompts = [f"prompt {i}" for i in range(8)]
    assert shuffled.loglikelihood(PAIRS) == plain.loglikelihood(PAIRS)
    assert shuffled.generate(prompts) == plain.generate(prompts) == [p.upper() for p in prompts]
    assert shuffled.loglikelihood_groups(GROUPS) == plain.loglikelihood_groups(GROUPS)
    assert len(ResponseCache(tmp_path / "b.sqlite")) == len(ResponseCache(tmp_path / "a.sqlite"))


def test_a_shard_writes_its_own_file_reads_the_runs_cache_and_a_rerun_reuses_every_merged_answer(
        tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("CULTURELAB_CACHE", str(cache_dir))
    base = cache_dir / "responses.sqlite"
    Scorer(ResponseCache(base)).loglikelihood(PAIRS[:4])  # an earlier run's answers
    monkeypatch.setenv(SHARD_ENV, str(tmp_path / "shards" / "nb.sqlite"))
    shard = default_cache()
    assert isinstance(shard, ShardedCache)
    worker = Scorer(shard)
    first = worker.loglikelihood(PAIRS)
    assert worker.computed == len(PAIRS) - 4 and worker.stats.cached == 4  # the run's answers were read
    assert len(ResponseCache(base)) == 4  # … and the run's cache was not written
    assert merge_into(base, shard.path) == len(PAIRS) - 4
    assert merge_into(base, shard.path) == 0  # INSERT OR IGNORE: merging again adds nothing
    monkeypatch.delenv(SHARD_ENV)
    rerun = Scorer(default_cache())
    assert rerun.loglikelihood(PAIRS) == first and rerun.computed == 0


def test_ray_specs_validate_like_the_others_and_delegate_capabilities(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec  # as where Ray is installed
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: real("json") if name == "ray" else real(name, *a))
    assert parse_spec("ray:4:hf:Qwen/Qwen2.5-7B") == ("ray", "4:hf:Qwen/Qwen2.5-7B")
    for bad in ("ray:2:gpt-4o", "ray:0:bundled:gemma3-270m", "ray:two:bundled:gemma3-270m",
                "ray:2:ray:2:bundled:gemma3-270m", "ray:2:bundled:no-such-model"):
        with pytest.raises(ValueError, match="model spec"):
            parse_spec(bad)
    assert check_value("model", "ray:2:bundled:gemma3-270m", "bundled:gemma3-270m") is None
    assert "must look like" in check_value("model", "ray:x:bundled:gemma3-270m", "bundled:gemma3-270m")
    assert capabilities("ray:2:openai:gpt-4o") == capabilities("openai:gpt-4o")


def test_without_ray_a_ray_spec_and_the_ray_executor_say_how_to_install_it(monkeypatch, capsys, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    monkeypatch.setitem(sys.modules, "ray", None)
    assert check_value("model", "ray:2:bundled:gemma3-270m", "x") == (
        "'ray:2:bundled:gemma3-270m': Ray is not installed: pip install -e '.[ray]' (or pip install 'ray>=2.40,<3')")
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    params = tmp_path / "p.yaml"
    params.write_text("common: {seed: 0}\n")
    assert main(["run", str(params), "-n", "00_quickstart", "--executor", "ray"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "culturelab: Ray is not installed: pip install -e '.[ray]' (or pip install 'ray>=2.40,<3')"]


def test_wall_time_on_n_workers_respects_the_order_notebooks_depend_on():
    seconds = {"captex/02_reordering": 6.0, "captex/05_aggregate": 3.0, "fmlama/02_probing": 5.0,
               "percul/01_benchmark": 4.0, "profile": 1.0}
    assert wall_seconds(seconds, 1) == sum(seconds.values())
    # two workers: captex/02 (the longest chain, 6 + 3 + 1) and fmlama/02 first; then percul, the
    # aggregate once captex/02 is done (t = 6), the profile after everything (t = 9)
    assert wall_seconds(seconds, 2) == 10.0
    assert wall_seconds(seconds, 8) == 10.0  # the captex chain bounds it however many workers


def test_plan_prints_the_wall_time_on_n_ray_workers(monkeypatch, capsys):
    import pandas as pd

    from culturelab import planning

    def fake_plan(run_plan, **kwargs):
        table = pd.DataFrame({"notebook": ["fmlama/02_probing", "percul/01_benchmark", "TOTAL"],
                              "est_seconds": [5.0, 4.0, 9.0]})
        table.attrs.update(basis=["measured: fake"], unpriced=[])
        return table

    monkeypatch.setattr(planning, "plan_requests", fake_plan)
    smoke = str(config.project_root() / "papermill_params" / "smoke.yaml")
    assert main(["plan", smoke, "-n", "fmlama/02_probing", "-n", "percul/01_benchmark",
                 "--executor", "ray", "--workers", "2"]) == 0
    assert "# wall time on 2 Ray workers: 5 s (one worker: 9 s;" in capsys.readouterr().out
