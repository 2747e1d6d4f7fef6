"""Our vecmap-style mapping: exact pieces, and recovery of a planted orthogonal map in every mode."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from culturelab.embeddings import align, bli, space


def planted(n: int = 300, d: int = 20, noise: float = 0.02, seed: int = 0):
    """Source X; target Z = X·R + noise with rows shuffled; gold[i] = row of word i in Z."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    r, _ = np.linalg.qr(rng.normal(size=(d, d)))
    perm = rng.permutation(n)
    z = np.empty_like(x)
    z[perm] = x @ r + noise * rng.normal(size=(n, d))
    return x, z, perm


@pytest.mark.parametrize("mode", ["supervised", "semi_supervised", "identical", "unsupervised", "acl2017_seed"])
def test_every_mode_recovers_a_planted_orthogonal_map(mode):
    x, z, gold = planted()
    src_words = [f"w{i}" for i in range(len(x))]
    trg_words = [f"v{j}" for j in range(len(z))]
    for i in range(30):  # thirty shared strings (names, numbers) for the identical-words mode
        trg_words[gold[i]] = src_words[i]
    n_seed = 100 if mode == "supervised" else 15  # supervised learns from the dictionary alone
    seeds = [(src_words[i], trg_words[gold[i]]) for i in range(30, 30 + n_seed)]
    res = align.VecMap(mode, progress=False, max_iter=60, stochastic_interval=10).fit(
        x, z, seeds if mode not in {"identical", "unsupervised"} else None, src_words=src_words, trg_words=trg_words)
    assert res.n_iter <= 61  # 60 and, when capped under dropout, the re-induction at keep_prob 1
    for retrieval in ("nn", "csls"):
        top, _ = space.translate(res.xw, res.zw, k=1, retrieval=retrieval)
        assert np.mean(top[:, 0] == gold) >= 0.97, (mode, retrieval)
    if mode != "supervised":  # the final dictionary is induced without dropout, capped or not
        assert res.history["keep_prob"].iloc[-1] == 1
        assert np.mean(res.trg_idx[: len(x)] == gold) >= 0.97  # the induced dictionary is the planted one


def test_without_bilingual_signal_a_random_space_is_not_aligned():
    """Control: unsupervised mapping to an unrelated space must not look like a recovery."""
    x, _, _ = planted(seed=1)
    z = np.random.default_rng(2).normal(size=x.shape).astype(np.float32)
    res = align.VecMap("unsupervised", progress=False, max_iter=20, stochastic_interval=5).fit(x, z)
    top, _ = space.translate(res.xw, res.zw, k=1)
    assert np.mean(top[:, 0] == np.arange(len(x))) < 0.05


def test_procrustes_is_exact_on_noiseless_data_and_handles_unequal_dimensions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 6))
    r, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    assert np.allclose(x @ align.procrustes(x, x @ r), x @ r, atol=1e-4)
    w = align.procrustes(x, rng.normal(size=(50, 4)))
    assert w.shape == (6, 4) and np.allclose(w.T @ w, np.eye(4), atol=1e-5)  # semi-orthogonal


def test_normalisation_steps():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(40, 5)) + 3
    unit = space.normalize(m, ["unit"])
    assert np.allclose(space.normalize(unit, ["unit"]), unit, atol=1e-6)
    centered = space.normalize(m, ["center"])
    assert np.allclose(centered.mean(axis=0), 0, atol=1e-5)
    assert np.allclose(space.normalize(centered, ["center"]), centered, atol=1e-5)
    assert np.allclose(np.linalg.norm(space.normalize(m, ["unitdim"]), axis=0), 1, atol=1e-5)
    assert np.allclose(space.normalize(m, ["centeremb"]).mean(axis=1), 0, atol=1e-5)
    with pytest.raises(ValueError, match="unknown normalisation"):
        space.normalize(m, ["scale"])


def test_whitening_makes_the_dictionary_covariance_the_identity():
    rng = np.random.default_rng(0)
    xd = torch.as_tensor(rng.normal(size=(80, 6)) @ rng.normal(size=(6, 6)), dtype=torch.float32)
    w, w_inv = align.whitening(xd)
    assert torch.allclose((xd @ w).T @ (xd @ w), torch.eye(6), atol=1e-3)
    assert torch.allclose(w @ w_inv, torch.eye(6), atol=1e-3)


