"""Renderers shared by the front-matter fixture builders (see build.py and SOURCES.md).

A document is a dict: gold fields (id, file, kind, language, format, title, authors, year, metadata_right, traps),
plus how to render it:
  pdf  -> "pages": list of pages, each a list of blocks; "meta": PDF Info values (None = no title/author at all);
          optional "font": "sans" (DejaVu Sans instead of DejaVu Serif) and "pdf_stamp": an arXiv-like stamp drawn
          into page 1 after printing (see add_stamp)
  docx -> "pages" as for pdf (a page break between pages), "header": running head text or None, "core": core
          properties, optional "docx_font" (the Normal style's font name)
  md   -> "text": the Markdown file's text
Optional "must_contain": headings build.py checks for in the text.

Blocks are tuples.  Inline markup in their text: **bold**, *italic*, ^superscript^.
  ("head", left, right)        running head of a journal/proceedings page (PDF only; DOCX uses doc["header"])
  ("pageno", n)                page number at the top right (ABNT)
  ("c", text, cls)             centred line; cls is a space-separated mix of b, big, small, it, gap, narrow
  ("title", text)              the main title of an article (DOCX: "Title" style)
  ("p", text) / ("pn", text)   paragraph with / without first-line indent
  ("nature", text)             the "nature" paragraph of a thesis title page (indented to the right half)
  ("h", text) / ("h2", text)   section / subsection heading (DOCX: Heading 1 / Heading 2)
  ("ficha", above, lines, below)  boxed catalogue card; lines[0] starts with the Cutter number and a tab
  ("table", caption, header, rows, note)  table with a bold header row
  ("toc", [(label, page), ...])  dotted table of contents / list of tables
  ("refs", [entry, ...])       reference list
  ("right", text)              right-aligned italic block (dedication, epigraph)
  ("block", [lines], cls)      lines kept together (affiliations, advisors, dates); cls: center, half, small, b
  ("space", mm)                vertical space
  ("push",)                    pushes what follows to the bottom of a "fill" page
  ("misused_title", text)      DOCX only: a cover line a template wrongly set in the "Title" style
A page whose first block is ("fill",) is laid out as a full-height column (covers, title pages, catalogue cards).
"""

from __future__ import annotations

import hashlib
import html
import io
import re
import subprocess
import tempfile
from pathlib import Path


INLINE = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*|\^(.+?)\^")

CSS = """
@page { size: A4; margin: 0; }
html { -webkit-print-color-adjust: exact; }
body { margin: 0; font-family: 'DejaVu Serif', serif; font-size: 11pt; line-height: 1.42; color: #111; }
body.sans { font-family: 'DejaVu Sans', sans-serif; font-size: 10.5pt; }
.page { width: 210mm; height: 296.5mm; box-sizing: border-box; padding: 28mm 20mm 18mm 28mm; position: relative;
        overflow: hidden; break-after: page; }
.page:last-child { break-after: auto; }
.fill { display: flex; flex-direction: column; }
.push { margin-top: auto; }
.head { display: flex; justify-content: space-between; font-size: 8.5pt; color: #333; border-bottom: 0.6pt solid #555;
        padding-bottom: 1.5mm; margin: -12mm 0 8mm 0; }
.pageno { position: absolute; top: 14mm; right: 20mm; font-size: 10pt; }
.c { text-align: center; margin: 0 0 2mm 0; }
.b { font-weight: bold; } .it { font-style: italic; }
.big { font-size: 14pt; } .narrow { max-width: 90mm; margin-left: auto; margin-right: auto; } .small { font-size: 9pt; } .gap { margin-top: 9mm; }
h1.title { font-size: 17pt; text-align: center; margin: 2mm 0 5mm 0; line-height: 1.25; }
h2 { font-size: 11.5pt; margin: 5mm 0 2mm 0; } h3 { font-size: 11pt; margin: 4mm 0 1.5mm 0; font-style: italic; }
p { margin: 0 0 2mm 0; text-align: justify; } p.i { text-indent: 12mm; }
.nature { margin: 10mm 0 8mm 50%; text-align: justify; font-size: 10pt; line-height: 1.25; }
.ficha-wrap { margin: 0 auto; width: 130mm; font-size: 9pt; }
.ficha-wrap .cap { text-align: center; margin-bottom: 1mm; }
.ficha { border: 0.8pt solid #000; padding: 4mm 4mm 4mm 4mm; display: flex; gap: 3mm; line-height: 1.3; }
.ficha .cutter { width: 14mm; flex: none; } .ficha .lines div { margin-bottom: 0.6mm; }
.ficha .ind { text-indent: 5mm; }
table { border-collapse: collapse; width: 100%; font-size: 8.5pt; margin: 2mm 0 3mm 0; }
th, td { border: 0.5pt solid #444; padding: 1mm 1.3mm; text-align: left; vertical-align: top; }
th { font-weight: bold; background: #e8e8e8; }
.tcap { font-size: 9.5pt; margin: 3mm 0 0 0; } .tnote { font-size: 8.5pt; margin: 0 0 3mm 0; }
.toc { display: flex; font-size: 10pt; margin: 0 0 1mm 0; white-space: nowrap; }
.toc .dots { flex: 1; overflow: hidden; margin: 0 1mm; }
.refs p { text-align: left; margin-bottom: 2.5mm; font-size: 10pt; }
.right { margin: 0 0 4mm 45%; font-style: italic; text-align: justify; }
.block { margin: 0 0 3mm 0; font-size: 9.5pt; line-height: 1.3; }
.block.center { text-align: center; } .block.half { margin-left: 50%; font-size: 10.5pt; } .block.b { font-weight: bold; }
"""


