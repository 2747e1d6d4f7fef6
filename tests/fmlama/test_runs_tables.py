"""Notebook glue: parameter checks name the key; table layouts; Table 3 counts; descriptives."""

from __future__ import annotations

import pandas as pd
import pytest

from culturelab.data import fmlama as F
from culturelab.fmlama import descriptives, tables
from culturelab.fmlama.runs import check_paper_model, check_params, limit
from culturelab.params import ParameterError


def test_parameter_checks_name_the_key():
    check_params(languages=["en", "zh"], templates=[1, 5], contexts=[False, True], settings=["ZH_en"])
    with pytest.raises(ParameterError, match=r"templates: 6 is not one of 1, 2, 3, 4, 5"):
        check_params(templates=[1, 6])
    with pytest.raises(ParameterError, match=r"contexts: 1 is not one of False, True"):
        check_params(contexts=[1])
    with pytest.raises(ParameterError, match=r"languages: must not be empty"):
        check_params(languages=[])
    with pytest.raises(ParameterError, match=r"settings: 'EN_fr'"):
        check_params(settings=["EN_fr"])
    with pytest.raises(ParameterError, match=r"paper_column: 'T5' is not in the paper's table for ar"):
        check_paper_model("T5", ["en", "ar"])


def test_limit_samples_per_group_then_caps():
    table = pd.DataFrame({"group": list("aaabbbccc"), "url": list("123456789")})
    one_each = limit(table, 1, 0, seed=0)
    assert sorted(one_each["group"]) == ["a", "b", "c"]
    assert len(limit(table, 2, 4, seed=0)) == 4 and len(limit(table, 0, 0)) == 9
    assert limit(table, 2, 4, seed=0).equals(limit(table, 2, 4, seed=0))


def test_ingredient_table_counts_and_coverage():
    out = tables.ingredient_table({"en": [["egg", "rice"], ["egg", "salt"]]}, {"en": [["egg"], ["flour", "egg"]]}, n=2)
    assert out["predicted"].tolist() == ["egg", "rice"] and out["predicted_count"].tolist() == [2, 1]
    assert out["gold"].tolist() == ["egg", "flour"] and out["coverage_top_n"].iloc[0] == pytest.approx(3 / 4)


def test_side_by_side_has_the_paper_columns_and_ours():
    summary = pd.DataFrame({"lang": "ar", "model": "ours", "context": False, "group": ["ALL"], "metric": "mAP",
                            "mean": [3.0], "std": [0.5], "n_templates": 5})
    wide = tables.side_by_side(summary, "ar", "mAP")
    assert wide.loc["ALL", "paper: Bb-ar"] == "3.95±1.31" and wide.loc["ALL", "ours: ours"] == "3.00±0.50"
    assert list(wide.index)[-1] == "ALL" and len(wide) == 16
    with pytest.raises(KeyError, match="no mWS"):
        tables.reported_probing("zh", "mWS")


def test_descriptives_on_the_sample():
    dishes = F.load_dishes(source="sample")
    stats = descriptives.dataset_stats(dishes).set_index("quantity")["value"]
    assert stats["dish instances"] == len(dishes) and stats["languages"] == 8
    assert stats["instances with 1 ingredient"] == 2  # dal in en and zh
    sub = descriptives.subset_stats({"en": F.load_language("en", source="sample")})
    assert sub.loc[0, "dishes"] == 19 and sub.loc[0, "single_ingredient"] == 1
    dist = descriptives.ingredient_count_distribution(dishes)
    assert dist.sum() == len(dishes)
