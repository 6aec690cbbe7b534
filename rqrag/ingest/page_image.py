"""A PDF page as a PNG, with a quoted sentence marked on it: what the source viewer shows beside the passage.

    png = render_page(pdf_bytes, page=4, mark="O corpus reúne 1.200 acórdãos.")   # PageImage(png, marked=True)
    page_count(pdf_bytes)                                                          # 12

pdfium (pypdfium2) draws the page. The mark is found in the page's own text layer: the passage a citation quotes
was cleaned at ingestion (a word split by a line-end hyphen joined, spaces collapsed), so the page text is folded
the same way before the quote is looked for, and each folded character remembers the page character it came
from. The characters' boxes are then painted over in translucent yellow. A quote the text layer does not hold (a
scanned page, or a quote that spans two pages) gives the page unmarked: `marked` says which.

The pixel budget. A PDF page may be 14,400 points a side (200 inches; its `UserUnit` may claim more): drawn at the
viewer's 1.5× that is 21,600² pixels, 3.6 GB and ~16 s of CPU for one 865-byte file. No drawing here is larger than
`MAX_PAGE_PIXELS` (6 million: an A4 or Letter page at the largest scale, 3×, is 4.5 million): a larger page is
drawn at the scale that fits the budget (`PageImage.scale` says which), so its memory is bounded by ~100 MB whatever
the page claims. A page that could only fit at under `MIN_SCALE` (over ~50,000 points a side, where its text would be
dots) is refused (`PageUnreadable`), as is a page pdfium cannot draw.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass


DEFAULT_SCALE = 1.5  # 108 dpi: a page's small print stays readable in a ~900-pixel-wide viewer
MAX_SCALE = 3.0
MAX_PAGE_PIXELS = 6_000_000
MIN_SCALE = 0.05  # a page fitted to the budget below this is refused rather than drawn as dots
MARK_RGBA = (255, 214, 0, 96)
# The shortest quote worth marking: shorter ones ("2023", "Sim") are found in too many places on a page.
MIN_MARK_CHARS = 12


class PageNotFound(ValueError):
    """The document has no such page."""


class PageUnreadable(ValueError):
    """The page cannot be drawn: its box is empty, absurdly large, or pdfium fails on it."""


@dataclass(frozen=True)
class PageImage:
    png: bytes
    marked: bool  # whether the quote was found on the page and painted
    pages: int  # how many pages the document has (for the viewer's previous/next)
    mark_top: float | None = None  # where the mark starts, as a share of the page's height (the viewer scrolls there)
    scale: float = DEFAULT_SCALE  # the scale it was drawn at: less than asked when the page is over the pixel budget


def page_count(pdf: bytes) -> int:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()


def fitted_scale(width: float, height: float, scale: float, max_pixels: int = MAX_PAGE_PIXELS) -> float:
    """`scale`, or less where a page of `width` × `height` points drawn at it would be over `max_pixels`."""
    if not (math.isfinite(width) and math.isfinite(height)) or width < 1 or height < 1:
        raise PageUnreadable(f"the page's box ({width:g} × {height:g} points) is empty or broken; it cannot be drawn")
    fit = math.sqrt(max_pixels / (width * height))
    while math.ceil(width * fit) * math.ceil(height * fit) > max_pixels:  # pdfium rounds a side's pixels up
        fit *= 0.999
    if fit < MIN_SCALE:
        raise PageUnreadable(
            f"the page is {width:,.0f} × {height:,.0f} points, too large to draw readably; download the file instead"
        )
    return min(scale, fit)


def render_page(
    pdf: bytes, page: int, mark: str | None = None, scale: float = DEFAULT_SCALE, max_pixels: int = MAX_PAGE_PIXELS
) -> PageImage:
    """Page `page` (1-based) of `pdf` as a PNG at `scale` × 72 dpi (less where the page is over `max_pixels`),
    with `mark` painted where the page holds it."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(pdf)
    except pdfium.PdfiumError as error:
        raise PageUnreadable(f"the file cannot be opened to draw its pages ({error})") from None
    try:
        if not 1 <= page <= len(document):
            raise PageNotFound(f"the document has {len(document)} pages; there is no page {page}")
        try:
            return _draw(document, page, mark, scale, max_pixels)
        except (PageUnreadable, MemoryError):  # a MemoryError is the worker's limit: `file_too_complex`
            raise
        except Exception as error:  # noqa: BLE001 - pdfium's (or PIL's) failure on a page built to fail it
            raise PageUnreadable(f"page {page} cannot be drawn ({type(error).__name__}: {error})"[:400]) from None
    finally:
        document.close()


