"""The body of a short journal paper for the author-line fixtures (docs_*_author_lines.py), as Markdown text or as
the block pages common.build_pdf prints: what matters in those documents is the lines under the title, so the
rest (abstract, sections, references) is built here once from each document's own sentences.

All people, institutions, journals and results are fictional (see SOURCES.md).
"""

from __future__ import annotations


HEADINGS = {
    "pt": ("Resumo", "1 Introdução", "2 Métodos", "3 Resultados", "4 Conclusões", "Referências"),
    "en": ("Abstract", "1 Introduction", "2 Methods", "3 Results", "4 Conclusions", "References"),
}


def markdown(title: str, author_lines: list[str], journal: str, body: dict, language: str, after=()) -> str:
    """A paper as Markdown: the title heading, one line per author (as typed, hard-wrapped lines of one paragraph),
    any lines `after` them (a corresponding-author note), the journal's line, then the sections."""
    abstract, intro, methods, results, conclusions, refs = HEADINGS[language]
    lines = [f"# {title}", "", *author_lines, ""]
    if after:
        lines += [*after, ""]
    lines += [journal, "", f"## {abstract}", "", body["abstract"], "", f"## {intro}", ""]
    lines += [body["intro"], "", f"## {methods}", "", body["methods"], "", f"## {results}", "", body["results"]]
    lines += ["", f"## {conclusions}", "", body["conclusions"], "", f"## {refs}", ""]
    lines += [f"- {r}" for r in body["references"]]
    return "\n".join(lines) + "\n"


def pdf_pages(title: str, author_blocks: list, journal: str, body: dict, language: str) -> list:
    """A paper as two printed pages: the journal's line, the title, the author blocks (each a block of
    common.block_html), the abstract and introduction; then methods, results, conclusions and references."""
    abstract, intro, methods, results, conclusions, refs = HEADINGS[language]
    first = [
        ("block", [journal], "small"),
        ("space", 6),
        ("title", title),
        ("space", 3),
        *author_blocks,
        ("c", f"**{abstract}**", "gap"),
        ("pn", body["abstract"]),
        ("h", intro),
        ("p", body["intro"]),
    ]
    second = [
        ("h", methods),
        ("p", body["methods"]),
        ("h", results),
        ("p", body["results"]),
        ("h", conclusions),
        ("p", body["conclusions"]),
        ("h", refs),
        ("refs", body["references"]),
    ]
    return [first, second]


def must_contain(language: str) -> list[str]:
    return list(HEADINGS[language])
