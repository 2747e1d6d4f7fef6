"""Fixtures for the FMLAMA tests: the release (skipped when absent) and our sample."""

from __future__ import annotations

import pytest

from culturelab.data import fmlama


@pytest.fixture(scope="session")
def release_dir():
    """The data directory holding the paper-era release (``fmlama/data/Dishes.csv``)."""
    if fmlama.resolve_source() != "local":
        pytest.skip("the FMLAMA release is not in CULTURELAB_DATA")
    return fmlama._local_root(None)


@pytest.fixture(scope="session")
def dishes(release_dir):
    return fmlama.load_dishes(source="local")


@pytest.fixture(scope="session")
def released_subsets(release_dir):
    return {la: fmlama.load_language(la, source="local") for la in fmlama.LANGUAGES}
