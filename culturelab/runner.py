"""Runs: one notebook executed with one set of parameters, and what it leaves behind.

Inside a notebook, right after the ``parameters`` cell::

    run = cl.start_run("captex/02_reordering", globals())   # validates, seeds, styles plots
    model = run.model()                                      # params["model"] on params["device"]
    ...
    run.save_results(table)        # runs/<run>/<notebook>/results.csv + run_info.json
    run.savefig(fig, "fig5_step_count")   # runs/<run>/figures/<paper>/fig5_step_count.{pdf,png} + its data

From the shell, ``culturelab run papermill_params/x.yaml`` validates every parameter of every
notebook before executing any (see :func:`plan`), then runs them with papermill.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata as md
import json
import os
import platform
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from culturelab import config
from culturelab.params import ParameterError, notebook_choice_problems, notebook_defaults, validate

# secret-like parameter names: api_key, hf_token, token, secret, password — not sizes such as max_new_tokens
_SECRET = re.compile(r"(key|secret|password|passwd|credential|(^|_)token)$", re.I)
_PACKAGES = ("culturelab", "torch", "transformers", "tokenizers", "datasets", "numpy", "pandas", "scipy",
             "gensim", "sentence-transformers", "sacrebleu", "rouge-score", "papermill", "matplotlib", "seaborn")


def package_versions() -> dict[str, str]:
    """Versions of the packages that determine results, plus Python's.

    >>> versions = package_versions()
    >>> versions["python"] == platform.python_version(), isinstance(versions["numpy"], str)
    (True, True)
    """
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "absent"
    return out


def git_commit() -> str | None:
    """The checkout's ``HEAD`` commit (``-dirty`` appended when tracked files changed), or ``None``.

    >>> sha = git_commit()
    >>> sha is None or len(sha.removesuffix("-dirty")) == 40
    True
    """
    root = config.project_root()
    if root is None:
        return None
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return (sha.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")) or None


def redact_params(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters safe to write down: values of key/token/secret/password-like names hidden.

    >>> redact_params({"api_key": "sk-1", "hf_token": "", "max_new_tokens": 8})
    {'api_key': '***', 'hf_token': '', 'max_new_tokens': 8}
    """
    return {k: ("***" if _SECRET.search(k) and v else v) for k, v in params.items()}


def notebook_file(name: str) -> Path:
    """The ``.ipynb`` file of a notebook named ``paper/NN_topic``.

    >>> notebook_file("00_quickstart").relative_to(config.notebooks_dir()).as_posix()
    '00_quickstart.ipynb'
    """
    path = config.notebooks_dir() / f"{name}.ipynb"
    if not path.is_file():
        raise FileNotFoundError(f"no notebook {name!r} (looked for {path})")
    return path


#: set (to a summary of the deviations) while a ``protocol: paper`` file runs with ``--allow-deviation``
ALLOW_DEVIATION_ENV = "CULTURELAB_ALLOW_DEVIATION"
#: the values of a parameter file's ``protocol`` key: ``paper`` refuses to run while anything differs
PROTOCOL_MODES = ("paper",)

#: notebooks that read the other notebooks' results: they run after every other notebook of a batch
READS_OTHER_RESULTS = ("profile",)
#: notebooks that send the same model requests as others of their paper (an aggregate that re-runs the
#: tasks): they run after the rest of the batch so their requests are served from the response cache
#: instead of being computed twice in parallel
REPLAYS_OTHER_REQUESTS = ("captex/05_aggregate",)


def depends_on(name: str, batch: list[str]) -> set[str]:
    """Notebooks of ``batch`` that must finish before ``name`` starts: a notebook of
    :data:`REPLAYS_OTHER_REQUESTS` waits for its paper's other notebooks (whose model answers it reuses
    from the cache), one of :data:`READS_OTHER_RESULTS` for every notebook that does not read results.
    The rest start at once.

    >>> batch = ["captex/02_reordering", "captex/05_aggregate", "fmlama/02_probing", "profile"]
    >>> [sorted(depends_on(n, batch)) for n in ("fmlama/02_probing", "captex/05_aggregate")]
    [[], ['captex/02_reordering']]
    >>> len(depends_on("profile", batch))
    3
    """
    if name in READS_OTHER_RESULTS:
        return {other for other in batch if other not in READS_OTHER_RESULTS}
    if name in REPLAYS_OTHER_REQUESTS:
        paper = name.split("/")[0] + "/"
        return {other for other in batch if other.startswith(paper) and other not in REPLAYS_OTHER_REQUESTS}
    return set()


