"""Export culturelab's multiple-choice tasks as lm-evaluation-harness tasks (YAML + JSONL).

Each task is one ``<task>.jsonl`` (one document per item: ``id``, ``text`` — the context culturelab
scores the options after —, ``choices`` — the continuations it scores, without the leading space
lm-eval's ``target_delimiter`` adds, as culturelab does —, ``label``, and ``language``/``culture``/
``category``) and one ``<task>.yaml`` (``output_type: multiple_choice``; lm-eval's ``acc`` is
culturelab's ``sum`` normalisation, the same requests).

>>> import tempfile
>>> items = pd.DataFrame({"id": ["a"], "text": ["Q? Answer:"], "choices": [["x", "y"]], "label": [1]})
>>> paths = write_task(items, "demo", Path(tempfile.mkdtemp()))
>>> [p.suffix for p in paths], yaml.safe_load(paths[1].read_text())["output_type"]
(['.jsonl', '.yaml'], 'multiple_choice')
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import yaml

from culturelab import prompts
from culturelab.tasks.mcq import LETTERS

#: the fields of every exported document
FIELDS = ["id", "text", "choices", "label", "language", "culture", "category"]


def turkish_plu_items(task: str, data_dir: str = "", data_source: str = "auto") -> pd.DataFrame:
    """A Turkish PLU multiple-choice test set (``gi``, ``si``, ``nep``, ``so``) with the prompts and
    option continuations of :func:`culturelab.turkish_plu.mc.llm_predictions`."""
    from culturelab.turkish_plu import data, mc

    items = mc.add_prompts(data.Release(data_dir, data_source).mc(task, "test"))
    return pd.DataFrame({"id": items["id"].astype(str), "text": items["prompt"],
                         "choices": [[str(o).strip() for o in opts] for opts in items["llm_options"]],
                         "label": items["label"].astype(int), "language": "tr", "culture": "Turkey",
                         "category": items.get("category")})


def captex_items(data_dir: str = "", data_source: str = "auto", version: str = "v1") -> pd.DataFrame:
    """CAPTEx PB-MCQs as ``captex/03_mcq`` asks them with ``loglikelihood`` (letters after the
    rendered question)."""
    from culturelab.captex import questions, setup

    frame = questions.pb_mcq_frame(setup.load_data(data_dir, data_source).mcqs, prompts.get("captex", "pb_mcq", version))
    return pd.DataFrame({"id": frame["procedure_id"].astype(str) + "/" + frame["row"].astype(str),
                         "text": frame["prompt"], "choices": [list(LETTERS[:len(o)]) for o in frame["options"]],
                         "label": frame["answer"].astype(int), "language": frame["language"],
                         "culture": frame["country"], "category": frame["category"]})


def percul_items(data_dir: str = "", data_source: str = "auto", version: str = "v1") -> pd.DataFrame:
    """PERCUL stories (original Persian) as ``percul/02_models_and_categories`` scores them with
    ``loglik_target="text"``: the question and answer cue, then each option's text."""
    from culturelab.percul import data, pipeline
    from culturelab.percul.scoring import loglik_context

    items = pipeline.stories(data.load("original_persian", data_source=data_source, data_dir=data_dir),
                             prompt_version=version)
    return pd.DataFrame({"id": items["id"].astype(str),
                         "text": [loglik_context(q, s, version) for q, s in zip(items["question"], items["split"])],
                         "choices": [[str(o).strip() for o in opts] for opts in items["options"]],
                         "label": items["answer"].astype(int), "language": "fa", "culture": "Iran",
                         "category": items["category"]})


def write_task(items: pd.DataFrame, name: str, out_dir: Path) -> list[Path]:
    """Write ``<out_dir>/<name>.jsonl`` and ``<name>.yaml`` (task ``culturelab_<name>``); returns both
    paths. Raises ``ValueError`` naming the row whose label is not an index of its choices."""
    out_dir.mkdir(parents=True, exist_ok=True)
    items = items.reindex(columns=FIELDS)
    for i, (label, choices) in enumerate(zip(items["label"], items["choices"])):
        if not 0 <= int(label) < len(choices):
            raise ValueError(f"{name}: row {i} (id {items['id'].iloc[i]}): label {label} is not an index of "
                             f"its {len(choices)} choices")
    data = out_dir / f"{name}.jsonl"
    with data.open("w", encoding="utf-8") as fh:
        for rec in items.to_dict("records"):
            rec = {k: (None if not isinstance(v, list) and pd.isna(v) else v) for k, v in rec.items()}
            rec["label"] = int(rec["label"])
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    spec = {"task": f"culturelab_{name}", "dataset_path": "json",
            "dataset_kwargs": {"data_files": {"test": str(data.resolve())}}, "test_split": "test",
            "output_type": "multiple_choice", "doc_to_text": "{{text}}", "doc_to_choice": "{{choices}}",
            "doc_to_target": "label", "target_delimiter": " ",
            "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
            "metadata": {"version": 1.0, "source": "culturelab"}}
    task_yaml = out_dir / f"{name}.yaml"
    task_yaml.write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return [data, task_yaml]


#: exported task name → item builder (data_dir, data_source)
TASKS: dict[str, Callable[[str, str], pd.DataFrame]] = {
    **{f"turkish_plu_{t}": (lambda d, s, t=t: turkish_plu_items(t, d, s)) for t in ("gi", "si", "nep", "so")},
    "captex_pb_mcq": captex_items,
    "percul_stories": percul_items,
}


def export_lm_eval(out_dir: str | Path, *, data_dir: str = "", data_source: str = "auto",
                   tasks: list[str] | None = None) -> pd.DataFrame:
    """Write every task of :data:`TASKS` (or ``tasks``) under ``out_dir``; one row per task with
    its item count, or the reason it was skipped (no copy of its data for ``data_source``)."""
    rows = []
    for name in tasks or list(TASKS):
        if name not in TASKS:
            raise KeyError(f"{name}: no such export task (have: {', '.join(TASKS)})")
        try:
            items = TASKS[name](data_dir, data_source)
        except (FileNotFoundError, ValueError) as err:  # no copy of this data for data_source
            rows.append({"task": name, "n": 0, "status": f"skipped: {err}"})
            continue
        write_task(items, name, Path(out_dir))
        rows.append({"task": name, "n": len(items), "status": "ok"})
    return pd.DataFrame(rows)
