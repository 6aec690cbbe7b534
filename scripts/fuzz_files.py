"""Files built to break a document server, and mutations of real ones: what `scripts/fuzz_uploads.py` sends.

    from fuzz_files import adversarial_files, mutants
    for name, data in adversarial_files():          # ~40 hand-built files: page boxes, UserUnit, nesting, bombs...
        ...
    for name, data in mutants(seeds, random.Random(7), 1000):   # seeded mutations of the real fixtures
        ...

The adversarial files are written here byte by byte (a PDF is a list of objects and a cross-reference table;
`pdf_of` writes one, and can write the table wrong on purpose), so each names the one thing it tries: a page
14,400 points a side (the largest the format allows) or with `UserUnit` making it larger, a page with no area,
thousands of pages, objects nested a hundred thousand deep, a page tree that contains itself, a cross-reference
table pointing anywhere, a content stream of millions of operators, a form that draws itself, an image declared
40,000 pixels a side, a font program of garbage; Word files whose XML nests deeply or defines entities that
expand a billion times or read a local file; HTML that is nothing but tags; text with no spaces or full of NULs.

The mutants are real files (a few pages of the shipped manual, a DOCX, an HTML page, Markdown) changed by a seeded
mutator: bytes flipped, runs deleted, duplicated or spliced from another file, the file cut short, and in a PDF its
numbers replaced by extremes (a page box of 1e30, an object number of -1, a length of 2^31). The same seed gives
the same files, so any failure is reproduced from the campaign's log line (its name holds the seed).
"""

from __future__ import annotations

import io
import random
import re
import zlib
from collections.abc import Iterator


# ---------------------------------------------------------------------------------------------- PDF


def pdf_of(objects: list[bytes], root: int = 1, xref: str = "right", header: bytes = b"%PDF-1.7\n") -> bytes:
    """A PDF of `objects` (numbered from 1), its cross-reference table `right`, `shifted` (every offset off by 7),
    `beyond` (offsets past the end), `missing` (no table, no startxref) or `garbage` (a table of noise)."""
    out, offsets = bytearray(header), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    start = len(out)
    if xref == "missing":
        return bytes(out + b"trailer\n<< /Root %d 0 R >>\n%%%%EOF\n" % root)
    shift = {"right": 0, "shifted": 7, "beyond": 10**9, "garbage": 0}[xref]
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    if xref == "garbage":
        out += bytes(random.Random(len(objects)).randrange(256) for _ in range(20 * len(objects)))
    else:
        out += b"".join(b"%010d 00000 n \n" % (offset + shift) for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, start)
    return bytes(out)


def stream(data: bytes, extra: bytes = b"", compress: bool = False) -> bytes:
    if compress:
        data, extra = zlib.compress(data, 9), extra + b" /Filter /FlateDecode"
    return b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
TEXT = b"BT /F1 12 Tf 72 720 Td (Relatorio anual da escola.) Tj 0 -14 Td (O servidor oferece arquivos.) Tj ET"


def one_page(box: bytes = b"0 0 612 792", content: bytes = TEXT, page_extra: bytes = b"", resources: bytes = b"",
             font: bytes = FONT, xref: str = "right") -> bytes:  # fmt: skip
    """A one-page PDF: the page's MediaBox, its content stream, anything more on the page or in its resources."""
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [%s] /Contents 4 0 R %s"
            b"/Resources << /Font << /F1 5 0 R >> %s >> >>" % (box, page_extra, resources),
            stream(content),
            font,
        ],
        xref=xref,
    )


def many_pages(count: int) -> bytes:
    """`count` pages sharing one content stream: a file of a few hundred kB that reads as a book."""
    first = 4
    kids = b" ".join(b"%d 0 R" % (first + i) for i in range(count))
    pages = [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 %d 0 R >> >> >>"
        % (first + count)
        for _ in range(count)
    ]
    head = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count)]
    return pdf_of([*head, stream(TEXT), *pages, FONT])


def nested(depth: int, kind: str = "dict") -> bytes:
    if kind == "dict":
        return b"<< /A " * depth + b"1" + b" >>" * depth
    return b"[" * depth + b"1" + b"]" * depth


def self_containing_tree() -> bytes:
    """A page tree whose Pages node lists itself among its kids."""
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            stream(TEXT),
        ]
    )


