"""A paper's protocol as data, and the one comparison of a run with it.

Each paper package declares its paper's protocol in ``culturelab/<paper>/protocol.py``:
``PROTOCOL`` maps a notebook (``NN_topic``) to a :class:`Section` — the release it reads and the
counts the paper reports for it, and every setting of the paper's method (split, candidate pool,
scoring rule and normalisation, prompt, decoding, parser, metric backbones), each with the paper's
value and the place the paper says so — and ``MODELS`` maps the paper's model names to hub ids.
A module-level ``locate(params)`` says, without loading anything, which data a notebook's
parameters will read (:class:`DataUsed`).

:func:`compare` sets what a run actually did beside that protocol. Its :class:`Deviations` are the
``data``, ``protocol`` and ``model`` labels of every table row, figure caption, coverage row and
profile row (``"same"`` where nothing differs), the lines ``culturelab check`` prints, and the
reason a parameter file that says ``protocol: paper`` refuses to run. The model is never a
deviation: the comparison says whether it is one of the paper's models (a Δ against its row
exists) or a new point placed beside them.

>>> section = Section("§4", release=Release("PERCUL", {"stories": 592}, "Table 1"),
...                   settings={"max_new_tokens": Setting(1024, "§4", what="{} new tokens", at_least=True)})
>>> d = compare(section, {"max_new_tokens": 40}, DataUsed("released", {"stories": 20}))
>>> d.data, d.protocol, d.comparable
('20 of 592 stories', '40 new tokens (the paper: at least 1024, §4)', False)
>>> compare(section, {"max_new_tokens": 2048}, DataUsed("released", {"stories": 592})).comparable
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import import_module
from typing import Any

#: the label of a column where nothing differs from the paper
SAME = "same"
#: what a data source other than the paper's release is called in a label
SOURCE_LABELS = {
    "sample": "sample data (ours, not the paper's)",
    "missing": "no copy of the paper's release found",
    "example": "the release's example file only, not the paper's split",
    "given": "given data (unverified: nothing the paper states to check it against)",
}
#: the columns every labelled table carries (:meth:`Deviations.columns`)
LABEL_COLUMNS = ("data", "protocol", "model_status", "comparable")
#: sources that are the paper's own data (a release, or the paper's published numbers)
PAPER_SOURCES = ("released", "reported")


def is_same(label: str) -> bool:
    """Whether a label says the paper's: ``same``, or ``same (…)`` with a note (our reading of a
    value the paper does not state, a model version the paper does not give).

    >>> is_same("same"), is_same("same (our reading: ROUGE-L variant rougeL)"), is_same("sample data")
    (True, True, False)
    """
    return label == SAME or label.startswith(SAME + " (")


@dataclass(frozen=True)
class Setting:
    """One setting of a paper's protocol: the paper's value and where the paper gives it.

    ``what`` names the setting in a label (``"{}"`` stands for the value: ``"{} new tokens"``).
    ``kind="data"`` marks a size knob (``max_*``/``n_*``, ``0`` = all): another value runs on a
    subset of the data. ``at_least`` accepts any value ≥ the paper's (token budgets: a larger
    limit does not change greedy answers that stop earlier); ``accept`` is any other test of a
    value that follows the paper; ``describe`` renders a deviating value. ``value_of`` derives
    the value from all the settings compared (e.g. a decoding read beside the paper's decoding
    *for the model named*), ``None`` where it does not apply; without it the value is the one
    under the setting's key.

    >>> Setting(0.0, "§4", what="temperature").deviation("temperature", 0.7).text
    'temperature 0.7 (the paper: 0.0, §4)'
    >>> Setting(1024, "§4", at_least=True).follows(2048), Setting(0, "Tab. 1", kind="data").follows(20)
    (True, False)

    ``reading``: the paper does not state this value, so ``paper`` is our reading of it and
    ``reading`` says what the reading rests on. A run that follows it stays comparable (a Δ is
    shown), and its ``protocol`` label names the reading (:meth:`note`), so the Δ never hides it.

    >>> Setting("rougeL", "repo test.py", what="ROUGE-L {}", reading="the paper does not say which").note("rougeL")
    'our reading: ROUGE-L rougeL (the paper does not say which)'
    >>> derived = Setting(0.0, "§4", value_of=lambda e: e.get("t") if e.get("model") == "x" else None)
    >>> derived.value({"t": 1.0, "model": "x"}), derived.value({"t": 1.0})
    (1.0, None)
    """

    paper: Any
    cite: str
    what: str = ""
    kind: str = "protocol"
    at_least: bool = False
    accept: Callable[[Any], bool] | None = None
    describe: Callable[[Any], str] | None = None
    reading: str = ""
    value_of: Callable[[Mapping[str, Any]], Any] | None = None

    def __post_init__(self) -> None:
        if self.kind not in {"protocol", "data"}:
            raise ValueError(f"Setting.kind must be 'protocol' or 'data', not {self.kind!r}")

    def value(self, effective: Mapping[str, Any], key: str = "") -> Any:
        """The value this setting compares among ``effective`` (``None``: nothing to compare)."""
        if self.value_of is not None:
            return self.value_of(effective)
        return effective.get(key)

    def follows(self, value: Any) -> bool:
        """Whether ``value`` is the paper's."""
        if self.accept is not None:
            return bool(self.accept(value))
        if self.at_least and isinstance(value, (int, float)) and isinstance(self.paper, (int, float)):
            return value >= self.paper
        if isinstance(value, (list, tuple)) and isinstance(self.paper, (list, tuple)):
            return list(value) == list(self.paper)
        return bool(value == self.paper)

    def note(self, value: Any, key: str = "") -> str:
        """The note a run following this setting carries when ``paper`` is our reading (``""`` otherwise)."""
        if not self.reading:
            return ""
        if "{}" in self.what:
            shown = self.what.replace("{}", _show(value))
        else:
            shown = self.what or f"{key} {_show(value)}"
        return f"our reading: {shown} ({self.reading})"

    def deviation(self, key: str, value: Any) -> Deviation | None:
        """The :class:`Deviation` of ``value`` (``None`` when it follows the paper)."""
        if self.follows(value):
            return None
        if self.describe is not None:
            text = self.describe(value)
        else:
            paper = f"at least {self.paper}" if self.at_least else _show(self.paper)
            if self.kind == "data" and self.paper == 0:
                paper = "all"
            what = self.what or key
            text = what.replace("{}", _show(value)) if "{}" in what else f"{what} {_show(value)}"
            text = f"{text} (the paper: {paper}, {self.cite})"
        return Deviation(key, self.kind, value, self.paper, self.cite, text)


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


