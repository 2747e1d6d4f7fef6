"""``culturelab`` command line: run notebooks with a parameter file, or reproduce everything.

    culturelab run papermill_params/smoke.yaml                       # every notebook
    culturelab run papermill_params/gpu/qwen7b.yaml --notebook 'captex/*'
    culturelab run papermill_params/paper.yaml --executor ray --address auto   # on a Ray cluster
    culturelab check papermill_params/x.yaml                         # validate only
    culturelab reproduce                                             # default.yaml, all notebooks
    culturelab list
    culturelab evaluate --model bundled:gemma3-270m --model bundled:smollm2-135m --size smoke
    culturelab export lm-eval DIR                                    # MC tasks as lm-eval task YAML + JSONL
"""

from __future__ import annotations

import argparse
import sys

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
    pl.add_argument("--json", action="store_true", help="print JSON records")
    pl.add_argument("--csv", action="store_true", help="print CSV")
    _jobs_option(pl)
    _executor_options(pl, planning=True)
    rep = sub.add_parser("reproduce", help="execute every notebook with papermill_params/default.yaml")
    rep.add_argument("--params", default=None, help="another parameter file")
    _jobs_option(rep)
    _executor_options(rep)
    sub.add_parser("list", help="list the notebooks")
    from culturelab.profile.cli import add_parsers, dispatch

    _jobs_option(add_parsers(sub))
    args = parser.parse_args(argv)
    if args.command in {"evaluate", "export"}:
        return dispatch(args)

    if args.command == "list":
        print("\n".join(all_notebooks()))
        return 0
    if args.command == "reproduce":
        root = config.project_root()
        args.params = args.params or str(root / "papermill_params" / "default.yaml")
        args.notebook = None
    try:
        run_plan = plan(args.params, args.notebook)
    except (ParameterError, FileNotFoundError) as err:
        print(f"culturelab: invalid parameters\n{err}", file=sys.stderr)
        return 2
    if args.command == "check":
        for name, params in run_plan.jobs:
            print(f"{name}: {params}")
            deviations = run_plan.deviations.get(name)
            lines = deviations.lines() if deviations is not None else []
            used = deviations.data_used if deviations is not None else None
            if used is not None and used.source == "released":  # other sources are named by the data line
                print("  data: the paper's release" + (f" ({used.note})" if used.note else ""))
            for line in lines or (["same data and protocol as the paper"] if deviations is not None else []):
                print(f"  {line}")
        refusals = run_plan.refusals()
        if refusals:
            print(f"# {run_plan.params_file} says protocol: paper: `culturelab run` refuses it while "
                  f"{len(refusals)} notebook(s) differ (or pass --allow-deviation)")
        return 0
    if args.command == "plan":
        import tempfile
        from pathlib import Path

        import pandas as pd

        from culturelab.planning import plan_requests

        with tempfile.TemporaryDirectory(prefix="culturelab-plan-") as tmp:
            table = plan_requests(run_plan, model=args.model, jobs=args.jobs, work_dir=Path(tmp),
                                  params=args.n_params)
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
    return 0 if (summary["status"] == "ok").all() else 1


if __name__ == "__main__":
    sys.exit(main())
