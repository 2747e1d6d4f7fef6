"""Metrics (corrected and release-compatible), human-evaluation statistics, Figure 4 counting,
adaptation through a model backend."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from scipy import stats

from culturelab.cultural_recipes import adaptation, concepts, evaluation, human_eval
from culturelab.cultural_recipes import data as cr
from culturelab.cultural_recipes import protocol as cr_protocol
from culturelab.runner import Run

HYPS = ["the cat sat on the mat today", "a dog ran home fast", "hello world again"]
REFS = [["the cat sat on a mat"], ["the dog ran home"], ["hello world"]]


def test_corrected_bleu_uses_reference_streams_and_compat_scores_only_the_first_hypothesis():
    ours = evaluation.corpus_scores(HYPS, REFS, "en")
    assert ours["BLEU"] == pytest.approx(sacrebleu.corpus_bleu(HYPS, [[r[0] for r in REFS]]).score)
    compat = evaluation.corpus_scores(HYPS, REFS, "en", compat="coastalcph-2023")
    # the release's layout = the first hypothesis against all references as one multi-reference set
    first_only = sacrebleu.corpus_bleu(HYPS[:1], [[r[0]] for r in REFS]).score
    assert compat["BLEU"] == pytest.approx(first_only) and compat["BLEU"] != pytest.approx(ours["BLEU"])
    assert compat["ChrF"] == pytest.approx(sacrebleu.corpus_chrf(HYPS[:1], [[r[0]] for r in REFS]).score)


def test_multi_reference_items_are_padded_not_dropped():
    scores = evaluation.corpus_scores(["a b c d e", "f g h i j"], [["x y", "a b c d e"], ["f g h i j"]], "en")
    assert scores["BLEU"] == pytest.approx(100.0)


def test_chinese_rouge_compat_reproduces_the_empty_token_inflation():
    a, b = "红豆汤很甜，小火煮", "绿豆粥不咸，大火蒸"
    fixed = evaluation.rouge_l_best([a], [[b]], "zh")[0]
    release = evaluation.rouge_l_best([" ".join(evaluation.segment(a, "zh"))],
                                      [[" ".join(evaluation.segment(b, "zh"))]], "zh", compat="coastalcph-2023")[0]
    assert fixed == pytest.approx(2 * 3 / 18)  # 豆, '，' and 火 in common, 9 characters each
    assert release > fixed + 0.2
    with pytest.raises(ValueError, match="zh_tokenizer"):
        evaluation.rouge_l_best([a], [[b]], "zh", zh_tokenizer="bpe")


def test_score_outputs_on_the_sample_counts_invalid_outputs():
    silver = cr.load_split("en2zh", "silver", data_source="sample")
    outputs = pd.concat([adaptation.reference_outputs(silver, "en2zh"), adaptation.copy_outputs(silver, "en2zh")])
    table = evaluation.score_outputs(outputs, compat=[None, "coastalcph-2023"], bertscore={"en": None, "zh": None})
    ref = table[(table["system"] == "Ref = retrieved recipe") & (table["compat"] == "corrected")].iloc[0]
    copy = table[(table["system"] == "Source copy") & (table["compat"] == "corrected")].iloc[0]
    assert ref["BLEU"] == pytest.approx(100) and ref["invalid"] == 0
    assert copy["invalid"] == 5 and copy["BLEU"] < 5 and np.isnan(copy["B-Sc"])
    copy_compat = table[(table["system"] == "Source copy") & (table["compat"] == "coastalcph-2023")].iloc[0]
    assert copy_compat["R-L"] > copy["R-L"] + 10  # the empty-token defect
    long = evaluation.long_form(table)
    assert set(long["metric"]) == set(evaluation.METRICS)


def test_segment_scores_and_kendall_with_bonferroni(tmp_path, monkeypatch):
    ratings = cr.load_ratings()
    outputs = []
    for d in ("zh2en", "en2zh"):
        gold = cr.load_split(d, "gold", data_source="sample")
        silver = cr.load_split(d, "silver", data_source="sample")
        outputs += [adaptation.retrieval_outputs(gold, silver, d), adaptation.copy_outputs(gold, d),
                    adaptation.reference_outputs(gold, d, "Human")]
    outputs = pd.concat(outputs, ignore_index=True)
    seg = evaluation.score_segments(outputs, bertscore={"en": None, "zh": None})
    assert len(seg) == len(outputs) and seg["B-Sc"].isna().all()
    joined = human_eval.join_ratings(ratings, outputs, seg)
    assert joined.attrs["unmatched"] == 0 and len(joined) == 30
    tau = human_eval.kendall_table(joined, metrics=("BLEU", "ChrF", "R-L", "B-Sc"))
    assert set(tau["metric"]) == {"BLEU", "ChrF", "R-L"}  # all-NaN BERTScore is not tested
    row = tau[(tau["direction"] == "zh2en") & (tau["criterion"] == "GRA") & (tau["metric"] == "ChrF")].iloc[0]
    part = joined[(joined["direction"] == "zh2en") & (joined["system"] != "Human")]
    expected = stats.kendalltau(part["GRA"], part["ChrF"])
    assert row["tau"] == pytest.approx(expected.statistic) and row["n"] == 10
    # 15 tests here, but the Bonferroni family is the paper's Table 6 of a direction: 5 metrics × 5 rows
    assert row["family_size"] == 25 and row["p_bonferroni"] == pytest.approx(min(1, expected.pvalue * 25))
    monkeypatch.setenv("CULTURELAB_RUNS", str(tmp_path))
    run = Run("cultural_recipes/02_adaptation", {"max_recipes": 0, "ratings_file": "r.csv"}, name="t")
    run.set_data_source("released")
    labels = cr_protocol.table6_labels(run, tau, ["Retrieval"])
    assert not labels["protocol"].str.contains("Bonferroni").any()
    other = human_eval.kendall_table(joined, family_size=15)
    assert cr_protocol.table6_labels(run, other, ["Retrieval"])["protocol"].str.contains(
        "Bonferroni family of 15 tests (the paper: 25", regex=False).all()
    t5 = human_eval.table5(ratings)
    gra = t5[(t5["direction"] == "zh2en") & (t5["system"] == "Retrieval") & (t5["criterion"] == "GRA")].iloc[0]
    assert gra["mean"] == pytest.approx(5.8) and gra["n"] == 5


def test_literal_rates_clip_per_recipe_and_respect_exclusions():
    out = pd.DataFrame({"direction": ["zh2en"] * 2, "system": ["A", "A"],
                        "source_text": ["清蒸鱼，蒸10分钟。加酱油和油", "红烧肉"],
                        "prediction": ["Steam the fish, steamed, steaming. Add soy sauce.", "Braised pork"]})
    rates = concepts.literal_rates(out).set_index(["concept", "direction"])
    steam = rates.loc[("steam", "zh2en")]
    assert steam["c_source"] == 2 and steam["c_literal"] == 2 and steam["rate"] == 1.0  # 3 literal, clipped to 2
    oil = rates.loc[("oil", "zh2en")]
    assert oil["c_source"] == 1 and oil["c_literal"] == 0  # 酱油 is soy sauce, not oil
    raw = concepts.literal_rates(out, clip=False).set_index(["concept", "direction"])
    assert raw.loc[("steam", "zh2en"), "rate"] == 1.5


def test_adaptation_goes_through_one_cached_generate_call(tiny_causal_dir, tmp_cache):
    from culturelab.models import load_model

    model = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    gold = cr.load_split("zh2en", "gold", data_source="sample").head(2)
    out = adaptation.adapt(model, gold, "zh2en", style="bloom", max_new_tokens=8)
    assert len(out) == 2 and out["prompt"].iloc[0].endswith("Recipe in English, adapted to an English-speaking audience:")
    assert out["valid"].dtype == bool and set(out.columns) == set(adaptation.COLUMNS)
    again = adaptation.adapt(model, gold, "zh2en", style="bloom", max_new_tokens=8)
    assert again["raw_output"].tolist() == out["raw_output"].tolist()
    assert model.stats.cached == 2 and model.stats.computed == 2
    with pytest.raises(ValueError, match="style"):
        adaptation.build_prompts(gold, "zh2en", style="gpt5")


def test_the_release_scripts_difference_is_written_from_the_scores():
    preds = ["红豆汤很甜，煮一小时", "绿豆粥"]  # little overlap: the release's empty tokens inflate ROUGE-L
    refs = [["绿豆粥不咸，蒸十分钟"], ["牛肉面加辣椒"]]
    out = pd.DataFrame({"direction": "en2zh", "split": "gold", "system": "A", "prediction": preds,
                        "references": refs, "valid": True})
    scores = evaluation.score_outputs(out, compat=[None, "coastalcph-2023"], bertscore={"en": None, "zh": None},
                                      zh_tokenizer="char")
    text = evaluation.release_findings(scores)
    rl = scores.set_index("compat")["R-L"]
    assert f"{rl['coastalcph-2023'] - rl['corrected']:+.1f}" in text
    assert "higher for every system, as the spec predicts" in text  # empty tokens match each other
    # the same sentence turns when the measured difference does
    flipped = scores.assign(compat=scores["compat"].map({"corrected": "coastalcph-2023",
                                                         "coastalcph-2023": "corrected"}))
    assert "higher for 0 of 1 systems, not every one as the spec predicts" in evaluation.release_findings(flipped)
