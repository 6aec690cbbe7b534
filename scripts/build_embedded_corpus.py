"""Build the embedded default corpus: the pooled candidate paragraphs of three multi-hop QA dev sets.

Run from the project root:

    python scripts/build_embedded_corpus.py                 # corpus + ATTRIBUTION.md
    python scripts/build_embedded_corpus.py --embeddings    # also the shipped MiniLM embeddings (~3 min)

It reads the IRCoT-format HotpotQA, 2WikiMultihopQA and MuSiQue files under `../shared/data/benchmarks/`,
keeps one copy of each distinct (title, paragraph text), records which datasets each paragraph came from,
and writes `rqrag/retrieval/data/wiki_paragraphs.jsonl.gz` (sorted by title then text, gzip mtime 0, so
the same inputs always give byte-identical output) and `rqrag/retrieval/data/ATTRIBUTION.md`.
With `--embeddings` it also encodes every paragraph with the packaged all-MiniLM-L6-v2 and ships the
vectors (float16, ~8 MB) so that a fresh install's first hybrid search does not spend ~3 minutes on the
2-core CPU embedding the corpus; `rqrag.retrieval.embedded` uses them only if their recorded corpus hash
matches, and a test re-encodes a sample to check them.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

from rqrag.records import jsonl_objects


PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BENCHMARKS_DIR = PROJECT_ROOT.parent / "shared" / "data" / "benchmarks"
DEFAULT_OUT_DIR = PROJECT_ROOT / "rqrag" / "retrieval" / "data"
CORPUS_NAME = "wiki_paragraphs.jsonl.gz"

# dataset -> (file under the benchmarks dir, license of the dataset)
SOURCES = {
    "hotpotqa": ("hotpotqa/hotpotqa_dev_500_ircot_format.jsonl", "CC BY-SA 4.0"),
    "2wikimultihopqa": ("2wikimultihopqa/2wikimultihopqa_dev_164_ircot_format.DERIVED.jsonl", "Apache-2.0"),
    "musique": ("musique/musique_ans_dev_292_ircot_format.DERIVED.jsonl", "CC BY 4.0"),
}


def content_docid(title: str, text: str) -> str:
    # Same rule as rqrag.retrieval.passages.content_docid; repeated so the script runs without the package.
    return "doc-" + hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()[:16]


def pool_paragraphs(benchmarks_dir: Path) -> tuple[dict[tuple[str, str], set[str]], dict[str, dict[str, int]]]:
    """Map each distinct (title, text) to the datasets it appears in; also per-dataset counts."""
    sources_of: dict[tuple[str, str], set[str]] = {}
    counts: dict[str, dict[str, int]] = {}
    for dataset, (relative_path, _) in SOURCES.items():
        path = benchmarks_dir / relative_path
        questions = paragraphs = 0
        distinct: set[tuple[str, str]] = set()
        with path.open(encoding="utf-8") as f:
            for _, record in jsonl_objects(f, source=str(path)):
                questions += 1
                for context in record["contexts"]:
                    key = (context["title"], context["paragraph_text"])
                    paragraphs += 1
                    distinct.add(key)
                    sources_of.setdefault(key, set()).add(dataset)
        counts[dataset] = {"questions": questions, "paragraphs": paragraphs, "distinct": len(distinct)}
    return sources_of, counts


def write_corpus(sources_of: dict[tuple[str, str], set[str]], path: Path) -> None:
    """Sorted JSONL, gzipped with mtime=0 and no file name in the header: byte-identical across runs."""
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        for title, text in sorted(sources_of):
            record = {
                "docid": content_docid(title, text),
                "title": title,
                "text": text,
                "sources": sorted(sources_of[(title, text)]),
            }
            gz.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))


def attribution(counts: dict[str, dict[str, int]], sources_of: dict[tuple[str, str], set[str]], sha256: str) -> str:
    shared = Counter(len(s) for s in sources_of.values())
    rows = "\n".join(
        f"| {name} | `{SOURCES[name][0]}` | {SOURCES[name][1]} | {c['questions']} | {c['paragraphs']} | {c['distinct']} |"
        for name, c in counts.items()
    )
    return f"""# Embedded retrieval corpus: `{CORPUS_NAME}`

