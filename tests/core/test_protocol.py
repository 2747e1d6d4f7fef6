"""The papers' protocols as data and the one comparison of a run with them: labels, the check,
and a ``protocol: paper`` file that refuses to run before any model is loaded."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from culturelab import config, reported
from culturelab.protocol import (
    DataUsed,
    Release,
    Section,
    Setting,
    check_notebook,
    compare,
    label_rows,
    paper_model_of,
)
from culturelab.runner import DeviationError, Run, execute, plan

SECTION = Section("§4", Release("toy", {"stories": 592}, "Table 1"), {
    "max_instances": Setting(0, "Table 1", what="max_instances {}", kind="data"),
    "max_new_tokens": Setting(1024, "§4", what="{} new tokens", at_least=True),
    "split": Setting("silver", "§5", what="split"),
    "methods": Setting(["generate"], "§4", accept=lambda v: "generate" in v),
})


def test_every_kind_of_difference_is_named_and_nothing_else():
    same = compare(SECTION, {"max_instances": 0, "max_new_tokens": 2048, "split": "silver",
                             "methods": ["generate", "loglikelihood"], "unrelated": 3},
                   DataUsed("released", {"stories": 592}))
    assert (same.data, same.protocol, same.comparable, same.lines()) == ("same", "same", True, [])
    off = compare(SECTION, {"max_instances": 20, "max_new_tokens": 40, "split": "gold", "methods": ["loglikelihood"]},
                  DataUsed("released", {"stories": 20}))
    assert off.data == "20 of 592 stories; max_instances 20 (the paper: all, Table 1)"
    assert off.protocol.split("; ") == ["40 new tokens (the paper: at least 1024, §4)",
                                        "split gold (the paper: silver, §5)",
                                        "methods [loglikelihood] (the paper: [generate], §4)"]
    assert not off.comparable


def test_sample_or_missing_data_is_never_the_papers():
    assert compare(SECTION, {}, DataUsed("sample")).data == "sample data (ours, not the paper's)"
    missing = compare(SECTION, {}, DataUsed("missing", note="no copy under /x"))
    assert missing.data.startswith("no copy of the paper's release found — no copy under /x")
    assert compare(SECTION, {}, DataUsed("reported")).data == "same"  # the paper's published numbers


def test_a_release_cut_down_is_a_subset_never_same():
    d = compare(SECTION, {"max_instances": 0}, DataUsed("released", {"stories": 300}))
    assert d.data == "300 of 592 stories" and not d.comparable


def test_the_model_is_never_a_deviation_but_decides_whether_a_delta_exists():
    models = {"Qwen2.5-7B": "Qwen/Qwen2.5-7B-Instruct"}
    theirs = compare(SECTION, {}, DataUsed("released"), model="hf:Qwen/Qwen2.5-7B-Instruct", paper_models=models)
    ours = compare(SECTION, {}, DataUsed("released"), model="bundled:gemma3-270m", paper_models=models)
    assert theirs.protocol == ours.protocol == "same"
    assert theirs.paper_model == "Qwen2.5-7B" and theirs.comparable
    assert ours.paper_model == "" and not ours.comparable and ours.same_data_and_protocol
    rep = pd.DataFrame({"metric": ["acc"], "value": [0.5]})
    mine = pd.DataFrame({"metric": ["acc"], "value": [0.6]})
    assert reported.compare(rep, mine, ["metric"], deviations=theirs, model_row="Qwen2.5-7B")["delta"].notna().all()
    beside = reported.compare(rep, mine, ["metric"], deviations=ours, model_row="Qwen2.5-7B")
    assert beside["delta"].isna().all() and beside["model_status"].item().endswith("beside the paper's Qwen2.5-7B")


def test_paper_model_matching_by_hub_id_or_by_the_papers_rule():
    assert paper_model_of("openai-compatible:http://h:8000/v1#Qwen/Qwen2.5-7B-Instruct",
                          {"Q": "Qwen/Qwen2.5-7B-Instruct"}) == "Q"
    assert paper_model_of("openai:gpt-4o-2024-08-06", lambda spec: "GPT 4o" if "gpt-4o" in spec else None) == "GPT 4o"


def test_rows_are_labelled_per_distinct_setting():
    table = pd.DataFrame({"method": ["generate", "generate", "loglikelihood"], "x": [1, 2, 3]})
    section = Section("§4", settings={"method": Setting("generate", "§4", what="method")})
    out = label_rows(table, lambda combo: compare(section, combo), ["method"])
    assert out["protocol"].tolist() == ["same", "same", "method loglikelihood (the paper: generate, §4)"]
    assert out["comparable"].tolist() == [True, True, False] and out["x"].tolist() == [1, 2, 3]


def test_every_results_table_carries_the_labels(tmp_path, monkeypatch):
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    run = Run("percul/01_benchmark", {"model": "bundled:gemma3-270m", "max_new_tokens": 40, "stop_after_json": True,
                                      "method": "generate"}, name="t")
    run.set_data_source("sample")
    path = run.save_results(pd.DataFrame({"method": ["generate", "loglikelihood"], "correct": [1, 0]}))
    table = pd.read_csv(path)
    assert (table["data"] == "sample data (ours, not the paper's)").all()
    assert table["protocol"].str.contains("40 new tokens").all()
    assert table["model_status"].str.contains("not one of the paper's models").all()
    labelled = run.label(pd.DataFrame({"method": ["generate", "loglikelihood"]}), by=["method"])
    assert "option log-likelihood instead of generation" in labelled["protocol"].iloc[1]
    assert "option log-likelihood" not in labelled["protocol"].iloc[0]


def _paper_file(tmp_path, extra: str = "") -> object:
    path = tmp_path / "paper.yaml"
    path.write_text(textwrap.dedent(f"""
        protocol: paper
        common: {{model: bundled:gemma3-270m, device: cpu, seed: 0}}
        notebooks:
          percul/01_benchmark:
            data_source: sample
            max_instances: 2{extra}
    """))
    return path


def test_a_paper_protocol_file_names_each_deviation_and_refuses_before_loading_a_model(tmp_path):
    path = _paper_file(tmp_path)
    code = textwrap.dedent(f"""
        import sys
        from culturelab.cli import main
        rc = main(["run", {str(path)!r}, "-n", "percul/01_benchmark"])
        print("RC", rc, "HEAVY", [m for m in ("torch", "transformers") if m in sys.modules])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "CULTURELAB_RUNS": str(tmp_path / "runs")})
    assert "RC 3 HEAVY []" in out.stdout, out.stdout + out.stderr
    err = out.stderr
    assert "percul/01_benchmark" in err and "--allow-deviation" in err
    assert "data: sample data (ours, not the paper's)" in err
    assert "max_instances 2 (the paper: all, Table 1: all 592 stories)" in err
    assert "40 new tokens (the paper: at least 1024, §4)" in err  # the notebook's default budget
    assert "model:" not in err  # the model is not a deviation
    assert not (tmp_path / "runs").exists()


