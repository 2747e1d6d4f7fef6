"""Decoding constrained to permutations: every answer is a valid order, greedy decoding picks at each
position the label with the most probability summed over its tokenisations (equal to an unbatched
reference loop; a label is not scored by one forced spelling), constrained requests are cached apart
from free ones, backends that cannot constrain say so, and ``plan`` counts them."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import torch

from culturelab.models import capabilities, load_model
from culturelab.models.base import PermutationConstraint
from culturelab.models.counting import CountingModel
from culturelab.models.hf import HFCausalLM
from culturelab.models.permutations import PermutationTokens, permutation_tokens
from culturelab.models.replay import ReplayModel

PROMPTS = ["rice is cooked with", "Order: A. tea B. sugar C. boil", "the soup has lentils and onion, then",
           "饺子 包 肉", "bread is baked with flour", "pilav pirinç ile yapılır"]
SIZES = [2, 5, 10, 3, 7, 12]


@pytest.fixture(scope="module")
def tiny(tiny_causal_dir):
    return HFCausalLM(str(tiny_causal_dir), device="cpu", cache=False, progress=False, batch_size=4)


def _constraints(sizes=SIZES, sep=", "):
    return [PermutationConstraint.letters(n, sep) for n in sizes]


def test_every_constrained_answer_is_a_permutation(tiny):
    out = tiny.generate(PROMPTS, constraint=_constraints(), chat=False)
    for text, n in zip(out, SIZES):
        letters = text.split(", ")
        assert sorted(letters) == [chr(65 + i) for i in range(n)], text
    # the same guarantee when sampling, with another separator, and for a single shared constraint
    sampled = tiny.generate(PROMPTS[:3], constraint=_constraints(SIZES[:3], sep=" "), temperature=1.0, seed=3, chat=False)
    assert all(sorted(t.split(" ")) == [chr(65 + i) for i in range(n)] for t, n in zip(sampled, SIZES)), sampled
    shared = tiny.generate(PROMPTS[:3], constraint=PermutationConstraint(("yes", "no", "maybe")), chat=False)
    assert all(sorted(t.split(", ")) == ["maybe", "no", "yes"] for t in shared), shared


def _reference_greedy(lm: HFCausalLM, prompt: str, constraint: PermutationConstraint) -> str:
    """One prompt at a time, no padding, no cache: at each position every remaining label's
    probability summed over its tokenisations, each from a full forward pass; the best label's
    likeliest tokenisation is written."""
    table = permutation_tokens(lm.tokenizer, constraint, prompt)
    ids = lm._encode(prompt)
    tokens: list[int] = []
    written: list[int] = []
    with torch.inference_mode():
        while len(written) < len(constraint.labels):
            scores, best = {}, {}
            for label, paths in table.paths(written).items():
                lps = []
                for path in paths:
                    logits = lm.model(input_ids=torch.tensor([ids + tokens + list(path)])).logits[0].float()
                    lp = torch.log_softmax(logits, -1)
                    start = len(ids) + len(tokens) - 1
                    lps.append(sum(lp[start + j, t].item() for j, t in enumerate(path)))
                scores[label] = torch.logsumexp(torch.tensor(lps, dtype=torch.float64), 0).item()
                best[label] = paths[max(range(len(paths)), key=lps.__getitem__)]
            label = max(scores, key=scores.get)
            tokens += best[label]
            written.append(label)
    return constraint.sep.join(constraint.labels[k] for k in written)


def test_batched_greedy_equals_the_best_label_step_by_step(tiny):
    sizes = [3, 4, 2, 3, 2]  # five prompts of different lengths: two left-padded batches of tiny's batch size 4
    batched = tiny.generate(PROMPTS[:5], constraint=_constraints(sizes), chat=False)
    assert batched == [_reference_greedy(tiny, p, c) for p, c in zip(PROMPTS, _constraints(sizes))]
    # and free generation, unconstrained, rarely writes a permutation: the constraint does the work
    free = tiny.generate(PROMPTS[:5], max_new_tokens=12, chat=False)
    assert not any(c.accepts(t) for t, c in zip(free, _constraints(sizes)))


@pytest.fixture(scope="module")
def fixed_lm(tmp_path_factory):
    """A tiny GPT-2 whose next-token distribution is the same after any text: bare letters favour C,
    letters after a space A (C, A, B bare; " A" ≫ " C" > " B"), so forcing the bare first letter
    would answer C where the letters' whole probability says A."""
    from culturelab.models.tiny import build_tiny_gpt2

    folder = build_tiny_gpt2(["Answer: C, A, B", "Answer: A", "Answer: B", "Answer:\nC"] * 8,
                             tmp_path_factory.mktemp("fixed-gpt2"))
    lm = HFCausalLM(str(folder), device="cpu", cache=False, progress=False)
    vocab = lm.tokenizer.get_vocab()
    logits = torch.zeros(len(vocab))
    for token, value in {"C": 2.0, "A": 1.5, "B": 1.0, "ĠA": 5.0, "ĠC": 3.5, "ĠB": 3.0, ",": 4.0, "Ċ": 1.0}.items():
        logits[vocab[token]] = value
    with torch.no_grad():  # the final norm outputs a constant vector: the logits are the same at every position
        lm.model.transformer.ln_f.weight.zero_()
        lm.model.transformer.ln_f.bias.zero_()
        lm.model.transformer.ln_f.bias[0] = 1.0
        lm.model.lm_head.weight[:, 0] = logits
    return lm, logits, vocab


