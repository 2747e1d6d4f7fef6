"""`culturelab plan` in seconds: tokenizers without transformers, calibrations remembered, no library noise, no
temporary folder left behind — and the same counts as before (tests/core/test_planning_equivalence.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from culturelab import config, planning
from culturelab.models.counting import FastTokenizer, offline_tokenizer

TEXTS = ["Which dish is cooked with saffron?", "قورمه سبزی با چه سبزی‌هایی پخته می‌شود؟", "饺子 包 肉", "Pilav pirinçle yapılır.",
         "Answer: B"]


def test_a_bundled_tokenizer_is_read_without_importing_transformers():
    code = textwrap.dedent("""
        import sys
        from culturelab.models.counting import offline_tokenizer
        tok = offline_tokenizer("bundled:smollm2-135m")
        print(type(tok).__name__, "transformers" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["FastTokenizer", "False"], out.stdout + out.stderr


@pytest.mark.parametrize("spec", ["bundled:gemma3-270m", "bundled:smollm2-135m"])
def test_the_fast_tokenizer_counts_the_tokens_transformers_counts(spec):
    from transformers import AutoTokenizer

    from culturelab.models.bundled import bundled_model_dir

    fast = offline_tokenizer(spec)
    slow = AutoTokenizer.from_pretrained(str(bundled_model_dir(spec.split(":")[1])))
    assert isinstance(fast, FastTokenizer)
    for special in (False, True):
        assert fast(TEXTS, add_special_tokens=special)["input_ids"] == slow(TEXTS, add_special_tokens=special)["input_ids"]


def test_a_calibration_is_remembered_per_model_and_measured_again_on_request(tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_CACHE", str(tmp_path))
    calls = []

    def measure(spec, device="auto"):
        calls.append(spec)
        return {"s_per_prompt_token": 0.01, "s_per_generated_token": 0.1, "where": "cpu (load 0.2 on 2 CPUs)"}

    rates, _ = planning.model_rates("hf:/some/folder", measure=planning.remembered(measure))
    again, basis_again = planning.model_rates("hf:/some/folder", measure=planning.remembered(measure))
    assert calls == ["hf:/some/folder"] and rates == again
    assert "measured " in basis_again and "reused (--recalibrate measures again)" in basis_again
    planning.remembered(measure, refresh=True)("hf:/some/folder")
    assert len(calls) == 2 and (tmp_path / planning.RATES_FILE).is_file()


def test_calibration_prints_no_library_warnings_or_progress_bars(tiny_causal_dir, capfd):
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        rates = planning.calibrate(f"hf:{tiny_causal_dir}", device="cpu", n=2, n_generate=2, new_tokens=2)
    assert isinstance(rates, dict), rates
    out, err = capfd.readouterr()
    assert not seen and not out and not err, (seen, out, err)


def test_a_busy_cpu_is_timed_by_cpu_time(monkeypatch):
    monkeypatch.setattr(os, "getloadavg", lambda: (50.0, 50.0, 50.0))
    clock, where = planning._clock("cpu")
    assert "busy, timed by CPU time" in where and clock is not time.perf_counter
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert planning._clock("cpu")[0] is time.perf_counter


def test_a_killed_plan_removes_its_temporary_folder(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "CULTURELAB_RUNS": str(tmp_path / "runs")}
    smoke = config.project_root() / "papermill_params" / "smoke.yaml"
    proc = subprocess.Popen([sys.executable, "-m", "culturelab.cli", "plan", str(smoke), "-n", "00_quickstart"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not list(tmp_path.glob("culturelab-plan-*")) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.2)
    assert list(tmp_path.glob("culturelab-plan-*")), "plan made no temporary folder"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)
    assert not list(tmp_path.glob("culturelab-plan-*"))
