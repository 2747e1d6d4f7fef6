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
