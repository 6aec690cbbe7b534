"""When the chat page sees something: time to each event of `POST /v1/chat` on a real `rqrag serve`, and what the
grounded answer costs.

    python scripts/bench_chat_stream.py                   # 3 questions x 2 servers (grounded, --no_grounded)
    python scripts/bench_chat_stream.py --repeats 1 --questions "Who wrote the novel Frankenstein?"

Two servers on localhost, the same config (configs/serve/default.yaml: the shipped model, the embedded corpus),
one with grounded answers (the default) and one with `--no_grounded`. Each question is asked once to warm up and
then `--repeats` times; for each event name the median seconds from the request to its first arrival are printed.
The baselines, measured in the same run: what the page got before answers streamed, nothing until the whole tree
was done, so its first event arrived with the answer (`first step / answer`); and the first step that is a search
(`search`: the question's own, or the tree's first refinement), which was the first step the page saw before a
`searching` step was sent as soon as the work starts (`first step / search`; on a quiet 2-core CPU the first
search came 2.7 s into a 5.1 s answer).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from rqrag.serve.server.process import RQRAGServer


QUESTIONS = [
    "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
    "Who wrote the novel Frankenstein?",
    "Which university did the author of The Old Man and the Sea attend?",
]


def timed_events(base: str, question: str) -> dict[str, float]:
    """Seconds from the request to the first arrival of each event name, and (`search`) of the first step that
    is a search."""
    started = time.perf_counter()
    first: dict[str, float] = {}
    name = ""
    with httpx.stream("POST", f"{base}/v1/chat", json={"question": question}, timeout=1800) as reply:
        reply.raise_for_status()
        for line in reply.iter_lines():
            if line.startswith("event: "):
                name = line[7:].strip()
                first.setdefault(name, time.perf_counter() - started)
            elif name == "step" and line.startswith("data: ") and json.loads(line[6:])["action"] != "searching":
                first.setdefault("search", time.perf_counter() - started)
    if "error" in first:
        raise SystemExit(f"the server answered with an error event for {question!r}")
    return first


def run(flags: list[str], questions: list[str], repeats: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        server = RQRAGServer(Path(tmp), Path(tmp) / "chat.db", ["--memories", "false", *flags])
        try:
            times: dict[str, list[float]] = {}
            for question in questions:
                timed_events(server.base, question)  # warm-up: caches, first model call
                for _ in range(repeats):
                    for name, seconds in timed_events(server.base, question).items():
                        times.setdefault(name, []).append(seconds)
            return times
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", nargs="+", default=QUESTIONS, help="questions to ask")
    parser.add_argument("--repeats", type=int, default=3, help="timed asks per question (after one warm-up)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    results = {
        "grounded": run([], args.questions, args.repeats),
        "not grounded": run(["--no_grounded"], args.questions, args.repeats),
    }
    events = ["conversation", "status", "step", "search", "answer", "delta", "done"]
    print(
        f"{'server':<14}" + "".join(f"{name:>10}" for name in events) + f"{'step / answer':>15}{'step / search':>15}"
    )
    medians = {}
    for label, times in results.items():
        med = {name: statistics.median(times[name]) for name in events if name in times}
        medians[label] = med
        nan = float("nan")
        by_answer = med["step"] / med["answer"] if "step" in med and med.get("answer") else nan
        by_search = med["step"] / med["search"] if "step" in med and med.get("search") else nan
        row = "".join(f"{med.get(name, nan):>10.2f}" for name in events)
        print(f"{label:<14}{row}{by_answer:>15.3f}{by_search:>15.3f}")
    cost = medians["grounded"]["done"] / medians["not grounded"]["done"]
    print(f"\ntotal time grounded / not grounded: {cost:.2f}x (median of {args.repeats} x {len(args.questions)})")
    if args.out:
        args.out.write_text(json.dumps({"medians": medians, "grounded_cost": cost}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
