"""Latency under real arrival patterns: questions joining the running decode at each depth against whole-tree batches.

    python scripts/bench_serving.py                                   # shipped serve config, HotpotQA slice, CPU
    python scripts/bench_serving.py --short                           # a few minutes: 2 loads, 12 questions each
    python scripts/bench_serving.py --extra="--backend vllm" --out runs/bench_serving_gpu   # on a GPU machine

Two real servers on localhost, one after the other, identical but for the schedule (`--admission depth`, the
default, and `--admission batch`, the earlier whole-tree batches). For each:

1. **alone**: the median latency of a question with nothing else in flight;
2. **capacity**: `--clients` clients asking back to back (saturation): questions answered per second;
3. **Poisson arrivals** at `--loads` times the *batch* schedule's capacity (the same arrival times for both
   schedules, `--seed`), `--questions` questions each, sent by `--clients` client threads; a question's latency runs
   from its arrival, so time spent waiting for a free client counts.

Reported per schedule and load: p50 / p95 / p99 latency, the p95 **slowdown** (each question's latency over its
own latency alone, measured first on the same server: questions differ in cost by more than 2x, so a p95 over one
median alone latency is not a slowdown), throughput, mean expansions per depth's generator call and the share of the
wall time the model thread was busy (both from the server's /metrics). Writes results.json and
serving.png (p95 over load, both schedules) to --out, and prints the table with the ratios the issue asks for.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import random
import re
import shlex
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx


SCHEDULES = ("depth", "batch")


def questions(n: int, task: str) -> list[str]:
    from rqrag.eval.tasks import get_task

    examples, _ = get_task(task).load(limit=n)
    return [e.question for e in examples]


def ask(base: str, question: str) -> float:
    started = time.perf_counter()
    reply = httpx.post(f"{base}/v1/ask", json={"question": question}, timeout=900)
    reply.raise_for_status()
    return time.perf_counter() - started


def metric(base: str, name: str) -> float:
    """The sum of a Prometheus counter or histogram sample (`name` with its suffix) on the server's /metrics."""
    text = httpx.get(f"{base}/metrics", timeout=30).text
    return sum(float(m.group(1)) for m in re.finditer(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M))


def server_counters(base: str) -> dict[str, float]:
    return {
        "busy": metric(base, "rqrag_model_busy_seconds_total"),
        "expansions": metric(base, "rqrag_depth_expansions_sum"),
        "calls": metric(base, "rqrag_depth_expansions_count"),
    }


def saturate(base: str, asked: list[str], clients: int) -> float:
    """Questions per second with `clients` clients asking back to back."""
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(lambda q: ask(base, q), asked))
    return len(asked) / (time.perf_counter() - started)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def poisson(base: str, asked: list[str], arrivals: list[float], clients: int, alone: list[float]) -> dict:
    """Each question sent at its arrival time (or when a client is free); its latency counted from its arrival."""
    latencies: list[float] = [0.0] * len(asked)
    before = server_counters(base)
    start = time.perf_counter()
    lock = threading.Lock()
    next_index = [0]

    def client() -> None:
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(asked):
                return
            wait = start + arrivals[i] - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            ask(base, asked[i])
            latencies[i] = time.perf_counter() - (start + arrivals[i])

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    after = server_counters(base)
    calls = after["calls"] - before["calls"]
    slowdowns = [latency / own for latency, own in zip(latencies, alone)]
    return {
        "p50": statistics.median(latencies),
        "p95": quantile(latencies, 0.95),
        "p99": quantile(latencies, 0.99),
        "slowdown_p50": statistics.median(slowdowns),
        "slowdown_p95": quantile(slowdowns, 0.95),
        "throughput": len(asked) / wall,
        "expansions_per_call": (after["expansions"] - before["expansions"]) / calls if calls else 0.0,
        "busy_share": (after["busy"] - before["busy"]) / wall,
    }