def _draw(document, page: int, mark: str | None, scale: float, max_pixels: int) -> PageImage:
    from PIL import ImageDraw

    pdf_page = document[page - 1]
    width, height = pdf_page.get_size()
    scale = fitted_scale(width, height, min(max(scale, 0.5), MAX_SCALE), max_pixels)
    image = pdf_page.render(scale=scale).to_pil().convert("RGBA")
    boxes = _boxes_of(pdf_page, mark) if mark and len(mark.strip()) >= MIN_MARK_CHARS else []
    if boxes:
        overlay = ImageDraw.Draw(layer := _blank(image.size))
        for left, bottom, right, top in boxes:  # PDF points, origin at the bottom left
            overlay.rectangle(
                [left * scale, (height - top) * scale, right * scale, (height - bottom) * scale], fill=MARK_RGBA
            )
        image.alpha_composite(layer)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", optimize=False)
    top = (height - max(box[3] for box in boxes)) / height if boxes else None
    mark_top = None if top is None else round(top, 3)
    return PageImage(out.getvalue(), bool(boxes), len(document), mark_top, round(scale, 4))


def _blank(size):
    from PIL import Image

    return Image.new("RGBA", size, (0, 0, 0, 0))


def _boxes_of(pdf_page, mark: str) -> list[tuple[float, float, float, float]]:
    """The rectangles (PDF points) of the page's characters that spell `mark`, or [] when the page does not hold
    it; a long quote not found whole is looked for by its first 80 characters."""
    text_page = pdf_page.get_textpage()
    try:
        folded, origin = fold_with_origin(text_page.get_text_range())
        wanted = fold(mark)
        start = folded.find(wanted)
        if start < 0 and len(wanted) > 80:
            wanted = wanted[:80].rsplit(" ", 1)[0]
            start = folded.find(wanted)
        if start < 0:
            return []
        first, last = origin[start], origin[start + len(wanted) - 1]
        count = text_page.count_rects(first, last - first + 1)
        return [text_page.get_rect(i) for i in range(count)]
    finally:
        text_page.close()


# pdfium's marks of a word hyphenated at a line's end (U+FFFE, U+0002) and the soft hyphen: never part of a word.
_UNPRINTED = {0xFFFE: None, 0x0002: None, 0x00AD: None}


def fold(text: str) -> str:
    """Lower case, no hyphens (a word split at a line's end is joined: the ingestion's cleaner joined it, or kept
    a real hyphen, and the page cannot say which), every run of spaces one space: how a quote and a page compare."""
    return fold_with_origin(text)[0]


def fold_with_origin(text: str) -> tuple[str, list[int]]:
    """`fold(text)`, and for each of its characters the index in `text` it came from."""
    kept: list[str] = []
    origin: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ord(ch) in _UNPRINTED:
            i += 1
            continue
        if ch == "-":
            j = i + 1
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] in "\r\n":  # a word split at the line's end: its halves join, no space between
                while j < n and text[j].isspace():
                    j += 1
                i = j
            else:
                i += 1
            continue
        if ch.isspace():
            if kept and kept[-1] != " ":
                kept.append(" ")
                origin.append(i)
            i += 1
            continue
        kept.append(ch.lower())
        origin.append(i)
        i += 1
    while kept and kept[-1] == " ":
        kept.pop()
        origin.pop()
    return "".join(kept), origin
