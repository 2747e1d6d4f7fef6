"""The docstring examples of every culturelab module run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import culturelab

MODULES = sorted(m.name for m in pkgutil.walk_packages(culturelab.__path__, "culturelab."))


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module, tmp_cache):
    mod = importlib.import_module(module)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {module}"
