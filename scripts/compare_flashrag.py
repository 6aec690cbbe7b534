"""FlashRAG's pipelines and ours on the same model, corpus and questions: one command, one run, one table.

    make install-compare                      # pip install -e .[compare] + flashrag-dev 0.1.2 without its deps
    python scripts/compare_flashrag.py        # HotpotQA-200, 2Wiki-100, PopQA-200 (docs/compare.md)
    python scripts/compare_flashrag.py --tasks hotpotqa:5 --out runs/compare/smoke    # what its heavy test runs

The same everything: the embedded Wikipedia paragraphs are both toolkits' corpus (written as FlashRAG's corpus file),
BM25 through bm25s is both retrievers, `--top_k` passages a search on both sides, the same questions (each task's
held-out ids, in file order), greedy decoding in float32, `--max_new_tokens` a generation and `--max_input_tokens` a
prompt. Generation without retrieval, standard RAG and IRCoT run SmolLM2-135M-Instruct on both sides (FlashRAG's
`SequentialPipeline` and `IRCOTPipeline`, scripts/flashrag_side.py; ours: `rqrag eval --systems no_retrieval
standard_rag ircot` prompted); RQ-RAG is ours only: flashrag-dev 0.1.2 on PyPI ships no RQ-RAG pipeline (its class
exists in FlashRAG's GitHub source only, which this machine cannot install). Ours runs as a user runs it: `rqrag eval
--config configs/eval/<task>.yaml` with the shipped model, with today's answer and with the written answer.

Every row is scored by FlashRAG's own EM and F1 (`flashrag.evaluator.metrics`) on the answer a person reads (ours:
the short answer of a grounded answer, else its text), and by ours (holds the gold: rqrag.eval.metrics.holds_gold, on
the whole text shown). Writes, under --out: each side's predictions, `rows.jsonl`, `table.md` (with the ratio of ours
to theirs per method) and `resolved_config.yaml`. Finished parts are kept: a rerun does only what is missing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import flashrag_side
import yaml


REPO = Path(__file__).resolve().parent.parent
DEFAULT_TASKS = ("hotpotqa:200", "2wikimultihopqa:100", "popqa:200")
# Our `rqrag eval` system in each method's row.
INSTRUCT_SYSTEMS = {"naive": "no_retrieval", "standard_rag": "standard_rag", "ircot": "ircot"}
WRITTEN_CONFIG = REPO / "configs" / "decode" / "rqrag_written.yaml"


def written_answer_flags() -> list[str]:
    """configs/decode/rqrag_written.yaml as `rqrag eval` flags: the eval configs start from rqrag_trained.yaml, which
    the written config extends, so its own keys (not its base) are what the written answer adds."""
    values = yaml.safe_load(WRITTEN_CONFIG.read_text())
    values.pop("base", None)
    return [part for key, value in values.items() for part in (f"--{key}", str(value))]


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS), help="task:N, the first N held-out ids")
    parser.add_argument("--out", default="runs/compare/flashrag", help="output folder (finished parts are kept)")
    parser.add_argument("--instruct_model", default="smollm2-135m-instruct", help="both sides' generator")
    parser.add_argument("--top_k", type=int, default=3, help="passages a search, both sides (ours ships 3)")
    parser.add_argument("--max_new_tokens", type=int, default=48, help="tokens a generation (our decoder's limit)")
    parser.add_argument("--max_input_tokens", type=int, default=2048, help="tokens a prompt, both sides")
    parser.add_argument("--sides", nargs="+", default=["flashrag", "ours"], choices=["flashrag", "ours"])
    # 4 of FlashRAG's generator batches of 8 between saves: a killed run loses at most one chunk's work
    parser.add_argument(
        "--flashrag_chunk", type=int, default=32, help="questions a FlashRAG pipeline runs between saves"
    )
    parser.add_argument(
        "--flashrag_source",
        default=None,
        help="a checkout of FlashRAG's GitHub source: adds its RQ-RAG pipeline (not in 0.1.2), flashrag_rqrag.py",
    )
    parser.add_argument(
        "--flashrag_rqrag_tasks", nargs="+", default=None,
        help="task:N for FlashRAG's RQ-RAG (default: --tasks). Its tree prefills ~74k tokens a question (40 answers, "
             "39 searches, no prompt reuse between calls): minutes a question on a CPU, so a few questions there; "
             "our RQ-RAG is scored again on the same questions beside it",
    )  # fmt: skip
    parser.add_argument("--no_written", action="store_true", help="leave out our written answer (a 1.5B writer)")
    return parser.parse_args(argv)


def task_examples(spec: str):
    from rqrag.eval.tasks import get_task

    name, _, count = spec.partition(":")
    examples, _ = get_task(name).load(split="eval", limit=int(count) if count else None)
    return name, examples


def run_flashrag(args, out: Path, name: str, examples, model_path: str) -> list[dict]:
    """FlashRAG's three pipelines on one task, with its index as shipped and corrected (flashrag_side.py)."""
    from rqrag.retrieval.embedded import embedded_corpus_path
    from rqrag.retrieval.passages import read_passages

    corpus = out / "flashrag" / "corpus.jsonl"
    if not corpus.is_file():
        flashrag_side.write_corpus(read_passages(embedded_corpus_path())[0], corpus)
    data_dir = out / "flashrag" / "data"
    flashrag_side.write_questions(examples, data_dir / name)
    runs = []
    for variant, stemmed in (("as shipped", False), ("index stemmed", True)):
        index = flashrag_side.build_index(corpus, out / "flashrag" / f"index_{'stemmed' if stemmed else 'shipped'}",
                                          bm25_stemmed=stemmed)  # fmt: skip
        values = flashrag_side.settings(
            model_path=model_path, corpus=corpus, index=index, data_dir=data_dir, task=name,
            out=out / "flashrag" / "runs", top_k=args.top_k, max_new_tokens=args.max_new_tokens,
            max_input_tokens=args.max_input_tokens,
        )  # fmt: skip
        config = generator = retriever = None
        for pipeline in flashrag_side.PIPELINES:
            if pipeline == "naive" and stemmed:
                continue  # no retrieval: the index does not matter
            # one file per question count, so its seconds and counts are those of exactly these questions
            saved = out / "flashrag" / name / f"{pipeline}{'_stemmed' if stemmed else ''}_{len(examples)}.json"

            def chunk(done_ids, pipeline=pipeline, values=values):
                nonlocal config, generator, retriever
                config = config or flashrag_side.make_config(values)
                run, generator, retriever = flashrag_side.run_pipeline(
                    pipeline, config, generator, retriever, done_ids=done_ids, chunk=args.flashrag_chunk
                )  # fmt: skip
                return run

            run = saved_run(saved, examples, chunk)
            label = "FlashRAG" if pipeline == "naive" else f"FlashRAG ({variant})"
            runs.append({"method": pipeline, "toolkit": label, "model": args.instruct_model, **run})
    return runs


