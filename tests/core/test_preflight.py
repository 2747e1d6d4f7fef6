"""`culturelab check` verifies before any model loads what the run would otherwise fail on — the model on the
hub or in the local cache, the data directory, every data file — in seconds, one line per notebook and a
verdict; `culturelab run` refuses the same plan before any notebook starts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from culturelab import config, preflight
from culturelab.cli import main
from culturelab.protocol import DataUsed
from culturelab.runner import all_notebooks, plan

PARAMS = config.project_root() / "papermill_params"


@pytest.fixture(autouse=True)
def fresh_lookups():
    for cached in (preflight.hub_problem, preflight.download_problem, preflight.server_problem):
        cached.cache_clear()
    yield


def write(tmp_path, text: str):
    path = tmp_path / "params.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_a_hub_model_missing_from_the_cache_with_the_hub_off_is_refused_in_seconds_without_loading_torch(tmp_path):
    path = write(tmp_path, 'common: {model: "hf:does/not-exist"}\n')
    code = textwrap.dedent(f"""
        import sys, time
        from culturelab.cli import main
        t0 = time.perf_counter()
        rc = main(["check", {str(path)!r}, "-n", "00_quickstart", "-n", "percul/01_benchmark"])
        print("RC", rc, "HEAVY", [m for m in ("torch", "transformers") if m in sys.modules], "S", time.perf_counter() - t0)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"})
    assert "RC 3 HEAVY []" in out.stdout, out.stdout + out.stderr
    lines = out.stdout.splitlines()[:-1]  # the report, then the RC line
    assert lines[0].startswith("00_quickstart: refused: model: hf:does/not-exist: not in the local Hugging Face cache")
    assert "`hf download does/not-exist`" in lines[0] and lines[-2].startswith("percul/01_benchmark: refused")
    assert lines[-1].startswith("verdict: refused") and len(lines) == 3
    assert float(out.stdout.rsplit("S ", 1)[1]) < 20


