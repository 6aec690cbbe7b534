#!/usr/bin/env python3
"""Build gimp_manual_pt_br.pdf from the Debian package gimp-help-pt-br.

Usage:
    python build_gimp_pdf.py HELP_DIR OUT.pdf [--keep-html PATH.html]

HELP_DIR is the unpacked pt_BR help directory, e.g.
``/usr/share/gimp/2.0/help/pt_BR`` from gimp-help-pt-br_2.10.34-2_all.deb
(``dpkg-deb -x gimp-help-pt-br_2.10.34-2_all.deb DIR``).

What it does (no network; the text and page layout are deterministic for a
given Chromium, only the PDF's creation date changes between builds):
 1. Front matter: title, copyright lines and legal notice of ``index.html``
    (its table of contents is dropped).
 2. The pages from ``preface.html`` to ``gimp-using-rectangular.html`` in the
    manual's own reading order (following each page's ``<link rel="next">``):
    Preface, Part I "Primeiros passos" (chapters 1-4) and chapters 5-7 of
    Part II (getting images into / out of GIMP, "Pintando com o GIMP":
    selections, quick mask, paths, brushes, gradients, patterns, palettes).
 3. Appendix E (the GNU FDL, ``legal.html`` .. ``gfdl-addendum.html``),
    because the manual is distributed under the GFDL 1.2 or later.
 For every page only the main content is kept: navigation header/footer,
 per-page tables of contents, "report a bug" links and all images (with the
 figure containers they leave empty) are removed, and links become plain
 text.  A small print stylesheet (A4, 18 mm margins, DejaVu Sans 10pt, no
 ligatures, table borders) is added and the joined HTML is printed with:

    chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
        --print-to-pdf=OUT.pdf file:///ABS/PATH.html
"""

import argparse
import os
import subprocess
import sys
import tempfile

import lxml.html


SECTIONS = [  # (first page, last page) followed through rel="next" links
    ("preface.html", "gimp-using-rectangular.html"),
    ("legal.html", "gfdl-addendum.html"),
]

CSS = """
@page { size: A4; margin: 18mm; }
html, body { font-family: "DejaVu Sans", sans-serif; font-size: 10pt;
  font-variant-ligatures: none; line-height: 1.25; hyphens: manual; }
h1 { font-size: 17pt; } h2 { font-size: 14pt; } h3 { font-size: 12pt; }
h4, h5, h6 { font-size: 10.5pt; }
h1, h2, h3, h4, h5, h6 { page-break-after: avoid; }
.part, .chapter, .appendix, .preface, .frontmatter { page-break-before: always; }
table { border-collapse: collapse; margin: 4pt 0; }
th, td { border: 1px solid #777; padding: 2pt 4pt; vertical-align: top; text-align: left; }
pre, code, tt { font-family: "DejaVu Sans Mono", monospace; font-size: 9pt; }
pre { white-space: pre-wrap; }
.figure p.title, .table p.title { margin: 3pt 0; }
.note, .tip, .caution, .warning, .important { margin: 6pt 0 !important;
  border-left: 3px solid #999; padding-left: 6pt; }
.note td, .note th, .tip td, .tip th, .caution td, .caution th,
.warning td, .warning th, .important td, .important th { border: none; padding: 1pt 2pt; }
"""


def page_order(help_dir, first, last):
    """Return page file names from first to last following rel=next links."""
    pages, cur = [], first
    while True:
        pages.append(cur)
        if cur == last:
            return pages
        doc = lxml.html.parse(os.path.join(help_dir, cur)).getroot()
        nxt = doc.xpath('//head/link[@rel="next"]/@href')
        if not nxt:
            sys.exit(f"no next link after {cur}")
        cur = nxt[0]


def clean(body):
    """Strip navigation, tables of contents, images and links from a body."""
    for xp in (
        './/div[contains(@class,"navheader")]',
        './/div[contains(@class,"navfooter")]',
        './/div[@class="toc"]',
        './/a[@class="reportbug"]',
        ".//img",
        ".//script",
        ".//style",
    ):
        for el in body.xpath(xp):
            el.drop_tree()
    # containers left empty once their images are gone
    for el in body.xpath('.//br[@class="figure-break"]'):
        el.drop_tree()
    for cls in ("mediaobject", "inlinemediaobject", "figure-contents"):
        for el in body.xpath(f'.//*[contains(concat(" ",@class," ")," {cls} ")]'):
            if not el.text_content().strip():
                el.drop_tree()
    for a in body.xpath(".//a"):
        for attr in ("href", "accesskey", "title"):
            a.attrib.pop(attr, None)
    return body


def build_html(help_dir):
    parts = []
    # front matter: title page of index.html without its table of contents
    index = lxml.html.parse(os.path.join(help_dir, "index.html")).getroot()
    title = clean(index.xpath('//div[contains(@class,"book")]/div[@class="titlepage"]')[0])
    parts.append(lxml.html.tostring(title, encoding="unicode"))
    for first, last in SECTIONS:
        for name in page_order(help_dir, first, last):
            body = clean(lxml.html.parse(os.path.join(help_dir, name)).getroot().body)
            inner = "".join(lxml.html.tostring(c, encoding="unicode") for c in body)
            parts.append(f"<!-- {name} -->\n{inner}")
    return (
        '<!DOCTYPE html>\n<html lang="pt-BR"><head><meta charset="utf-8"/>'
        "<title>GIMP - Manual do usuário (extrato)</title>"
        f"<style>{CSS}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("help_dir")
    ap.add_argument("out_pdf")
    ap.add_argument("--keep-html", help="also write the joined HTML here")
    a = ap.parse_args()
    html = build_html(a.help_dir)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.abspath(a.keep_html or os.path.join(tmp, "gimp_manual_pt_br.html"))
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-pdf-header-footer",
                "--print-to-pdf=" + os.path.abspath(a.out_pdf),
                "file://" + path,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    print("wrote", a.out_pdf)


if __name__ == "__main__":
    main()
