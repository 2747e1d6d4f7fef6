"""A figure saved as its data: the call that drew it, replayable without a model.

Every figure function of the project is a *drawing*: tables and plain values in, a matplotlib figure
out, nothing else touched. :func:`drawing` registers such a function and records each outermost call on
the figure it returns (:class:`Recipe`: the function's name and its arguments). :meth:`Recipe.dump`
writes the tables as tidy CSV files (``<name>.csv``, and ``<name>.<argument>.csv`` for a second table)
with their exact types in the spec, so that :func:`load` gives back the same call and
:meth:`Recipe.draw` draws the same figure again — in another style or at another width
(:mod:`culturelab.plots.render`), in seconds, without a model.

>>> import pandas as pd
>>> @drawing
... def bars(table: pd.DataFrame, *, title: str = "") -> plt.Figure:
...     fig, ax = plt.subplots(); ax.bar(table["x"], table["y"]); ax.set_title(title); return fig
>>> fig = bars(pd.DataFrame({"x": ["a", "b"], "y": [1.5, 2.0]}), title="demo")
>>> recipe_of(fig).function.endswith(":bars"), sorted(recipe_of(fig).arguments)
(True, ['table', 'title'])
>>> plt.close(fig)
"""

from __future__ import annotations

import contextvars
import functools
import importlib
import inspect
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

F = TypeVar("F", bound=Callable[..., Any])

#: every registered drawing, by ``module:qualname``
REGISTRY: dict[str, Callable[..., Any]] = {}
_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("culturelab_drawing_depth", default=0)
#: arguments that draw into someone else's axes: such a call is part of a larger figure, not a recipe
_INTO = ("ax",)


class RecipeError(ValueError):
    """A figure whose call cannot be written down (an argument that is no table or plain value)."""


@dataclass
class Recipe:
    """The outermost drawing call that made a figure: ``function`` (``module:qualname``) and its
    bound ``arguments`` (defaults left out)."""

    function: str
    arguments: dict[str, Any]

    def draw(self) -> plt.Figure:
        """Call the drawing again (the figure it returns carries this recipe too).

        >>> Recipe("culturelab.plots.heatmap:heatmap", {"matrix": pd.DataFrame([[0.5]])}).draw().axes[0].get_title()
        ''
        >>> plt.close("all")
        """
        return resolve(self.function)(**self.arguments)

    def dump(self, folder: str | Path, name: str) -> dict[str, Any]:
        """Write the tables of the call under ``folder`` (``name.csv`` for the first,
        ``name.<argument>.csv`` for the others) and return the JSON-ready spec of the call.

        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> spec = Recipe("m:f", {"t": pd.DataFrame({"a": [1]}), "chance": 0.25}).dump(folder, "fig")
        >>> spec["arguments"]["t"]["$table"], spec["arguments"]["chance"], sorted(p.name for p in folder.iterdir())
        ('fig.csv', 0.25, ['fig.csv'])
        """
        writer = _Writer(Path(folder), name)
        return {"function": self.function,
                "arguments": {key: writer.encode(value, key) for key, value in self.arguments.items()}}


