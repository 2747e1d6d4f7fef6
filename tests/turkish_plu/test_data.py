"""Turkish PLU loaders: split sizes against Table 4 on the real release, schema errors that name
file/row/column, the verified download path (a loopback HTTP server stands in for GitHub)."""

from __future__ import annotations

import hashlib
import json
import shutil

import pandas as pd
import pytest

from culturelab import reported
from culturelab.data import DataError
from culturelab.turkish_plu import data as tp
from culturelab.turkish_plu.corpus import corpus_stats


# ------------------------------------------------------------------ the real release
def test_val_test_sizes_equal_table4_except_the_missing_nep_row(real_root):
    table4 = reported.load("turkish_plu", "table4").set_index(["task", "split"])["value"]
    sizes = tp.Release(real_root.parent).split_sizes().set_index(["task", "split"])["value"]
    for (task, split), n in sizes.items():
        if (task, split) == ("nep", "test"):
            assert (n, table4[(task, split)]) == (655, 656)  # the release lacks one NEP test row
        else:
            assert n == table4[(task, split)], (task, split)
    assert sizes[("linking", "test")] == 440 and sizes[("linking", "train")] == 1319


def test_pinned_checksums_match_the_shared_copies(real_root):
    for key, f in tp.FILES.items():
        digest = hashlib.sha256((real_root / f.local).read_bytes()).hexdigest()
        assert digest == f.sha256, key


def test_linking_blocks_match_the_pilot_files(real_root):
    links = tp.Release(real_root.parent).linking("all")
    pilot_test = json.loads((real_root / "linking" / "original-hyperlinks-test.json").read_text(encoding="utf-8"))
    first = links[(links["split"] == "test") & (links["origin"] == "original")]
    assert list(first["step"]) == list(pilot_test)
    assert links.groupby(["split", "origin"]).size().to_dict() == {
        ("test", "original"): 52, ("test", "translated"): 388, ("train", "original"): 156,
        ("train", "translated"): 1163}


def test_corpus_reproduces_the_original_row_of_table3(real_root):
    stats = corpus_stats(tp.Release(real_root.parent).corpus()).set_index("source").loc["Original"]
    assert (stats["tutorials"], stats["methods"], stats["steps"]) == (2009, 6720, 38481)
    assert round(stats["avg_steps"], 2) == 19.15 and round(stats["avg_methods"], 2) == 3.34


def test_si_and_nep_tests_are_original_turkish_with_categories(real_root):
    release = tp.Release(real_root.parent)
    corpus = release.corpus()
    si = release.mc("si", "test", corpus)
    assert (si["origin"] == "original").all()
    assert si["category"].value_counts().to_dict() == {"C&E": 191, "H&G": 162, "HE": 128, "H&C": 71,
                                                       "P&A": 36, "C&OV": 24}
    so = release.mc("so", "test", corpus)
    assert so["options"].map(len).eq(2).all() and so["label"].value_counts().to_dict() == {1: 555, 0: 466}


# ------------------------------------------------------------------ schema errors
def test_bad_label_names_file_row_and_column(tmp_path, mc_csv):
    rows = [{"sent2": "Hedef?", "ending0": "a", "ending1": "b", "ending2": "c", "ending3": "d", "label": 1}] * 2
    rows.append({**rows[0], "label": 7})
    path = mc_csv(tmp_path / "si.csv", rows)
    with pytest.raises(DataError, match=r"si\.csv, row 4, column 'label': must be an integer 0–3 \(got '7'\)"):
        tp.read_mc(path, "si")


def test_dummy_option_in_a_four_way_task_is_an_error_but_not_in_step_ordering(tmp_path, mc_csv):
    rows = [{"sent2": "Hedef", "ending0": "Önce bu.", "ending1": "Sonra bu.", "label": 0}]
    so = tp.read_mc(mc_csv(tmp_path / "so.csv", rows), "so")
    assert so["options"].tolist() == [["Önce bu.", "Sonra bu."]] and so["n_options"].tolist() == [2]
    with pytest.raises(DataError, match=r"row 2, column 'ending2'.*'xxx'"):
        tp.read_mc(mc_csv(tmp_path / "gi.csv", rows), "gi")


