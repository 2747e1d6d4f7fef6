"""The automatic BLI labels: a taxonomy that does not hold the paper's answers, cooking words
judged by function, CC-CEDICT's multi-word glosses, ``unlabelled`` where nothing can judge, the
labels named as automatic, and the toy run's prose written from its results."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from culturelab.cultural_recipes import alignment, corpus, lexicon
from culturelab.embeddings import bli, dictionaries
from culturelab.protocol import DataUsed, compare
from culturelab.reported import load as load_reported


def _lists(rows: dict[str, list[str]]) -> pd.DataFrame:
    return pd.DataFrame([{"query": q, "rank": r + 1, "neighbour": w} for q, words in rows.items()
                         for r, w in enumerate(words)])


def _labels(rows: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    view = alignment.automatic_labels(_lists(rows)).set_index("query")
    return {q: (view.loc[q, "label"], view.loc[q, "decided_by"]) for q in rows}


def test_the_taxonomy_is_not_built_from_the_papers_table2():
    tax = lexicon.taxonomy()
    assert set(tax) == {"version", "domains"}  # no per-query entries: a query's classes come from its glosses
    members = {str(m) for classes in tax["domains"].values() for words in classes.values() for m in words}
    assert all(re.fullmatch(r"[a-z]+(?:-[a-z]+)?", m) for m in members)  # no numbers, no Chinese, no "350"
    english = set().union(*dictionaries._cedict().values())  # every English word CC-CEDICT translates into

    def in_dictionary(word: str) -> bool:
        return any(form in english for form in (word, word + "s", word[:-1], word[:-2]))

    # the tokens of Table 2's lists no dictionary has (numbers, abbreviations, misspellings, rare dish names)
    # are what only a copy of the table would hold
    table2 = set(load_reported("cultural_recipes", "table2")["neighbour"].astype(str))
    odd = {w for w in table2 if not in_dictionary(w)}
    assert {"350", "pwdr", "kielbasi"} <= odd
    assert not [w for w in odd if lexicon.word_classes(w)]


def test_cooking_methods_are_judged_by_function_and_a_sibling_meat_is_not_cultural():
    labels = _labels({
        "炒": ["onions", "fried", "bake"],  # stir-fry → fried: the same fat-based method
        "蒸": ["bake", "boil"],  # steam (moist heat) → bake (dry heat) first
        "煮": ["simmer", "bake"],  # boil → simmer: moist heat both
        "牛肉": ["pork", "tofu"],  # beef → pork: another meat
        "豆腐": ["boiled", "ham"],  # tofu (soy) → ham (meat); "boiled" is not a protein food
        "筷子": ["spatula", "spoon"],  # chopsticks → spatula: a cooking, not an eating, utensil
    })
    assert labels == {"炒": ("near-literal", "fried"), "蒸": ("cultural", "bake"), "煮": ("near-literal", "simmer"),
                      "牛肉": ("near-literal", "pork"), "豆腐": ("cultural", "ham"), "筷子": ("cultural", "spatula")}


def test_multi_word_glosses_give_literal_translations():
    lit = lexicon.literal_translations(["牛奶", "酱油", "白糖", "馒头", "炒"])
    assert "milk" in lit["牛奶"] and "sugar" in lit["白糖"] and "buns" in lit["馒头"]
    assert {"soy sauce", "sauce"} <= lit["酱油"] and {"stir-fry", "fry", "saute"} <= lit["炒"]
    assert _labels({"牛奶": ["cream", "milk"], "白糖": ["sugar"]}) == {"牛奶": ("literal", "milk"),
                                                                      "白糖": ("literal", "sugar")}


def test_a_query_no_label_can_judge_is_unlabelled_not_an_error():
    assert dictionaries.cedict_glosses(["焯水"]) == {"焯水": set()}
    view = alignment.automatic_labels(_lists({"焯水": ["blanch", "water"], "适量": ["salt", "pepper"],
                                              "沙拉": ["feta", "caesar"]})).set_index("query")
    assert view.loc["焯水", ["label", "label_note"]].tolist() == [
        "unlabelled", "no literal translation known (no dictionary gloss)"]
    assert view.loc["适量", ["label", "label_note"]].tolist() == ["unlabelled", "no taxonomy class"]
    assert view.loc["沙拉", "label"] == "error"  # a dish whose neighbours are no dish
    summary = alignment.bli_summary(view.reset_index(), compare(None, {})).set_index("quantity")
    # the paper's P@5 is over every query (§4.2: N is the total number of pairs), as in the label figure
    assert summary.loc["P@5", ["ours", "n"]].tolist() == [0, 3]
    shares = alignment.label_shares(view.reset_index(), "ours").set_index(["source", "label"])
    assert shares.loc[("ours", "literal"), "n"] == summary.loc["P@5", "n"]
    glossed = summary.loc["P@5 (glossed queries only)"]  # ours, apart: the paper has no such number
    assert glossed[["ours", "n"]].tolist() == [0, 2] and np.isnan(glossed["reported"])
    assert summary.loc["unlabelled", "ours"] == 2 and summary.loc["error (of misses)", "ours"] == 1


def test_the_labels_are_named_automatic_beside_every_number_and_in_the_figure():
    import matplotlib.pyplot as plt

    view = pd.DataFrame({"query": ["蒸", "盐"], "neighbours": [["bake"], ["salt"]], "literal_translations": [
        ["steam"], ["salt"]], "label": ["cultural", "literal"]})
    summary = alignment.bli_summary(view, compare(None, {}, DataUsed("sample")))
    assert summary["labels"].eq(alignment.AUTOMATIC_LABELS).all() and "automatic" in alignment.AUTOMATIC_LABELS
    shares = alignment.label_shares(view, "ours (automatic labels)")
    assert set(shares["label"]) == set(bli.LABELS) and shares["source"].str.contains("by hand").any()
    fig = alignment.labels_figure(view, "ours (automatic labels)", ["steam", "salt", "bake"])
    assert "automatic" in fig.axes[0].get_xlabel() and "by hand" in fig.axes[0].get_xlabel()
    plt.close(fig)
    paper = alignment.table2_beside_paper(view).set_index("query")
    assert paper.loc["水果", "automatic_label_of_paper_list"] == "literal"  # fruit is in its own list


def _toy_view(top: dict[str, list[str]]) -> pd.DataFrame:
    gold = corpus.toy_gold()
    return bli.table2_view(_lists(top), gold["literal"], gold["related"])


def test_the_toy_text_says_what_its_labels_show():
    related = corpus.toy_gold()["related"]
    # the reviewed run: every query literal in the top 5, the planted counterpart first for 蒸
    all_literal = _toy_view({"蒸": ["bake", "steam", "oven"], "盐": ["salt", "sugar"]})
    text = alignment.toy_findings(all_literal, corpus.PLANTED, related, chance=0.09)
    assert "2 of 2 queries have their literal translation" in text and "every one is *literal*" in text
    assert "1 have their planted counterpart as the first neighbour (蒸 → bake)" in text
    assert "not in the label" in text
    # a run where the planted word misses its literal translation reads differently
    planted_only = _toy_view({"蒸": ["bake", "oven"], "盐": ["sugar", "salt"]})
    text = alignment.toy_findings(planted_only, corpus.PLANTED, related, chance=0.09)
    assert "1 of 2 queries" in text and "1 of 2 are *literal*" in text and "0 of them" in text
    assert alignment.label_counts(planted_only)["cultural"] == 1


def test_the_real_vectors_text_names_how_each_fit_ended():
    scores = pd.DataFrame({"mode": ["unsupervised", "supervised"], "retrieval": "csls", "k": 1,
                           "precision": [0.54, 0.17], "ci_low": [0.42, 0.1], "ci_high": [0.66, 0.28],
                           "chance": 0.0005, "n_queries": 63, "stop": ["converged", "no self-learning"],
                           "iterations": [150, 0], "seconds": [200.0, 2.0]})
    text = alignment.real_vectors_findings(scores)
    assert text.index("unsupervised 0.54 [0.42, 0.66] (converged after 150 iterations, 200 s)") < \
        text.index("supervised 0.17")
    assert "overlaps no other mode" in text and "Not converged" not in text
    assert "Not converged by VecMap's criterion (the numbers of another run than the method's): unsupervised" in \
        alignment.real_vectors_findings(scores.assign(stop=["max_iter", "no self-learning"]))
    other = alignment.real_vectors_findings(scores.assign(stop=["other criterion", "no self-learning"],
                                                          criterion=["stochastic_interval 8 (VecMap's unsupervised: "
                                                                     "50)", "VecMap's"]))
    assert "by VecMap's rule with stochastic_interval 8 (VecMap's unsupervised: 50)" in other
    assert "Not converged by VecMap's criterion" in other
    assert "Best" not in alignment.real_vectors_findings(scores.head(1))  # nothing to compare


@pytest.mark.parametrize("query,gloss", [("蒸", "steam"), ("豆腐", "tofu"), ("筷子", "chopsticks")])
def test_a_query_gets_its_classes_from_its_glosses(query, gloss):
    lit = lexicon.literal_translations([query])
    assert gloss in lit[query] and lexicon.related_words([query], lit)[query]


@pytest.mark.parametrize("query,literal,not_literal", [
    ("鸡肉", {"chicken"}, {"meat"}),  # 'chicken meat': 鸡 is chicken, meat is a light head
    ("切", {"cut", "slice"}, {"to"}),  # '(bound form) close to': a stop word is no translation
    ("炸", {"fry"}, {"deep"}),  # 'to deep fry': the verb after the manner word
    ("淀粉", {"starch"}, {"n"}),  # 'amylum (C6H10O5)n': the formula's glued letter is no word
    ("汤", {"soup"}, {"water"}),  # 'hot or boiling water': a coordination has no head
    ("鸡精", set(), {"powder"}),  # 'chicken bouillon powder': two modifiers, a light head
])
def test_the_gloss_head_rule_on_the_listed_cases(query, literal, not_literal):
    forms = lexicon.literal_translations([query])[query]
    assert literal <= forms and not (not_literal & forms), sorted(forms)
    assert not forms & dictionaries.stop_words()


def test_chicken_is_the_literal_translation_of_chicken_meat_not_a_cultural_equivalent():
    assert _labels({"鸡肉": ["chicken", "pork"], "汤": ["water", "stock"], "炸": ["deep", "oil"]}) == {
        "鸡肉": ("literal", "chicken"), "汤": ("error", ""), "炸": ("error", "")}


def test_no_stop_word_is_ever_a_gloss():
    stops = dictionaries.stop_words()
    assert {"to", "up", "of", "or", "make"} <= stops and not {"fry", "thick", "thin", "fill"} & stops
    english = set().union(*dictionaries._cedict().values())
    assert not english & stops


def test_the_labellers_agreement_with_table2_is_said_not_to_validate_it():
    beside = alignment.table2_beside_paper(pd.DataFrame({"query": [], "neighbours": [], "label": []}))
    text = alignment.table2_agreement(beside)
    agree = int((beside["paper_reading"] == beside["automatic_label_of_paper_list"]).sum())
    assert f"for {agree} of 6 queries" in text and "Not a validation" in text and "Table 2 in view" in text
    assert "Table 2 in view" in alignment.AUTOMATIC_LABELS  # and in every label of our numbers
    flipped = beside.assign(automatic_label_of_paper_list=beside["paper_reading"])
    assert "for 6 of 6 queries." in alignment.table2_agreement(flipped)


def test_the_in_domain_rate_has_a_chance_baseline():
    from math import comb

    vocab = ["bake", "boil", "roast", "ham", "pork", "fork", "350", "pans", "oblong", "salt"]
    related = {"蒸": {"bake": "cultural", "boil": "near-literal", "roast": "cultural"},
               "豆腐": {"ham": "cultural", "pork": "cultural", "beans": "near-literal"}}
    view = pd.DataFrame({"query": ["蒸", "豆腐", "盐"],
                         "neighbours": [["350", "pans", "oblong"], ["ham", "fork", "salt"], ["salt"]]})
    found = alignment.in_domain(view, related, vocab, k=3)
    # 蒸: 3 domain words in the vocabulary, 豆腐: 2 (beans is not in it); 盐 has no class
    exact = np.mean([1 - comb(10 - g, 3) / comb(10, 3) for g in (3, 2)])
    assert found == {"queries": 2, "observed": 0.5, "chance": pytest.approx(exact)}
    text = alignment.in_domain_findings(found, k=3)
    assert f"a random top 3 would for {exact:.2f}" in text and "0.50 of the 2 queries" in text


def test_the_in_domain_rate_counts_only_the_queries_with_a_class():
    """The toy sample's gold lexicon lists every word, most with no related word (``{}``): those have
    no class, so they are neither among "the queries with a class" nor diluting its shares."""
    from culturelab.cultural_recipes import corpus

    related = corpus.toy_gold()["related"]
    assert related["蒸"] and related["盐"] == {}
    view = pd.DataFrame({"query": ["蒸", "盐", "水"], "neighbours": [["bake", "350"], ["salt"], ["water"]]})
    found = alignment.in_domain(view, related, ["bake", "350", "salt", "water"], k=2)
    assert found == {"queries": 1, "observed": 1.0, "chance": pytest.approx(0.5)}
    assert "the 1 queries with a class" in alignment.in_domain_findings(found, k=2)
