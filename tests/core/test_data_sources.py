"""Data sources and validation: local file first, verified download otherwise (a loopback HTTP
server stands in for the internet), clear errors naming file, row and column."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from culturelab.data import DataError, validate_rows
from culturelab.data.sources import Remote, locate


@pytest.fixture()
def http_dir(serve_dir):
    url, served = serve_dir
    (served / "table.csv").write_text("a,b\n1,2\n")
    return url, served


def test_local_file_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path))
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f.txt").write_text("hi")
    assert locate("x/f.txt").read_text() == "hi"


def test_download_is_verified_and_cached(http_dir, tmp_path, monkeypatch, tmp_cache):
    url, served = http_dir
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "empty"))
    sha = hashlib.sha256((served / "table.csv").read_bytes()).hexdigest()
    path = locate("paper/table.csv", remote=Remote(f"{url}/table.csv", sha))
    assert pd.read_csv(path).to_dict("records") == [{"a": 1, "b": 2}]
    (served / "table.csv").unlink()  # the second call must not need the server
    assert locate("paper/table.csv", remote=Remote(f"{url}/table.csv", sha)) == path


def test_checksum_mismatch_is_an_error(http_dir, tmp_path, monkeypatch, tmp_cache):
    url, _ = http_dir
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="checksum"):
        locate("paper/table.csv", remote=Remote(f"{url}/table.csv", "0" * 64))


def test_unreachable_download_explains_what_to_do(tmp_path, monkeypatch, tmp_cache):
    monkeypatch.setenv("CULTURELAB_DATA", str(tmp_path / "empty"))
    with pytest.raises(ConnectionError, match="CULTURELAB_DATA"):
        locate("paper/x.csv", remote=Remote("http://127.0.0.1:9/x.csv"))
    with pytest.raises(FileNotFoundError, match="CULTURELAB_DATA"):
        locate("paper/x.csv")


def test_validation_names_file_row_and_column():
    table = pd.DataFrame({"steps": [5, 7, 12], "name": ["a", "b", "c"]})
    with pytest.raises(DataError, match=r"procs\.csv, row 4, column 'steps': must be 5–10 \(got 12\)"):
        validate_rows(table, "procs.csv", {"steps": lambda v: 5 <= v <= 10 or "must be 5–10"})
    with pytest.raises(DataError, match="missing column"):
        validate_rows(table, "procs.csv", {"country": bool})
