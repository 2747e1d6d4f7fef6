"""``culturelab.captex.setup``: the allowed values of the five notebooks (CHOICES and the
cross-key rule) and ``open(run)`` for every data_source."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import culturelab as cl
from culturelab.captex import setup
from culturelab.data.sources import sample_dir
from culturelab.params import ParameterError, check_choices, notebook_choice_problems
from culturelab.runner import notebook_defaults, notebook_file


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """Renamed copies of the sample up to the released sizes (700 procedures × 2 languages,
    5,600 MCQs, 700 conversations), laid out as ``<data_dir>/captex/*.csv``."""
    target = tmp_path_factory.mktemp("data") / "captex"
    target.mkdir()
    procs = pd.read_csv(sample_dir("captex") / "Procedures.csv", dtype=str)
    n_copies = -(-700 // procs["ID"].nunique())
    ids = pd.DataFrame([(pid + f"-{k:02d}", country) for k in range(n_copies)
                        for pid, country in procs.drop_duplicates("ID")[["ID", "Country"]].itertuples(index=False)],
                       columns=["ID", "Country"])
    keep = set(ids.groupby("Country").head(100)["ID"])  # 100 per country, as released
    for name in ("Procedures.csv", "MCQs.csv", "Conversations.csv"):
        frame = pd.read_csv(sample_dir("captex") / name, dtype=str, keep_default_na=False)
        copies = pd.concat([frame.assign(ID=frame["ID"] + f"-{k:02d}") for k in range(n_copies)], ignore_index=True)
        copies[copies["ID"].isin(keep)].to_csv(target / name, index=False)
    return target


def start(monkeypatch, tmp_path, **values):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    defaults = notebook_defaults(notebook_file("captex/02_reordering"))
    return cl.start_run("captex/02_reordering", {**defaults, "max_procedures": 7, **values})


@pytest.mark.parametrize(("data_source", "stamped", "procedures"), [
    ("auto", "sample", 105), ("sample", "sample", 105), ("local", "released", 700), ("download", "released", 700)])
def test_open_resolves_every_data_source_and_stamps_the_run(monkeypatch, tmp_path, release, capsys,
                                                            data_source, stamped, procedures):
    monkeypatch.setenv("CULTURELAB_DATA", str(release.parent if data_source == "local" else tmp_path))
    monkeypatch.setattr("culturelab.data.sources.hf_snapshot", lambda repo_id, **kw: release)
    run = start(monkeypatch, tmp_path, data_source=data_source)
    data = setup.open(run)
    assert run.data_source == data.data_source == stamped
    assert data.procedures["procedure_id"].nunique() == 7 and data.procedures["country"].nunique() == 7
    assert (data.conversations["answer"] >= 0).all()  # CB-MCQ options built (seeded)
    assert "note: CB-MCQ options are not in Conversations.csv" in capsys.readouterr().out
    full = setup.load_data(data_source=data_source)
    assert full.procedures["procedure_id"].nunique() == procedures


def test_auto_picks_the_local_copy_under_data_dir(monkeypatch, tmp_path, release):
    run = start(monkeypatch, tmp_path, data_dir=str(release.parent), countries=["iran"], max_procedures=0)
    data = setup.open(run)
    assert data.data_source == "released" and data.location == str(release)
    assert set(data.procedures["country"]) == {"Iran"} and data.procedures["procedure_id"].nunique() == 100


def test_a_small_run_selects_from_a_release_as_from_the_sample(release):
    picked = setup.load_data(data_dir=str(release.parent), data_source="local", max_procedures=7)
    assert picked.procedures["country"].nunique() == 7 and picked.data_source == "released"
    assert picked.procedures["category"].nunique() == 5


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("languages", "fr", "'fr' is not one of both, en, native"),
    ("data_source", "hf", "'hf' is not one of auto, local, download, sample"),
    ("invalid_policy", "lenient", "'lenient' is not one of zero, repair, drop, ties"),
    ("tasks", ["reorder", "essay"], "['essay'] not allowed"),
    ("methods", [], "must not be empty"),
    ("mcq_method", "vote", "'vote' is not one of generate, loglikelihood"),
    ("prompt_version", "v9", "'v9' is not one of v1, v2, v3, v4"),
    ("norm_scheme", "z", "'z' is not one of raw, shift"),
    ("lmax_mode", "max", "'max' is not one of per_instance, max_cells, table4"),
    ("countries", ["iran", "Mars"], "'Mars': unknown country"),
    ("categories", ["Cooking stuff"], "'Cooking stuff': unknown category"),
    ("paper_row", "GPT-5", "'GPT-5' is not one of , Random, "),
])
def test_choices_reject_a_bad_value_per_key(key, value, fragment):
    problems = check_choices({key: value}, setup.CHOICES)
    assert len(problems) == 1 and problems[0].startswith(f"{key}: ") and fragment in problems[0], problems


def test_choices_accept_aliases_and_empty_selections():
    good = {"countries": ["iran", "JP"], "categories": ["Agricultural and Seasonal Procedures"], "paper_row": "",
            "tasks": ["cb_qa"], "methods": ["loglikelihood"], "mcq_method": "loglikelihood"}
    assert check_choices(good, setup.CHOICES) == [] and check_choices({"countries": []}, setup.CHOICES) == []


def test_mcq_method_must_be_one_of_the_methods_that_run(monkeypatch, tmp_path):
    defaults = notebook_defaults(notebook_file("captex/05_aggregate"))
    params = {**defaults, "methods": ["loglikelihood"]}
    assert notebook_choice_problems("captex/05_aggregate", params) == [
        "captex/05_aggregate.mcq_method: 'generate' is not among methods ['loglikelihood']"]
    assert notebook_choice_problems("captex/05_aggregate", {**params, "mcq_method": "loglikelihood"}) == []
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    with pytest.raises(ParameterError, match="mcq_method"):
        cl.start_run("captex/05_aggregate", params)
