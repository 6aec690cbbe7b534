"""Turn extracted page text into clean paragraphs: no running headers, no page numbers, no table of contents.

PDF text extraction hands back the page as the typesetter laid it out: a running header on every page, the
page number, words hyphenated at line ends, ligature characters (U+FB01 "ﬁ"), curly quotes and one line per
printed line. Left in, the header becomes the most frequent "sentence" of the index and a split word such
as "dis- ponibilizados" can never match a query. The steps, all generic (measured on the Debian Edu manual,
written for any document):

1. characters: accents a LaTeX PDF set apart joined to their letters (`rqrag/ingest/accents.py`), NFKC (ligatures,
   no-break spaces), straight quotes, soft hyphens and zero-width marks dropped;
2. repeated edge lines: a line among the first or last two of a page that, with its digits and roman
   numerals masked, appears on at least half of the pages is a running header/footer and goes;
   so does a bare page number ("12", "iv", "3 / 98") in those positions;
3. table-of-contents pages (most lines end in a page number or carry dot leaders, the numbers ascending)
   are skipped whole: they repeat every heading and would out-rank the sections they point to;
4. hyphenation: "com-\\nputador" becomes "computador" when a lowercase letter (or the "/" of a path) precedes
   the hyphen and a lowercase letter follows; the document's own vocabulary decides when the hyphen is real
   ("guarda-chuva" seen elsewhere keeps it), and so does a Portuguese enclitic ("instalá-\\nlo");
5. wrapped code lines marked with an arrow (DocBook's "←" continuation sign) lose the arrow and keep
   their line break: they are not hyphenation;
6. lines become paragraphs: a blank line, a list item or numbered heading, a line well short of the full
   width (a heading, a code or table line), or a shortish line ending in sentence-final punctuation ends a
   paragraph; other line breaks (the margin's) become spaces.

Paragraphs are separated by a blank line in the cleaned page text, which is what the chunkers split on.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from rqrag.ingest.accents import recompose_accents
from rqrag.ingest.extract import Page


logger = logging.getLogger(__name__)

EDGE_LINES = 2  # how many lines at the top and at the bottom of a page may be a header/footer
REPEATED_SHARE = 0.5  # a masked edge line on at least this share of the pages is a running header/footer
TOC_SHARE = 0.5  # a page whose lines are mostly TOC entries is a table-of-contents page
TOC_MIN_ENTRIES = 5
SHORT_LINE = 0.6  # a line shorter than this share of a full line was ended by the author, not by the margin

_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"'})
_INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
_ROMAN = re.compile(r"^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_NUMBER_OR_ROMAN = re.compile(r"\b(?:\d+|[ivxlcdm]+)\b", re.IGNORECASE)
_PAGE_NUMBER_LINE = re.compile(
    r"^(?:(?:page|p[aá]gina|p[aá]g\.?|p\.)\s*)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of|de)\s*\d{1,4})?$", re.IGNORECASE
)
_DOT_LEADER = re.compile(r"(?:\.\s*){4,}|…{2,}")
_TRAILING_PAGE = re.compile(r"\s(\d{1,4}|[ivxlc]{1,6})$", re.IGNORECASE)
# A DocBook/dblatex wrapped-code marker at the end of a line: "←↩" (pypdf), "←" alone or "←-" in other extractors.
_CODE_CONTINUATION = re.compile(r"\s*[←↩↵⏎]+-?\s*$")
_LIST_ITEM = re.compile(r"^(?:[•◦▪‣·∙●○■□►▸*–—-]\s+|\d{1,3}[.)]\s+|[a-z][.)]\s+|\(\w{1,3}\)\s+)")
# "3.1 Rede", "14.7 ldap-createuser": a numbered section heading starts a paragraph.
_SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)+\.?\s+[^\W\d_]")
_SENTENCE_END = re.compile(r"[.!?:;][\"')\]»]*$")
_HYPHEN_BREAK_LEFT = re.compile(r"([^\W\d_]*)([a-zà-öø-ÿ/])-$")
# Starts only where a word starts (the look-behind): without it a line of one 64 kB "word" was tried from each of
# its letters, each try running to its end (quadratic: minutes for a 256 kB file).
_BROKEN_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]+-\n[^\W\d_]+")
_HYPHEN_BREAK_RIGHT = re.compile(r"^([a-zà-öø-ÿ][^\W\d_]*)")
# Portuguese enclitic pronouns: "instalá-lo", "recomenda-se" broken at their real hyphen must keep it.
_ENCLITICS = {"se", "lo", "la", "los", "las", "lhe", "lhes", "me", "te", "nos", "vos", "o", "a", "os", "as"}


def normalise_characters(text: str) -> str:
    """Accents joined to their letters (LaTeX PDFs give "m´usica"), NFKC (splits ligatures such as U+FB01, turns
    no-break spaces into spaces), straight quotes, no soft hyphens. Accents are joined before NFKC, which would
    turn a spacing accent into a space and a combining mark, and once more after it."""
    text = recompose_accents(unicodedata.normalize("NFKC", recompose_accents(text)))
    return _INVISIBLE.sub("", text).translate(_QUOTES)


def match_form(text: str) -> str:
    """The form texts are compared in when looking for a quote: normalised characters, whitespace runs as one space."""
    return " ".join(normalise_characters(text).split())


def _is_roman(token: str) -> bool:
    return bool(token) and bool(_ROMAN.match(token.lower()))


def edge_line_key(line: str) -> str:
    """A line with page numbers masked, so "Manual 12 Bookworm 3 / 98" and "... ii" compare equal."""
    masked = _NUMBER_OR_ROMAN.sub(lambda m: "#" if m.group(0).isdigit() or _is_roman(m.group(0)) else m.group(0), line)
    masked = re.sub(r"#\s*(?:/|of|de)\s*#", "#", masked.lower())
    return " ".join(masked.split())


def is_page_number_line(line: str) -> bool:
    match = _PAGE_NUMBER_LINE.match(line.strip())
    return bool(match) and (match.group(1).isdigit() or _is_roman(match.group(1)))


def _edge_indices(lines: Sequence[str]) -> list[int]:
    """Positions of the first and last EDGE_LINES non-blank lines."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:EDGE_LINES] + filled[-EDGE_LINES:]))


