"""Notebook glue: allowed values and cross-key rules, open() per data source, probe jobs, table
layouts; Table 3 counts; descriptives; the paper's correlations beside ours."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

from culturelab.data.sources import sample_dir
from culturelab.fmlama import data as F
from culturelab.fmlama import descriptives, setup, tables
from culturelab.fmlama.probing import ProbeJob, limit, probe_jobs
from culturelab.params import notebook_choice_problems


@pytest.mark.parametrize(("notebook", "key", "value", "fragment"), [
    ("02_probing", "languages", ["en", "fr"], "['fr'] not allowed; choose from en, zh, ar, he, ru, ko"),
    ("02_probing", "languages", [], "must not be empty"),
    ("02_probing", "templates", [1, 6], "[6] not allowed; choose from 1, 2, 3, 4, 5"),
    ("02_probing", "contexts", [1], "[1] not allowed; choose from False, True"),
    ("02_probing", "scoring", "full", "'full' is not one of auto, sentence, prefix"),
    ("02_probing", "prompt_version", "v9", "'v9' is not one of v1, v2, v3"),
    ("03_code_switching", "settings", ["EN_fr"], "['EN_fr'] not allowed"),
    ("03_code_switching", "cross_languages", ["xx"], "['xx'] not allowed"),
    ("04_decoder_llms", "instructions", ["all"], "['all'] not allowed; choose from full, one"),
    ("04_decoder_llms", "model_settings", ["ZH_ko"], "['ZH_ko'] not allowed"),
    ("04_decoder_llms", "generations_setting", "EN", "'EN' is not one of EN_en, EN_zh, ZH_zh, ZH_en"),
    ("01_dataset", "data_source", "hf", "'hf' is not one of auto, local, download, sample"),
])
def test_a_bad_value_is_one_line_naming_the_key(notebook, key, value, fragment):
    problems = notebook_choice_problems(f"fmlama/{notebook}", {key: value})
    assert problems == [f"fmlama/{notebook}.{key}: {problems[0].split(': ', 1)[1]}"] and fragment in problems[0]


def test_cross_key_rules_paper_column_and_prompt_version():
    good = {"languages": ["en", "zh"], "paper_column": "Avg", "prompt_version": "v2"}
    assert setup.check("02_probing", good) == []
    assert setup.check("02_probing", {**good, "paper_column": "T5"}) == [
        "paper_column: 'T5' is not in the paper's table for zh (choose from auto, Bb-zh, mB-c, mB-u, XRb, XRl, mT5, Avg)"]
    assert setup.check("02_probing", {**good, "paper_column": "auto"}) == []
    assert setup.check("02_probing", {"languages": ["he"], "prompt_version": "v3"}) == []
    # settings name their template language: ZH_en probes Chinese templates
    assert setup.check("03_code_switching", {"settings": ["ZH_en"], "languages": ["he"], "prompt_version": "v3"}) == [
        "prompt_version: v3 has no templates for zh (it exists for he)"]
    assert setup.check("04_decoder_llms", {"settings": ["ZH_en"]}) == []  # no prompt_version there


class FakeRun:
    def __init__(self, **params):
        self.params = params

    def set_data_source(self, stamp, counts=None, note=""):
        self.stamp, self.note = stamp, note


@pytest.fixture()
def local_copy(tmp_path):
    root = tmp_path / "fmlama" / "data"
    root.mkdir(parents=True)
    for name in ("Dishes.csv", "country_info.json"):
        shutil.copy(sample_dir("fmlama") / "data" / name, root)
    return tmp_path


@pytest.mark.parametrize(("asked", "with_copy", "resolved", "stamp"), [
    ("auto", True, "auto", "released"), ("auto", False, "download", "released"),
    ("local", True, "local", "released"), ("download", True, "download", "released"),
    ("sample", True, "sample", "sample"), ("sample", False, "sample", "sample"),
])
def test_open_resolves_each_data_source(local_copy, tmp_path, monkeypatch, asked, with_copy, resolved, stamp):
    """``auto`` with a local copy reads it and downloads what it lacks (``Release("auto")``)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # online: no request is made here, the note says what will be
    monkeypatch.setenv("CULTURELAB_CACHE", str(tmp_path / "cache"))
    data_dir = str(local_copy if with_copy else tmp_path / "empty")
    run = FakeRun(data_source=asked, data_dir=data_dir)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = setup.open(run)
    assert release == F.Release(resolved, data_dir) and run.stamp == stamp
    assert run.note == {"local": str(local_copy / "fmlama"), "auto": str(local_copy / "fmlama"),
                        "sample": ""}.get(resolved, run.note)
    assert resolved != "download" or "downloaded from https://github.com/lizhou21/FmLAMA-master" in run.note
    assert ["OUR FMLAMA sample" in str(w.message) for w in caught] == ([True] if resolved == "sample" else [])
    if resolved in {"local", "auto"}:
        assert len(release.dishes()) == 65  # the copy under data_dir, not $CULTURELAB_DATA


def test_open_without_a_local_copy_says_where_it_looked(tmp_path):
    run = FakeRun(data_source="local", data_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"no local copy of the FMLAMA release .* use data_source 'download'"):
        setup.open(run)
    assert not hasattr(run, "stamp")


