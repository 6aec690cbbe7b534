"""How well the review reads articles it was not tuned on: titles, sections and fields against reference sentences.

    python scripts/eval_review.py --set tuning               # the articles the scorer's weights were chosen on
    python scripts/eval_review.py --set heldout              # the held-out articles: measured, never tuned on
    python scripts/eval_review.py --set heldout --show       # ... and print every field as a person reads it
    python scripts/eval_review.py --set tuning --weights     # the scorer's variants: each part alone, a grid

For each article of tests/data/articles/<set>/references.jsonl: the file is ingested as `rqrag docs add` ingests
it (`rqrag.ingest.ingest_path`), read as an article (`rqrag.ingest.article`), and reviewed without a model
(`article_review.review_article`). Scored: the title (the reference's, folded, equal or one inside the other),
every author and the year; the section roles found; for each field, whether its quote is one of the reference
sentences a person accepts (folded, one inside the other); and the check's defects (invented words, repeated
bullets, cut lines, ...) on what is shown. Writes per-article rows and summary.json to --out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rqrag.config_loader import save_resolved_config


ROOT = Path(__file__).resolve().parents[1]


@dataclass
class EvalReviewArgs:
    set: str
    out: str
    show: bool


ARTICLES = ROOT / "tests" / "data" / "articles"


def folded(text: str) -> str:
    from rqrag.text.text_quality import fold

    return " ".join(fold(text).replace("-", " ").split()).strip(" .")


def same_text(shown: str, reference: str) -> bool:
    a, b = folded(shown), folded(reference)
    return bool(a) and bool(b) and (a in b or b in a)


def score_article(reference: dict, folder: Path, show: bool = False) -> dict:
    from rqrag.ingest import ingest_path
    from rqrag.review.article_fields import FIELDS
    from rqrag.review.article_review import review_article
    from rqrag.review.reviewer import DocumentGroup

    started = time.perf_counter()
    ingested = ingest_path(folder / reference["file"])
    row = {"id": reference["id"], "layout": reference["layout"], "language": reference["language"]}
    if ingested.article is None:
        return {**row, "article": False, "title": False, "authors": 0.0, "year": False, "fields": {}, "defects": []}
    document = DocumentGroup(ingested.doc_id, ingested.name, ingested.name, article=ingested.article)
    review = review_article("", document, reference["language"])
    authors = [folded(a) for a in review["authors"]]
    row.update(
        article=True,
        title=same_text(review["title"], reference["title"]),
        authors=sum(folded(a) in authors for a in reference["authors"]) / max(1, len(reference["authors"])),
        year=review["year"] == reference["year"],
        sections_found=sorted({s["role"] for s in review["sections"]}),
        # the reference files (tests/data/articles/*/references.jsonl) name a section's role `kind`
        sections_expected=sorted({s["kind"] for s in reference["sections"]} - {"references", "keywords"}),
        fields={
            field: any(
                same_text(q["text"], r) for q in review["fields"].get(field, []) for r in reference.get(field, [])
            )
            for field in FIELDS
        },
        defects=review["defects"],
        seconds=round(time.perf_counter() - started, 2),
        shown={field: [q["text"] for q in review["fields"].get(field, [])] for field in FIELDS},
    )
    if show:
        print(
            f"\n== {reference['id']} ({reference['layout']}): {review['title']} — {review['authors']} ({review['year']})"
        )
        print("   sections:", [(s["role"], s["heading"]) for s in review["sections"]])
        for field in FIELDS:
            mark = "ok " if row["fields"][field] else "MISS"
            for q in review["fields"].get(field, []) or [{"text": "—", "heading": "", "page": ""}]:
                print(f"   {mark} {field:10} [{q.get('heading')} p{q.get('page')}] {q['text']}")
    return row


VARIANTS = {
    "first sentence of the section (position only)": {
        "cue": 0,
        "position": 1,
        "centrality": 0,
        "number": 0,
        "penalty": 0,
    },
    "cue phrases only": {"cue": 1, "position": 0, "centrality": 0, "number": 0, "penalty": 0},
    "centrality only (TF-IDF, LexRank-like)": {"cue": 0, "position": 0, "centrality": 1, "number": 0, "penalty": 0},
}


def compare_weights(references: list[dict], folder: Path) -> None:
    """Field accuracy of the scorer's variants over the set: each part alone, the shipped weights, and a grid."""
    import itertools

    from rqrag.ingest import ingest_path
    from rqrag.ingest.article import Article
    from rqrag.review.article_fields import FIELDS, WEIGHTS, extract_fields

    articles = [(r, Article.from_dict(ingest_path(folder / r["file"]).article)) for r in references]

    def accuracy(weights):
        hits = {field: 0 for field in FIELDS}
        for reference, article in articles:
            fields = extract_fields(article, weights=weights)
            for field in FIELDS:
                hits[field] += any(same_text(s.text, r) for s in fields[field] for r in reference.get(field, []))
        return {field: hits[field] / len(articles) for field in FIELDS}

    def line(name, scores):
        mean = sum(scores.values()) / len(scores)
        oc = (scores["objective"] + scores["conclusion"]) / 2
        print(f"| {name} | " + " | ".join(f"{scores[f]:.2f}" for f in FIELDS) + f" | {oc:.2f} | {mean:.2f} |")

    print("| scorer | " + " | ".join(FIELDS) + " | objective+conclusion | all |")
    print("|---|" + "---:|" * (len(FIELDS) + 2))
    for name, weights in VARIANTS.items():
        line(name, accuracy(weights))
    line("shipped weights", accuracy(WEIGHTS))
    grid = []
    for cue, position, centrality in itertools.product((0.5, 1, 2, 3), (0, 0.3, 0.6, 1.2), (0, 0.6, 1.2, 2.4)):
        weights = {**WEIGHTS, "cue": cue, "position": position, "centrality": centrality}
        scores = accuracy(weights)
        grid.append((sum(scores.values()), (cue, position, centrality), scores))
    best = max(grid, key=lambda g: g[0])
    line(f"grid best (cue, position, centrality) = {best[1]}", best[2])
    for field in FIELDS:  # each field's own best (ties: the first of the grid's order, the smallest weights)
        top = max(grid, key=lambda g: g[2][field])
        print(f"    {field}: best {top[2][field]:.2f} at (cue, position, centrality) = {top[1]}")


