"""Validation of notebook parameters, shared by ``culturelab run`` and the notebooks
themselves, so a bad value fails before any model is loaded, with one line naming the key.

Types are checked against the default in the notebook's ``parameters`` cell; names carry
meaning too: ``model``/``models``/``*_model`` are model specs, ``encoder``/``*_encoder``
encoder specs, ``device`` a device, ``data_dir``/``*_dir``/``*_path``/``*_file``/``*_corpus`` existing
paths (when given), ``seed``, ``max_*``, ``n_*`` non-negative integers.

>>> check_value("device", "gpu", "auto")
"'gpu' is not a device: use auto, cpu, cuda, cuda:N or mps"
>>> check_value("max_instances", 20, None) is None
True
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from culturelab.models import parse_spec
from culturelab.models.encoders import parse_encoder_spec
from culturelab.models.ray_backend import split_ray_spec


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
    >>> check_value("finetune_model", ["hf:a/b", "hf:c/d"], "hf:a/b") is None  # a model key: one spec or a list
    True
    """
    either = _is_model_key(key) and all(isinstance(v, (str, list, tuple)) for v in (value, default))
    problem = None if either else _type_error(value, default)
    if problem:
        return problem
    if value is None or value == "":
        return None
    try:
        if _is_model_key(key):
            for spec in value if isinstance(value, (list, tuple)) else [value]:
                parse_spec(spec)
                if split_ray_spec(spec) and importlib.util.find_spec("ray") is None:
                    from culturelab.distributed import INSTALL_HINT

                    return f"{spec!r}: {INSTALL_HINT}"
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
    if re.search(r"(^|_)(dir|path|file|corpus)$", key):
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if not Path(str(item)).expanduser().exists():
                return f"{item} does not exist"
    if (key == "seed" or key.startswith(("max_", "n_"))) and isinstance(value, (int, float)) and value < 0:
        return f"must be ≥ 0, got {value}"
    return None


def notebook_defaults(path: str | Path) -> dict[str, Any]:
    """The parameters a notebook declares (its cell tagged ``parameters``) and their defaults.

    Each line of that cell must be a plain assignment of a Python literal.

    >>> import tempfile, nbformat
    >>> cell = nbformat.v4.new_code_cell("seed = 0\\nmodel = 'x'", metadata={"tags": ["parameters"]})
    >>> path = Path(tempfile.mkdtemp()) / "nb.ipynb"
    >>> nbformat.write(nbformat.v4.new_notebook(cells=[cell]), str(path)); notebook_defaults(path)
    {'seed': 0, 'model': 'x'}
    """
    # the notebook's JSON read directly: nbformat's import (its schema validator) costs ~1 s in every kernel
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    cells = [c for c in nb.get("cells", []) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"{path}: expected exactly one cell tagged 'parameters', found {len(cells)}")
    source = cells[0]["source"]
    defaults: dict[str, Any] = {}
    for node in ast.parse(source if isinstance(source, str) else "".join(source)).body:
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


# --------------------------------------------------------------------- allowed values
@dataclass(frozen=True)
class OneOf:
    """The allowed values of a choice parameter: a scalar must be one of ``values``; a list
    must hold only such values and, unless ``empty_ok``, at least one.

    Booleans and numbers are told apart (``True`` is not ``1``).

    >>> OneOf(("en", "zh")).problem("fr")
    "'fr' is not one of en, zh"
    >>> OneOf((1, 2, 3)).problem([1, 9, True])
    '[9, True] not allowed; choose from 1, 2, 3'
    >>> OneOf(("en",)).problem([]), OneOf(("en",), empty_ok=True).problem([]) is None
    ('must not be empty; choose from en', True)
    """

    values: tuple[Any, ...]
    empty_ok: bool = False

    def _allowed(self, item: Any) -> bool:
        return any(item == v and isinstance(item, bool) == isinstance(v, bool) for v in self.values)

    def problem(self, value: Any) -> str | None:
        shown = ", ".join(map(str, self.values))
        if isinstance(value, (list, tuple)):
            if not value and not self.empty_ok:
                return f"must not be empty; choose from {shown}"
            bad = [v for v in value if not self._allowed(v)]
            return f"{bad} not allowed; choose from {shown}" if bad else None
        return None if self._allowed(value) else f"{value!r} is not one of {shown}"


#: a choice: :class:`OneOf`, or any callable giving the problem with a value (``None`` when fine)
Choice = OneOf | Callable[[Any], str | None]


def one_of(values: Collection[Any], *, empty_ok: bool = False) -> OneOf:
    """Shorthand for :class:`OneOf` from any collection (order kept).

    >>> one_of(["a", "b"]).problem("c")
    "'c' is not one of a, b"
    """
    return OneOf(tuple(values), empty_ok=empty_ok)


def in_range(lo: float, hi: float) -> Callable[[Any], str | None]:
    """A choice for a number between ``lo`` and ``hi`` (inclusive).

    >>> in_range(2, 26)(30)
    'must be between 2 and 26, got 30'
    """
    def problem(value: Any) -> str | None:
        return None if lo <= value <= hi else f"must be between {lo} and {hi}, got {value}"

    return problem


def check_choices(values: Mapping[str, Any], choices: Mapping[str, Choice], *, where: str = "") -> list[str]:
    """Problems of the ``values`` that have a declared choice, one line each (keys without a
    choice, and choices for keys not in ``values``, are ignored).

    >>> check_choices({"split": "fa", "seed": 1}, {"split": one_of(["original_persian"])}, where="percul/01")
    ["percul/01.split: 'fa' is not one of original_persian"]
    """
    prefix = f"{where}." if where else ""
    problems = []
    for key, choice in choices.items():
        if key not in values:
            continue
        problem = choice.problem(values[key]) if isinstance(choice, OneOf) else choice(values[key])
        if problem:
            problems.append(f"{prefix}{key}: {problem}")
    return problems


def paper_of(notebook: str) -> str:
    """The package that owns a notebook: its folder (``captex/02_reordering`` → ``captex``);
    top-level notebooks belong to ``quickstart``.

    >>> paper_of("fmlama/02_probing"), paper_of("00_quickstart")
    ('fmlama', 'quickstart')
    """
    return notebook.split("/", 1)[0] if "/" in notebook else "quickstart"


def notebook_choice_problems(notebook: str, params: Mapping[str, Any]) -> list[str]:
    """Check a notebook's parameters against its paper's allowed values.

    The paper's ``culturelab.<paper>.setup`` module declares ``CHOICES`` (key → :data:`Choice`,
    for every notebook of the paper), optionally ``NOTEBOOK_CHOICES`` (``NN_topic`` → overrides)
    and ``check(notebook, params)`` for rules that tie several keys together. ``params`` should
    hold the notebook's full parameter set (defaults filled in) so those rules see every key.

    >>> notebook_choice_problems("fmlama/02_probing", {"templates": [1, 9], "languages": ["en"]})
    ['fmlama/02_probing.templates: [9] not allowed; choose from 1, 2, 3, 4, 5']
    """
    setup = import_module(f"culturelab.{paper_of(notebook)}.setup")
    topic = notebook.rsplit("/", 1)[-1]
    choices = {**getattr(setup, "CHOICES", {}), **getattr(setup, "NOTEBOOK_CHOICES", {}).get(topic, {})}
    problems = check_choices(params, choices, where=notebook)
    check = getattr(setup, "check", None)
    if check is not None:
        problems += [f"{notebook}.{p}" for p in check(topic, params)]
    return problems
