"""Fitting the reader on training ids: its sentence and span tables, labelled by the gold answers, and how well it
reads on held-back training questions.

What the reader reads here is what it reads at run time: every passage the model's own tree read over a training
question (`rqrag eval --split train` records), plus the question's own search of its candidate paragraphs. Labels:

* a **sentence** is right when it holds a gold answer (normalised, whole words); for a document question, when it
  holds one of its key facts or most of its words are in the golden evidence quote;
* a **span** is right when `is_correct` says so against the gold answers (token F1 >= 0.5, or the gold inside it).

Eval ids are refused, as for the verifier. `cross_read` gives out-of-fold figures (questions never split across
folds): how often the top sentence, and the top span, hold the answer when the evidence does.

    items = tree_items(load_trees(["runs/trees/train"]))       # (question, hits, golds) per training question
    report, model = fit_reader(items)                          # ReaderModel, saved by rqrag fit reader
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from rqrag.answer.candidate_answers import is_correct
from rqrag.answer.grounding import all_hits
from rqrag.answer.reading.span_features import SENTENCE_FEATURES, SPAN_FEATURES
from rqrag.answer.reading.span_reader import Reader, ReaderModel, ReadQuestion
from rqrag.eval.saved_trees import golds, question_search, refuse_eval_ids
from rqrag.fit.logistic import fit_logistic
from rqrag.inference.decoding.tree import QuestionResult
from rqrag.logistic import LogisticScorer
from rqrag.retrieval.base import Hit
from rqrag.text.answer_text import answer_f1, normalize_answer
from rqrag.text.text_quality import fold, words


logger = logging.getLogger(__name__)
FOLDS = 5


@dataclass
class ReadItem:
    """One training question: what the reader reads and what a right reading holds."""

    qid: str
    group: str  # benchmark or document: folds are dealt within each
    question: str
    hits: list[Hit]
    golds: list[str] = field(default_factory=list)  # short gold answers (benchmarks)
    key_facts: list[str] = field(default_factory=list)  # facts a right quote holds (documents)
    evidence: list[str] = field(default_factory=list)  # golden evidence quotes (documents)
    language: str = "en"


def tree_items(trees: Sequence[tuple[str, dict]], searched: dict[str, list[Hit]] | None = None) -> list[ReadItem]:
    """A `ReadItem` per recorded tree (eval ids refused): every passage the tree read, then the question's own
    search (`searched` by record id, else the record's own)."""
    refuse_eval_ids(trees)
    items = []
    for task, record in trees:
        result = QuestionResult.from_record(record)
        pooled = {h.docid: h for h in all_hits(result)}
        for hit in (searched or {}).get(record["id"]) or question_search(record):
            pooled.setdefault(hit.docid, hit)
        items.append(ReadItem(record["id"], task, record["question"], list(pooled.values()), golds(record)))
    return items


def own_searches(trees, k: int) -> dict:
    """Per record id, the question searched with its own words over its candidate paragraphs (BM25, k hits)."""
    from rqrag.eval.runner import build_task_retriever
    from rqrag.eval.tasks import get_task
    from rqrag.inference.decoding.decode_config import DecodeConfig

    out: dict = {}
    by_task: dict[str, list[dict]] = {}
    for task, record in trees:
        if not record.get("question_search"):
            by_task.setdefault(task, []).append(record)
    for name, records in by_task.items():
        task = get_task(name)
        examples, _ = task.load(None, "all", None)
        wanted = {r["id"] for r in records}
        examples = [ex for ex in examples if ex.uid in wanted]
        retriever = build_task_retriever(task, examples, DecodeConfig(retrieval_mode="bm25"))
        asked = {ex.uid: ex for ex in examples}
        ids = [r["id"] for r in records if r["id"] in asked]
        found = retriever.batch_search([asked[i].question for i in ids], k, qids=ids) if ids else []
        out.update(zip(ids, found))
    return out


def sentence_label(text: str, item: ReadItem) -> int:
    padded = f" {normalize_answer(text)} "
    if item.golds:
        return int(any(f" {normalize_answer(g)} " in padded for g in item.golds if normalize_answer(g)))
    folded = fold(text)
    if any(fold(fact) in folded for fact in item.key_facts):
        return 1
    mine = [fold(w) for w in words(text)]
    for quote in item.evidence:
        theirs = {fold(w) for w in words(quote)}
        if mine and sum(w in theirs for w in mine) / len(mine) >= 0.6:
            return 1
    return 0


def span_label(span: str, item: ReadItem) -> int:
    if item.golds:
        return int(is_correct(span, item.golds, item.question))
    return int(any(fold(fact) in fold(span) for fact in item.key_facts))


def fit_scorer(
    rows: Sequence[dict[str, float]], labels: Sequence[int], names: Sequence[str], C: float = 1.0
) -> LogisticScorer:
    """A logistic model over the standardised features `names` of `rows` (a feature constant over them keeps scale 1),
    by the one fitting recipe (`fit_logistic`)."""
    X = np.array([[r.get(f, 0.0) for f in names] for r in rows], dtype=float).reshape(len(rows), len(names))
    # the reader's spread is numpy's X.std and its solver limit 3000: what models/reader/reader.json was fitted with
    return fit_logistic(X, labels, names, C, max_iter=3000, scaling="numpy")


def featurise(items: Sequence[ReadItem], reader: Reader, batch: int = 16) -> list[ReadQuestion]:
    out: list[ReadQuestion] = []
    for start in tqdm(range(0, len(items), batch), desc="reading", unit="batch"):
        chunk = items[start : start + batch]
        out.extend(reader.analyse([i.question for i in chunk], [i.hits for i in chunk], [i.language for i in chunk]))
    return out


def save_reads(path, items: Sequence[ReadItem], reads: Sequence[ReadQuestion]) -> None:
    """The featurised training questions, so the verifier's fit reads them out of fold without embedding again."""
    import pickle
    from pathlib import Path

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        pickle.dump((list(items), list(reads)), f)


def load_reads(path) -> tuple[list[ReadItem], list[ReadQuestion]]:
    """What `save_reads` wrote (a file this project made: pickle loads code, never open one from elsewhere)."""
    import pickle

    with open(path, "rb") as f:
        return pickle.load(f)


def fit_on(items: Sequence[ReadItem], reads: Sequence[ReadQuestion], C: float = 1.0) -> ReaderModel:
    """Both scorers on `items` (their `reads`: sentence features already computed; span features need the
    fitted sentence scorer, so the spans are read again here)."""
    rows, labels = [], []
    for item, read in zip(items, reads):
        for row in read.rows:
            rows.append(row.features)
            labels.append(sentence_label(row.text, item))
    sentence = fit_scorer(rows, labels, SENTENCE_FEATURES, C)
    spans, span_labels = [], []
    reader = Reader(ReaderModel(sentence, sentence))  # span scorer unused until refitted below
    for item, read in zip(items, reads):
        again = reader._finish(ReadQuestion(read.question, read.language, read.hits, read.rows, []))
        for span, _, features in again.spans:
            spans.append(features)
            span_labels.append(span_label(span, item))
    if not any(span_labels) or all(span_labels):
        raise ValueError("the reader's span table needs right and wrong spans: give it more questions")
    return ReaderModel(sentence, fit_scorer(spans, span_labels, SPAN_FEATURES, C))


def evaluate(items: Sequence[ReadItem], reads: Sequence[ReadQuestion], model: ReaderModel) -> dict:
    """How `model` reads `items`: on questions whose evidence holds the answer, the share whose top sentence holds
    it, whose top span is right, and the top span's F1; plus the Brier score of the top span's p."""
    reader = Reader(model)
    top_sentence, top_span, f1, brier, n = 0, 0, 0.0, 0.0, 0
    for item, read in zip(items, reads):
        again = reader._finish(ReadQuestion(read.question, read.language, read.hits, read.rows, []))
        if not any(sentence_label(r.text, item) for r in again.rows):
            continue
        n += 1
        top_sentence += bool(again.order) and sentence_label(again.rows[again.order[0]].text, item)
        best = again.readings[0] if again.readings else None
        right = bool(best) and span_label(best.answer, item)
        top_span += right
        f1 += answer_f1(best.answer, item.golds) if best and item.golds else float(right)
        brier += ((best.p if best else 0.0) - right) ** 2
    return {
        "answerable": n,
        "top_sentence_holds": round(top_sentence / max(1, n), 4),
        "top_span_right": round(top_span / max(1, n), 4),
        "top_span_f1": round(100 * f1 / max(1, n), 2),
        "brier": round(brier / max(1, n), 4),
    }


def fold_of_items(items: Sequence[ReadItem], seed: int = 0) -> dict[str, int]:
    """A fold per question: questions dealt round-robin within each group (benchmark or document)."""
    rng = np.random.default_rng(seed)
    fold_of: dict[str, int] = {}
    for group in sorted({i.group for i in items}):
        qids = sorted(i.qid for i in items if i.group == group)
        rng.shuffle(qids)
        fold_of.update({q: k % FOLDS for k, q in enumerate(qids)})
    return fold_of


class OutOfFoldReader:
    """The reader as the verifier's training questions must see it: each question read by a reader fitted without
    its fold, from its precomputed sentence features (nothing is embedded twice). `read` takes the questions and
    passages the fit already read."""

    def __init__(self, items: Sequence[ReadItem], reads: Sequence[ReadQuestion], C: float = 1.0, seed: int = 0):
        fold_of = fold_of_items(items, seed)
        models = {}
        for k in range(FOLDS):
            train = [j for j, i in enumerate(items) if fold_of[i.qid] != k]
            models[k] = fit_on([items[j] for j in train], [reads[j] for j in train], C)
        self.model = models[0]
        self._by_question = {i.question: (r, models[fold_of[i.qid]]) for i, r in zip(items, reads)}

    def read(self, questions, hits, languages=None):
        out = []
        for question in questions:
            read, model = self._by_question[question]
            again = Reader(model)._finish(ReadQuestion(read.question, read.language, read.hits, read.rows, []))
            out.append(again.readings)
        return out


def cross_read(items: Sequence[ReadItem], reads: Sequence[ReadQuestion], C: float = 1.0, seed: int = 0) -> dict:
    """Out-of-fold `evaluate` figures, each question read by a reader fitted without its fold."""
    fold_of = fold_of_items(items, seed)
    figures = []
    for k in range(FOLDS):
        train = [j for j, i in enumerate(items) if fold_of[i.qid] != k]
        test = [j for j, i in enumerate(items) if fold_of[i.qid] == k]
        model = fit_on([items[j] for j in train], [reads[j] for j in train], C)
        figures.append(evaluate([items[j] for j in test], [reads[j] for j in test], model))
    n = sum(f["answerable"] for f in figures)
    merged = {"answerable": n}
    for key in ("top_sentence_holds", "top_span_right", "top_span_f1", "brier"):
        merged[key] = round(sum(f[key] * f["answerable"] for f in figures) / max(1, n), 4)
    return merged


def fit_reader(
    items: Sequence[ReadItem], C: float = 1.0, reads: Sequence[ReadQuestion] | None = None
) -> tuple[dict, ReaderModel]:
    """The reader fitted on every item, with its out-of-fold report (`reads`: the items already featurised)."""
    reads = reads if reads is not None else featurise(items, Reader(None))
    report = {"questions": len(items), "held_back": cross_read(items, reads, C), "C": C}
    report["trained_on"] = sorted(i.qid for i in items)  # training ids and tuning-manual questions only (tested)
    model = fit_on(items, reads, C)
    report["fitted"] = evaluate(items, reads, model)
    return report, ReaderModel(model.sentence, model.span, report)
