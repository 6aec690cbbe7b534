"""What keeping prompt blocks across calls saves: the same questions answered with the hf prefix cache off and on.

    python scripts/bench_prefix_cache.py                      # 12 HotpotQA-slice questions, shipped config, CPU
    python scripts/bench_prefix_cache.py --questions 24 --blocks 64 128 256

One pipeline (`rqrag_trained`), its model loaded once; for each setting the same questions are answered one at a
time, and the script prints the wall time, the generator's prefill time and the prompt tokens it computed, each as a
ratio to the cache-off run made first, and checks that every answer is the same. The cache-off run is repeated at
the end, so the spread between the two shows the noise of the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def run(pipeline, questions: list[str]) -> dict:
    generator = pipeline.answers.decoder.generator
    generator.timings.update(prefill=0.0, decode=0.0)
    computed, requested = generator.stats.prompt_tokens_computed, generator.stats.prompt_tokens
    started = time.perf_counter()
    answers = [pipeline.ask(q).text for q in questions]
    return {
        "seconds": time.perf_counter() - started,
        "prefill_seconds": generator.timings["prefill"],
        "prompt_tokens_computed": generator.stats.prompt_tokens_computed - computed,
        "prompt_tokens": generator.stats.prompt_tokens - requested,
        "answers": answers,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="hotpotqa")
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--blocks", type=int, nargs="+", default=[64, 128], help="block sizes to try, in tokens")
    parser.add_argument("--cache_tokens", type=int, default=16_384)
    parser.add_argument("--out", default="runs/bench_prefix_cache")
    args = parser.parse_args(argv)
    from rqrag import Pipeline
    from rqrag.eval.tasks import get_task
    from rqrag.inference.backends.prefix_cache import PrefixCache

    examples, _ = get_task(args.task).load(limit=args.questions)
    questions = [e.question for e in examples]
    pipeline = Pipeline.from_config("rqrag_trained", prefix_cache_tokens=0)
    pipeline.ask(questions[0])  # load and warm the model: first-call costs land nowhere
    generator = pipeline.answers.decoder.generator
    settings = [("off", None), *((f"blocks of {b}", b) for b in args.blocks), ("off again", None)]
    results = {}
    for name, block in settings:
        generator.prefix_cache = PrefixCache(args.cache_tokens, block) if block else None
        results[name] = run(pipeline, questions)
    generator.prefix_cache = None

    base = results["off"]
    print(f"{len(questions)} questions, one at a time, shipped config")
    print("| prefix cache | wall s | ratio | prefill s | ratio | prompt tokens computed | ratio | same answers |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, r in results.items():
        print(
            f"| {name} | {r['seconds']:.1f} | {r['seconds'] / base['seconds']:.2f} | {r['prefill_seconds']:.1f} | "
            f"{r['prefill_seconds'] / base['prefill_seconds']:.2f} | {r['prompt_tokens_computed']} of "
            f"{r['prompt_tokens']} | {r['prompt_tokens_computed'] / base['prompt_tokens_computed']:.2f} | "
            f"{r['answers'] == base['answers']} |"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "resolved_config.json").write_text(json.dumps(vars(args), indent=2) + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