def inline_html(text: str) -> str:
    out, pos = [], 0
    for m in INLINE.finditer(text):
        out.append(html.escape(text[pos : m.start()], quote=False))
        bold, ital, sup = m.groups()
        if bold is not None:
            out.append(f"<b>{inline_html(bold)}</b>")
        elif ital is not None:
            out.append(f"<i>{inline_html(ital)}</i>")
        else:
            out.append(f"<sup>{html.escape(sup, quote=False)}</sup>")
        pos = m.end()
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


def runs(text: str):
    """(text, bold, italic, superscript) pieces of a text with inline markup."""
    pos = 0
    for m in INLINE.finditer(text):
        if m.start() > pos:
            yield text[pos : m.start()], False, False, False
        bold, ital, sup = m.groups()
        if bold is not None:
            yield from ((t, True, i, s) for t, _, i, s in runs(bold))
        elif ital is not None:
            yield from ((t, b, True, s) for t, b, _, s in runs(ital))
        else:
            yield sup, False, False, True
        pos = m.end()
    if pos < len(text):
        yield text[pos:], False, False, False


def block_html(block) -> str:
    kind, *args = block
    if kind == "head":
        return f'<div class="head"><span>{inline_html(args[0])}</span><span>{inline_html(args[1])}</span></div>'
    if kind == "pageno":
        return f'<div class="pageno">{args[0]}</div>'
    if kind == "c":
        return f'<div class="c {args[1]}">{inline_html(args[0])}</div>'
    if kind == "title":
        return f'<h1 class="title">{inline_html(args[0])}</h1>'
    if kind in ("p", "pn"):
        return f'<p class="{"i" if kind == "p" else ""}">{inline_html(args[0])}</p>'
    if kind == "nature":
        return f'<div class="nature">{inline_html(args[0])}</div>'
    if kind == "h":
        return f"<h2>{inline_html(args[0])}</h2>"
    if kind == "h2":
        return f"<h3>{inline_html(args[0])}</h3>"
    if kind == "ficha":
        above, lines, below = args
        cutter, first = lines[0].split("\t")
        body = [f"<div>{inline_html(first)}</div>"] + [f'<div class="ind">{inline_html(x)}</div>' for x in lines[1:]]
        return (
            f'<div class="ficha-wrap"><div class="cap">{inline_html(above)}</div><div class="ficha">'
            f'<div class="cutter">{html.escape(cutter)}</div><div class="lines">{"".join(body)}</div></div>'
            f'<div class="cap small" style="margin-top:1mm">{inline_html(below)}</div></div>'
        )
    if kind == "table":
        caption, header, rows, note = args
        head = "".join(f"<th>{inline_html(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{inline_html(c)}</td>" for c in r) + "</tr>" for r in rows)
        cap = f'<div class="tcap">{inline_html(caption)}</div>' if caption else ""
        nt = f'<div class="tnote">{inline_html(note)}</div>' if note else ""
        return f"{cap}<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{nt}"
    if kind == "toc":
        return "".join(
            f'<div class="toc"><span>{inline_html(lab)}</span><span class="dots">{"." * 160}</span>'
            f"<span>{pg}</span></div>"
            for lab, pg in args[0]
        )
    if kind == "refs":
        return '<div class="refs">' + "".join(f"<p>{inline_html(r)}</p>" for r in args[0]) + "</div>"
    if kind == "right":
        return f'<div class="right">{inline_html(args[0])}</div>'
    if kind == "block":
        cls = args[1] if len(args) > 1 else ""
        return f'<div class="block {cls}">' + "<br>".join(inline_html(x) for x in args[0]) + "</div>"
    if kind == "space":
        return f'<div style="height:{args[0]}mm"></div>'
    if kind == "push":
        return '<div class="push"></div>'
    raise ValueError(f"unknown block {kind!r}")


