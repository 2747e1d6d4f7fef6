"""Runner and parameters: bad values fail fast with one readable line per key and load no
model; plain papermill runs validate inside the notebook too; secrets never reach outputs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import papermill as pm
import pytest

from culturelab import config
from culturelab.cli import main
from culturelab.params import ParameterError, check_value, notebook_defaults, validate
from culturelab.runner import plan, redact_params

from .fake_openai import FakeOpenAI

QUICKSTART = config.notebooks_dir() / "00_quickstart.ipynb"


def write(tmp_path, text: str):
    path = tmp_path / "params.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_bad_parameter_file_fails_fast_without_loading_a_model(tmp_path):
    bad = write(tmp_path, """
        common:
          model: bundled:gemma3-270m
          devise: cpu
        notebooks:
          00_quickstart:
            n_questions: "four"
            model: gpt-4o
    """)
    code = textwrap.dedent(f"""
        import sys
        from culturelab.cli import main
        rc = main(["run", {str(bad)!r}])
        heavy = [m for m in ("torch", "transformers") if m in sys.modules]
        print("RC", rc, "HEAVY", heavy)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "RC 2 HEAVY []" in out.stdout, out.stdout + out.stderr
    err = out.stderr
    assert "common.devise: unknown parameter (no notebook declares it)" in err
    assert "notebooks.00_quickstart.n_questions: expected int" in err
    assert "notebooks.00_quickstart.model: model spec 'gpt-4o'" in err


def test_plan_merges_common_and_per_notebook_values(tmp_path):
    good = write(tmp_path, """
        run_name: t
        common: {seed: 3, model: bundled:smollm2-135m}
        notebooks: {00_quickstart: {n_questions: 2}}
    """)
    run_plan = plan(good, ["00_quickstart"])
    assert run_plan.run_name == "t"
    assert run_plan.jobs == [("00_quickstart", {"seed": 3, "model": "bundled:smollm2-135m", "n_questions": 2})]


@pytest.mark.parametrize(("key", "value", "default", "fragment"), [
    ("data_dir", "/no/such/dir", None, "does not exist"),
    ("device", "gpu", "auto", "not a device"),
    ("seed", -1, 0, "must be ≥ 0"),
    ("methods", "generate", ["loglikelihood"], "expected list"),
    ("encoder", "bundled:bert", "bundled:minilm", "bundled encoders are"),
    ("model", "replay", "bundled:gemma3-270m", "must look like"),
])
def test_check_value_rejects(key, value, default, fragment):
    assert fragment in check_value(key, value, default)


def test_validate_accepts_ints_for_floats_and_none_defaults():
    assert validate({"temperature": 1, "max_instances": 5}, {"temperature": 0.0, "max_instances": None}) == []


def test_notebook_defaults_reads_the_parameters_cell():
    defaults = notebook_defaults(QUICKSTART)
    assert defaults["model"] == "bundled:gemma3-270m" and defaults["methods"] == ["loglikelihood", "generate"]


def test_plain_papermill_with_a_wrong_type_stops_at_start_run(tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    with pytest.raises(pm.PapermillExecutionError) as err:
        pm.execute_notebook(str(QUICKSTART), str(tmp_path / "out.ipynb"), parameters={"n_questions": "all"},
                            kernel_name="python3", cwd=str(QUICKSTART.parent), progress_bar=False)
    assert err.value.ename == "ParameterError" and "n_questions: expected int" in err.value.evalue
    executed = json.loads((tmp_path / "out.ipynb").read_text())
    model_cells = [c for c in executed["cells"] if c["cell_type"] == "code" and "run.model()" in "".join(c["source"])]
    assert model_cells and model_cells[0]["execution_count"] is None  # never reached


def test_api_key_never_appears_in_the_executed_notebook(tmp_path, monkeypatch, tmp_cache):
    secret = "sk-culturelab-test-SECRET-4242"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "figures"))
    with FakeOpenAI(answer="B") as server:
        out = tmp_path / "quickstart.ipynb"
        pm.execute_notebook(str(QUICKSTART), str(out), kernel_name="python3", cwd=str(QUICKSTART.parent),
                            progress_bar=False, parameters={
                                "model": f"openai-compatible:{server.base_url}#fake", "n_questions": 4,
                                "methods": ["loglikelihood", "generate"]})
        assert server.headers[0]["authorization"] == f"Bearer {secret}"  # the key was used…
    written = [out, *(tmp_path / "runs").rglob("*.*"), *(tmp_path / "figures").rglob("*.*")]
    assert len(written) > 3
    for path in written:  # …and is nowhere in what the run wrote
        assert secret.encode() not in path.read_bytes(), path


