"""BERTScore answers from the response cache on a re-run: same scores, no backbone loaded."""

import numpy as np
import pytest

from culturelab.metrics import generation


def test_a_rerun_takes_bertscore_from_the_cache_without_loading_the_backbone(tmp_cache, monkeypatch):
    preds = ["the rice is washed and cooked", "tea is served hot", "the rice is washed and cooked"]
    refs = ["rice is rinsed then boiled", "serve the tea", "rice is rinsed then boiled"]
    first = generation.bertscore(preds, refs)
    assert first.shape == (3,) and first.dtype == np.float32 and first[0] == first[2] and 0 < first[1] < 1

    def no_backbone(*args, **kwargs):
        raise AssertionError("the backbone was loaded on a cached re-run")

    monkeypatch.setattr(generation, "_bertscore_f1", no_backbone)
    np.testing.assert_array_equal(generation.bertscore(preds, refs), first)
    with pytest.raises(AssertionError, match="backbone was loaded"):  # another layer is another score
        generation.bertscore(preds, refs, num_layers=3)
    with pytest.raises(AssertionError, match="backbone was loaded"):  # and no cache, no shortcut
        generation.bertscore(preds, refs, cache=False)


def test_only_the_pairs_missing_from_the_cache_are_computed(tmp_cache, monkeypatch):
    generation.bertscore(["a warm bowl of soup"], ["hot soup in a bowl"])
    seen = []
    real = generation._bertscore_f1

    def counting(predictions, references, **kwargs):
        seen.append(list(predictions))
        return real(predictions, references, **kwargs)

    monkeypatch.setattr(generation, "_bertscore_f1", counting)
    both = generation.bertscore(["a warm bowl of soup", "bread with butter"], ["hot soup in a bowl", "buttered bread"])
    assert seen == [["bread with butter"]] and both.shape == (2,)
    with pytest.raises(ValueError):  # pairs must line up
        generation.bertscore(["one"], ["one", "two"])