def to_html(doc) -> str:
    pages = []
    for page in doc["pages"]:
        fill = bool(page) and page[0] == ("fill",)
        blocks = page[1:] if fill else page
        pages.append(
            f'<section class="page{" fill" if fill else ""}">'
            + "\n".join(block_html(b) for b in blocks)
            + "</section>"
        )
    lang = "pt-BR" if doc["language"] == "pt" else "en"
    body_cls = doc.get("font", "")
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{doc["id"]}</title>'
        f'<style>{CSS}</style></head><body class="{body_cls}">' + "\n".join(pages) + "</body></html>"
    )


def pdf_date(day: str) -> str:
    return "D:" + day.replace("-", "") + "101500-03'00'"


def build_pdf(doc, out: Path, chromium: str = "chromium") -> None:
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, ByteStringObject

    with tempfile.TemporaryDirectory() as tmp:
        src, raw = Path(tmp) / "doc.html", Path(tmp) / "raw.pdf"
        src.write_text(to_html(doc), encoding="utf-8")
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-pdf-header-footer",
                f"--print-to-pdf={raw}",
                src.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=180,
        )
        writer = PdfWriter(clone_from=PdfReader(raw))
    n = len(writer.pages)
    if n != len(doc["pages"]):
        raise SystemExit(f"{doc['id']}: {n} PDF pages for {len(doc['pages'])} page blocks (a page overflows)")
    if doc.get("pdf_stamp"):
        add_stamp(writer, doc["pdf_stamp"])
    meta = doc["meta"]
    info = {
        "/Creator": meta["creator"],
        "/Producer": meta["producer"],
        "/CreationDate": pdf_date(meta["date"]),
        "/ModDate": pdf_date(meta["date"]),
    }
    if meta.get("title") is not None:
        info["/Title"] = meta["title"]
    if meta.get("author") is not None:
        info["/Author"] = meta["author"]
    writer.metadata = None
    writer.add_metadata(info)
    digest = hashlib.md5(doc["id"].encode()).digest()
    writer._ID = ArrayObject([ByteStringObject(digest), ByteStringObject(digest)])
    buf = io.BytesIO()
    writer.write(buf)
    out.write_bytes(buf.getvalue())


def add_stamp(writer, text: str) -> None:
    """An arXiv-like stamp on page 1: one Times-Roman string rotated 90 degrees in the left margin, drawn the way
    arXiv draws it (a base-14 font, one text object), on top of the page's own content."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject

    page = writer.pages[0]
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Times-Roman"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    resources = page["/Resources"].get_object()
    if "/Font" not in resources:
        resources[NameObject("/Font")] = DictionaryObject()
    resources["/Font"].get_object()[NameObject("/FStamp")] = writer._add_object(font)

    def stream(data: bytes):
        obj = DecodedStreamObject()
        obj.set_data(data)
        return writer._add_object(obj)

    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("cp1252")
    stamp = b"q 0.5 g BT /FStamp 20 Tf 0 1 -1 0 32 262 Tm (" + escaped + b") Tj ET Q"
    contents = page.raw_get("/Contents")
    old = list(contents.get_object()) if isinstance(contents.get_object(), ArrayObject) else [contents]
    page[NameObject("/Contents")] = ArrayObject([stream(b"q"), *old, stream(b"Q"), stream(stamp)])
