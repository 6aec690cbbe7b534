"""Split a cleaned document into retrievable chunks that remember the pages they came from.

The pages are joined into one text with a character -> page map (`PagedText`), every strategy returns
character spans of that text, and a chunk's page span is read off the map. Chunking the whole document
rather than page by page lets a paragraph that runs over a page break stay one chunk, and a citation can
still say "pages 12-13".

Strategies (`ChunkingConfig.strategy`):

* `recursive` — LangChain's `RecursiveCharacterTextSplitter`: paragraphs, then lines, then words, packed up
  to `chunk_size` characters with `chunk_overlap` characters repeated between neighbours (1000/150 by
  default, the RAG tutorials' baseline, kept by measuring the answers on two Portuguese manuals against
  1200/150 and 1500/200; 500/100 is the usual smaller alternative).
* `paragraph` — windows of `min_paragraphs`..`max_paragraphs` consecutive paragraphs, grown until they
  reach `min_words` and never past `max_words` (a paragraph longer than that is cut at sentence ends).
  No overlap: a paragraph is a unit of meaning and belongs to one chunk.
* `semantic` — sentences are embedded (each with `semantic_buffer` neighbours on either side, which smooths
  one-line outliers) and the text is cut where the cosine distance between consecutive sentences is above
  the `percentile`-th percentile of all such distances (95: few, long chunks; 75: more, shorter ones).
  The embedding model is the caller's: any object with `encode(list[str]) -> np.ndarray`.

Whatever the strategy, `max_tokens` (with the caller's `count_tokens`, e.g. the embedding model's
tokenizer) cuts any chunk that would be truncated by the encoder.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from rqrag.ingest.extract import Page


STRATEGIES = ("recursive", "paragraph", "semantic")
PAGE_SEPARATOR = "\n\n"
TokenCounter = Callable[[str], int]


class Embedder(Protocol):
    def encode(self, sentences: list[str]) -> np.ndarray: ...


@dataclass
class ChunkingConfig:
    """How a document is cut into chunks; every field is a measured alternative, not a constant."""

    strategy: str = field(default="recursive", metadata={"help": f"one of {STRATEGIES}"})
    # 1500/200 puts an evidence quote in the top 3 more often on the two tuning manuals (0.95 vs 0.88,
    # scripts/eval_document_retrieval.py) but the quotes read from it are no better (all key facts 42 of 60 either
    # way, extractive) and longer (median 44.5 words on the golden manual vs 39): what the user reads decides.
    chunk_size: int = field(default=1000, metadata={"help": "recursive: maximum characters per chunk"})
    chunk_overlap: int = field(default=150, metadata={"help": "recursive: characters shared by neighbouring chunks"})
    min_paragraphs: int = field(default=1, metadata={"help": "paragraph: fewest paragraphs in a window"})
    max_paragraphs: int = field(default=5, metadata={"help": "paragraph: most paragraphs in a window"})
    min_words: int = field(default=100, metadata={"help": "paragraph: a window grows until it has this many words"})
    max_words: int = field(default=500, metadata={"help": "paragraph: a window never has more words than this"})
    percentile: float = field(
        default=95.0, metadata={"help": "semantic: cut where the distance exceeds this percentile"}
    )
    semantic_buffer: int = field(default=1, metadata={"help": "semantic: neighbour sentences embedded with each one"})
    semantic_min_words: int = field(
        default=15, metadata={"help": "semantic: a shorter group (a lone heading) joins the group after it"}
    )
    max_tokens: int | None = field(
        default=None, metadata={"help": "cut chunks longer than this many tokens of `count_tokens` (None: no limit)"}
    )

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown chunking strategy {self.strategy!r}; choose one of {STRATEGIES}")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError(f"chunk_overlap must be in [0, chunk_size), got {self.chunk_overlap}/{self.chunk_size}")
        if not 1 <= self.min_paragraphs <= self.max_paragraphs:
            raise ValueError("need 1 <= min_paragraphs <= max_paragraphs")
        if not 0 <= self.min_words <= self.max_words:
            raise ValueError("need 0 <= min_words <= max_words")
        if not 0 < self.percentile < 100:
            raise ValueError(f"percentile must be in (0, 100), got {self.percentile}")
        if self.max_tokens is not None and self.max_tokens < 8:
            raise ValueError(f"max_tokens must be >= 8 (or None), got {self.max_tokens}")


@dataclass(frozen=True)
class Chunk:
    """`text` is `document[start:end]` of the joined document; pages are 1-based physical page numbers."""

    text: str
    start: int
    end: int
    page_start: int
    page_end: int


@dataclass(frozen=True)
class PagedText:
    """The cleaned pages joined into one string, with where each page starts in it."""

    text: str
    starts: tuple[int, ...]
    numbers: tuple[int, ...]

    @classmethod
    def from_pages(cls, pages: Sequence[Page]) -> PagedText:
        parts: list[str] = []
        starts: list[int] = []
        offset = 0
        for page in pages:
            if parts:
                # A page that ends mid-sentence and a next page that starts in lower case are one paragraph.
                flowing = not re.search(r"[.!?:;]\W*$", parts[-1]) and page.text[:1].islower()
                separator = " " if flowing else PAGE_SEPARATOR
                parts.append(separator)
                offset += len(separator)
            starts.append(offset)
            parts.append(page.text)
            offset += len(page.text)
        return cls("".join(parts), tuple(starts), tuple(page.number for page in pages))

    def page_at(self, offset: int) -> int:
        return self.numbers[max(0, bisect.bisect_right(self.starts, offset) - 1)]

    def chunk(self, start: int, end: int) -> Chunk:
        return Chunk(self.text[start:end], start, end, self.page_at(start), self.page_at(max(start, end - 1)))


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _locate(text: str, pieces: Sequence[str], base: int = 0) -> list[tuple[int, int]]:
    """Spans of the splitter's pieces in `text`, searched in order (pieces may overlap when chunks do)."""
    spans = []
    cursor = 0
    for piece in pieces:
        found = text.find(piece, cursor)
        if found < 0:  # the splitter normalised something; fall back to where the previous piece ended
            found = cursor
        spans.append((base + found, base + min(len(text), found + len(piece))))
        cursor = found + 1
    return spans