def saved_run(saved: Path, examples, run_chunk) -> dict:
    """A FlashRAG run of `examples` kept in `saved`: `run_chunk(done_ids)` runs the next chunk of those not done,
    and every chunk is saved before the next starts, so a killed run goes on where it stopped."""
    run = json.loads(saved.read_text()) if saved.is_file() else None
    wanted = {e.uid for e in examples}
    while run is None or not wanted <= run["predictions"].keys():
        run = flashrag_side.merged(run, run_chunk(frozenset(run["predictions"]) if run else frozenset()))
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(run, indent=1))
    return run


def run_flashrag_rqrag(args, out: Path, name: str, examples) -> list[dict]:
    """FlashRAG's RQ-RAG pipeline from its GitHub source (flashrag_rqrag.py) on the shipped model, with its Tulu-style
    prompt as shipped and framed in the model's chat template; the stemmed BM25 index (the shipped one holds
    characters), the same top-k and limits as every row."""
    import flashrag_rqrag

    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.models import resolve_model

    model_path = resolve_model(flashrag_rqrag.shipped_model())
    pipeline_class = flashrag_rqrag.load_pipeline_class(Path(args.flashrag_source))
    index = flashrag_side.build_index(out / "flashrag" / "corpus.jsonl", out / "flashrag" / "index_stemmed",
                                      bm25_stemmed=True)  # fmt: skip
    values = flashrag_side.settings(
        model_path=model_path, corpus=out / "flashrag" / "corpus.jsonl", index=index, data_dir=out / "flashrag" / "data",
        task=name, out=out / "flashrag" / "runs", top_k=args.top_k, max_new_tokens=args.max_new_tokens,
        max_input_tokens=args.max_input_tokens,
    )  # fmt: skip
    config = flashrag_side.make_config(values)
    # the task's file holds all its questions; the RQ-RAG rows may ask for fewer (--flashrag_rqrag_tasks)
    wanted = frozenset(e.uid for e in examples)
    loaded = {}
    runs = []
    for label, corrected in (("as shipped", False), ("chat template", True)):

        def chunk(done_ids, corrected=corrected):
            if not loaded:
                hf = HFGenerator.from_pretrained(model_path, dtype="float32")
                loaded["generator"] = flashrag_rqrag.RawOutputGenerator(
                    hf, hf.tokenizer, max_new_tokens=args.max_new_tokens, seed=values["seed"]
                )  # fmt: skip
                loaded["retriever"] = None

            def make_runner(config, generator, retriever):
                return flashrag_rqrag.pipeline_for(pipeline_class, config, generator, retriever, corrected=corrected)

            run, _, loaded["retriever"] = flashrag_side.run_pipeline(
                "rqrag", config, loaded["generator"], loaded["retriever"], done_ids=done_ids, only_ids=wanted,
                chunk=args.flashrag_chunk, make_runner=make_runner,
            )  # fmt: skip
            return run

        saved = out / "flashrag" / name / f"rqrag{'_chat' if corrected else ''}_{len(examples)}.json"
        run = saved_run(saved, examples, chunk)
        runs.append({"method": "rqrag", "toolkit": f"FlashRAG ({label})", "model": "shipped", **run})
    return runs