def test_csls_retrieval_matches_the_brute_force_formula():
    rng = np.random.default_rng(0)
    q = space.normalize(rng.normal(size=(30, 8)), ["unit"])
    t = space.normalize(rng.normal(size=(40, 8)), ["unit"])
    cos = q @ t.T
    r_t = np.sort(cos, axis=1)[:, -5:].mean(axis=1)
    r_s = np.sort(cos.T, axis=1)[:, -5:].mean(axis=1)
    brute = 2 * cos - r_t[:, None] - r_s[None, :]
    idx, scores = space.translate(q, t, k=3, retrieval="csls", csls_k=5, budget_mb=1)  # tiny budget: many blocks
    assert (idx == np.argsort(-brute, axis=1)[:, :3]).all()
    assert np.allclose(scores, np.take_along_axis(brute, idx, axis=1), atol=1e-5)


def test_blocked_induction_equals_the_in_memory_one():
    rng = np.random.default_rng(0)
    x = space.normalize(rng.normal(size=(300, 10)))
    z = space.normalize(rng.normal(size=(250, 10)))
    big = align.induce_dictionary(x, z, csls_k=10, budget_mb=64)
    small = align.induce_dictionary(x, z, csls_k=10, budget_mb=0)  # one row per block
    assert (big.src == small.src).all() and (big.trg == small.trg).all()
    assert big.objective == pytest.approx(small.objective, abs=1e-6)
    cos = x @ z.T
    knn_b = np.sort(cos.T, axis=1)[:, -10:].mean(axis=1)
    assert (big.trg[:300] == np.argmax(cos - knn_b[None, :] / 2, axis=1)).all()


def dense_induction(xw, zw, *, csls_k, direction, keep_prob, generator, budget_mb):
    """Dictionary induction as VecMap defines it, on the whole similarity matrix at once (no
    blocks, no candidates): the slow path the fast one must equal."""
    assert keep_prob == 1 and direction == "union"
    s = xw.numpy().astype(np.float64) @ zw.numpy().T
    knn_f = np.sort(s, axis=1)[:, -csls_k:].mean(axis=1)
    knn_b = np.sort(s.T, axis=1)[:, -csls_k:].mean(axis=1)
    fwd, bwd = (s - knn_b[None, :] / 2).argmax(axis=1), (s.T - knn_f[None, :] / 2).argmax(axis=1)
    return align.Induced(np.concatenate([np.arange(len(s)), bwd]), np.concatenate([fwd, np.arange(s.shape[1])]),
                         float((s.max(axis=1).mean() + s.max(axis=0).mean()) / 2))


def test_the_fast_induction_leaves_the_fit_unchanged(monkeypatch):
    """A whole deterministic fit (no dropout) with the blocked column-reduction induction and with
    the dense textbook one: same dictionaries, same objectives, same mapped spaces, same P@1."""
    x, z, gold = planted(n=400, d=20, noise=0.3, seed=3)
    seeds = [(i, int(gold[i])) for i in range(15)]

    def fit():
        return align.VecMap("semi_supervised", progress=False, stochastic_initial=1.0, stochastic_interval=2,
                            budget_mb=0).fit(x, z, seeds)  # budget 0: one row per block

    fast = fit()
    monkeypatch.setattr(align, "induce_dictionary", dense_induction)
    slow = fit()
    assert fast.n_iter == slow.n_iter > 2
    assert (fast.src_idx == slow.src_idx).all() and (fast.trg_idx == slow.trg_idx).all()
    assert np.allclose(fast.history["objective"], slow.history["objective"], atol=1e-5)
    assert np.allclose(fast.xw, slow.xw, atol=1e-4) and np.allclose(fast.zw, slow.zw, atol=1e-4)
    p1 = [np.mean(space.translate(r.xw, r.zw, k=1, retrieval="csls")[0][:, 0] == gold) for r in (fast, slow)]
    assert p1[0] == p1[1] > 0.5


