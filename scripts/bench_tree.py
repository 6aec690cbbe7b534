"""Benchmark the tree decoder's schedules and backends on the same HotpotQA questions, in one run.

    python scripts/bench_tree.py                                  # hf backend, 4 questions, depth 2
    python scripts/bench_tree.py --backends hf,vllm --questions 4 --out bench/tree.json
    python scripts/bench_tree.py --backends hf,llamacpp --schedules batched     # the same model, GGUF on llama.cpp

Every configuration decodes the same questions with the same model (SmolLM2-135M, prompted mode unless
`--prompting trained --model DIR`), retriever (each question's HotpotQA candidate paragraphs, BM25, top 3),
depth, actions and token budgets, greedily, so all schedules build identical trees:

* `batched`    — ours: one generate call per depth, each node's prompt prefix computed once;
* `per_action` — one call per action per depth (FlashRAG's schedule);
* `sequential` — one call per expansion, plus a second forward pass over every finished trajectory to
  score it (the original RQ-RAG code).

`per_action` and `sequential` run without merging identical expansions (as the code they stand for);
`batched` runs twice, with and without `merge_expansions`, so the saving of merging is printed in the same run
(with greedy queries and `--width 2` every action's two samples are the same expansion).

Reported per configuration: wall time, model calls, requests, generated tokens and **prompt tokens computed**
— the hardware-independent cost. Two floors:

* the **token floor**: the number of distinct tokens in the tree (every prompt of every call, with its
  completion, inserted into one prefix trie), i.e. each shared token computed once;
* the **unique-work floor**: the number of distinct expansions (requests with the same context and sampling
  parameters — and seed, when sampling — are one, `rqrag.inference.decoding.expansions`) and their prompt tokens: what
  a backend must serve once identical requests are merged, without any prefix reuse.

Ratios against `sequential` of the same backend, and of merged against unmerged `batched`, are printed in the
same run, and each row's **duplicate expansions** (requests beyond the distinct ones: zero once merged). The demo
question end to end, before and after this work, is `scripts/bench_demo.py`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

from rqrag.benchmarks.files import default_file
from rqrag.eval.text_table import print_table
from rqrag.records import read_records


PROJECT_ROOT = Path(__file__).resolve().parents[1]
HOTPOTQA = default_file("hotpotqa")  # the fetched full file (rqrag data fetch hotpotqa), else the shipped slice
SCHEDULES = ("batched", "per_action", "sequential")


class RecordingGenerator:
    """Wraps a backend to keep every request and its completion (for the floors)."""

    def __init__(self, inner):
        self.inner = inner
        self.requests = []  # (request, completion token ids)

    @property
    def stats(self):
        return self.inner.stats

    @property
    def max_context(self):
        return self.inner.max_context

    def generate(self, requests):
        completions = self.inner.generate(requests)
        self.requests += [(r, c.token_ids) for r, c in zip(requests, completions)]
        return completions


def unique_tree_tokens(sequences) -> int:
    """Nodes of the prefix trie holding every prompt (+ its generated tokens): each token computed once."""
    root: dict = {}
    count = 0
    for request, generated in sequences:
        node = root
        prompt = request.prompt_ids
        for token in (*prompt, *generated):
            if token not in node:
                node[token] = {}
                count += 1
            node = node[token]
    return count


def unique_work(sequences) -> tuple[int, int]:
    """The distinct expansions among the requests (by content address) and the sum of their prompt lengths."""
    from rqrag.inference.decoding.expansions import request_key

    distinct = {request_key(request): len(request.prompt_ids) for request, _ in sequences}
    return len(distinct), sum(distinct.values())


def hotpotqa_questions(n: int):
    """The first `n` HotpotQA questions as decoder inputs, with their records (for the candidate pools)."""
    from rqrag.inference.decoding.tree import Question

    records = list(itertools.islice(read_records(HOTPOTQA), n))
    questions = [Question(r["question_id"], [{"role": "user", "content": r["question_text"]}]) for r in records]
    return questions, records


def run(backend_name: str, schedule: str, merge: bool, args, questions, records, shared: dict) -> dict:
    from rqrag.inference.backends.base import GenerationRequest, SamplingParams
    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.retrieval.candidate_paragraphs import CandidateRetriever

    config = DecodeConfig(
        model=args.model,
        prompting=args.prompting,
        backend=backend_name,
        max_depth=args.depth,
        width=args.width,
        schedule=schedule,
        merge_expansions=merge,
        refinement_guards=args.guards,
        query_temperature=0.0,
        query_max_tokens=args.max_tokens,
        answer_max_tokens=args.max_tokens,
        retriever="candidates",
        docs_per_search=3,
        max_batch_size=args.max_batch_size,
    )
    generator = RecordingGenerator(shared[backend_name]["new"]())
    decoder = TreeDecoder(
        config, generator, shared[backend_name]["tokenizer"], CandidateRetriever.from_records(records)
    )
    started = time.perf_counter()
    results = decoder.decode(questions)
    rescore_calls = 0
    if schedule == "sequential":
        # The original scores each finished trajectory with a second forward pass over all of it.
        for result in results:
            for t in result.trajectories:
                if t.ok and t.sequence_ids:
                    generator.inner.generate([GenerationRequest(t.sequence_ids, SamplingParams(max_tokens=1))])
                    rescore_calls += 1
    seconds = time.perf_counter() - started
    stats = generator.stats.as_dict()
    distinct, distinct_prompt_tokens = unique_work(generator.requests)
    return {
        "backend": backend_name,
        "schedule": schedule,
        "merge": merge,
        "seconds": round(seconds, 2),
        **stats,
        "rescore_calls": rescore_calls,
        "unique_tree_tokens": unique_tree_tokens(generator.requests),
        "unique_expansions": distinct,
        "duplicate_expansions": len(generator.requests) - distinct,
        "unique_expansion_prompt_tokens": distinct_prompt_tokens,
        "decoder": decoder.stats.as_dict(),
        "answers": [r.answer for r in results],
        "trajectories": sum(len(r.trajectories) for r in results),
    }


def configurations(backend_names: list[str], schedules: list[str]) -> list[tuple[str, str, bool]]:
    """(backend, schedule, merge): the baselines unmerged, `batched` merged and unmerged."""
    out = []
    for backend in backend_names:
        for schedule in schedules:
            if schedule == "batched":
                out += [(backend, schedule, True), (backend, schedule, False)]
            else:
                out.append((backend, schedule, False))
    return out


def _ratio(numerator: str, denominator: str):
    """A column of numerator/denominator, n/a where either is unknown or the denominator is 0."""

    def of(row: dict) -> float | None:
        top, bottom = row[numerator], row[denominator]
        return top / bottom if top is not None and bottom else None

    return of


def _speedup(rows: list[dict]):
    """A column of the sequential schedule's seconds over the row's, for the same backend."""

    def of(row: dict) -> str:
        base = next((r for r in rows if r["backend"] == row["backend"] and r["schedule"] == "sequential"), None)
        return f"{base['seconds'] / row['seconds']:.2f}x" if base and row["seconds"] else "-"

    return of


def print_report(rows: list[dict], args) -> None:
    # computed/floor against the tree's token floor; computed/their against the unique-work floor: above 1 means
    # some prompt token was computed more often than once per distinct expansion, which merging plus prefix reuse
    # should prevent.
    columns = [
        ("backend", "backend", ""),
        ("schedule", "schedule", ""),
        ("merge", lambda row: "yes" if row["merge"] else "no", ""),
        ("seconds", "seconds", ".1f"),
        ("calls", "model_calls", ""),
        ("requests", "requests", ""),
        ("dup exp", "duplicate_expansions", ""),
        ("generated", "generated_tokens", ""),
        ("prompt computed", "prompt_tokens_computed", ""),
        ("token floor", "unique_tree_tokens", ""),
        ("computed/floor", _ratio("prompt_tokens_computed", "unique_tree_tokens"), ".2f"),
        ("distinct exp", "unique_expansions", ""),
        ("their prompt", "unique_expansion_prompt_tokens", ""),
        ("computed/their", _ratio("prompt_tokens_computed", "unique_expansion_prompt_tokens"), ".2f"),
        ("speedup", _speedup(rows), ""),
    ]
    title = (
        f"{len(rows[0]['answers'])} HotpotQA questions, depth {args.depth}, width {args.width}, all actions, "
        f"{args.max_tokens}-token budgets, greedy"
    )
    print_table(rows, columns, title)
    for backend in dict.fromkeys(r["backend"] for r in rows):
        pair = {r["merge"]: r for r in rows if r["backend"] == backend and r["schedule"] == "batched"}
        if len(pair) == 2:
            merged, plain = pair[True], pair[False]
            parts = [
                f"{name} {plain[key]} -> {merged[key]} ({merged[key] / plain[key]:.2f})"
                for name, key in (
                    ("requests", "requests"),
                    ("prompt tokens", "prompt_tokens"),
                    ("prompt tokens computed", "prompt_tokens_computed"),
                    ("seconds", "seconds"),
                )
                if plain[key]
            ]
            print(f"{backend} batched, merged/unmerged: " + "; ".join(parts))
    names = dict.fromkeys(r["backend"] for r in rows)
    same = {b: len({json.dumps(r["answers"]) for r in rows if r["backend"] == b}) == 1 for b in names}
    print(
        "identical answers across schedules and merging: "
        + ", ".join(f"{b} {'yes' if ok else 'NO'}" for b, ok in same.items())
    )


def backends(names: list[str], model: str, max_batch_size: int) -> dict:
    """A factory per backend; vLLM's engine is built once and its counters reset per run."""
    from rqrag.inference.backends.base import GeneratorStats
    from rqrag.models import load_model_and_tokenizer, load_tokenizer, resolve_model

    path = resolve_model(model)
    out: dict = {}
    if "hf" in names:
        from rqrag.inference.backends.hf import HFGenerator

        hf_model, tokenizer = load_model_and_tokenizer(path)
        out["hf"] = {
            "tokenizer": tokenizer,
            "new": lambda: HFGenerator(hf_model, tokenizer, max_batch_size=max_batch_size),
        }
    if "vllm" in names:
        from rqrag.inference.backends.vllm_engine import VLLMGenerator

        engine = VLLMGenerator(path)

        def fresh():
            # Each run starts cold: cached prefixes of the previous run would make it look cheaper.
            engine.llm.reset_prefix_cache()
            engine.stats = GeneratorStats()
            return engine

        out["vllm"] = {"tokenizer": load_tokenizer(path), "new": fresh, "engine": engine}
    if "llamacpp" in names:
        from rqrag.inference.backends.llamacpp import LlamaCppEngine, LlamaCppGenerator
        from rqrag.inference.build import gguf_file_for

        # the same model's GGUF file (the hf backend reads it dequantised); one engine, its slots' caches kept across
        # runs as a server would keep them: each run gets fresh counters
        llama = LlamaCppEngine(gguf_file_for(model), n_ctx=4096, parallel=4)
        tokenizer = load_tokenizer(path)
        out["llamacpp"] = {"tokenizer": tokenizer, "new": lambda: LlamaCppGenerator(llama, tokenizer)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backends", default="hf", help="comma-separated: hf, vllm, llamacpp (default: %(default)s)")
    parser.add_argument("--schedules", default=",".join(SCHEDULES), help="comma-separated (default: all)")
    parser.add_argument("--questions", type=int, default=4, help="HotpotQA dev questions (default: %(default)s)")
    parser.add_argument("--depth", type=int, default=2, help="tree depth (default: %(default)s)")
    parser.add_argument("--width", type=int, default=1, help="samples per query action (default: %(default)s)")
    parser.add_argument(
        "--guards", action="store_true", help="apply the refinement guards (off: the full tree, as earlier runs)"
    )
    parser.add_argument("--max-tokens", type=int, default=24, help="token budget per query and answer")
    parser.add_argument("--max-batch-size", type=int, default=32, help="hf backend rows per forward")
    parser.add_argument("--model", default="smollm2-135m-instruct", help="model alias or folder")
    parser.add_argument(
        "--prompting", default="prompted", choices=["prompted", "trained"], help="how the model is asked to refine"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    if not HOTPOTQA.is_file():
        print(f"error: {HOTPOTQA} not found (rqrag data fetch hotpotqa)", file=sys.stderr)
        return 1

    questions, records = hotpotqa_questions(args.questions)
    names = args.backends.split(",")
    shared = backends(names, args.model, args.max_batch_size)
    configs = configurations(names, args.schedules.split(","))
    rows = [run(b, s, merge, args, questions, records, shared) for b, s, merge in configs]
    print_report(rows, args)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"args": vars(args) | {"out": str(args.out)}, "rows": rows}, indent=2) + "\n")
    for entry in shared.values():
        if "engine" in entry:
            entry["engine"].close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