def test_probe_jobs_sample_the_same_dishes_in_every_view():
    cs = F.load_code_switching(data_source="sample")
    views = {s: F.setting_view(cs, s) for s in F.SETTINGS}
    jobs = probe_jobs(views, per_group=1, max_total=3, max_candidates=6, seed=2, key="setting")
    assert [j.extra for j in jobs] == [{"setting": s} for s in F.SETTINGS]
    assert [j.lang for j in jobs] == ["en", "en", "zh", "zh"]
    urls = jobs[0].table["url"].tolist()
    assert len(urls) == 3 and all(j.table["url"].tolist() == urls for j in jobs)
    # the same dishes as sampling the subset once, then viewing it (what the notebooks did before)
    once = limit(cs, 1, 3, seed=2)
    assert jobs[1].table.equals(F.setting_view(once, "EN_zh"))
    for job in jobs:
        assert isinstance(job, ProbeJob) and job.reference is views[job.extra["setting"]]
        gold = {i for items in job.table["ingredients"] for i in items}
        full = {i for items in job.reference["ingredients"] for i in items}
        assert gold <= set(job.candidates) and len(job.candidates) == min(len(full), max(6, 2 * len(gold)))
    by_lang = probe_jobs({"en": F.load_language("en", data_source="sample")}, per_group=0, max_total=0,
                         max_candidates=0)
    assert by_lang[0].extra == {} and len(by_lang[0].table) == 19
    with pytest.raises(ValueError, match="one template language"):
        probe_jobs({"mixed": pd.concat([views["EN_en"], views["ZH_zh"]])}, per_group=1, max_total=0, max_candidates=0)


def test_limit_samples_per_group_then_caps():
    table = pd.DataFrame({"group": list("aaabbbccc"), "url": list("123456789")})
    one_each = limit(table, 1, 0, seed=0)
    assert sorted(one_each["group"]) == ["a", "b", "c"]
    assert len(limit(table, 2, 4, seed=0)) == 4 and len(limit(table, 0, 0)) == 9
    assert limit(table, 2, 4, seed=0).equals(limit(table, 2, 4, seed=0))


def test_ingredient_table_counts_and_coverage():
    out = tables.ingredient_table({"en": [["egg", "rice"], ["egg", "salt"]]}, {"en": [["egg"], ["flour", "egg"]]}, n=2)
    assert out["predicted"].tolist() == ["egg", "rice"] and out["predicted_count"].tolist() == [2, 1]
    assert out["gold"].tolist() == ["egg", "flour"] and out["coverage_top_n"].iloc[0] == pytest.approx(3 / 4)


def test_side_by_side_has_the_paper_columns_and_ours():
    summary = pd.DataFrame({"lang": "ar", "model": "ours", "context": False, "group": ["ALL"], "metric": "mAP",
                            "mean": [3.0], "std": [0.5], "n_templates": 5})
    wide = tables.side_by_side(summary, "ar", "mAP")
    assert wide.loc["ALL", "paper: Bb-ar"] == "3.95±1.31" and wide.loc["ALL", "ours: ours"] == "3.00±0.50"
    assert list(wide.index)[-1] == "ALL" and len(wide) == 16
    with pytest.raises(KeyError, match="no mWS"):
        tables.reported_probing("zh", "mWS")


def test_descriptives_on_the_sample():
    dishes = F.load_dishes(data_source="sample")
    stats = descriptives.dataset_stats(dishes).set_index("quantity")["value"]
    assert stats["dish instances"] == len(dishes) and stats["languages"] == 8
    assert stats["instances with 1 ingredient"] == 2  # dal in en and zh
    sub = descriptives.subset_stats({"en": F.load_language("en", data_source="sample")})
    assert sub.loc[0, "dishes"] == 19 and sub.loc[0, "single_ingredient"] == 1
    dist = descriptives.ingredient_count_distribution(dishes)
    assert dist.sum() == len(dishes)


def test_the_papers_bars_beside_ours_draw_no_error_bar():
    """The paper prints no interval for Table 13: its bars get NaN bounds, not zero-length capped bars."""
    from culturelab.fmlama import figures

    compared = pd.DataFrame({"setting": "EN_en", "group": ["Italy", "Japan"], "reported": [42.9, 30.0]})
    paper = tables.reported_rows(compared).assign(bar="paper")
    ours = pd.DataFrame({"setting": "EN_en", "group": ["Italy", "Japan"], "accuracy": [40.0, 31.0],
                         "ci_low": [30.0, 20.0], "ci_high": [50.0, 40.0], "bar": "ours"})
    assert paper[["ci_low", "ci_high"]].isna().all().all()
    fig = figures.ci_bars(pd.concat([ours, paper]).rename(columns={"accuracy": "mean"}), hue="bar", reported=["paper"])
    bars = {c.get_label(): c for c in fig.axes[0].containers}
    segments = bars["paper"].errorbar.lines[2][0].get_segments()
    assert not np.isfinite(np.concatenate(segments)).any()  # nothing drawn for the paper's bars
    assert np.isfinite(np.concatenate(bars["ours"].errorbar.lines[2][0].get_segments())).all()
