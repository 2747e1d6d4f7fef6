"""FMLAMA loaders: subset sizes by the paper's rules, ingredient splitting, errors, download."""

from __future__ import annotations

import hashlib
import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from culturelab.data import DataError
from culturelab.data.sources import sample_dir
from culturelab.fmlama import data as fmlama


def test_released_subset_sizes(released_subsets):
    assert {la: len(t) for la, t in released_subsets.items()} == fmlama.subset_sizes()
    assert {la: len(set(t["url"])) for la, t in released_subsets.items()} == fmlama.subset_sizes()


def test_rebuilt_subsets_equal_the_released_files(dishes, released_subsets):
    for la in fmlama.LANGUAGES:
        rebuilt = fmlama.build_language_subset(dishes, la)
        released = released_subsets[la]
        assert rebuilt["url"].tolist() == released["url"].tolist(), la
        assert rebuilt["dish"].tolist() == released["dish"].tolist(), la
        assert rebuilt["ingredients"].tolist() == released["ingredients"].tolist(), la


def test_comma_joined_ingredients_are_split(dishes, released_subsets):
    en = released_subsets["en"].set_index("dish")
    assert en.at["poutine", "ingredients"] == ["gravy", "french fries", "cheese curds"]
    candidates = {i for items in en["ingredients"] for i in items}
    assert len(candidates) == 1287 and not any(", " in c for c in candidates)
    assert len(dishes) == 33693 and dishes["url"].nunique() == 2818
    assert round(dishes["ingredients"].map(len).mean(), 3) == 2.037


def test_paper_groups_and_counts(released_subsets):
    counts = released_subsets["en"]["group"].value_counts().to_dict()
    assert counts["U.S."] == 285 and counts["Italy"] == 215 and counts["Others"] == 1031
    assert counts["China"] == 97 and counts["U.K."] == 83


def test_multilingual_subset_is_the_intersection(released_subsets):
    urls = fmlama.build_multilingual(released_subsets)
    assert len(urls) == fmlama.multilingual_size()
    for la in fmlama.LANGUAGES:
        released = fmlama.load_multilingual(la, data_source="local")
        assert set(released["url"]) == set(urls)
    en = fmlama.load_multilingual("en", data_source="local")
    assert en["continent"].value_counts().to_dict() == {"Europe": 93, "Asia": 36, "North America": 35,
                                                          "Oceania": 5, "South America": 4, "Africa": 2}


def test_code_switching_subset(released_subsets):
    cs = fmlama.code_switching_subset(released_subsets["en"], released_subsets["zh"])
    sizes = fmlama.code_switching_sizes()
    assert len(cs) == sizes.pop("ALL") == 508
    assert cs["group"].value_counts().to_dict() == sizes
    view = fmlama.setting_view(cs, "ZH_en").set_index("url")
    row = view.loc["http://www.wikidata.org/entity/Q1051482"]  # dorayaki: English name, Chinese gold
    assert row["dish"] == "dorayaki" and row["ingredients"] == ["卡斯提拉", "豆沙"]


def test_sample_follows_the_rules():
    dishes = fmlama.load_dishes(data_source="sample")
    en = fmlama.load_language("en", data_source="sample")
    assert "hummus" not in set(en["dish"])  # two origins → dropped
    zh = fmlama.load_language("zh", data_source="sample")
    assert "饺子" in set(zh["dish"]) and "面粉" in {i for x in zh["ingredients"] for i in x}  # made Simplified
    assert len(zh) == (dishes["lang"] == "zh").sum()  # zh-hant rows are not merged into zh
    multi = fmlama.load_multilingual("ko", data_source="sample")
    assert len(multi) == 6 and multi["dish"].iloc[0] == "피자 마르게리타"


def test_malformed_rows_name_file_row_and_column(tmp_path, monkeypatch):
    root = tmp_path / "fmlama" / "data"
    root.mkdir(parents=True)
    shutil.copy(sample_dir("fmlama") / "data" / "country_info.json", root)
    good = (sample_dir("fmlama") / "data" / "Dishes.csv").read_text(encoding="utf-8").splitlines()
    bad = [*good[:3], 'http://www.wikidata.org/entity/Q1,Italy,pizza,en,"{\'\'}",{\'\'},', *good[3:]]
    (root / "Dishes.csv").write_text("\n".join(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"Dishes\.csv, row 4, column 'hasParts': no ingredient"):
        fmlama.load_dishes(data_dir=tmp_path, data_source="local")
    (root / "data_lang" / "en").mkdir(parents=True)
    (root / "data_lang" / "en" / "en_dishes.jsonl").write_text('{"url": "x", "origin": "Italy", "lang": "en", '
                                                               '"sub_label": "pizza", "obj_label": "{\'a\'}"}\n')
    with pytest.raises(DataError, match=r"en_dishes\.jsonl, row 1, column 'url': not a Wikidata URL"):
        fmlama.load_language("en", data_dir=tmp_path, data_source="local")


def test_wrong_release_size_is_reported(tmp_path):
    root = tmp_path / "fmlama" / "data"
    root.mkdir(parents=True)
    for name in ("Dishes.csv", "country_info.json"):
        shutil.copy(sample_dir("fmlama") / "data" / name, root)
    with pytest.raises(DataError, match="FMLAMA-en: 19 dishes, the paper-era release has 2580"):
        fmlama.load_language("en", data_dir=tmp_path, data_source="local", rebuild=True)
    assert len(fmlama.load_language("en", data_dir=tmp_path, data_source="local", rebuild=True, check_size=False)) == 19


@pytest.fixture()
def release_server(release_dir):
    """The release folder served over loopback HTTP, standing in for raw.githubusercontent.com."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(release_dir))
    handler.log_message = lambda *a: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_download_is_checked_against_the_pinned_hash(release_server, release_dir, tmp_path, monkeypatch,
                                                     tmp_cache):
    monkeypatch.setattr(fmlama, "RAW_URL", release_server)
    empty = tmp_path / "empty"
    empty.mkdir()
    rel = "data/data_lang/he/he_dishes.jsonl"
    path = fmlama.release_file(rel, data_dir=empty)
    assert str(path).startswith(str(tmp_cache))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fmlama.CHECKSUMS[rel]
    monkeypatch.setenv("CULTURELAB_DATA", str(empty))
    assert len(fmlama.load_language("he")) == 463  # country_info.json is downloaded too
    monkeypatch.setitem(fmlama.CHECKSUMS, "data/data_lang/ru/ru_dishes.jsonl", "0" * 64)
    with pytest.raises(ValueError, match="checksum"):
        fmlama.release_file("data/data_lang/ru/ru_dishes.jsonl", data_dir=empty)


def test_every_pinned_checksum_matches_the_local_release(release_dir):
    for rel, sha in fmlama.CHECKSUMS.items():
        path = release_dir / rel
        if path.is_file():
            assert hashlib.sha256(path.read_bytes()).hexdigest() == sha, rel
