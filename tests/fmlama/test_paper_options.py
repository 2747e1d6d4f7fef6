"""Every setting that can make an FMLAMA row non-comparable is a parameter of the protocol (issue 30,
item 1): ``culturelab check`` and the ``protocol: paper`` refusal list it for a paper model, and with
the paper's options (ties in candidate order, the paper-era T5/mT5 fill, the paper-era country names,
the paper's reading, all four decoder prompt variants) a paper model's rows carry a Δ."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from culturelab import config
from culturelab.fmlama import generations, tables
from culturelab.fmlama import probing as P
from culturelab.fmlama import protocol as paper
from culturelab.params import notebook_defaults
from culturelab.runner import Run, notebook_file, plan

PAPER_FILE = config.project_root() / "papermill_params" / "paper.yaml"
MT5, BBU = "seq2seq:google/mt5-base", "masked:bert-base-uncased"
#: the lines of paper.yaml that choose the paper's options
OPTIONS = re.compile(r"^\s+(?:ties|slot_fill|country_names|reading|model_instructions|model_contexts):.*\n", re.M)


def _paper_file(tmp_path, model: str, *, options: bool) -> object:
    """paper.yaml with ``model``, the paper's fastText vectors for mWS, and (``options=False``) our options."""
    text = PAPER_FILE.read_text(encoding="utf-8").replace("model: bundled:gemma3-270m", f"model: {model}")
    text = text.replace("  fmlama/02_probing:\n", '  fmlama/02_probing:\n    encoder: "fasttext:/v/cc.{lang}.300.bin"\n')
    if not options:
        text = OPTIONS.sub("", text)
    path = tmp_path / "paper.yaml"
    path.write_text(text, encoding="utf-8")
    return plan(path, ["fmlama/*"])


def _protocol_refusals(run_plan) -> dict[str, list[str]]:
    """The protocol lines of each notebook's refusal (the data lines depend on the copy of the release at hand)."""
    refusals = run_plan.refusals()
    return {name: [line for line in refusals.get(name, []) if line.startswith("protocol:")] for name, _ in run_plan.jobs}


@pytest.mark.parametrize(("model", "expected"), [
    (MT5, {"02": ["T5/mT5 template literally", "country names"], "03": ["T5/mT5 template literally", "country names"],
           "04": ["best-performing", "our strict parser"]}),
    (BBU, {"02": ["expected rank", "country names"], "03": ["expected rank", "country names"],
           "04": ["best-performing", "our strict parser"]}),
])
def test_check_and_the_refusal_name_every_row_setting_of_a_paper_model(tmp_path, model, expected):
    run_plan = _paper_file(tmp_path, model, options=False)
    refusals = run_plan.refusals()
    for short, needles in expected.items():
        name = next(n for n, _ in run_plan.jobs if n.startswith(f"fmlama/{short}"))
        protocol = run_plan.deviations[name].protocol
        for needle in needles:
            assert needle in protocol, (name, needle, protocol)
            assert any(needle in line for line in refusals[name]), (name, needle)


@pytest.mark.parametrize("model", [MT5, BBU])
def test_with_the_papers_options_a_paper_model_has_no_deviation_and_gets_its_delta(tmp_path, monkeypatch, model):
    run_plan = _paper_file(tmp_path, model, options=True)
    refusals = _protocol_refusals(run_plan)
    for name in ("fmlama/02_probing", "fmlama/03_code_switching"):
        assert refusals[name] == []
        assert run_plan.deviations[name].paper_model  # the paper's model: a Δ against its column
    # 04: only the chat format remains for a model that is not a chat model (gpt-3.5-turbo: nothing)
    assert [line for line in refusals["fmlama/04_decoder_llms"] if "chat template" not in line] == []
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    params = {**notebook_defaults(notebook_file("fmlama/02_probing")), **dict(run_plan.jobs)["fmlama/02_probing"]}
    run = Run("fmlama/02_probing", params, name="t")
    run.set_data_source("released")
    for context in (False, True):
        assert paper.row_deviations(run, model, context=context).comparable
    summary = pd.DataFrame({"model": [model], "context": False, "group": "ALL", "metric": "mAP", "mean": [6.0],
                            "std": [1.0]})
    cmp = tables.compare_probing(summary, "en", deviations_of=lambda m: paper.row_deviations(run, m))
    assert cmp.query("group == 'ALL'")["delta"].notna().all()


def test_gpt35_under_the_papers_options_has_no_deviation(tmp_path):
    assert _protocol_refusals(_paper_file(tmp_path, "openai:gpt-3.5-turbo", options=True))["fmlama/04_decoder_llms"] == []


class _Span:
    """A stand-in T5: records the queries it ranks; every candidate scores the same (all tie)."""

    backend, spec = "seq2seq", "seq2seq:stand-in"

    def __init__(self):
        self.queries: list[str] = []

    def rank_candidates(self, queries, candidates, *, slot, reduce):
        self.queries += list(queries)
        return np.zeros((len(queries), len(candidates)))


def test_the_paper_options_change_what_the_model_sees_and_how_ties_rank():
    table = pd.DataFrame({"url": ["u"], "dish": ["Caesar salad"], "origin": ["Italy"], "group": ["Italy"],
                          "ingredients": [["lettuce"]]})
    cands = ["anchovy", "egg", "lettuce"]
    ours, theirs = _Span(), _Span()
    expected = P.probe(ours, table, "en", cands, context=True, template_ids=[1])
    paper_way = P.probe(theirs, table, "en", cands, context=True, template_ids=[1], ties="candidate_order",
                        slot_fill="paper", country_names="paper")
    assert ours.queries == ["In Italy, the food Caesar salad has the ingredients of [Y] ."]
    # the paper-era T5 fill: re.sub character classes keep the brackets and put the country in every capital C
    assert theirs.queries == ["In [Italy], the food [Italyaesar salad] has the ingredients of [Y] ."]
    # all tied: ours is the expected AP over every order (1/3 × (1 + 1/2 + 1/3)), the paper's the third place
    assert expected["ap"].item() == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert paper_way["ap"].item() == pytest.approx(1 / 3)
    mt5 = _Span()
    P.probe(mt5, table.assign(origin="United States of America"), "en", cands, context=True, template_ids=[1],
            country_names="paper")
    assert mt5.queries == ["In  the United States, the food Caesar salad has the ingredients of [Y] ."]  # sic


def test_the_best_prompt_variant_per_setting_is_reported():
    acc = pd.DataFrame({"model": "m", "setting": ["EN_en"] * 4, "group": "All", "instruction": ["full", "full", "one",
                                                                                              "one"],
                        "context": [False, True, False, True], "accuracy": [30.0, 42.0, 35.0, 12.0]})
    best = generations.best_variant(acc)
    assert best[["instruction", "context", "accuracy", "best_of"]].values.tolist() == [["full", True, 42.0, 4]]
