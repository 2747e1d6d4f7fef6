"""Fixtures for the FMLAMA tests: the release (skipped when absent) and our sample."""

from __future__ import annotations

import pytest

from culturelab.fmlama import data as fmlama


@pytest.fixture(scope="session")
def release_dir():
    """The data directory holding the paper-era release (``fmlama/data/Dishes.csv``)."""
    root = fmlama.local_root()
    if root is None:
        pytest.skip("the FMLAMA release is not in CULTURELAB_DATA")
    return root


@pytest.fixture(scope="session")
def dishes(release_dir):
    return fmlama.load_dishes(data_source="local")


@pytest.fixture(scope="session")
def released_subsets(release_dir):
    return {la: fmlama.load_language(la, data_source="local") for la in fmlama.LANGUAGES}