def test_redact_params_hides_secret_like_names_but_keeps_sizes():
    params = {"api_key": "sk-1", "hf_token": "x", "token": "t", "OPENAI_API_KEY": "k", "model": "m",
              "max_new_tokens": 40, "token_budget": 16384, "keys": ["a"]}
    assert redact_params(params) == {"api_key": "***", "hf_token": "***", "token": "***", "OPENAI_API_KEY": "***",
                                     "model": "m", "max_new_tokens": 40, "token_budget": 16384, "keys": ["a"]}


def test_cli_check_lists_jobs(capsys):
    assert main(["check", str(config.project_root() / "papermill_params" / "smoke.yaml"), "-n", "00_quickstart"]) == 0
    assert "00_quickstart" in capsys.readouterr().out


def test_unknown_notebook_is_reported():
    with pytest.raises(ParameterError, match="matches no notebook"):
        plan(config.project_root() / "papermill_params" / "smoke.yaml", ["nope/*"])


def test_an_empty_plan_still_writes_its_summary(tmp_path, monkeypatch):
    from culturelab.runner import RunPlan, execute

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    summary = execute(RunPlan(tmp_path / "none.yaml", "empty", None, []))
    assert summary.empty and (tmp_path / "runs" / "empty" / "summary.csv").is_file()


