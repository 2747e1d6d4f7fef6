"""Parameter files: one YAML per run, optionally built on another (``base``), and a short slice of one.

A file may name a ``base`` file (a path relative to it) whose values it overrides: ``common`` values key by
key, each notebook's values key by key, ``protocol`` and ``figures_dir`` when given (``protocol: null``
lifts the base's ``protocol: paper``); ``run_name`` is the file's own (its name by default). So
``papermill_params/gpu/qwen7b.yaml`` is ``paper.yaml`` with another model, and stays so when ``paper.yaml``
changes.

:func:`sliced` cuts every notebook of a file to a few items — each size knob its paper declares
(``Setting(kind="data")`` in ``culturelab/<paper>/protocol.py``) — for a short check of a long run on its
machine (``benchmarks/gpu_check.py --params``).

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "big.yaml").write_text("protocol: paper\\ncommon: {model: 'bundled:gemma3-270m', seed: 0}\\n"
...                                      "notebooks: {00_quickstart: {n_questions: 0}}\\n")
>>> _ = (folder / "mine.yaml").write_text("base: big.yaml\\nprotocol: null\\ncommon: {model: 'hf:org/x-7b'}\\n")
>>> read(folder / "mine.yaml")
{'protocol': None, 'common': {'model': 'hf:org/x-7b', 'seed': 0}, 'notebooks': {'00_quickstart': {'n_questions': 0}}}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from culturelab.params import ParameterError

#: keys a file takes from its base unless it gives them itself (``run_name`` is always the file's own)
INHERITED = ("protocol", "figures_dir")


def _load(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ParameterError(f"{path}: parameter file not found")
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        raise ParameterError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(spec, dict):
        raise ParameterError(f"{path}: a parameter file is a mapping (common, notebooks, …), not {type(spec).__name__}")
    return spec


def read(path: str | Path, _seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The parameter file at ``path`` with its ``base`` chain merged in (see the module)."""
    path = Path(path)
    spec = _load(path)
    base = spec.pop("base", None)
    if base is None:
        return spec
    base_path = (path.parent / str(base)).resolve()
    if base_path in _seen or base_path == path.resolve():
        raise ParameterError(f"{path}: base: {base} leads back to itself")
    parent = read(base_path, (*_seen, path.resolve()))
    merged = {k: parent[k] for k in INHERITED if k in parent}
    merged.update({k: v for k, v in spec.items() if k not in {"common", "notebooks"}})
    merged["common"] = {**(parent.get("common") or {}), **(spec.get("common") or {})}
    notebooks = {name: dict(values or {}) for name, values in (parent.get("notebooks") or {}).items()}
    for name, values in (spec.get("notebooks") or {}).items():
        notebooks[name] = {**notebooks.get(name, {}), **(values or {})}
    merged["notebooks"] = notebooks
    return merged


def size_knobs(notebook: str) -> list[str]:
    """The size knobs a notebook's paper declares (``kind="data"`` settings of its sections).

    >>> size_knobs("percul/01_benchmark")
    ['max_instances']
    >>> size_knobs("00_quickstart")
    []
    """
    from culturelab.protocol import paper_protocol

    paper, _, topic = notebook.rpartition("/")
    module = paper_protocol(paper) if paper else None
    sections = [s for key, s in getattr(module, "PROTOCOL", {}).items() if key == topic or key.startswith(topic + ".")]
    return list(dict.fromkeys(k for s in sections for k, setting in s.settings.items() if setting.kind == "data"))


def sliced(path: str | Path, n: int = 4, *, run_name: str | None = None) -> dict[str, Any]:
    """The parameter file at ``path`` with every notebook cut to ``n`` items: each declared size knob
    (:func:`size_knobs` whose default is an integer) and the quickstart's ``n_questions`` set to ``n``; every other value kept
    (model, decoding, token budgets). ``protocol: paper`` is lifted (a slice is a subset by design).

    >>> spec = sliced(Path(__file__).parents[1] / "papermill_params" / "paper.yaml", 2, run_name="s")
    >>> spec["run_name"], spec["protocol"], spec["notebooks"]["percul/01_benchmark"]["max_instances"]
    ('s', None, 2)
    """
    from culturelab import config
    from culturelab.params import notebook_defaults

    spec = read(path)
    notebooks = dict(spec.get("notebooks") or {})
    root = config.notebooks_dir()
    for file in sorted(root.rglob("*.ipynb")):  # every notebook (not runner.all_notebooks: runner reads this module)
        if ".ipynb_checkpoints" in file.parts:
            continue
        name = file.relative_to(root).with_suffix("").as_posix()
        declared = notebook_defaults(file)
        knobs = [k for k in [*size_knobs(name), "n_questions"]  # sizes: integers, 0 = all (not the data's lists)
                 if isinstance(declared.get(k), int) and not isinstance(declared[k], bool)]
        if knobs:
            notebooks[name] = {**(notebooks.get(name) or {}), **dict.fromkeys(knobs, n)}
    return {**spec, "run_name": run_name or f"{Path(path).stem}-slice", "protocol": None, "notebooks": notebooks}
