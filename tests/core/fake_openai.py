"""A loopback HTTP server that answers like an OpenAI-compatible API (for tests).

``script`` is a list of behaviours consumed one per request: an int status code (429, 500…),
``"slow"`` (sleep past the client's time-out), or ``"ok"``; when it runs out every request is
``"ok"``. Chat answers echo ``answer``; completions with ``echo=True`` return the prompt's words
(with their leading whitespace) and CJK characters as tokens, with log-prob −0.5 each (−0.25 for
the token "Paris")."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self, script: list | None = None, answer: str = "B", slow_seconds: float = 1.5,
                 prompt_logprobs: bool = True):
        self.prompt_logprobs = prompt_logprobs  # False: a server that ignores echo and logprobs (transformers serve)
        self.script = list(script or [])
        self.answer = answer
        self.slow_seconds = slow_seconds
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                with owner._lock:
                    owner.requests.append({"path": self.path, **body})
                    owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                    step = owner.script.pop(0) if owner.script else "ok"
                if step == "slow":
                    time.sleep(owner.slow_seconds)
                if isinstance(step, int):
                    self._send(step, {"error": {"message": f"scripted {step}", "type": "server_error"}},
                               {"retry-after-ms": "10"})
                    return
                self._send(200, owner._reply(self.path, body))

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _reply(self, path: str, body: dict) -> dict:
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if path.endswith("/chat/completions"):
            return {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"], "usage": usage,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": self.answer}}]}
        prompt = body["prompt"]
        if not self.prompt_logprobs:
            return {"id": "x", "object": "text_completion", "created": 0, "model": body["model"], "usage": usage,
                    "choices": [{"index": 0, "finish_reason": "length", "text": self.answer}]}
        # a word with its leading whitespace is a token, and so is each CJK character (as in a BPE vocabulary)
        found = list(re.finditer(r"\s*[\u3000-\u9fff\uff00-\uffef]|\s*[^\s\u3000-\u9fff\uff00-\uffef]+|\s+", prompt))
        tokens, offsets, pos = [m.group() for m in found], [m.start() for m in found], len(prompt)
        logprobs = [None] + [(-0.25 if t.strip() == "Paris" else -0.5) for t in tokens[1:]]
        tops = [None] + [{t: lp} for t, lp in zip(tokens[1:], logprobs[1:])]
        text = " next" if body.get("echo") else self.answer
        return {"id": "x", "object": "text_completion", "created": 0, "model": body["model"], "usage": usage,
                "choices": [{"index": 0, "finish_reason": "length", "text": (prompt if body.get("echo") else "") + text,
                             "logprobs": {"tokens": [*tokens, " next"], "token_logprobs": [*logprobs, -1.0],
                                          "text_offset": [*offsets, pos], "top_logprobs": [*tops, {" next": -1.0}]}}]}

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