def all_notebooks() -> list[str]:
    """Every notebook of the checkout, as ``paper/NN_topic`` names, in execution order (the
    notebooks of :data:`READS_OTHER_RESULTS` last).

    >>> names = all_notebooks()
    >>> names[0], "captex/01_dataset" in names, names[-1]
    ('00_quickstart', True, 'profile')
    """
    root = config.notebooks_dir()
    names = sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
    return sorted(names, key=lambda name: name in READS_OTHER_RESULTS)


@dataclass
class Run:
    """Everything one notebook execution writes, and the parameters it was given.

    >>> import dataclasses
    >>> [f.name for f in dataclasses.fields(Run)]
    ['notebook', 'params', 'name', 'data_source', 'info', 'data_used']
    """

    notebook: str
    params: dict[str, Any]
    name: str = field(default_factory=lambda: os.environ.get("CULTURELAB_RUN_NAME", "interactive"))
    data_source: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    data_used: Any = None

    def __post_init__(self) -> None:
        from culturelab.plots import apply_style

        self.out_dir = config.runs_dir() / self.name / self.notebook
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._forget_figures()
        paper = self.notebook.split("/")[0] if "/" in self.notebook else self.notebook.removeprefix("00_")
        self.paper = paper
        self.figures_dir = config.figures_dir(self.name) / paper
        self._models: dict[str, Any] = {}
        from culturelab.models.counting import request_log

        request_log(self.notebook)  # under culturelab plan: where this notebook's requests are counted
        seed = self.params.get("seed", 0)
        random.seed(seed)
        import numpy as np

        np.random.seed(seed % 2**32)
        if "torch" in sys.modules:  # else not imported for it (1.4 s): a model, the fine-tuning and the
            sys.modules["torch"].manual_seed(seed)  # alignment seed their own generators when they run
        apply_style()
        self.data_used = None
        self.info = {"notebook": self.notebook, "run": self.name, "started": datetime.now(timezone.utc).isoformat(),
                     "params": redact_params(self.params), "versions": package_versions(), "git": git_commit(),
                     "platform": platform.platform(), "models": {}, "figures": [], "results": []}
        self._write_info()

    # ----------------------------------------------------------------- inputs
    @property
    def data_dir(self) -> Path:
        """The data directory for this run (parameter ``data_dir``, else ``$CULTURELAB_DATA``)."""
        return config.data_dir(self.params.get("data_dir"))

    def model(self, spec: str | None = None, **kwargs: Any) -> Any:
        """Load (once) the model named by ``spec`` or the ``model`` parameter, on ``device``.

        Under ``culturelab plan`` (``$CULTURELAB_COUNT_REQUESTS`` set) a counting model that loads
        no weights stands in (:mod:`culturelab.models.counting`).
        """
        from culturelab.models import load_model
        from culturelab.models.counting import CountingModel, offline_tokenizer, request_log

        spec = spec or self.params["model"]
        if spec not in self._models:
            t0 = time.perf_counter()
            log = request_log(self.notebook)
            model = (CountingModel(spec, tokenizer=offline_tokenizer(spec), log=log)
                     if log else load_model(spec, device=self.params.get("device", "auto"), **kwargs))
            self._models[spec] = model
            self.info["models"][spec] = {**model.describe(), "load_seconds": round(time.perf_counter() - t0, 1)}
            self._write_info()
        return self._models[spec]

    def supports(self, kind: str, section: str, spec: str | None = None) -> bool:
        """Whether the model (``spec`` or the ``model`` parameter) can answer ``kind`` requests
        (``generate``, ``loglikelihood``, ``rank_candidates``); decided without loading weights.

        When it cannot, the notebook says so in one markdown line, the run records the skipped
        section (``run_info.json``: ``skipped``), and the caller goes on without that section.
        """
        from culturelab.models import capabilities

        spec = spec or self.params["model"]
        reason = capabilities(spec)[kind]
        if reason is None:
            return True
        line = f"**{section}: skipped** for `{spec}`: {reason}."
        self.info.setdefault("skipped", []).append({"section": section, "model": spec, "kind": kind,
                                                    "reason": reason})
        self._write_info()
        try:
            from IPython.display import Markdown, display

            display(Markdown(line))
        except ImportError:  # pragma: no cover - IPython comes with the notebook stack
            print(line)
        return False

    def set_data_source(self, source: str, counts: dict[str, int] | None = None, note: str = "",
                        settings: dict[str, Any] | None = None) -> None:
        """Record where the data came from (``released``, ``sample`` …) and, for a release, the
        counts it holds (keys as the paper's :class:`culturelab.protocol.Release`): both enter the
        ``data`` label of every table and figure (:meth:`deviations`); ``settings`` are what the
        data itself fixes (:class:`culturelab.protocol.DataUsed`), checked like parameters."""
        from culturelab.protocol import DataUsed

        self.data_source = source
        self.data_used = DataUsed(source, dict(counts or {}), note, dict(settings or {}))
        self.info["data_source"] = source
        self.info["data_counts"] = dict(counts or {})
        self.info["deviations"] = self.deviations().lines()
        self._write_info()
        _show_in_notebook(self.deviations().caption(), "Compared with the paper")

    def deviations(self, part: str | None = None, *, counts: dict[str, int] | None = None,
                   **effective: Any) -> Any:
        """This run set beside its paper's protocol (:func:`culturelab.protocol.compare`): the
        notebook's section (``part``: a ``NN_topic.part`` section), the run's parameters updated
        with ``effective`` (one result's own settings, e.g. ``method="loglikelihood"``), the data
        of :meth:`set_data_source` (``counts`` overrides its counts, e.g. one language's dishes)
        and the model (``model=`` a spec, or ``None`` for a model-free result).

        >>> run = Run("percul/01_benchmark", {"model": "bundled:gemma3-270m", "max_new_tokens": 40}, name="doctest")
        >>> run.set_data_source("sample"); run.deviations().data
        "sample data (ours, not the paper's)"
        """
        from dataclasses import replace

        from culturelab.protocol import compare, paper_protocol, section_of

        paper = self.notebook.rpartition("/")[0]
        module = paper_protocol(paper) if paper else None
        section = section_of(self.notebook, part)
        model = effective.pop("model", self.params.get("model") or None)
        used = self.data_used
        if used is not None and counts is not None:
            used = replace(used, counts={**used.counts, **counts})
        return compare(section, {**self.params, **effective}, used, model=model,
                       paper_models=getattr(module, "MODELS", {}))

    def label(self, table: pd.DataFrame, by: tuple[str, ...] | list[str] = (), part: str | None = None,
              **effective: Any) -> pd.DataFrame:
        """``table`` with the label columns (``data``, ``protocol``, ``model_status``,
        ``comparable``) of :meth:`deviations`, per distinct value of the ``by`` columns (each passed
        as an effective setting: a ``method`` column, a ``model`` column of specs …)."""
        from culturelab.protocol import label_rows

        return label_rows(table, lambda combo: self.deviations(part, **{**effective, **combo}), list(by))

    # ----------------------------------------------------------------- outputs
    def save_results(self, table: pd.DataFrame, name: str = "results") -> Path:
        """Write a tidy table to ``runs/<run>/<notebook>/<name>.csv`` with run columns added, and
        the labels of the run's comparison with its paper (:meth:`label`) where the table has none.
        A run of a ``protocol: paper`` file that was allowed to deviate says so in ``run_protocol``."""
        from culturelab.protocol import LABEL_COLUMNS

        table = table.copy() if any(c in table.columns for c in LABEL_COLUMNS[:2]) else self.label(table)
        allowed = os.environ.get(ALLOW_DEVIATION_ENV)
        if allowed:
            table["run_protocol"] = f"paper protocol file run with --allow-deviation ({allowed})"
        table.insert(0, "notebook", self.notebook)
        table.insert(1, "run", self.name)
        if self.data_source:
            table.insert(2, "data_source", self.data_source)
        for col in table.columns:
            if table[col].map(lambda v: isinstance(v, (list, tuple, dict))).any():
                table[col] = table[col].map(lambda v: json.dumps(v, ensure_ascii=False, default=str)
                                            if isinstance(v, (list, tuple, dict)) else v)
        path = self.out_dir / f"{name}.csv"
        table.to_csv(path, index=False)
        if path.name not in self.info["results"]:
            self.info["results"].append(path.name)
        self._write_info()
        return path

    def savefig(self, fig: Any, name: str, *, data_source: str | None = None, width: str | None = None,
                **claims: Any) -> list[Path]:
        """Save a figure as its data and spec under ``runs/<run>/<notebook>/figures/<name>.{csv,json}``
        and its notebook rendering under the run's figures folder (``runs/<run>/figures/<paper>/``,
        PDF + PNG; :func:`culturelab.plots.render.save_figure`), so that ``culturelab figures`` can
        draw it again in the paper style. Figures made from sample data say so in their title.
        ``data_source`` overrides the run's source for this figure (e.g. ``"reported"`` for a figure
        drawn from the paper's published numbers alone: no sample stamp, and ``kind="reported"``
        unless claimed otherwise). ``width``: ``column`` or ``text``, its width in a paper (default:
        a column for one panel). ``claims`` are passed to :func:`culturelab.plots.audit.claim`
        (``kind``, ``model``, ``method``, ``chance``, ``no_chance``); a score figure names the run's
        model unless it claims its models itself (``model=[]``: baselines only).

        A score figure with a panel whose every mark rests on too few items is not saved as a
        result: the notebook says so and shows the figure's table instead (``run_info.json``:
        ``refused_figures``); returns ``[]``. Under ``culturelab plan``
        (:func:`culturelab.models.counting.counting`) nothing is laid out or written; returns ``[]``."""
        from culturelab.models.counting import counting
        from culturelab.plots import audit, save
        from culturelab.plots.render import save_figure

        if counting():
            return []
        source = data_source or self.data_source
        if not hasattr(fig, "savefig"):  # plotly: its HTML file only
            paths = save(fig, self.figures_dir / name)
        else:
            stated = audit.claim(fig, **claims)
            if stated.kind is None and data_source == "reported":
                audit.claim(fig, kind="reported")
            if stated.kind == "score" and stated.models is None and self.params.get("model"):
                audit.claim(fig, model=self.params["model"])
            saved = save_figure(fig, name, data_dir=self.out_dir / "figures", figures_dir=self.figures_dir,
                                data_source=source, width=width,
                                context={"notebook": self.notebook, "paper": self.paper, "run": self.name})
            if saved.refused:
                self.info.setdefault("refused_figures", {})[name] = saved.refused
                self._write_info()
                _show_refusal(fig, saved.refused)
                return []
            paths = saved.paths
        for p in paths:
            rel = str(p)
            if rel not in self.info["figures"]:
                self.info["figures"].append(rel)
        self._write_info()
        return paths

    def finish(self) -> dict[str, Any]:
        """Record model-call statistics and the end time; return the run info."""
        self.info["finished"] = datetime.now(timezone.utc).isoformat()
        for spec, model in self._models.items():  # a lazy model loads on its first cache miss, after model()
            self.info["models"][spec].update(model.describe())
            self.info["models"][spec]["calls"] = vars(model.stats)
        self._write_info()
        return self.info

    def _forget_figures(self) -> None:
        """Remove the figures an earlier run of this notebook saved here (their data, specs and
        renderings): a run's folder holds what this run draws, so that ``culturelab figures`` draws
        nothing stale."""
        earlier = self.out_dir / "run_info.json"
        if earlier.is_file():
            try:
                paths = json.loads(earlier.read_text(encoding="utf-8")).get("figures", [])
            except ValueError:
                paths = []
            for path in paths:
                Path(path).unlink(missing_ok=True)
        saved = self.out_dir / "figures"
        if saved.is_dir():
            for path in saved.iterdir():
                if path.is_file():
                    path.unlink()

    def _write_info(self) -> None:
        (self.out_dir / "run_info.json").write_text(json.dumps(self.info, indent=2, default=str), encoding="utf-8")


