"""Fitted mappings cached on disk: a hit costs no fit, any changed input or setting fits again, and
an unreadable entry (corrupted, cut short) is fitted again rather than trusted. Test words never
seed a mapping."""

from __future__ import annotations

import numpy as np
import pytest

from culturelab.embeddings import align, fit_cache


def _pair(seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(80, 6)).astype(np.float32)
    z = x @ np.linalg.qr(rng.normal(size=(6, 6)))[0].astype(np.float32)
    return x, z, [(i, i) for i in range(15)]


@pytest.fixture()
def fits(monkeypatch) -> list[str]:
    """Count the fits that really run."""
    calls: list[str] = []
    fit = align.VecMap.fit

    def counting(self, *args, **kwargs):
        calls.append(self.mode)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(align.VecMap, "fit", counting)
    return calls


def _mapper(**overrides) -> align.VecMap:
    return align.VecMap("acl2017_seed", progress=False, device="cpu", **overrides)


def test_a_second_fit_of_the_same_inputs_is_read_from_disk(tmp_path, fits):
    x, z, seeds = _pair()
    first = fit_cache.cached_fit(_mapper(), x, z, seeds, folder=tmp_path)
    again = fit_cache.cached_fit(_mapper(), x.copy(), z.copy(), list(seeds), folder=tmp_path)
    assert fits == ["acl2017_seed"] and not first.cached and again.cached
    assert np.array_equal(first.xw, again.xw) and np.array_equal(first.trg_idx, again.trg_idx)
    assert again.summary() == first.summary() and again.history.equals(first.history)
    assert again.config == first.config and again.stop == first.stop == "converged"


@pytest.mark.parametrize("change", ["vectors", "seeds", "setting", "words"])
def test_any_changed_input_is_fitted_again(tmp_path, fits, change):
    x, z, seeds = _pair()
    words = [f"w{i}" for i in range(len(x))]
    fit_cache.cached_fit(_mapper(), x, z, seeds, src_words=words, trg_words=words, folder=tmp_path)
    mapper = _mapper(stochastic_interval=3) if change == "setting" else _mapper()
    if change == "vectors":
        x = x.copy()
        x[5, 2] += 1e-3
    if change == "seeds":
        seeds = seeds[:-1]
    if change == "words":
        words = [*words[:-1], "other"]
    again = fit_cache.cached_fit(mapper, x, z, seeds, src_words=words, trg_words=words, folder=tmp_path)
    assert len(fits) == 2 and not again.cached


@pytest.mark.parametrize("damage", ["garbage", "cut short", "another key"])
def test_an_unreadable_entry_is_fitted_again_and_replaced(tmp_path, fits, damage):
    x, z, seeds = _pair()
    first = fit_cache.cached_fit(_mapper(), x, z, seeds, folder=tmp_path)
    (path,) = tmp_path.glob("*.npz")
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not a mapping")
    elif damage == "cut short":
        path.write_bytes(data[: len(data) // 2])
    else:  # a valid file of another fit under this name
        other = fit_cache.cached_fit(_mapper(), *_pair(seed=1), folder=tmp_path / "other")
        path.write_bytes(next((tmp_path / "other").glob("*.npz")).read_bytes())
        assert not np.array_equal(other.xw, first.xw)
    with pytest.warns(UserWarning, match="unreadable"):
        again = fit_cache.cached_fit(_mapper(), x, z, seeds, folder=tmp_path)
    assert not again.cached and np.array_equal(again.xw, first.xw)
    assert fit_cache.cached_fit(_mapper(), x, z, seeds, folder=tmp_path).cached  # replaced by a good entry
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary file left behind


def test_test_words_never_seed_the_identical_strings_mapping():
    """The identical-strings dictionary of an fr → en check held the test pairs france, train …;
    held-out source words are removed from any initial dictionary and counted."""
    x, z, _ = _pair()
    src = ["france", "train", "bus", *[f"fr{i}" for i in range(77)]]
    trg = ["france", "train", "bus", *[f"en{i}" for i in range(77)]]
    for i in range(3, 23):  # twenty more shared strings to start from
        trg[i] = src[i]
    mapper = align.VecMap("identical", progress=False, device="cpu", max_iter=2)
    kept = mapper.fit(x, z, src_words=src, trg_words=trg)
    held = mapper.fit(x, z, src_words=src, trg_words=trg, held_out={"france", "train"})
    assert (kept.n_seed_pairs, kept.seed_pairs_held_out) == (23, 0)
    assert (held.n_seed_pairs, held.seed_pairs_held_out) == (21, 2) and held.summary()["seed_pairs_held_out"] == 2
    seeded = align.VecMap("supervised", progress=False, device="cpu").fit(
        x, z, [("france", "france"), ("bus", "bus"), *[(src[i], trg[i]) for i in range(3, 23)]],
        src_words=src, trg_words=trg, held_out={"bus"})
    assert (seeded.n_seed_pairs, seeded.seed_pairs_held_out) == (21, 1)
    with pytest.raises(ValueError, match="held out"):
        mapper.fit(x, z, src_words=src, trg_words=trg, held_out=set(src))
