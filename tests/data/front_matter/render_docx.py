"""DOCX renderer of the front-matter fixtures: the blocks described in common.py, written with python-docx the way a
word-processor user would (Title / Heading 1 / Heading 2 styles, bold Normal paragraphs on covers, a one-cell table
for the catalogue card, "Table Grid" tables, dot-leader tab stops in the table of contents, a section header for the
running head), then zipped with fixed timestamps so that rebuilding gives identical bytes.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

from common import runs
from docx import Document
from docx.enum.table import WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK, WD_TAB_ALIGNMENT, WD_TAB_LEADER
from docx.shared import Cm, Pt


CENTER, JUSTIFY = WD_ALIGN_PARAGRAPH.CENTER, WD_ALIGN_PARAGRAPH.JUSTIFY


def _add_runs(par, text, size=None, bold=None):
    for t, b, i, s in runs(text):
        r = par.add_run(t)
        r.bold = True if (b or bold) else None
        r.italic = True if i else None
        if s:
            r.font.superscript = True
        if size:
            r.font.size = Pt(size)
    return par


def _blank(d, n):
    for _ in range(n):
        d.add_paragraph()


def _centred(d, text, cls):
    cls = cls.split()
    size = 14 if "big" in cls else (10 if "small" in cls else None)
    _add_runs(d.add_paragraph(), text, size, bold="b" in cls).alignment = CENTER


def _paragraph(d, text, indent):
    p = _add_runs(d.add_paragraph(), text)
    p.alignment = JUSTIFY
    if indent:
        p.paragraph_format.first_line_indent = Cm(1.25)


def _nature(d, text):
    p = _add_runs(d.add_paragraph(), text, 10)
    p.paragraph_format.left_indent, p.alignment = Cm(8), JUSTIFY


def _ficha(d, above, lines, below):
    """The catalogue card: a one-cell bordered table, the Cutter number and the main entry on its first line."""
    d.add_paragraph(above).alignment = CENTER
    t = d.add_table(rows=1, cols=1, style="Table Grid")
    t.alignment = WD_TABLE_ALIGNMENT.CENTER
    cell = t.cell(0, 0)
    cell.paragraphs[0].text = lines[0]
    for x in lines[1:]:
        cell.add_paragraph("\t" + x)
    for p in cell.paragraphs:
        for r in p.runs:
            r.font.size = Pt(10)
    d.add_paragraph(below).alignment = CENTER


def _table(d, caption, header, rows, note):
    if caption:
        _add_runs(d.add_paragraph(), caption, 10)
    t = d.add_table(rows=1 + len(rows), cols=len(header), style="Table Grid")
    for j, h in enumerate(header):
        t.cell(0, j).paragraphs[0].add_run(h).bold = True
    for i, row in enumerate(rows, 1):
        for j, v in enumerate(row):
            _add_runs(t.cell(i, j).paragraphs[0], v, 10)
    if note:
        _add_runs(d.add_paragraph(), note, 10)


def _toc(d, entries):
    for label, page in entries:
        p = d.add_paragraph()
        p.paragraph_format.tab_stops.add_tab_stop(Cm(16), WD_TAB_ALIGNMENT.RIGHT, WD_TAB_LEADER.DOTS)
        _add_runs(p, f"{label}\t{page}")


def _right(d, text):
    p = _add_runs(d.add_paragraph(), text)
    p.paragraph_format.left_indent = Cm(8)
    for r in p.runs:
        r.italic = True


def _lines(d, lines, cls=""):
    cls = cls.split()
    p = d.add_paragraph()
    for i, line in enumerate(lines):
        if i:
            p.add_run().add_break()
        _add_runs(p, line, 10 if "small" in cls else None, bold="b" in cls)
    if "center" in cls:
        p.alignment = CENTER
    if "half" in cls:
        p.paragraph_format.left_indent = Cm(8)


BLOCKS = {
    "fill": lambda d: None,
    "head": lambda d, left, right: None,  # DOCX running heads live in the section header (doc["header"])
    "pageno": lambda d, n: None,
    "push": lambda d: _blank(d, 4),
    "space": lambda d, mm: _blank(d, max(1, int(mm) // 8)),
    "c": _centred,
    "title": lambda d, text: setattr(_add_runs(d.add_paragraph(style="Title"), text), "alignment", CENTER),
    "misused_title": lambda d, text: setattr(d.add_paragraph(text, style="Title"), "alignment", CENTER),
    "p": lambda d, text: _paragraph(d, text, True),
    "pn": lambda d, text: _paragraph(d, text, False),
    "nature": _nature,
    "h": lambda d, text: d.add_heading(text, level=1),
    "h2": lambda d, text: d.add_heading(text, level=2),
    "ficha": _ficha,
    "table": _table,
    "toc": _toc,
    "refs": lambda d, entries: [_add_runs(d.add_paragraph(), r) for r in entries],
    "right": _right,
    "block": _lines,
}


def build_docx(doc, out: Path) -> None:
    d = Document()
    sec = d.sections[0]
    sec.page_height, sec.page_width = Cm(29.7), Cm(21.0)
    sec.top_margin, sec.left_margin, sec.bottom_margin, sec.right_margin = Cm(3), Cm(3), Cm(2), Cm(2)
    normal = d.styles["Normal"]
    normal.font.name, normal.font.size = doc.get("docx_font", "Times New Roman"), Pt(12)
    if doc.get("header"):
        sec.header.paragraphs[0].text = doc["header"]
        sec.header.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
    for k, page in enumerate(doc["pages"]):
        if k:
            d.paragraphs[-1].add_run().add_break(WD_BREAK.PAGE)
        for kind, *args in page:
            BLOCKS[kind](d, *args)
    core = doc["core"]
    cp = d.core_properties
    cp.author, cp.title = core.get("author", ""), core.get("title", "")
    cp.last_modified_by = core.get("last_modified_by", "")
    cp.subject = cp.keywords = cp.comments = cp.category = ""
    cp.revision = core.get("revision", 1)
    cp.created = dt.datetime.fromisoformat(core["created"])
    cp.modified = dt.datetime.fromisoformat(core["modified"])
    cp.language = "pt-BR" if doc["language"] == "pt" else "en-US"
    raw = io.BytesIO()
    d.save(raw)
    out.write_bytes(normalize_zip(raw.getvalue()))


def normalize_zip(data: bytes) -> bytes:
    """The same archive with fixed member timestamps, so that rebuilding gives identical bytes."""
    src, dst = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type, zi.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            z.writestr(zi, src.read(info.filename))
    return dst.getvalue()