def _show_in_notebook(text: str, title: str) -> None:
    """Show one Markdown line in a running notebook (nothing outside a kernel)."""
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:  # pragma: no cover - IPython comes with the notebook stack
        return
    if get_ipython() is not None:
        display(Markdown(f"**{title}:** {text}"))


def _show_refusal(fig: Any, reasons: list[str]) -> None:
    """In a running notebook: why a figure is not saved, and the table it would have drawn (the
    figure itself is closed, so that it is not shown either)."""
    import matplotlib.pyplot as plt

    from culturelab.plots.recipe import recipe_of

    recipe = recipe_of(fig)
    table = next((v for v in (recipe.arguments.values() if recipe else []) if isinstance(v, (pd.DataFrame, pd.Series))),
                 None)
    plt.close(fig)
    _show_in_notebook("; ".join(reasons) + ". The numbers it would draw:", "Figure not saved as a result")
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython comes with the notebook stack
        return
    if get_ipython() is not None and table is not None:
        display(table)


def start_run(notebook: str, namespace: dict[str, Any]) -> Run:
    """Validate the notebook's parameters as they stand in ``namespace`` and open a :class:`Run`.

    Raises :class:`~culturelab.params.ParameterError` (one line per bad key) before anything
    is loaded.

    >>> namespace = {**notebook_defaults(notebook_file("00_quickstart")), "device": "gpu"}
    >>> start_run("00_quickstart", namespace)
    Traceback (most recent call last):
    culturelab.params.ParameterError: 00_quickstart.device: 'gpu' is not a device: use auto, ...
    """
    defaults = notebook_defaults(notebook_file(notebook))
    missing = [k for k in defaults if k not in namespace]
    if missing:
        raise ParameterError(f"{notebook}: parameters {missing} are not defined; run the parameters cell first")
    params = {k: namespace[k] for k in defaults}
    problems = validate(params, defaults, where=notebook) or notebook_choice_problems(notebook, params)
    if problems:
        raise ParameterError("\n".join(problems))
    return Run(notebook, params)


