"""Load test of `rqrag serve`: throughput and latency at 1, 4, 8 and 16 concurrent clients, batching vs not.

    python scripts/bench_server.py                              # starts both servers itself (shipped model, CPU)
    python scripts/bench_server.py --concurrency 1 4 8 16 --max_depth 1 --malformed 100

Two servers run the same model and config on localhost, one after the other: **batched** (requests gathered
for 50 ms into one decoder batch, up to 16 questions) and the baseline **one at a time** (max_batch_questions
1: requests queue for the model). Each level sends N different PopQA questions at once with the real `openai`
client and reports wall time, questions/s, p50/p95 latency and the model calls the server made (from its
`/metrics`); the last lines give the batched/one-at-a-time ratios and the batching check of the server issue
(8 concurrent questions in < 3x the time of one). Then
`--malformed` requests (a third of them broken: bad JSON, empty question, unknown model, oversize) are fired
at once at the batched server and every status code is counted: the expectation is zero 5xx.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import shlex
import statistics
import sys
import time
from pathlib import Path


def questions(n: int) -> list[str]:
    from rqrag.eval.tasks import get_task

    examples, _ = get_task("popqa").load(limit=n)
    return [ex.question for ex in examples]


def model_calls(base: str) -> float:
    """The server's `rqrag_model_calls_total` counter: generator calls made so far."""
    import httpx

    for line in httpx.get(f"{base}/metrics", timeout=30).text.splitlines():
        if line.startswith("rqrag_model_calls_total "):
            return float(line.split()[1])
    raise RuntimeError("the server's /metrics has no rqrag_model_calls_total")


def run_level(client, batch: list[str], max_depth: int) -> dict:
    def one(question: str) -> float:
        started = time.perf_counter()
        client.chat.completions.create(
            model="rqrag",
            messages=[{"role": "user", "content": question}],
            extra_body={"rqrag": {"max_depth": max_depth}},
        )
        return time.perf_counter() - started

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(len(batch)) as pool:
        latencies = sorted(pool.map(one, batch))
    wall = time.perf_counter() - started
    p95 = latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))]
    return {"n": len(batch), "wall": wall, "qps": len(batch) / wall, "p50": statistics.median(latencies), "p95": p95}


def in_process_seconds(question: str, warm_up: str, max_depth: int, extra: list[str]) -> float:
    """The same question decoded in this process with the server's config and flags (what `rqrag ask` does),
    after a warm-up question: the server's 1-client time should be no slower than this."""
    from rqrag.config_loader import make_parser, parse
    from rqrag.inference.build import build_decoder
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.tree import Question
    from rqrag.serve.serve_config import ServeConfig

    config_path = Path(__file__).resolve().parents[1] / "configs" / "serve" / "default.yaml"
    decode, _, _ = parse(make_parser(DecodeConfig, ServeConfig), ["--config", str(config_path), *extra])
    decode.max_depth = max_depth
    decoder = build_decoder(decode)
    decoder.decode([Question("warm-up", [{"role": "user", "content": warm_up}])])
    started = time.perf_counter()
    decoder.decode([Question("q", [{"role": "user", "content": question}])])
    return time.perf_counter() - started