The default offline search corpus of `rqrag search` and `--retriever corpus`: the candidate paragraphs
(gold and distractor) of the dev questions of three multi-hop QA benchmarks, pooled and deduplicated.
All paragraph text comes from **English Wikipedia**, licensed **CC BY-SA** (3.0/4.0); the benchmark
selections are redistributed under their own licenses, listed below. Provenance of the input files
(source repositories and commits) is recorded in `shared/data/benchmarks/SOURCES.md` of this workplace.

| dataset | input file (under `shared/data/benchmarks/`) | license | questions | paragraphs | distinct |
|---|---|---|---|---|---|
{rows}

- Dataset licenses: HotpotQA CC BY-SA 4.0 (Yang et al., 2018), 2WikiMultihopQA Apache-2.0 (Ho et al., 2020),
  MuSiQue CC BY 4.0 (Trivedi et al., 2022). Wikipedia text: CC BY-SA, attribution to Wikipedia contributors.
- **{len(sources_of):,} unique paragraphs** after deduplicating by exact (title, text); {shared.get(1, 0):,} occur in
  one dataset, {shared.get(2, 0):,} in two and {shared.get(3, 0):,} in all three.
- Each record is `{{"docid", "title", "text", "sources"}}`: docid = `"doc-" + sha1(title + "\\n" + text)[:16]`,
  `sources` = the datasets the paragraph appears in. Records are sorted by (title, text).
- SHA-256 of `{CORPUS_NAME}`: `{sha256}`

Because these are the candidate pools of the benchmark questions themselves, searching this corpus for a
HotpotQA/2Wiki/MuSiQue dev question is an *open* version of the distractor setting: the gold paragraphs
are in the corpus, among ~10k others. It is a small stand-in for a Wikipedia dump, not a replacement.

## How it was built

From the project root, with `shared/` next to it:

```
python scripts/build_embedded_corpus.py
```

The output is deterministic (sorted records, gzip header with mtime 0), so re-running it on the same
inputs reproduces the file byte for byte.
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks-dir", type=Path, default=DEFAULT_BENCHMARKS_DIR, help="shared benchmark data")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR, help="where the corpus and ATTRIBUTION.md go")
    parser.add_argument("--embeddings", action="store_true", help="also write the MiniLM embeddings of the corpus")
    parser.add_argument("--embeddings-only", action="store_true", help="only (re)write the embeddings")
    args = parser.parse_args(argv)
    if args.embeddings_only:
        return write_embeddings(args.out_dir / CORPUS_NAME)

    missing = [str(args.benchmarks_dir / p) for p, _ in SOURCES.values() if not (args.benchmarks_dir / p).is_file()]
    if missing:
        print(f"error: benchmark files not found: {missing}", file=sys.stderr)
        return 1
    sources_of, counts = pool_paragraphs(args.benchmarks_dir)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    corpus_path = args.out_dir / CORPUS_NAME
    write_corpus(sources_of, corpus_path)
    sha256 = hashlib.sha256(corpus_path.read_bytes()).hexdigest()
    (args.out_dir / "ATTRIBUTION.md").write_text(attribution(counts, sources_of, sha256))
    for name, c in counts.items():
        print(f"{name:16s} {c['questions']:4d} questions {c['paragraphs']:6d} paragraphs {c['distinct']:6d} distinct")
    print(f"wrote {len(sources_of)} unique paragraphs to {corpus_path} ({corpus_path.stat().st_size:,} bytes)")
    print(f"sha256 {sha256}")
    return write_embeddings(corpus_path) if args.embeddings else 0


def write_embeddings(corpus_path: Path) -> int:
    from rqrag.retrieval.embedded import write_shipped_embeddings

    path = write_shipped_embeddings(corpus_path)
    print(f"wrote embeddings to {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
