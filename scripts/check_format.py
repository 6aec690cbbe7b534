"""Does a model follow the trajectory format on held-out questions? Trained model vs its base in prompted mode.

    python scripts/check_format.py --trained models/rqrag-smollm2-135m --per_source 20

Runs the tree decoder (configs/decode/rqrag_trained.yaml for the trained model, smollm2_prompted.yaml for
the base) on questions from the *eval* split of HotpotQA and ARC-Challenge (never trained on), with greedy
queries so the run is reproducible, and reports per model: the share of trajectories whose every step parsed
cleanly (`FinishedTrajectory.well_formed`: action, text and [EOS] where the format wants them), the share of
questions with at least one usable answer, and a quick answer check (HotpotQA: a gold answer inside the
selected answer; ARC: the right option). The full benchmark runner is `rqrag eval` (evaluation issue).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path


def held_out(per_source: int):
    from rqrag.data_construction.data_config import DataBuildConfig
    from rqrag.data_construction.pipeline import load_examples

    examples, _ = load_examples(
        DataBuildConfig(sources=[f"hotpotqa:{per_source}", f"arc_challenge:{per_source}"], split="eval")
    )
    return examples


def run(config_path: str, model: str, examples, max_depth: int) -> dict:
    from rqrag.config_loader import load_yaml_config
    from rqrag.data_construction.annotate import answer_agrees
    from rqrag.inference.build import build_decoder
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.tree import Question

    config = DecodeConfig(**load_yaml_config(config_path, [DecodeConfig]))
    config = dataclasses.replace(config, model=model, max_depth=max_depth, query_temperature=0.0)
    decoder = build_decoder(config)
    start = time.perf_counter()
    results = decoder.decode([Question(ex.uid, list(ex.messages)) for ex in examples])
    seconds = time.perf_counter() - start
    trajectories = [t for r in results for t in r.trajectories]
    correct = sum(bool(r.answer) and answer_agrees(ex, r.answer) for ex, r in zip(examples, results))
    return {
        "questions": len(results),
        "trajectories": len(trajectories),
        "well_formed": sum(t.well_formed for t in trajectories) / max(1, len(trajectories)),
        "answered": sum(r.answer is not None for r in results) / max(1, len(results)),
        "correct": correct / max(1, len(results)),
        "seconds": round(seconds, 1),
        "examples": [
            {"qid": r.qid, "answer": r.answer, "steps": [s.text for s in r.best.trajectory.steps] if r.best else None}
            for r in results[:: max(1, len(results) // 6)]
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trained", required=True, help="adapter or model folder from training/sft.py")
    parser.add_argument("--base", default="smollm2-135m-instruct")
    parser.add_argument("--per_source", type=int, default=20)
    parser.add_argument("--max_depth", type=int, default=2)
    parser.add_argument("--out", default=None, help="write the JSON report here")
    parser.add_argument("--skip_base", action="store_true", help="run the trained model only")
    args = parser.parse_args(argv)
    examples = held_out(args.per_source)
    report = {}
    if not args.skip_base:
        report["base (prompted)"] = run("configs/decode/smollm2_prompted.yaml", args.base, examples, args.max_depth)
    report["trained"] = run("configs/decode/rqrag_trained.yaml", args.trained, examples, args.max_depth)
    print(f"{len(examples)} held-out questions (HotpotQA + ARC-Challenge eval ids), depth {args.max_depth}, greedy")
    print(f"{'model':<18}{'trajectories':>13}{'well-formed':>13}{'answered':>10}{'correct':>9}{'seconds':>9}")
    for name, r in report.items():
        print(
            f"{name:<18}{r['trajectories']:>13}{r['well_formed']:>13.1%}{r['answered']:>10.1%}{r['correct']:>9.1%}{r['seconds']:>9}"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
