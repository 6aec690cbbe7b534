"""Rebuild the front-matter fixtures (tuning/ and heldout/) and their gold.jsonl, then check them.

    .venv/bin/python tests/data/front_matter/build.py            # both sets
    .venv/bin/python tests/data/front_matter/build.py --only t03  # one document
    .venv/bin/python tests/data/front_matter/build.py --check     # only re-check what is on disk
    .venv/bin/python tests/data/front_matter/build.py --set heldout2   # one set

Needs headless Chromium (`chromium`, or set CHROMIUM=/path) for the PDFs, python-docx, pypdf, pypdfium2 and PyYAML.
Everything is fictional and written for this project: see SOURCES.md.  heldout/ is HELD OUT: do not read it
while tuning a front-matter reader.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import unicodedata
from pathlib import Path


HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common  # noqa: E402
import render_docx  # noqa: E402


# Each set's documents come from its modules docs_<set>_*.py (each defines DOCS), in file-name order.
SETS = {
    name: [doc for mod in sorted(HERE.glob(f"docs_{name}_*.py")) for doc in importlib.import_module(mod.stem).DOCS]
    for name in ("tuning", "heldout", "heldout2")
}
GOLD_KEYS = ("id", "file", "kind", "language", "format", "title", "authors", "year", "metadata_right", "traps")


def norm(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    # PDFium reports a hyphen that ends a line as U+FFFE ("Citizen-\nScience" -> "Citizen\ufffeScience").
    text = text.replace("\u00ad", "").replace("\ufffe", "-").replace("’", "'")
    return re.sub(r"\s+", " ", text).strip()


def extract(path: Path) -> tuple[str, dict]:
    """The document's text and its metadata title/author (as a reader would see them)."""
    if path.suffix == ".pdf":
        import pypdfium2 as pdfium
        from pypdf import PdfReader

        pdf = pdfium.PdfDocument(str(path))
        text = "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
        info = PdfReader(path).metadata or {}
        return text, {"title": info.get("/Title"), "author": info.get("/Author"), "pages": len(pdf)}
    if path.suffix == ".docx":
        import docx

        d = docx.Document(str(path))
        parts = [p.text for p in d.paragraphs]
        parts += [c.text for t in d.tables for r in t.rows for c in r.cells]
        parts += [p.text for s in d.sections for p in s.header.paragraphs]
        cp = d.core_properties
        return "\n".join(parts), {"title": cp.title or None, "author": cp.author or None}
    text = path.read_text(encoding="utf-8")
    meta = {"title": None, "author": None}
    if text.startswith("---\n"):
        import yaml

        front = yaml.safe_load(text.split("\n---\n", 1)[0][4:])
        authors = front.get("author") or []
        meta = {
            "title": front.get("title"),
            "author": ", ".join(a["name"] if isinstance(a, dict) else a for a in authors),
        }
    return re.sub(r"\*\*|\*|\^|#|\|", " ", text), meta


def check(doc: dict, path: Path) -> list[str]:
    problems = []
    text, meta = extract(path)
    body = norm(text)
    if norm(doc["title"]) not in body:
        problems.append("title not in text")
    for a in doc["authors"]:
        if norm(a) not in body:
            problems.append(f"author {a!r} not in text")
    if str(doc["year"]) not in body:
        problems.append("year not in text")
    right = doc["metadata_right"]
    if right is None and (meta["title"] or meta["author"]):
        problems.append(f"metadata should be empty: {meta}")
    if right is True and (
        norm(meta["title"] or "") != norm(doc["title"]) or norm(doc["authors"][0]) not in norm(meta["author"] or "")
    ):
        problems.append(f"metadata should be right: {meta}")
    if right is False and meta["title"] and norm(meta["title"]) == norm(doc["title"]):
        problems.append(f"metadata should be wrong: {meta}")
    if path.suffix == ".pdf":
        if not 2 <= meta["pages"] <= 8:
            problems.append(f"{meta['pages']} pages")
        if path.stat().st_size >= 150_000:
            problems.append(f"{path.stat().st_size} bytes")
        if len(body) < 2000:
            problems.append("little text in the text layer")
    for sec in doc.get("must_contain", ()):
        if norm(sec) not in body:
            problems.append(f"missing {sec!r}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="build only this document id")
    ap.add_argument("--check", action="store_true", help="do not build, only check the files on disk")
    ap.add_argument("--set", choices=sorted(SETS), help="build only this set (default: all)")
    args = ap.parse_args()
    chromium = os.environ.get("CHROMIUM", "chromium")
    failed = 0
    for name, docs in SETS.items():
        if args.set not in (None, name):
            continue
        folder = HERE / name
        folder.mkdir(exist_ok=True)
        ids = [d["id"] for d in docs]
        assert len(set(ids)) == len(ids), ids
        for doc in docs:
            path = folder / doc["file"]
            if not args.check and (args.only in (None, doc["id"])):
                if doc["format"] == "pdf":
                    common.build_pdf(doc, path, chromium)
                elif doc["format"] == "docx":
                    render_docx.build_docx(doc, path)
                else:
                    path.write_text(doc["text"], encoding="utf-8")
            if args.only not in (None, doc["id"]):
                continue
            problems = check(doc, path)
            failed += bool(problems)
            print(f"{name}/{doc['file']}: {'ok' if not problems else '; '.join(problems)}")
        if not args.check and args.only is None:
            with open(folder / "gold.jsonl", "w", encoding="utf-8") as f:
                for doc in docs:
                    f.write(json.dumps({k: doc[k] for k in GOLD_KEYS}, ensure_ascii=False) + "\n")
    tuning_traps = {t for d in SETS["tuning"] for t in d["traps"]}
    for doc in SETS["heldout"] + SETS["heldout2"]:
        missing = set(doc["traps"]) - tuning_traps
        if missing:
            failed += 1
            print(f"heldout/{doc['file']}: trap kinds not in the tuning set: {sorted(missing)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
