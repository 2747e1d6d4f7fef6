"""``culturelab`` command line: run notebooks with a parameter file, or reproduce everything.

    culturelab run papermill_params/smoke.yaml                       # every notebook
    culturelab check papermill_params/gpu/qwen7b.yaml                # what the run would hit, in seconds
    culturelab plan papermill_params/gpu/qwen7b.yaml                 # requests, tokens, estimated time
    culturelab run papermill_params/gpu/qwen7b.yaml --notebook 'captex/*'   # the papers' sizes, a 7B model, one GPU
    culturelab run papermill_params/paper.yaml --executor ray --address auto   # on a Ray cluster
    culturelab reproduce                                             # default.yaml, all notebooks -> figures/
    culturelab figures runs/smoke --style paper --width column       # a run's figures again, from their data
    culturelab list
    culturelab evaluate --model bundled:gemma3-270m --model bundled:smollm2-135m --size smoke
    culturelab export lm-eval DIR                                    # MC tasks as lm-eval task YAML + JSONL
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from culturelab import config
from culturelab.params import ParameterError
from culturelab.runner import EXECUTORS, all_notebooks, available_cores, execute, plan


def _jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", "-j", type=int, default=available_cores(),
                        help="notebooks run in parallel (default: the cores this process may use)")


def _executor_options(parser: argparse.ArgumentParser, *, planning: bool = False) -> None:
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="where notebooks run: worker processes here (local), or Ray tasks on a cluster (ray; "
                             "pip install -e '.[ray]'; see docs/cluster.md)")
    if planning:
        parser.add_argument("--workers", type=int, default=None,
                            help="with --executor ray: the wall time on this many Ray workers (default: --jobs)")
    else:
        parser.add_argument("--address", default=None,
                            help="with --executor ray: the cluster to run on ('auto': the one `ray start` began "
                                 "here; default $RAY_ADDRESS, else a local cluster of --jobs CPUs for this run)")


def main(argv: list[str] | None = None) -> int:
    """Run the ``culturelab`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit status.

    >>> main(["list"])
    00_quickstart
    ...
    0
    """
    parser = argparse.ArgumentParser(prog="culturelab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, helptext in (("run", "execute notebooks with a parameter file"),
                           ("check", "validate a parameter file against the notebooks, run nothing")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("params", help="YAML parameter file, e.g. papermill_params/default.yaml")
        p.add_argument("--notebook", "-n", action="append", help="notebook name or glob (repeatable)")
        if name == "run":
            _jobs_option(p)
            _executor_options(p)
        else:
            p.add_argument("--verbose", "-v", action="store_true",
                           help="print every parameter, setting, label and lookup (default: one line per notebook)")
        p.add_argument("--allow-deviation", action="store_true",
                       help="run a 'protocol: paper' file even where it differs from the papers' protocols "
                            "(every output says so)")
    pl = sub.add_parser("plan", help="count model requests and tokens, estimate wall time; loads no weights "
                        "beyond a short calibration")
    pl.add_argument("params", help="YAML parameter file, e.g. papermill_params/paper.yaml")
    pl.add_argument("--notebook", "-n", action="append", help="notebook name or glob (repeatable)")
    pl.add_argument("--model", default=None, help="model spec to plan for (default: the file's)")
    pl.add_argument("--params", dest="n_params", type=float, default=None,
                    help="parameter count of a model with no local weights or config (e.g. 7e9); its rates are "
                         "the bundled model's measured here, scaled by the parameter ratio")
    pl.add_argument("--recalibrate", action="store_true",
                    help="time the models again (default: reuse this machine's earlier calibration of the same model)")
    pl.add_argument("--json", action="store_true", help="print JSON records")
    pl.add_argument("--csv", action="store_true", help="print CSV")
    _jobs_option(pl)
    _executor_options(pl, planning=True)
    rep = sub.add_parser("reproduce", help="execute every notebook with papermill_params/default.yaml")
    rep.add_argument("--params", default=None, help="another parameter file")
    _jobs_option(rep)
    _executor_options(rep)
    fg = sub.add_parser("figures", help="draw every figure of a run again from its saved data (no model loaded)")
    fg.add_argument("run_dir", help="a run's folder, e.g. runs/default")
    fg.add_argument("--style", choices=("paper", "notebook"), default="paper",
                    help="paper: sized for a paper, captions in <name>.caption.md; notebook: the notebooks' look")
    fg.add_argument("--width", choices=("column", "text"), default=None,
                    help="paper style: every figure at a 3.3-in column or a 6.9-in text width (default: each "
                         "figure's own)")
    fg.add_argument("--out", default=None, help="where the figures go (default: RUN_DIR/figures-<style>)")
    fg.add_argument("--clean", action="store_true", help="remove earlier renderings (PDF, PNG, captions) there first")
    sub.add_parser("list", help="list the notebooks")
    from culturelab.profile.cli import add_parsers, dispatch

    _jobs_option(add_parsers(sub))
    args = parser.parse_args(argv)
    if args.command in {"evaluate", "export"}:
        return dispatch(args)

    if args.command == "list":
        print("\n".join(all_notebooks()))
        return 0
    if args.command == "figures":
        return _figures(args.run_dir, style=args.style, width=args.width, out=args.out, replace=args.clean)
    if args.command == "reproduce":
        root = config.project_root()
        args.params = args.params or str(root / "papermill_params" / "default.yaml")
        args.notebook = None
    try:
        run_plan = plan(args.params, args.notebook)
    except (ParameterError, FileNotFoundError) as err:
        print(f"culturelab: invalid parameters\n{err}", file=sys.stderr)
        return 2
    if args.command in {"check", "run", "reproduce"}:  # models and data looked up before any notebook starts
        from culturelab.preflight import preflight, report

        found = preflight(run_plan)
        if args.command == "check":
            lines, refused = report(run_plan, found, verbose=args.verbose, allow_deviation=args.allow_deviation)
            print("\n".join(lines))
            return 3 if refused else 0
        blocked = [f"{name}: {problem}" for name, f in found.items() for problem in f.problems]
        if blocked:
            print("culturelab: refused before any notebook started\n" + "\n".join(blocked), file=sys.stderr)
            return 3
    if args.command == "plan":
        import signal
        import tempfile

        import pandas as pd

        from culturelab.planning import plan_requests

        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a killed plan still removes its folder
        with tempfile.TemporaryDirectory(prefix="culturelab-plan-") as tmp:
            table = plan_requests(run_plan, model=args.model, jobs=args.jobs, work_dir=Path(tmp),
                                  params=args.n_params, recalibrate=args.recalibrate)
        print(table.to_json(orient="records") if args.json else table.to_csv(index=False) if args.csv
              else table.to_string(index=False))
        lines = [*table.attrs["basis"], *(f"not timed: {u}" for u in table.attrs["unpriced"])]
        timed = table[table["notebook"] != "TOTAL"]
        if args.executor == "ray" and pd.api.types.is_numeric_dtype(timed["est_seconds"]):
            from culturelab.distributed.schedule import wall_line

            lines.append(wall_line(dict(zip(timed["notebook"], timed["est_seconds"])), args.workers or args.jobs))
        for line in lines:
            print(f"# {line}", file=sys.stderr if args.json or args.csv else sys.stdout)
        return 0
    from culturelab.distributed import RayMissing
    from culturelab.runner import DeviationError

    try:
        summary = execute(run_plan, jobs=args.jobs, allow_deviation=getattr(args, "allow_deviation", False),
                          executor=args.executor, address=args.address)
    except DeviationError as err:
        print(f"culturelab: refused\n{err}", file=sys.stderr)
        return 3
    except RayMissing as err:
        print(f"culturelab: {err}", file=sys.stderr)
        return 2
    print(summary.to_string(index=False))
    status = 0 if (summary["status"] == "ok").all() else 1
    if args.command == "reproduce":
        status = max(status, _figures(config.runs_dir() / run_plan.run_name, style="paper", width=None,
                                      out=config.committed_figures_dir(), replace=True))
    return status


def _figures(run_dir: str | Path, *, style: str, width: str | None, out: str | Path | None,
             replace: bool = False) -> int:
    """``culturelab figures``: render a run's figures again; one line per figure the audit finds
    fault with; 0 when every figure was drawn, 1 when none was found. ``replace``: clear ``out`` of
    earlier renderings first (``reproduce``: ``figures/`` is what the default run draws, nothing else)."""
    import time

    from culturelab.plots.recipe import RecipeError
    from culturelab.plots.render import clear_renderings, render_run

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        print(f"culturelab figures: {run_dir}: no such run folder", file=sys.stderr)
        return 2
    target = Path(out) if out is not None else run_dir / f"figures-{style}"
    if replace:
        clear_renderings(target)
    t0 = time.perf_counter()
    try:
        rendered = render_run(run_dir, style=style, width=width, out=target)
    except RecipeError as err:
        print(f"culturelab figures: {err}", file=sys.stderr)
        return 2
    if not rendered:
        print(f"culturelab figures: {run_dir} holds no saved figure (run its notebooks first)", file=sys.stderr)
        return 1
    for one in rendered:
        for problem in one.problems:
            print(f"  {one.name}: {problem}")
    faulty = sum(bool(one.problems) for one in rendered)
    print(f"{len(rendered)} figures ({style} style) → {target} in {time.perf_counter() - t0:.0f} s"
          + (f"; the audit finds fault with {faulty}" if faulty else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
