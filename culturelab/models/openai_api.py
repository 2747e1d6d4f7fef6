"""The OpenAI API and any OpenAI-compatible server (vLLM, TGI, llama.cpp server, …).

The key is read from the environment only (``$OPENAI_API_KEY`` unless ``api_key_env`` names
another variable) and is never part of a cache key, a parameter file or a notebook.
Retries with exponential back-off on 429, 5xx and time-outs are the official ``openai``
client's; when they are exhausted the run stops with one readable line naming the server,
the model and the cause. Requests go out ``concurrency`` at a time.

Log-likelihood needs prompt log-probabilities (``echo=True`` on ``/v1/completions``), which
vLLM serves and the official API does not; whether a server gives them is asked once, with one
short request (:func:`prompt_logprobs_problem`), and a server that does not has its log-likelihood
sections skipped like the official API's (:func:`culturelab.models.capabilities`).

>>> redact("key sk-abc123 leaked", "sk-abc123")
'key *** leaked'
"""

from __future__ import annotations

import functools
import os
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from culturelab.models.base import LanguageModel, LogLikelihood


def redact(text: str, secret: str | None) -> str:
    """Replace every occurrence of ``secret`` in ``text``.

    >>> redact("sk-1 then sk-1 again", "sk-1"), redact("nothing to hide", None)
    ('*** then *** again', 'nothing to hide')
    """
    return text.replace(secret, "***") if secret else text


#: how a continuation's tokens are read off the echoed prompt, part of the cache key of every
#: log-probability answer: rows cached when a token straddling the context's end was dropped are
#: not mixed with rows that count it (the generation cache, paid API calls, is untouched)
LOGPROB_SCORING = "straddling-token-counted"


#: OpenAI's reasoning models (o1, o3, o3-mini, o4-mini, gpt-5…, and fine-tunes of them): the API rejects
#: ``max_tokens`` (their budget, hidden reasoning included, is ``max_completion_tokens``), ``stop``, and
#: any temperature or top_p but 1
_REASONING = re.compile(r"^(?:ft:)?(?:o\d|gpt-5)", re.I)


def is_openai_reasoning(model: str) -> bool:
    """Whether an OpenAI model id names one of its reasoning models (hidden reasoning before the answer).

    >>> [is_openai_reasoning(m) for m in ("o3-mini-2025-01-31", "ft:o4-mini:org::x", "gpt-5-mini", "gpt-4o",
    ...                                   "omni-moderation-latest")]
    [True, True, True, False, False]
    """
    return bool(_REASONING.match(model))


def generation_params(model: str, *, official: bool, chat: bool, max_new_tokens: int, temperature: float,
                      top_p: float, stop: list[str] | None = None) -> dict[str, Any]:
    """The sampling fields of a generation request (``stop``: at most the API's four; all stop strings
    are applied to the text afterwards, so a reasoning model, which refuses them, gets none). The
    official API's chat endpoint takes the budget as ``max_completion_tokens`` (its reasoning models
    reject ``max_tokens``); servers that
    speak the API (vLLM, TGI, llama.cpp) and the completions endpoint take ``max_tokens``. A reasoning
    model of the official API samples at temperature 1 only: asking it for another temperature (greedy
    decoding included) is refused before any request (the API would refuse it after its retries); a
    notebook without a ``temperature`` parameter (the CAPTEx ones decode greedily) cannot run it yet.

    >>> generation_params("gpt-4o", official=True, chat=True, max_new_tokens=8, temperature=0.0, top_p=1.0)
    {'max_completion_tokens': 8, 'temperature': 0.0, 'top_p': 1.0}
    >>> generation_params("llama-3-8b", official=False, chat=True, max_new_tokens=8, temperature=0.0, top_p=1.0)
    {'max_tokens': 8, 'temperature': 0.0, 'top_p': 1.0}
    >>> generation_params("o3-mini", official=True, chat=True, max_new_tokens=2048, temperature=1.0, top_p=1.0)
    {'max_completion_tokens': 2048}
    >>> generation_params("o3-mini", official=True, chat=True, max_new_tokens=2048, temperature=0.0, top_p=1.0)
    Traceback (most recent call last):
    ...
    ValueError: openai:o3-mini samples at temperature 1 and top_p 1 only (the API refuses others), and this request asks for temperature 0.0 and top_p 1.0: greedy decoding is not available for it (a notebook's temperature parameter, where it has one, can be set to 1.0; its answers are then samples)
    """
    if official and chat and is_openai_reasoning(model):
        if (temperature, top_p) != (1.0, 1.0):
            raise ValueError(f"openai:{model} samples at temperature 1 and top_p 1 only (the API refuses others), "
                             f"and this request asks for temperature {temperature} and top_p {top_p}: greedy "
                             "decoding is not available for it (a notebook's temperature parameter, where it has "
                             "one, can be set to 1.0; its answers are then samples)")
        return {"max_completion_tokens": max_new_tokens}
    budget = "max_completion_tokens" if official and chat else "max_tokens"
    return {budget: max_new_tokens, "temperature": temperature, "top_p": top_p, **({"stop": stop[:4]} if stop else {})}


#: the request that asks a server for prompt log-probabilities (a continuation after a context)
_PROBE = ("The capital of France is", " Paris")