def self_drawing_form() -> bytes:
    """A form XObject that draws itself: endless recursion for a renderer that does not stop it."""
    form = b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X 6 0 R >> >>"
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> >>",
            stream(TEXT + b" /X Do"),
            FONT,
            stream(b"q 0.9 0 0 0.9 1 1 cm /X Do Q", form),
        ]
    )


def huge_image(side: int, filter_: bytes = b"/FlateDecode") -> bytes:
    """A page showing an image declared `side` × `side` RGB pixels, whose data is a few bytes."""
    keys = b" /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8" % (
        side,
        side,
    )
    data = zlib.compress(b"\x80" * 4096) if filter_ == b"/FlateDecode" else b"\xff\xd8\xff\xe0" + b"\x00" * 64
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> /XObject << /Im 6 0 R >> >> >>",
            stream(TEXT + b" q 612 0 0 792 0 0 cm /Im Do Q"),
            FONT,
            stream(data, keys + b" /Filter " + filter_),
        ]
    )


def garbage_font(seed: int) -> bytes:
    rng = random.Random(seed)
    program = bytes(rng.randrange(256) for _ in range(4096))
    descriptor = b"<< /Type /FontDescriptor /FontName /Bad /Flags 32 /FontBBox [0 0 1000 1000] /FontFile2 6 0 R >>"
    font = (
        b"<< /Type /Font /Subtype /TrueType /BaseFont /Bad /FirstChar -5 /LastChar 99999999 "
        b"/Widths [1 2 3] /FontDescriptor 7 0 R >>"
    )
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            stream(TEXT),
            font,
            stream(program),
            descriptor,
        ]
    )


def pdf_cases() -> Iterator[tuple[str, bytes]]:
    yield "page-14400pt.pdf", one_page(b"0 0 14400 14400")
    yield "page-14400pt-userunit-75000.pdf", one_page(b"0 0 14400 14400", page_extra=b"/UserUnit 75000 ")
    yield "page-wide-1x14400.pdf", one_page(b"0 0 14400 1")
    yield "page-1e30.pdf", one_page(b"0 0 1e30 1e30")
    yield "page-tiny.pdf", one_page(b"0 0 0.01 0.01")
    yield "page-empty-box.pdf", one_page(b"0 0 0 0")
    yield "page-inverted-box.pdf", one_page(b"612 792 0 0")
    yield "page-negative-box.pdf", one_page(b"-99999 -99999 -1 -1")
    yield "page-rotated-huge.pdf", one_page(b"0 0 14400 14400", page_extra=b"/Rotate 90 ")
    yield "pages-3000.pdf", many_pages(3000)
    yield "nested-dict-100k.pdf", one_page(resources=b"/Deep " + nested(100_000))
    yield "nested-array-100k.pdf", one_page(resources=b"/Deep " + nested(100_000, "array"))
    yield "tree-contains-itself.pdf", self_containing_tree()
    for xref in ("shifted", "beyond", "missing", "garbage"):
        yield f"xref-{xref}.pdf", one_page(xref=xref)
    yield "endless-content-2M-ops.pdf", one_page(content=TEXT + b" 0 0 m 1 1 l S" * 2_000_000)
    yield "form-draws-itself.pdf", self_drawing_form()
    yield "image-40000px-flate.pdf", huge_image(40_000)
    yield "image-40000px-jpeg.pdf", huge_image(40_000, b"/DCTDecode")
    yield "font-garbage.pdf", garbage_font(1)
    yield "font-missing-object.pdf", one_page(font=b"<< /Type /Font /Subtype /Type0 /DescendantFonts [99 0 R] >>")
    yield "header-only.pdf", b"%PDF-1.7\n"
    yield "truncated.pdf", one_page()[:200]


# ---------------------------------------------------------------------------------------------- DOCX, HTML, text


def docx_with(document_xml: bytes) -> bytes:
    import zipfile

    from hostile_files import DOCX_CONTENT_TYPES, DOCX_RELS

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", DOCX_CONTENT_TYPES)
        archive.writestr("_rels/.rels", DOCX_RELS)
        archive.writestr("word/document.xml", document_xml)
    return out.getvalue()


W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
# 200,000 unclosed tags: ~18 s of lxml and trafilatura on 2 cores, the slowest read here (the tests that kill a reader
# mid-read send it, for the time it gives them)
UNCLOSED_TAGS_HTML = b"<html>" + b"<p><i>" * 200_000


