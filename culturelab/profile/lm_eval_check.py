"""Cross-check of ``culturelab export lm-eval``: lm-evaluation-harness on an exported task and
culturelab's own scorer on the same items must make the same choices (hence the same accuracy).

lm-eval usually lives in another virtual environment, so it runs in a subprocess of the interpreter
:func:`lm_eval_python` finds (``$CULTURELAB_LM_EVAL_PYTHON``, else this one when it has ``lm_eval``):
``python -m culturelab.profile.lm_eval_check --lm-eval-side …`` with this project on its
``PYTHONPATH``; that side imports nothing of culturelab but this module (standard library only at
import time). Both sides load the same 🤗 folder (a bundled model, float32, CPU) and score the same
requests: lm-eval's ``acc`` is the argmax of the summed log-likelihoods of ``" " + choice`` after
``text``, culturelab's is the benchmark's scorer with ``normalise="sum"``:

* Turkish PLU — :func:`culturelab.turkish_plu.mc.llm_predictions` on the released test items;
* PERCUL — :func:`culturelab.percul.scoring.run_loglikelihood` (option texts) on the stories;
* CAPTEx — :func:`culturelab.tasks.mcq.score_loglikelihood` on the exported questions (letters).

>>> compare({"a": [-1.0, -2.0], "b": [-3.0, -1.0]}, {"a": [-1.0, -2.1], "b": [-1.0, -3.0]}, {"a": 0, "b": 1})
{'n': 2, 'same_choices': 1, 'acc_lm_eval': 1.0, 'acc_culturelab': 0.5, 'max_abs_dloglik': 2.0}
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: the environment variable naming a python interpreter that has lm-eval installed
ENV = "CULTURELAB_LM_EVAL_PYTHON"


def lm_eval_python() -> str | None:
    """The interpreter to run lm-eval with: ``$CULTURELAB_LM_EVAL_PYTHON``, else this interpreter
    when it can import ``lm_eval``, else ``None``."""
    if os.environ.get(ENV):
        return os.environ[ENV]
    return sys.executable if importlib.util.find_spec("lm_eval") is not None else None


def _argmax(values: list[float]) -> int:
    return max(range(len(values)), key=values.__getitem__)


def compare(theirs: dict[str, list[float]], ours: dict[str, list[float]], labels: dict[str, int]) -> dict[str, Any]:
    """Per-item choices of both sides (option log-likelihoods keyed by item id) → agreement, both
    accuracies and the largest log-likelihood difference. Raises ``KeyError`` naming ids only one
    side scored."""
    if set(theirs) != set(ours):
        raise KeyError(f"items scored by one side only: {sorted(set(theirs) ^ set(ours))[:5]}")
    same = sum(_argmax(theirs[i]) == _argmax(ours[i]) for i in ours)
    diff = max((abs(a - b) for i in ours for a, b in zip(theirs[i], ours[i])), default=0.0)
    return {"n": len(ours), "same_choices": same,
            "acc_lm_eval": sum(_argmax(theirs[i]) == labels[i] for i in ours) / max(len(ours), 1),
            "acc_culturelab": sum(_argmax(ours[i]) == labels[i] for i in ours) / max(len(ours), 1),
            "max_abs_dloglik": round(diff, 6)}


def lm_eval_side(task_dir: str, task: str, model_dir: str, out_file: str, batch_size: int = 4) -> None:
    """Run lm-eval's ``hf`` model on the exported task ``culturelab_<task>`` in ``task_dir`` and write
    ``{"acc": …, "logliks": {id: [per choice]}}`` to ``out_file`` (runs in lm-eval's interpreter)."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    name = f"culturelab_{task}"
    res = simple_evaluate(model="hf", model_args=f"pretrained={model_dir},dtype=float32", tasks=[name],
                          task_manager=TaskManager(include_path=task_dir), device="cpu", batch_size=batch_size,
                          log_samples=True)
    logliks = {str(s["doc"]["id"]): [float(r[0] if isinstance(r, (list, tuple)) else r) for r in s["filtered_resps"]]
               for s in res["samples"][name]}
    Path(out_file).write_text(json.dumps({"acc": res["results"][name]["acc,none"], "logliks": logliks}),
                              encoding="utf-8")


def run_lm_eval(python: str, task_dir: Path, task: str, model_dir: Path, *, batch_size: int = 4) -> dict[str, Any]:
    """:func:`lm_eval_side` in ``python`` (a subprocess); returns what it wrote. Raises
    ``RuntimeError`` with the end of its output when it fails."""
    out = task_dir / f"{task}.lm_eval.json"
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    proc = subprocess.run([python, "-m", "culturelab.profile.lm_eval_check", "--lm-eval-side", str(task_dir), task,
                           str(model_dir), str(out), str(batch_size)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"lm-eval ({python}) failed on {task}: {(proc.stdout + proc.stderr)[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def _turkish_plu(task: str) -> Callable[..., dict[str, list[float]]]:
    def score(model: Any, ids: list[str], data_dir: str, data_source: str) -> dict[str, list[float]]:
        from culturelab.turkish_plu import data, mc

        frame = data.Release(data_dir, data_source).mc(task, "test")
        frame = frame[frame["id"].astype(str).isin(ids)]
        out = mc.llm_predictions(model, frame, normalise=["sum"])
        return dict(zip(out["id"].astype(str), out["scores"]))

    return score


def _percul(model: Any, ids: list[str], data_dir: str, data_source: str) -> dict[str, list[float]]:
    from culturelab.percul import data, pipeline, scoring

    items = pipeline.stories(data.load("original_persian", data_source=data_source, data_dir=data_dir))
    items = items[items["id"].astype(str).isin(ids)]
    out = scoring.run_loglikelihood(model, items, target="text", normalise="sum")
    return dict(zip(out["id"].astype(str), out["scores"]))


def _captex(model: Any, ids: list[str], data_dir: str, data_source: str) -> dict[str, list[float]]:
    from culturelab.profile.export import captex_items
    from culturelab.tasks.mcq import score_loglikelihood

    items = captex_items(data_dir, data_source)
    items = items[items["id"].isin(ids)]
    out = score_loglikelihood(model, items.assign(options=items["choices"]), target="letter", prompt_col="text",
                              answer_col="label")
    return dict(zip(out["id"], out["scores"]))


#: exported task → culturelab's scorer of its items (model, ids, data_dir, data_source) → {id: log-likelihoods}
SCORERS: dict[str, Callable[..., dict[str, list[float]]]] = {
    **{f"turkish_plu_{t}": _turkish_plu(t) for t in ("gi", "si", "nep", "so")},
    "percul_stories": _percul,
    "captex_pb_mcq": _captex,
}


def cross_check(tasks: list[str], work_dir: Path, *, python: str, n: int = 20, model: str = "smollm2-135m",
                data_dir: str = "", data_source: str = "auto", batch_size: int = 4) -> list[dict[str, Any]]:
    """Export the first ``n`` items of each task to ``work_dir``, score them with lm-eval (in
    ``python``) and with culturelab (the same bundled model folder, float32, CPU, no response cache);
    one :func:`compare` row per task, with lm-eval's own reported accuracy (``acc_lm_eval_reported``)."""
    from culturelab.models import load_model
    from culturelab.models.bundled import bundled_model_dir
    from culturelab.profile.export import TASKS, write_task

    unknown = [t for t in tasks if t not in SCORERS]
    if unknown:
        raise KeyError(f"no cross-check scorer for {unknown} (have: {', '.join(SCORERS)})")
    model_dir = bundled_model_dir(model)
    lm = load_model(f"bundled:{model}", device="cpu", cache=False)
    rows = []
    for task in tasks:
        items = TASKS[task](data_dir, data_source).head(n)
        write_task(items, task, work_dir)
        theirs = run_lm_eval(python, work_dir, task, model_dir, batch_size=batch_size)
        ours = SCORERS[task](lm, items["id"].astype(str).tolist(), data_dir, data_source)
        labels = dict(zip(items["id"].astype(str), items["label"].astype(int)))
        rows.append({"task": task, "model": f"bundled:{model}", **compare(theirs["logliks"], ours, labels),
                     "acc_lm_eval_reported": theirs["acc"]})
    return rows


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "--lm-eval-side":
    lm_eval_side(*sys.argv[2:6], batch_size=int(sys.argv[6]))
