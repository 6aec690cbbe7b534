"""A scientific article read as one: its title, authors and year, and its sections by role, references kept apart.

    from rqrag.ingest.article import read_article
    article = read_article(data, "pdf", "paper.pdf", cleaned_pages)   # None: the document is not an article
    article.title, article.authors, article.year
    article.section_text("method")          # the method section(s), as (page, paragraph) pairs

Headings are found by what the file's layout says (`rqrag.ingest.article_layout`: Markdown `#`, HTML `<h2>`, DOCX
`Heading 1`, a PDF's larger or bold lines) and by what they are called: a short line named like a section
("3 Metodologia", "CONSIDERAÇÕES FINAIS", "Materials and Methods"), numbered or not, in Portuguese or English.
Each heading's role comes from its name (`SECTION_ROLES`); a heading with a name of its own ("2.1 Área de estudo")
is a subsection and takes the role of the section it sits in. A document is an article when it has an abstract, or
at least two of introduction, method, results and conclusion.

The text comes from the ingestion's cleaned pages (headers, page numbers and hyphenation already dealt with), so a
section cites the same pages an answer does. References are kept out of `sections`: a review never quotes them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from rqrag.ingest.article_layout import MAX_HEADING_WORDS, LayoutHints, heading_key, layout_hints
from rqrag.ingest.front_matter import read_front_matter
from rqrag.ingest.section_names import section_role
from rqrag.text.text_quality import guess_language


# Captions and table rows are set bold or large too, and are never headings.
_CAPTION = re.compile(r"^(tabela|table|figura|figure|fig\.|quadro|gr[aá]fico|fonte|source|nota|note)\b", re.I)
_CORE = ("introduction", "method", "results", "conclusion")


@dataclass
class Section:
    role: str  # what the section is for: one of SECTION_ROLES' roles, or "other" (front matter, named otherwise)
    heading: str
    level: int
    paragraphs: list[tuple[int, str]] = field(default_factory=list)  # (page, text)
    language: str | None = None  # its own ("Resumo" then "Abstract": the second is English)

    @property
    def pages(self) -> list[int]:
        return sorted({page for page, _ in self.paragraphs})


@dataclass
class Article:
    title: str
    authors: list[str]
    year: int | None
    sections: list[Section]  # in reading order, the references left out
    references: int = 0  # how many entries the reference list holds

    @property
    def language(self) -> str | None:
        """The language most of its text is in."""
        sizes: dict[str, int] = {}
        for s in self.sections:
            if s.language:
                sizes[s.language] = sizes.get(s.language, 0) + sum(len(t) for _, t in s.paragraphs)
        return max(sizes, key=sizes.get) if sizes else None

    def roles(self) -> list[str]:
        return [s.role for s in self.sections]

    def section_text(self, *roles: str) -> list[tuple[int, str]]:
        """Every (page, paragraph) of the sections in these roles, in reading order."""
        return [p for s in self.sections if s.role in roles for p in s.paragraphs]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Article:
        sections = [
            Section(stored_role(s), s["heading"], s["level"], [tuple(p) for p in s["paragraphs"]], s.get("language"))
            for s in data["sections"]
        ]
        return cls(data["title"], list(data["authors"]), data.get("year"), sections, data.get("references", 0))


def stored_role(section: dict) -> str:
    """A stored section's role. Libraries written before the key was renamed store it as `kind`: read either."""
    return section["role"] if "role" in section else section["kind"]


def read_article(data: bytes, file_type: str, name: str, pages: Sequence) -> Article | None:
    """The article in a file (module docstring), or None when it does not read as one. `pages`: its cleaned pages
    (`rqrag.ingest.clean.clean_pages`)."""
    if not _names_sections(pages):
        return None  # a manual or a letter: its layout is not read at all (a PDF's fonts cost a second a 100 pages)
    hints = layout_hints(data, file_type)
    blocks = _blocks(pages, hints)
    sections: list[Section] = []
    current = Section("other", "", 0)
    named_yet = False  # front matter (authors set large, a date in bold) has no headings
    for page, text, heading_level in blocks:
        named_yet = named_yet or (heading_level is not None and section_role(text) is not None)
        if heading_level is None or not named_yet:
            current.paragraphs.append((page, text))
            continue
        named = section_role(text)
        if named == "keywords" and sections:
            current.paragraphs.append((page, text))  # "Palavras-chave" closes the abstract it belongs to
            continue
        parent = next(
            (s for s in reversed([*sections, current]) if s.level < heading_level and s.role != "other"), None
        )
        numbered_under = bool(re.match(r"^\s*\d+\.\d+", _shown_heading(text)))
        if parent is not None and heading_level > 1 and (named is None or numbered_under and named != "objectives"):
            # "2.1 Área de estudo" and "3.3 Avaliação" sit in the method; "1.1 Objetivos" is a section of its own,
            # and so is an unnumbered "REFERÊNCIAS" set smaller than the sections before it
            named = parent.role
        sections.append(current)
        current = Section(named or "other", _shown_heading(text), heading_level)
    sections.append(current)
    sections = [s for s in sections if s.paragraphs or s.heading]
    roles = {s.role for s in sections}
    if "abstract" not in roles and len(roles & set(_CORE)) < 2:
        return None
    _inline_abstract(sections)
    for s in sections:
        s.language = guess_language(" ".join(t for _, t in s.paragraphs[:3]))
    references = sum(len(s.paragraphs) for s in sections if s.role == "references")
    # Everything after the references is an appendix or back matter, never evidence either.
    kept = []
    for s in sections:
        if s.role == "references":
            break
        kept.append(s)
    front = read_front_matter(pages, hints, name)
    title, authors, year = front.title, front.authors, front.year
    return Article(title, authors, year, [s for s in kept if s.role not in ("keywords",)], references)


