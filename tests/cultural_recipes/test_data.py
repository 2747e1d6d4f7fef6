"""CulturalRecipes loaders: release format, validation errors naming file/row/column, corpora."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from culturelab.cultural_recipes import data as cr
from culturelab.data import DataError


def _recipe(title="红豆汤", ingredients=("红豆",), steps=("煮。",), rid="r1"):
    return {"id": rid, "title": title, "title_translated": None, "ingredients": list(ingredients),
            "steps": list(steps), "dish": None}


def _write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")
    return path


def test_sample_splits_have_the_release_shape():
    parts = [cr.load_split(d, s, data_source="sample") for d in cr.DIRECTIONS for s in cr.SPLIT_FILES]
    assert cr.data_source_of(parts) == "sample"
    table = pd.concat(parts, ignore_index=True)
    assert set(table["split"]) == set(cr.SPLIT_FILES) and set(table["direction"]) == {"zh2en", "en2zh"}
    gold = table[(table["split"] == "gold") & (table["direction"] == "en2zh")]
    assert gold["n_targets"].tolist() == [1] * 5
    # gold sources are the silver sources (the paper picked gold items from the silver sets)
    silver = table[(table["split"] == "silver") & (table["direction"] == "en2zh")]
    assert gold["recipe_id"].tolist() == silver["recipe_id"].tolist()
    assert len(cr.pairs(table[table["split"] == "train"])) == int(table[table["split"] == "train"]["n_targets"].sum())


def test_each_data_source_resolves_to_the_local_copy_or_our_sample(tmp_path):
    folder = tmp_path / "cultural_recipes" / "recipe_match_cn2en"
    folder.mkdir(parents=True)
    _write(folder / "gold_test.jsonl", [{"source": _recipe(), "targets": [_recipe("Soup", ["beans"], ["Boil."])]}])
    for data_source in ("auto", "local"):
        table = cr.load_split("zh2en", "gold", data_dir=tmp_path, data_source=data_source)
        assert table.attrs["data_source"] == "released" and table["recipe_id"].tolist() == ["r1"]
    sample = cr.load_split("zh2en", "gold", data_dir=tmp_path, data_source="sample")
    assert sample.attrs["data_source"] == "sample" and len(sample) == 5
    auto = cr.load_split("en2zh", "gold", data_dir=tmp_path)  # no local en2zh: auto falls back to the sample
    assert auto.attrs["data_source"] == "sample"
    assert cr.data_source_of([table, auto]) == "mixed"
    with pytest.raises(FileNotFoundError, match="Google Drive"):
        cr.load_split("en2zh", "gold", data_dir=tmp_path, data_source="local")
    with pytest.raises(ValueError, match="download it by hand"):  # the release has no fetchable download
        cr.load_split("zh2en", "gold", data_dir=tmp_path, data_source="download")


@pytest.mark.parametrize(("row", "column", "message"), [
    ("{not json", "json", "not valid JSON"),
    ({"source": _recipe(), "targets": []}, "targets", "non-empty list"),
    ({"source": {"title": "x", "ingredients": "salt", "steps": ["a"]}, "targets": [_recipe()]}, "source",
     "'ingredients' must be a list of strings"),
    ({"source": _recipe(), "targets": [{"title": "", "ingredients": [], "steps": ["a"]}]}, "targets",
     "target 0: recipe title must be a non-empty string"),
])
def test_malformed_rows_name_file_row_and_column(tmp_path, row, column, message):
    good = {"source": _recipe(), "targets": [_recipe()]}
    path = _write(tmp_path / "bad.jsonl", [good, row])
    with pytest.raises(DataError, match=rf"bad.jsonl, row 2, column '{column}': .*{message}"):
        cr.read_matched(path)


def test_ratings_are_validated(tmp_path):
    bad = tmp_path / "ratings.csv"
    bad.write_text("recipe_id,direction,system,GRA,CON,PRE,CUL\na,zh2en,X,8,1,1,1\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"ratings\.csv, row 2, column 'GRA': must be an integer rating 1–7"):
        cr.load_ratings(bad)


def test_corpus_readers_stream_recipenlg_csv_jsonl_and_text(tmp_path):
    csv_path = tmp_path / "recipenlg.csv"
    pd.DataFrame({"title": ["Soup", "Cake"], "ingredients": ['["1 cup beans", "salt"]', '["flour"]'],
                  "directions": ['["Boil.", "Serve."]', '["Bake."]'], "link": ["", ""], "source": ["Gathered"] * 2,
                  "NER": ["[]", "[]"]}).to_csv(csv_path)
    recipes = list(cr.iter_recipes(csv_path))
    assert recipes[0] == {"title": "Soup", "ingredients": ["1 cup beans", "salt"], "steps": ["Boil.", "Serve."]}
    assert len(list(cr.iter_recipes(csv_path, max_recipes=1))) == 1
    matched = _write(tmp_path / "m.jsonl", [{"source": _recipe(), "targets": [_recipe(rid="t1"), _recipe(rid="t2")]}])
    assert [r["id"] for r in cr.iter_recipes(matched, scope="matched")] == ["r1", "t1", "t2"]
    text = tmp_path / "c.txt"
    text.write_text("红豆洗净\n\n煮30分钟\n", encoding="utf-8")
    assert [r["steps"] for r in cr.iter_recipes(text)] == [["红豆洗净"], ["煮30分钟"]]
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("name,x\na,b\n", encoding="utf-8")
    with pytest.raises(DataError, match="missing column"):
        list(cr.iter_recipes(bad_csv))


def test_table1_counts_jieba_and_whitespace_tokens():
    table = cr.load_split("zh2en", "gold", data_source="sample")
    stats = cr.table1_stats(table).iloc[0]
    first = table["source"].iloc[0]
    assert stats["n_source"] == 5 and stats["n_target"] == 5
    assert cr.count_tokens(cr.recipe_text(first), "zh") == len(cr.tokenize(cr.recipe_text(first), "zh"))
    expected = sum(len(cr.recipe_text(t[0]).split()) for t in table["targets"]) / 5
    assert stats["mean_tokens_target"] == pytest.approx(expected)
