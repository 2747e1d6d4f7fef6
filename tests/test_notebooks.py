"""Every notebook executes end to end under papermill_params/smoke.yaml (one test each), every
figure it saves passes the figure audit (:mod:`culturelab.plots.audit`, one test each), and every
figure it saved as data draws again in the paper style and passes the paper audit too (a figure
refused as a result for its small n is drawn anyway, to check its layout).

The notebooks run once, as ``culturelab run papermill_params/smoke.yaml`` does (one batch, a kernel
per core, aggregates after their papers' notebooks); each test then checks its own notebook's row,
results and figures. On 2 cores this halves the wall time of running them one by one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from culturelab import config
from culturelab.plots import audit
from culturelab.runner import all_notebooks, available_cores, execute, plan

SMOKE = config.project_root() / "papermill_params" / "smoke.yaml"


@pytest.fixture(scope="module")
def smoke_run(request) -> tuple[str, pd.DataFrame]:
    """Run the notebooks this session selected (``-k`` picks some), in one batch."""
    selected = {item.callspec.params["notebook"] for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec")}
    run_plan = plan(SMOKE, [name for name in all_notebooks() if name in selected])
    return run_plan.run_name, execute(run_plan, jobs=available_cores()).set_index("notebook")


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", all_notebooks())
def test_notebook_runs_under_smoke_params(notebook, smoke_run):
    run_name, summary = smoke_run
    assert summary.loc[notebook, "status"] == "ok", summary.loc[notebook].to_dict()
    info = json.loads((config.runs_dir() / run_name / notebook / "run_info.json").read_text())
    assert info["versions"]["culturelab"]
    assert info["results"], f"{notebook} wrote no results table"
    assert info["figures"] or info.get("refused_figures"), f"{notebook} saved no figure"


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", all_notebooks())
def test_every_figure_passes_the_audit(notebook, smoke_run):
    """The audit records ``Run.savefig`` wrote for this run's figures: no figure breaks a rule for
    what it claims (n, chance, model, method, sample stamp, overlaps, legends, greyed panels)."""
    run_name, summary = smoke_run
    if summary.loc[notebook, "status"] != "ok":
        pytest.skip(f"{notebook} did not run: {summary.loc[notebook, 'status']}")
    folder = config.runs_dir() / run_name / notebook
    info = json.loads((folder / "run_info.json").read_text())
    names = list(dict.fromkeys(Path(path).stem for path in info["figures"]))
    found = {}
    for name in names:
        record = json.loads((folder / "figures" / f"{name}.json").read_text())
        found[name] = audit.problems(record["facts"], record["claims"])
    assert (names or info.get("refused_figures")) and not any(found.values()), {n: p for n, p in found.items() if p}


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", all_notebooks())
def test_every_figure_draws_again_in_the_paper_style(notebook, smoke_run, tmp_path):
    """``culturelab figures RUN --style paper`` on this notebook's saved figures: each draws from its
    data alone, at most 7 in wide, no text under 6 pt, a caption file beside it, no audit problem."""
    from culturelab.plots.render import render_run

    run_name, summary = smoke_run
    if summary.loc[notebook, "status"] != "ok":
        pytest.skip(f"{notebook} did not run: {summary.loc[notebook, 'status']}")
    rendered = render_run(config.runs_dir() / run_name / notebook, style="paper", out=tmp_path, force=True,
                          formats=(".pdf",))
    assert rendered, f"{notebook}: no figure saved as data"
    for one in rendered:
        pdf = next(p for p in one.paths if p.suffix == ".pdf")
        facts = audit.pdf_facts(pdf)
        assert facts["width_in"] <= 7.0 and min(facts["font_sizes"]) >= 6.0, (one.name, facts)
        assert pdf.with_suffix(".caption.md").is_file()
    found = {one.name: one.layout_problems() for one in rendered}
    assert not any(found.values()), {name: problems for name, problems in found.items() if problems}


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", [n for n in all_notebooks() if n.startswith("fmlama/")])
def test_fmlama_smoke_results_carry_the_labels_of_their_rows(notebook, smoke_run):
    """Every FMLAMA results table is labelled by the one comparison (``culturelab/fmlama/protocol.py``),
    row by row: the smoke run's reduced pools, its samples and its causal model are named, the
    frequency baseline and the chance line are analyses beyond the paper, the released tables are the paper's."""
    from culturelab.fmlama.probing import BASELINE, RANDOM
    from culturelab.protocol import LABEL_COLUMNS

    run_name, _ = smoke_run
    for path in sorted((config.runs_dir() / run_name / notebook).glob("*.csv")):
        table = pd.read_csv(path)
        assert set(LABEL_COLUMNS) <= set(table.columns), path.name
        if "model" not in table or path.name.startswith(("tables11_12", "chatgpt")):
            continue
        rankers = table["model"].isin([BASELINE, RANDOM])
        assert table.loc[rankers, "protocol"].str.startswith("beyond the paper").all(), path.name
        mine = table[table["model"] == "bundled:gemma3-270m"]
        assert mine["data"].str.contains(r"\d of [\d,]+ [\w-]+ dishes|^sample data").all(), path.name
        assert not mine["comparable"].any(), path.name
        assert mine["model_status"].str.contains("not one of the paper's|beside the paper's").all(), path.name
        if notebook != "fmlama/04_decoder_llms":
            assert mine["protocol"].str.contains("candidates: the probed dishes' gold").all(), path.name
            assert mine["protocol"].str.contains("ranked as a causal LM").all(), path.name
    if notebook == "fmlama/03_code_switching":
        released = pd.read_csv(config.runs_dir() / run_name / notebook / "tables11_12_released_vs_paper.csv")
        assert released.empty or (released["comparable"].all() and released["delta"].abs().max() < 0.01)
    if notebook == "fmlama/04_decoder_llms":
        chatgpt = pd.read_csv(config.runs_dir() / run_name / notebook / "table13_vs_paper.csv")
        assert chatgpt["protocol"].str.contains("the authors' parser, not released").all()  # our strict reading
        assert chatgpt["delta"].isna().all()


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", [n for n in all_notebooks() if n.startswith("percul/")])
def test_percul_smoke_results_carry_the_labels_of_their_rows(notebook, smoke_run):
    """Every PERCUL results table is labelled by the one comparison (``culturelab/percul/protocol.py``),
    row by row: our sample and the stories it used, the smoke run's token budget and our
    log-likelihood scoring, the English prompt's answer line, our rule labels; the paper's own numbers are the paper's."""
    from culturelab.protocol import LABEL_COLUMNS

    run_name, _ = smoke_run
    for path in sorted((config.runs_dir() / run_name / notebook).glob("*.csv")):
        table = pd.read_csv(path)
        assert set(LABEL_COLUMNS) <= set(table.columns) and table[["data", "protocol"]].notna().all().all(), path.name
        if path.name.startswith(("paper_", "finetune_gap")):
            assert (table[["data", "protocol", "model_status"]] == "same").all().all(), path.name
            continue
        papers = (table.get("model", pd.Series("", index=table.index)).astype(str).str.endswith("(paper)")
                  | table.get("source", pd.Series("", index=table.index)).astype(str).str.startswith("paper"))
        assert (table.loc[papers, ["data", "protocol", "model_status"]] == "same").all().all(), path.name
        ours = table[~papers]
        assert ours["data"].str.match(r"(sample data \(ours, not the paper's\)( — .*)?|\d+ of 592 stories); "
                                      r"max_instances \d").all(), path.name
        assert not ours["comparable"].any() and ours["model_status"].str.contains("not one of the paper's").all()
        if notebook == "percul/05_robustness":
            assert ours["protocol"].str.startswith("beyond the paper").all(), path.name
        elif "method" in ours:
            generated = ours["method"] == "generate"
            assert ours.loc[generated, "protocol"].str.contains("24 new tokens").all(), path.name
            assert ours.loc[~generated, "protocol"].str.contains("option log-likelihood").all(), path.name
        if "split" in ours:
            english = ours["split"] == "gpt_english_translation"
            assert ours.loc[english, "protocol"].str.contains("our English prompt").all(), path.name
            assert not ours.loc[~english, "protocol"].str.contains("English").any(), path.name
            if "method" in ours:  # the answer-language line is part of the generation prompt only
                keeps = ours["protocol"].str.contains("keeps Figure 9's 'Your answer must be in Persian'")
                assert keeps.equals(english & (ours["method"] == "generate")), path.name
    if notebook == "percul/03_translation":
        gap = pd.read_csv(config.runs_dir() / run_name / notebook / "translation_gap.csv")
        assert gap["protocol"].str.contains("our English prompt").sum() == (~gap["model"].str.endswith("(paper)")).sum()
    if notebook == "percul/04_distractors":
        lure = pd.read_csv(config.runs_dir() / run_name / notebook / "lure_rates.csv")
        assert lure["protocol"].str.contains("distractor rules from distractor_rules.csv, not the paper's").all()


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", [n for n in all_notebooks() if n.startswith("cultural_recipes/")])
def test_cultural_recipes_smoke_results_carry_the_labels_of_their_rows(notebook, smoke_run):
    """Every CulturalRecipes results table is labelled by the one comparison
    (``culturelab/cultural_recipes/protocol.py``), row by row. Notebook 01: our toy corpus, the
    smoke run's word2vec and our automatic labels; the fr → en check is other data, beyond the
    paper. Notebook 02: our sample and its size knob, the smoke run's decoding on the model's rows
    only, each metric's own settings, our made-up ratings, Figure 4 on the silver split where Ref
    is the retrieved recipe."""
    from culturelab.protocol import LABEL_COLUMNS

    run_name, _ = smoke_run
    folder = config.runs_dir() / run_name / notebook
    if notebook == "cultural_recipes/01_bli_alignment":
        for name in ("table2_view.csv", "bli_summary.csv"):
            table = pd.read_csv(folder / name)
            assert table["data"].str.startswith("sample data (ours, not the paper's) — our toy corpus").all(), name
            assert table["protocol"].str.contains("of the top-5 lists \\(the paper: judged by hand").all(), name
            assert table["protocol"].str.contains("word2vec vector_size 24").all() and not table["comparable"].any(), name
        real = pd.read_csv(folder / "real_vectors_bli.csv")
        assert real["data"].str.startswith("other data (not the paper's)").all()
        assert real["protocol"].str.contains("beyond the paper").all()
        # smoke.yaml caps self-learning: no capped fit is called converged, and the label says so
        assert real["protocol"].str.contains("self-learning capped at 3 iterations \\(VecMap: no cap\\)").all()
        assert not real.loc[real["stop"] == "max_iter", "converged"].any()
        return
    for path in sorted(folder.glob("*.csv")):
        table = pd.read_csv(path)
        assert set(LABEL_COLUMNS) <= set(table.columns) and table[["data", "protocol"]].notna().all().all(), path.name
        assert not table["comparable"].any(), path.name
        ratings = "our made-up sample ratings (the paper's crowd ratings are not released, §5.3)"
        if path.name == "table5_vs_paper.csv":
            assert (table["data"] == ratings).all()
            continue
        assert table["data"].str.startswith("sample data (ours, not the paper's)").all(), path.name
        if "system" in table:
            model = table["system"].str.endswith("(llm prompt)")
            assert table.loc[model, "protocol"].str.contains("16 new tokens").all(), path.name
            assert not table.loc[~model, "protocol"].str.contains("new tokens").any(), path.name
            assert table.loc[model, "model_status"].str.contains("not one of the paper's").all(), path.name
    metrics = pd.read_csv(folder / "automatic_metrics.csv")
    assert metrics["data"].str.contains("max_recipes 2").all()
    zh, floor = metrics["direction"] == "en2zh", metrics["system"] == "Source copy"
    assert metrics.loc[floor, "protocol"].str.startswith("beyond the paper").all()
    assert metrics.loc[zh & ~floor, "protocol"].str.contains("Chinese ROUGE-L").all()
    assert metrics.loc[~zh & ~floor, "protocol"].str.contains("BERTScore \\(en\\) not computed").all()
    side = pd.read_csv(folder / "metrics_vs_paper.csv")
    release = side["compat"] != "corrected"
    assert side.loc[release & side["metric"].isin(["BLEU", "ChrF"]), "protocol"].str.contains("released script").all()
    assert (side.loc[~release & side["metric"].isin(["BLEU", "ChrF", "#Tok"]), "protocol"] == "same").all()
    rates = pd.read_csv(folder / "literal_rates.csv")
    assert set(rates["system"]) == {"bundled:gemma3-270m (llm prompt)", "Ref = retrieved recipe"}
    assert rates.loc[rates["concept"].isin(["tofu", "starch"]), "protocol"].str.contains("chosen by us").all()
    for name in ("kendall.csv", "table6_vs_paper.csv"):
        assert pd.read_csv(folder / name)["data"].str.endswith(ratings).all(), name


@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", ["captex/03_mcq", "captex/05_aggregate"])
def test_captex_smoke_results_say_whose_cb_mcq_options_they_score(notebook, smoke_run):
    """The sample has no CB-MCQ options, so ours are built: every CB-MCQ row of 03 and every
    footnote-6 row of 05 says so (``culturelab/captex/protocol.py``: the data's own setting)."""
    run_name, _ = smoke_run
    table = pd.read_csv(config.runs_dir() / run_name / notebook / "results.csv")
    rows = table[table["task"] == "CB-MCQ"] if notebook == "captex/03_mcq" else table
    assert len(rows) and rows["protocol"].str.contains("CB-MCQ options built by us").all()
    if notebook == "captex/03_mcq":
        assert not table.loc[table["task"] == "PB-MCQ", "protocol"].str.contains("CB-MCQ").any()