# Paragraphs looked at for section names: an article names them long before this (the 104-page manual has ~2,000
# paragraphs); a file of a million one-word lines took minutes here before the cap.
MAX_NAMING_PARAGRAPHS = 20_000


def _names_sections(pages: Sequence) -> bool:
    """Whether the text names an abstract or two of the core sections anywhere (as a line's start or end)."""
    named: set[str] = set()
    paragraphs = 0
    for page in pages:
        for paragraph in page.text.split("\n\n"):
            paragraphs += 1
            if paragraphs > MAX_NAMING_PARAGRAPHS:
                return False
            words = paragraph.split()
            for n in range(1, 5):
                for piece in (" ".join(words[:n]), " ".join(words[-n:])):
                    role = section_role(piece) if piece else None
                    if role:
                        named.add(role)
        if "abstract" in named or len(named & set(_CORE)) >= 2:
            return True
    return False


def _blocks(pages: Sequence, hints: LayoutHints) -> list[tuple[int, str, int | None]]:
    """(page, text, heading level or None) for every paragraph of the cleaned pages; a heading joined to the end of
    the paragraph before it (a PDF line printed right after a full line) is cut off it."""
    out: list[tuple[int, str, int | None]] = []
    for page in pages:
        for paragraph in page.text.split("\n\n"):
            text = " ".join(paragraph.split())
            if not text:
                continue
            level = _heading_level(text, hints)
            opening = _opening_heading(text, hints) if level is None else None
            if opening:  # "3.1 Corpus e perguntas O corpus reúne…": a heading the cleaner joined to its text
                out.append((page.number, opening, _heading_level(opening, hints)))
                text = text[len(opening) :].strip()
            closing = _closing_heading(text, hints) if level is None else None
            if closing:  # "…aceito em 28/06/2023 RESUMO": a heading joined to the end of the line before it
                out.append((page.number, text[: -len(closing)].strip(), None))
                text, level = closing, _heading_level(closing, hints)
            out.append((page.number, text, level))
    return out


def _heading_level(text: str, hints: LayoutHints) -> int | None:
    """A paragraph's level as a heading (1 = top), or None when it is text."""
    if len(text.split()) > MAX_HEADING_WORDS or _CAPTION.match(text):
        return None
    named = section_role(text)
    key = heading_key(text)
    if text.endswith((",", ";")) or (text.endswith(".") and not named and key not in hints.headings):
        return None  # a sentence, not a heading ("4. CONCLUSÕES." still names one)
    markdown = re.match(r"^(#{1,6})\s", text)
    if markdown:
        return len(markdown.group(1))
    numbered = re.match(r"^\s*(\d+(?:\.\d+)*)\.?\s", text)
    depth = numbered.group(1).count(".") + 1 if numbered else None
    if key in hints.headings:
        return depth or hints.headings[key]  # "3.2 Sistemas" is a subsection whatever its font
    if named:
        return depth or 1
    return None


def _opening_heading(text: str, hints: LayoutHints) -> str | None:
    """The heading the layout names that `text` opens on, followed by more text; None when it opens on none."""
    words = text.split()
    for n in range(min(MAX_HEADING_WORDS, len(words) - 1), 1, -1):
        head = " ".join(words[:n])
        if heading_key(head) in hints.headings:
            return head
    return None


def _closing_heading(text: str, hints: LayoutHints) -> str | None:
    """The heading `text` ends on, after other text: one the layout names, or a section's name in capitals or
    after a sentence's end; None when it ends on none."""
    words = text.split()
    for n in range(min(6, len(words) - 1), 0, -1):
        tail = " ".join(words[-n:])
        if not (tail[:1].isupper() or tail[:1].isdigit()) or not section_role(tail):
            continue
        before = " ".join(words[:-n])
        if heading_key(tail) in hints.headings or tail.isupper() or before.endswith((".", "!", "?", ":")):
            return tail
    return None


def _shown_heading(text: str) -> str:
    return re.sub(r"^#+\s*", "", text).strip()


def _inline_abstract(sections: list[Section]) -> None:
    """An abstract given as a paragraph that opens on its label ("Resumo: Este trabalho…", "**Abstract.** We…")
    becomes a section of its own, cut out of the front matter."""
    if any(s.role == "abstract" for s in sections) or not sections or sections[0].role != "other":
        return
    front = sections[0]
    for index, (page, text) in enumerate(front.paragraphs):
        label = re.match(r"^[*_]*(resumo|abstract)[*_]*\s*[.:—–-]\s*[*_]*\s*(.+)$", text, re.I) or re.match(
            r"^(RESUMO|ABSTRACT)\s+([A-ZÁÉÍÓÚÂÊÔÃÕÇ].+)$", text
        )
        if label:
            abstract = Section("abstract", label.group(1).capitalize(), 1, [(page, label.group(2))])
            abstract.paragraphs += front.paragraphs[index + 1 :]
            front.paragraphs = front.paragraphs[:index]
            sections.insert(1, abstract)
            return
