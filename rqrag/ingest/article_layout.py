"""What a file's own layout says about its structure: which lines are headings, and its title, authors and year.

`rqrag.ingest.article` cuts an article into sections; it needs to know where the headings are, and a heading is
told by the format, not by its words alone ("Resultados" can open a sentence's line in a PDF):

* **Markdown** — `#` lines; the first `# ` line is the title;
* **HTML** — `<h1>`…`<h6>`; the title from `citation_title` (the Highwire tags journals publish for Google
  Scholar), `<h1>` or `<title>`; authors and year from `citation_author` / `citation_publication_date`;
* **DOCX** — paragraphs styled `Title` / `Heading N`; authors and year from the core properties;
* **PDF** — lines set larger than the body text, or wholly bold (PDFium's font size and weight per character);
  the title is the largest text on page 1, above everything else.

    hints = layout_hints(data, "pdf")
    hints.headings   # {"1 introducao": 1, "2 metodologia": 1, ...}  folded line -> level
    hints.title, hints.authors, hints.year
"""

from __future__ import annotations

import io
import logging
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from rqrag.text.text_quality import fold


logger = logging.getLogger(__name__)
YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
MAX_HEADING_WORDS = 14  # a longer line is a sentence, whatever its font


@dataclass
class LayoutHints:
    """Headings by their folded text (-> level, 1 = top), and the front matter the format states."""

    headings: dict[str, int] = field(default_factory=dict)
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    # Lines of page 1 under the title (PDF): authors, affiliations, dates, superscript marks dropped.
    front: list[str] = field(default_factory=list)
    # Lines of page 1 above the title (PDF): a journal's masthead, where the year often is, never the authors.
    masthead: list[str] = field(default_factory=list)
    # What the file says about itself (a PDF's Info, a DOCX's core properties, a Markdown file's YAML block):
    # often a template's or a tool's ("Microsoft Word - tcc_v3.docx", "Windows User"), so only trusted once the
    # text confirms it (`rqrag.ingest.front_matter`); a YAML block is the author's own and trusted as it is.
    meta_title: str | None = None
    meta_authors: list[str] = field(default_factory=list)
    meta_year: int | None = None
    declared: bool = False  # the metadata is the author's own declaration (YAML front matter)


def heading_key(line: str) -> str:
    """A line as headings are looked up: folded, markup and spacing dropped ("## 1 Introdução" -> "1 introducao")."""
    text = re.sub(r"^\s*#+\s*", "", line)
    text = re.sub(r"[*_`]+", "", text)
    return " ".join(fold(text).split()).strip(" .:")


def layout_hints(data: bytes, file_type: str) -> LayoutHints:
    """The `LayoutHints` of a file of `file_type` (one of rqrag.ingest.extract.FILE_TYPES); empty hints for plain
    text or a file whose layout cannot be read (the article reader then relies on section names alone)."""
    reader = {"markdown": _markdown, "html": _html, "docx": _docx, "pdf": _pdf}.get(file_type)
    if reader is None:
        return LayoutHints()
    try:
        return reader(data)
    except Exception as error:  # noqa: BLE001 - structure is a bonus: the text was already extracted
        logger.warning("the %s's layout could not be read (%s: %s); headings by their names only", file_type,
                       type(error).__name__, error)  # fmt: skip
        return LayoutHints()


def _markdown(data: bytes) -> LayoutHints:
    hints = LayoutHints()
    in_code = False
    text = data.decode("utf-8-sig", errors="replace")
    block = re.match(r"^---\s*\n(.*?)\n(?:---|\.\.\.)\s*\n", text, re.S)
    if block:  # a YAML front matter block (Pandoc, Jekyll, Quarto): the author's own title, authors and date
        _yaml_front_matter(block.group(1), hints)
        text = text[block.end() :]
    under_title = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        found = re.match(r"^(#{1,6})\s+(.+?)\s*#*\s*$", line)
        if found and not in_code:
            level = len(found.group(1))
            under_title = level == 1 and hints.title is None
            if under_title:
                hints.title = _plain(found.group(2))
            hints.headings[heading_key(found.group(2))] = level
        elif under_title and _plain(line) and len(hints.front) < 20:
            # the lines under the title as typed: a paper's authors may stand one per line in one paragraph, which
            # the text (joined as Markdown renders it) no longer shows
            hints.front.append(_plain(line))
    return hints