def test_allow_deviation_runs_and_every_output_says_so(tmp_path, monkeypatch):
    run_plan = plan(_paper_file(tmp_path), ["percul/01_benchmark"])
    with pytest.raises(DeviationError, match="max_instances 2"):
        execute(run_plan)
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path / "runs"))
    seen = {}
    monkeypatch.setattr("culturelab.runner._execute_all", lambda work, jobs: seen.setdefault("work", work) and [
        {"notebook": w[0], "status": "ok", "seconds": 0.0, "output": ""} for w in work])
    monkeypatch.delenv("CULTURELAB_ALLOW_DEVIATION", raising=False)
    execute(run_plan, allow_deviation=True)
    assert [w[0] for w in seen["work"]] == ["percul/01_benchmark"]
    run = Run("percul/01_benchmark", {"model": "bundled:gemma3-270m"}, name="t")
    table = pd.read_csv(run.save_results(pd.DataFrame({"x": [1]})))
    assert table["run_protocol"].str.contains("--allow-deviation").all()


def test_check_prints_every_notebooks_differences_and_the_model(tmp_path, capsys):
    from culturelab.cli import main

    assert main(["check", str(_paper_file(tmp_path)), "-n", "percul/01_benchmark", "--verbose"]) == 3
    out = capsys.readouterr().out
    assert "  data: sample data (ours, not the paper's)" in out
    assert "  model: bundled:gemma3-270m is not one of the paper's models" in out
    assert "stops before any notebook: 1 differ from their papers and the file says protocol: paper" in out


