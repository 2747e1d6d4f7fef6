"""Fixtures of the Turkish PLU tests: the real release when CULTURELAB_DATA holds it, and small
schema-faithful files written here (SWAG-schema CSV, method-level corpus JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from culturelab import config

SWAG = ["video-id", "fold-ind", "startphrase", "sent1", "sent2", "gold-source",
        "ending0", "ending1", "ending2", "ending3", "label"]


@pytest.fixture(scope="session")
def real_root() -> Path:
    """``<data_dir>/turkish_plu`` of the real release; tests that need it skip without it."""
    root = config.data_dir() / "turkish_plu"
    if not (root / "mc" / "step-inference-test.csv").is_file():
        pytest.skip("the Turkish PLU release is not under $CULTURELAB_DATA/turkish_plu")
    return root


def write_mc(path: Path, rows: list[dict]) -> Path:
    """A SWAG-schema CSV with a leading pandas index column, as released."""
    frame = pd.DataFrame([{c: r.get(c, "xxx") for c in SWAG} for r in rows])
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path)
    return path


@pytest.fixture()
def mc_csv():
    """``mc_csv(path, rows)`` writes a SWAG-schema CSV (see :func:`write_mc`)."""
    return write_mc


@pytest.fixture()
def toy_corpus() -> pd.DataFrame:
    """A tidy corpus table (the output of ``read_corpus``) with every step count from 0 to 33."""
    rows = []
    for n in range(34):
        for ordered in (0, 1):
            rows.append({"tutorial": f"Görev {n} Nasıl Yapılır?", "category": ["HE", "C&E", "H&G"][n % 3],
                         "category_tr": "Sağlık", "method": f"Yöntem {ordered}",
                         "steps": [f"Adım {n}-{ordered}-{i}." for i in range(n)], "n_steps": n,
                         "is_ordered": ordered})
    rows.append({"tutorial": "Tekrar", "category": "HE", "category_tr": "Sağlık", "method": "m",
                 "steps": ["Aynı.", "Aynı.", "Başka.", "Bir.", "İki."], "n_steps": 5, "is_ordered": 1})
    table = pd.DataFrame(rows)
    table["is_ordered"] = table["is_ordered"].astype("Int64")
    return table


@pytest.fixture()
def corpus_json(tmp_path) -> Path:
    """A method-level ``wikihow.json`` with two tutorials."""
    records = [
        {"task": "Makas Nasıl Bileylenir?", "category": ["Kategoriler", "Ev ve Bahçe"], "method": "Zımpara",
         "caption": ["Makası sil.", "Zımparayı hazırla.", "Bıçakları bile."], "is_ordered": 1},
        {"task": "Yazıcı Nasıl Kurulur?", "category": ["Kategoriler", "Bilgisayar ve Elektronik Cihazlar", "X"],
         "method": "Ağ", "caption": ["Yazıcını ağa bağla.", "Sürücüyü kur."], "is_ordered": 0},
    ]
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture()
def start(tmp_path, monkeypatch):
    """``start(topic, **values)``: a run of a Turkish PLU notebook with its defaults and ``values``,
    writing under ``tmp_path``."""
    from culturelab.runner import Run, notebook_defaults, notebook_file

    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))

    def make(topic: str, **values) -> Run:
        notebook = f"turkish_plu/{topic}"
        return Run(notebook, {**notebook_defaults(notebook_file(notebook)), **values}, name="t")
    return make