@pytest.mark.parametrize("keep_prob", [0.3, 0.05])
def test_stochastic_induction_has_the_full_dropout_distribution(keep_prob):
    """Candidates + geometric survivor ranks must pick each cell as often as dropout on the whole
    similarity matrix does (VecMap: a dropped cell is 0, then the arg-max), in both directions and
    also for rows resolved on the full row (survivor beyond the candidates, or not positive)."""
    rng = np.random.default_rng(0)
    x = space.normalize(rng.normal(size=(6, 4)), ["unit"])
    z = space.normalize(rng.normal(size=(40, 4)), ["unit"])
    cos = x @ z.T
    knn_f = np.sort(cos, axis=1)[:, -3:].mean(axis=1)
    knn_b = np.sort(cos.T, axis=1)[:, -3:].mean(axis=1)
    fwd_s, bwd_s = cos - knn_b[None, :] / 2, cos.T - knn_f[None, :] / 2
    gen = torch.Generator().manual_seed(0)
    draws = 3000
    picks = [align.induce_dictionary(x, z, csls_k=3, keep_prob=keep_prob, generator=gen, budget_mb=0)
             for _ in range(draws)]
    fast_f = np.stack([p.trg[:6] for p in picks])
    fast_b = np.stack([p.src[6:] for p in picks])
    for sims, fast in ((fwd_s, fast_f), (bwd_s, fast_b)):
        mask = rng.random((draws, *sims.shape)) < keep_prob
        full = np.where(mask, sims[None], 0).argmax(axis=2)
        for row in range(len(sims)):
            f = np.bincount(fast[:, row], minlength=sims.shape[1]) / draws
            g = np.bincount(full[:, row], minlength=sims.shape[1]) / draws
            assert np.abs(f - g).max() < 0.045, row


def test_seed_pairs_out_of_vocabulary_are_skipped_with_a_warning():
    x, z, gold = planted(n=60, d=5)
    words = [f"w{i}" for i in range(60)]
    seeds = [(words[i], words[gold[i]]) for i in range(10)] + [("pour", "镯")]
    with pytest.warns(UserWarning, match="1 seed pair"):
        res = align.VecMap("semi_supervised", progress=False, max_iter=3).fit(x, z, seeds, src_words=words,
                                                                              trg_words=words)
    assert res.n_seed_pairs == 10 and res.skipped_seed_pairs == [("pour", "镯")]
    with pytest.raises(ValueError, match="needs seed pairs"):
        align.VecMap("semi_supervised", progress=False).fit(x, z)
    with pytest.raises(ValueError, match="mode must be one of"):
        align.VecMap("magic")


def test_validation_history_and_summary():
    x, z, gold = planted(n=120, d=8)
    seeds = [(i, int(gold[i])) for i in range(15)]
    res = align.VecMap("semi_supervised", progress=False, max_iter=8, stochastic_interval=2).fit(
        x, z, seeds, validation={i: {int(gold[i])} for i in range(15, 60)})
    assert list(res.history.columns) == ["iteration", "objective", "keep_prob", "dictionary_size", "seconds", "val_p1"]
    assert res.history["val_p1"].iloc[-1] >= 0.9
    assert res.summary()["mode"] == "semi_supervised" and res.summary()["iterations"] == res.n_iter


def test_bli_precision_and_table2_view():
    gold = [{0}, {3}, {9}]
    idx = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]])
    assert bli.precision_at_k(idx, gold, ks=(1, 5)) == {1: pytest.approx(1 / 3), 5: pytest.approx(2 / 3)}
    nb = bli.neighbours(["a", "zz"], np.eye(3), np.eye(3), ["a", "b", "c"], ["x", "y", "z"], k=2)
    assert nb["query"].unique().tolist() == ["a"] and nb["neighbour"].iloc[0] == "x"
    view = bli.table2_view(nb, {"a": {"y"}})
    assert view.loc[0, "label"] == "literal" and view.loc[0, "first_literal_rank"] == 2