@dataclass(frozen=True)
class Release:
    """The paper's data: a name, the counts the paper reports (``{"stories": 592}``), where it
    reports them, and where the public copy is (``""`` when none is public).

    >>> Release("FMLAMA-en", {"dishes": 2580}, "Table 2").counts["dishes"]
    2580
    """

    name: str
    counts: Mapping[str, int]
    cite: str
    url: str = ""


@dataclass(frozen=True)
class DataUsed:
    """The data a run read: ``source`` (``released``, ``sample``, ``missing``, ``reported`` for
    the paper's published numbers, ``example``), the counts it holds (keys as the
    :class:`Release`'s), a note (e.g. where it was found, or why it is missing), and the
    ``settings`` the data itself fixes — effective settings no parameter names, e.g. options a
    release lacks and the run builds (:func:`compare` checks them like parameters).

    ``files`` are the files the run will read, each local path with the URL it is downloaded from
    when absent (``""``: it cannot be downloaded); ``culturelab check`` and ``culturelab run``
    verify each before any notebook starts (:func:`culturelab.preflight.data_problems`).

    >>> DataUsed("sample").label
    "sample data (ours, not the paper's)"
    >>> DataUsed("released", files={"/data/fmlama/data/Dishes.csv": "https://example.org/Dishes.csv"}).files
    {'/data/fmlama/data/Dishes.csv': 'https://example.org/Dishes.csv'}
    """

    source: str
    counts: Mapping[str, int] = field(default_factory=dict)
    note: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The source as a ``data`` label (``same`` for the paper's own data)."""
        if self.source in PAPER_SOURCES:
            return SAME
        return SOURCE_LABELS.get(self.source, f"{self.source} data (not the paper's)")


@dataclass(frozen=True)
class Section:
    """The paper's protocol for one notebook (or one part of it): where the paper describes it,
    the :class:`Release` it reads (``None`` when it reads none, e.g. figures redrawn from the
    paper's tables), and its :class:`Setting`\\ s keyed by the notebook parameter (or effective
    setting) they govern. ``beyond`` names an analysis the paper does not have (nothing of it can
    be compared with a paper number). ``when`` names the boolean parameter that switches the
    section on (``""``: always on); :func:`check_notebook` leaves a switched-off section out.

    >>> Section("§5", settings={"split": Setting("silver", "§5")}).settings["split"].paper
    'silver'
    """

    cite: str
    release: Release | None = None
    settings: Mapping[str, Setting] = field(default_factory=dict)
    beyond: str = ""
    when: str = ""
    #: what the paper leaves open about its models (e.g. no versions): said beside every paper model's Δ
    model_note: str = ""


@dataclass(frozen=True)
class Deviation:
    """One difference from the paper: the setting (``key``), ``data`` or ``protocol``, our value,
    the paper's, where the paper gives it, and a readable ``text``."""

    key: str
    kind: str
    ours: Any
    paper: Any
    cite: str
    text: str


@dataclass(frozen=True)
class Deviations:
    """The result of :func:`compare`: every difference, the data used, and the model.

    ``paper_model`` is the paper's name of the model when the paper evaluated it (so a Δ
    against its row exists), ``""`` when it did not, ``None`` for a model-free result.

    >>> d = Deviations((Deviation("split", "protocol", "gold", "silver", "§5", "gold split (the paper: silver)"),),
    ...                DataUsed("released"), "hf:x", "")
    >>> d.data, d.protocol, d.comparable
    ('same', 'gold split (the paper: silver)', False)
    >>> d.model
    "hf:x: not one of the paper's models (placed beside them)"
    """

    items: tuple[Deviation, ...] = ()
    data_used: DataUsed | None = None
    model_spec: str | None = None
    paper_model: str | None = None
    beyond: str = ""
    #: our readings of values the paper does not state (:meth:`Setting.note`): named in ``protocol``
    notes: tuple[str, ...] = ()
    #: what the paper leaves open about its model (:attr:`Section.model_note`): named in ``model``
    model_note: str = ""
    #: models of parts named by a parameter of their own (:func:`check_notebook`): (parameter, spec, paper name)
    part_models: tuple[tuple[str, str, str], ...] = ()

    def _join(self, kind: str) -> str:
        return "; ".join(d.text for d in self.items if d.kind == kind) or SAME

    @property
    def data(self) -> str:
        """The ``data`` label: ``same``, or what differs from the paper's release."""
        return self._join("data")

    @property
    def protocol(self) -> str:
        """The ``protocol`` label: ``same``, or every setting that differs from the paper's."""
        label = self._join("protocol")
        if self.beyond:  # an analysis the paper does not have, and what this run does differently in it
            return f"beyond the paper: {self.beyond}" + ("" if label == SAME else f"; {label}")
        if not self.notes:
            return label
        notes = "; ".join(self.notes)
        return f"{SAME} ({notes})" if label == SAME else f"{label}; {notes}"

    @property
    def model(self) -> str:
        """The ``model`` label: ``same`` (one of the paper's models, or no model; ``same (…)`` with
        what the paper leaves open about it), or a note that the model is placed beside the paper's."""
        if self.model_spec is None or self.paper_model is None:
            return SAME
        if self.paper_model:
            return f"{SAME} ({self.model_note})" if self.model_note else SAME
        return f"{self.model_spec}: not one of the paper's models (placed beside them)"

    @property
    def comparable(self) -> bool:
        """Whether a number of this run can be set against the paper's with a Δ: same data, same
        protocol (our readings named), and the paper's own model (or no model)."""
        return is_same(self.data) and is_same(self.protocol) and is_same(self.model)

    @property
    def same_data_and_protocol(self) -> bool:
        """Same data and protocol (whatever the model): a new model's point may be placed beside the paper's."""
        return is_same(self.data) and is_same(self.protocol)

    def with_items(self, *extra: Deviation) -> Deviations:
        """These deviations plus ``extra`` (one result's own differences)."""
        return replace(self, items=(*self.items, *extra))

    def lines(self) -> list[str]:
        """One line per difference, then the model line (for ``culturelab check`` and refusals)."""
        out = [f"{d.kind}: {d.text}" for d in self.items]
        if self.beyond:
            out.append(f"protocol: beyond the paper: {self.beyond}")
        out += [f"note: {n}" for n in self.notes]
        named = [(None, self.model_spec, self.paper_model)] if self.model_spec is not None \
            and self.paper_model is not None else []
        for param, spec, paper in [*named, *self.part_models]:
            name = f"{spec} ({param})" if param else spec
            note = f" ({self.model_note})" if paper and self.model_note else ""
            out.append(f"model: {name} is the paper's {paper}{note}" if paper
                       else f"model: {name} is not one of the paper's models (placed beside them; no Δ)")
        return out

    def caption(self) -> str:
        """A short figure caption: data, protocol and model, each ``same`` or what differs."""
        parts = [f"data: {self.data}", f"protocol: {self.protocol}"]
        if self.model_spec is not None:
            parts.append(f"model: {self.model_spec}" + ("" if is_same(self.model) else " (not a paper model)"))
        return " · ".join(parts)

    def columns(self) -> dict[str, Any]:
        """The label columns of a results row (:data:`LABEL_COLUMNS`)."""
        return {"data": self.data, "protocol": self.protocol, "model_status": self.model,
                "comparable": self.comparable}


def _counts_deviation(release: Release, used: DataUsed) -> list[Deviation]:
    out = []
    for key, expected in release.counts.items():
        got = used.counts.get(key)
        if got is None or got == expected:
            continue
        text = (f"{got:,} of {expected:,} {key}" if got < expected
                else f"{got:,} {key} (the paper: {expected:,}, {release.cite})")
        out.append(Deviation(f"count:{key}", "data", got, expected, release.cite, text))
    return out


def compare(section: Section | None, effective: Mapping[str, Any], data_used: DataUsed | None = None, *,
            model: str | None = None,
            paper_models: Mapping[str, str] | Callable[[str], str | None] | None = None) -> Deviations:
    """Set a run's ``effective`` settings and the data it used beside the paper's ``section``.

    Every setting of the section whose key is in ``effective`` (or in the settings the data
    fixes, ``data_used.settings``; ``effective`` wins) is checked; keys the section does not
    govern are ignored. The data differs when it is not the paper's release (sample,
    missing) or when its counts differ from the release's (a subset). ``model`` (a spec) is
    matched against ``paper_models`` (the paper's name → hub id, :func:`paper_model_of`).
    ``section=None`` (a notebook the paper has no counterpart of) compares the data only.

    >>> s = Section("§4", settings={"split": Setting("silver", "§5.2", what="split")})
    >>> compare(s, {"split": "gold"}).protocol
    'split gold (the paper: silver, §5.2)'
    >>> compare(s, {"split": "silver"}, DataUsed("sample")).lines()
    ["data: sample data (ours, not the paper's)"]
    >>> d = compare(s, {}, model="hf:Qwen/Qwen2.5-7B-Instruct", paper_models={"Qwen2.5-7B": "Qwen/Qwen2.5-7B-Instruct"})
    >>> d.paper_model, d.model
    ('Qwen2.5-7B', 'same')
    >>> compare(s, {}, DataUsed("released", settings={"split": "gold"})).protocol
    'split gold (the paper: silver, §5.2)'
    """
    items: list[Deviation] = []
    notes: list[str] = []
    if data_used is not None and data_used.settings:
        effective = {**data_used.settings, **effective}
    if data_used is not None and data_used.label != SAME:
        note = f" — {data_used.note}" if data_used.note else ""
        items.append(Deviation("data_source", "data", data_used.source, "released",
                               section.release.cite if section and section.release else "", data_used.label + note))
    elif data_used is not None and section is not None and section.release is not None:
        items += _counts_deviation(section.release, data_used)
    for key, setting in (section.settings.items() if section else ()):
        if setting.value_of is not None or key in effective:
            value = setting.value(effective, key)
            dev = None if value is None and setting.value_of is not None else setting.deviation(key, value)
            if dev is not None:
                items.append(dev)
            elif value is not None and (note := setting.note(value, key)):
                notes.append(note)
    paper_model = None if model is None else paper_model_of(model, paper_models or {})
    return Deviations(tuple(items), data_used, model, paper_model, section.beyond if section else "", tuple(notes),
                      section.model_note if section else "")


def _model_name(spec: str) -> str:
    return spec.split(":", 1)[-1].split("#")[-1].rstrip("/").lower()


def paper_model_of(spec: str, paper_models: Mapping[str, str] | Callable[[str], str | None]) -> str:
    """The paper's name of the model a spec loads (matched on the hub id, with or without its
    organisation), ``""`` when the paper did not evaluate it. ``paper_models`` is the paper's
    name → hub id, or a function of the spec (a paper with its own matching rule).

    >>> models = {"Llama-3.1-8B-Instruct": "meta-llama/Llama-3.1-8B-Instruct", "GPT-4o": "gpt-4o"}
    >>> paper_model_of("hf:meta-llama/Llama-3.1-8B-Instruct", models), paper_model_of("openai:gpt-4o", models)
    ('Llama-3.1-8B-Instruct', 'GPT-4o')
    >>> paper_model_of("bundled:gemma3-270m", models), paper_model_of("ray:4:hf:meta-llama/Llama-3.1-8B-Instruct", models)
    ('', 'Llama-3.1-8B-Instruct')
    """
    from culturelab.models.ray_backend import unwrap

    spec = unwrap(spec)  # ray:N:<spec> loads the model <spec> names
    if callable(paper_models):
        return paper_models(spec) or ""
    name = _model_name(spec)
    for paper_name, hub_id in paper_models.items():
        hub = str(hub_id).lower().rstrip("/")
        if hub and (name == hub or name.split("/")[-1] == hub.split("/")[-1]):
            return str(paper_name)
    return ""


# --------------------------------------------------------------------- papers' declarations
def paper_protocol(paper: str) -> Any | None:
    """The ``culturelab.<paper>.protocol`` module, or ``None`` when the paper declares none.

    >>> paper_protocol("quickstart") is None
    True
    """
    try:
        return import_module(f"culturelab.{paper}.protocol")
    except ModuleNotFoundError as err:
        if err.name != f"culturelab.{paper}.protocol":
            raise
        return None


def section_of(notebook: str, part: str | None = None) -> Section | None:
    """The paper's :class:`Section` for ``notebook`` (``paper/NN_topic``; ``part`` picks a
    ``NN_topic.part`` entry), ``None`` where the paper declares none.

    >>> section_of("00_quickstart") is None
    True
    """
    paper, _, topic = notebook.rpartition("/")
    module = paper_protocol(paper) if paper else None
    if module is None:
        return None
    protocol = module.PROTOCOL
    if part is not None:
        key = f"{topic}.{part}"
        if key not in protocol:
            raise KeyError(f"culturelab.{paper}.protocol has no section {key!r}; have {sorted(protocol)}")
        return protocol[key]
    return protocol.get(topic)


def data_before_run(notebook: str, params: Mapping[str, Any]) -> DataUsed | None:
    """The data ``params`` will read, found without loading it (the paper's ``locate``), or ``None``."""
    paper = notebook.rpartition("/")[0]
    module = paper_protocol(paper) if paper else None
    locate = getattr(module, "locate", None)
    return None if locate is None else locate(notebook.rpartition("/")[2], params)


def check_notebook(notebook: str, params: Mapping[str, Any]) -> Deviations | None:
    """The deviations a notebook's full parameter set (defaults filled in) implies before it runs:
    the data it will read (without loading it), its size knobs and every setting of each of the
    notebook's sections; ``None`` for a notebook its paper does not declare.

    The notebook's model is named by ``model``, or by the paper's ``MODEL_PARAMS[topic]`` (e.g. an
    encoder); a part (``NN_topic.part``) whose model another parameter names (``MODEL_PARAMS``
    keyed by the part, a spec or a list of specs, e.g. the models it fine-tunes) has each of its
    models matched on its own (:attr:`Deviations.part_models`), while the part is switched on.

    >>> check_notebook("00_quickstart", {}) is None
    True
    """
    paper, _, topic = notebook.rpartition("/")
    module = paper_protocol(paper) if paper else None
    if module is None:
        return None
    keyed = [(key, s) for key, s in module.PROTOCOL.items() if key == topic or key.startswith(topic + ".")]
    if not keyed:
        return None
    own = module.PROTOCOL.get(topic)  # the notebook's own section: its `beyond` is the notebook's
    keyed = [(key, s) for key, s in keyed if not s.when or params.get(s.when)]
    sections = [s for _, s in keyed]
    models = getattr(module, "MODELS", {})
    model_params = getattr(module, "MODEL_PARAMS", {})
    own_param = model_params.get(topic, "model")
    value = params.get(own_param)
    spec = value if isinstance(value, str) and value else None
    part_models = {(param, s): paper_model_of(s, models) for key, _ in keyed
                   if (param := model_params.get(key, own_param)) != own_param for s in model_specs(params.get(param))}
    used = data_before_run(notebook, params)
    merged: dict[str, Deviation] = {}
    notes: dict[str, None] = {}
    beyond = model_note = ""
    for section in sections:
        result = compare(section, params, used, model=spec, paper_models=models)
        for item in result.items:
            merged.setdefault(item.text, item)
        notes.update(dict.fromkeys(result.notes))
        beyond = beyond or (section.beyond if len(sections) == 1 or section is own else "")
        model_note = model_note or section.model_note
    return Deviations(tuple(merged.values()), used, spec, None if spec is None else paper_model_of(spec, models),
                      beyond, tuple(notes), model_note,
                      part_models=tuple((param, s, name) for (param, s), name in part_models.items()))


def model_specs(value: Any) -> list[str]:
    """The model specs a parameter names: one spec, or a list of them (empty values dropped).

    >>> model_specs("hf:a"), model_specs(["hf:a", "hf:b"]), model_specs(None)
    (['hf:a'], ['hf:a', 'hf:b'], [])
    """
    if isinstance(value, str):
        return [value] if value else []
    return [v for v in (value or []) if isinstance(v, str) and v]


def subset_label(n: int, total: int, what: str) -> str:
    """``"20 of 592 stories"``, or ``same`` when everything was used.

    >>> subset_label(20, 592, "stories"), subset_label(592, 592, "stories")
    ('20 of 592 stories', 'same')
    """
    return SAME if n >= total else f"{n:,} of {total:,} {what}"


def label_rows(table: Any, deviations_of: Callable[[Mapping[str, Any]], Deviations], by: Sequence[str]) -> Any:
    """``table`` with the label columns (:meth:`Deviations.columns`) of each row, computed once per
    distinct combination of the ``by`` columns (``deviations_of`` gets that combination).

    >>> import pandas as pd
    >>> s = Section("§4", settings={"method": Setting("generate", "§4", what="method")})
    >>> t = pd.DataFrame({"method": ["generate", "loglikelihood"], "acc": [0.5, 0.6]})
    >>> label_rows(t, lambda row: compare(s, row), ["method"])["protocol"].tolist()
    ['same', 'method loglikelihood (the paper: generate, §4)']
    """
    import pandas as pd

    table = table.copy()
    keys = list(by)
    if not keys:
        cols = deviations_of({}).columns()
        for name, value in cols.items():
            table[name] = value
        return table
    combos = table[keys].drop_duplicates()
    labels = [{**dict(zip(keys, combo)), **deviations_of(dict(zip(keys, combo))).columns()}
              for combo in combos.itertuples(index=False, name=None)]
    out = table.drop(columns=[c for c in LABEL_COLUMNS if c in table])
    return out.merge(pd.DataFrame(labels, columns=[*keys, *LABEL_COLUMNS]), on=keys, how="left")

