"""Does a hostile question stall the others? A normal question's latency alone vs with hostile ones in flight.

    python scripts/bench_hostile.py                       # starts `rqrag serve` itself (shipped model, CPU)
    python scripts/bench_hostile.py --repeats 3 --extra="--max_depth 1"

One real server on localhost, the shipped config. Three measurements of the same normal question (a PopQA
question, through `/v1/ask`), each repeated `--repeats` times and reported by its median:

1. **alone**: nothing else in flight;
2. **behind an oversize question**: ~900 kB of text (under the 1 MB body limit) sent first on each of the three
   answering routes; before the question limits, such a question held the model thread for minutes;
3. **behind the longest question allowed**: `max_question_tokens` worth of text sent first on `/v1/ask`, then the
   normal question 0.5 s later, while the long one is being decoded.

The ratios (2)/(1) and (3)/(1) are the figures of the issues: goal <= 2x behind the oversize ones, <= 1.5x behind the
longest one (`--extra="--preempt_after_s null"` shows it without the scheduler decoding held-up questions in between).
The statuses of the hostile requests are printed too (the oversize ones must be 400 at once).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path


OVERSIZE = "palavra " * 112_000  # ~900 kB


def normal_question() -> str:
    from rqrag.eval.tasks import get_task

    examples, _ = get_task("popqa").load(limit=1)
    return examples[0].question


def longest_allowed(tokens: int) -> str:
    """Plain words up to the server's token limit (the shipped model's tokenizer): the costliest question the
    server still decodes."""
    from rqrag.models import load_tokenizer, resolve_model

    tokenizer = load_tokenizer(resolve_model(), add_rqrag_tokens=True)
    sentence = "What does this long note say about the history of the river and the old mill near the town? "
    text = sentence
    while len(tokenizer(text + sentence, add_special_tokens=False)["input_ids"]) <= tokens:
        text += sentence
    return text.strip()


def ask(base: str, question: str, path: str = "/v1/ask") -> tuple[float, int]:
    import httpx

    body = {"question": question}
    if path == "/v1/chat/completions":
        body = {"model": "rqrag", "messages": [{"role": "user", "content": question}]}
    started = time.perf_counter()
    response = httpx.post(f"{base}{path}", json=body, timeout=900)
    return time.perf_counter() - started, response.status_code


def behind(base: str, hostile: list[tuple[str, str]], question: str, delay: float) -> tuple[float, list[int]]:
    """The normal question's latency when `hostile` (path, text) requests were sent `delay` seconds before it."""
    with concurrent.futures.ThreadPoolExecutor(len(hostile) + 1) as pool:
        bad = [pool.submit(ask, base, text, path) for path, text in hostile]
        time.sleep(delay)
        seconds, status = pool.submit(ask, base, question).result()
        statuses = [f.result()[1] for f in bad]
    if status != 200:
        raise RuntimeError(f"the normal question got {status}")
    return seconds, statuses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--extra", default="", help='more `rqrag serve` flags, e.g. --extra="--max_depth 1"')
    args = parser.parse_args(argv)
    from rqrag.serve.serve_config import ServeConfig
    from rqrag.serve.server.process import RQRAGServer

    question = normal_question()
    tmp = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    server = RQRAGServer(tmp, tmp / "conversations.db", shlex.split(args.extra))
    try:
        base = server.base
        ask(base, question)  # warm-up: first-call costs land nowhere
        alone = [ask(base, question)[0] for _ in range(args.repeats)]
        routes = ["/v1/ask", "/v1/chat/completions", "/v1/chat"]
        oversize, oversize_statuses = [], []
        for _ in range(args.repeats):
            seconds, statuses = behind(base, [(path, OVERSIZE) for path in routes[:2]], question, 0.2)
            oversize.append(seconds)
            oversize_statuses += statuses
        long_text = longest_allowed(ServeConfig().max_question_tokens)
        longest, longest_statuses = [], []
        for _ in range(args.repeats):
            seconds, statuses = behind(base, [("/v1/ask", long_text)], question, 0.5)
            longest.append(seconds)
            longest_statuses += statuses
    finally:
        server.stop()
    a, o, lg = statistics.median(alone), statistics.median(oversize), statistics.median(longest)
    print(f"normal question alone:                 {a:6.1f} s (median of {args.repeats}: {alone})")
    print(
        f"behind two ~900 kB questions:          {o:6.1f} s = {o / a:.2f}x alone; their statuses {oversize_statuses}"
    )
    print(
        f"behind the longest allowed question ({len(long_text)} chars): {lg:6.1f} s = {lg / a:.2f}x alone; "
        f"its statuses {longest_statuses}"
    )
    print(f"goals: <= 2x alone behind the oversize ones -> {'met' if o / a <= 2 else 'NOT met'}")
    print(f"       <= 1.5x alone behind the longest allowed -> {'met' if lg / a <= 1.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