# --------------------------------------------------------------------- batch runs
class DeviationError(ParameterError):
    """A ``protocol: paper`` parameter file differs from the papers' protocols: one line per
    difference, per notebook.

    >>> print(DeviationError(Path("paper.yaml"), {"percul/01_benchmark": ["data: sample data"]}))
    paper.yaml says protocol: paper, but 1 notebook differs from its paper (run with --allow-deviation to run anyway):
    percul/01_benchmark
      data: sample data
    """

    def __init__(self, params_file: Path, refusals: dict[str, list[str]]):
        self.refusals = refusals
        lines = [f"{params_file} says protocol: paper, but {len(refusals)} notebook"
                 f"{'s differ' if len(refusals) > 1 else ' differs'} from its paper "
                 "(run with --allow-deviation to run anyway):"]
        for name, items in refusals.items():
            lines += [name, *(f"  {line}" for line in items)]
        super().__init__("\n".join(lines))


@dataclass
class RunPlan:
    """A validated batch: which notebooks, with which parameters, written where.

    ``protocol`` is the file's ``protocol`` key (``paper``: refuse to run while anything differs
    from the papers' protocols); ``deviations`` holds, per notebook, its comparison with its
    paper before it runs (:func:`culturelab.protocol.check_notebook`; ``None`` where the paper
    declares none).

    >>> p = RunPlan(Path("smoke.yaml"), "smoke", None, [("00_quickstart", {"seed": 1})])
    >>> p.run_name, [name for name, _ in p.jobs], p.refusals()
    ('smoke', ['00_quickstart'], {})
    """

    params_file: Path
    run_name: str
    figures_dir: Path | None
    jobs: list[tuple[str, dict[str, Any]]]
    protocol: str | None = None
    deviations: dict[str, Any] = field(default_factory=dict)

    def refusals(self) -> dict[str, list[str]]:
        """Per notebook, the lines that stop a ``protocol: paper`` file from running (every data
        and protocol difference; the model is never one, nor is an analysis beyond the paper or
        our reading of a value the paper does not state);
        empty for other files."""
        if self.protocol != "paper":
            return {}
        out = {}
        for name, _ in self.jobs:
            dev = self.deviations.get(name)
            lines = [line for line in (dev.lines() if dev is not None else [])
                     if not line.startswith(("model:", "protocol: beyond the paper", "note:"))]
            if lines:
                out[name] = lines
        return out


