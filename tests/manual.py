"""The Portuguese PDF shipped in `data/documents/pt/` (licence: data/documents/SOURCES.md) and its golden
questions, for the tests that use them: one path, one marker, one way to cut a few pages out as a small PDF that
indexes in seconds."""

from __future__ import annotations

import io
from pathlib import Path

import pytest


MANUAL = Path(__file__).resolve().parents[1] / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
GOLDEN = Path(__file__).resolve().parent / "data" / "golden_pt" / "debian_edu_golden.jsonl"
# The manual ships with the repository; only a checkout that left it out (a sparse one) skips these tests.
needs_manual = pytest.mark.skipif(not MANUAL.is_file(), reason=f"{MANUAL} is missing from this checkout")


def pdf_pages(first: int, last: int, password: str | None = None) -> bytes:
    """Pages first..last (1-based, inclusive) of the manual as a new PDF, encrypted with `password` if given."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(MANUAL)
    writer = PdfWriter()
    for number in range(first, last + 1):
        writer.add_page(reader.pages[number - 1])
    if password:
        writer.encrypt(password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
