"""What ``notebooks/profile.ipynb`` calls: open its run, load the tidy results.

>>> import tempfile
>>> f = Path(tempfile.mkdtemp()) / "r.csv"
>>> pd.DataFrame({"model": ["m"], "benchmark": ["b"], "task": ["t"], "instance": [1], "score": [1.0],
...               "binary": [True], "chance": [0.5], "valid": [True], "data": ["same"],
...               "protocol": ["same"]}).to_csv(f, index=False)
>>> load_results(str(f), run_dir=Path("/nowhere"), model="m")[["model", "instance", "culture"]].to_dict("records")
[{'model': 'm', 'instance': '1', 'culture': nan}]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from culturelab.profile.adapters import TIDY, collect


def open_run(namespace: dict[str, Any]) -> Any:
    """``start_run("profile", namespace)`` (figures under ``<the run's figures>/profile``)."""
    from culturelab.runner import start_run

    return start_run("profile", namespace)


def load_results(results: str, *, run_dir: Path, model: str) -> pd.DataFrame:
    """The tidy table: the file ``results`` (written by ``culturelab evaluate``), or when empty the
    paper notebooks' results of ``model`` in ``run_dir`` (the run this notebook belongs to).
    Raises ``KeyError`` naming the file and the missing columns, ``FileNotFoundError`` when the
    run holds no results of ``model``."""
    if not results:
        table = collect(run_dir, model)
        if table.empty:
            raise FileNotFoundError(f"{run_dir}: no per-instance results of {model} from the paper notebooks; "
                                    "run `culturelab evaluate` (or those notebooks) first")
        return table
    table = pd.read_csv(results, dtype={"instance": str})
    missing = [c for c in TIDY if c not in table.columns and c not in {"language", "culture", "category",
                                                                        "data_source"}]
    if missing:
        raise KeyError(f"{results}: not a profile results file, lacks columns {missing}")
    table = table.reindex(columns=TIDY)
    table["valid"] = table["valid"].astype(bool)
    table["binary"] = table["binary"].astype(bool)
    return table
