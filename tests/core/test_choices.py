"""Allowed values: every paper declares its CHOICES once (``culturelab.<paper>.setup``), and
``culturelab check`` / ``runner.plan`` / ``start_run`` apply them, so a bad value fails before any
model loads, one line naming the file, the notebook and the key."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

from culturelab.params import OneOf, ParameterError, check_choices, notebook_choice_problems, paper_of
from culturelab.runner import all_notebooks, notebook_defaults, notebook_file, plan, start_run

#: one bad value per paper (notebook, key, value, a fragment of the message)
BAD = [
    ("00_quickstart", "methods", ["vote"], "['vote'] not allowed"),
    ("captex/02_reordering", "languages", "german", "'german' is not one of both, en, native"),
    ("captex/03_mcq", "data_source", "hf", "'hf' is not one of auto, local, download, sample"),
    ("fmlama/02_probing", "templates", [9], "[9] not allowed; choose from 1, 2, 3, 4, 5"),
    ("fmlama/03_code_switching", "languages", ["fr"], "['fr'] not allowed"),
    ("fmlama/01_dataset", "data_source", "hf", "'hf' is not one of auto, local, download, sample"),
    ("turkish_plu/02_mc_tasks", "tasks", ["gi", "xx"], "['xx'] not allowed"),
    ("turkish_plu/06_distractors", "tasks", ["so"], "['so'] not allowed"),
    ("percul/01_benchmark", "split", "persian", "'persian' is not one of original_persian"),
    ("percul/05_robustness", "permutations", "some", "'some' is not one of cyclic"),
    ("cultural_recipes/01_bli_alignment", "mode", "magic", "'magic' is not one of"),
    ("cultural_recipes/02_adaptation", "directions", ["fr2en"], "['fr2en'] not allowed"),
]


def write(tmp_path, text: str):
    path = tmp_path / "params.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_every_paper_declares_its_choices_in_one_setup_module():
    papers = sorted({paper_of(n) for n in all_notebooks()})
    assert papers == ["captex", "cultural_recipes", "fmlama", "percul", "quickstart", "turkish_plu"]
    for paper in papers:
        setup = importlib.import_module(f"culturelab.{paper}.setup")
        assert setup.CHOICES, paper
        assert callable(setup.open), paper


@pytest.mark.parametrize("notebook", all_notebooks())
def test_every_notebook_defaults_pass_their_own_choices(notebook):
    assert notebook_choice_problems(notebook, notebook_defaults(notebook_file(notebook))) == []


@pytest.mark.parametrize(("notebook", "key", "value", "fragment"), BAD)
def test_plan_rejects_a_bad_value_naming_file_notebook_and_key(tmp_path, notebook, key, value, fragment):
    path = write(tmp_path, f"notebooks: {{{notebook}: {{{key}: {value!r}}}}}\n")
    with pytest.raises(ParameterError) as err:
        plan(path, [notebook])
    lines = str(err.value).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{path}: {notebook}.{key}: "), lines[0]
    assert fragment in lines[0]


@pytest.mark.parametrize(("notebook", "key", "value", "fragment"), BAD[:4])
def test_start_run_rejects_the_same_values(notebook, key, value, fragment, tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    namespace = {**notebook_defaults(notebook_file(notebook)), key: value}
    with pytest.raises(ParameterError, match=f"{notebook}.{key}: .*"):
        start_run(notebook, namespace)


def test_check_command_reports_one_line_per_bad_value_and_loads_no_model(tmp_path):
    entries = "\n".join(f"  {nb}: {{{key}: {value!r}}}" for nb, key, value, _ in BAD)
    path = write(tmp_path, "notebooks:\n" + entries + "\n")
    code = textwrap.dedent(f"""
        import sys
        from culturelab.cli import main
        rc = main(["check", {str(path)!r}])
        print("RC", rc, "HEAVY", [m for m in ("torch", "transformers") if m in sys.modules])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "RC 2 HEAVY []" in out.stdout, out.stdout + out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith(str(path))]
    assert len(lines) == len(BAD), out.stderr
    for notebook, key, _, fragment in BAD:
        assert any(f"{notebook}.{key}: " in line and fragment in line for line in lines), (notebook, key)


def test_cross_key_rules_and_bools_versus_numbers():
    assert check_choices({"contexts": [1]}, {"contexts": OneOf((False, True))}) == [
        "contexts: [1] not allowed; choose from False, True"]
    problems = notebook_choice_problems("turkish_plu/03_step_ordering", {"min_steps": 8, "max_steps": 6})
    assert problems and all(p.startswith("turkish_plu/03_step_ordering.") for p in problems)