def test_a_label_is_scored_over_all_its_tokenisations_not_its_bare_token(fixed_lm):
    lm, logits, vocab = fixed_lm
    prompt = "Order the steps.\nAnswer:"
    bare = max("ABC", key=lambda x: logits[vocab[x]].item())  # what forcing the bare first letter picks
    answer = lm.generate([prompt], constraint=PermutationConstraint.letters(3), chat=False)[0]
    assert bare == "C" and answer == "A, C, B" == _reference_greedy(lm, prompt, PermutationConstraint.letters(3))
    from culturelab.models import base

    assert base.CONSTRAINED_DECODING_VERSION >= 2  # answers of the bare-token algorithm (1) are never served
    table = permutation_tokens(lm.tokenizer, PermutationConstraint.letters(3), prompt)
    spelled = {lm.tokenizer.decode(list(p)) for p in table.first[0]}
    assert {"A", " A", "\nA", "\n A"} <= spelled  # bare, after a space, after a line break


def test_label_tokens_of_the_bundled_tokenizers_decode_to_the_answer():
    from transformers import AutoTokenizer

    from culturelab.models.bundled import bundled_model_dir

    for name in ("gemma3-270m", "smollm2-135m"):
        tok = AutoTokenizer.from_pretrained(bundled_model_dir(name))
        table = permutation_tokens(tok, PermutationConstraint.letters(10), "…the letters.\nAnswer:")
        order = [9, 2, 0, 5, 1, 8, 3, 7, 4, 6]
        for k in range(len(table.first[0])):  # every spelling of the first label, then the natural later ones
            ids = [*table.first[order[0]][k], *(t for i in order[1:] for t in table.later[i][0])]
            assert tok.decode(ids).strip() == ", ".join(chr(65 + i) for i in order), name
        assert {tok.decode(list(p)) for p in table.first[2]} >= {"C", " C", "\nC", "\n C"}, name


def test_ambiguous_label_tokens_are_refused():
    with pytest.raises(ValueError, match="none may start another"):
        PermutationTokens(first=(((1,),), ((1, 2),)), later=(((5, 1),), ((5, 1, 2),)))
    with pytest.raises(ValueError, match="distinct"):
        PermutationConstraint(("A", "A"))
    with pytest.raises(ValueError, match="separator"):
        PermutationConstraint(("A, B", "C"))


def test_constrained_requests_are_cached_apart_from_free_ones(tiny_causal_dir, tmp_cache):
    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)  # lazy: weights on the first miss
    stored: list[set[str]] = []
    put = lm.cache.put_many
    lm.cache.put_many = lambda rows: (stored.append(set(rows)), put(rows))[1]
    prompts = PROMPTS[:3]
    free = lm.generate(prompts, max_new_tokens=8)
    constrained = lm.generate(prompts, constraint=_constraints(SIZES[:3]))
    assert lm.stats.by_kind == {"generate": 3, "generate_constrained": 3}  # nothing served across the two
    assert len(stored) == 2 and not stored[0] & stored[1] and free != constrained
    # a repeat is served from the cache (max_new_tokens does not apply to constrained requests)
    again = lm.generate(prompts, constraint=_constraints(SIZES[:3]), max_new_tokens=99)
    assert again == constrained and lm.stats.by_kind["generate_constrained"] == 3 and lm.stats.cached == 3
    # the constraint is part of the key: another separator, or other labels, is another request
    lm.generate(prompts[:1], constraint=PermutationConstraint.letters(2, " "))
    lm.generate(prompts[:1], constraint=PermutationConstraint(("B", "A")))
    assert lm.stats.by_kind["generate_constrained"] == 5 and len(set().union(*stored)) == 8


