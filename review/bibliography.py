"""The articles of a review as a reference manager and a spreadsheet read them: articles.bib and articles.csv.

    write_bibliography(record, Path("runs/review"))   # record: what review.json holds

articles.bib has one `@article` per document read as an article (title, authors as "Last, First and …", year,
the file in `note`, the written summary in `annote`: BibTeX's field for a reader's annotation, not `abstract`, which
reference managers show as the authors' own); articles.csv has the written texts (written_summary, _objectives,
_conclusions, _relevance: empty without --writer, each sentence with its pages) and the comparison table's columns
(title, authors, year, objective, method, data, result, conclusion, file), one row per article, for a spreadsheet
or pandas.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from pathlib import Path

from rqrag.review.article_fields import FIELDS
from rqrag.review.article_texts import KINDS


def _bibtex_name(name: str) -> str:
    """ "Mariana Teixeira Lobo" -> "Lobo, Mariana Teixeira" (BibTeX's unambiguous form)."""
    parts = name.split()
    return f"{parts[-1]}, {' '.join(parts[:-1])}" if len(parts) > 1 else name


def _escape(text: str) -> str:
    return re.sub(r"([{}&%$#_])", r"\\\1", " ".join(str(text).split()))


def citation_key(article: dict, taken: set[str]) -> str:
    """lastname + year + first title word, ASCII ("lobo2024avaliacao"); a suffix when it is taken."""
    last = article["authors"][0].split()[-1] if article["authors"] else "anon"
    word = next((w for w in re.findall(r"\w+", article["title"]) if len(w) > 3), "article")
    raw = f"{last}{article['year'] or ''}{word}".lower()
    key = unicodedata.normalize("NFKD", raw).encode("ascii", "ignore").decode()
    key = re.sub(r"[^a-z0-9]", "", key) or "article"
    candidate, n = key, 1
    while candidate in taken:
        n += 1
        candidate = f"{key}{chr(ord('a') + n - 2)}"
    taken.add(candidate)
    return candidate


def bibtex(record: dict) -> str:
    taken: set[str] = set()
    entries = []
    for document in record["documents"]:
        article = document.get("article")
        if not article:
            continue
        lines = [f"@article{{{citation_key(article, taken)},", f"  title = {{{_escape(article['title'])}}},"]
        if article["authors"]:
            lines.append(f"  author = {{{' and '.join(_escape(_bibtex_name(a)) for a in article['authors'])}}},")
        if article["year"]:
            lines.append(f"  year = {{{article['year']}}},")
        if document.get("file"):
            lines.append(f"  note = {{{_escape(document['file'])}}},")
        summary = written(article, "summary")
        if summary:  # the reviewer's annotation, not the authors' abstract: BibTeX's own field for it
            lines.append(f"  annote = {{{_escape(summary)}}},")
        lines.append("}")
        entries.append("\n".join(lines))
    return "\n\n".join(entries) + ("\n" if entries else "")


# The written texts' columns (empty without --writer), before the quoted fields they rest on
WRITTEN = tuple(f"written_{kind}" for kind in KINDS)


def written(article: dict, kind: str) -> str:
    """One written text of an article as plain text (its sentences, pages in brackets), "" when none."""
    text = ((article.get("texts") or {}).get("texts") or {}).get(kind) or {}
    return " ".join(
        f"{s['text']} [p. {', '.join(map(str, s['pages']))}]" if s.get("pages") else s["text"]
        for s in text.get("sentences") or []
    )


def write_bibliography(record: dict, out: Path) -> None:
    (out / "articles.bib").write_text(bibtex(record))
    with open(out / "articles.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "authors", "year", *WRITTEN, *FIELDS, "file"])
        for document in record["documents"]:
            article = document.get("article")
            if not article:
                continue
            texts = [" ".join(q["text"] for q in article["fields"].get(field) or []) for field in FIELDS]
            writer.writerow([article["title"], "; ".join(article["authors"]), article["year"] or "",
                             *(written(article, kind) for kind in KINDS), *texts,
                             document.get("file") or ""])  # fmt: skip