def fire_malformed(base: str, total: int, question: str) -> dict[int, int]:
    import httpx

    bodies = [
        b"{not json",
        json.dumps({"question": ""}).encode(),
        json.dumps({"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}).encode(),
        json.dumps({"question": "x" * 1_100_000}).encode(),
    ]
    requests = []
    for i in range(total):
        if i % 3 == 0:
            requests.append(("/v1/ask", bodies[(i // 3) % len(bodies)]))
        else:
            requests.append(("/v1/ask", json.dumps({"question": question, "max_depth": 0}).encode()))
    requests = [("/v1/chat/completions" if b"gpt-9" in body else path, body) for path, body in requests]

    def send(item):
        path, body = item
        return httpx.post(
            base + path, content=body, headers={"content-type": "application/json"}, timeout=1800
        ).status_code

    with concurrent.futures.ThreadPoolExecutor(total) as pool:
        codes = list(pool.map(send, requests))
    return {code: codes.count(code) for code in sorted(set(codes))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--max_depth", type=int, default=1)
    parser.add_argument("--malformed", type=int, default=100, help="requests in the bad-input burst (0: skip)")
    parser.add_argument(
        "--extra", default="", help='more `rqrag serve` flags in one string, e.g. --extra="--backend vllm"'
    )
    parser.add_argument(
        "--batched-only", action="store_true", help="skip the one-at-a-time baseline server (half the time)"
    )
    args = parser.parse_args(argv)
    args.extra = shlex.split(args.extra)
    import tempfile

    from rqrag.serve.server.process import RQRAGServer

    warm_up, *pool = questions(1 + sum(args.concurrency))
    rows: dict[str, list[dict]] = {}
    burst = None
    servers = [("batched", ["--batch_window_ms", "50", "--max_batch_questions", "16"])]
    if not args.batched_only:
        servers.append(("one at a time", ["--batch_window_ms", "0", "--max_batch_questions", "1"]))
    for name, flags in servers:
        tmp = Path(tempfile.mkdtemp(prefix="bench-server-"))
        server = RQRAGServer(tmp, tmp / "conversations.db", ["--max_depth", str(args.max_depth), *flags, *args.extra])
        try:
            client = server.client()
            # Warm up with a real question of the same shape (a search at every action, evidence to read): the
            # first decode pays one-off costs (kernel selection, the query encoder's first batch) that a
            # one-word warm-up does not reach, and they would land on the 1-client level.
            run_level(client, [warm_up], args.max_depth)
            offset = 0
            rows[name] = []
            for n in args.concurrency:
                calls_before = model_calls(server.base)
                rows[name].append(run_level(client, pool[offset : offset + n], args.max_depth))
                rows[name][-1]["calls"] = model_calls(server.base) - calls_before
                offset += n
                r = rows[name][-1]
                print(
                    f"{name:>14}  {n:>3} clients  {r['wall']:7.1f} s  {r['qps']:6.3f} q/s  p50 {r['p50']:6.1f} s  "
                    f"p95 {r['p95']:6.1f} s  model calls {r['calls']:.0f}",
                    flush=True,
                )
            if name == "batched" and args.malformed:
                burst = fire_malformed(server.base, args.malformed, pool[0])
        finally:
            server.stop()

    print(
        f"\n{'clients':>7} {'batched s':>10} {'one-at-a-time s':>16} {'speed-up':>9} {'batched p50':>12} {'p95':>7}"
        f" {'model calls (batched / one at a time)':>38}"
    )
    # With --batched-only the baseline columns read nan.
    missing = {"wall": float("nan"), "calls": float("nan")}
    baseline = rows.get("one at a time", [missing] * len(rows["batched"]))
    for b, s in zip(rows["batched"], baseline):
        print(
            f"{b['n']:>7} {b['wall']:>10.1f} {s['wall']:>16.1f} {s['wall'] / b['wall']:>8.2f}x {b['p50']:>12.1f}"
            f" {b['p95']:>7.1f} {b['calls']:>24.0f} / {s['calls']:.0f}"
        )
    by_n = {r["n"]: r for r in rows["batched"]}
    if 1 in by_n and 8 in by_n:
        ratio = by_n[8]["wall"] / by_n[1]["wall"]
        print(f"\nbatched: 8 concurrent questions took {ratio:.2f}x the time of one (goal < 3x)")
    if 1 in by_n:
        # The 1-client level asked pool[0]; the same question in process, same config, warmed up the same way.
        local = in_process_seconds(pool[0], warm_up, args.max_depth, args.extra)
        print(f"one question: server {by_n[1]['wall']:.1f} s, in process (as rqrag ask) {local:.1f} s")
    if burst is not None:
        fives = sum(count for code, count in burst.items() if code >= 500)
        print(f"{args.malformed} concurrent requests, a third malformed: status counts {burst}; 5xx: {fives}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