def _our_eval(args, out: Path, name: str, count: int, systems: list[str], extra: list[str]) -> Path:
    folder = out / "ours" / name / "_".join(systems) / ("written" if "--writer" in extra else "")
    if all((folder / s / "predictions.jsonl").is_file() for s in systems):
        lines = [(folder / s / "predictions.jsonl").read_text().count("\n") for s in systems]
        if min(lines) >= count:
            return folder
    command = [
        str(Path(sys.executable).parent / "rqrag"), "eval", "--config", f"configs/eval/{name}.yaml", "--limit", str(count),
        "--systems", *systems, "--retriever", "corpus", "--retrieval_mode", "bm25",
        "--docs_per_search", str(args.top_k), "--dtype", "float32", "--output_dir", str(folder), "--resume", *extra,
    ]  # fmt: skip
    subprocess.run(command, cwd=REPO, check=True)
    return folder


def _searches(record: dict) -> int:
    """Searches one question made: the distinct queries of its trajectories (a shared prefix searched once)."""
    queries = {
        step["text"]
        for t in record.get("trajectories", [])
        for step in t["steps"]
        if step["action"] not in ("answer", "none")
    }
    return len(queries)


def read_ours(folder: Path, system: str, *, shown_answer: bool, ids: set | None = None) -> dict:
    """One of our systems' records: the answer scored, the text held against the gold, the work done.

    `shown_answer`: the answer a person reads (a grounded answer's short answer, its text for holds-the-gold), as for
    RQ-RAG; otherwise the model's own answer, as FlashRAG's pipelines score theirs. Our baselines' shown answer can
    quote the question's own search even for generation without retrieval, which would not be the same method."""
    records = [json.loads(line) for line in (folder / system / "predictions.jsonl").read_text().splitlines()]
    records = [r for r in records if ids is None or r["id"] in ids]  # `ids`: a subset (FlashRAG's RQ-RAG questions)
    shown = {}
    for r in records:
        grounded = (r.get("grounded") or {}) if shown_answer else {}
        shown[r["id"]] = {"answer": grounded.get("short_answer") or grounded.get("answer") or r["prediction"] or "",
                          "text": grounded.get("answer") or r["prediction"] or ""}  # fmt: skip
    return {
        "shown": shown,
        "seconds": sum(r["seconds"] for r in records),
        "generated_tokens": sum(r["cost"].get("generated_tokens", 0) for r in records),
        "searches": sum(_searches(r) for r in records),
    }