def test_missing_column_and_bad_corpus_record(tmp_path, corpus_json):
    path = tmp_path / "x.csv"
    pd.DataFrame({"sent2": ["a"], "label": [0]}).to_csv(path)
    with pytest.raises(DataError, match="missing column"):
        tp.read_mc(path, "si")
    records = json.loads(corpus_json.read_text(encoding="utf-8"))
    records[1]["category"] = ["Kategoriler", "Yemek"]
    corpus_json.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(DataError, match=r"row 2, column 'category'"):
        tp.read_corpus(corpus_json)


def test_task_roles_and_origin(tmp_path, corpus_json, mc_csv):
    corpus = tp.read_corpus(corpus_json)
    assert corpus["category"].tolist() == ["H&G", "C&E"] and corpus["n_steps"].tolist() == [3, 2]
    gi = tp.read_mc(mc_csv(tmp_path / "gi.csv", [{"sent2": "Makası sil.", "ending0": "Kek Yapmak",
                                                     "ending1": "Makas Nasıl Bileylenir?", "ending2": "c",
                                                     "ending3": "d", "label": 1}]), "gi")
    gi = tp.annotate_origin(gi, corpus)
    assert gi[["goal", "context", "origin", "category"]].iloc[0].tolist() == [
        "Makas Nasıl Bileylenir?", "Makası sil.", "original", "H&G"]
    nep = tp.read_mc(mc_csv(tmp_path / "nep.csv", [{"sent1": "Kek Yapmak", "sent2": "Unu ele.", "ending0": "a",
                                                       "ending1": "b", "ending2": "c", "ending3": "d",
                                                       "label": "2"}]), "nep")
    nep = tp.annotate_origin(nep, corpus)
    assert (nep["goal"].item(), nep["prev_step"].item(), nep["origin"].item(), nep["category"].item()) == (
        "Kek Yapmak", "Unu ele.", "translated", None)


# ------------------------------------------------------------------ download path
@pytest.fixture()
def mirror(serve_dir):
    """A loopback HTTP server laid out like raw.githubusercontent.com/GGLAB-KU/turkish-plu."""
    return serve_dir


def _publish(served, key, data: bytes):
    f = tp.FILES[key]
    target = served / f.commit / f.repo_path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def test_download_from_the_pinned_commit_is_verified_and_cached(mirror, tmp_path, monkeypatch, tmp_cache, mc_csv):
    url, served = mirror
    rows = [{"sent2": "Makas Nasıl Bileylenir?", "ending0": "a", "ending1": "Makası sil.", "ending2": "c",
             "ending3": "d", "label": 1}]
    data = mc_csv(tmp_path / "local.csv", rows).read_bytes()
    _publish(served, "si-test", data)
    monkeypatch.setitem(tp.FILES, "si-test", tp.ReleasedFile(tp.FILES["si-test"].local, tp.FILES["si-test"].repo_path,
                                                             tp.FILES["si-test"].commit, hashlib.sha256(data).hexdigest()))
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("CULTURELAB_TURKISH_PLU_MIRROR", url)
    path = tp.Release().path("si-test")
    assert path.read_bytes() == data and "downloads" in str(path)
    shutil.rmtree(served / tp.FILES["si-test"].commit)  # a second call needs no server
    assert tp.read_mc(tp.Release().path("si-test"), "si")["options"].iloc[0][1] == "Makası sil."


def test_download_with_a_wrong_checksum_is_refused(mirror, tmp_path, monkeypatch, tmp_cache):
    url, served = mirror
    _publish(served, "si-test", b"not the released file\n")
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("CULTURELAB_TURKISH_PLU_MIRROR", url)
    with pytest.raises(ValueError, match="checksum"):
        tp.Release().path("si-test")


def test_real_files_download_from_the_mirror(mirror, real_root, tmp_path, monkeypatch, tmp_cache):
    url, served = mirror
    _publish(served, "nep-test", (real_root / tp.FILES["nep-test"].local).read_bytes())
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("CULTURELAB_TURKISH_PLU_MIRROR", url)
    assert len(tp.read_mc(tp.Release().path("nep-test"), "nep", "test")) == 655


