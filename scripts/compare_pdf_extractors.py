"""Compare PDF text extractors (pypdf, PyMuPDF, pypdfium2) on speed and text quality, to pick the default.

    python scripts/compare_pdf_extractors.py                       # the Debian Edu manual, all installed backends
    python scripts/compare_pdf_extractors.py --backends pypdf,pymupdf --repeat 3 --out runs/pdf_extractors.json

Each backend extracts every page of the PDF (timed, best of `--repeat`), then the pages go through our
cleaning (`rqrag.ingest.clean.clean_pages`, timed too). Quality is measured three ways:

* golden quotes found: the share of the golden set's evidence quotes (`{page, quote}`) found verbatim on
  their page, after character normalisation and whitespace collapsing — once in the raw text (with
  hyphenated line breaks joined) and once in the cleaned text, which is what gets indexed;
* run-together words: tokens of more than 25 letters in the cleaned text (an extractor that loses spaces
  produces "oservidorprincipal");
* ligatures: characters U+FB00-U+FB06 in the raw text (our cleaning NFKC-normalises them, but they show
  how much an extractor leaves to the caller).

Backends that are not installed are reported as such and skipped.

Measured (2 shared cores, best of 3, pypdfium2 5.15.2 / pypdf 7.1.1 / PyMuPDF 2.0, 50 golden quotes):

    backend    extract s  clean s  quotes found (raw / cleaned)  run-together  ligatures
    pypdfium2       0.67     0.19         100 % / 100 %                1 *         0
    pypdf           5.02     0.19         100 % / 100 %               27           8
    pymupdf         0.74     0.43          94 % /  94 %                1 *         8

    * "allowUIDProposalModification", a real identifier. The golden quotes were checked against pypdf's
      text; PyMuPDF misses three in code lines where it writes "debian -edu-amd64".
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from rqrag.ingest.clean import clean_pages, match_form
from rqrag.ingest.extract import PDF_BACKENDS, extract_pdf_pages
from rqrag.paths import PROJECT_ROOT


DEFAULT_PDF = PROJECT_ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
DEFAULT_GOLDEN = PROJECT_ROOT / "tests" / "data" / "golden_pt" / "debian_edu_golden.jsonl"
LIGATURES = re.compile("[\ufb00-\ufb06]")
RUN_TOGETHER = re.compile(r"[^\W\d_]{26,}")


def load_evidence(golden: Path) -> list[tuple[int, str]]:
    evidence = []
    for line in golden.read_text(encoding="utf-8").splitlines():
        if line.strip():
            evidence.extend((int(item["page"]), item["quote"]) for item in json.loads(line)["evidence"])
    return evidence


def share_found(evidence: list[tuple[int, str]], page_texts: dict[int, str]) -> tuple[float, list[str]]:
    """The share of quotes found on their page (texts already in match form), and the quotes missed."""
    missed = [f"p{page}: {quote}" for page, quote in evidence if match_form(quote) not in page_texts.get(page, "")]
    return 1 - len(missed) / len(evidence), missed


def measure(backend: str, data: bytes, evidence: list[tuple[int, str]], repeat: int) -> dict:
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        pages = extract_pdf_pages(data, backend=backend)
        seconds.append(time.perf_counter() - started)
    started = time.perf_counter()
    cleaned = clean_pages(pages)
    clean_seconds = time.perf_counter() - started
    # Raw text with only the generic fix-ups the golden quotes assume: hyphenated line breaks joined.
    raw = {page.number: match_form(re.sub(r"(?<=[^\W\d_])-\n(?=[^\W\d_])", "", page.text)) for page in pages}
    raw_share, _ = share_found(evidence, raw)
    clean_share, missed = share_found(evidence, {page.number: match_form(page.text) for page in cleaned})
    cleaned_text = "\n".join(page.text for page in cleaned)
    return {
        "backend": backend,
        "pages": len(pages),
        "extract_seconds": round(min(seconds), 3),
        "clean_seconds": round(clean_seconds, 3),
        "quotes_found_raw": round(raw_share, 4),
        "quotes_found_cleaned": round(clean_share, 4),
        "run_together_words": len(RUN_TOGETHER.findall(cleaned_text)),
        "run_together_examples": sorted(set(RUN_TOGETHER.findall(cleaned_text)))[:5],
        "ligatures_raw": sum(len(LIGATURES.findall(page.text)) for page in pages),
        "characters_cleaned": len(cleaned_text),
        "quotes_missed": missed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="the PDF to extract")
    parser.add_argument("--golden", type=Path, default=DEFAULT_GOLDEN, help="JSONL with evidence [{page, quote}]")
    parser.add_argument("--backends", default=",".join(PDF_BACKENDS), help=f"comma-separated subset of {PDF_BACKENDS}")
    parser.add_argument(
        "--repeat", type=int, default=1, help="extract this many times per backend; the best time counts"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    args = parser.parse_args(argv)

    data = args.pdf.read_bytes()
    evidence = load_evidence(args.golden)
    print(f"{args.pdf.name}: {len(data) / 1e6:.1f} MB, {len(evidence)} golden quotes", file=sys.stderr)
    results = []
    for backend in args.backends.split(","):
        try:
            results.append(measure(backend.strip(), data, evidence, args.repeat))
        except ImportError as error:
            print(f"{backend}: not installed ({error})", file=sys.stderr)
    header = f"{'backend':<10} {'pages':>5} {'extract s':>9} {'clean s':>7} {'raw found':>9} {'clean found':>11} "
    print(header + f"{'run-together':>12} {'ligatures':>9}")
    for r in results:
        print(
            f"{r['backend']:<10} {r['pages']:>5} {r['extract_seconds']:>9.2f} {r['clean_seconds']:>7.2f} "
            f"{r['quotes_found_raw']:>9.1%} {r['quotes_found_cleaned']:>11.1%} {r['run_together_words']:>12} "
            f"{r['ligatures_raw']:>9}"
        )
        for quote in r["quotes_missed"]:
            print(f"    missed {quote}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
