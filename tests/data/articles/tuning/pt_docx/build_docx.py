"""Build article.docx (fictional article written for the rq-rag tests, CC BY 4.0).

Usage (from this folder):
    /work/main/.venv/bin/python build_docx.py
    soffice --headless --convert-to pdf article.docx
"""

from datetime import datetime
from pathlib import Path

from article_text import AUTHORS, BODY, PALAVRAS_CHAVE, RESUMO, TITLE  # the text, beside this file
from docx import Document
from docx.enum.table import WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Cm, Pt, RGBColor


HERE = Path(__file__).resolve().parent

HEADER_TEXT = "Revista Sertaneja de Ciências Agrárias, v. 17, n. 3, p. 201-209, 2023"


def add_page_number(paragraph):
    """Insert a PAGE field into a paragraph (footer page numbers)."""
    run = paragraph.add_run()
    for tag, text in (("begin", None), (None, "PAGE"), ("end", None)):
        if tag:
            el = OxmlElement("w:fldChar")
            el.set(qn("w:fldCharType"), tag)
        else:
            el = OxmlElement("w:instrText")
            el.set(qn("xml:space"), "preserve")
            el.text = text
        run._r.append(el)


def set_font(style, name, size, bold=None, color_black=True):
    style.font.name = name
    style.font.size = Pt(size)
    rpr = style.element.get_or_add_rPr()
    rfonts = rpr.find(qn("w:rFonts"))
    if rfonts is None:
        rfonts = OxmlElement("w:rFonts")
        rpr.append(rfonts)
    for attr in ("w:ascii", "w:hAnsi", "w:cs", "w:eastAsia"):
        rfonts.set(qn(attr), name)
    for attr in ("w:asciiTheme", "w:hAnsiTheme", "w:cstheme", "w:eastAsiaTheme"):
        rfonts.attrib.pop(qn(attr), None)
    if bold is not None:
        style.font.bold = bold
    if color_black:
        style.font.color.rgb = RGBColor(0, 0, 0)


def setup_page_and_styles(doc):
    """Set A4 page geometry and the Normal, Title and Heading styles."""
    sec = doc.sections[0]
    sec.page_height, sec.page_width = Cm(29.7), Cm(21.0)
    sec.top_margin, sec.left_margin = Cm(3), Cm(3)
    sec.bottom_margin, sec.right_margin = Cm(2), Cm(2)

    styles = doc.styles
    set_font(styles["Normal"], "Times New Roman", 12, color_black=False)
    pf = styles["Normal"].paragraph_format
    pf.line_spacing = 1.5
    pf.space_after = Pt(6)
    set_font(styles["Title"], "Times New Roman", 14, bold=True)
    styles["Title"].paragraph_format.alignment = WD_ALIGN_PARAGRAPH.CENTER
    set_font(styles["Heading 1"], "Times New Roman", 12, bold=True)
    set_font(styles["Heading 2"], "Times New Roman", 12, bold=True)
    styles["Heading 2"].font.italic = False
    for name in ("Heading 1", "Heading 2"):
        styles[name].paragraph_format.space_before = Pt(12)
        styles[name].paragraph_format.space_after = Pt(6)


def setup_header_footer(doc):
    """Add the journal running header and the page-number footer."""
    sec = doc.sections[0]
    header = sec.header.paragraphs[0]
    header.text = HEADER_TEXT
    header.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    for r in header.runs:
        r.font.size = Pt(9)
        r.font.italic = True
    footer = sec.footer.paragraphs[0]
    footer.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    add_page_number(footer)


