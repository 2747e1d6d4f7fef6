"""The interpretation a notebook renders reads the run's numbers, so it stays true for any model: run with an
oracle — a ``replay:`` file of the gold answers, every generated answer in the prompt's format and every
log-likelihood favouring the gold option — 00_quickstart and PERCUL 1 say the model is above chance with every
answer valid; run with the bundled model they do not say so."""

from __future__ import annotations

import json
import re

import pytest

from culturelab import config, prompts
from culturelab.runner import execute, plan

NOTEBOOKS = {"00_quickstart": {"n_questions": 4},
             "percul/01_benchmark": {"data_source": "sample", "max_instances": 4, "max_new_tokens": 24}}


def _scored(context: str, continuations: list[str], gold: int) -> list[dict]:
    return [{"context": context, "continuation": c, "logprob": 0.0 if i == gold else -20.0, "n_tokens": 1,
             "is_greedy": i == gold} for i, c in enumerate(continuations)]


def oracle_rows() -> list[dict]:
    """The gold answers of the two notebooks' questions, built by the functions the notebooks call."""
    from culturelab.parsing import LETTERS
    from culturelab.percul import pipeline
    from culturelab.percul.data import load
    from culturelab.percul.scoring import loglik_context
    from culturelab.quickstart.data import load_mcqs
    from culturelab.tasks import mcq

    rows = []
    template = prompts.get("quickstart", "mcq_letter", "v1")
    for q in load_mcqs().head(NOTEBOOKS["00_quickstart"]["n_questions"]).itertuples():
        prompt = mcq.render(template, q.question, q.options)
        rows += [{"prompt": prompt, "response": f"Answer: {LETTERS[q.answer]}"},
                 *_scored(prompt, [f" {letter}" for letter in LETTERS[:4]], q.answer)]
    stories = pipeline.stories(load(data_source="sample"), max_instances=NOTEBOOKS["percul/01_benchmark"]["max_instances"])
    for s in stories.itertuples():
        choice = json.dumps({"Explanation": "از داستان", "Choice Number": s.answer + 1}, ensure_ascii=False)
        rows += [{"prompt": s.prompt, "response": choice},
                 *_scored(loglik_context(s.question, s.split), [" " + str(o).strip() for o in s.options], s.answer)]
    return rows


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, dict[str, str]]:
    """The rendered ``prose-verdict`` cell of each notebook, run with the oracle and with the bundled model."""
    tmp = tmp_path_factory.mktemp("interpretation")
    replay = tmp / "oracle.jsonl"
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in oracle_rows()), encoding="utf-8")
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CULTURELAB_RUNS", str(tmp / "runs"))
        mp.setenv("CULTURELAB_FIGURES", str(tmp / "figures"))
        for name, model in (("oracle", f"replay:{replay}"), ("bundled", "bundled:gemma3-270m")):
            params = tmp / f"{name}.yaml"
            params.write_text(json.dumps({"run_name": name, "common": {"model": model}, "notebooks": NOTEBOOKS}))
            summary = execute(plan(params, list(NOTEBOOKS)), jobs=2)
            assert (summary["status"] == "ok").all(), summary.to_dict("records")
            out[name] = {nb: _rendered(config.runs_dir() / name / f"{nb}.ipynb") for nb in NOTEBOOKS}
    return out


def _rendered(executed) -> str:
    cell = next(c for c in json.loads(executed.read_text(encoding="utf-8"))["cells"] if c.get("id") == "prose-verdict")
    return "".join("".join(o["data"]["text/markdown"]) for o in cell["outputs"] if "text/markdown" in o.get("data", {}))


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", list(NOTEBOOKS))
def test_the_interpretation_says_what_the_run_found(notebook, verdicts):
    oracle = re.findall(r"^- .*$", verdicts["oracle"][notebook], flags=re.M)
    assert len(oracle) == 2, verdicts["oracle"][notebook]  # generation and log-likelihood
    assert all("above chance" in line and "every answer valid" in line for line in oracle), oracle
    bundled = re.findall(r"^- .*$", verdicts["bundled"][notebook], flags=re.M)
    assert bundled and not all("above chance" in line and "every answer valid" in line for line in bundled), bundled
