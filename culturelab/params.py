"""Validation of notebook parameters, shared by ``culturelab run`` and the notebooks
themselves, so a bad value fails before any model is loaded, with one line naming the key.

Types are checked against the default in the notebook's ``parameters`` cell; names carry
meaning too: ``model``/``models``/``*_model`` are model specs, ``encoder``/``*_encoder``
encoder specs, ``device`` a device, ``data_dir``/``*_dir``/``*_path``/``*_file`` existing
paths (when given), ``seed``, ``max_*``, ``n_*`` non-negative integers.

>>> check_value("device", "gpu", "auto")
"'gpu' is not a device: use auto, cpu, cuda, cuda:N or mps"
>>> check_value("max_instances", 20, None) is None
True
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import nbformat

from culturelab.models import parse_spec
from culturelab.models.encoders import parse_encoder_spec


class ParameterError(ValueError):
    """One or more notebook parameters are invalid; the message has one line per problem.

    >>> str(ParameterError("nb.seed: must be ≥ 0, got -1")), issubclass(ParameterError, ValueError)
    ('nb.seed: must be ≥ 0, got -1', True)
    """


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def _type_error(value: Any, default: Any) -> str | None:
    if default is None or value is None:
        return None
    if isinstance(default, bool) or isinstance(value, bool):
        ok = isinstance(value, bool) and isinstance(default, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float))
    elif isinstance(default, int):
        ok = isinstance(value, int)
    elif isinstance(default, (list, tuple)):
        ok = isinstance(value, (list, tuple))
    else:
        ok = isinstance(value, type(default))
    return None if ok else f"expected {_type_name(default)} (like the default {default!r}), got {_type_name(value)} {value!r}"


def _is_model_key(key: str) -> bool:
    return key in {"model", "models"} or key.endswith("_model") or key.endswith("_models")


def _is_encoder_key(key: str) -> bool:
    return key == "encoder" or key.endswith("_encoder")


def check_value(key: str, value: Any, default: Any) -> str | None:
    """The problem with one parameter value, or ``None`` when it is fine.

    >>> check_value("seed", "1", 0)
    "expected int (like the default 0), got str '1'"
    >>> check_value("n_questions", -2, 12)
    'must be ≥ 0, got -2'
    """
    problem = _type_error(value, default)
    if problem:
        return problem
    if value is None or value == "":
        return None
    try:
        if _is_model_key(key):
            for spec in value if isinstance(value, (list, tuple)) else [value]:
                parse_spec(spec)
        elif _is_encoder_key(key):
            for spec in value if isinstance(value, (list, tuple)) else [value]:
                parse_encoder_spec(spec)
    except ValueError as err:
        return str(err)
    if key == "device" and not (value in {"auto", "cpu", "cuda", "mps"} or re.fullmatch(r"cuda:\d+", str(value))):
        return f"{value!r} is not a device: use auto, cpu, cuda, cuda:N or mps"
    if key == "device" and str(value).startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            return f"{value!r} was asked for but torch sees no CUDA GPU here; use 'auto'"
    if re.search(r"(^|_)(dir|path|file)$", key):
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if not Path(str(item)).expanduser().exists():
                return f"{item} does not exist"
    if (key == "seed" or key.startswith(("max_", "n_"))) and isinstance(value, (int, float)) and value < 0:
        return f"must be ≥ 0, got {value}"
    return None


def notebook_defaults(path: str | Path) -> dict[str, Any]:
    """The parameters a notebook declares (its cell tagged ``parameters``) and their defaults.

    Each line of that cell must be a plain assignment of a Python literal.

    >>> import tempfile
    >>> cell = nbformat.v4.new_code_cell("seed = 0\\nmodel = 'x'", metadata={"tags": ["parameters"]})
    >>> path = Path(tempfile.mkdtemp()) / "nb.ipynb"
    >>> nbformat.write(nbformat.v4.new_notebook(cells=[cell]), str(path)); notebook_defaults(path)
    {'seed': 0, 'model': 'x'}
    """
    nb = nbformat.read(str(path), as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"{path}: expected exactly one cell tagged 'parameters', found {len(cells)}")
    defaults: dict[str, Any] = {}
    for node in ast.parse(cells[0].source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ParameterError(f"{path}: the parameters cell may only hold 'name = literal' lines "
                                 f"(line {node.lineno})")
        try:
            defaults[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError:
            raise ParameterError(f"{path}: parameter {node.targets[0].id!r} must default to a literal") from None
    return defaults


def validate(values: dict[str, Any], defaults: dict[str, Any], *, where: str = "") -> list[str]:
    """All problems with ``values`` against a notebook's ``defaults`` (unknown keys included).

    >>> validate({"seed": -1, "colour": "red"}, {"seed": 0}, where="nb")
    ['nb.seed: must be ≥ 0, got -1', 'nb.colour: unknown parameter (declared: seed)']
    """
    prefix = f"{where}." if where else ""
    problems = []
    for key, value in values.items():
        if key not in defaults:
            problems.append(f"{prefix}{key}: unknown parameter (declared: {', '.join(sorted(defaults))})")
            continue
        problem = check_value(key, value, defaults[key])
        if problem:
            problems.append(f"{prefix}{key}: {problem}")
    return problems