def recursive_spans(
    text: str, chunk_size: int, chunk_overlap: int, length: TokenCounter = len
) -> list[tuple[int, int]]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size, chunk_overlap=chunk_overlap, length_function=length, strip_whitespace=True
    )
    return _locate(text, splitter.split_text(text))


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A sentence ends after . ! ? : ; (and any closing quote or bracket) before a capital, digit or bullet, or at a
# line break (in cleaned text only code lines and list items keep theirs). Group 1 is the gap between sentences.
_SENTENCE_BREAK = re.compile(r"[.!?…:;][\"')\]»]*(\s+)(?=[\"'(«\[]?[A-ZÀ-Ý0-9•*–-])|(\n+)")


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        spans.append(_trimmed(text, start, match.start()))
        start = match.end()
    spans.append(_trimmed(text, start, len(text)))
    return [(a, b) for a, b in spans if b > a]


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentences of text[start:end] as spans of `text`: cut after . ! ? : ; before a capital, and at line breaks."""
    end = len(text) if end is None else end
    spans, cursor = [], start
    for match in _SENTENCE_BREAK.finditer(text, start, end):
        gap = 1 if match.group(1) is not None else 2
        spans.append(_trimmed(text, cursor, match.start(gap)))
        cursor = match.end()
    spans.append(_trimmed(text, cursor, end))
    return [(a, b) for a, b in spans if b > a]


def _span_word_count(text: str, span: tuple[int, int]) -> int:
    return len(text[span[0] : span[1]].split())


def _pack(text: str, units: Sequence[tuple[int, int]], max_words: int) -> list[tuple[int, int]]:
    """Consecutive units (sentences) packed up to max_words; a unit alone above it is cut at word boundaries."""
    packed: list[tuple[int, int]] = []
    for unit in units:
        if _span_word_count(text, unit) > max_words:
            words = list(re.finditer(r"\S+", text[unit[0] : unit[1]]))
            for i in range(0, len(words), max_words):
                group = words[i : i + max_words]
                packed.append((unit[0] + group[0].start(), unit[0] + group[-1].end()))
        elif packed and _span_word_count(text, (packed[-1][0], unit[1])) <= max_words:
            packed[-1] = (packed[-1][0], unit[1])
        else:
            packed.append(unit)
    return packed


def paragraph_window_spans(text: str, config: ChunkingConfig) -> list[tuple[int, int]]:
    """Greedy windows of whole paragraphs: grown to min_words (and min_paragraphs), capped by max_* bounds."""
    units: list[tuple[int, int]] = []
    for paragraph in paragraph_spans(text):
        if _span_word_count(text, paragraph) > config.max_words:
            units.extend(_pack(text, sentence_spans(text, *paragraph), config.max_words))
        else:
            units.append(paragraph)
    windows: list[list[tuple[int, int]]] = []
    for unit in units:
        current = windows[-1] if windows else None
        fits = current is not None and _span_word_count(text, (current[0][0], unit[1])) <= config.max_words
        wants_more = current is not None and (
            _span_word_count(text, (current[0][0], current[-1][1])) < config.min_words
            or len(current) < config.min_paragraphs
        )
        if fits and wants_more and len(current) < config.max_paragraphs:
            current.append(unit)
        else:
            windows.append([unit])
    spans = [(window[0][0], window[-1][1]) for window in windows]
    # A short last window (or one that could not grow) joins its predecessor when the two still fit.
    merged: list[tuple[int, int]] = []
    for span in spans:
        if (
            merged
            and _span_word_count(text, span) < config.min_words
            and _span_word_count(text, (merged[-1][0], span[1])) <= config.max_words
        ):
            merged[-1] = (merged[-1][0], span[1])
        else:
            merged.append(span)
    return merged


def semantic_spans(
    text: str, embedder: Embedder, percentile: float, buffer: int = 1, min_words: int = 0
) -> list[tuple[int, int]]:
    """Sentences grouped between the largest jumps in meaning (see the module docstring).

    A group of fewer than `min_words` words (typically a lone heading, which embeds far from the text
    before it) joins the group after it, so that it is found with the section it names.
    """
    sentences = sentence_spans(text)
    if len(sentences) < 3:
        return [(sentences[0][0], sentences[-1][1])] if sentences else []
    last = len(sentences) - 1
    windows = [text[sentences[max(0, i - buffer)][0] : sentences[min(last, i + buffer)][1]] for i in range(last + 1)]
    vectors = np.asarray(embedder.encode(windows), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    distances = 1.0 - np.sum(vectors[:-1] * vectors[1:], axis=1)
    threshold = np.percentile(distances, percentile)
    spans, first = [], 0
    for i, distance in enumerate(distances):
        if distance > threshold:
            spans.append((sentences[first][0], sentences[i][1]))
            first = i + 1
    spans.append((sentences[first][0], sentences[last][1]))
    merged: list[tuple[int, int]] = []
    carried: int | None = None  # start of a too-short group waiting for the next one
    for start, end in spans:
        start = start if carried is None else carried
        carried = start if _span_word_count(text, (start, end)) < min_words else None
        if carried is None:
            merged.append((start, end))
    if carried is not None:  # the document ends on a short group: it joins the previous one
        merged = merged[:-1] + [(merged[-1][0], spans[-1][1])] if merged else [(carried, spans[-1][1])]
    return merged


def word_piece_estimate(text: str) -> int:
    """A tokenizer-free token count (words and punctuation marks): a lower bound of what a WordPiece model sees."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def enforce_max_tokens(
    text: str, spans: Sequence[tuple[int, int]], max_tokens: int, count_tokens: TokenCounter
) -> list[tuple[int, int]]:
    """Every span longer than max_tokens re-split (paragraphs, lines, words) into pieces that fit."""
    result = []
    for start, end in spans:
        if count_tokens(text[start:end]) <= max_tokens:
            result.append((start, end))
            continue
        pieces = recursive_spans(text[start:end], max_tokens, 0, length=count_tokens)
        result.extend((start + a, start + b) for a, b in pieces)
    return result


def chunk_pages(
    pages: Sequence[Page],
    config: ChunkingConfig,
    embedder: Embedder | None = None,
    count_tokens: TokenCounter | None = None,
) -> list[Chunk]:
    """Chunks of the cleaned pages, in document order, each with its page span."""
    document = PagedText.from_pages(pages)
    text = document.text
    if not text.strip():
        return []
    if config.strategy == "recursive":
        spans = recursive_spans(text, config.chunk_size, config.chunk_overlap)
    elif config.strategy == "paragraph":
        spans = paragraph_window_spans(text, config)
    else:
        if embedder is None:
            raise ValueError("the semantic strategy needs an embedder (an object with encode(list[str]) -> array)")
        spans = semantic_spans(text, embedder, config.percentile, config.semantic_buffer, config.semantic_min_words)
    if config.max_tokens is not None:
        spans = enforce_max_tokens(text, spans, config.max_tokens, count_tokens or word_piece_estimate)
    return [document.chunk(start, end) for start, end in spans if end > start]