def test_a_new_constrained_algorithm_recomputes_instead_of_serving_the_old_answers(tiny_causal_dir, tmp_cache,
                                                                                      monkeypatch):
    from culturelab.models import base

    lm = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    lm.generate(PROMPTS[:2], constraint=_constraints(SIZES[:2]))
    lm.generate(PROMPTS[:2], constraint=_constraints(SIZES[:2]))
    assert lm.stats.by_kind == {"generate_constrained": 2} and lm.stats.cached == 2
    monkeypatch.setattr(base, "CONSTRAINED_DECODING_VERSION", base.CONSTRAINED_DECODING_VERSION + 1)
    lm.generate(PROMPTS[:2], constraint=_constraints(SIZES[:2]))
    assert lm.stats.by_kind == {"generate_constrained": 4} and lm.stats.cached == 2


def test_backends_that_cannot_constrain_say_so(tmp_path):
    replay_file = tmp_path / "gens.jsonl"
    replay_file.write_text(json.dumps({"prompt": "p", "response": "A, B"}) + "\n")
    for spec in ("hf:org/model", "bundled:gemma3-270m"):
        assert capabilities(spec)["generate_constrained"] is None
    for spec in ("openai:gpt-4o", "openai-compatible:http://h/v1#m", "masked:bert", "seq2seq:t5",
                 f"replay:{replay_file}"):
        assert capabilities(spec)["generate_constrained"], spec
        assert capabilities(spec)["generate"] is None or spec.startswith("masked")
    with pytest.raises(NotImplementedError, match="cannot constrain decoding"):
        ReplayModel(str(replay_file), cache=False).generate(["p"], constraint=PermutationConstraint.letters(2))


def test_plan_counts_constrained_requests_as_the_model_computes_them(tiny_causal_dir, tmp_cache):
    counted = CountingModel("hf:tiny", tokenizer=None)
    real = load_model(f"hf:{tiny_causal_dir}", device="cpu", progress=False)
    calls = [(PROMPTS, _constraints()), (PROMPTS[:2], _constraints()[:2]), (PROMPTS[:1], _constraints([4]))]
    for prompts, constraints in calls:  # the second call repeats, the third asks for another constraint
        answers = counted.generate(prompts, constraint=constraints)
        assert all(c.accepts(a) for a, c in zip(answers, constraints))
        real.generate(prompts, constraint=constraints)
    billed = [r for r in counted.records if r["kind"] == "generate_constrained"]
    assert sum(r["requests"] for r in billed) == real.stats.by_kind["generate_constrained"] == len(PROMPTS) + 1
    assert sum(r["generated_tokens"] for r in billed) == 2 * (sum(SIZES) + 4)
    counted.generate(PROMPTS[:1], max_new_tokens=5)
    assert [r["kind"] for r in counted.records][-1] == "generate"  # free generation stays its own kind


def test_the_findings_say_where_the_constrained_curve_lies_from_its_interval():
    from culturelab.tasks.reorder import decoding_findings, decoding_summary

    def constrained(rhos: list[float]) -> pd.DataFrame:
        return pd.DataFrame({"decoding": "constrained", "valid": True, "rho": rhos, "perm": [[0, 1, 2, 3, 4]] * len(rhos),
                             "pred_order": [[0, 1, 2, 3, 4]] * len(rhos), "n_steps": 5})

    assert "): above the random expectation" in decoding_findings(decoding_summary(constrained([0.6, 0.8, 0.7] * 4)))
    assert "): below the random expectation" in decoding_findings(decoding_summary(constrained([-0.6, -0.8] * 6)))
    on = decoding_findings(decoding_summary(constrained([-0.5, 0.5] * 6)))
    assert "): on the random expectation" in on and "Under free generation" not in on
    assert "pulls the answers" not in on  # as shown (A, B, C, …), not the example's "C, A, B"
    copies = constrained([0.6, 0.8, 0.7]).assign(pred_order=[[2, 0, 1, 3, 4]] * 3)  # "C, A, B, D, E", n = 3
    few = decoding_findings(decoding_summary(copies))  # under the small-n rule of the figures
    assert "): too few to place against the random expectation" in few and "pulls the answers" not in few
