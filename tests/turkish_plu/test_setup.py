"""The Turkish PLU notebooks' allowed values (one CHOICES) and their entry point ``setup.open``:
each data source resolved and stamped on the run, a bad value of each kind refused with one line."""

from __future__ import annotations

import pytest

from culturelab.params import notebook_choice_problems
from culturelab.runner import notebook_defaults, notebook_file
from culturelab.turkish_plu import setup

NOTEBOOKS = ["01_corpus", "02_mc_tasks", "03_step_ordering", "04_linking", "05_summarization", "06_distractors"]


def problems(topic: str, **values) -> list[str]:
    notebook = f"turkish_plu/{topic}"
    return notebook_choice_problems(notebook, {**notebook_defaults(notebook_file(notebook)), **values})


@pytest.mark.parametrize("topic", NOTEBOOKS)
def test_every_notebook_reads_data_through_one_vocabulary(topic):
    defaults = notebook_defaults(notebook_file(f"turkish_plu/{topic}"))
    assert defaults["data_source"] == "auto" and defaults["data_dir"] == ""
    assert "source" not in defaults


@pytest.mark.parametrize(("topic", "values", "fragment"), [
    ("02_mc_tasks", {"tasks": ["gi", "xx"]}, "tasks: ['xx'] not allowed"),
    ("02_mc_tasks", {"tasks": []}, "tasks: must not be empty"),
    ("02_mc_tasks", {"normalisations": ["max"]}, "normalisations: ['max'] not allowed"),
    ("02_mc_tasks", {"prompt_version": "v9"}, "prompt_version: 'v9' is not one of v1"),
    ("06_distractors", {"tasks": ["so"]}, "tasks: ['so'] not allowed; choose from gi, si, nep"),
    ("06_distractors", {"normalisation": "max"}, "normalisation: 'max' is not one of sum, mean"),
    ("03_step_ordering", {"policy": "skip"}, "policy: 'skip' is not one of zero, repair, drop, ties"),
    ("03_step_ordering", {"max_steps": 30}, "max_steps: must be between 2 and 26, got 30"),
    ("03_step_ordering", {"min_steps": 1}, "min_steps: must be between 2 and 26, got 1"),
    ("03_step_ordering", {"min_steps": 8, "max_steps": 6}, "min_steps: must be ≤ max_steps (8 > 6)"),
    ("04_linking", {"bm25_prefix": 21}, "bm25_prefix: must be between 0 and 20, got 21"),
    ("04_linking", {"dense_pool_size": -1}, "dense_pool_size: must be between 0 and 1000000, got -1"),
    ("05_summarization", {"split": "dev"}, "split: 'dev' is not one of train, validation, val, test"),
    ("05_summarization", {"data_source": "hf"}, "data_source: 'hf' is not one of auto, local, download, sample"),
    ("05_summarization", {"lead_ks": [0, 1]}, "lead_ks: every k must be ≥ 1, got [0, 1]"),
    ("01_corpus", {"data_source": "sample"}, "data_source: 'sample' is not one of auto, local, download"),
    ("02_mc_tasks", {"finetune_split": "dev"}, "finetune_split: 'dev' is not one of auto, val, train"),
])
def test_a_bad_value_of_each_kind_is_one_line(topic, values, fragment):
    found = problems(topic, **values)
    assert len(found) == 1 and found[0].startswith(f"turkish_plu/{topic}.") and fragment in found[0], found


@pytest.mark.parametrize("topic", NOTEBOOKS)
def test_the_defaults_pass(topic):
    assert problems(topic) == []


@pytest.mark.parametrize("data_source", ["auto", "download"])
def test_open_stamps_the_release_as_released(data_source, tmp_path, start):
    run = start("02_mc_tasks", data_source=data_source, data_dir=str(tmp_path))
    release = setup.open(run)
    assert (release.data_dir, release.data_source) == (str(tmp_path), data_source)
    assert run.data_source == "released" and run.info["data_source"] == "released"
    assert "downloaded from https://github.com/GGLAB-KU/turkish-plu" in run.data_used.note


def test_open_stops_at_once_when_a_local_copy_asked_for_is_missing(tmp_path, start):
    run = start("02_mc_tasks", data_source="local", data_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"no local copy of corpus/original-wikihow-tr-wikihow\.json"):
        setup.open(run)
    assert run.data_source is None  # nothing stamped, nothing read


def test_open_stamps_the_summarization_stand_ins_and_a_local_copy(tmp_path, start, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    empty = tmp_path / "empty"
    for data_source in ("auto", "sample"):
        run = start("05_summarization", data_source=data_source, data_dir=str(empty))
        assert setup.open(run).summarization_source() == "sample" and run.data_source == "sample"
    example = empty / "turkish_plu" / "corpus" / "example_tutorial.json"
    example.parent.mkdir(parents=True)
    example.write_text("{}")
    run = start("05_summarization", data_dir=str(empty))
    setup.open(run)
    assert run.data_source == "example" and run.deviations().data.startswith("the release's example file only")
    run = start("05_summarization", data_source="download", data_dir=str(empty))
    with pytest.raises(FileNotFoundError, match="offline"):  # the hub cannot be reached: said before loading
        setup.open(run)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    run = start("05_summarization", data_source="download", data_dir=str(empty))
    assert setup.open(run).summarization_source() == "download" and run.data_source == "released"
    copy = tmp_path / "summ"
    copy.mkdir()
    run = start("05_summarization", summ_dir=str(copy), data_dir=str(empty))
    assert setup.open(run).summarization_source() == "local" and run.data_source == "released"
    run = start("05_summarization", data_source="local", data_dir=str(empty))
    with pytest.raises(FileNotFoundError, match="no local copy of the summarization set"):
        setup.open(run)


def test_fine_tuning_trains_on_the_train_split_when_a_copy_is_given():
    assert notebook_defaults(notebook_file("turkish_plu/02_mc_tasks"))["finetune_split"] == "auto"
    assert setup.finetune_split("auto", "") == "val" and setup.finetune_split("auto", "/copy") == "train"
    assert setup.finetune_split("val", "/copy") == "val" and setup.finetune_split("train") == "train"
    with pytest.raises(ValueError, match="finetune_split must be auto or one of"):
        setup.finetune_split("dev")