def plot(results: dict, loads: list[float], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for schedule in SCHEDULES:
        runs = results[schedule]
        ax.plot(loads, [runs["loads"][str(f)]["p95"] for f in loads], marker="o", label=f"p95, {schedule} schedule")
        ax.plot(loads, [runs["loads"][str(f)]["p50"] for f in loads], ls="--", alpha=0.6, label=f"p50, {schedule}")
    ax.axhline(results["depth"]["alone"], color="grey", lw=0.8, label="one question alone")
    ax.set_xlabel("offered load (fraction of the batch schedule's capacity)")
    ax.set_ylabel("latency (s)")
    ax.set_title("Questions joining at each depth vs whole-tree batches")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="hotpotqa", help="benchmark whose shipped slice gives the questions")
    parser.add_argument("--questions", type=int, default=24, help="questions per load")
    parser.add_argument("--loads", type=float, nargs="+", default=[0.25, 0.5, 0.75, 1.0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--short", action="store_true", help="2 loads (0.5, 0.75), 12 questions, 8 clients")
    parser.add_argument("--extra", default="", help='more `rqrag serve` flags, e.g. --extra="--max_depth 1"')
    parser.add_argument("--out", default="runs/bench_serving")
    args = parser.parse_args(argv)
    if args.short:
        args.loads, args.questions, args.clients = [0.5, 0.75], 12, 8
    from rqrag.serve.server.process import RQRAGServer

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "resolved_config.json").write_text(json.dumps(vars(args), indent=2) + "\n")
    pool = questions(args.questions + args.clients, args.task)
    asked, warm = pool[: args.questions], pool[args.questions :]
    rng = random.Random(args.seed)
    results: dict = {"args": vars(args)}
    unit_arrivals = []  # arrival times at rate 1 question/s, scaled per load
    t = 0.0
    for _ in asked:
        t += rng.expovariate(1.0)
        unit_arrivals.append(t)
    capacity = None
    for schedule in ("batch", "depth"):  # batch first: its capacity sets the loads of both
        tmp = Path(tempfile.mkdtemp(prefix=f"bench-serving-{schedule}-"))
        flags = [*shlex.split(args.extra), "--admission", schedule, "--memories", "false"]
        server = RQRAGServer(tmp, tmp / "conversations.db", flags)
        try:
            base = server.base
            ask(base, warm[0])  # first-call costs land nowhere
            alone = statistics.median(ask(base, q) for q in warm[:3])
            # Each question's own latency with nothing else in flight, asked twice and the second time kept: the runs
            # under load ask it again too, so its searches are cached there as well.
            own_alone = [(ask(base, q), ask(base, q))[1] for q in asked]
            saturated = saturate(base, warm + asked[: args.clients], args.clients)
            capacity = capacity or saturated
            runs = {}
            for load in args.loads:
                rate = load * capacity
                runs[str(load)] = poisson(base, asked, [a / rate for a in unit_arrivals], args.clients, own_alone)
                print(f"{schedule} @ {load:.2f}x: {runs[str(load)]}", flush=True)
        finally:
            server.stop()
        results[schedule] = {"alone": alone, "own_alone": own_alone, "capacity": saturated, "loads": runs}
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    plot(results, args.loads, out / "serving.png")

    print(f"\ncapacity (batch schedule): {capacity:.3f} questions/s; alone: depth {results['depth']['alone']:.1f} s, "
          f"batch {results['batch']['alone']:.1f} s")  # fmt: skip
    print(
        "| schedule | load | p50 s | p95 s | p99 s | p95 / median alone | p95 slowdown | throughput q/s | "
        "expansions per call | busy |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for schedule in SCHEDULES:
        alone = results[schedule]["alone"]
        for load in args.loads:
            r = results[schedule]["loads"][str(load)]
            print(
                f"| {schedule} | {load:.2f} | {r['p50']:.1f} | {r['p95']:.1f} | {r['p99']:.1f} | "
                f"{r['p95'] / alone:.2f}x | {r['slowdown_p95']:.2f}x | {r['throughput']:.3f} | "
                f"{r['expansions_per_call']:.1f} | "
                f"{r['busy_share']:.0%} |"
            )
    print(
        f"saturation throughput: depth {results['depth']['capacity']:.3f} vs batch "
        f"{results['batch']['capacity']:.3f} questions/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
