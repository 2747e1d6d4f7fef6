"""PERCUL's allowed values (one CHOICES for the five notebooks) fail bad parameters before any
model loads, and ``setup.open`` resolves every data source and stamps it on the run."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from culturelab.data import sources
from culturelab.params import ParameterError, notebook_choice_problems
from culturelab.percul import data, setup
from culturelab.runner import notebook_defaults, notebook_file, plan, start_run


class _Run:
    """What ``setup.open`` needs of a run: its notebook, parameters and ``set_data_source``."""

    notebook = "percul/01_benchmark"

    def __init__(self, **params):
        self.params = params
        self.source = None

    def set_data_source(self, source, counts=None, note=""):
        self.source, self.counts, self.note = source, counts, note


def _released_copy(folder):
    """The sample's two splits written in the hub layout (parquet) under ``folder``."""
    (folder / "data").mkdir(parents=True)
    for split in data.SPLITS:
        text = (sources.sample_dir("percul") / f"{split}.jsonl").read_text(encoding="utf-8")
        rows = [json.loads(line) for line in text.splitlines()]
        pd.DataFrame(rows).to_parquet(folder / "data" / f"{split}-00000-of-00001.parquet")
    return folder


@pytest.mark.parametrize(("notebook", "key", "value", "fragment"), [
    ("01_benchmark", "data_source", "hf", "'hf' is not one of auto, local, download, sample"),
    ("01_benchmark", "split", "persian", "'persian' is not one of original_persian, gpt_english_translation"),
    ("01_benchmark", "methods", ["generate", "guess"], "['guess'] not allowed"),
    ("01_benchmark", "methods", [], "must not be empty"),
    ("01_benchmark", "prompt_version", "v9", "'v9' is not one of v1, v2"),
    ("01_benchmark", "invalid_policy", "skip", "'skip' is not one of wrong, exclude"),
    ("02_models_and_categories", "radar_rows", ["GPT 5"], "['GPT 5'] not allowed; choose from Claude 3.5 Sonnet"),
    ("03_translation", "method", "vote", "'vote' is not one of generate, loglikelihood"),
    ("04_distractors", "fig16_row_order", "alphabetical", "'alphabetical' is not one of printed, macro"),
    ("04_distractors", "fig8_pooling", "median", "'median' is not one of sum_counts, mean_of_models"),
    ("05_robustness", "permutations", "none", "'none' is not one of cyclic, all, random"),
    ("05_robustness", "loglik_target", "letter", "'letter' is not one of text, number"),
])
def test_a_bad_value_is_one_line_naming_notebook_and_key(notebook, key, value, fragment):
    name = f"percul/{notebook}"
    params = {**notebook_defaults(notebook_file(name)), key: value}
    problems = notebook_choice_problems(name, params)
    assert len(problems) == 1 and problems[0].startswith(f"{name}.{key}: ") and fragment in problems[0], problems


def test_radar_rows_take_table5_names_through_the_whole_check(tmp_path):
    name = "percul/02_models_and_categories"
    good = tmp_path / "good.yaml"
    good.write_text(f"notebooks: {{{name}: {{radar_rows: ['GPT 4o', 'Llama 3.2 1B']}}}}\n")
    assert plan(good, [name]).jobs[0][1] == {"radar_rows": ["GPT 4o", "Llama 3.2 1B"]}
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"notebooks: {{{name}: {{radar_rows: ['GPT 5']}}}}\n")
    with pytest.raises(ParameterError, match=r"radar_rows: \['GPT 5'\] not allowed"):
        plan(bad, [name])


def test_numeral_targets_cannot_score_both_splits_at_once(tmp_path, monkeypatch):
    name = "percul/03_translation"
    params = {**notebook_defaults(notebook_file(name)), "loglik_target": "number"}
    assert notebook_choice_problems(name, params) == [
        f"{name}.loglik_target: 'number' scores the option numerals, which differ between the two splits; use 'text' "
        "here"]
    assert notebook_choice_problems(name, {**params, "method": "generate"}) == []
    # elsewhere one split is scored at a time, so numerals are fine
    nb05 = "percul/05_robustness"
    assert notebook_choice_problems(nb05, {**notebook_defaults(notebook_file(nb05)), "loglik_target": "number"}) == []
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    with pytest.raises(ParameterError, match="loglik_target: 'number'"):
        start_run(name, params)


def test_open_stamps_the_sample_and_picks_the_split():
    run = _Run(data_source="sample", data_dir="", split="gpt_english_translation")
    bench = setup.open(run)
    assert run.source == "sample" and bench.split == "gpt_english_translation" and len(bench.items) == 34
    assert setup.open(run, split="original_persian").split == "original_persian"
    fa, en = setup.open(_Run(data_source="sample"), pair=True)
    assert (fa.split, en.split) == data.SPLITS and (fa.items["id"] == en.items["id"]).all()


def test_open_resolves_auto_local_and_download(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("CULTURELAB_DATA", str(empty))
    run = _Run(data_source="auto", data_dir="")
    assert setup.open(run).source == "sample" and run.source == "sample"  # no local copy: our sample
    with pytest.raises(FileNotFoundError, match="no local copy of PERCUL's splits"):
        setup.open(_Run(data_source="local", data_dir=""))
    _released_copy(tmp_path / "root" / "percul")
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "root"))
    for source in ("auto", "local"):
        run = _Run(data_source=source, data_dir="")
        bench = setup.open(run)
        assert run.source == "released" and bench.location.endswith(".parquet") and not bench.has_rules
    explicit = _released_copy(tmp_path / "mine")
    run = _Run(data_source="auto", data_dir=str(explicit))
    assert setup.open(run, pair=True)[1].location.startswith(str(explicit)) and run.source == "released"
    calls = []

    def fake_snapshot(repo_id, **kw):
        calls.append(repo_id)
        return explicit

    monkeypatch.setattr(sources, "hf_snapshot", fake_snapshot)
    run = _Run(data_source="download", data_dir="")
    assert setup.open(run).source == "released" and run.source == "released" and calls == ["teias-ai/percul"]