def test_chance_precision_is_the_hypergeometric_mean_over_queries():
    from math import comb

    sizes, n, k = [1, 2, 3, 1, 5], 400, 5
    exact = np.mean([1 - comb(n - g, k) / comb(n, k) for g in sizes])
    assert abs(bli.chance_precision(sizes, n, k) - exact) < 1e-12
    assert bli.chance_precision([1], 3, 10) == 1.0 and np.isnan(bli.chance_precision([], 10, 1))


def _spy_on_induction(monkeypatch) -> list[tuple[float, align.Induced]]:
    """Record the keep_prob and the result of every dictionary induction of a fit."""
    calls: list[tuple[float, align.Induced]] = []
    induce = align.induce_dictionary

    def spy(*args, **kwargs):
        out = induce(*args, **kwargs)
        calls.append((kwargs["keep_prob"], out))
        return out

    monkeypatch.setattr(align, "induce_dictionary", spy)
    return calls


def test_a_capped_fit_learns_its_final_mapping_from_a_dictionary_induced_without_dropout(monkeypatch):
    """VecMap stops only at keep_prob 1; when our max_iter cap stops the loop under dropout, the
    last dictionary is re-induced at keep_prob 1 and the final mapping learns from it."""
    x, z, gold = planted(n=200, d=10, noise=0.1)
    seeds = [(i, int(gold[i])) for i in range(15)]
    calls = _spy_on_induction(monkeypatch)
    capped = align.VecMap("semi_supervised", progress=False, max_iter=3).fit(x, z, seeds)
    assert [p for p, _ in calls] == [0.1, 0.1, 0.1, 1.0]
    last = calls[-1][1]
    assert (capped.src_idx == last.src).all() and (capped.trg_idx == last.trg).all()
    assert {key: capped.summary()[key] for key in ("stop", "converged", "keep_prob_reached", "final_keep_prob",
                                                   "iterations")} == {
        "stop": "max_iter", "converged": False, "keep_prob_reached": 0.1, "final_keep_prob": 1.0, "iterations": 4}
    assert capped.summary()["objective"] == pytest.approx(last.objective)

    calls.clear()  # capped after keep_prob reached 1: that dictionary is already free of dropout
    align.VecMap("semi_supervised", progress=False, max_iter=3, stochastic_initial=1.0).fit(x, z, seeds)
    assert [p for p, _ in calls] == [1.0, 1.0, 1.0]

    calls.clear()  # VecMap's rule at another interval than the preset's: not its convergence
    done = align.VecMap("semi_supervised", progress=False, stochastic_interval=2).fit(x, z, seeds)
    assert done.stop == "other criterion" and not done.converged and done.keep_prob_reached == 1.0
    assert done.criterion == "stochastic_interval 2 (VecMap's semi_supervised: 50)"
    assert [p for p, _ in calls][-3:] == [1.0, 1.0, 1.0] and done.n_iter == len(calls)
    supervised = align.VecMap("supervised", progress=False).fit(x, z, seeds)
    assert supervised.stop == "no self-learning" and supervised.converged and supervised.n_iter == 0


def test_converged_means_vecmaps_criterion_with_the_modes_preset():
    """VecMap ends self-learning when keep_prob is 1 and ``stochastic_interval`` iterations brought no
    improvement of ``threshold``; with the mode's preset settings that is *converged*. An overridden
    interval (the acl2017_seed preset's is 1, the others' 50) ends the loop by another rule."""
    x, z, gold = planted(n=200, d=10, noise=0.1)
    seeds = [(i, int(gold[i])) for i in range(15)]
    preset = align.VecMap("acl2017_seed", progress=False).fit(x, z, seeds)
    assert (preset.stop, preset.converged, preset.criterion) == ("converged", True, "VecMap's")
    # interval 1: the loop ends at the second iteration in a row without improvement
    assert preset.config.stochastic_interval == 1 and preset.n_iter >= 2
    wider = align.VecMap("acl2017_seed", progress=False, stochastic_interval=8).fit(x, z, seeds)
    assert (wider.stop, wider.converged) == ("other criterion", False)
    assert wider.criterion == "stochastic_interval 8 (VecMap's acl2017_seed: 1)"
    assert wider.n_iter >= preset.n_iter + 7 and wider.summary()["criterion"] == wider.criterion
