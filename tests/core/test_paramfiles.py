"""Parameter files built on a base file, the GPU file at the papers' sizes, and a short slice of a run."""

from __future__ import annotations

import subprocess
import sys

import pytest

from culturelab import config, paramfiles
from culturelab.params import ParameterError
from culturelab.runner import plan

PARAMS = config.project_root() / "papermill_params"


def test_a_file_overrides_its_base_key_by_key(tmp_path):
    (tmp_path / "base.yaml").write_text("run_name: base\nprotocol: paper\ncommon: {seed: 3, model: 'bundled:gemma3-270m'}\n"
                                        "notebooks: {00_quickstart: {n_questions: 0, methods: [generate]}}\n")
    (tmp_path / "mine.yaml").write_text("base: base.yaml\ncommon: {model: 'bundled:smollm2-135m'}\n"
                                        "notebooks: {00_quickstart: {n_questions: 2}}\n")
    run_plan = plan(tmp_path / "mine.yaml", ["00_quickstart"])
    assert run_plan.run_name == "mine" and run_plan.protocol == "paper"
    assert dict(run_plan.jobs)["00_quickstart"] == {"seed": 3, "model": "bundled:smollm2-135m", "n_questions": 2,
                                                    "methods": ["generate"]}
    (tmp_path / "lifted.yaml").write_text("base: base.yaml\nprotocol: null\n")
    assert plan(tmp_path / "lifted.yaml", ["00_quickstart"]).protocol is None


def test_a_base_that_leads_back_or_is_missing_is_one_clear_error(tmp_path):
    (tmp_path / "a.yaml").write_text("base: b.yaml\n")
    (tmp_path / "b.yaml").write_text("base: a.yaml\n")
    with pytest.raises(ParameterError, match="leads back to itself"):
        plan(tmp_path / "a.yaml")
    (tmp_path / "c.yaml").write_text("base: nowhere.yaml\n")
    with pytest.raises(ParameterError, match=r"nowhere\.yaml: parameter file not found"):
        plan(tmp_path / "c.yaml")


def test_the_gpu_file_is_the_paper_file_with_a_7b_hub_model():
    paper, gpu = dict(plan(PARAMS / "paper.yaml").jobs), plan(PARAMS / "gpu" / "qwen7b.yaml")
    assert gpu.protocol is None and gpu.run_name == "gpu-qwen7b"
    for name, values in dict(gpu.jobs).items():
        assert {k: v for k, v in values.items() if k not in {"model", "device"}} == \
               {k: v for k, v in paper[name].items() if k not in {"model", "device"}}, name
        assert values.get("model", "hf:Qwen/Qwen2.5-7B-Instruct") == "hf:Qwen/Qwen2.5-7B-Instruct"


def test_every_file_the_cli_help_names_exists():
    out = subprocess.run([sys.executable, "-m", "culturelab.cli", "--help"], capture_output=True, text=True, timeout=120)
    named = [w for w in out.stdout.split() if w.startswith("papermill_params/")]
    assert named and all((config.project_root() / w).is_file() for w in named), named


def test_a_slice_cuts_every_size_knob_and_keeps_the_rest():
    spec = paramfiles.sliced(PARAMS / "gpu" / "qwen7b.yaml", 3)
    sliced, full = dict(plan_from(spec).jobs), dict(plan(PARAMS / "gpu" / "qwen7b.yaml").jobs)
    assert sliced["percul/01_benchmark"]["max_instances"] == 3 and sliced["fmlama/02_probing"]["max_dishes"] == 3
    assert sliced["percul/01_benchmark"]["max_new_tokens"] == full["percul/01_benchmark"]["max_new_tokens"] == 1024
    assert sliced["captex/03_mcq"]["max_procedures"] == 3 and spec["common"]["model"] == "hf:Qwen/Qwen2.5-7B-Instruct"


def plan_from(spec: dict, folder=None):
    import tempfile
    from pathlib import Path

    import yaml

    path = Path(folder or tempfile.mkdtemp()) / "slice.yaml"
    path.write_text(yaml.safe_dump(spec))
    return plan(path)
