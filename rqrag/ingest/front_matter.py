"""An article's or a thesis's title, authors and year, read from its first pages as a librarian would.

    front = read_front_matter(pages, hints, "tcc.pdf")    # cleaned pages; rqrag.ingest.article_layout hints
    front.title, front.authors, front.year

Where each comes from, the most reliable first (each field on its own):

1. **a YAML block** (Markdown): the author's own declaration; a web page's `citation_*` tags, the publisher's;
2. **the catalogue card** (ficha catalográfica, CIP): "Título : subtítulo / Nome do Autor. – Cidade, 2022." — a
   librarian's record of exactly these three; the title is then shown as the title page prints it;
3. **the title page** (folha de rosto): the author and the title stand right above the paragraph that says what the
   work is ("Trabalho de Conclusão de Curso apresentado…", "Dissertação apresentada…", "A thesis submitted…");
   on a cover (capa) the same sit between the institution's lines and the city and year;
4. **the first page of a paper**: the title the layout sets largest (a DOCX's Title style, a Markdown `#`), the names
   under it (affiliation marks dropped, a list of names wrapped over lines joined); the year from an arXiv stamp or
   the journal's own line ("v. 14, n. 2, … 2023", "Vol. 9, No. 4 (2022)"), not from a received date;
5. **the file's metadata** (a PDF's Info, a DOCX's core properties), only where the text confirms it: a title the
   first pages print, an author they name; "Microsoft Word - tcc_v3.docx" and "Windows User" are never shown.

Never a title: an institution's line, a section's name, a table's header row, a contents line. Advisors and
examiners are never authors (they follow "Orientador:" or stand in the examining board, not above the title).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rqrag.ingest.article_layout import YEAR, LayoutHints
from rqrag.ingest.section_names import section_role
from rqrag.text.text_quality import fold


PAGES_READ = 4  # covers, title page, catalogue card and approval page come first
_INSTITUTION = re.compile(
    r"^(universidade|faculdade|instituto|centro|departamento|curso|programa|escola|campus|coordenacao|"
    r"university|college|school|faculty|department|institute|ministerio|secretaria)\b"
)
_NATURE = re.compile(
    r"^(trabalho de conclusao|monografia|dissertacao|tese|relatorio|projeto de pesquisa|a thesis|thesis|"
    r"a dissertation|dissertation)\b.{0,200}\b(apresentad|submetid|submitted|presented|requisito|requirement)"
)
# "2022", "RECIFE, 2022", "Rio Verde – 2020": a cover's or title page's last lines (a title's "entre 2015 e 2020" is not)
_CITY_YEAR = re.compile(
    r"(?:[A-ZÀ-Ý][\w.'-]*(?:\s+(?:de|do|da|dos|das|[A-ZÀ-Ý][\w.'-]*))*\s*[,–—-]?\s*)?(?:19|20)\d\d\.?"
)
_ADVISOR = re.compile(r"^(orientador|orientadora|coorientador|coorientadora|co-orientador|advisor|supervisor)\b")
_CARD = re.compile(r"catalogacao|ficha catalografica|dados internacionais|\bcdd\b|\bcdu\b|\bcip\b")
_JOURNAL_LINE = re.compile(r"\b(v\.|vol\.|n\.|no\.|issn|revista|journal|proceedings|anais|pp\.|p\.)\s*\d*", re.I)
_ARXIV = re.compile(r"arxiv:\s*\d{4}\.\d{4,5}(?:v\d+)?\s*\[[\w.-]+\]\s*(?:\d{1,2}\s+\w+\s+)?((?:19|20)\d\d)", re.I)
_JUNK_META = re.compile(r"microsoft word|\.docx?\b|\.pdf\b|\.tex\b|untitled|sem titulo|modelo|template|^user$|"
                        r"usuario|windows user|^admin", re.I)  # fmt: skip
_PARTICLES = {"da", "de", "do", "das", "dos", "e", "di", "du", "van", "von", "der", "den", "del", "la", "le", "y"}
# a capitalised word, an initial, or an elided particle before one ("d'Ávila", "D'Ângelo")
_NAME_WORD = re.compile(r"^(?:(?:[dl]['’])?[A-ZÀ-Ý][\w'’-]*\.?|[A-Z]\.)$")
_MARKS = re.compile(r"[\d*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+(?:,[\d*†‡§]+)*")
_AFFILIATION = re.compile(r"universi|institut|departamento|department|faculdade|faculty|escola|school|laborat|"
                          r"centro|center|centre|@|programa de|campus|e-?mail|correspond", re.I)  # fmt: skip


@dataclass
class FrontMatter:
    title: str
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    sources: dict[str, str] = field(default_factory=dict)  # field -> where it was read (for the record)


def read_front_matter(pages: Sequence, hints: LayoutHints, name: str) -> FrontMatter:
    """The front matter of a document (module docstring); `pages`: its cleaned pages."""
    blocks = [(p.number, t) for p in pages[:PAGES_READ] for t in p.text.split("\n\n") if _plain(t)]
    paragraphs = [(number, _plain(t)) for number, t in blocks]
    text = fold(" ".join(t for _, t in paragraphs))
    candidates: list[tuple[str, str | None, list[str], int | None]] = []  # (source, title, authors, year)
    if hints.declared:
        candidates.append(("yaml", hints.meta_title, hints.meta_authors, hints.meta_year))
    if hints.authors:  # a web page's citation_* tags: what the publisher declares for indexers
        candidates.append(("citation tags", hints.title, hints.authors, hints.year))
    candidates.append(("catalogue card", *_catalogue_card(paragraphs)))
    candidates.append(("title page", *_title_page(paragraphs)))
    first_title = _layout_title(hints, paragraphs)
    front = hints.front or _under(blocks, first_title)
    candidates.append(("first page", first_title, _authors(front, first_title or ""), _paper_year(hints, paragraphs)))
    candidates.append(("metadata", *_confirmed_metadata(hints, text)))
    found = FrontMatter(name)
    for source, title, authors, year in candidates:
        if title and "title" not in found.sources:
            found.title, found.sources["title"] = _as_printed(title, paragraphs), source
        if authors and "authors" not in found.sources:
            found.authors, found.sources["authors"] = [_name_case(a) for a in authors], source
        if year and "year" not in found.sources:
            found.year, found.sources["year"] = year, source
    if "year" not in found.sources:
        found.year = _first_year(hints.masthead + hints.front + [t for _, t in paragraphs[:12]])
    return found


def _plain(text: str) -> str:
    return " ".join(re.sub(r"^\s*(?:[#>]+\s*)+|[*_`]+", " ", text).split()).strip()


def _catalogue_card(paragraphs) -> tuple[str | None, list[str], int | None]:
    """(title, authors, year) of a catalogue card's main entry: "Title : subtitle / Author ; advisor. – City, 2022"."""
    for index, (page, text) in enumerate(paragraphs):
        if not _CARD.search(fold(" ".join(t for p, t in paragraphs if p == page))):
            continue
        before_page, before = paragraphs[index - 1] if index else (None, "")
        if before_page == page and before.rstrip().endswith(":"):  # the title broken after its colon
            text = f"{before} {text}"
        # "/ Author. – City, 2022." or, with no place, "/ Author. - 2023."
        entry = re.search(r"(?P<title>[^/]{8,400}?)\s+/\s+(?P<who>[^/]{3,300}?)\.?\s+[–—-]+\s+(?:[^,\d]{2,60},?\s+)?"
                          r"(?:\[?\w*\]?\s*)?(?P<year>(?:19|20)\d\d)", text)  # fmt: skip
        if not entry:
            continue
        title = re.sub(r"\s*\[[^\]]{2,40}\]", "", entry.group("title"))  # "[recurso eletrônico]": the medium
        # a card's heading (Cutter number, "Surname, Given." and maybe a birth year) may share the paragraph
        title = re.sub(
            r"^.*?\b[A-Z]\d{2,4}[a-z]{0,2}\s+[^.]+?(?:,\s*\d{4}-\.?|\.)\s+(?:\d{4}-\.?\s*)?", "", title
        ).strip()
        title = re.sub(r"^[A-ZÀ-Ý][\w'-]+(?: [\w'-]+)?, [^.]{2,60}\.\s+(?:\d{4}-\.?\s*)?", "", title).strip()
        who = re.split(r";|\[|\borientad|\bcoorientad|\borganiza", entry.group("who"), flags=re.I)[0]
        authors = [a.strip(" .") for a in re.split(r",\s*|\s+e\s+|\s+and\s+", who) if a.strip(" .")]
        return re.sub(r"\s+:\s+", ": ", title), authors, int(entry.group("year"))
    return None, [], None


