"""A partial local copy of the release (issue 30, item 3): ``check`` names the files a notebook would
miss while downloads are off, a run with ``data_source: auto`` downloads them (verified against their
pinned SHA-256) instead of crashing, and no label claims a pin a file does not have."""

from __future__ import annotations

import shutil
import time

import pytest

from culturelab.data.sources import sample_dir
from culturelab.fmlama import data as F
from culturelab.fmlama import protocol as paper
from culturelab.fmlama.setup import open as open_release
from culturelab.runner import plan

FOUR = list(F.SETTINGS)


@pytest.fixture()
def partial(tmp_path, monkeypatch):
    """A data directory holding our sample's files only (Dishes.csv, the EN_en and ZH_zh answers), an empty cache."""
    shutil.copytree(sample_dir("fmlama"), tmp_path / "data" / "fmlama")
    monkeypatch.setenv("CULTURELAB_CACHE", str(tmp_path / "cache"))
    return tmp_path / "data"


def _params(data_dir, **extra) -> dict:
    return {"data_source": "auto", "data_dir": str(data_dir), "settings": FOUR, "instructions": ["full"],
            "contexts": [False], **extra}


def test_check_names_the_missing_answer_files_when_downloads_are_off(partial, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    used = paper.locate("04_decoder_llms", _params(partial))
    assert used.source == "missing"
    assert F.generations_relpath("EN_zh") in used.note and "HF_HUB_OFFLINE" in used.note
    assert F.generations_relpath("EN_en") not in used.note  # the copy holds it
    local = paper.locate("04_decoder_llms", _params(partial, data_source="local"))
    assert local.source == "missing" and F.generations_relpath("ZH_en") in local.note
    # the check of a `protocol: paper` file refuses it, naming the file, in seconds
    yaml = tmp_path / "p.yaml"
    yaml.write_text(f"protocol: paper\nnotebooks:\n  fmlama/04_decoder_llms:\n    data_dir: {partial}\n"
                    "    settings: [EN_zh, ZH_en]\n    instructions: [full]\n    contexts: [false]\n"
                    "    model_settings: [EN_en]\n", encoding="utf-8")
    start = time.perf_counter()
    refusal = plan(yaml, ["fmlama/04_decoder_llms"]).refusals()["fmlama/04_decoder_llms"]
    assert time.perf_counter() - start < 10
    assert any(F.generations_relpath("EN_zh") in line for line in refusal), refusal


def test_online_the_missing_files_are_downloaded_verified(partial, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    used = paper.locate("04_decoder_llms", _params(partial))
    assert used.source == "released" and "SHA-256 pinned" in used.note and F.generations_relpath("ZH_en") in used.note
    fetched = []

    def fake_download(remote, subdir):  # the network: a stand-in that serves the EN_en answers under any name
        fetched.append(remote)
        target = partial.parent / "cache" / "downloads" / subdir / remote.filename
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(partial / "fmlama" / F.generations_relpath("EN_en"), target)
        return target

    monkeypatch.setattr(F, "download", fake_download)

    class Run:
        notebook = "fmlama/04_decoder_llms"
        params = _params(partial)

        def set_data_source(self, source, counts=None, note=""):
            self.stamp = (source, note)

    run = Run()
    release = open_release(run)
    assert release.data_source == "auto" and run.stamp[0] == "released"
    assert len(release.generations("EN_en")) == len(release.generations("EN_zh"))  # no FileNotFoundError
    assert [r.url.rsplit("/", 5)[-5:] for r in fetched] == [F.generations_relpath("EN_zh").split("/")[-5:]]
    assert fetched[0].sha256 == F.CHECKSUMS[F.generations_relpath("EN_zh")]  # verified against its pin
    # downloaded once: the next check finds it in the cache, the next run reads it from there
    assert F.generations_relpath("EN_zh") not in paper.locate("04_decoder_llms", _params(partial)).note


def test_every_answer_file_of_the_four_settings_is_pinned_and_a_missing_pin_is_said(partial, monkeypatch):
    for setting in FOUR:
        for prompt, instruction in (("WC", "full"), ("WC", "one"), ("QA", "one")):
            for context in (False, True):
                relpath = F.generations_relpath(setting, prompt=prompt, instruction=instruction, context=context)
                assert len(F.CHECKSUMS[relpath]) == 64, relpath
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setitem(F.CHECKSUMS, F.generations_relpath("ZH_en"), None)
    note = paper.locate("04_decoder_llms", _params(partial)).note
    assert "SHA-256 pinned" not in note and f"no pinned SHA-256 for {F.generations_relpath('ZH_en')}" in note