def test_the_run_refuses_the_same_plan_before_any_notebook_starts(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    path = write(tmp_path, 'common: {model: "hf:does/not-exist"}\n')
    assert main(["run", str(path), "-n", "00_quickstart"]) == 3
    err = capsys.readouterr().err
    assert "refused before any notebook started" in err and "hf download does/not-exist" in err
    assert not (tmp_path / "runs").exists()


def test_online_the_hub_is_asked_and_its_answer_named(monkeypatch):
    import httpx
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    request = httpx.Request("GET", "https://huggingface.co/api/models")
    answers = {"does/not-exist": RepositoryNotFoundError("404", response=httpx.Response(404, request=request)),
               "meta-llama/Llama-3.1-8B": GatedRepoError("403", response=httpx.Response(403, request=request)),
               "org/public": None}

    def auth_check(repo, token=None):
        if answers[repo] is not None:
            raise answers[repo]

    monkeypatch.setattr("huggingface_hub.auth_check", auth_check)
    assert preflight.spec_problem("hf:does/not-exist")[0] == ("hf:does/not-exist: no such model on the Hugging Face hub "
                                                             "(a private one needs HF_TOKEN)")
    assert "gated on the Hugging Face hub" in preflight.spec_problem("masked:meta-llama/Llama-3.1-8B")[0]
    problem, note = preflight.spec_problem("hf:org/public")
    assert problem is None and "downloaded on first use" in note


def test_a_data_directory_that_does_not_exist_is_refused_naming_it(tmp_path, monkeypatch, capsys):
    nowhere = tmp_path / "nonexistent"
    monkeypatch.setenv("CULTURELAB_DATA", str(nowhere))
    assert main(["check", str(PARAMS / "default.yaml"), "-n", "fmlama/*", "-n", "00_quickstart"]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "00_quickstart: ok"  # reads no data directory
    assert all(f"refused: CULTURELAB_DATA={nowhere} does not exist" in line for line in lines[1:-1])
    assert lines[-1].startswith("verdict: refused")


@pytest.fixture()
def partial_copy(tmp_path, monkeypatch):
    """A notebook whose paper's ``locate`` names four files, two of them present under the data directory."""
    root = tmp_path / "data"
    (root / "release").mkdir(parents=True)
    files = {str(root / "release" / f"{s}.jsonl"): f"https://example.org/release/{s}.jsonl"
             for s in ("EN_en", "EN_zh", "ZH_en", "ZH_zh")}
    for present in list(files)[::3]:
        open(present, "w").close()
    monkeypatch.setattr("culturelab.protocol.data_before_run",
                        lambda notebook, params: DataUsed("released", files=files) if "fmlama" in notebook else None)
    return files


def test_a_partial_local_copy_names_each_missing_file_when_it_cannot_be_fetched(partial_copy, monkeypatch, capsys):
    monkeypatch.setattr("culturelab.preflight.download_problem", lambda url: "example.org cannot be reached")
    assert main(["check", str(PARAMS / "paper.yaml"), "-n", "fmlama/04_decoder_llms", "--verbose"]) == 3
    out = capsys.readouterr().out
    missing = [p for p in list(partial_copy)[1:3]]
    for path in missing:
        assert f"refused: {path} is missing and cannot be downloaded now: example.org cannot be reached" in out
    assert "EN_en" not in out.split("refused:", 1)[1]


def test_a_partial_local_copy_that_can_fetch_its_missing_files_passes(partial_copy, monkeypatch, capsys):
    monkeypatch.setattr("culturelab.preflight.download_problem", lambda url: None)
    assert main(["check", str(PARAMS / "default.yaml"), "-n", "fmlama/04_decoder_llms"]) == 0
    assert "downloads 2 files on first use" in capsys.readouterr().out


def test_a_file_without_a_download_is_named_missing(tmp_path):
    found = preflight.data_problems({}, DataUsed("released", files={str(tmp_path / "a.csv"): ""}))
    assert found.problems == [f"{tmp_path / 'a.csv'} is missing (it cannot be downloaded: put it there)"]


def test_a_missing_release_is_refused_with_the_papers_note(monkeypatch):
    monkeypatch.setenv("CULTURELAB_DATA", "/")
    found = preflight.data_problems({"data_dir": "", "data_source": "local"}, DataUsed("missing", note="put it there"))
    assert found.problems == ["no copy of its data: put it there"]


def test_a_section_switched_off_is_not_looked_up():
    params = {"model": "bundled:gemma3-270m", "finetune_model": ["hf:dbmdz/bert-base-turkish-cased"],
              "run_finetune": False}
    assert preflight.notebook_findings("turkish_plu/02_mc_tasks", params, None).problems == []
    params["run_finetune"] = True
    assert preflight.notebook_findings("turkish_plu/02_mc_tasks", params, None).problems


def test_local_paths_apis_and_servers_are_checked_without_loading(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert preflight.spec_problem("hf:/nonexistent/folder")[0] == "hf:/nonexistent/folder: /nonexistent/folder does not exist"
    assert preflight.spec_problem(f"hf:{tmp_path}")[0] is None
    assert preflight.spec_problem("openai:gpt-4o")[0] == "openai:gpt-4o: OPENAI_API_KEY is not set"
    assert "no OpenAI-compatible server answers" in preflight.spec_problem("openai-compatible:http://127.0.0.1:9/v1#m")[0]


def test_check_of_the_paper_file_is_one_line_per_notebook_and_a_verdict_and_refuses(capsys):
    assert main(["check", str(PARAMS / "paper.yaml")]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(all_notebooks()) + 1
    assert [line.split(":", 1)[0] for line in lines[:-1]] == all_notebooks()
    assert lines[-1].startswith("verdict: refused") and "differ from their papers and the file says protocol: paper" in lines[-1]
    assert "captex/03_mcq: deviates: 2 settings (data_source, cb_mcq_options) — refused under protocol: paper" in lines


def test_verbose_check_lists_every_setting_label_and_lookup(capsys):
    assert main(["check", str(PARAMS / "paper.yaml"), "-n", "percul/01_benchmark", "--verbose"]) == 3
    out = capsys.readouterr().out
    assert "  data: sample data (ours, not the paper's)" in out
    assert "  model: bundled:gemma3-270m is not one of the paper's models" in out


def test_check_of_the_default_file_passes(capsys):
    assert main(["check", str(PARAMS / "default.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(all_notebooks()) + 1 and lines[-1].startswith("verdict: ok")


def test_a_plan_keeps_its_parameters_json_serialisable_for_the_lookups():
    run_plan = plan(PARAMS / "smoke.yaml", ["00_quickstart"])
    found = preflight.preflight(run_plan)
    assert json.dumps({name: vars(f) for name, f in found.items()})


def test_the_papers_own_lookups_name_what_a_partial_data_directory_lacks(tmp_path, monkeypatch, capsys):
    """Issue 31's cases through the papers' real ``locate``: FMLAMA 04 with its answer files absent
    (downloads off) and Turkish PLU with no copy and GitHub out of reach are refused, naming a file."""
    import shutil

    from culturelab import config

    shared = config.data_dir("")
    if not (shared / "fmlama" / "data").is_dir():
        pytest.skip("the shared FMLAMA data is not here")
    shutil.copytree(shared / "fmlama" / "data", tmp_path / "fmlama" / "data")  # the dataset, no released answers
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("culturelab.preflight.download_problem", lambda url: "github.com cannot be reached")
    assert main(["check", str(PARAMS / "default.yaml"), "-n", "fmlama/04_decoder_llms", "-n", "turkish_plu/01_corpus"]) == 3
    lines = capsys.readouterr().out.splitlines()
    fmlama = next(line for line in lines if line.startswith("fmlama/04_decoder_llms"))
    turkish = next(line for line in lines if line.startswith("turkish_plu/01_corpus"))
    assert "refused:" in fmlama and "en_en_dishes_results.jsonl" in fmlama
    assert f"refused: {tmp_path / 'turkish_plu'}" in turkish and "cannot be downloaded now" in turkish