def plan(params_file: str | Path, selected: list[str] | None = None) -> RunPlan:
    """Read a parameter file and validate it against every notebook it touches.

    The file has ``common`` values (given to every notebook that declares the key),
    ``notebooks`` (per-notebook values, keyed ``paper/NN_topic``), and optionally ``run_name``,
    ``figures_dir``, ``protocol`` and a ``base`` file it overrides (:mod:`culturelab.paramfiles`). Types, paths and model specs are checked, then the allowed values each
    paper declares (:func:`~culturelab.params.notebook_choice_problems`). Every problem is
    reported at once, one line each, naming the file, the notebook and the key.

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "demo.yaml"
    >>> _ = f.write_text("common: {seed: 3}\\nnotebooks: {00_quickstart: {n_questions: 2}}\\n")
    >>> p = plan(f, ["00_quickstart"]); p.run_name, p.jobs
    ('demo', [('00_quickstart', {'seed': 3, 'n_questions': 2})])
    """
    from culturelab import paramfiles

    path = Path(params_file)
    spec = paramfiles.read(path)  # a `base` file's values merged in
    allowed = {"common", "notebooks", "run_name", "figures_dir", "protocol"}
    problems = [f"{path}: {k}: unknown top-level key (allowed: {', '.join(sorted(allowed))})"
                for k in spec if k not in allowed]
    if spec.get("protocol") not in (None, *PROTOCOL_MODES):
        problems.append(f"{path}: protocol: {spec['protocol']!r} is not one of {', '.join(PROTOCOL_MODES)} "
                        "(or leave it out)")
    common = spec.get("common") or {}
    per_nb = spec.get("notebooks") or {}
    names = all_notebooks()
    defaults = {n: notebook_defaults(notebook_file(n)) for n in names}
    for n in per_nb:
        if n not in defaults:
            problems.append(f"{path}: notebooks.{n}: no such notebook (have: {', '.join(names)})")
    declared = set().union(*defaults.values()) if defaults else set()
    for key in common:
        if key not in declared:
            problems.append(f"{path}: common.{key}: unknown parameter (no notebook declares it)")
    chosen = names
    if selected:
        chosen = [n for n in names if any(fnmatch.fnmatch(n, pat) or n == pat.removesuffix(".ipynb")
                                          or n == pat.removeprefix("notebooks/").removesuffix(".ipynb")
                                          for pat in selected)]
        if not chosen:
            problems.append(f"--notebook {' '.join(selected)}: matches no notebook (have: {', '.join(names)})")
    jobs = []
    full = {}
    for n in chosen:
        values = {k: v for k, v in common.items() if k in defaults[n]}
        extra = per_nb.get(n) or {}
        typed = ([f"{path}: common.{p}" for p in validate(values, defaults[n])]
                 + [f"{path}: notebooks.{n}.{p}" for p in validate(extra, defaults[n])])
        # allowed values (the paper's CHOICES) once every type is right, on the full parameter set
        full[n] = {**defaults[n], **values, **extra}
        problems += typed or [f"{path}: {p}" for p in notebook_choice_problems(n, full[n])]
        jobs.append((n, {**values, **extra}))
    if problems:
        raise ParameterError("\n".join(dict.fromkeys(problems)))
    from culturelab.protocol import check_notebook

    root = config.project_root() or Path.cwd()
    figures = spec.get("figures_dir")
    return RunPlan(path, str(spec.get("run_name") or path.stem), (root / figures) if figures else None, jobs,
                   spec.get("protocol"), {n: check_notebook(n, full[n]) for n in chosen})


