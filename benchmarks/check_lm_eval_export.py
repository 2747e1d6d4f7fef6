"""Cross-check ``culturelab export lm-eval`` against lm-evaluation-harness (issue 16, part 4).

Exports the first ``--n`` items of each task, runs lm-eval's ``hf`` model on the exported YAML task
(in ``--python``, a venv with lm-eval) and culturelab's scorer on the same items, both with the
bundled SmolLM2-135M folder (float32, CPU), and prints per task: the items whose chosen option is
the same, both accuracies and the largest |Δ log-likelihood| (see
:mod:`culturelab.profile.lm_eval_check`).

    CULTURELAB_DATA=../shared/data .venv/bin/python benchmarks/check_lm_eval_export.py \\
        --python /tmp/lmeval-venv/bin/python --tasks turkish_plu_so,percul_stories --n 20
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from culturelab.profile import lm_eval_check


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=lm_eval_check.lm_eval_python(),
                        help=f"python of a venv with lm-eval (default: ${lm_eval_check.ENV}, else this one)")
    parser.add_argument("--tasks", default="turkish_plu_so,percul_stories")
    parser.add_argument("--n", type=int, default=20, help="items per task (the first n exported)")
    parser.add_argument("--data-source", default="auto")
    parser.add_argument("--json", default="", help="also write the rows to this JSON file")
    args = parser.parse_args()
    if not args.python:
        parser.error(f"no lm-eval: pass --python or set ${lm_eval_check.ENV}")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        rows = lm_eval_check.cross_check(args.tasks.split(","), Path(work), python=args.python, n=args.n,
                                         data_source=args.data_source)
    print(pd.DataFrame(rows).to_string(index=False))
    print(f"{time.perf_counter() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0 if all(r["same_choices"] == r["n"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
