"""How soon the chat page sees work start: seconds from `POST /v1/chat` to its first `step` event, and to `done`,
on a real `rqrag serve` with the default config (the shipped model over the embedded corpus, memories on).

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/bench_chat_first_event.py --repeats 3

One server on localhost (configs/serve/default.yaml; a temporary database and documents folder, so nothing of the
user's is read or written). Each question is asked once to warm up, then `--repeats` times, each in a new
conversation. Printed per question: the median seconds to the first `step`, to the first step that is a search
(the question's own, or the tree's first refinement), to `answer` and to `done`, and first step / first search.
The first search is the baseline of the same run: it was the first step the page saw before a `searching` step
was sent as soon as the work starts (on a quiet 2-core CPU: 2.7 s of a 5.1 s answer).
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

from rqrag.inference.server.process import RQRAGServer


QUESTIONS = [
    "Who wrote the novel Frankenstein?",
    "Which university did the author of The Old Man and the Sea attend?",
    "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
]


def timed_events(base: str, question: str) -> dict[str, float]:
    """Seconds from the request to the first arrival of each event kind, and (`search`) of the first step that
    is a search: the first step the page got when it had no `searching` step to show."""
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", nargs="+", default=QUESTIONS, help="questions to ask")
    parser.add_argument("--repeats", type=int, default=3, help="timed asks per question (after one warm-up)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        server = RQRAGServer(Path(tmp), Path(tmp) / "chat.db", ["--documents_dir", str(Path(tmp) / "libraries")])
        try:
            for question in args.questions:
                timed_events(server.base, question)  # warm-up: caches, the first model call
                runs = [timed_events(server.base, question) for _ in range(args.repeats)]
                figures[question] = {
                    name: statistics.median(run.get(name, float("nan")) for run in runs)
                    for name in ("step", "search", "answer", "done")
                }
        finally:
            server.stop()
    print(f"{'first step':>11}{'first search':>13}{'answer':>9}{'done':>9}{'step/search':>13}  question")
    for question, med in figures.items():
        ratio = med["step"] / med["search"]
        print(
            f"{med['step']:>11.2f}{med['search']:>13.2f}{med['answer']:>9.2f}{med['done']:>9.2f}{ratio:>13.3f}"
            f"  {question[:50]}"
        )
    worst = max(med["step"] for med in figures.values())
    print(f"\nslowest first step (median of {args.repeats}): {worst:.2f} s")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