# ------------------------------------------------------------------ data sources
def test_each_data_source_of_a_released_file(mirror, real_root, tmp_path, monkeypatch, tmp_cache):
    url, served = mirror
    _publish(served, "nep-test", (real_root / tp.FILES["nep-test"].local).read_bytes())
    monkeypatch.setenv("CULTURELAB_TURKISH_PLU_MIRROR", url)
    local = real_root / tp.FILES["nep-test"].local
    assert tp.Release(real_root.parent, "local").path("nep-test") == local
    assert tp.Release(real_root.parent, "auto").path("nep-test") == local
    downloaded = tp.Release(real_root.parent, "download").path("nep-test")  # even with a local copy
    assert "downloads" in str(downloaded) and downloaded.read_bytes() == local.read_bytes()
    with pytest.raises(FileNotFoundError, match=r"no local copy of Turkish PLU's mc/next-event-prediction-test\.csv"):
        tp.Release(tmp_path / "empty", "local").path("nep-test")
    with pytest.raises(ValueError, match="no 'sample' copy"):
        tp.Release(real_root.parent, "sample").path("nep-test")
    with pytest.raises(KeyError, match="unknown Turkish PLU file"):
        tp.Release().path("pilot")


# ------------------------------------------------------------------ summarization
def test_summarization_sample_when_the_example_tutorial_cannot_be_had(mirror, tmp_path, monkeypatch, tmp_cache):
    url, _ = mirror  # serves nothing: the download of example_tutorial.json fails
    monkeypatch.setenv("CULTURELAB_TURKISH_PLU_MIRROR", url)
    empty = tmp_path / "empty"
    for data_source in ("auto", "sample"):
        release = tp.Release(empty, data_source)
        assert release.summarization_source() == "sample"
        sample, used = release.summarization()
        assert used == "sample" and len(sample) == 12 and sample["id"].iloc[0] == "sample-0"
    assert tp.sample_pairs().equals(sample)
    assert tp.Release(empty, "download").summarization_source() == "download"
    with pytest.raises(FileNotFoundError, match="no local copy of the summarization set"):
        tp.Release(empty, "local").summarization()


def test_summarization_local_copy_and_errors(tmp_path):
    folder = tmp_path / "tr-wikihow-summ" / "data"
    folder.mkdir(parents=True)
    pd.DataFrame({"text": ["Kapağı aç. Kağıdı koy."], "summary": ["Aç."]}).to_parquet(folder / "test-00000.parquet")
    pd.DataFrame({"text": ["x"], "summary": ["y"]}).to_parquet(folder / "train-00000.parquet")
    release = tp.Release(tmp_path / "empty", summ_dir=folder.parent)
    local, used = release.summarization("test")
    assert used == "local" and local[["text", "summary"]].values.tolist() == [["Kapağı aç. Kağıdı koy.", "Aç."]]
    # the same copy found at its place under the data directory, with no summ_dir
    (tmp_path / "data" / "turkish_plu").mkdir(parents=True)
    shutil.copytree(folder.parent, tmp_path / "data" / "turkish_plu" / tp.SUMMARIZATION_DIR)
    again, used = tp.Release(tmp_path / "data").summarization("test")
    assert used == "local" and again.equals(local)
    with pytest.raises(FileNotFoundError, match="not a folder"):  # a summ_dir given is never skipped for a sample
        tp.Release(tmp_path / "data", summ_dir=folder / "test-00000.parquet").summarization("test")
    pd.DataFrame({"text": ["ok", ""], "summary": ["a", "b"]}).to_csv(folder / "validation.csv", index=False)
    with pytest.raises(DataError, match=r"validation\.csv, row 3, column 'text'"):
        tp.read_summarization(folder.parent, "val")


def test_summarization_pairs_from_the_released_tutorial(real_root):
    pairs, used = tp.Release(real_root.parent).summarization()  # auto, no local copy of the set: the sample
    assert used == "example" and len(pairs) == 4
    assert pairs["summary"].iloc[0].startswith("Yazıcını ağa bağla.")
    assert "Yazıcını ağa bağla." not in pairs["text"].iloc[0]  # headlines are not in the document


def test_train_split_from_a_local_copy_of_the_hf_reupload(tmp_path, mc_csv):
    rows = [{"sent2": "Adım.", "ending0": "A Yapmak", "ending1": "B Yapmak", "ending2": "C", "ending3": "D",
             "label": 3}]
    mc_csv(tmp_path / "turkish-plu-goal-inference" / "goal-inference-train.csv", rows * 3)
    train = tp.load_mc_train("gi", tmp_path / "turkish-plu-goal-inference")
    assert len(train) == 3 and train["split"].eq("train").all() and train["goal"].eq("D").all()
    with pytest.raises(FileNotFoundError, match="not a folder"):
        tp.load_mc_train("gi", tmp_path / "missing")