def test_an_analysis_beyond_the_paper_is_labelled_but_not_refused(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("protocol: paper\nnotebooks:\n  percul/05_robustness: {data_source: download}\n")
    run_plan = plan(path, ["percul/05_robustness"])
    assert run_plan.deviations["percul/05_robustness"].protocol.startswith("beyond the paper")
    assert run_plan.refusals() == {}


def test_the_shipped_paper_file_says_protocol_paper_and_is_checked():
    run_plan = plan(config.project_root() / "papermill_params" / "paper.yaml", ["percul/*"])
    assert run_plan.protocol == "paper"
    assert check_notebook("percul/01_benchmark", {"data_source": "sample"}).data.startswith("sample data")


def test_a_bad_protocol_value_is_a_parameter_error(tmp_path):
    from culturelab.params import ParameterError

    path = tmp_path / "p.yaml"
    path.write_text("protocol: papers\n")
    with pytest.raises(ParameterError, match="protocol: 'papers' is not one of paper"):
        plan(path)


def test_a_reading_of_an_unstated_value_stays_comparable_and_is_named_in_every_label():
    from culturelab.protocol import Section, Setting, compare, is_same

    s = Section("§4", settings={"rouge": Setting("rougeL", "repo", what="ROUGE-L {}", reading="the paper does not say"),
                                "split": Setting("test", "§4")})
    d = compare(s, {"rouge": "rougeL", "split": "test"}, DataUsed("released"))
    assert d.comparable and is_same(d.protocol)
    assert d.protocol == "same (our reading: ROUGE-L rougeL (the paper does not say))"
    assert "note: our reading: ROUGE-L rougeL (the paper does not say)" in d.lines()
    assert "our reading" in d.caption()
    other = compare(s, {"rouge": "rougeLsum", "split": "valid"}, DataUsed("released"))
    assert not other.comparable and "our reading" not in other.protocol and "rougeLsum" in other.protocol


def test_a_paper_model_whose_version_the_paper_does_not_give_keeps_its_delta_and_says_so():
    from culturelab import reported
    from culturelab.protocol import Section, compare

    s = Section("§4", model_note="the paper gives no model versions")
    d = compare(s, {}, DataUsed("released"), model="openai:gpt-4o", paper_models={"GPT-4o": "gpt-4o"})
    assert d.model == "same (the paper gives no model versions)" and d.comparable
    assert d.lines()[-1] == "model: openai:gpt-4o is the paper's GPT-4o (the paper gives no model versions)"
    rep = pd.DataFrame({"m": ["acc"], "value": [0.5]})
    table = reported.compare(rep, rep.assign(value=0.6), on=["m"], deviations=d)
    assert table["delta"].round(2).tolist() == [0.1] and table["model_status"].item().startswith("same (")


def test_percul_labels_name_its_readings_and_the_unknown_model_versions():
    from culturelab.percul import protocol as percul
    from culturelab.protocol import compare

    d = compare(percul.PROTOCOL["01_benchmark"], {"prompt_version": "v1", "lenient": False},
                DataUsed("released", {"stories": 592}), model="openai:gpt-4o-2024-11-20", paper_models=percul.MODELS)
    assert d.comparable and d.paper_model == "GPT 4o"
    assert "{CAT} word is ours" in d.protocol and "strict parsing" in d.protocol
    assert "no model versions" in d.model


def test_a_deviation_inside_an_analysis_beyond_the_paper_is_named_in_its_protocol_label():
    from culturelab.protocol import Section, Setting, compare

    s = Section("ours", settings={"decoding": Setting(["free"], "§3")}, beyond="full reordering")
    assert compare(s, {"decoding": ["free"]}).protocol == "beyond the paper: full reordering"
    label = compare(s, {"decoding": ["constrained"]}).protocol
    assert label.startswith("beyond the paper: full reordering; ") and "constrained" in label
