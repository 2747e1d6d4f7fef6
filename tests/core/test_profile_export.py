"""`culturelab export lm-eval`: task YAML + JSONL that say what culturelab's scorers ask."""

from __future__ import annotations

import importlib.util
import json
import sys

import pandas as pd
import pytest
import yaml

from culturelab.cli import main
from culturelab.profile import export, lm_eval_check


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_cli_exports_well_formed_tasks(tmp_path, capsys):
    assert main(["export", "lm-eval", str(tmp_path), "--data-source", "sample"]) == 0
    out = capsys.readouterr().out
    assert "turkish_plu_gi" in out and "skipped" in out  # the release has no sample copy
    for name in ("captex_pb_mcq", "percul_stories"):
        assert name in out
        spec = yaml.safe_load((tmp_path / f"{name}.yaml").read_text(encoding="utf-8"))
        assert spec["task"] == f"culturelab_{name}" and spec["output_type"] == "multiple_choice"
        assert spec["doc_to_choice"] == "{{choices}}" and spec["target_delimiter"] == " "
        data = spec["dataset_kwargs"]["data_files"]["test"]
        docs = _read(tmp_path / f"{name}.jsonl")
        assert data == str((tmp_path / f"{name}.jsonl").resolve()) and docs
        assert all(set(d) == set(export.FIELDS) for d in docs)
        assert all(0 <= d["label"] < len(d["choices"]) for d in docs)
        assert len({d["id"] for d in docs}) == len(docs)


def test_captex_docs_are_culturelabs_pb_mcqs():
    from culturelab import prompts
    from culturelab.captex import questions, setup

    items = export.captex_items(data_source="sample")
    frame = questions.pb_mcq_frame(setup.load_data(data_source="sample").mcqs, prompts.get("captex", "pb_mcq", "v1"))
    assert items["text"].tolist() == frame["prompt"].tolist()
    assert items["label"].tolist() == frame["answer"].tolist()
    assert items["choices"].iloc[0] == ["A", "B", "C", "D"]


def test_percul_docs_score_the_option_texts_after_the_answer_cue():
    from culturelab.percul import data, pipeline
    from culturelab.percul.scoring import loglik_context

    items = export.percul_items(data_source="sample")
    stories = pipeline.stories(data.load("original_persian", data_source="sample"))
    assert items["text"].tolist() == [loglik_context(q, "original_persian") for q in stories["question"]]
    assert items["choices"].iloc[0] == [str(o).strip() for o in stories["options"].iloc[0]]
    assert items["label"].tolist() == stories["answer"].tolist()


def test_turkish_plu_docs_match_the_released_items():
    from culturelab.turkish_plu import data, mc

    try:
        items = export.turkish_plu_items("so")
    except FileNotFoundError:
        pytest.skip("no local copy of Turkish PLU")
    release = mc.add_prompts(data.Release().mc("so", "test"))
    assert len(items) == len(release)
    assert items["choices"].iloc[0] == [o.strip() for o in release["llm_options"].iloc[0]]
    assert (items["label"] == release["label"]).all()


def test_bad_label_names_task_row_and_id(tmp_path):
    bad = pd.DataFrame({"id": ["a", "b"], "text": ["q", "q"], "choices": [["x", "y"], ["x", "y"]], "label": [0, 2]})
    with pytest.raises(ValueError, match=r"demo: row 1 \(id b\): label 2"):
        export.write_task(bad, "demo", tmp_path)


def test_lm_eval_side_failure_names_the_interpreter_and_its_output(tmp_path):
    # this interpreter has no lm-eval: the subprocess finds the module (PYTHONPATH) and fails on the import
    if importlib.util.find_spec("lm_eval") is not None:
        pytest.skip("lm-eval is installed here")
    with pytest.raises(RuntimeError, match=r"(?s)lm-eval \(.*python.*\) failed on demo: .*No module named .lm_eval"):
        lm_eval_check.run_lm_eval(sys.executable, tmp_path, "demo", tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(lm_eval_check.lm_eval_python() is None,
                    reason=f"lm-eval not found: set {lm_eval_check.ENV} to a python that has it")
def test_lm_eval_makes_culturelabs_choices_on_exported_tasks(tmp_path):
    """lm-eval on exported tasks (SmolLM2-135M) chooses what culturelab's scorers choose, item by item.
    Run with ``CULTURELAB_LM_EVAL_PYTHON=/path/to/lm-eval-venv/bin/python pytest -m slow -k lm_eval``."""
    tasks = ["percul_stories"]
    try:
        export.turkish_plu_items("so")
        tasks.append("turkish_plu_so")
    except FileNotFoundError:
        pass  # no local copy of Turkish PLU: PERCUL's sample only
    rows = lm_eval_check.cross_check(tasks, tmp_path, python=lm_eval_check.lm_eval_python(), n=20)
    for row in rows:
        assert row["same_choices"] == row["n"] == 20, row
        assert row["acc_lm_eval_reported"] == pytest.approx(row["acc_culturelab"]), row
        assert row["max_abs_dloglik"] < 0.05, row