def repeated_edge_keys(pages_lines: Sequence[Sequence[str]]) -> set[str]:
    """Masked edge lines found on at least REPEATED_SHARE of the pages (and on 2 pages at least)."""
    counts: Counter[str] = Counter()
    for lines in pages_lines:
        counts.update({edge_line_key(lines[i]) for i in _edge_indices(lines)})
    with_text = sum(1 for lines in pages_lines if any(line.strip() for line in lines))
    if with_text < 3:  # with one or two pages every line is "on half the pages"
        return set()
    needed = max(2, REPEATED_SHARE * with_text)
    return {key for key, n in counts.items() if key and n >= needed}


def strip_edges(lines: Sequence[str], repeated: set[str], page_numbers: bool = True) -> list[str]:
    """The page's lines without running headers/footers and (if `page_numbers`) bare page numbers at its edges."""
    drop = {
        i
        for i in _edge_indices(lines)
        if edge_line_key(lines[i]) in repeated or (page_numbers and is_page_number_line(lines[i]))
    }
    return [line for i, line in enumerate(lines) if i not in drop]


def _trailing_number(line: str) -> int | None:
    match = _TRAILING_PAGE.search(line)
    if not match:
        return None
    token = match.group(1)
    if token.isdigit():
        return int(token)
    return 0 if _is_roman(token) else None  # roman front-matter numbers sort before arabic ones


def is_toc_page(lines: Sequence[str]) -> bool:
    """Mostly "heading .... 12" lines whose page numbers ascend: a table of contents (or an index of figures)."""
    filled = [line.strip() for line in lines if line.strip()]
    entries = [line for line in filled if _DOT_LEADER.search(line) or _trailing_number(line) is not None]
    if len(entries) < TOC_MIN_ENTRIES or len(entries) < TOC_SHARE * len(filled):
        return False
    numbers = [n for n in (_trailing_number(line) for line in entries) if n is not None]
    if sum(1 for line in entries if _DOT_LEADER.search(line)) >= TOC_SHARE * len(entries):
        return True
    # Without dot leaders, ascending numbers tell a TOC from a table of figures (1024, 512, 2048 ...).
    ascending = sum(1 for a, b in zip(numbers, numbers[1:]) if b >= a)
    return len(numbers) > 1 and ascending >= 0.8 * (len(numbers) - 1)


def vocabulary(texts: Sequence[str]) -> Counter[str]:
    """Lower-cased word counts of the whole document, compounds kept whole, words split at a line end left out.

    The halves of split words are left out so that "-mente", the tail of many broken adverbs, does not
    count as a word the document uses.
    """
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(word.lower() for word in _WORD.findall(_BROKEN_WORD.sub(" ", text)))
    return counts


