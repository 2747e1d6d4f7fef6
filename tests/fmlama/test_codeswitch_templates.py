"""Templates, localized countries, code-switching settings and the released score tables."""

from __future__ import annotations

import pandas as pd
import pytest

from culturelab.fmlama import codeswitch as C
from culturelab.fmlama import data as F
from culturelab.fmlama.templates import build_queries, country_name, fill_in_prompt, templates
from culturelab.protocol import DataUsed, Deviations


def test_five_templates_per_language_and_context_variants():
    for lang in F.LANGUAGES:
        for version in ("v1", "v2"):
            plain, ctx = templates(lang, version=version), templates(lang, context=True, version=version)
            assert len(plain) == len(ctx) == 5 and all("[C]" in t for t in ctx)
    assert templates("en")[0] == "The food [X] has the ingredients of [Y] ."  # repo string, as probed
    assert templates("he", version="v3")[1] == ".[Y] הוא מאכל עם [X]"  # the repo's swapped Hebrew
    assert templates("he")[1] == "[X] הוא מאכל עם [Y]."


def test_placeholders_are_replaced_literally():
    q = build_queries(pd.DataFrame({"url": ["u"], "dish": ["XXL Cake"], "origin": ["Canada"]}), "en",
                      context=True, template_ids=[1])
    assert q["query"].iloc[0] == "In Canada, the food XXL Cake has the ingredients of [Y] ."
    with pytest.raises(ValueError, match="template ids"):
        build_queries(pd.DataFrame({"url": [], "dish": [], "origin": []}), "en", template_ids=[6])


def test_localized_country_names_cover_every_origin(release_dir):
    dishes = F.load_dishes(data_source="local")
    for lang in F.LANGUAGES:
        names = {o: country_name(o, lang) for o in set(dishes["origin"])}
        untranslated = [o for o, n in names.items() if n == o and lang != "en"]
        assert not untranslated, (lang, untranslated)
    assert country_name("Japan", "zh") == "日本" and country_name("Wales", "ru") == "Уэльс"


def test_fill_in_prompts():
    assert fill_in_prompt("铜锣烧", "zh", instruction="one") == "美食铜锣烧是以[]为主要原料制作的。请用一个词填充这个句子。"
    assert fill_in_prompt("x", "en", context=True, country="Japan").startswith("In Japan, the food x")


def test_all_six_by_six_settings_on_the_sample():
    subsets = {la: F.load_language(la, data_source="sample") for la in F.LANGUAGES}
    wide = C.multilingual_wide(subsets)
    assert len(wide) == 6
    settings = C.pair_settings(F.LANGUAGES)
    assert len(settings) == 36 and "RU_ko" in settings
    view = F.setting_view(wide, "RU_ko").set_index("url")
    row = view.loc["http://www.wikidata.org/entity/Q900005"]
    assert row["dish"] == "초밥" and row["ingredients"] == ["рис", "уксус", "рыба"] and row["lang"] == "ru"
    with pytest.raises(ValueError, match="setting"):
        F.setting_view(wide, "en_EN")


def test_released_tables_11_and_12_equal_the_paper(release_dir):
    scores = C.add_average(C.released_scores(F.Release("local"), "mAP"))
    cmp = C.compare_released(scores, Deviations((), DataUsed("released")))
    assert len(cmp) == 2 * 4 * 9 * 4 and cmp["ours"].notna().all() and cmp["comparable"].all()
    assert cmp["delta"].abs().max() <= 0.005
    # Table 11(d) (ZH_en, no context) is transcribed from the release: labelled, and no Δ by construction
    from_release = cmp["source"] == "release"
    assert set(cmp.loc[from_release, "setting"]) == {"ZH_en"} and not cmp.loc[from_release, "context"].any()
    assert from_release.sum() == 9 * 4 and cmp.loc[from_release, "delta"].isna().all()
    assert cmp.loc[~from_release, "delta"].notna().all()
    mws = C.released_scores(F.Release("local"), "mWS")
    assert mws[(mws["setting"] == "ZH_zh") & (mws["group"] == "ALL")]["mean"].isna().all()  # the paper's NaNs


def test_en_zh_above_en_en_is_read_from_the_released_scores(release_dir):
    """Notebook 03's sentence: EN_zh beats EN_en for Japan and India with the multilingual BERTs
    without context, and for no group with mB-u with context (the old prose claimed it for all)."""
    scores = C.released_scores(F.Release("local"), "mAP")
    above = C.where_above(scores, "EN_zh", "EN_en", models=["mB-c", "mB-u"], groups=F.CS_GROUPS)
    cells = set(zip(above["model"], above["context"], above["group"]))
    assert {("mB-c", False, "Japan"), ("mB-u", False, "India"), ("mB-c", True, "India")} <= cells
    assert not [c for c in cells if c[:2] == ("mB-u", True)]
    assert (above["EN_zh"] > above["EN_en"]).all()
