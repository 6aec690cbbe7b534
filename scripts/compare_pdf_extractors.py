"""Compare PDF text extractors (pypdfium2, pypdf, PyMuPDF, pdfminer.six, poppler's pdftotext) on speed and text
quality, on Portuguese PDFs, to pick the default.

    python scripts/compare_pdf_extractors.py          # 4 PDFs (below), every installed backend
    python scripts/compare_pdf_extractors.py --pdf data/documents/pt/debian-edu-bookworm-manual.pdf \
        --backends pypdf,pymupdf --repeat 3 --out runs/pdf_extractors.json

The default PDFs: the one-page LaTeX/OT1 accent fixture (tests/data/latex_pt/acentos.pdf), the held-out Xy-pic
tutorial (LaTeX, OT1) and lshort-pt (LaTeX), and the Debian Edu manual (DocBook/dblatex). Each backend extracts
every page (timed, best of `--repeat`), then the pages go through our cleaning (`rqrag.ingest.clean.clean_pages`,
what `rqrag.ingest.pipeline` indexes; timed too). pypdfium2, pypdf and pymupdf are the product's readers
(`extract_pdf_pages`: pypdfium2 with the monospace-space and positional accent fixes of `_pdfium_page_text`); the
others are adapters here, for measurement only: "pypdfium2-plain" (PDFium's `get_text_range` with the product's
line-end fix-ups, no `_pdfium_page_text`), "pdfminer" (pdfminer.six, default layout analysis) and "pdftotext" /
"pdftotext-layout" (poppler, whole file, pages split at form feeds). Quality:

* golden quotes found: the share of the evidence quotes (`{page, quote}`) about the PDF found verbatim on their
  page, after character normalisation and whitespace collapsing — once in the raw text (with hyphenated line
  breaks joined) and once in the cleaned text. Quotes come from `--golden`: the Debian golden set, and the held-out
  questions_*.jsonl lines whose `document` is the PDF's name; "-" where the PDF has none;
* broken words (`rqrag.ingest.accents.broken_words`): accents standing apart from a letter ("m´usica",
  "informa ̧c ̃oes"), in the raw text and in the cleaned text (cleaning joins those in reading order);
* uncomposed: letters still carrying a combining mark after NFC in the cleaned text — whole-looking words that
  never match their spelling ("paı́s": a dotless i plus U+0301, as pdftotext writes LaTeX's \\'{\\i});
* run-together words: tokens of more than 25 letters in the cleaned text (an extractor that loses spaces
  produces "oservidorprincipal");
* ligatures: characters U+FB00-U+FB06 in the raw text (our cleaning NFKC-normalises them, but they show
  how much an extractor leaves to the caller).

Backends that are not installed (a module, or the pdftotext binary) are reported as such and skipped.

Measured with `python scripts/compare_pdf_extractors.py --repeat 5` (2 shared cores, best of 5; pypdfium2 5.15.2 /
PDFium 159.0.8149, pypdf 7.1.1, pdfminer.six 20260107, poppler-utils 22.12.0; PyMuPDF not installed: skipped):

    pdf (pages, quotes)  backend          extract s clean s broken raw/clean uncomposed  found raw/clean run-tog lig
    acentos (1, -)       pypdfium2             0.00    0.00         66 /   0          0           - / -       0     0
                         pypdf                 0.01    0.00         67 /   0          0           - / -       0     0
                         pypdfium2-plain       0.00    0.00         67 /   1 a        0           - / -       0     0
                         pdfminer              0.03    0.00         67 /   0          0           - / -       0     0
                         pdftotext-layout      0.01    0.00          0 /   0          5 b         - / -       0     0
                         pdftotext             0.01    0.00          0 /   0          5 b         - / -       0     0
    xypic (26, 20)       pypdfium2             0.06    0.02        507 /   4 c        0     100 / 100 %       0     0
                         pypdf                 0.37    0.02        927 / 406 c        0     100 / 100 %       0    90
                         pypdfium2-plain       0.02    0.02        508 /   5 c        0     100 / 100 %       0     0
                         pdfminer              0.88    0.03        503 /   0          0      95 /  95 % d     0    87
                         pdftotext-layout      0.08    0.03          5 /   3 c       46 b    85 /  85 % b     0     0
                         pdftotext             0.06    0.02          5 /   3 c       46 b    85 /  85 % b     0     0
    lshort (181, 29)     pypdfium2             0.30    0.12         15 /   7 e        0     100 / 100 %       4 f   0
                         pypdf                 2.74    0.14         22 /   7 e        0     100 / 100 %      25   746
                         pypdfium2-plain       0.16    0.12         23 /   7 e        0     100 / 100 %       4 f   0
                         pdfminer              4.74    0.13         23 /   8 e        0     100 / 100 %       4 f 746
                         pdftotext-layout      0.75    0.15          7 /   6 e        2     100 / 100 %       4 f   0
                         pdftotext             0.74    0.17          7 /   5 e        2     100 / 100 %       4 f   0
    debian-edu (104, 50) pypdfium2             0.19    0.07          0 /   0          0     100 / 100 %       1 f   0
                         pypdf                 1.62    0.07          0 /   0          0     100 / 100 %      27     8
                         pypdfium2-plain       0.09    0.07          0 /   0          0      94 /  94 % g     1 f   0
                         pdfminer              2.92    0.07          0 /   0          0      92 /  92 % g     1 f   8
                         pdftotext-layout      0.11    0.09          0 /   0          0      92 /  92 % g     1 f   8
                         pdftotext             0.10    0.07          0 /   0          0      92 /  92 % g     1 f   8

    a: the "É" whose accent PDFium emits at the end of the previous line; `_pdfium_page_text` places it by position.
    b: poppler composes OT1 accents itself but writes "í" as a dotless i plus U+0301, which NFC cannot join
       ("visı́veis", "polı́gono"): 3 held-out quotes missed, and "rítmicos", "possível" never match a query.
    c: all in Xy-pic's drawings (arrow and curve glyphs mapped to accent characters), none in prose.
    d: an inline diagram set within the quoted sentence lands in the middle of it ("(cid:47)B").
    e: lshort's own examples of accents and a "~" in a URL ("http://www.rich.edu/ ̃bush"), the same for every
       backend. f: real words ("allowUIDProposalModification", "supercalifragilisticexpialidocious").
    g: spaces invented inside monospace code ("debian -edu -amd64"), which `_pdfium_page_text` drops.
    Times vary by up to 2x between runs on these shared cores; the ranking does not.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

from rqrag.ingest.accents import SPACING_ACCENTS, broken_words
from rqrag.ingest.clean import clean_pages, match_form
from rqrag.ingest.extract import PDF_BACKENDS, Page, extract_pdf_pages
from rqrag.paths import PROJECT_ROOT
from rqrag.records import read_records


DATA = PROJECT_ROOT / "tests" / "data"
DEFAULT_PDF = PROJECT_ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
DEFAULT_PDFS = [
    DATA / "latex_pt" / "acentos.pdf",
    DATA / "heldout_pt" / "xypic_tutorial.pdf",
    DATA / "heldout_pt" / "pt_lshort.pdf",
    DEFAULT_PDF,
]
DEFAULT_GOLDEN = DATA / "golden_pt" / "debian_edu_golden.jsonl"
# The golden set's lines name no document: "DOCUMENT=FILE" says which PDF they are about.
DEFAULT_EVIDENCE = [
    f"{DEFAULT_PDF.name}={DEFAULT_GOLDEN}",
    *map(str, sorted((DATA / "heldout_pt").glob("questions_*.jsonl"))),
]
EXTRA_BACKENDS = ("pypdfium2-plain", "pdfminer", "pdftotext-layout", "pdftotext")
LIGATURES = re.compile("[\ufb00-\ufb06]")
RUN_TOGETHER = re.compile(r"[^\W\d_]{26,}")
# A letter still carrying a combining mark after NFC: no precomposed form, e.g. a dotless i with an acute ("paı́s").
UNCOMPOSED = re.compile(r"[^\W\d_][\u0300-\u036f]")
ACCENT_CONTEXT = re.compile(rf"\S*(?:[{''.join(SPACING_ACCENTS)}]|(?:\s|^)[\u0300-\u036f])\S*")  # a broken word


# ---------------------------------------------------------------- measurement-only adapters (not in the product)


def _pdfium_plain(data: bytes, path: Path) -> list[Page]:
    """PDFium's own page text (`get_text_range`) with only the product's line-end fix-ups: no dropped invented
    spaces, no positional accent placement. Shows what `_pdfium_page_text` adds."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        pages = []
        for index in range(len(document)):
            text = document[index].get_textpage().get_text_range()
            pages.append(Page(index + 1, text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-\n")))
        return pages
    finally:
        document.close()


def _pdfminer(data: bytes, path: Path) -> list[Page]:
    """pdfminer.six with its default layout analysis: the text boxes of each page, in its reading order."""
    import io

    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return [
        Page(number, "".join(box.get_text() for box in layout if isinstance(box, LTTextContainer)))
        for number, layout in enumerate(extract_pages(io.BytesIO(data)), start=1)
    ]


def _pdftotext(*options: str):
    def run(data: bytes, path: Path) -> list[Page]:
        """poppler's pdftotext on the whole file; it ends every page with a form feed."""
        if shutil.which("pdftotext") is None:
            raise ImportError("pdftotext not on PATH (apt-get install poppler-utils)")
        command = ["pdftotext", *options, "-enc", "UTF-8", "-", "-"]
        out = subprocess.run(command, input=data, capture_output=True, check=True).stdout.decode("utf-8")
        texts = out.split("\f")
        return [Page(number, text) for number, text in enumerate(texts[:-1] if texts[-1] == "" else texts, start=1)]

    return run


ADAPTERS = {
    "pypdfium2-plain": _pdfium_plain,
    "pdfminer": _pdfminer,
    "pdftotext-layout": _pdftotext("-layout"),
    "pdftotext": _pdftotext(),
}


def extract(backend: str, data: bytes, path: Path) -> list[Page]:
    """The product's reader for PDF_BACKENDS (pypdfium2 with its accent placement), an adapter for the others."""
    if backend in ADAPTERS:
        return ADAPTERS[backend](data, path)
    return extract_pdf_pages(data, name=path.name, backend=backend)


# ------------------------------------------------------------------------------------------------ evidence


def load_evidence(golden: Path, document: str | None = None) -> list[tuple[int, str]]:
    """Every evidence quote of a golden/questions JSONL; with `document`, only the lines about that file (a line
    naming no document counts for any)."""
    evidence = []
    for item in read_records(golden, strict=True):
        if document is None or item.get("document", document) == document:
            evidence.extend((int(e["page"]), e["quote"]) for e in item["evidence"])
    return evidence


def evidence_for(pdf: Path, specs: list[str]) -> list[tuple[int, str]]:
    """The quotes about `pdf` in the --golden files: "DOCUMENT=FILE" gives FILE's document-less lines to
    DOCUMENT; a plain FILE's lines count when their `document` is the PDF's name (or when they name none)."""
    evidence = []
    for spec in specs:
        document, _, file = spec.rpartition("=")
        if document and document != pdf.name:
            continue
        evidence.extend(load_evidence(Path(file), pdf.name))
    return evidence


def share_found(evidence: list[tuple[int, str]], page_texts: dict[int, str]) -> tuple[float | None, list[str]]:
    """The share of quotes found on their page (texts already in match form), and the quotes missed."""
    missed = [f"p{page}: {quote}" for page, quote in evidence if match_form(quote) not in page_texts.get(page, "")]
    return (1 - len(missed) / len(evidence) if evidence else None), missed


# ------------------------------------------------------------------------------------------------- measure


def measure(backend: str, path: Path, data: bytes, evidence: list[tuple[int, str]], repeat: int) -> dict:
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        pages = extract(backend, data, path)
        seconds.append(time.perf_counter() - started)
    started = time.perf_counter()
    cleaned = clean_pages(pages)  # what ingestion indexes (rqrag.ingest.pipeline)
    clean_seconds = time.perf_counter() - started
    # Raw text with only the generic fix-ups the golden quotes assume: hyphenated line breaks joined.
    raw = {page.number: match_form(re.sub(r"(?<=[^\W\d_])-\n(?=[^\W\d_])", "", page.text)) for page in pages}
    raw_share, _ = share_found(evidence, raw)
    clean_share, missed = share_found(evidence, {page.number: match_form(page.text) for page in cleaned})
    raw_text = "\n".join(page.text for page in pages)
    cleaned_text = "\n".join(page.text for page in cleaned)
    return {
        "pdf": path.name,
        "backend": backend,
        "pages": len(pages),
        "extract_seconds": round(min(seconds), 3),
        "clean_seconds": round(clean_seconds, 3),
        "broken_words_raw": broken_words(raw_text),
        "broken_words_cleaned": broken_words(cleaned_text),
        "uncomposed_cleaned": len(UNCOMPOSED.findall(unicodedata.normalize("NFC", cleaned_text))),
        "broken_examples": sorted(set(ACCENT_CONTEXT.findall(cleaned_text)))[:5],
        "quotes": len(evidence),
        "quotes_found_raw": None if raw_share is None else round(raw_share, 4),
        "quotes_found_cleaned": None if clean_share is None else round(clean_share, 4),
        "run_together_words": len(RUN_TOGETHER.findall(cleaned_text)),
        "run_together_examples": sorted(set(RUN_TOGETHER.findall(cleaned_text)))[:5],
        "ligatures_raw": len(LIGATURES.findall(raw_text)),
        "characters_cleaned": len(cleaned_text),
        "quotes_missed": missed,
    }


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf", type=Path, nargs="+", default=DEFAULT_PDFS, help="the PDFs to extract")
    parser.add_argument(
        "--golden",
        nargs="+",
        default=DEFAULT_EVIDENCE,
        help="JSONL files with evidence [{page, quote}] (and `document`); DOCUMENT=FILE for a file naming none",
    )
    backends = PDF_BACKENDS + EXTRA_BACKENDS
    parser.add_argument("--backends", default=",".join(backends), help=f"comma-separated subset of {backends}")
    parser.add_argument(
        "--repeat", type=int, default=1, help="extract this many times per backend; the best time counts"
    )
    parser.add_argument("--missed", type=int, default=3, help="print at most this many missed quotes per row")
    parser.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    args = parser.parse_args(argv)

    results, skipped = [], {}
    for path in args.pdf:
        data = path.read_bytes()
        evidence = evidence_for(path, args.golden)
        print(f"{path.name}: {len(data) / 1e6:.1f} MB, {len(evidence)} golden quotes", file=sys.stderr)
        for backend in (name.strip() for name in args.backends.split(",")):
            if backend in skipped:
                continue
            try:
                results.append(measure(backend, path, data, evidence, args.repeat))
            except ImportError as error:
                skipped[backend] = str(error)
                print(f"{backend}: not installed ({error})", file=sys.stderr)
    columns = ("pdf", "backend", "pages", "extract s", "clean s", "broken raw", "broken clean", "uncomposed")
    print(f"{columns[0]:<22} {columns[1]:<16} " + " ".join(f"{c:>{len(c)}}" for c in columns[2:]), end=" ")
    print(f"{'raw found':>9} {'clean found':>11} {'run-together':>12} {'ligatures':>9}")
    for r in results:
        print(
            f"{r['pdf'][:22]:<22} {r['backend']:<16} {r['pages']:>5} {r['extract_seconds']:>9.2f} "
            f"{r['clean_seconds']:>7.2f} {r['broken_words_raw']:>10} {r['broken_words_cleaned']:>12} "
            f"{r['uncomposed_cleaned']:>10} {_share(r['quotes_found_raw']):>9} "
            f"{_share(r['quotes_found_cleaned']):>11} {r['run_together_words']:>12} {r['ligatures_raw']:>9}"
        )
        for quote in r["quotes_missed"][: args.missed]:
            print(f"    missed {quote}")
        if len(r["quotes_missed"]) > args.missed:
            print(f"    ... and {len(r['quotes_missed']) - args.missed} more missed (all in --out)")
    for backend, error in skipped.items():
        print(f"{backend}: skipped, not installed ({error})")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