def run_ours(args, out: Path, name: str, examples) -> list[dict]:
    count = len(examples)
    instruct = [*INSTRUCT_SYSTEMS.values()]
    folder = _our_eval(args, out, name, count, instruct, ["--model", args.instruct_model, "--prompting", "prompted"])
    rows = [
        {
            "method": method,
            "toolkit": "rq-rag",
            "model": args.instruct_model,
            **read_ours(folder, system, shown_answer=False),
        }
        for method, system in INSTRUCT_SYSTEMS.items()
    ]
    answers = [("today's answer", [])] + ([] if args.no_written else [("written answer", written_answer_flags())])
    for label, extra in answers:
        folder = _our_eval(args, out, name, count, ["rqrag"], extra)
        rows.append(
            {
                "method": "rqrag",
                "toolkit": f"rq-rag ({label})",
                "model": "shipped",
                "folder": folder,
                **read_ours(folder, "rqrag", shown_answer=True),
            }
        )
    return rows


def rqrag_side_by_side(args, out: Path, name: str, examples, our_rows: list[dict]) -> tuple[str, list, list[dict]]:
    """FlashRAG's RQ-RAG on the questions `--flashrag_rqrag_tasks` asks for this task, and our RQ-RAG rows read again
    on exactly those questions: a group of the table of its own when they are fewer than the task's."""
    wanted = dict(spec.partition(":")[::2] for spec in (args.flashrag_rqrag_tasks or args.tasks))
    if name not in wanted:
        return name, examples, []
    subset = examples[: int(wanted[name])] if wanted[name] else examples
    rows = run_flashrag_rqrag(args, out, name, subset)
    if len(subset) == len(examples):
        return name, subset, rows
    ids = {e.uid for e in subset}
    for row in our_rows:
        if row["method"] == "rqrag":
            rows.append({**row, **read_ours(row["folder"], "rqrag", shown_answer=True, ids=ids)})
    return f"{name}, its first {len(subset)}", subset, rows


def score(row: dict, examples, name: str, label: str | None = None) -> dict:
    """FlashRAG's EM and F1 on the answer, our holds-the-gold on the text shown; per-question means. `label`: the
    table's group when it is not the whole task."""
    from flashrag.evaluator.metrics import ExactMatch, F1_Score

    from rqrag.eval.metrics import holds_gold

    em, f1 = ExactMatch({"dataset_name": name}), F1_Score({"dataset_name": name})
    n = len(examples)
    totals = {"em": 0.0, "f1": 0.0, "holds_gold": 0.0}
    for example in examples:
        if "shown" in row:
            shown = row["shown"].get(example.uid, {"answer": "", "text": ""})
            answer, text = shown["answer"], shown["text"]
        else:
            answer = text = row["predictions"].get(example.uid, "")
        golds = list(example.golds)
        totals["em"] += em.calculate_em(answer, golds)
        totals["f1"] += f1.token_level_scores(answer, golds)["f1"]
        totals["holds_gold"] += holds_gold(text, golds, example.question)
    return {
        "task": label or name, "method": row["method"], "toolkit": row["toolkit"], "model": row["model"], "questions": n,
        **{k: round(100 * v / n, 1) for k, v in totals.items()},
        "seconds_per_question": round(row["seconds"] / n, 2),
        "tokens_per_question": round(row["generated_tokens"] / n, 1),
        "searches_per_question": round(row["searches"] / n, 2),
    }  # fmt: skip


def main(argv=None) -> None:
    from compare_table import write_table

    from rqrag.config_loader import git_commit
    from rqrag.models import resolve_model

    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    toolkit_versions = versions()
    resolved = {
        "entry_point": "scripts/compare_flashrag.py",
        **vars(args),
        "versions": toolkit_versions,
        "git_commit": git_commit(),
    }
    (out / "resolved_config.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False))
    model_path = resolve_model(args.instruct_model)
    scored = []
    started = time.perf_counter()
    for spec in args.tasks:
        name, examples = task_examples(spec)
        theirs = run_flashrag(args, out, name, examples, model_path) if "flashrag" in args.sides else []
        ours = run_ours(args, out, name, examples) if "ours" in args.sides else []
        scored += [score(row, examples, name) for row in theirs + ours]
        if args.flashrag_source and "flashrag" in args.sides:
            label, subset, rows = rqrag_side_by_side(args, out, name, examples, ours)
            scored += [score(row, subset, name, label) for row in rows]
        print(f"{name}: {len(examples)} questions done ({time.perf_counter() - started:.0f} s)", flush=True)
    (out / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in scored))
    table = write_table(scored, out / "table.md", versions=toolkit_versions)
    print(table)


def versions() -> dict:
    from importlib.metadata import version

    return {name: version(name) for name in ("flashrag-dev", "rq-rag", "transformers", "torch", "bm25s")}


if __name__ == "__main__":
    main()