def _execute_one(job: tuple[str, str, dict[str, Any], str, str, bool]) -> dict[str, Any]:
    """Execute one notebook with papermill (in a worker process when ``--jobs`` > 1); one summary row."""
    import papermill as pm

    from culturelab import kernels  # jupyter_client: not imported by the notebooks that import this module

    name, path, params, run_name, kernel, log_output = job
    source = Path(path)
    target = config.runs_dir() / run_name / f"{name}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    print(f"▶ {name}  {params}", file=sys.stderr, flush=True)
    status = "ok"
    manager = kernels.kernel_manager_class()
    try:
        # the kernel is stopped at once when the notebook is done: a graceful shutdown spent ~1 s per
        # notebook tearing down torch and pandas in the interpreter; every file and cache row the
        # notebook wrote is already closed or committed (the response cache is SQLite in WAL mode)
        pm.execute_notebook(str(source), str(target), parameters=params, kernel_name=kernel,
                            cwd=str(source.parent), progress_bar=False, log_output=log_output,
                            shutdown_kernel="immediate", **({"kernel_manager_class": manager} if manager else {}))
    except Exception as err:  # a failing notebook is reported and the others go on
        status = (f"failed: {err.ename}: {err.evalue}" if isinstance(err, pm.PapermillExecutionError)
                  else f"failed: {type(err).__name__}: {err}")
    seconds = time.perf_counter() - t0
    print(f"  {name}: {status} in {seconds:.0f} s → {target}", file=sys.stderr, flush=True)
    return {"notebook": name, "status": status, "seconds": round(seconds, 1), "output": str(target)}