def _yaml_front_matter(block: str, hints: LayoutHints) -> None:
    import yaml

    try:
        meta = yaml.safe_load(block)
    except yaml.YAMLError:
        return
    if not isinstance(meta, dict):
        return
    authors = meta.get("author") or meta.get("authors") or []
    authors = [authors] if isinstance(authors, (str, dict)) else authors
    names = [a.get("name") if isinstance(a, dict) else a for a in authors]
    hints.meta_title = str(meta["title"]).strip() if meta.get("title") else None
    hints.meta_authors = [str(n).strip() for n in names if n]
    found = YEAR.search(str(meta.get("date") or meta.get("year") or ""))
    hints.meta_year = int(found.group()) if found else None
    hints.declared = True


def _html(data: bytes) -> LayoutHints:
    import lxml.html

    tree = lxml.html.fromstring(data)
    hints = LayoutHints()

    def meta(name: str) -> list[str]:
        return [m.get("content", "").strip() for m in tree.xpath(f"//meta[@name='{name}']") if m.get("content")]

    titles = meta("citation_title") or meta("dc.title") or meta("DC.title")
    hints.authors = meta("citation_author") or meta("dc.creator") or meta("DC.creator")
    dates = meta("citation_publication_date") or meta("citation_date") or meta("dc.date")
    for node in tree.xpath("//nav|//header|//footer|//script|//style|//aside"):
        node.drop_tree()
    for node in tree.xpath("//h1|//h2|//h3|//h4|//h5|//h6"):
        text = " ".join(node.text_content().split())
        if text:
            hints.headings[heading_key(text)] = int(node.tag[1])
            if node.tag == "h1" and not titles:
                titles = [text]
    if not titles:
        titles = [" ".join(t.text_content().split()) for t in tree.xpath("//title")]
    hints.title = titles[0] if titles and titles[0] else None
    years = [YEAR.search(d) for d in dates]
    hints.year = next((int(y.group()) for y in years if y), None)
    return hints