def other_cases() -> Iterator[tuple[str, bytes]]:
    body = b"<w:p><w:r><w:t>O servidor oferece arquivos.</w:t></w:r></w:p>"
    depth = 200_000
    deep = b"<w:document %s><w:body>" % W + b"<w:sdt><w:sdtContent>" * depth + body
    yield "docx-deep-nesting.docx", docx_with(deep + b"</w:sdtContent></w:sdt>" * depth + b"</w:body></w:document>")
    laughs = b'<!DOCTYPE w:document [<!ENTITY a "hahahahaha">' + b"".join(
        b'<!ENTITY %s "%s">' % (chr(98 + i).encode(), (b"&" + chr(97 + i).encode() + b";") * 10) for i in range(9)
    )
    yield (
        "docx-billion-laughs.docx",
        docx_with(laughs + b"]><w:document %s><w:body><w:p><w:r><w:t>&j;</w:t></w:r></w:p></w:body></w:document>" % W),
    )
    external = b'<!DOCTYPE w:document [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    yield (
        "docx-external-entity.docx",
        docx_with(external + b"<w:document %s><w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>" % W),
    )
    yield "docx-not-xml.docx", docx_with(b"\x00\xff" * 5000)
    yield "html-all-tags.html", b"<html><body>" + b"<div><span><b>" * 100_000 + b"</body></html>"
    yield "html-unclosed-tags.html", UNCLOSED_TAGS_HTML
    yield "html-deep-table.html", b"<table><tr><td>" * 50_000 + b"texto" + b"</td></tr></table>" * 50_000
    yield "text-one-word-8MB.md", b"a" * (8 << 20)
    yield "text-nuls.md", b"\x00" * 100_000 + "Relatório anual.".encode()
    yield "text-bad-utf8.md", b"Relat\xf3rio anual \xc3\x28 da escola." * 1000
    yield "text-lines-1M.md", b"x\n" * 1_000_000


def adversarial_files() -> Iterator[tuple[str, bytes]]:
    """Every hand-built adversarial file, as (file name, bytes)."""
    yield from pdf_cases()
    yield from other_cases()


# ---------------------------------------------------------------------------------------------- mutations

_NUMBER = re.compile(rb"-?\d+(\.\d+)?")
EXTREMES = [b"0", b"-1", b"1e30", b"2147483648", b"-2147483649", b"99999999999999999999", b"0.0000001", b"NaN"]


def mutate(data: bytes, rng: random.Random, donors: list[bytes]) -> bytes:
    """One to four random changes to `data`: flips, deletions, duplications, splices from a donor, a cut end, and
    for a PDF its numbers replaced by extremes."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not out:
            out += rng.choice(donors)[:1000]
        kind = rng.randrange(7)
        at = rng.randrange(len(out))
        if kind == 0:
            for _ in range(rng.randint(1, 16)):
                out[rng.randrange(len(out))] = rng.randrange(256)
        elif kind == 1:
            del out[at : at + rng.randint(1, 4096)]
        elif kind == 2:
            piece = out[at : at + rng.randint(1, 4096)]
            out[at:at] = piece * rng.randint(1, 8)
        elif kind == 3:
            donor = rng.choice(donors)
            start = rng.randrange(len(donor))
            out[at:at] = donor[start : start + rng.randint(1, 8192)]
        elif kind == 4:
            del out[rng.randint(1, len(out)) :]
        else:
            numbers = list(_NUMBER.finditer(out[: 1 << 20]))
            for match in rng.sample(numbers, min(len(numbers), rng.randint(1, 8))):
                out[match.start() : match.end()] = rng.choice(EXTREMES).ljust(match.end() - match.start())[:64]
    return bytes(out)


def mutants(seeds: list[tuple[str, bytes]], rng: random.Random, count: int) -> Iterator[tuple[str, bytes]]:
    """`count` mutations of the seed files, named `<seed name stem>-m<number>.<its suffix>`."""
    donors = [data for _, data in seeds]
    for number in range(count):
        name, data = rng.choice(seeds)
        stem, _, suffix = name.rpartition(".")
        yield f"{stem}-m{number}.{suffix}", mutate(data, rng, donors)
