"""Time `make demo`'s answering phase: the demo configuration of the issue that asked for speed vs today's, one run.

    python scripts/bench_demo.py                      # both configurations, 3 timed repeats each, hf backend
    python scripts/bench_demo.py --repeats 5 --out bench/demo.json

`make demo` asks one HotpotQA question of the shipped model over the embedded corpus with
`configs/decode/rqrag_trained.yaml` and greedy queries. Two configurations answer it here, models loaded and
warmed up first (the phase the demo's "Time:" line reports):

* `before` — the demo as the speed issue measured it: all three refinements at depth 2, float32, no merging
  of identical expansions, no refinement guards, no adaptive stopping;
* `after`  — `configs/decode/rqrag_trained.yaml` as shipped (what `make demo` runs now).

Reported per configuration: median seconds over the repeats, model calls, expansions, prompt tokens computed,
generated tokens and searches; then the before/after ratio. Held-out accuracy of the same two configurations is
measured by `scripts/eval_speed.sh` (docs/speed.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path


PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEMO_CONFIG = PROJECT_ROOT / "configs" / "decode" / "rqrag_trained.yaml"
DEMO_QUESTION = (
    "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
)
WARM_UP = "Who wrote the novel Moby-Dick?"
BEFORE = {
    "actions": ["rewrite", "decompose", "disambiguate"],
    "max_depth": 2,
    "dtype": "float32",
    "merge_expansions": False,
    "refinement_guards": False,
    "stop_confidence": None,
}


def demo_config(overrides: dict):
    """The demo's DecodeConfig (its YAML, greedy queries as `make demo` passes) with `overrides` applied."""
    from rqrag.config_loader import load_yaml_config
    from rqrag.inference.decoding.decode_config import DecodeConfig

    values = load_yaml_config(DEMO_CONFIG, [DecodeConfig])
    return DecodeConfig(**{**values, "query_temperature": 0.0, **overrides})


def time_config(name: str, config, question: str, repeats: int) -> dict:
    from rqrag.inference.build import build_decoder
    from rqrag.inference.decoding.tree import Question

    decoder = build_decoder(config)
    decoder.decode([Question("warm-up", [{"role": "user", "content": WARM_UP}])])
    seconds, answers = [], []
    for i in range(repeats):
        before_g = dataclasses.replace(decoder.generator.stats)
        searches_before = decoder.stats.searches
        started = time.perf_counter()
        (result,) = decoder.decode([Question(f"demo-{i}", [{"role": "user", "content": question}])])
        seconds.append(time.perf_counter() - started)
        answers.append(result.answer)
        g = decoder.generator.stats
        work = {
            "model_calls": g.model_calls - before_g.model_calls,
            "expansions": g.requests - before_g.requests,
            "prompt_tokens_computed": (g.prompt_tokens_computed or 0) - (before_g.prompt_tokens_computed or 0),
            "generated_tokens": g.generated_tokens - before_g.generated_tokens,
            "searches": decoder.stats.searches - searches_before,
            "trajectories": len(result.trajectories),
        }
    close = getattr(decoder.generator, "close", None)
    if close is not None:
        close()
    return {
        "name": name,
        "config": {k: getattr(config, k) for k in ("backend", "dtype", "actions", "max_depth", "stop_confidence")},
        "median_seconds": round(statistics.median(seconds), 2),
        "seconds": [round(s, 2) for s in seconds],
        "answer": answers[-1],
        "same_answer_every_repeat": len(set(answers)) == 1,
        **work,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--question", default=DEMO_QUESTION, help="the question (default: the demo's)")
    parser.add_argument("--repeats", type=int, default=3, help="timed answers per configuration (median)")
    parser.add_argument("--out", type=Path, default=None, help="also write the rows as JSON here")
    args = parser.parse_args(argv)

    rows = [
        time_config("before", demo_config(BEFORE), args.question, args.repeats),
        time_config("after", demo_config({}), args.question, args.repeats),
    ]
    print(f"\nThe demo question, answering phase (model loaded, warmed up), median of {args.repeats}:")
    print(
        f"{'config':<7} {'seconds':>8} {'calls':>6} {'expansions':>10} {'computed':>9} {'generated':>9} {'searches':>8}"
    )
    for r in rows:
        print(
            f"{r['name']:<7} {r['median_seconds']:>8.1f} {r['model_calls']:>6} {r['expansions']:>10} "
            f"{r['prompt_tokens_computed']:>9} {r['generated_tokens']:>9} {r['searches']:>8}   {r['config']}"
        )
        print(f"        answer: {r['answer']!r}")
    before, after = rows
    print(f"speed-up before/after: {before['median_seconds'] / after['median_seconds']:.2f}x")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"args": vars(args) | {"out": str(args.out)}, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
