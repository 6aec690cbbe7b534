"""Check references.jsonl against the article sources and the rendered PDFs.

Run:  /work/main/.venv/bin/python check_references.py
Exit status 1 if any annotated sentence, title, author or heading is missing
from the article's source (.tex/.docx/.md/.html) after whitespace
normalisation.  Differences against the PDF text layer (hyphenation, ligatures,
line breaks) are reported as warnings only.
"""

import html
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path


HERE = Path(__file__).resolve().parent
FIELDS = ("objective", "method", "data", "result", "conclusion")
KINDS = {
    "abstract",
    "introduction",
    "objectives",
    "related_work",
    "method",
    "results",
    "discussion",
    "conclusion",
    "references",
    "acknowledgements",
}


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def tex_text(path: Path) -> str:
    s = path.read_text(encoding="utf-8")
    s = re.sub(r"(?<!\\)%.*", "", s)  # comments
    s = s.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    s = s.replace("---", "—").replace("--", "–").replace("~", " ")
    s = s.replace("\\\\", " ").replace("\\,", " ")
    for _ in range(3):  # unwrap simple formatting commands
        s = re.sub(r"\\(?:textit|emph|textbf|texttt|section\*?|subsection\*?|paragraph)\{([^{}]*)\}", r"\1", s)
    return s


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    INLINE = {"a", "b", "em", "i", "small", "span", "strong", "sub", "sup"}

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        if tag not in self.INLINE:  # block tags separate text, inline tags do not
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
        if tag not in self.INLINE:
            self.parts.append(" ")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def html_text(path: Path) -> str:
    p = _Text()
    p.feed(path.read_text(encoding="utf-8"))
    return html.unescape("".join(p.parts))


def md_text(path: Path) -> str:
    s = path.read_text(encoding="utf-8")
    s = re.sub(r"\*\*([^*]+)\*\*", r"\1", s)
    s = re.sub(r"\*([^*]+)\*", r"\1", s)
    s = re.sub(r"^#+\s*", "", s, flags=re.M)
    return s


def docx_text(path: Path) -> str:
    import docx

    d = docx.Document(str(path))
    parts = [p.text for p in d.paragraphs]
    for t in d.tables:
        for row in t.rows:
            parts.extend(c.text for c in row.cells)
    cp = d.core_properties
    parts.append(cp.title or "")
    return "\n".join(parts)


def pdf_text(path: Path) -> str:
    import pypdfium2 as pdfium

    d = pdfium.PdfDocument(str(path))
    pages = [d[i].get_textpage().get_text_range() for i in range(len(d))]
    s = "\n".join(pages)
    s = s.replace("\ufffe\r\n", "").replace("\ufffe", "").replace("\u00ad", "")
    s = s.replace("-\r\n", "-")
    s = s.replace("\ufb01", "fi").replace("\ufb02", "fl").replace("\ufb00", "ff")
    s = s.replace("\ufb03", "ffi").replace("\ufb04", "ffl")
    s = s.replace("\u2019", "'")
    return s


def source_of(rec) -> Path:
    f = HERE / rec["file"]
    if f.suffix == ".pdf":
        for ext in (".tex", ".docx"):
            if f.with_suffix(ext).exists():
                return f.with_suffix(ext)
    return f


def load(path: Path) -> str:
    return {".tex": tex_text, ".html": html_text, ".md": md_text, ".docx": docx_text, ".pdf": pdf_text}[path.suffix](
        path
    )


def main() -> int:
    errors, warnings = [], []
    recs = [
        json.loads(line)
        for line in (HERE / "references.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    for rec in recs:
        src_path = source_of(rec)
        src = norm(load(src_path))
        pdf = norm(pdf_text(HERE / rec["file"])) if rec["file"].endswith(".pdf") else None
        where = f"{rec['id']} ({src_path.name})"
        if not (HERE / rec["file"]).exists():
            errors.append(f"{where}: file missing: {rec['file']}")
        checks = [("title", rec["title"])] + [("author", a) for a in rec["authors"]]
        checks += [(f, s) for f in FIELDS for s in rec[f]]
        for field in FIELDS:
            if not 2 <= len(rec[field]) <= 4:
                warnings.append(f"{where}: {field} has {len(rec[field])} sentences")
        for field, sentence in checks:
            if "\n" in sentence or sentence != norm(sentence):
                errors.append(f"{where}: {field} has line breaks/extra spaces: {sentence[:60]}")
            if norm(sentence) not in src:
                errors.append(f"{where}: {field} NOT in source: {sentence[:90]}")
            if pdf is not None and norm(sentence) not in pdf:
                warnings.append(f"{where}: {field} not verbatim in PDF text: {sentence[:70]}")
        for sec in rec["sections"]:
            if sec["kind"] not in KINDS:
                errors.append(f"{where}: unknown section kind {sec['kind']}")
            hay = pdf if pdf is not None else src
            if norm(sec["heading"]) not in hay:
                errors.append(f"{where}: heading not found: {sec['heading']}")
        if str(rec["year"]) not in src:
            errors.append(f"{where}: year {rec['year']} not in source")
        n = sum(len(rec[f]) for f in FIELDS)
        print(f"{rec['id']:14s} {rec['file']:24s} sentences={n} sections={len(rec['sections'])}")
    for w in warnings:
        print("WARN ", w)
    for e in errors:
        print("ERROR", e)
    print(f"{len(recs)} records, {len(errors)} errors, {len(warnings)} warnings")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