def _tiny_notebook(path, source: str) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python"}}
    nb.cells = [nbformat.v4.new_code_cell("seconds = 0.0", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(source)]
    nbformat.write(nb, str(path))


def test_parallel_jobs_keep_the_order_and_report_a_failing_notebook(tmp_path, monkeypatch):
    """Two notebooks in two worker processes: the failing one is named, the other finishes, and
    the summary keeps the plan's order although the slower notebook (by the last summary) starts first."""
    from culturelab import runner
    from culturelab.runner import RunPlan, execute, longest_first

    for name, source in (("good", "import time; time.sleep(seconds); open('good.txt', 'w').write('done')"),
                         ("bad", "raise ValueError('broken on purpose')")):
        _tiny_notebook(tmp_path / f"{name}.ipynb", source)
    monkeypatch.setattr(runner, "notebook_file", lambda name: tmp_path / f"{name}.ipynb")
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    previous = tmp_path / "runs" / "par" / "summary.csv"
    previous.parent.mkdir(parents=True)
    previous.write_text("notebook,status,seconds,output\ngood,ok,1.0,x\nbad,ok,9.0,x\n")
    assert longest_first(["good", "bad"], previous) == ["bad", "good"]
    summary = execute(RunPlan(tmp_path / "p.yaml", "par", None, [("good", {"seconds": 0.1}), ("bad", {})]), jobs=2)
    assert list(summary["notebook"]) == ["good", "bad"]
    assert summary.loc[0, "status"] == "ok" and (tmp_path / "good.txt").read_text() == "done"
    assert summary.loc[1, "status"].startswith("failed: ValueError") and "broken on purpose" in summary.loc[1, "status"]
    assert list(previous.read_text().splitlines()[1:][0].split(",")[:2]) == ["good", "ok"]


def test_cli_run_has_a_jobs_option_defaulting_to_the_cores(capsys, monkeypatch):
    import argparse

    from culturelab import cli

    monkeypatch.setattr(cli, "available_cores", lambda: 3)  # the affinity mask, as the thread split uses
    parser = argparse.ArgumentParser()
    cli._jobs_option(parser)
    assert parser.parse_args([]).jobs == 3
    assert parser.parse_args(["--jobs", "3"]).jobs == 3


def test_an_aggregate_starts_after_its_papers_notebooks_while_other_papers_go_on(tmp_path, monkeypatch):
    """With two workers, a notebook of REPLAYS_OTHER_REQUESTS waits for its paper's notebooks (whose
    model answers it reuses from the cache) instead of computing them a second time in parallel, but
    not for another paper's long notebook: no barrier leaves a core idle (a warm run lost 13 s so)."""
    import json

    from culturelab import runner
    from culturelab.runner import RunPlan, execute, longest_first

    clock = ("import json, time; t0 = time.time(); {body}; "
             "json.dump([t0, time.time()], open({name!r} + '.json', 'w'))")
    for name, body in (("p/task", "time.sleep(seconds); open('task.txt', 'w').write('cached')"),
                       ("p/agg", "open('agg.txt', 'w').write(open('task.txt').read())"),
                       ("q/long", "time.sleep(seconds)")):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        _tiny_notebook(tmp_path / f"{name}.ipynb", clock.format(body=body, name=str(tmp_path / name)))
    monkeypatch.setattr(runner, "notebook_file", lambda name: tmp_path / f"{name}.ipynb")
    monkeypatch.setattr(runner, "REPLAYS_OTHER_REQUESTS", ("p/agg",))
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    previous = tmp_path / "runs" / "st" / "summary.csv"
    previous.parent.mkdir(parents=True)
    previous.write_text("notebook,status,seconds,output\np/agg,ok,8,x\np/task,ok,4,x\nq/long,ok,10,x\n")
    # the aggregate's wait puts its paper's task (4 + 8 s) ahead of the longer lone notebook (10 s)
    assert longest_first(["p/agg", "q/long", "p/task"], previous) == ["p/task", "q/long", "p/agg"]
    jobs = [("p/agg", {}), ("q/long", {"seconds": 9.0}), ("p/task", {"seconds": 0.5})]
    summary = execute(RunPlan(tmp_path / "p.yaml", "st", None, jobs), jobs=2)
    assert list(summary["status"]) == ["ok", "ok", "ok"], summary
    assert (tmp_path / "p" / "agg.txt").read_text() == "cached"  # a notebook runs in its own folder
    span = {name: json.loads((tmp_path / f"{name}.json").read_text()) for name in ("p/task", "p/agg", "q/long")}
    assert span["p/agg"][0] >= span["p/task"][1]  # after its paper's notebook
    assert span["p/agg"][0] < span["q/long"][1]   # while the other paper's notebook still runs


def test_parallel_notebooks_share_the_cores_instead_of_oversubscribing_them(tmp_path, monkeypatch):
    """Two workers on 4 cores: each kernel gets 2 threads (two 2-thread kernels on 2 cores did
    30–45 % less work than two 1-thread ones); a size the user chose in the environment is kept."""
    from culturelab import runner
    from culturelab.runner import THREAD_VARIABLES, RunPlan, execute

    source = "import os; open(f'{name}.txt', 'w').write(os.environ.get('OMP_NUM_THREADS', 'unset'))"
    for name in ("a", "b"):
        _tiny_notebook(tmp_path / f"{name}.ipynb", f"name = {name!r}\n" + source)
    monkeypatch.setattr(runner, "notebook_file", lambda name: tmp_path / f"{name}.ipynb")
    monkeypatch.setattr(runner, "available_cores", lambda: 4)
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    for var in THREAD_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    plan = RunPlan(tmp_path / "p.yaml", "thr", None, [("a", {}), ("b", {})])
    assert list(execute(plan, jobs=2)["status"]) == ["ok", "ok"]
    assert [(tmp_path / f"{n}.txt").read_text() for n in "ab"] == ["2", "2"]
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert list(execute(plan, jobs=2)["status"]) == ["ok", "ok"]
    assert [(tmp_path / f"{n}.txt").read_text() for n in "ab"] == ["3", "3"]


def test_parallel_kernels_listen_on_their_own_socket_files_not_on_raced_tcp_ports(tmp_path, monkeypatch):
    """Kernels started side by side got the same free TCP port from jupyter_client (CI: "Address
    already in use", the kernel died); the runner starts them on the ipc transport instead, each
    on socket files of its own, removed when it shuts down."""
    import glob
    import tempfile

    from culturelab import runner
    from culturelab.runner import RunPlan, execute

    source = ("from ipykernel.kernelapp import IPKernelApp\n"
              "app = IPKernelApp.instance()\n"
              "open(f'{name}.txt', 'w').write(f'{app.transport} {app.ip}')")
    names = ("a", "b", "c")
    for name in names:
        _tiny_notebook(tmp_path / f"{name}.ipynb", f"name = {name!r}\n" + source)
    monkeypatch.setattr(runner, "notebook_file", lambda name: tmp_path / f"{name}.ipynb")
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    summary = execute(RunPlan(tmp_path / "p.yaml", "ipc", None, [(n, {}) for n in names]), jobs=3)
    assert list(summary["status"]) == ["ok"] * 3, summary
    seen = [(tmp_path / f"{n}.txt").read_text().split() for n in names]
    assert [transport for transport, _ in seen] == ["ipc"] * 3
    paths = [path for _, path in seen]
    assert len(set(paths)) == 3 and all(p.startswith(tempfile.gettempdir()) for p in paths)
    assert not [f for p in paths for f in glob.glob(p + "-*")]


def test_a_kernel_stopped_at_once_after_its_last_cell_keeps_every_committed_cache_row(tmp_path, monkeypatch):
    """The runner kills a notebook's kernel when its last cell is done instead of waiting ~1 s for
    the interpreter to tear down (nothing after the last cell runs: no atexit); the response cache
    rows the notebook wrote, and its files, are all there."""
    from culturelab import runner
    from culturelab.models.cache import ResponseCache
    from culturelab.runner import RunPlan, execute

    db = tmp_path / "responses.sqlite"
    source = ("import atexit\n"
              "from culturelab.models.cache import ResponseCache\n"
              f"cache = ResponseCache({str(db)!r})\n"
              "cache.put_many({f'k{i}': [i, 'answer'] for i in range(500)})\n"
              "open('written.txt', 'w').write('done')\n"
              "atexit.register(lambda: open('atexit.txt', 'w').write('ran'))")
    _tiny_notebook(tmp_path / "w.ipynb", source)
    monkeypatch.setattr(runner, "notebook_file", lambda name: tmp_path / f"{name}.ipynb")
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    assert list(execute(RunPlan(tmp_path / "p.yaml", "kill", None, [("w", {})]))["status"]) == ["ok"]
    rows = ResponseCache(db).get_many([f"k{i}" for i in range(500)])
    assert len(rows) == 500 and rows["k499"] == [499, "answer"]
    assert (tmp_path / "written.txt").read_text() == "done"
    assert not (tmp_path / "atexit.txt").exists()


def test_a_worker_that_dies_leaves_a_failed_row_and_the_summary(tmp_path, monkeypatch):
    """A notebook whose worker process is killed (as the OOM killer would) is reported as failed,
    the notebooks after it get rows too, and summary.csv is written: the run does not crash."""
    from culturelab import runner
    from culturelab.runner import RunPlan, execute

    _tiny_notebook(tmp_path / "dies.ipynb", "import os, signal; os.kill(os.getppid(), signal.SIGKILL)")
    for name in ("b", "c"):
        _tiny_notebook(tmp_path / f"{name}.ipynb", "x = 1")
    monkeypatch.setattr(runner, "notebook_file", lambda name: tmp_path / f"{name}.ipynb")
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    summary = execute(RunPlan(tmp_path / "p.yaml", "oom", None, [("dies", {}), ("b", {}), ("c", {})]), jobs=2)
    assert list(summary["notebook"]) == ["dies", "b", "c"]
    assert summary.loc[0, "status"].startswith("failed: its worker died"), summary.loc[0, "status"]
    assert (tmp_path / "runs" / "oom" / "summary.csv").is_file()
