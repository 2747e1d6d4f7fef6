"""PERCUL loader: sample, local released-layout parquet, validation errors that name file/row/column."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from culturelab.data import DataError
from culturelab.data.sources import sample_dir
from culturelab.percul import data as pc


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _sample_rows(split="original_persian"):
    return [json.loads(line) for line in (sample_dir("percul") / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_sample_covers_all_categories_with_rules_and_english_pair():
    fa, en = pc.load_pair(data_source="sample")
    assert fa.source == "sample" and fa.has_rules
    assert set(fa.items["category"]) == set(pc.CATEGORIES)
    assert fa.items.groupby("category", observed=True).size().min() >= 3
    assert sorted(fa.items["answer"].unique()) == [0, 1, 2, 3]
    assert (fa.items["id"] == en.items["id"]).all() and (fa.items["answer"] == en.items["answer"]).all()
    # the correct option is labelled 'correct' and the distractors carry rules
    for rules, answer in zip(fa.items["rules"], fa.items["answer"]):
        assert rules[answer] == "correct" and all(r in pc.RULES for i, r in enumerate(rules) if i != answer)
    # mixed-case category strings were normalised, the raw string kept
    assert {"OBJECTS", "visible_behavior", "Iconic figures"} <= set(fa.items["category_raw"])


def test_normalisation_helpers():
    assert pc.normalise_category("Visible behavior") == "Visible Behavior"
    assert pc.normalise_category("iconic_figures") == "Iconic Figures"
    with pytest.raises(ValueError, match="unknown category"):
        pc.normalise_category("Sports")
    assert pc.normalise_persian("امام حسين در كاسه\u200cها ۱۲") == "امام حسین در کاسه ها 12"


def test_released_layout_parquet_is_found_and_marked_released(tmp_path, monkeypatch):
    folder = tmp_path / "percul" / "data"
    folder.mkdir(parents=True)
    for split in pc.SPLITS:
        pd.DataFrame(_sample_rows(split)).to_parquet(folder / f"{split}-00000-of-00001.parquet")
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path))
    bench = pc.load("original_persian")
    assert bench.source == "released" and bench.location.endswith(".parquet")
    assert not bench.has_rules  # the release has no rule labels
    assert len(bench.items) == 34 and bench.items["options"].map(len).eq(4).all()
    with pytest.raises(DataError, match=r"34 rows \(released: 592"):
        pc.load("original_persian", check_counts=True)


def test_download_fetches_the_gated_repo_parquet(tmp_path, monkeypatch):
    from culturelab.data import sources

    (tmp_path / "data").mkdir()
    pd.DataFrame(_sample_rows()).to_parquet(tmp_path / "data" / "original_persian-00000-of-00001.parquet")
    calls = []

    def fake_snapshot(repo_id, **kw):
        calls.append((repo_id, kw["allow_patterns"]))
        return tmp_path

    monkeypatch.setattr(sources, "hf_snapshot", fake_snapshot)
    bench = pc.load("original_persian", data_source="download")
    assert calls == [("teias-ai/percul", ["*.parquet", "*.md"])]
    assert bench.source == "released" and len(bench.items) == 34
    with pytest.raises(FileNotFoundError, match="gpt_english_translation"):
        pc.load("gpt_english_translation", data_source="download")


def test_explicit_data_dir_without_files_is_a_clear_error(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match=r"no local copy of PERCUL's splits \(original_persian\*\.parquet"):
        pc.load(data_dir=tmp_path)
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path))  # nothing under $CULTURELAB_DATA/percul either
    with pytest.raises(FileNotFoundError, match="use data_source 'download' or 'sample'"):
        pc.load(data_source="local")
    assert pc.load().source == "sample"  # auto falls back to our sample
    assert pc.load(data_dir=tmp_path, data_source="sample").source == "sample"


@pytest.mark.parametrize(("column", "value", "message"), [
    ("Correct Choice", 5, "column 'Correct Choice': must be 1–4"),
    ("Category", "Sports", "column 'Category': ValueError: unknown category 'Sports'"),
    ("Story", "  ", "column 'Story': must be non-empty text"),
    ("Choice 3", None, "column 'Choice 3': must be non-empty text"),
])
def test_malformed_row_names_file_row_and_column(tmp_path, column, value, message):
    rows = _sample_rows()
    rows[2][column] = value
    _write_jsonl(tmp_path / "original_persian.jsonl", rows)
    with pytest.raises(DataError) as err:
        pc.load(data_dir=tmp_path)
    assert "original_persian.jsonl, row 3," in str(err.value) and message in str(err.value)


def test_csv_rows_count_the_header_and_duplicates_are_caught(tmp_path):
    rows = _sample_rows()
    rows[4]["ID"] = rows[1]["ID"]
    pd.DataFrame(rows).to_csv(tmp_path / "original_persian.csv", index=False)
    with pytest.raises(DataError, match=r"row 6, column 'ID': duplicate ID"):
        pc.load(data_dir=tmp_path)
    rows = _sample_rows()
    rows[0]["Choice 2"] = rows[0]["Choice 1"]
    _write_jsonl(tmp_path / "original_persian.jsonl", rows)
    (tmp_path / "original_persian.csv").unlink()
    with pytest.raises(DataError, match="row 1, column 'Choice 1': the four options are not distinct"):
        pc.load(data_dir=tmp_path)


def test_missing_column_is_reported(tmp_path):
    rows = [{k: v for k, v in r.items() if k != "Topic"} for r in _sample_rows()]
    _write_jsonl(tmp_path / "original_persian.jsonl", rows)
    with pytest.raises(DataError, match=r"missing column\(s\) \['Topic'\]"):
        pc.load(data_dir=tmp_path)


def test_rule_labels_are_checked(tmp_path):
    _write_jsonl(tmp_path / "original_persian.jsonl", _sample_rows())
    rules = pd.read_csv(sample_dir("percul") / "distractor_rules.csv", dtype=str)
    rules.loc[5, "Rule"] = "R9"
    rules.to_csv(tmp_path / "distractor_rules.csv", index=False)
    with pytest.raises(DataError, match=r"distractor_rules.csv, row 7, column 'Rule'"):
        pc.load(data_dir=tmp_path)
    rules = pd.read_csv(sample_dir("percul") / "distractor_rules.csv", dtype=str)
    rules.loc[0, "Rule"], rules.loc[1, "Rule"] = "R1", "correct"  # story 0's answer is Choice 1
    rules.to_csv(tmp_path / "distractor_rules.csv", index=False)
    with pytest.raises(DataError, match=r"'0_S_OBJ'.*Choice 1"):
        pc.load(data_dir=tmp_path)
    assert not pc.load(data_dir=tmp_path, rules=False).has_rules


def test_splits_must_pair(tmp_path):
    fa, en = _sample_rows(), _sample_rows("gpt_english_translation")
    en[3]["Correct Choice"] = en[3]["Correct Choice"] % 4 + 1
    _write_jsonl(tmp_path / "original_persian.jsonl", fa)
    _write_jsonl(tmp_path / "gpt_english_translation.jsonl", en)
    with pytest.raises(DataError, match="different answer or category"):
        pc.load_pair(data_dir=tmp_path)
    _write_jsonl(tmp_path / "gpt_english_translation.jsonl", en[:-1])
    with pytest.raises(DataError, match="only one split"):
        pc.load_pair(data_dir=tmp_path)
