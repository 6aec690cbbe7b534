"""Sanity checks for the HELD-OUT articles and references.jsonl.

* every PDF has 3-6 pages and a text layer;
* every annotated sentence occurs verbatim (after whitespace normalisation) in the source
  (article.tex for the LaTeX article, article.docx for the Word articles) and, loosely
  (hyphenation/line breaks ignored), in the PDF text layer;
* each sentence lies in a section of an accepted kind;
* title, authors, year and section headings are present;
* docx files use the Title / Heading 1 / Heading 2 styles and carry author + created date.

Run:  /work/main/.venv/bin/python check_references.py   (exit code 0 = all good)
"""

import json
import re
import sys
import unicodedata
from pathlib import Path

import docx
import pypdfium2 as pdfium


HERE = Path(__file__).resolve().parent
ALLOWED = {
    "objective": {"abstract", "introduction", "objectives"},
    "method": {"method"},
    "data": {"method"},
    "result": {"results"},
    "conclusion": {"conclusion"},
}
problems = []


def ws(s):
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", s)).strip()


def loose(s):
    s = unicodedata.normalize("NFKC", s).replace("\ufffe", "").replace("\u00ad", "").replace("\x02", "")
    s = s.replace("\u2013", "-").replace("\u2014", "-")
    return re.sub(r"[\s\-]+", "", s).lower()


def pdf_text(path):
    doc = pdfium.PdfDocument(str(path))
    n = len(doc)
    text = "\n".join(doc[i].get_textpage().get_text_range() for i in range(n))
    return n, text


def detex(s):
    s = re.sub(r"(?<!\\)%.*", "", s)
    s = re.sub(r"\\textdegree\s*", "°", s)
    s = s.replace(r"\%", "%").replace("~", " ").replace("---", "—").replace("--", "–")
    s = s.replace("{,}", ",")
    s = re.sub(r"\$([^$]*)\$", r"\1", s)
    for _ in range(3):
        s = re.sub(r"\\(?:textit|textbf|textsuperscript|emph)\{([^{}]*)\}", r"\1", s)
    return s


def latex_sections(tex):
    """Return list of (section heading, text) of the LaTeX body."""
    body = tex[tex.index(r"\begin{document}") :]
    body = body.replace(r"\noindent{\scshape Resumo}", r"\secao{RESUMO}")
    body = body.replace(r"\noindent{\scshape Abstract}", r"\secao{ABSTRACT}")
    parts = re.split(r"\\secao\{([^}]*)\}", body)
    out = [("(front matter)", detex(parts[0]))]
    for i in range(1, len(parts), 2):
        out.append((parts[i], detex(parts[i + 1])))
    return out


def docx_sections(path):
    d = docx.Document(str(path))
    out = [["(front matter)", []]]
    for p in d.paragraphs:
        t = p.text
        if p.style.name == "Heading 1":
            out.append([t, []])
        elif t.startswith("Abstract —"):
            out.append(["Abstract", [t]])
        elif t.startswith("Acknowledgements."):
            out.append(["Acknowledgements", [t]])
        else:
            out[-1][1].append(t)
    for tbl in d.tables:
        out[0][1].extend(c.text for r in tbl.rows for c in r.cells)  # tables: only for presence checks
    return d, [(h, "\n".join(ps)) for h, ps in out]


def check(rec):
    rid = rec["id"]
    path = HERE / rec["file"]
    if not path.exists():
        problems.append(f"{rid}: missing {path}")
        return
    art_dir = path.parent
    if rec["layout"] == "pdf-latex":
        sections = latex_sections((art_dir / "article.tex").read_text(encoding="utf-8"))
    else:
        d, sections = docx_sections(art_dir / "article.docx")
        styles = {p.style.name for p in d.paragraphs}
        for st in ("Title", "Heading 1", "Heading 2"):
            if st not in styles:
                problems.append(f"{rid}: style {st} not used")
        cp = d.core_properties
        if not cp.author or cp.created is None or cp.created.year != rec["year"]:
            problems.append(f"{rid}: core properties author/created wrong")
        titles = [p.text for p in d.paragraphs if p.style.name == "Title"]
        if titles != [rec["title"]]:
            problems.append(f"{rid}: Title paragraph != title")
    full = ws("\n".join(t for _, t in sections))
    kind_of = {s["heading"]: s["kind"] for s in rec["sections"]}

    if rec["layout"].startswith("pdf"):
        n, ptxt = pdf_text(path)
        if not 3 <= n <= 6:
            problems.append(f"{rid}: {n} pages")
        if len(ptxt.strip()) < 3000:
            problems.append(f"{rid}: text layer too short ({len(ptxt)})")
        lp = loose(ptxt)
    else:
        lp = None

    for item in [rec["title"], *rec["authors"], str(rec["year"])]:
        if ws(item) not in full:
            problems.append(f"{rid}: not in source: {item[:40]}")
        if lp is not None and loose(item) not in lp:
            problems.append(f"{rid}: not in PDF: {item[:40]}")
    headings = [h for h, _ in sections]
    for s in rec["sections"]:
        if s["heading"] not in headings:
            problems.append(f"{rid}: heading missing in source: {s['heading']}")
        if lp is not None and loose(s["heading"]) not in lp:
            problems.append(f"{rid}: heading missing in PDF: {s['heading']}")
    for h in headings[1:]:
        if h not in kind_of:
            problems.append(f"{rid}: source heading not annotated: {h}")

    n_sent = 0
    for field, kinds in ALLOWED.items():
        sents = rec[field]
        if not 2 <= len(sents) <= 4:
            problems.append(f"{rid}: {field} has {len(sents)} sentences")
        for sent in sents:
            n_sent += 1
            if "\n" in sent or sent != sent.strip():
                problems.append(f"{rid}: {field} sentence has line break/outer space")
            hits = [h for h, t in sections if ws(sent) in ws(t)]
            if not hits:
                problems.append(f"{rid}: {field} sentence not found in source: {sent[:50]}")
                continue
            if len(hits) > 1 or kind_of.get(hits[0]) not in kinds:
                problems.append(f"{rid}: {field} sentence in section {hits} (kind {kind_of.get(hits[0])})")
            if full.count(ws(sent)) != 1:
                problems.append(f"{rid}: {field} sentence occurs {full.count(ws(sent))} times")
            if lp is not None and loose(sent) not in lp:
                problems.append(f"{rid}: {field} sentence not found in PDF text: {sent[:50]}")
    print(f"{rid:12s} {rec['layout']:9s} sentences checked: {n_sent}")


def main():
    recs = [json.loads(line) for line in (HERE / "references.jsonl").read_text(encoding="utf-8").splitlines() if line]
    for rec in recs:
        check(rec)
    if problems:
        print("PROBLEMS:")
        for p in problems:
            print(" -", p)
        sys.exit(1)
    print(f"OK: {len(recs)} records, all checks passed")


if __name__ == "__main__":
    main()
