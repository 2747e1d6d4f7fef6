"""Distractor similarity ranks and pick rates; corpus statistics and register cues."""

from __future__ import annotations

import pandas as pd

from culturelab.turkish_plu import corpus as tc
from culturelab.turkish_plu import data as tp
from culturelab.turkish_plu import distractors as ds


def negatives() -> pd.DataFrame:
    rows = []
    goals = {"Kek Nasıl Pişirilir?": ["Unu ele ve karıştır.", "Fırını ısıt hemen.", "Kısa."],
             "Ekmek Nasıl Yapılır?": ["Hamuru yoğur iyice.", "Unu ele ve karıştır."],
             "Kurabiye Nasıl Yapılır?": ["Şekeri ekle yavaşça."], "Pasta Nasıl Süslenir?": ["Kremayı sür düzgünce."]}
    for goal, steps in goals.items():
        others = [g for g in goals if g != goal]
        for rank, (neg, cos) in enumerate(zip(others, [0.9, 0.8, 0.7]), start=1):
            rows.append({"goal": goal, "rank": rank, "negative": neg, "cosine": cos, "steps": steps})
    return pd.DataFrame(rows)


def test_original_gi_items_keep_ranks_and_avoid_shared_steps(corpus_json):
    corpus = tp.read_corpus(corpus_json)
    items = ds.original_gi_instances(negatives(), corpus, seed=0)
    assert len(items) == 4 and items["n_options"].eq(4).all()
    for _, r in items.iterrows():
        assert r["options"][r["label"]] == r["goal"] and r["option_rank"][r["label"]] == 0
        assert sorted(r["option_rank"]) == [0, 1, 2, 3] and r["option_cosine"][r["label"]] == 1.0
        assert r["context"] != "Unu ele ve karıştır." and len(r["context"].split()) >= 3
    again = ds.original_gi_instances(negatives(), corpus, seed=0)
    assert items["options"].tolist() == again["options"].tolist() and items["context"].tolist() == again["context"].tolist()
    assert len(ds.original_gi_instances(negatives(), corpus, max_instances=2)) == 2


def test_similarity_ranks_pick_rates_and_position_confusion():
    t = pd.DataFrame({"options": [["Kek Pişirmek", "Kekler Pişirmek", "Araba Sürmek", "Kedi Beslemek"]],
                      "label": [0], "n_options": [4]})
    ranked = ds.add_similarity_ranks(t, "tfidf")
    assert ranked["option_rank"].iloc[0][:2] == [0, 1] and set(ranked["similarity"]) == {"tfidf"}
    scored = pd.concat([ranked.assign(pred=p, method="m", category="HE") for p in (0, 1, 1, 3)], ignore_index=True)
    rates = ds.pick_rates(scored).set_index("picked")["share"].to_dict()
    assert rates["gold"] == 0.25 and rates["rank 1"] == 0.5 and sum(rates.values()) == 1.0
    assert ds.pick_matrix(ds.pick_rates(scored)).columns.tolist() == ["gold", "rank 1", "rank 2", "rank 3"]
    assert ds.pick_matrix(ds.pick_rates(scored)).attrs["n"] == [4]
    conf = ds.position_confusion(scored)
    assert conf.loc["A"].tolist() == [0.25, 0.5, 0.0, 0.25] and conf.loc["B"].sum() == 0.0
    assert conf.attrs["n"] == [4, 0, 0, 0]


def test_e5_similarity_ranks_are_independent_of_the_surface_tfidf(tmp_cache):
    # the gold's paraphrase shares no character n-grams with it; its look-alike shares many
    t = pd.DataFrame({"task": ["si"], "label": [0], "n_options": [4],
                      "options": [["Köpeğini besle.", "Hayvanına mama ver.", "Köpüğünü temizle.", "Arabayı yıka."]]})
    e5 = ds.add_similarity_ranks(t)  # bundled multilingual e5
    surface = ds.add_similarity_ranks(t, "tfidf")
    assert set(e5["similarity"]) == {"bundled:e5-small"} and sorted(e5["option_rank"].iloc[0]) == [0, 1, 2, 3]
    cos = e5["option_cosine"].iloc[0]
    assert cos[0] == 1.0 and cos[1] > cos[3]  # a paraphrase is closer than an unrelated step
    assert surface["option_rank"].iloc[0][1] == 3  # no shared n-grams: last by surface form
    agree = ds.rank_agreement(e5, surface)
    assert agree[["task", "n"]].values.tolist() == [["si", 1]] and 0 <= agree["same_rank1"].iloc[0] <= 1


def test_corpus_stats_profile_and_register(corpus_json):
    corpus = tp.read_corpus(corpus_json)
    stats = tc.corpus_stats(corpus).set_index("source")
    assert stats.loc["Original", ["tutorials", "steps", "methods"]].tolist() == [2, 5, 2]
    assert stats.loc["H&G", "ordered_share"] == 1.0 and stats.loc["C&E", "ordered_share"] == 0.0
    long = tc.long_stats(stats.reset_index())
    assert set(long["stat"]) == set(tc.STATS)
    profile = tc.category_profile(corpus)
    assert profile.groupby("feature")["scaled"].max().eq(1.0).all()
    assert tc.is_formal_imperative("Kapağı açın.") and not tc.is_formal_imperative("Kapağı aç.")
    frames = {"si test": pd.DataFrame({"task": ["si"], "options": [["Aç.", "Kapatın."]], "label": [1],
                                       "goal": ["Nasıl?"], "context": ["Nasıl?"], "origin": ["original"]})}
    reg = tc.register_table(frames).iloc[0]
    assert (reg["formal_step_share"], reg["question_goal_share"], reg["original_share"]) == (1.0, 1.0, 1.0)


def test_table8_implies_one_confusion_matrix_and_its_exact_precision():
    import culturelab as cl

    table8 = cl.reported.load("turkish_plu", "table8")
    reported, n = table8.set_index("metric")["value"].to_dict(), int(table8["n"].iloc[0])
    assert n == 135  # 15 % of the 900 annotated tutorials
    solutions = tc.confusion_from_metrics(reported, n=n)
    assert solutions.values.tolist() == [[64, 11, 7, 53]]
    exact = tc.metrics_of_confusion(*solutions.iloc[0])
    assert round(float(exact["precision"]), 2) == 85.33 != reported["precision"]  # the paper prints 85.34
    assert tc.confusion_from_metrics({**reported, "recall": 95.0}, n=n).empty
    assert tc.confusion_from_metrics(reported, n=n, tol=0.001).empty  # only with the 0.01 slack