def longest_first(names: list[str], previous: Path) -> list[str]:
    """Order notebooks so that the longest chains (by the ``previous`` summary.csv's timings) start
    first: a notebook's weight is its own time plus the longest chain of notebooks that wait for it
    (:func:`depends_on`), so a paper's aggregate is unblocked early. Notebooks never timed keep their
    order, ahead of the timed ones (their cost is unknown).

    >>> longest_first(["a", "b"], Path("/nonexistent/summary.csv"))
    ['a', 'b']
    """
    if not previous.exists():
        return list(names)
    last = pd.read_csv(previous).set_index("notebook")["seconds"].to_dict()
    chain = chain_seconds(names, last)
    return sorted(names, key=lambda n: (n in last, -chain[n]))


def chain_seconds(names: list[str], seconds: dict[str, float]) -> dict[str, float]:
    """Per notebook, its own ``seconds`` (0 when unknown) plus the longest chain of notebooks of
    ``names`` that wait for it (:func:`depends_on`).

    >>> chain_seconds(["p/a", "profile"], {"p/a": 2.0, "profile": 1.0})
    {'p/a': 3.0, 'profile': 1.0}
    """
    waiting_for = {name: [other for other in names if name in depends_on(other, names)] for name in names}

    def chain(name: str) -> float:
        return float(seconds.get(name, 0.0)) + max((chain(other) for other in waiting_for[name]), default=0.0)

    return {name: chain(name) for name in names}


#: the thread-pool sizes a kernel's numeric libraries (torch, BLAS) read at import
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one).

    >>> available_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def threads_per_job(jobs: int, cores: int | None = None) -> int:
    """Threads each of ``jobs`` concurrent notebooks gets so that together they fill, and do not
    oversubscribe, the cores: two 2-thread kernels on 2 cores did 30–45 % less work than two
    1-thread ones (benchmarks/README.md, "Parallel notebooks").

    >>> threads_per_job(2, cores=2), threads_per_job(3, cores=16), threads_per_job(4, cores=2)
    (1, 5, 1)
    """
    return max(1, (cores or available_cores()) // max(1, jobs))


def _limit_threads(threads: int) -> None:
    """Worker initialiser: kernels started from here use ``threads`` threads, unless the user
    already chose a size through one of :data:`THREAD_VARIABLES`."""
    if not any(var in os.environ for var in THREAD_VARIABLES):
        for var in THREAD_VARIABLES:
            os.environ[var] = str(threads)


def _execute_all(work: list[tuple], jobs: int) -> list[dict[str, Any]]:
    """Run ``work`` (arguments of :func:`_execute_one`, in priority order) in up to ``jobs`` worker
    processes, the cores shared between them (:func:`threads_per_job`); a notebook starts once the
    ones it depends on (:func:`depends_on`) have finished, ok or not, and a worker is free."""
    names = [job[0] for job in work]
    waits = {name: depends_on(name, names) for name in names}
    pending, done, rows = list(work), set(), []

    def ready() -> list[tuple]:
        startable = [job for job in pending if waits[job[0]] <= done]
        if pending and not startable and len(done) + len(pending) == len(work):  # nothing runs, nothing can start
            raise RuntimeError(f"notebooks wait for each other: {sorted(job[0] for job in pending)}")
        return startable

    if jobs <= 1 or len(work) <= 1:
        while pending:
            job = ready()[0]
            pending.remove(job)
            rows.append(_execute_one(job))
            done.add(job[0])
        return rows
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    workers = min(jobs, len(work))
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_limit_threads, initargs=(threads_per_job(workers),)) as pool:
        running: dict[Any, str] = {}
        while pending or running:
            for job in ready()[: workers - len(running)]:
                pending.remove(job)
                try:
                    running[pool.submit(_execute_one, job)] = job[0]
                except BrokenProcessPool as err:  # an earlier worker died and took the pool with it
                    rows.append({"notebook": job[0], "status": f"failed: not run: {err}", "seconds": float("nan"),
                                 "output": ""})
                    done.add(job[0])
            if not running:
                continue
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                name = running.pop(future)
                try:
                    rows.append(future.result())
                except Exception as err:  # the worker process died (killed for memory …): the row says so
                    rows.append({"notebook": name, "status": f"failed: its worker died: {type(err).__name__}: {err}",
                                 "seconds": float("nan"), "output": ""})
                done.add(name)
    return rows