def drawing(function: F) -> F:
    """Register a figure function and record its outermost calls on the figures they return
    (:func:`recipe_of`). A call given an ``ax`` draws into a larger figure and records nothing.

    >>> @drawing
    ... def empty() -> plt.Figure:
    ...     return plt.figure()
    >>> recipe_of(empty()).arguments
    {}
    >>> plt.close("all")
    """
    name = f"{function.__module__}:{function.__qualname__}"
    REGISTRY[name] = function
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = _DEPTH.set(_DEPTH.get() + 1)
        try:
            fig = function(*args, **kwargs)
        finally:
            _DEPTH.reset(token)
        if _DEPTH.get() == 0 and hasattr(fig, "savefig"):
            call = _keywords(signature, args, kwargs)
            if all(call.get(k) is None for k in _INTO):
                fig._culturelab_recipe = Recipe(name, call)  # type: ignore[attr-defined]
        return fig

    wrapper.__culturelab_drawing__ = name  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def _keywords(signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments as keywords (``**extra`` ones spread out), the way :meth:`Recipe.draw` calls."""
    call: dict[str, Any] = {}
    for key, value in signature.bind(*args, **kwargs).arguments.items():
        kind = signature.parameters[key].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            call.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            raise RecipeError(f"{key}: a drawing takes no *args (name its arguments)")
        else:
            call[key] = value
    return call


def recipe_of(fig: Any) -> Recipe | None:
    """The recipe recorded on ``fig`` by :func:`drawing` (``None`` for a figure drawn by hand).

    >>> recipe_of(plt.figure()) is None
    True
    >>> plt.close("all")
    """
    return getattr(fig, "_culturelab_recipe", None)


def resolve(function: str) -> Callable[..., Any]:
    """The drawing named ``module:qualname`` (its module imported when needed).

    >>> resolve("culturelab.plots.heatmap:heatmap").__name__
    'heatmap'
    """
    if function not in REGISTRY:
        module, _, _ = function.partition(":")
        try:
            importlib.import_module(module)
        except ImportError as err:
            raise RecipeError(f"{function}: cannot import {module} ({err})") from None
    if function not in REGISTRY:
        raise RecipeError(f"{function} is not a registered drawing (decorate it with culturelab.plots.drawing)")
    return REGISTRY[function]


def load(spec: Mapping[str, Any], folder: str | Path) -> Recipe:
    """The :class:`Recipe` written by :meth:`Recipe.dump` (its tables read from ``folder``).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> table = pd.DataFrame({"lang": ["en", None], "ok": [True, False], "n": [3, 4]}, index=pd.Index([7, 9], name="id"))
    >>> again = load(Recipe("m:f", {"t": table, "where": {"en": 0.5}}).dump(folder, "fig"), folder)
    >>> again.arguments["t"].equals(table), again.arguments["where"]
    (True, {'en': 0.5})
    """
    folder = Path(folder)
    return Recipe(spec["function"], {key: _decode(value, folder) for key, value in spec["arguments"].items()})


# ------------------------------------------------------------------------------ encoding
_FILE_SAFE = re.compile(r"[^\w.-]+")


class _Writer:
    def __init__(self, folder: Path, name: str):
        self.folder, self.name, self.files = folder, name, 0

    def _file(self, path: str) -> str:
        self.files += 1
        stem = self.name if self.files == 1 else f"{self.name}.{_FILE_SAFE.sub('_', path).strip('_')}"
        return f"{stem}.csv"

    def encode(self, value: Any, path: str) -> Any:
        if isinstance(value, pd.DataFrame):
            return self._table(value, path, series=False)
        if isinstance(value, pd.Series):
            return self._table(value.to_frame(name="__value__" if value.name is None else value.name), path,
                               series=True, series_name=_plain(value.name, path))
        if isinstance(value, Mapping):
            items = [(k, self.encode(v, f"{path}.{k}")) for k, v in value.items()]
            if all(isinstance(k, str) and not k.startswith("$") for k, _ in items):
                return dict(items)
            return {"$dict": [[_plain(k, path), v] for k, v in items]}
        if isinstance(value, tuple):
            return {"$tuple": [self.encode(v, f"{path}.{i}") for i, v in enumerate(value)]}
        if isinstance(value, (list, np.ndarray)) and not _scalar(value):
            return [self.encode(v, f"{path}.{i}") for i, v in enumerate(list(value))]
        return _plain(value, path)

    def _table(self, frame: pd.DataFrame, path: str, *, series: bool, series_name: Any = None) -> dict[str, Any]:
        meta: dict[str, Any] = {"series": series}
        if series:
            meta["name"] = series_name
        if isinstance(frame.columns, pd.MultiIndex):
            raise RecipeError(f"argument {path}: a table with multi-level columns; pass it in long form")
        labels = [_plain(c, path) for c in frame.columns]
        meta["columns_name"] = _plain(frame.columns.name, path)
        if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0 or frame.index.step != 1:
            names = [_plain(n, path) for n in frame.index.names]
            meta["index"] = names
            keys = [f"__index_{i}__" for i in range(len(names))]
            frame = frame.copy()
            frame.columns = [f"__column_{i}__" for i in range(frame.shape[1])]
            frame = frame.reset_index(names=keys)
            headers = [str(n) if n is not None and str(n) not in map(str, labels) else k for n, k in zip(names, keys)]
        else:
            headers = []
            frame = frame.copy()
            frame.columns = [f"__column_{i}__" for i in range(frame.shape[1])]
        headers += [str(c) for c in labels]
        if len(set(headers)) < len(headers):
            headers = [f"{h}#{i}" if headers.count(h) > 1 else h for i, h in enumerate(headers)]
        meta["labels"] = labels
        meta["headers"] = headers
        meta["dtypes"] = [_dtype(frame[c], path) for c in frame.columns]
        out = pd.DataFrame({h: _column_out(frame[c], d) for h, c, d in zip(headers, frame.columns, meta["dtypes"])})
        file = self._file(path)
        self.folder.mkdir(parents=True, exist_ok=True)
        out.to_csv(self.folder / file, index=False)
        return {"$table": file, **meta}


def _scalar(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.ndim == 0


def _plain(value: Any, path: str) -> Any:
    """A JSON value for a scalar argument (numpy scalars become Python ones)."""
    if isinstance(value, np.generic):
        return _plain(value.item(), path)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value if isinstance(value, int) or math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, tuple):
        return {"$tuple": [_plain(v, path) for v in value]}
    raise RecipeError(f"argument {path}: a {type(value).__name__} cannot be saved with the figure's data "
                      "(pass tables, numbers, strings, lists or dicts)")


def _dtype(column: pd.Series, path: str) -> dict[str, Any]:
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return {"kind": "category", "categories": [_plain(c, path) for c in dtype.categories],
                "ordered": bool(dtype.ordered)}
    if pd.api.types.is_bool_dtype(dtype):
        return {"kind": str(dtype)}  # bool or boolean
    if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype):
        return {"kind": str(dtype)}
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return {"kind": str(dtype)}
    if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        values = column.dropna()
        plain = len(values) == len(column) and all(isinstance(v, str) for v in values)
        return {"kind": "str" if plain else "json", "dtype": str(dtype)}
    raise RecipeError(f"argument {path}: column {column.name!r} of type {dtype} cannot be saved as CSV")


def _column_out(column: pd.Series, dtype: Mapping[str, Any]) -> pd.Series:
    if dtype["kind"] == "json":
        return column.map(lambda v: json.dumps(_cell(v), ensure_ascii=False))
    if dtype["kind"] == "category":
        return column.map(lambda v: json.dumps(_cell(v), ensure_ascii=False))
    if dtype["kind"].startswith("float"):
        return column.map(lambda v: repr(float(v)) if pd.notna(v) else "")
    return column


def _cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": repr(value)}
    if isinstance(value, tuple):
        return {"$tuple": [_cell(v) for v in value]}
    if isinstance(value, (list, np.ndarray)):
        return [_cell(v) for v in list(value)]
    if isinstance(value, dict):
        return {str(k): _cell(v) for k, v in value.items()}
    return value


# ------------------------------------------------------------------------------ decoding
def _decode(value: Any, folder: Path) -> Any:
    if isinstance(value, list):
        return [_decode(v, folder) for v in value]
    if not isinstance(value, dict):
        return value
    if "$table" in value:
        return _read_table(value, folder)
    if "$tuple" in value:
        return tuple(_decode(v, folder) for v in value["$tuple"])
    if "$dict" in value:
        return {_decode(k, folder): _decode(v, folder) for k, v in value["$dict"]}
    if "$float" in value:
        return float(value["$float"])
    return {k: _decode(v, folder) for k, v in value.items()}


def _from_json(text: str) -> Any:
    return _decode(json.loads(text), Path("."))


def _column_in(raw: pd.Series, dtype: Mapping[str, Any]) -> pd.Series:
    kind = dtype["kind"]
    if kind == "str":
        return raw.astype(dtype.get("dtype", "object"))
    if kind == "json":
        values = raw.map(_from_json).astype(object)
        return values.astype(dtype["dtype"]) if dtype.get("dtype", "object") != "object" else values
    if kind == "category":
        categories = [_decode(c, Path(".")) for c in dtype["categories"]]
        values = raw.map(_from_json)
        return pd.Series(pd.Categorical(values, categories=categories, ordered=dtype["ordered"]), index=raw.index)
    if kind in ("bool", "boolean"):
        mapped = raw.map({"True": True, "False": False, "": None})
        return mapped.astype(kind)
    if kind.startswith(("float", "Float")):
        return pd.to_numeric(raw.replace("", np.nan)).astype(kind)
    if kind.startswith(("int", "uint", "Int", "UInt")):
        return pd.to_numeric(raw.replace("", np.nan)).astype(kind)
    if kind.startswith("datetime"):
        return pd.to_datetime(raw).astype(kind)
    raise RecipeError(f"unknown column type {kind!r}")


def _read_table(spec: Mapping[str, Any], folder: Path) -> pd.DataFrame | pd.Series:
    path = folder / spec["$table"]
    if not path.is_file():
        raise RecipeError(f"{path}: the figure's table is missing")
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(raw.columns) != spec["headers"]:
        raise RecipeError(f"{path}: columns {list(raw.columns)} are not the spec's {spec['headers']}")
    columns = [_column_in(raw[h], d) for h, d in zip(spec["headers"], spec["dtypes"])]
    n_index = len(spec.get("index") or [])
    frame = pd.DataFrame({i: c for i, c in enumerate(columns)})
    if n_index:
        frame = frame.set_index(list(range(n_index)))
        frame.index.names = [_decode(n, folder) for n in spec["index"]]
    elif len(frame) == 0:
        frame.index = pd.RangeIndex(0)
    labels = [_decode(label, folder) for label in spec["labels"]]
    frame.columns = pd.Index(labels, name=_decode(spec.get("columns_name"), folder),
                             tupleize_cols=False) if labels else pd.RangeIndex(0)
    if spec.get("series"):
        series = frame.iloc[:, 0]
        name = _decode(spec.get("name"), folder)
        return series.rename(None if name == "__value__" else name)
    return frame