def _title_page(paragraphs) -> tuple[str | None, list[str], int | None]:
    """(title, [author], year) of a thesis's title page: the block right above the paragraph naming what the work
    is; failing that, a cover's block between the institution's lines and the city and year."""
    for index, (page, _text) in enumerate(paragraphs):
        window = fold(" ".join(t for _, t in paragraphs[index : index + 4]))
        if not _NATURE.match(window):
            continue
        block = []
        for earlier_page, earlier in reversed(paragraphs[:index]):
            if earlier_page != page or _ends_block(earlier):
                break
            block.insert(0, earlier)
        found = _author_and_title(block)
        if found:
            after = [t for p, t in paragraphs[index:] if p == page]
            return (*found, _first_year([t for t in after if re.fullmatch(r"[^\d]{0,40}\d{4}", t)]))
    cover = [t for p, t in paragraphs if p == paragraphs[0][0]] if paragraphs else []
    if cover and _INSTITUTION.match(fold(cover[0])):
        block = [t for t in cover if not _INSTITUTION.match(fold(t))]
        ending = next((i for i, t in enumerate(block) if _ends_block(t)), len(block))
        found = _author_and_title(block[:ending])
        if found:
            return (*found, _first_year(block[ending:]))
    return None, [], None


def _ends_block(text: str) -> bool:
    """A line that closes a cover's or title page's block: an institution, a year, a city and year, a rule."""
    folded = fold(text)
    return bool(
        _INSTITUTION.match(folded)
        or _CITY_YEAR.fullmatch(text.strip())
        or set(text.strip()) <= set("-_=*")
        or _ADVISOR.match(folded)
    )


