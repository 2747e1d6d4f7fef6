"""Shared PERCUL fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from culturelab.data.sources import sample_dir
from culturelab.percul.data import SPLITS, normalise_category, released_counts


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Path:
    """Renamed copies of the sample's stories up to Table 1's count in every category (592 in
    all), both splits in the hub layout (``percul/data/<split>-00000-of-00001.parquet``), no
    rule labels (as released)."""
    target = tmp_path_factory.mktemp("data") / "percul"
    (target / "data").mkdir(parents=True)
    for split in SPLITS:
        text = (sample_dir("percul") / f"{split}.jsonl").read_text(encoding="utf-8")
        frame = pd.DataFrame([json.loads(line) for line in text.splitlines()])
        category = frame["Category"].map(normalise_category)
        parts = []
        for name, n in released_counts().items():
            stories = frame[category == name]
            copies = [stories.assign(ID=stories["ID"] + f"-{k:03d}") for k in range(-(-n // len(stories)))]
            parts.append(pd.concat(copies).head(n))
        pd.concat(parts, ignore_index=True).to_parquet(target / "data" / f"{split}-00000-of-00001.parquet")
    return target
