"""The labelled PERCUL answers (issue 30, item 12): how the real ones are gathered, and what the set holds."""

from __future__ import annotations

import json

from culturelab.models import load_model
from culturelab.percul.data import SPLITS, load
from culturelab.percul.gold import COLUMNS, harvest


def test_harvest_keeps_each_distinct_answer_once_with_its_options_and_no_parse(tiny_causal_dir, tmp_cache):
    model = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    benches = {s: load(s, data_source="sample") for s in SPLITS}
    t = harvest(model, benches, ["en-v1-96", "fa-v2-stop"], max_instances=2)
    assert list(t.columns) == COLUMNS and t["raw"].is_unique and set(t["variant"]) <= {"en-v1-96", "fa-v2-stop"}
    options = {(s, i): o for s, b in benches.items() for i, o in zip(b.items["id"], b.items["options"])}
    split = {"en-v1-96": SPLITS[1], "fa-v2-stop": SPLITS[0]}
    for _, row in t.iterrows():  # the options as shown with that story
        assert json.loads(row["context"])["options"] == list(options[(split[row["variant"]], row["story"])])
    asked = model.stats.computed
    again = harvest(model, benches, ["en-v1-96", "fa-v2-stop"], max_instances=2)
    assert again.equals(t) and model.stats.computed == asked  # every answer came from the cache


def test_the_labelled_answers_hold_every_shape_in_both_splits():
    """Issue 30, item 12: at least 200 labelled answers — real ones from the bundled models, the Figure 9
    JSON shape and the adversarial shapes —, split into dev and held-out before the parser was changed,
    the held-out part measured apart."""
    from culturelab import parsing_gold

    gold = parsing_gold.load("percul")
    assert len(gold) >= 200 and gold["id"].is_unique and set(gold["split"]) == {"dev", "held-out"}
    assert (gold["expected"].isna() == gold["verdict"].isin(["invalid", "refusal"])).all()
    held = gold[gold["split"] == "held-out"]
    real = gold["source"].str.startswith("bundled")
    assert real.sum() >= 50 and (real & (gold["split"] == "held-out")).sum() >= 30
    for shape in ("Figure 9 JSON shape", "placeholder left in", "echoed option list", "digit in prose",
                  "Persian number word", "number disagrees with the option text"):
        for part in (held, gold[gold["split"] == "dev"]):
            assert part["source"].str.endswith(shape).sum() >= 3, shape
    # the two shapes of item 11 are dev answers (the parser was fixed against them), and no answer
    item11 = gold[gold["note"].str.contains("issue 30 item 11")]
    assert len(item11) == 2 and set(item11["split"]) == {"dev"} and set(item11["verdict"]) == {"invalid"}
    table = parsing_gold.quality_table(["percul"]).set_index(["split", "mode"])
    assert table.loc[("held-out", "strict"), "n"] == len(held)