def _author_and_title(block: list[str]) -> tuple[str, list[str]] | None:
    """(title, [author]) of a block opening on the author's name and followed by the title's lines (ABNT), or the
    title's lines followed by the name."""
    if len(block) < 2:
        return None
    if _is_name(block[0]):
        title, author = " ".join(block[1:]), block[0]
    elif _is_name(block[-1]):
        title, author = " ".join(block[:-1]), block[-1]
    else:
        return None
    if not 2 <= len(title.split()) <= 60:
        return None
    return title, [author]


def _is_name(text: str) -> bool:
    words = _MARKS.sub(" ", text).replace(",", " ").split()
    capitals = [w for w in words if w.lower() not in _PARTICLES]
    return (2 <= len(words) <= 7 and len(capitals) >= 2 and all(_NAME_WORD.match(w) for w in capitals)
            and not _AFFILIATION.search(text) and not YEAR.search(text))  # fmt: skip


def _layout_title(hints: LayoutHints, paragraphs) -> str | None:
    """The title the layout sets apart, unless it is an institution's line or a section's name; else the first
    line of page 1 that reads like a title."""
    candidates = [hints.title] if hints.title else []
    candidates += [t for p, t in paragraphs[:12] if p == paragraphs[0][0]]
    for text in candidates:
        folded = fold(text)
        if (3 <= len(text.split()) <= 40 and not _INSTITUTION.match(folded) and not section_role(text)
                and "@" not in text and not _ADVISOR.match(folded) and not _JOURNAL_LINE.search(text)
                and not _is_name(text)
                and not re.search(r"\b(doi|arxiv|preprint|artigo original|original research|research article)\b",
                                  folded)):  # fmt: skip
            return text
    return None


def _under(blocks, title: str | None) -> list[str]:
    """The lines after the title on page 1 (where the names are), for files without layout lines: each paragraph's
    own lines, since a Markdown paper may type its authors one per line in one paragraph."""
    if not title:
        return []
    texts = [t for _, t in blocks[:20]]
    at = next((i for i, t in enumerate(texts) if fold(title) in fold(_plain(t))), None)
    if at is None:
        return []
    return [_plain(line) for t in texts[at + 1 : at + 12] for line in t.split("\n") if _plain(line)][:15]


