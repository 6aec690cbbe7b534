"""Check the held-out question sets in this directory against their PDFs.

Run:  .venv/bin/python tests/data/heldout_pt/check_questions.py

Every questions_*.jsonl here is loaded; each line must be one JSON object with exactly the fields
id, document, category, question, answer, key_facts, evidence, and:

- category is factual, procedural or needle; ids are unique over all files;
- evidence is a non-empty list of {"page": N, "quote": "..."}; N is the 1-based physical page of `document`;
- each quote has 6-25 words and appears verbatim (after `normalise_characters`, whitespace collapsed) on that
  page in the text of BOTH extractors (pypdfium2 get_text_range, pypdf extract_text), and on no other page of
  either; it does not span a line-end hyphenation; it is prose (at least half of its tokens, and 4 or more, are
  plain words), not a code line;
- 1-3 key facts, each 2-40 characters, each found (case-insensitive, whitespace-normalised, accent-folded) in
  the reference answer and in one of the question's evidence quotes;
- no two questions take their evidence from the same sentence of a page.

Failures are printed; the exit status is 1 when there is any.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path


HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # repo root, for rqrag

import pypdfium2 as pdfium  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from rqrag.ingest.clean import normalise_characters  # noqa: E402
from rqrag.records import jsonl_objects  # noqa: E402


FIELDS = {"id", "document", "category", "question", "answer", "key_facts", "evidence"}
CATEGORIES = {"factual", "procedural", "needle"}
_SENTENCE_END = re.compile(r"[.!?](?=\s)")


def collapse(text: str) -> str:
    return " ".join(text.split())


def fold(text: str) -> str:
    """Case-insensitive, whitespace-normalised, accent-folded form for key-fact matching."""
    decomposed = unicodedata.normalize("NFKD", normalise_characters(text))
    return collapse("".join(c for c in decomposed if not unicodedata.combining(c)).lower())


_pages: dict[str, dict[str, list[str]]] = {}


def page_texts(document: Path) -> dict[str, list[str]]:
    """Normalised (not collapsed) text of every page, per extractor."""
    key = str(document)
    if key not in _pages:
        pdf = pdfium.PdfDocument(str(document))
        try:
            pdfium_pages = [normalise_characters(pdf[i].get_textpage().get_text_range()) for i in range(len(pdf))]
        finally:
            pdf.close()
        reader = PdfReader(str(document))
        pypdf_pages = [normalise_characters(page.extract_text() or "") for page in reader.pages]
        _pages[key] = {"pypdfium2": pdfium_pages, "pypdf": pypdf_pages}
    return _pages[key]


_WORD_TOKEN = re.compile(r"^[\"'(«]*[^\W\d_]+(?:-[^\W\d_]+)*[\"')».,;:!?]*$")


def is_prose(quote: str) -> bool:
    """A sentence, not a code line: at least half of its tokens (and 4 or more) are plain words."""
    tokens = quote.split()
    words = sum(1 for token in tokens if _WORD_TOKEN.match(token))
    return words >= 4 and 2 * words >= len(tokens)


def quote_pattern(quote: str) -> re.Pattern:
    return re.compile(r"\s+".join(re.escape(token) for token in quote.split()))


def sentence_spans(text: str, start: int, end: int) -> set[int]:
    """Indices (by start offset) of the sentences of collapsed `text` that [start, end) touches."""
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]
    return {b for i, b in enumerate(bounds) if b < end and (i + 1 == len(bounds) or bounds[i + 1] > start)}


def check_quote(where: str, document: Path, page: int, quote: str, failures: list[str]) -> tuple[int, int] | None:
    """Check one quote; return its (start, end) in the collapsed pypdfium2 page text when it is found there."""
    texts = page_texts(document)
    n_pages = len(texts["pypdfium2"])
    if len(texts["pypdf"]) != n_pages:
        failures.append(f"{where}: extractors disagree on the page count of {document.name}")
    if not isinstance(page, int) or isinstance(page, bool) or not 1 <= page <= n_pages:
        failures.append(f"{where}: page {page!r} is not a page of {document.name} (1-{n_pages})")
        return None
    words = len(quote.split())
    if not 6 <= words <= 25:
        failures.append(f"{where}: quote has {words} words (6-25 wanted): {quote!r}")
    if not is_prose(quote):
        failures.append(f"{where}: quote looks like code, not prose: {quote!r}")
    needle = collapse(normalise_characters(quote))
    if needle != quote.strip() and collapse(quote) != needle:
        failures.append(f"{where}: quote is not in normalised form: {quote!r}")
    pattern = quote_pattern(needle)
    span = None
    for extractor, pages in texts.items():
        text = pages[page - 1]
        match = pattern.search(text)
        if match is None:
            failures.append(f"{where}: quote not on page {page} ({extractor}): {quote!r}")
            continue
        raw = match.group(0)
        if "\ufffe" in raw or "\u00ad" in raw or re.search(r"-\s*\n", raw):
            failures.append(f"{where}: quote spans a line-end hyphenation on page {page} ({extractor}): {quote!r}")
        others = [i + 1 for i, other in enumerate(pages) if i != page - 1 and needle in collapse(other)]
        if others:
            failures.append(f"{where}: quote also on page(s) {others} ({extractor}): {quote!r}")
        if extractor == "pypdfium2":
            collapsed = collapse(text)
            at = collapsed.find(needle)
            if at >= 0:
                span = (at, at + len(needle))
    return span


def main() -> int:
    failures: list[str] = []
    files = sorted(HERE.glob("questions_*.jsonl"))
    if not files:
        print(f"no questions_*.jsonl in {HERE}")
        return 1
    ids: Counter[str] = Counter()
    sentences: dict[tuple[str, int, int], str] = {}
    for path in files:
        categories: Counter[str] = Counter()
        n_facts = 0
        pages_used: set[int] = set()
        lines = path.read_text(encoding="utf-8").splitlines()
        bad_line = lambda n, reason, name=path.name: failures.append(f"{name}:{n}: {reason}")  # noqa: E731
        for lineno, item in jsonl_objects(lines, bad_line):
            where = f"{path.name}:{lineno}"
            if set(item) != FIELDS:
                failures.append(f"{where}: fields {sorted(item)}, wanted exactly {sorted(FIELDS)}")
                continue
            qid = item["id"]
            where = f"{path.name}:{lineno} ({qid})"
            ids[qid] += 1
            if item["category"] not in CATEGORIES:
                failures.append(f"{where}: category {item['category']!r} not one of {sorted(CATEGORIES)}")
            categories[item["category"]] += 1
            for field in ("id", "document", "question", "answer"):
                if not isinstance(item[field], str) or not item[field].strip():
                    failures.append(f"{where}: {field} must be a non-empty string")
            document = HERE / str(item["document"])
            if not document.is_file():
                failures.append(f"{where}: document {item['document']!r} not found in {HERE}")
                continue
            evidence = item["evidence"]
            if not isinstance(evidence, list) or not evidence:
                failures.append(f"{where}: evidence must be a non-empty list")
                evidence = []
            quotes = []
            for ev in evidence:
                if not isinstance(ev, dict) or set(ev) != {"page", "quote"} or not isinstance(ev["quote"], str):
                    failures.append(f"{where}: evidence item {ev!r} must be {{'page': N, 'quote': '...'}}")
                    continue
                quotes.append(ev["quote"])
                span = check_quote(where, document, ev["page"], ev["quote"], failures)
                if span is None:
                    continue
                pages_used.add(ev["page"])
                text = collapse(page_texts(document)["pypdfium2"][ev["page"] - 1])
                for sentence in sentence_spans(text, *span):
                    key = (str(document), ev["page"], sentence)
                    if key in sentences and sentences[key] != qid:
                        failures.append(
                            f"{where}: evidence shares a sentence of page {ev['page']} with {sentences[key]}"
                        )
                    sentences.setdefault(key, qid)
            facts = item["key_facts"]
            if not isinstance(facts, list) or not 1 <= len(facts) <= 3:
                failures.append(f"{where}: key_facts must be a list of 1-3 strings")
                facts = facts if isinstance(facts, list) else []
            answer = fold(item["answer"]) if isinstance(item["answer"], str) else ""
            folded_quotes = [fold(q) for q in quotes]
            for fact in facts:
                if not isinstance(fact, str) or not 2 <= len(fact.strip()) <= 40:
                    failures.append(f"{where}: key fact {fact!r} must be a string of 2-40 characters")
                    continue
                n_facts += 1
                if fold(fact) not in answer:
                    failures.append(f"{where}: key fact {fact!r} not in the answer")
                if not any(fold(fact) in q for q in folded_quotes):
                    failures.append(f"{where}: key fact {fact!r} not in any evidence quote")
        total = sum(categories.values())
        counts = ", ".join(f"{c} {categories[c]}" for c in sorted(CATEGORIES))
        print(f"{path.name}: {total} questions ({counts}), {n_facts} key facts, {len(pages_used)} distinct pages")
    for qid, n in ids.items():
        if n > 1:
            failures.append(f"id {qid!r} used {n} times")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(failures)} failure(s)" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