def add_title_block(doc):
    """Add the title, authors with affiliation marks and affiliation lines."""
    doc.add_paragraph(TITLE, style="Title")

    p = doc.add_paragraph()
    p.alignment = WD_ALIGN_PARAGRAPH.CENTER
    marks = ["1", "2", "1"]
    for i, (name, mark) in enumerate(zip(AUTHORS, marks)):
        p.add_run(name)
        sup = p.add_run(mark)
        sup.font.superscript = True
        if i < len(AUTHORS) - 1:
            p.add_run(", ")

    for text in (
        "¹ Departamento de Engenharia Agrícola, Universidade Federal do Sertão Central, Campus Pajeú, "
        "PE, Brasil. E-mail: francisca.sousa@ufscentral.edu.br; ana.lins@ufscentral.edu.br",
        "² Instituto de Tecnologia Rural do Cariri Oeste, PE, Brasil. E-mail: jw.bezerra@itrco.org.br",
        "Recebido em 12/03/2023; aceito em 28/06/2023",
    ):
        a = doc.add_paragraph()
        a.alignment = WD_ALIGN_PARAGRAPH.CENTER
        a.paragraph_format.line_spacing = 1.0
        run = a.add_run(text)
        run.font.size = Pt(10)


def add_resumo(doc):
    """Add the RESUMO heading, abstract text and keywords."""
    p = doc.add_paragraph()
    p.paragraph_format.space_before = Pt(12)
    p.add_run("RESUMO").bold = True
    p = doc.add_paragraph(RESUMO)
    p.alignment = WD_ALIGN_PARAGRAPH.JUSTIFY
    p.paragraph_format.line_spacing = 1.0
    p = doc.add_paragraph()
    p.paragraph_format.line_spacing = 1.0
    p.add_run("Palavras-chave: ").bold = True
    p.add_run(PALAVRAS_CHAVE)


def add_table(doc, content):
    """Add a grid table (first row bold) followed by its source line."""
    table = doc.add_table(rows=len(content), cols=len(content[0]))
    table.style = "Table Grid"
    table.alignment = WD_TABLE_ALIGNMENT.CENTER
    for r, row in enumerate(content):
        for c, value in enumerate(row):
            cell = table.cell(r, c)
            cell.text = value
            para = cell.paragraphs[0]
            para.paragraph_format.line_spacing = 1.0
            para.paragraph_format.space_after = Pt(0)
            if c > 0:
                para.alignment = WD_ALIGN_PARAGRAPH.CENTER
            for run in para.runs:
                run.font.size = Pt(10)
                run.font.bold = r == 0
    src = doc.add_paragraph("Fonte: dados da pesquisa.")
    src.runs[0].font.size = Pt(10)


def add_body(doc):
    """Render the BODY items (headings, paragraphs, references, captions, tables)."""
    for kind, content in BODY:
        if kind == "h1":
            doc.add_heading(content, level=1)
        elif kind == "h2":
            doc.add_heading(content, level=2)
        elif kind == "p":
            p = doc.add_paragraph(content)
            p.alignment = WD_ALIGN_PARAGRAPH.JUSTIFY
            p.paragraph_format.first_line_indent = Cm(1.25)
        elif kind == "ref":
            p = doc.add_paragraph(content)
            p.paragraph_format.line_spacing = 1.0
            p.paragraph_format.space_after = Pt(10)
        elif kind == "caption":
            p = doc.add_paragraph(content, style="Caption")
            p.runs[0].font.size = Pt(10)
            p.runs[0].font.color.rgb = RGBColor(0, 0, 0)
            p.runs[0].font.italic = False
        elif kind == "table":
            add_table(doc, content)
        else:
            raise ValueError(kind)


def set_core_properties(doc):
    """Set fixed document metadata so the output is reproducible."""
    cp = doc.core_properties
    cp.author = "; ".join(AUTHORS)
    cp.title = TITLE
    cp.language = "pt-BR"
    cp.keywords = PALAVRAS_CHAVE.rstrip(".")
    cp.subject = "Umidade do solo; sensores de baixo custo; semiárido"
    cp.created = datetime(2023, 3, 10, 14, 30, 0)
    cp.modified = datetime(2023, 6, 28, 9, 15, 0)
    cp.last_modified_by = AUTHORS[0]


def main():
    """Build the article and save it as article.docx next to this script."""
    doc = Document()
    setup_page_and_styles(doc)
    setup_header_footer(doc)
    add_title_block(doc)
    add_resumo(doc)
    add_body(doc)
    set_core_properties(doc)

    doc.save(HERE / "article.docx")


if __name__ == "__main__":
    main()