# What may follow a name on its own line: an affiliation in brackets or parentheses, an e-mail (bare or in angle
# brackets), an ORCID (its word, its URL or its number), after a dash, a bar or a middle dot
_AFTER_NAME = re.compile(r"\s*(?:[\[(<{]|\s[—–|·•]\s|\S+@\S+|\borcid\b|https?://|\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.I)


def _name_before(text: str) -> tuple[str, int] | None:
    """A line that is a name and then its affiliation or contact: the name and how many brackets stay open at the
    line's end (an affiliation wrapped onto the next line); None for any other line."""
    cut = _AFTER_NAME.search(text)
    if cut is None or cut.start() == 0:
        return None
    head = text[: cut.start()].strip(" ,;:-–—")
    if not _is_name(head):
        return None
    tail = text[cut.start() :]
    return head, _open_brackets(tail)


def _open_brackets(text: str) -> int:
    """Brackets and parentheses `text` opens and does not close (negative: closes ones opened before it)."""
    return text.count("(") + text.count("[") - text.count(")") - text.count("]")


def _authors(lines: Sequence[str], title: str) -> list[str]:
    """The names under a title: the first run of lines made of names (a translated title or an article-type label
    before them skipped), joined, split at commas, "and"/"e", "&" and affiliation marks."""
    run: list[str] = []
    open_brackets = 0
    for line in lines[:15]:
        text = _plain(line)
        if open_brackets > 0:  # the rest of an affiliation the line before opened
            open_brackets += _open_brackets(text)
            continue
        if not text or fold(text) in fold(title):
            continue
        if _ADVISOR.match(fold(text)):
            break  # advisors are never authors, nor is anything after them
        named = _name_before(text)
        if named:  # one author a line, what follows the name on it dropped
            text, open_brackets = named
            run.append(text + ",")
            continue
        rest = _MARKS.sub("", text, count=1).strip() if _MARKS.match(text) else text
        if run and _AFTER_NAME.match(rest):  # the last name's affiliation, e-mail or ORCID on a line of its own
            open_brackets = _open_brackets(rest)
            run[-1] = run[-1].rstrip(",") + ","  # which ends that name
            continue
        marks_only = not re.sub(r"[\s,*†‡§\d]+", "", text)
        if marks_only and run:
            run.append(text)
            continue
        parts = [p for p in re.split(r",|;|\s+and\s+|\s+e\s+|&|\s[\d*†‡§]+(?:,\d+)*\s", f" {text} ")
                 if re.sub(r"[\s\d*†‡§]+", "", p)]  # a mark after a comma ("Lins1,2") is not a part  # fmt: skip
        names = all(_is_name(p) or (run and len(p.split()) <= 3 and _is_name(f"A {p}")) for p in parts)
        if names and parts:
            run.append(text)
        elif run:
            break
    joined = _MARKS.sub(",", " ".join(run))
    names = []
    for part in re.split(r",|;|\s+and\s+|\s+e\s+|&", joined):
        part = " ".join(part.split())
        if _is_name(part):
            names.append(part)
    return names


def _paper_year(hints: LayoutHints, paragraphs) -> int | None:
    """A paper's year: an arXiv stamp's, else the journal's line (above the title, or the first lines)."""
    page_one = [t for p, t in paragraphs if p == (paragraphs[0][0] if paragraphs else 1)]
    for text in [*page_one, *hints.masthead]:
        stamp = _ARXIV.search(text)
        if stamp:
            return int(stamp.group(1))
    lines = hints.masthead + page_one[:4]
    return _first_year([t for t in lines if _JOURNAL_LINE.search(t) and not re.search(r"receb|received", t, re.I)])


def _confirmed_metadata(hints: LayoutHints, text: str) -> tuple[str | None, list[str], None]:
    """The file's own title and authors where the first pages print them and they are not a tool's."""
    title = hints.meta_title
    if title and (_JUNK_META.search(title) or fold(title) not in text or len(title.split()) < 3):
        title = None
    authors = [a for a in hints.meta_authors if not _JUNK_META.search(a) and fold(a) in text and _is_name(a)]
    return title, authors, None


def _as_printed(title: str, paragraphs) -> str:
    """`title` as the first pages print it (a catalogue card writes it in sentence case), if they do."""
    wanted = fold(title)
    texts = [t for _, t in paragraphs]
    for i in range(len(texts)):
        joined = ""
        for j in range(i, min(i + 6, len(texts))):
            joined = f"{joined} {texts[j]}".strip()
            if fold(joined) == wanted or re.sub(r"\W", "", fold(joined)) == re.sub(r"\W", "", wanted):
                return joined
            if len(fold(joined)) > len(wanted):
                break
    return title


def _name_case(name: str) -> str:
    """ "MARTA QUEIROZ DA SILVEIRA" -> "Marta Queiroz da Silveira"; a name in mixed case is kept."""
    name = " ".join(_MARKS.sub(" ", name).split()).strip(" ,.")
    if not name.isupper():
        return name
    return " ".join(w.lower() if w.lower() in _PARTICLES else "-".join(p.capitalize() for p in w.split("-"))
                    for w in name.split())  # fmt: skip


def _first_year(lines: Sequence[str]) -> int | None:
    for line in lines:
        match = YEAR.search(line)
        if match:
            return int(match.group())
    return None