@functools.cache
def prompt_logprobs_problem(base_url: str, model: str) -> str | None:
    """Why the OpenAI-compatible server at ``base_url`` cannot score given text (it returns no
    log-probabilities of the prompt for ``echo=True, logprobs=1`` on ``/v1/completions``), from one
    one-token request; ``None`` when it can, or when it cannot be asked now (the run then says why).

    >>> prompt_logprobs_problem("http://127.0.0.1:9/v1", "m") is None  # nothing listens there
    True
    """
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY", timeout=30.0,
                           max_retries=0)
    prompt = "".join(_PROBE)
    why = (f"the server at {base_url} returns no log-probabilities of given text (/v1/completions with echo=True "
           "and logprobs; vLLM's does)")
    try:
        reply = client.completions.create(model=model, prompt=prompt, max_tokens=1, temperature=0.0, logprobs=1,
                                          echo=True)
    except openai.APIStatusError as err:
        return f"{why}: it answered HTTP {err.status_code}"
    except openai.APIError:  # not reachable now: `culturelab check` and the run's first request say so
        return None
    lp = reply.choices[0].logprobs if reply.choices else None
    scored = [v for v, at in zip(lp.token_logprobs or [], lp.text_offset or []) if v is not None and at < len(prompt)] \
        if lp is not None else []
    return None if scored else why


class OpenAIModel(LanguageModel):
    """Chat/completions over HTTP with retries, time-outs and a thread pool."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 120.0, max_retries: int = 4, concurrency: int = 8, **kwargs: Any):
        import openai

        self._key = os.environ.get(api_key_env)
        if base_url is None and not self._key:
            raise OSError(f"openai:{model} needs an API key in the environment variable ${api_key_env} "
                          "(it is never read from parameter files)")
        self.backend = "openai" if base_url is None else "openai-compatible"
        self.base_url = base_url
        self.client = openai.OpenAI(base_url=base_url, api_key=self._key or "EMPTY", timeout=timeout,
                                    max_retries=max_retries)
        self.max_retries = max_retries
        self.concurrency = concurrency
        super().__init__(model, revision=None, **kwargs)

    @property
    def spec(self) -> str:
        return f"openai:{self.model_id}" if self.base_url is None else f"openai-compatible:{self.base_url}#{self.model_id}"

    def describe(self) -> dict[str, Any]:
        return {**self.identity(), "base_url": self.base_url or "https://api.openai.com/v1"}

    def _request_key(self, kind: str, params: dict, request: dict) -> str:
        if kind != "generate":
            params = {**params, "scoring": LOGPROB_SCORING}
        return super()._request_key(kind, params, request)

    def _call(self, fn: Any, **request: Any) -> Any:
        import openai

        try:
            return fn(**request)
        except openai.APIError as err:
            status = getattr(err, "status_code", None)
            cause = f"HTTP {status}" if status else type(err).__name__
            where = self.base_url or "api.openai.com"
            raise RuntimeError(redact(f"{self.spec}: request to {where} failed after {self.max_retries} retries "
                                      f"({cause}): {err}", self._key)) from None

    def _map(self, fn: Any, items: list) -> list:
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(fn, items))

    def _generate(self, prompts: list[str], *, max_new_tokens: int, temperature: float, top_p: float,
                  stop: list[str], chat: bool, system: str | None, seed: int | None) -> list[str]:
        common: dict[str, Any] = {"model": self.model_id, **generation_params(
            self.model_id, official=self.base_url is None, chat=chat, max_new_tokens=max_new_tokens,
            temperature=temperature, top_p=top_p, stop=stop)}
        if seed is not None:
            common["seed"] = seed

        def one(prompt: str) -> str:
            if chat:
                messages = ([{"role": "system", "content": system}] if system else []) + [
                    {"role": "user", "content": prompt}]
                reply = self._call(self.client.chat.completions.create, messages=messages, **common)
                return reply.choices[0].message.content or ""
            reply = self._call(self.client.completions.create, prompt=(system + "\n\n" if system else "") + prompt,
                               **common)
            return reply.choices[0].text or ""

        return self._map(one, prompts)

    def _loglikelihood(self, requests: list[tuple[str, str]]) -> list[LogLikelihood]:
        if self.base_url is None:
            raise NotImplementedError("the OpenAI API returns no prompt log-probabilities; score MCQs by generation, "
                                      "or serve an open model with vLLM and use 'openai-compatible:'")

        def one(req: tuple[str, str]) -> LogLikelihood:
            context, continuation = req
            prompt = context + continuation
            reply = self._call(self.client.completions.create, model=self.model_id, prompt=prompt, max_tokens=1,
                               temperature=0.0, logprobs=1, echo=True)
            lp = reply.choices[0].logprobs
            if lp is None:
                why = prompt_logprobs_problem(self.base_url, self.model_id) or "no log-probabilities in the reply"
                raise RuntimeError(f"{self.spec}: {why}")
            total, n, greedy = 0.0, 0, True
            # a token ends where the next starts; one that straddles the context's end (Chinese text, or a
            # continuation without a leading space, merged with the context's last characters by the
            # server's tokenizer) is the continuation's first token, as the server split it
            ends = [*lp.text_offset[1:], len(prompt) + 1]
            for tok, tok_lp, offset, end, top in zip(lp.tokens, lp.token_logprobs, lp.text_offset, ends,
                                                     lp.top_logprobs or [None] * len(lp.tokens)):
                if (offset < len(context) and end <= len(context)) or offset >= len(prompt) or tok_lp is None:
                    continue
                total += tok_lp
                n += 1
                if top:
                    greedy = greedy and max(top, key=top.get) == tok
            if n == 0:
                raise RuntimeError(f"{self.spec}: the server returned no log-probabilities for the continuation "
                                   f"{continuation!r}; does it support echo=True with logprobs?")
            return LogLikelihood(total, n, greedy)

        return self._map(one, requests)