def _docx(data: bytes) -> LayoutHints:
    import docx

    document = docx.Document(io.BytesIO(data))
    hints = LayoutHints()
    for paragraph in document.paragraphs:
        text = " ".join(paragraph.text.split())
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if not text:
            continue
        if style == "Title" and hints.title is None:
            hints.title = text
        elif hints.title is not None and len(hints.front) < 20 and not style.startswith("Heading"):
            # under the title: authors with their affiliation marks set as superscripts, which are dropped
            plain = "".join(run.text for run in paragraph.runs if not run.font.superscript)
            hints.front.append(" ".join(plain.split()))
        level = re.match(r"Heading (\d)", style)
        if level:
            hints.headings[heading_key(text)] = int(level.group(1))
    properties = document.core_properties
    hints.meta_title = (properties.title or "").strip() or None
    if properties.author:
        hints.meta_authors = [a.strip() for a in re.split(r";|\s+and\s+|\s+e\s+", properties.author) if a.strip()]
    hints.meta_year = properties.created.year if properties.created is not None else None
    return hints


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[*_`]+", "", text).split())


# --------------------------------------------------------------------------------------------------- PDF


@dataclass
class _Line:
    page: int
    text: str
    plain: str  # the text without its superscripts (affiliation marks: "Osei-Mensah", not "Osei-Mensaha")
    size: float  # median font size of its characters, in points
    bold: bool  # nearly all its letters are in a bold face
    top: float  # its height on the page (PDF units, from the bottom)


def _pdf(data: bytes) -> LayoutHints:
    from rqrag.ingest.extract import _PDFIUM_LOCK

    with _PDFIUM_LOCK:
        lines, meta = _pdf_lines(data)
    hints = LayoutHints()
    hints.meta_title = (meta.get("Title") or "").strip() or None
    author = (meta.get("Author") or "").strip()
    hints.meta_authors = [a.strip() for a in re.split(r";|\s+and\s+|\s+e\s+|,\s+(?=\S+\s)", author) if a.strip()]
    found = YEAR.search(meta.get("CreationDate") or "")
    hints.meta_year = int(found.group()) if found else None
    if not lines:
        return hints
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[line.size] += len(line.text)
    body = sizes.most_common(1)[0][0]
    first_page = [line for line in lines if line.page == 1]
    # The title: the largest lines of page 1 (at least 1.3x the body), in reading order, taken together.
    largest = max((line.size for line in first_page), default=body)
    if largest >= body + 1.5:
        title_lines = [line for line in first_page if line.size >= largest - 0.5]
        hints.title = " ".join(" ".join(line.text for line in title_lines).split())
    for line in lines:
        words = line.text.split()
        if not words or len(words) > MAX_HEADING_WORDS or hints.title and line.text in hints.title:
            continue
        letters = sum(c.isalpha() for c in line.text)
        if letters < 3 or line.text.rstrip().endswith((",", ";")):
            continue
        larger = line.size >= body + 0.9
        if larger or (line.bold and line.size >= body - 0.5):
            hints.headings.setdefault(heading_key(line.text), 1 if line.size >= body + 1.9 else 2)
    # Page 1 around the title: a journal's masthead with the year above it; authors, affiliations, a date under it.
    if hints.title:
        title_bottom = min(line.top for line in first_page if line.size >= largest - 0.5)
        rest = [line for line in first_page if line.size < largest - 0.5]
        hints.front = [line.plain for line in rest if line.top < title_bottom][:20]
        hints.masthead = [line.plain for line in rest if line.top > title_bottom][:10]
    return hints


def _pdf_lines(data: bytes) -> tuple[list[_Line], dict]:
    """Every text line of the PDF with its median font size, boldness and height (pages in order); its metadata."""
    import ctypes

    import pypdfium2
    import pypdfium2.raw as pdfium_c

    document = pypdfium2.PdfDocument(data)
    out: list[_Line] = []
    try:
        meta = document.get_metadata_dict(skip_empty=True)
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            if len(text) != textpage.count_chars():  # indices would not line up: no font facts for this page
                textpage.close()
                page.close()
                continue
            start = 0
            for raw in text.split("\r\n"):
                end = start + len(raw)
                chars = [i for i in range(start, end) if not text[i].isspace()]
                if chars:
                    sizes = [pdfium_c.FPDFText_GetFontSize(textpage.raw, i) for i in chars]
                    weights = [pdfium_c.FPDFText_GetFontWeight(textpage.raw, i) for i in chars if text[i].isalpha()]
                    names = [_font_name(textpage, i, ctypes, pdfium_c) for i in chars[:1] + chars[-1:]]
                    bold_by_name = all(re.search(r"bold|bd|black|heavy|cmbx", n, re.I) for n in names if n)
                    bold = bool(weights) and (
                        sum(w >= 600 for w in weights) >= 0.9 * len(weights) or (bold_by_name and all(names))
                    )
                    box = textpage.get_charbox(chars[0])
                    median = statistics.median(sizes)
                    # superscripts are set smaller than their line: affiliation marks after a name
                    kept = {i for i, size in zip(chars, sizes) if size >= 0.8 * median}
                    plain = "".join(c for i, c in enumerate(raw, start) if i in kept or c.isspace())
                    shown, plain = " ".join(raw.split()), " ".join(plain.split())
                    out.append(_Line(index + 1, shown, plain, round(median, 1), bold, box[3]))
                start = end + 2  # the "\r\n" PDFium generates between lines
            textpage.close()
            page.close()
    finally:
        document.close()
    return out, meta


def _font_name(textpage, index: int, ctypes, pdfium_c) -> str:
    buffer = ctypes.create_string_buffer(128)
    flags = ctypes.c_int(0)
    length = pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, buffer, 128, ctypes.byref(flags))
    return buffer.value.decode("utf-8", errors="replace") if length else ""
