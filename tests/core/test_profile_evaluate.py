"""`culturelab evaluate` end to end: two bundled models, one cheap benchmark, smoke size."""

from __future__ import annotations

import pandas as pd
import pytest

from culturelab import config
from culturelab.cli import main


@pytest.mark.notebooks
def test_evaluate_two_bundled_models_on_percul(tmp_path, monkeypatch, tmp_cache):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("CULTURELAB_FIGURES", str(tmp_path / "figures"))
    converted = config.project_root() / ".cache" / "models"  # fresh answers, but no second model conversion
    if converted.is_dir():
        tmp_cache.mkdir(parents=True, exist_ok=True)
        (tmp_cache / "models").symlink_to(converted, target_is_directory=True)
    models = ["bundled:gemma3-270m", "bundled:smollm2-135m"]
    argv = ["evaluate", "--benchmarks", "percul", "--size", "smoke"]
    assert main([*argv, *(a for m in models for a in ("--model", m))]) == 0
    out = tmp_path / "runs" / "profile-smoke"
    tidy = pd.read_csv(out / "results.csv")
    assert sorted(tidy["model"].unique()) == models and set(tidy["benchmark"]) == {"percul"}
    # the same stories for both models, so every instance is paired
    per_model = tidy.groupby("model")["instance"].apply(set)
    assert per_model.iloc[0] == per_model.iloc[1]
    tests = pd.read_csv(out / "profile" / "paired_tests.csv")
    assert len(tests) == 1 and tests["test"].iloc[0] == "McNemar (exact)"
    assert 0 <= tests["p_holm"].iloc[0] <= 1
    assert "<html" in (out / "profile.html").read_text(encoding="utf-8")[:2000].lower()
    assert (tmp_path / "runs" / "profile-smoke" / "figures" / "profile" / "scores.png").is_file()


def test_evaluate_rejects_an_unknown_benchmark(capsys):
    assert main(["evaluate", "--model", "bundled:gemma3-270m", "--benchmarks", "nope"]) == 2
    assert "unknown ['nope']" in capsys.readouterr().err