def dehyphenate(left: str, right: str, vocab: Counter[str]) -> str | None:
    """How `left` ending in "-" and `right` join across a line break, or None when it is no hyphenation.

    Joined ("com-" + "putador") unless the document says the hyphen is real: the hyphenated form is more
    frequent than the joined one, the tail is an enclitic ("instalá-lo"), or both halves are words the
    document uses on their own while the joined form never occurs ("cliente-servidor"). A wrong hyphen
    costs little (tokenizers split on it); a wrongly glued word can never be matched.
    """
    left_match = _HYPHEN_BREAK_LEFT.search(left[-80:])  # only the last word matters; keeps long paragraphs cheap
    right_match = _HYPHEN_BREAK_RIGHT.match(right)
    if not left_match or not right_match:
        return None
    head = left_match.group(1) + left_match.group(2)
    tail = right_match.group(1)
    joined, hyphenated = (head + tail).lower(), f"{head}-{tail}".lower()
    if vocab[hyphenated] > vocab[joined]:
        return left + right
    if vocab[joined] == 0 and head[-1] != "/":
        enclitic = tail.lower() in _ENCLITICS
        two_words = len(tail) >= 3 and vocab[head.lower()] > 0 and vocab[tail.lower()] > 0
        if enclitic or two_words:
            return left + right
    return left[:-1] + right


def _ends_paragraph(previous: str, full_width: float) -> bool:
    """A line well short of the full width ends a paragraph; so does a shorter one closing a sentence."""
    if len(previous) < SHORT_LINE * full_width:  # headings, code, table rows, a paragraph's last words
        return True
    return bool(_SENTENCE_END.search(previous)) and len(previous) < 0.8 * full_width


def paragraphs(lines: Sequence[str], full_width: float, vocab: Counter[str]) -> list[str]:
    """Join printed lines into paragraphs (see the module docstring for the rules)."""
    result: list[str] = []
    current = ""
    previous = ""  # the last physical line appended to `current`, as printed
    for raw in lines:
        line = raw.strip()
        if not line:
            if current:
                result.append(current)
            current, previous = "", ""
            continue
        printed, line = line, _CODE_CONTINUATION.sub("", line)
        if not current:
            current = line
        elif _CODE_CONTINUATION.search(previous):
            current += "\n" + line  # a wrapped code line: keep the break (the marker is gone)
        elif current.endswith("-") and (joined := dehyphenate(current, line, vocab)) is not None:
            current = joined
        elif _ends_paragraph(previous, full_width) or _LIST_ITEM.match(line) or _SECTION_NUMBER.match(line):
            result.append(current)
            current = line
        else:
            current += " " + line
        previous = printed
    if current:
        result.append(current)
    return result


def typical_line_width(pages_lines: Sequence[Sequence[str]]) -> float:
    """The width of a full printed line: the 75th percentile of line lengths (at least 40 characters)."""
    lengths = sorted(len(line.strip()) for lines in pages_lines for line in lines if line.strip())
    if not lengths:
        return 40.0
    return max(40.0, float(lengths[int(0.75 * (len(lengths) - 1))]))


def clean_pages(pages: Sequence[Page], skip_toc: bool = True) -> list[Page]:
    """Cleaned pages, each its paragraphs joined by blank lines; TOC pages and pages left empty are dropped."""
    pages_lines = [normalise_characters(page.text).split("\n") for page in pages]
    repeated = repeated_edge_keys(pages_lines)
    if repeated:
        logger.debug("running headers/footers: %s", sorted(repeated))
    # A one-page text or HTML file has no page numbers or contents pages: a last line "2024" there is content,
    # and a file that is all "item ... 12" lines is a table the user wants searchable.
    paged = len(pages) >= 3
    stripped = [strip_edges(lines, repeated, page_numbers=paged) for lines in pages_lines]
    vocab = vocabulary(["\n".join(lines) for lines in stripped])
    full_width = typical_line_width(stripped)
    cleaned = []
    for page, lines in zip(pages, stripped):
        if skip_toc and paged and is_toc_page(lines):
            logger.debug("page %d: table of contents, skipped", page.number)
            continue
        text = "\n\n".join(paragraphs(lines, full_width, vocab))
        if text.strip():
            cleaned.append(Page(page.number, text))
    return cleaned
