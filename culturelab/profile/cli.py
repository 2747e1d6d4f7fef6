"""The ``evaluate`` and ``export`` subcommands of ``culturelab`` (wired in :mod:`culturelab.cli`).

>>> import argparse
>>> parser = argparse.ArgumentParser(); evaluate_parser = add_parsers(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["evaluate", "--model", "bundled:a", "--model", "bundled:b", "--benchmarks", "captex"])
>>> args.model, args.benchmarks, args.size
(['bundled:a', 'bundled:b'], 'captex', 'smoke')
"""

from __future__ import annotations

import argparse


def add_parsers(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``evaluate`` and ``export`` to the ``culturelab`` subcommands; returns the ``evaluate``
    parser (the caller adds the shared ``--jobs`` option)."""
    ev = sub.add_parser("evaluate", help="cultural profile of one or more models across the benchmarks")
    ev.add_argument("--model", "-m", action="append", required=True, help="model spec (repeatable)")
    ev.add_argument("--benchmarks", default="", help="comma-separated (default: every benchmark with an adapter)")
    ev.add_argument("--size", default="smoke", choices=["smoke", "default", "paper"])
    ex = sub.add_parser("export", help="export the multiple-choice tasks for another harness")
    ex.add_argument("format", choices=["lm-eval"])
    ex.add_argument("out_dir", help="folder for the task YAML + JSONL files")
    ex.add_argument("--data-dir", default="", help="data folder (default: $CULTURELAB_DATA)")
    ex.add_argument("--data-source", default="auto", help="auto, local, download or sample")
    return ev


def dispatch(args: argparse.Namespace) -> int:
    """Run ``evaluate`` or ``export``; return the exit status."""
    if args.command == "evaluate":
        from culturelab.profile.evaluate import evaluate

        return evaluate(args.model, [b for b in args.benchmarks.split(",") if b], args.size,
                        jobs=getattr(args, "jobs", 1))
    from culturelab.profile.export import export_lm_eval

    summary = export_lm_eval(args.out_dir, data_dir=args.data_dir, data_source=args.data_source)
    print(summary.to_string(index=False))
    return 0 if (summary["status"] == "ok").any() else 1
