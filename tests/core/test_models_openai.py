"""The OpenAI-compatible client against a loopback server: answers, retries on 429/500 and
time-outs, a clear error when retries run out, log-likelihood via echo, keys from env only."""

from __future__ import annotations

import pytest

from culturelab.models import load_model

from .fake_openai import FakeOpenAI


def model(server: FakeOpenAI, **kw):
    return load_model(f"openai-compatible:{server.base_url}#fake-model", cache=False, progress=False, **kw)


def test_chat_generation_and_request_shape(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    with FakeOpenAI(answer="C") as server:
        out = model(server).generate(["q1", "q2"], max_new_tokens=5, system="be brief")
    assert out == ["C", "C"]
    req = server.requests[0]
    assert req["model"] == "fake-model" and req["max_tokens"] == 5 and req["temperature"] == 0.0
    assert req["messages"][0] == {"role": "system", "content": "be brief"}
    assert server.headers[0]["authorization"] == "Bearer sk-test-123"


def test_retries_on_429_and_500_then_succeeds():
    with FakeOpenAI(script=[429, 500, "ok"], answer="A") as server:
        assert model(server, max_retries=3, concurrency=1).generate(["q"]) == ["A"]
    assert len(server.requests) == 3


def test_retries_after_a_timeout():
    with FakeOpenAI(script=["slow", "ok"], answer="D", slow_seconds=2.0) as server:
        assert model(server, timeout=0.5, max_retries=2, concurrency=1).generate(["q"]) == ["D"]
    assert len(server.requests) == 2


def test_exhausted_retries_give_one_clear_error_without_the_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    with FakeOpenAI(script=[500] * 10) as server, pytest.raises(RuntimeError) as err:
        model(server, max_retries=2, concurrency=1).generate(["q"])
    message = str(err.value)
    assert "HTTP 500" in message and "after 2 retries" in message and server.base_url in message
    assert "sk-very-secret" not in message


def test_timeout_error_names_the_cause():
    with FakeOpenAI(script=["slow"] * 5, slow_seconds=1.5) as server, pytest.raises(RuntimeError, match="Timeout"):
        model(server, timeout=0.3, max_retries=1, concurrency=1).generate(["q"])


def test_loglikelihood_from_echoed_prompt_logprobs():
    with FakeOpenAI() as server:
        scores = model(server).loglikelihood([("The capital of France is", " Paris"),
                                              ("The capital of France is", " Lyon city")])
    assert scores[0].logprob == pytest.approx(-0.25) and scores[0].n_tokens == 1
    assert scores[1].logprob == pytest.approx(-1.0) and scores[1].n_tokens == 2
    assert server.requests[0]["echo"] is True


def test_a_token_straddling_the_context_end_counts_for_the_continuation():
    """A continuation the server's tokenizer merges with the context's last characters (Chinese text,
    or no leading space) is scored by that merged token instead of failing the run for want of
    log-probabilities (FMLAMA's Chinese cloze prompts did)."""
    with FakeOpenAI() as server:
        merged, later = model(server).loglikelihood([("The capital of France is Par", "is"),
                                                     ("The capital of France is Par", "is and Lyon")])
    assert merged.logprob == pytest.approx(-0.25) and merged.n_tokens == 1
    assert later.logprob == pytest.approx(-1.25) and later.n_tokens == 3


def test_official_api_needs_a_key_from_the_environment(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(OSError, match=r"\$OPENAI_API_KEY"):
        load_model("openai:gpt-4o-mini", cache=False)


def test_log_probability_rows_carry_the_scoring_rule_in_their_key_and_generations_do_not():
    """Rows scored before a straddling token was counted must not answer now; cached generations
    (paid API calls) keep their keys."""
    from culturelab.models.base import LanguageModel

    with FakeOpenAI() as server:
        lm = model(server)
    request = {"context": "a", "continuation": " b"}
    assert lm._request_key("generate", {}, request) == LanguageModel._request_key(lm, "generate", {}, request)
    for kind in ("loglikelihood", "loglikelihood_group", "rank_candidates"):
        assert lm._request_key(kind, {}, request) != LanguageModel._request_key(lm, kind, {}, request)


def test_the_official_api_gets_its_own_budget_field_and_reasoning_models_their_only_sampling(monkeypatch):
    """Chat on api.openai.com: ``max_completion_tokens`` (o1/o3/o4 refuse ``max_tokens``); a reasoning
    model samples at temperature 1 only, so greedy decoding is refused before any request, and gets no
    ``stop`` (it refuses one; stop strings are applied to the text afterwards)."""
    import openai

    from culturelab.models.openai_api import OpenAIModel

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    with FakeOpenAI(answer="B") as server:
        for name in ("gpt-4o", "o3-mini"):
            lm = OpenAIModel(name, cache=False, progress=False)  # the official API, its requests sent to the fake
            lm.client = openai.OpenAI(base_url=server.base_url, api_key="sk-test-123", max_retries=0)
            temperature = 1.0 if name == "o3-mini" else 0.0
            assert lm.generate(["q"], max_new_tokens=7, temperature=temperature, stop=["\n\n"]) == ["B"]
        with pytest.raises(ValueError, match="temperature 1 and top_p 1 only"):
            lm.generate(["q"], max_new_tokens=7)
        sent = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
    assert len(sent) == 2 and all("max_tokens" not in r and r["max_completion_tokens"] == 7 for r in sent)
    assert sent[0]["temperature"] == 0.0 and sent[0]["stop"] == ["\n\n"]
    assert not {"temperature", "top_p", "stop"} & set(sent[1])  # a reasoning model refuses all three


def test_a_server_without_prompt_log_probabilities_is_asked_once_and_its_scoring_refused_by_name():
    from culturelab.models import capabilities
    from culturelab.models.openai_api import prompt_logprobs_problem

    with FakeOpenAI(prompt_logprobs=False) as server:
        spec = f"openai-compatible:{server.base_url}#m"
        why = capabilities(spec)["loglikelihood"]
        assert why and why.startswith(f"the server at {server.base_url} returns no log-probabilities of given text")
        assert capabilities(spec)["rank_candidates"] == why and capabilities(spec)["generate"] is None
        asked = len(server.requests)
        capabilities(spec)
        assert len(server.requests) == asked == 1  # asked once per process
        lm = load_model(spec, cache=False, progress=False)
        with pytest.raises(RuntimeError, match="returns no log-probabilities of given text"):
            lm.loglikelihood([("The capital of France is", " Paris")])
    prompt_logprobs_problem.cache_clear()
    with FakeOpenAI() as server:  # a server that gives them (vLLM-like) keeps every kind
        assert capabilities(f"openai-compatible:{server.base_url}#m")["loglikelihood"] is None