def summarize(rows: list[dict]) -> dict:
    from rqrag.review.article_fields import FIELDS

    n = len(rows)
    out = {
        "articles": n,
        "read_as_articles": sum(r["article"] for r in rows),
        "title": sum(r["title"] for r in rows) / n,
        "authors": sum(r["authors"] for r in rows) / n,
        "year": sum(r["year"] for r in rows) / n,
        "sections_recall": sum(
            len(set(r["sections_expected"]) & set(r["sections_found"])) / max(1, len(r["sections_expected"]))
            for r in rows
            if r["article"]
        )
        / max(1, sum(r["article"] for r in rows)),
    }
    for field in FIELDS:
        out[field] = sum(r["fields"].get(field, False) for r in rows) / n
    out["objective_and_conclusion"] = (out["objective"] + out["conclusion"]) / 2
    defects: dict[str, int] = {}
    for r in rows:
        for d in r["defects"]:
            defects[d["problem"]] = defects.get(d["problem"], 0) + 1
    out["defects"] = defects
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[2], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--set", default="tuning", help="a folder of tests/data/articles (tuning, heldout)")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default runs/review_eval/<set>)")
    parser.add_argument("--show", action="store_true", help="print every article's fields as a person reads them")
    parser.add_argument("--weights", action="store_true", help="compare the scorer's variants instead")
    args = parser.parse_args(argv)
    folder = ARTICLES / args.set
    references = [json.loads(line) for line in (folder / "references.jsonl").read_text().splitlines() if line.strip()]
    if args.weights:
        compare_weights(references, folder)
        return 0
    out = args.out or ROOT / "runs" / "review_eval" / args.set
    out.mkdir(parents=True, exist_ok=True)
    save_resolved_config(out, "scripts/eval_review.py", EvalReviewArgs(args.set, str(out), args.show))
    rows = [score_article(reference, folder, args.show) for reference in references]
    summary = summarize(rows)
    with open(out / "articles.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(
        "\n| article | layout | title | authors | year | objective | method | data | result | conclusion | defects |"
    )
    print("|---|---|:-:|---:|:-:|:-:|:-:|:-:|:-:|:-:|---:|")
    yes = lambda v: "✓" if v else "✗"  # noqa: E731
    for r in rows:
        f = r["fields"]
        print(
            f"| {r['id']} | {r['layout']} | {yes(r['title'])} | {r['authors']:.2f} | {yes(r['year'])} | "
            + " | ".join(yes(f.get(k)) for k in ("objective", "method", "data", "result", "conclusion"))
            + f" | {len(r['defects'])} |"
        )
    print(json.dumps(summary, indent=1), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