#: where ``execute`` runs notebooks: worker processes here, or Ray tasks (:mod:`culturelab.distributed.executor`)
EXECUTORS = ("local", "ray")


def execute(run_plan: RunPlan, *, kernel: str = "python3", log_output: bool = False,
            jobs: int = 1, allow_deviation: bool = False, executor: str = "local",
            address: str | None = None) -> pd.DataFrame:
    """Execute a validated plan with papermill; returns one row per notebook with timings.

    With ``jobs`` > 1 the notebooks run in that many worker processes, the longest ones (by the
    previous run's timings) first; the summary keeps the plan's order, and a failing notebook is
    reported in its row while the others finish. A notebook waits only for those it depends on
    (:func:`depends_on`): a paper's aggregate, which re-sends the paper's requests, starts once its
    paper's notebooks have cached them, while other papers' notebooks go on; the profile starts
    after every notebook it reads.

    ``executor="ray"`` runs each notebook as a Ray task instead, on the cluster at ``address`` or
    on a local one of ``jobs`` CPUs (:mod:`culturelab.distributed.executor`); the summary then says
    which ``node`` ran each notebook.

    A ``protocol: paper`` plan that differs from its papers' protocols raises
    :class:`DeviationError` before any notebook starts, unless ``allow_deviation``; then every
    results table the run writes says so (``run_protocol``).
    """
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {EXECUTORS}, not {executor!r}")
    refusals = run_plan.refusals()
    if refusals and not allow_deviation:
        raise DeviationError(run_plan.params_file, refusals)
    if refusals:
        os.environ[ALLOW_DEVIATION_ENV] = (f"{sum(map(len, refusals.values()))} deviations in {len(refusals)} "
                                           "notebooks; see run_info.json")
    os.environ["CULTURELAB_RUN_NAME"] = run_plan.run_name
    if run_plan.figures_dir is not None:
        os.environ["CULTURELAB_FIGURES"] = str(run_plan.figures_dir)
    out = config.runs_dir() / run_plan.run_name / "summary.csv"
    params_of = dict(run_plan.jobs)
    order = [name for name, _ in run_plan.jobs]
    work = [(name, str(notebook_file(name)), params_of[name], run_plan.run_name, kernel, log_output)
            for name in longest_first(order, out)]
    columns = ["notebook", "status", "seconds", "output"]
    if executor == "ray":
        from culturelab.distributed.executor import COLUMNS, execute_on_ray

        waits = {name: depends_on(name, order) for name in order}
        rows, columns = execute_on_ray(work, waits, _execute_one, address=address, num_cpus=jobs), COLUMNS
    else:
        rows = _execute_all(work, jobs)
    by_name = {row["notebook"]: row for row in rows}
    summary = pd.DataFrame([by_name[name] for name in order], columns=columns)
    out.parent.mkdir(parents=True, exist_ok=True)
    summary.to_csv(out, index=False)
    return summary
