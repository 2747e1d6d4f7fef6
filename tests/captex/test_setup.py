"""``culturelab.captex.setup``: the allowed values of the five notebooks (CHOICES and the
cross-key rule) and ``open(run)`` for every data_source."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import culturelab as cl
from culturelab.captex import data as cx
from culturelab.captex import setup
from culturelab.params import ParameterError, check_choices, notebook_choice_problems
from culturelab.protocol import DataUsed
from culturelab.runner import notebook_defaults, notebook_file

#: what the data fixes where the paper is silent: the reference without its marker; CB-MCQ options
#: built by us (neither the sample nor the release-sized copy has Choices)
OURS = {"reference_marker": "stripped", "cb_mcq_options": "generated"}


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


# ------------------------------------------------------------------ the data a run used (issue 21)
def start_dataset(monkeypatch, tmp_path, **values):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    return cl.start_run("captex/01_dataset", {**notebook_defaults(notebook_file("captex/01_dataset")), **values})


def dataset_sizes(run, data) -> pd.DataFrame:
    return cl.reported.compare(cl.reported.load("captex", "dataset"), data.sizes(), on=["measure"],
                               deviations=run.deviations())


@pytest.mark.parametrize(("values", "label"), [
    ({"countries": ["Iran"]}, "100 of 700 procedures; 800 of 5,600 mcqs; 100 of 700 conversations; "
                              "countries Iran only (the paper: all, Table 2: seven countries)"),
    # our release-sized copies of the sample hold 5 of the 10 categories: 140 procedures each
    ({"categories": ["Food and Cuisine"]}, "140 of 700 procedures; 1,120 of 5,600 mcqs; 140 of 700 conversations; "
                                           "categories Food and Cuisine only (the paper: all, §3.1: ten categories)"),
])
def test_a_release_cut_down_is_a_subset_and_gets_no_delta(monkeypatch, tmp_path, release, values, label):
    run = start_dataset(monkeypatch, tmp_path, data_dir=str(release.parent), **values)
    data = setup.open(run)
    assert run.data_source == "released" and run.deviations().data == label
    sizes = dataset_sizes(run, data)
    assert sizes["delta"].isna().all() and not sizes["comparable"].any()


def test_max_procedures_cuts_a_release_to_a_subset(monkeypatch, tmp_path, release):
    run = start(monkeypatch, tmp_path, data_dir=str(release.parent), max_procedures=7)
    setup.open(run)
    assert run.deviations("random", model=None).data == ("7 of 700 procedures; 56 of 5,600 mcqs; 7 of 700 "
                                                         "conversations; max_procedures 7 (the paper: all, §3.1: "
                                                         "700 procedures)")


def test_the_whole_release_is_the_papers_data(monkeypatch, tmp_path, release):
    run = start_dataset(monkeypatch, tmp_path, data_dir=str(release.parent))
    sizes = dataset_sizes(run, setup.open(run))
    assert run.deviations().data == "same" and sizes["comparable"].all() and (sizes["delta"] == 0).all()


@pytest.fixture()
def hub(monkeypatch, tmp_path, tmp_cache, release):
    """The Hugging Face hub as a local folder: ``huggingface_hub.snapshot_download`` copies the
    release into the cache as the library does (``up``), and otherwise — offline, or
    ``local_files_only`` — serves the cached copy or fails as the library does. No local copy."""
    import shutil

    import huggingface_hub
    from huggingface_hub.errors import LocalEntryNotFoundError

    state = {"up": True, "downloads": 0}

    def snapshot_download(repo_id, *, repo_type, cache_dir, local_files_only=False, **_):
        assert (repo_id, repo_type) == ("AmirHossein2002/CAPTex", "dataset")
        target = Path(cache_dir) / "datasets--AmirHossein2002--CAPTex" / "snapshots" / ("0" * 40)
        if local_files_only or not state["up"]:
            if target.is_dir():
                return str(target)
            raise LocalEntryNotFoundError("no cached snapshot and the hub cannot be reached")
        shutil.copytree(release, target, dirs_exist_ok=True)
        state["downloads"] += 1
        return str(target)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "empty"))
    return state


def test_auto_downloads_the_public_release_once_then_reads_the_cache(monkeypatch, tmp_path, hub, tmp_cache, capsys):
    from culturelab.captex.protocol import locate

    params = {"data_source": "auto", "data_dir": ""}
    before = locate("02_reordering", params)
    assert before.source == "released" and "downloaded from https://huggingface.co/datasets/AmirHossein2002/CAPTex" \
        in before.note and hub["downloads"] == 0  # found without downloading
    run = start(monkeypatch, tmp_path, data_source="auto", max_procedures=0)
    data = setup.open(run)
    assert data.data_source == run.data_source == "released" and data.location.startswith(str(tmp_cache))
    assert hub["downloads"] == 1 and run.deviations("random", model=None).data == "same"
    assert "note: the hub release AmirHossein2002/CAPTex (CC BY-NC 4.0), downloaded from" in capsys.readouterr().out
    hub["up"] = False  # offline from now on: the cached copy serves
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cached = locate("02_reordering", params)
    assert cached.source == "released" and cached.note.startswith("the hub release AmirHossein2002/CAPTex (CC BY-NC "
                                                                  "4.0), cached at")
    assert cx.load(data_source="auto").location == data.location and hub["downloads"] == 1


def test_without_the_hub_auto_says_why_it_uses_the_sample_and_download_fails(monkeypatch, tmp_path, hub, capsys):
    from culturelab.captex.protocol import locate

    hub["up"] = False  # online, but the hub cannot be reached
    run = start(monkeypatch, tmp_path, data_source="auto")
    assert setup.open(run).data_source == "sample" and hub["downloads"] == 0
    assert run.deviations().data.startswith("sample data (ours, not the paper's) — the public release "
                                            "AmirHossein2002/CAPTex could not be downloaded (")
    assert "`auto` uses our sample" in capsys.readouterr().out
    with pytest.raises(ConnectionError, match="could not fetch the dataset AmirHossein2002/CAPTex"):
        cx.load(data_source="download")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # offline: nothing is tried, and each source says so
    offline = "offline (HF_HUB_OFFLINE is set): the public release AmirHossein2002/CAPTex cannot be downloaded"
    assert locate("02_reordering", {"data_source": "auto"}) == DataUsed("sample", note=f"{offline}; `auto` uses our "
                                                                                      "sample", settings=OURS)
    assert locate("02_reordering", {"data_source": "download"}).source == "missing"
    assert cx.load(data_source="auto").source_note == f"{offline}; `auto` uses our sample"


def test_locate_reads_no_data(monkeypatch, tmp_path, release):
    from culturelab.captex.protocol import locate

    def no_loading(*_, **__):
        raise AssertionError("locate must not load the data")

    monkeypatch.setattr(cx, "read_procedures", no_loading)
    monkeypatch.setenv("CULTURELAB_DATA", str(release.parent))
    assert locate("01_dataset", {"data_source": "auto", "data_dir": ""}) == DataUsed("released", note=f"local copy at "
                                                                                                     f"{release}",
                                                                                      settings=OURS)
    assert locate("01_dataset", {"data_source": "sample", "data_dir": ""}) == DataUsed("sample", settings=OURS)
    missing = locate("01_dataset", {"data_source": "auto", "data_dir": str(tmp_path)})
    assert missing.source == "missing" and missing.note.startswith("no local copy of CAPTEx (Procedures.csv")
