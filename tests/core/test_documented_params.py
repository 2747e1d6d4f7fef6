"""The parameter files we ship and the examples in the README and docs/ must pass the runner's validation."""

import re
import shlex
from pathlib import Path

import pytest
import yaml

from culturelab.params import notebook_defaults, validate
from culturelab.runner import notebook_file, plan

ROOT = Path(__file__).resolve().parents[2]
#: the README and the pages it sends readers to (docs/usage.md holds the plain papermill example)
README = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


@pytest.mark.parametrize("params_file", sorted(p.relative_to(ROOT).as_posix()
                                               for p in (ROOT / "papermill_params").rglob("*.yaml")))
def test_shipped_parameter_files_validate(params_file):
    run_plan = plan(ROOT / params_file)
    assert run_plan.jobs


def test_readme_parameter_file_examples_validate(tmp_path):
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", README, flags=re.S) if "notebooks:" in b]
    assert blocks, "the README shows no parameter-file example"
    for i, block in enumerate(blocks):
        path = tmp_path / f"example{i}.yaml"
        path.write_text(block, encoding="utf-8")
        plan(path)


def test_readme_papermill_example_uses_declared_parameters():
    commands = re.findall(r"papermill (\S+\.ipynb) \S+\s*\\?\s*\n?\s*(.*?)\n", README)
    assert commands, "the README shows no plain papermill example"
    folder = re.search(r"cd notebooks/(\w+) && \S*papermill", README).group(1)
    for notebook, rest in commands:
        args = shlex.split(rest)
        values = {args[i + 1]: args[i + 2] for i, a in enumerate(args) if a == "-p"}
        defaults = notebook_defaults(notebook_file(f"{folder}/{notebook.removesuffix('.ipynb')}"))
        unknown = set(values) - set(defaults)
        assert not unknown, f"README papermill example passes undeclared parameters {unknown}"
        typed = {k: yaml.safe_load(v) for k, v in values.items()}  # papermill -p infers types the same way
        assert validate(typed, defaults) == []
