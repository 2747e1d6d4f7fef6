"""Shared CAPTEx fixtures."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from culturelab.data.sources import sample_dir


@pytest.fixture(scope="session")
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
