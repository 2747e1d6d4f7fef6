"""The CAPTEx loader: our sample, local copies in other spellings of the schema, and clear
errors (file, row, column) for malformed files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from culturelab.captex import construction as cc
from culturelab.captex import data as cx
from culturelab.captex.construction import build_mcqs, check_mcq_rules, pairing_checks, with_cb_options
from culturelab.data import DataError
from culturelab.data.sources import sample_dir


@pytest.fixture(scope="module")
def sample() -> cx.CaptexData:
    return cx.load(data_source="sample")


@pytest.fixture()
def copy_dir(tmp_path) -> Path:
    """A writable copy of the sample laid out as <data_dir>/captex/*.csv."""
    target = tmp_path / "data" / "captex"
    shutil.copytree(sample_dir("captex"), target)
    return target


def test_sample_covers_the_schema(sample):
    p = sample.procedures
    assert sample.data_source == "sample"
    assert set(p["country"]) == set(cx.COUNTRIES)
    assert set(p["language"]) == {"en", "zh", "ja", "fa", "hi", "id", "ur", "ha"}
    assert p["category"].nunique() >= 5 and set(p["category"]) <= set(cx.CATEGORIES)
    assert p["n_steps"].between(5, 10).all() and set(p["n_steps"]) == set(range(5, 11))
    assert (p.groupby("procedure_id")["n_steps"].nunique() == 1).all()
    assert len(p) == 2 * p["procedure_id"].nunique() == 210
    assert len(sample.mcqs) == 8 * 105 and set(sample.mcqs["qtype"]) == {"SA", "SN", "AA", "AN"}
    assert len(sample.conversations) == 105
    assert (sample.conversations["utterances"].map(len) == 4).all()
    assert not sample.conversations["reference"].str.contains("Next step").any()


def test_sample_mcqs_are_exactly_what_the_paper_rules_build(sample):
    rebuilt = build_mcqs(sample.procedures, seed=0)
    cols = ["procedure_id", "language", "qtype", "question", "options", "answer"]
    assert rebuilt[cols].to_dict("records") == sample.mcqs[cols].to_dict("records")


def test_rule_checks_pass_on_the_sample_and_catch_violations(sample):
    checks = check_mcq_rules(sample.mcqs, sample.procedures)
    assert checks["all_rules"].all()
    pairs = pairing_checks(checks, sample.mcqs)
    assert pairs["same_order_across_languages"].all() and pairs["negation_shares_options"].all()
    broken = sample.mcqs.copy()
    broken.loc[0, "answer"] = (broken.loc[0, "answer"] + 1) % 4    # the answer is now a distractor
    broken.loc[1, "options"] = ["made up", *broken.loc[1, "options"][1:]]
    bad = check_mcq_rules(broken, sample.procedures)
    assert bad.loc[0, "correct_rule"] is False or bad.loc[0, "correct_rule"] == 0
    assert not bad.loc[1, "options_are_steps"] and not bad.loc[1, "all_rules"]
    assert bad["all_rules"].sum() == len(bad) - 2


def test_released_counts_are_enforced_unless_told_otherwise(copy_dir):
    with pytest.raises(DataError, match=r"Procedures.csv: expected 700 procedures .* expect='sample'"):
        cx.load(copy_dir.parent)
    data = cx.load(copy_dir.parent, expect="sample")
    assert data.data_source == "released" and data.location == str(copy_dir)


@pytest.mark.parametrize("data_source", ["local", "auto"])
def test_a_data_dir_without_the_files_is_an_error_not_the_sample(tmp_path, data_source):
    with pytest.raises(FileNotFoundError, match=r"no local copy of CAPTEx \(Procedures.csv, MCQs.csv"):
        cx.load(tmp_path, data_source=data_source)


def test_unknown_data_source_is_refused():
    with pytest.raises(ValueError, match="data_source must be one of auto, local, download, sample, not 'hf'"):
        cx.load(data_source="hf")


def test_download_goes_through_hf_snapshot(monkeypatch, copy_dir):
    calls = []

    def fake_snapshot(repo_id, **kwargs):
        calls.append(repo_id)
        return copy_dir

    monkeypatch.setattr("culturelab.data.sources.hf_snapshot", fake_snapshot)
    data = cx.load(data_source="download", expect="sample")
    assert calls == ["AmirHossein2002/CAPTex"] and len(data.procedures) == 210 and data.data_source == "released"


def _rewrite(path: Path, fn) -> None:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    fn(frame)
    frame.to_csv(path, index=False)


@pytest.mark.parametrize(("filename", "edit", "message"), [
    ("Procedures.csv", lambda f: f.__setitem__("Steps", f["Steps"].where(f.index != 4, "1. a\n2. b\n3. c\n4. d")),
     r"Procedures.csv, row 6, column 'steps': a procedure needs 5–10 steps, found 4"),
    ("Procedures.csv", lambda f: f.loc.__setitem__((2, "Country"), "Atlantis"),
     r"Procedures.csv, row 4, column 'country': unknown country"),
    ("Procedures.csv", lambda f: f.loc.__setitem__((3, "Category"), "Space travel"),
     r"Procedures.csv, row 5, column 'category': unknown category"),
    ("Procedures.csv", lambda f: f.loc.__setitem__((3, "Language"), "Japanese"),
     r"Procedures.csv, row 5, column 'language': 'Japanese' is neither English nor the native language of China"),
    ("Procedures.csv", lambda f: f.loc.__setitem__((1, "Steps"), "\n".join(f.loc[1, "Steps"].splitlines()[:-1])),
     r"Procedures.csv, row 3, column 'steps': procedure 'CN-01' has \[8, 7\] steps"),
    ("MCQs.csv", lambda f: f.loc.__setitem__((6, "Answer"), "E"),
     r"MCQs.csv, row 8, column 'answer': answer must be a letter"),
    ("MCQs.csv", lambda f: f.loc.__setitem__((0, "Type"), "XX"),
     r"MCQs.csv, row 2, column 'type'"),
    ("MCQs.csv", lambda f: f.loc.__setitem__((9, "Choices"), "A. one\nB. two"),
     r"MCQs.csv, row 11, column 'choices': an MCQ needs 4 non-empty options, found 2"),
    ("Conversations.csv", lambda f: f.loc.__setitem__((2, "Conversation"), "Person A: hi\nPerson B: hello\nPerson A: ok"),
     r"Conversations.csv, row 4, column 'conversation': a conversation needs exactly 4 utterances"),
    ("Conversations.csv", lambda f: f.loc.__setitem__((0, "Conversation"), f.loc[0, "Conversation"].split(" Next step")[0]),
     r"Conversations.csv, row 2, column 'conversation': no 'Next step: N' marker"),
    ("MCQs.csv", lambda f: f.drop(columns=["Question"], inplace=True), r"MCQs.csv: missing column\(s\) \['question'\]"),
])
def test_malformed_files_name_file_row_and_column(copy_dir, filename, edit, message):
    _rewrite(copy_dir / filename, edit)
    with pytest.raises(DataError, match=message):
        cx.load(copy_dir.parent, expect="sample")


def test_other_spellings_of_the_schema_load(copy_dir):
    """Lower-case aliased headers, no ID column, ISO language codes, steps as JSON lists,
    category variants, options in A–D columns and numeric answers."""
    procs = pd.read_csv(copy_dir / "Procedures.csv", dtype=str)
    lang_code = {"English": "en", **{v[1]: v[0] for v in cx.COUNTRIES.values()}}
    alt = pd.DataFrame({
        "country": procs["Country"].str.upper(),
        "topic": procs["Category"].str.replace("Practices", "Procedures").str.replace(", and", " and"),
        "lang": procs["Language"].map(lang_code),
        "Procedure Name": procs["Title"],
        "steps": [json.dumps(cx.parse_steps(s), ensure_ascii=False) for s in procs["Steps"]],
    })
    alt.to_csv(copy_dir / "Procedures.csv", index=False)
    mcqs = pd.read_csv(copy_dir / "MCQs.csv", dtype=str)
    opts = mcqs["Choices"].map(cx.parse_choices)
    wide = mcqs.drop(columns=["ID", "Choices"]).assign(**{k: opts.str[i] for i, k in enumerate("ABCD")})
    wide["Answer"] = mcqs["Answer"].map({"A": "1", "B": "2", "C": "3", "D": "4"})
    wide.to_csv(copy_dir / "MCQs.csv", index=False)
    conv = pd.read_csv(copy_dir / "Conversations.csv", dtype=str).drop(columns=["ID", "Title"])
    conv.to_csv(copy_dir / "Conversations.csv", index=False)

    data = cx.load(copy_dir.parent, expect="sample")
    reference = cx.load(data_source="sample")
    assert len(data.procedures) == 210 and data.procedures["country"].isin(cx.COUNTRIES).all()
    # pairing by order within (country, category) recovers the same English/native pairs
    pairs = data.procedures.groupby("procedure_id")["title"].apply(tuple).sort_values().tolist()
    ref_pairs = reference.procedures.groupby("procedure_id")["title"].apply(tuple).sort_values().tolist()
    assert pairs == ref_pairs
    assert data.mcqs["procedure_id"].notna().all()         # linked through the quoted title
    assert data.mcqs["answer"].tolist() == reference.mcqs["answer"].tolist()
    assert data.conversations["procedure_id"].notna().all()
    assert check_mcq_rules(data.mcqs, data.procedures)["all_rules"].all()


@pytest.mark.parametrize(("value", "expected"), [
    ("Agricultural and Seasonal Procedures", "Agricultural and Seasonal Practices"),
    ("environmental & nature-based procedures", "Environmental and Nature-Based Practices"),
    ("9. Sports, Games and Competitions", "Sports, Games, and Competitions"),
    ("Food & Cusine", "Food and Cuisine"),
])
def test_category_normalisation(value, expected):
    assert cx.normalise_category(value) == expected


def test_country_and_language_normalisation():
    assert cx.normalise_country("PAKISTAN") == "Pakistan" and cx.normalise_country("ha") == "Nigeria"
    assert cx.normalise_language("Farsi") == "fa" and cx.normalise_language("native", "Japan") == "ja"
    with pytest.raises(ValueError):
        cx.normalise_country("France")


def test_cell_parsers():
    assert cx.parse_steps("Step 1: a\nStep 2: b") == ["a", "b"]
    assert cx.parse_steps("۱. برنج\n۲. آب") == ["برنج", "آب"]            # Persian digits
    assert cx.parse_steps("１．鍋\n２．火") == ["鍋", "火"]
    assert cx.parse_choices("A) one\nB) two\ncontinued\nC) three\nD) four") == ["one", "two continued", "three", "four"]
    assert cx.parse_answer("(B)", ["w", "x", "y", "z"]) == 1
    utts, step = cx.split_conversation("**Person A:** Hi?\n**Person B:** Yes.\nPerson A: And?\nPerson B: Boil.\nNext step: 2")
    assert utts == ["Hi?", "Yes.", "And?", "Boil."] and step == 2


def test_subset_and_summary(sample):
    part = sample.subset(countries=["iran", "Japan"], categories=["Food and Cuisine"])
    assert sorted(part.procedures["procedure_id"].unique()) == ["IR-01", "IR-06", "IR-11", "JP-01", "JP-06", "JP-11"]
    assert set(part.mcqs["procedure_id"]) == {"IR-01", "IR-06", "IR-11", "JP-01", "JP-06", "JP-11"} and len(part.conversations) == 6
    assert sample.summary()["procedures"].tolist() == [15] * 7


def test_cb_options_are_built_from_the_next_step(sample):
    assert (sample.conversations["options_source"] == "none").all() and not sample.notes  # the loader adds none
    built = with_cb_options(sample, seed=0)
    english = sample.procedures.query("lang_group == 'English'").set_index("procedure_id")["steps"]
    for c in built.conversations.itertuples():
        steps = english[c.procedure_id]
        assert c.options[c.answer] == steps[c.next_step - 1]
        assert len(set(c.options)) == 4 and set(c.options) <= set(steps)
    assert built.notes[0].startswith("CB-MCQ options are not in Conversations.csv: built by us with seed 0")
    assert with_cb_options(built) is built  # options present: nothing to build
    other = with_cb_options(sample, seed=1).conversations
    assert [o for o in other["options"]] != [o for o in built.conversations["options"]]


def test_options_given_in_the_file_are_kept(copy_dir):
    conv = pd.read_csv(copy_dir / "Conversations.csv", dtype=str, keep_default_na=False)
    conv["Choices"] = "A. one\nB. two\nC. three\nD. four"
    conv["Answer"] = "C"
    conv.to_csv(copy_dir / "Conversations.csv", index=False)
    data = with_cb_options(cx.load(copy_dir.parent, expect="sample"))
    assert set(data.conversations["options_source"]) == {"file"} and set(data.conversations["answer"]) == {2}
    assert not data.notes


def test_cb_distractors_are_steps_the_conversation_has_not_narrated(sample):
    # the threshold separates what utterance 2 narrates (the steps before N) from the rest
    by_position = cc.narration_by_position(sample.conversations, sample.procedures).set_index("position")
    assert by_position.loc["before", "narrated"] > 0.95
    assert by_position.loc["after", "narrated"] < 0.05 and by_position.loc["next", "narrated"] < 0.05
    english = sample.procedures.query("lang_group == 'English'").set_index("procedure_id")["steps"]
    built = with_cb_options(sample, seed=0).conversations
    forced = 0
    for c in built.itertuples():
        steps = english[c.procedure_id]
        fresh = [i for i in range(c.next_step + 1, len(steps) + 1)
                 if cc.narrated_share(steps[i - 1], c.utterances[1]) < cc.NARRATED_SHARE]
        told = [s for s in c.option_steps if s != c.next_step and s not in fresh]
        assert len(told) == max(0, 3 - len(fresh))  # a narrated step only where too few others are left
        forced += len(told)
    rules = cc.distractor_rules_table(sample.conversations, sample.procedures, seed=0).set_index("options")
    # the rule before: a third of the distractors are steps the conversation already narrates …
    assert rules.loc["any", "earlier_distractors"] == 102 and rules.loc["any", "with_narrated_distractor"] > 80
    assert rules.loc["any", "elimination_chance"] > 0.33
    # … now only the forced ones (11 conversations of 5–6 steps with N = 3), and ruling out narrated
    # options gains next to nothing over guessing
    assert rules.loc["unnarrated", "narrated_distractors"] <= forced == 11
    assert 0.25 <= rules.loc["unnarrated", "elimination_chance"] < 0.26
    assert cc.elimination_chance(built) == pytest.approx(rules.loc["unnarrated", "elimination_chance"])
    with pytest.raises(ValueError, match="distractors must be one of"):
        cc.cb_mcq_options(sample.conversations, sample.procedures, distractors="later")


def test_elimination_chance_of_options_given_in_the_file(copy_dir):
    conv = pd.read_csv(copy_dir / "Conversations.csv", dtype=str, keep_default_na=False)
    # CN-01's utterance 2 narrates kneading the dough and preparing the filling
    conv["Choices"] = ("A. Knead a flour-and-water dough and let it rest.\nB. Prepare a filling of chopped pork and "
                       "cabbage.\nC. Roll the dough into a rope and cut it into pieces.\nD. Boil the dumplings.")
    conv["Answer"] = "C"
    conv.head(1).to_csv(copy_dir / "Conversations.csv", index=False)
    data = with_cb_options(cx.load(copy_dir.parent, expect="sample"))
    audit = cc.cb_option_audit(data.conversations)
    assert audit[["narrated_distractors", "correct_narrated", "elimination_accuracy"]].values.tolist() == [
        [2, False, 0.5]]
    assert audit["earlier_distractors"].isna().all()  # the file's options carry no step numbers
    table = cc.distractor_rules_table(data.conversations, data.procedures)
    assert table["options"].tolist() == ["file"] and table["elimination_chance"].tolist() == [0.5]
