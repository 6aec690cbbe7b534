"""How much of each article the four written texts hold: key facts of a hand reference, per text, and the time.

    python scripts/eval_article_texts.py --set tuning                       # the articles tuned on
    python scripts/eval_article_texts.py --set heldout --out runs/article_texts/heldout
    python scripts/eval_article_texts.py --set tuning --writer openai --writer_base_url http://127.0.0.1:8080/v1 \\
        --writer_model qwen2.5-1.5b

Each article of tests/data/articles/<set> (those with a line in its text_references.jsonl, written by hand before the
writer was tuned) is read as `rqrag review` reads it (ingested, its fields quoted), then its four texts are written
for the reference's topic (review/article_texts.py). A key fact is held when one of its alternatives is in the text
(case, accents and spacing aside). Prints per article the share of facts held by the summary, the objectives and the
conclusions, the sentences shown and dropped and the seconds; then the means. Relevance has no reference: it is
printed to be read. Writes results.jsonl and the resolved config to --out when given.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
ARTICLES = ROOT / "tests" / "data" / "articles"
FACTS = {"summary": "summary_facts", "objectives": "objectives_facts", "conclusions": "conclusions_facts"}


@dataclass
class EvalTextsConfig:
    set: str = "tuning"
    out: str | None = None
    writer: str = "qwen2.5-1.5b"
    writer_base_url: str = ""
    writer_model: str = ""


def held(text: str, facts: list[list[str]]) -> float:
    from rqrag.text.text_quality import fold

    said = " ".join(fold(text).split())
    return sum(any(" ".join(fold(a).split()) in said for a in alternatives) for alternatives in facts) / len(facts)


def article_document(path: Path, topic: str, language: str):
    """The article as `rqrag review` holds it: ingested, its fields quoted, its chunks nearest the topic."""
    from rqrag.ingest import ingest_path
    from rqrag.review.article_review import review_article
    from rqrag.review.reviewer import DocumentGroup

    ingested = ingest_path(path)
    document = DocumentGroup(ingested.doc_id, ingested.name, ingested.name, article=ingested.article)
    review_article(topic, document, language, None, per_field=1)
    return document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="tuning", choices=["tuning", "heldout"])
    parser.add_argument("--out", default=None, help="folder for results.jsonl and the resolved config")
    parser.add_argument("--writer", default="qwen2.5-1.5b", help="as rqrag review --writer")
    parser.add_argument("--writer_base_url", default="")
    parser.add_argument("--writer_model", default="")
    config = EvalTextsConfig(**vars(parser.parse_args(argv)))
    from rqrag.answer.writer import model_and_check
    from rqrag.review.article_passages import article_passages
    from rqrag.review.article_texts import ArticleWriter
    from rqrag.writing_config import WritingConfig

    writing = WritingConfig(**{f.name: getattr(config, f.name) for f in fields(config) if f.name.startswith("writer")})
    writer = ArticleWriter(*model_and_check(writing))
    references = {r["id"]: r for r in map(json.loads, (ARTICLES / config.set / "references.jsonl").open())}
    rows = []
    for line in (ARTICLES / config.set / "text_references.jsonl").read_text().splitlines():
        gold = json.loads(line)
        path = ARTICLES / config.set / references[gold["id"]]["file"]
        document = article_document(path, gold["topic"], gold["language"])
        started = time.perf_counter()
        texts = writer.write(gold["topic"], document.article["title"], article_passages(document, gold["language"]),
                             gold["language"])  # fmt: skip
        seconds = time.perf_counter() - started
        record = texts.to_dict()
        said = {kind: " ".join(s["text"] for s in record["texts"][kind]["sentences"]) for kind in record["texts"]}
        scores = {kind: round(held(said[kind], gold[key]), 3) for kind, key in FACTS.items()}
        shown = sum(len(t["sentences"]) for t in record["texts"].values())
        dropped = sum(len(t["dropped"]) for t in record["texts"].values())
        rows.append({"id": gold["id"], **scores, "shown": shown, "dropped": dropped, "seconds": round(seconds, 1),
                     "texts": said, "record": record})  # fmt: skip
        print(f"{gold['id']:12} summary {scores['summary']:.2f} objectives {scores['objectives']:.2f} conclusions "
              f"{scores['conclusions']:.2f}  shown {shown} dropped {dropped}  {seconds:.0f} s", flush=True)  # fmt: skip
        print(f"    relevance: {said['relevance'] or '(none)'}", flush=True)
    n = len(rows)
    for kind in FACTS:
        print(f"{kind:12} {sum(r[kind] for r in rows) / n:.2f} of key facts (mean of {n})")
    print(f"seconds an article: {sum(r['seconds'] for r in rows) / n:.1f} (max {max(r['seconds'] for r in rows):.1f})")
    if config.out:
        from rqrag.config_loader import save_resolved_config

        out = Path(config.out)
        out.mkdir(parents=True, exist_ok=True)
        save_resolved_config(out, "scripts/eval_article_texts.py", config)
        (out / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
