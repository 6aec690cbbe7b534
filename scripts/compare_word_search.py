"""Word search in PostgreSQL against the in-process BM25: is the right passage found as often?

    python scripts/compare_word_search.py --sets golden,heldout --out runs/retrieval/word_search

Replicas share a document library in PostgreSQL, so its word search is PostgreSQL's full-text search (the library's
language configuration, ranked by `ts_rank_cd`; `rqrag.retrieval.pgvector_store`), where one server searches its
folder library with BM25 in the process (bm25s). This builds both libraries from the same PDFs with the product's
default chunking (the folder one kept in .cache/eval_document_retrieval/, the PostgreSQL one in a throw-away local
server) and searches every question of a set in both, by words only (`bm25`) and hybrid (words and meaning fused,
what questions use by default). A question counts at k when one of its evidence quotes lies inside one of the k
passages found, as in `scripts/eval_document_retrieval.py`. Milliseconds per query are printed beside.

Sets: golden (the Debian Edu manual, the questions the product was tuned on) and heldout (three PDFs and their
questions, kept aside). Writes results.json and the resolved flags to --out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rqrag.eval.experiments.metrics import normalise_for_quotes


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from eval_document_answers import KEY_FACTS, SETS, questions_with_key_facts  # noqa: E402
from eval_document_retrieval import KS, library_for  # noqa: E402


def recall(library, questions: list[dict], mode: str) -> dict:
    retriever = library.retriever(mode)
    retriever.search(questions[0]["question"], k=max(KS))  # opens the index: not counted
    found = {k: 0 for k in KS}
    started = time.perf_counter()
    for question in questions:
        quotes = [normalise_for_quotes(e["quote"]) for e in question["evidence"]]
        passages = [normalise_for_quotes(hit.text) for hit in retriever.search(question["question"], k=max(KS))]
        for k in KS:
            found[k] += any(q in p for q in quotes for p in passages[:k])
    ms = 1000 * (time.perf_counter() - started) / len(questions)
    return {**{f"recall@{k}": round(found[k] / len(questions), 3) for k in KS}, "ms_per_query": round(ms, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="golden,heldout", help="question sets, comma separated")
    parser.add_argument("--modes", default="bm25,hybrid", help="search modes, comma separated")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "retrieval" / "word_search")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "resolved_config.json").write_text(json.dumps({k: str(v) for k, v in vars(args).items()}, indent=2))
    from rqrag.ingest.chunking import ChunkingConfig
    from rqrag.ingest.libraries import open_library
    from rqrag.retrieval.postgres_server import LocalPostgres

    default = ChunkingConfig()
    chunking = f"{default.chunk_size}/{default.chunk_overlap}"
    rows = []
    print(f"{'set':<8} {'mode':<7} {'store':<11} {'r@1':>6} {'r@3':>6} {'r@5':>6} {'ms/q':>7}")
    with LocalPostgres(args.out / "pg", delete_on_stop=True) as pg:
        for set_name in args.sets.split(","):
            pdfs, files = SETS[set_name]
            facts = KEY_FACTS if set_name == "golden" else None
            questions = [q for path in files for q in questions_with_key_facts(path, facts) if q.get("evidence")]
            folder = library_for(set_name, pdfs, chunking)
            database = open_library(f"words_{set_name}", database_url=pg.url, language=folder.language)
            for pdf in pdfs:
                database.add(pdf.read_bytes(), pdf.name)
            for mode in args.modes.split(","):
                for store, library in (("in-process", folder), ("postgresql", database)):
                    row = {"set": set_name, "questions": len(questions), "mode": mode, "store": store,
                           **recall(library, questions, mode)}  # fmt: skip
                    rows.append(row)
                    print(f"{set_name:<8} {mode:<7} {store:<11} {row['recall@1']:>6.3f} {row['recall@3']:>6.3f} "
                          f"{row['recall@5']:>6.3f} {row['ms_per_query']:>7.1f}")  # fmt: skip
            database.close()
            folder.close()
    (args.out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
