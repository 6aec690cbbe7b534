"""Run a designed RAG experiment: every cell of the design over the golden questions, one record per answer.

    rqrag experiment run --config configs/experiments/pt_manual_small.yaml

Work is shared wherever the factors allow it:

* **indexes** — one document library per chunking level, built once in `<output>/indexes/<chunking>` with one
  loaded embedder (the same one scores answer similarity) and reused by every cell and every rerun (adding a
  file already in a library is recognised by its hash and costs nothing);
* **retrieval** — one `CutRetriever` per (chunking, search mode) searches each distinct query once, at the
  largest k of the design, and hands every cell its own k as a prefix of that list. Exact for BM25 and
  FAISS flat search, and for hybrid up to k = 20 (RRF fuses at least 20 candidates a side whatever k is). The
  tree's refined queries go through the same cache, so cells that differ only in k or in the generator share
  them too;
* **generators** — one loaded model (or one client) per distinct model/backend, shared by the cells using it.

Cells run in their randomised run order. A local model decodes one cell at a time; cells whose generator is
a server (`backend: remote` or `chat`) run on a thread pool of `concurrency` workers meanwhile. Each batch of
questions is appended to `records.jsonl` (`ResumableJsonl`, id `<cell id>:<question id>`) the moment it is
scored, so a killed run (even `kill -9`) loses at most the batches in flight and a rerun does only what is
missing; an answer that failed only because a server could not be reached is not recorded, so the rerun asks
again. `design.csv`, `resolved_config.yaml` and, at the end, `summary.csv` / `summary.json` (per-cell means
with the count of missing scores per metric) sit beside the records.

The run loop, resuming and the thread pool are the evaluation engine's (`rqrag.eval.engine`), shared with
`rqrag eval`; a refinement level is a system of `rqrag.eval.systems` (`none` is its standard RAG). This module
says what a cell shares with the others and what an experiment record holds.
"""

from __future__ import annotations

import csv
import json
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from rqrag.answer.messages import AnswerKind
from rqrag.config_loader import save_resolved_config
from rqrag.eval.engine import Answerer, Study, StudyCell, StudyQuestion, run_study
from rqrag.eval.experiments.design import Cell, build_cells, cell_decode_config, generator_key, write_design
from rqrag.eval.experiments.experiment_config import (
    ExperimentConfig,
    chunking_from_level,
    chunking_label,
    resolve_path,
)
from rqrag.eval.experiments.metrics import (
    BASE_METRICS,
    RAGAS_JUDGED,
    AnswerSimilarity,
    answer_scores,
    quotes_found,
    ragas_with_retries,
    summarize_cells,
)
from rqrag.eval.golden import load_questions
from rqrag.eval.systems import answer_settings, refinement_system, searched_tree
from rqrag.inference.decoding.tree import Question
from rqrag.resumable import ResumableJsonl
from rqrag.retrieval.base import check_qids


logger = logging.getLogger(__name__)

RECORDS_FILE = "records.jsonl"
REMOTE_BACKENDS = ("remote", "chat")


class CutRetriever:
    """Searches each distinct query once at `max_k` and answers any k <= max_k with the first k hits.

    Thread-safe (one lock around the cache and the inner search); `inner_queries` counts the queries the inner
    retriever actually ran, `chunk_texts` keeps every returned chunk's full text by docid (the evidence
    metrics need whole chunks, the decoder shortens what the model reads)."""

    uses_qids = False

    def __init__(self, inner, max_k: int):
        self.inner = inner
        self.max_k = max_k
        self.inner_queries = 0
        self.lookups = 0
        self.chunk_texts: dict[str, str] = {}
        self._hits: dict[str, list] = {}
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"cut@{self.max_k}:{self.inner.name}"

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list:
        return self.batch_search([query], k=k)[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list]:
        check_qids(queries, qids)
        if k > self.max_k:
            raise ValueError(f"k={k} is above the largest k of the design ({self.max_k}) this cache searches at")
        with self._lock:
            missing = list(dict.fromkeys(q for q in queries if q not in self._hits))
            if missing:
                for query, hits in zip(missing, self.inner.batch_search(missing, k=self.max_k)):
                    self._hits[query] = list(hits)
                    self.chunk_texts.update((h.docid, h.text) for h in hits)
                self.inner_queries += len(missing)
            self.lookups += len(queries)
            return [list(self._hits[q][:k]) for q in queries]


def record_id(cell: Cell, question_id: str) -> str:
    return f"{cell.cell_id}:{question_id}"


def cell_system(cell: Cell):
    """The system a cell runs: its refinement level (`none`: standard RAG), else the searched tree as configured."""
    level = cell.level("refinement")
    return refinement_system(level) if level is not None else searched_tree(None)


class ExperimentRunner(Study):
    """A designed experiment as a study of the evaluation engine: one engine cell per design cell, one records file."""

    def __init__(self, config: ExperimentConfig, decode):
        self.config = config
        self.decode = decode
        self.out = config.output_path
        self.design = {c.cell_id: c for c in build_cells(config)}
        self.cell_configs = {i: cell_decode_config(decode, c, config) for i, c in self.design.items()}
        self.golden = load_questions(
            resolve_path(config.golden), limit=config.max_questions, required=("id", "question", "answer")
        )
        self.metric_names = [*BASE_METRICS, *(RAGAS_JUDGED if config.judge_base_url else ())]
        self.batch_size = config.question_batch_size
        self.concurrency = config.concurrency
        self.libraries: dict[str, Any] = {}
        self.retrievers: dict[tuple[str, str], CutRetriever] = {}
        self.generators: dict[str, tuple[Any, Any]] = {}
        self._setup_lock = threading.Lock()
        self.transient_failures = 0  # answers not recorded because a server failed; the next run retries them
        self.encoder = None
        self.similarity = None
        self.questions = [
            StudyQuestion(
                q["id"],
                Question(q["id"], [{"role": "user", "content": q["question"]}], language=config.language),
                q,
            )
            for q in self.golden
        ]
        self.cells: list[StudyCell] = []

    def record_id(self, cell: StudyCell, question: StudyQuestion) -> str:
        return record_id(self.design[cell.cell_id], question.qid)

    # ------------------------------------------------------------------------------------------ setup

    def open(self, cells: Sequence[StudyCell]) -> None:
        from rqrag.ingest.library import SharedEncoder
        from rqrag.retrieval.encoders import load_encoder

        chunkings = {self.design[c.cell_id].level("chunking") for c in cells}
        self.encoder = SharedEncoder(self.config.embedding_model, load_encoder(self.config.embedding_model))
        self.similarity = AnswerSimilarity(self.encoder)
        self._open_indexes([level for level in self.config.factors["chunking"] if level in chunkings])

    def _open_indexes(self, levels: Sequence[str]) -> None:
        """One library per chunking level, built in the output folder on first use (a rerun adds nothing)."""
        from rqrag.ingest.libraries import open_library

        for level in levels:
            folder = self.out / "indexes" / chunking_label(level)
            library = open_library(
                folder,
                language=self.config.language,
                embedding_model=self.config.embedding_model,
                chunking=chunking_from_level(level),
                encoder=self.encoder.inner,
            )
            for name in self.config.corpus:
                path = resolve_path(name)
                started = time.perf_counter()
                result = library.add(path.read_bytes(), path.name)
                logger.info(
                    "index %s: %s %s (%d chunks, %.1f s)",
                    chunking_label(level),
                    result.status,
                    path.name,
                    result.chunks,
                    time.perf_counter() - started,
                )
            self.libraries[level] = library

    def _retriever(self, cell: Cell) -> CutRetriever:
        chunking = cell.level("chunking")
        mode = self.cell_configs[cell.cell_id].retrieval_mode
        key = (chunking, mode)
        with self._setup_lock:  # remote cells start on several threads at once; each pair gets one cache
            if key not in self.retrievers:
                max_k = max(c.docs_per_search for c in self.cell_configs.values())
                self.retrievers[key] = CutRetriever(self.libraries[chunking].retriever(mode), max_k)
            return self.retrievers[key]

    def _generator(self, decode) -> tuple[Any, Any]:
        from rqrag.inference.build import build_generator

        key = generator_key(decode)
        with self._setup_lock:
            if key not in self.generators:
                self.generators[key] = build_generator(decode)
            return self.generators[key]

    def answerer(self, cell: StudyCell) -> Answerer:
        from rqrag.answer.pipeline import EvidenceSource
        from rqrag.answer.policy import AnsweringPolicy
        from rqrag.inference.decoding.decoder import TreeDecoder

        design_cell = self.design[cell.cell_id]
        decode = self.cell_configs[cell.cell_id]
        retriever = self._retriever(design_cell)
        generator, tokenizer = self._generator(decode)
        # The answer pipeline every surface uses: the question searched first, the tree, the grounded answer.
        policy = AnsweringPolicy.for_decoder(TreeDecoder(decode, generator, tokenizer, retriever), decode)
        source = EvidenceSource(retriever, retriever_name="documents")
        settings = answer_settings(cell_system(design_cell), policy, source, language=self.config.language)
        return Answerer(policy, source, settings)

    # ------------------------------------------------------------------------------------------ running

    def run(self) -> dict[str, Any]:
        if "chunking" not in self.config.factors:
            raise ValueError("the experiment needs a chunking factor (one level is fine): it names the index")
        save_resolved_config(self.out, "rqrag experiment run", self.decode, self.config)
        write_design(list(self.design.values()), self.out)
        writer = ResumableJsonl(self.out / RECORDS_FILE, id_key="id")
        self.cells = [
            StudyCell(c.cell_id, c.levels, writer, remote=self.cell_configs[c.cell_id].backend in REMOTE_BACKENDS)
            for c in self.design.values()
        ]
        self.transient_failures = run_study(self).transient_failures
        return self._summarize(writer)

    def records(self, cell, batch, answers, seconds) -> list[dict]:
        design_cell = self.design[cell.cell_id]
        retriever = self._retriever(design_cell)
        records = []
        for question, answer in zip(batch, answers):
            record = self._record(design_cell, question.item, answer.asked, answer.result, seconds, retriever)
            # Scored on what the user reads: the grounded answer.
            shown = answer.grounded.generated if answer.kind is AnswerKind.UNSOURCED else None
            shown = answer.text if answer.kind.states_an_answer else shown
            record.update(prediction=shown, answer_kind=answer.kind.value, generated=answer.generated)
            record["metrics"].update(answer_scores(record["prediction"], record["gold"]))
            records.append(record)
        self._score_batch(records, retriever)
        return records

    def _record(self, cell: Cell, question: dict, asked, result, seconds: float, retriever: CutRetriever) -> dict:
        first = asked.steps[0].evidence if asked.steps else ()
        best = result.best
        steps = best.trajectory.steps if best is not None else ()
        read = list(dict.fromkeys(h.docid for s in steps for h in s.evidence))
        quotes = [e.get("quote", "") for e in question.get("evidence", [])]
        hit, hit_all = quotes_found(quotes, (retriever.chunk_texts.get(h.docid, h.text) for h in first))
        hit_read, _ = quotes_found(quotes, (retriever.chunk_texts.get(d, "") for d in read))
        return {
            "id": record_id(cell, question["id"]),
            "cell_id": cell.cell_id,
            "question_id": question["id"],
            "run_order": cell.run_order,
            "replicate": cell.replicate,
            "levels": cell.levels,
            "category": question.get("category"),
            "question": question["question"],
            "gold": question["answer"],
            "prediction": result.answer,
            "strategy": result.strategy,
            "first_search": [
                {"docid": h.docid, "pages": [h.extra.get("page_start"), h.extra.get("page_end")]}
                if hasattr(h, "extra")
                else {"docid": h.docid}
                for h in first
            ],
            "read": read,
            "queries": [text for _, text in best.trajectory.queries[1:]] if best is not None else [],
            "trajectories": [
                {"path_id": t.path_id, "answer": t.trajectory.answer, "error": t.error and str(t.error)}
                for t in result.trajectories
            ],
            "error": result.error and str(result.error),
            "seconds": round(seconds, 3),
            "metrics": {
                **answer_scores(result.answer, question["answer"]),
                "evidence_hit": float(hit),
                "evidence_all": float(hit_all),
                "evidence_read": float(hit_read),
            },
        }

    def _score_batch(self, records: list[dict], retriever: CutRetriever) -> None:
        """The metrics that need a model: answer similarity (the embedder) and, with a judge, Ragas."""
        sims = self.similarity([r["prediction"] for r in records], [r["gold"] for r in records])
        for record, sim in zip(records, sims):
            record["metrics"]["similarity"] = sim
        if not self.config.judge_base_url:
            return
        answered = [r for r in records if r["prediction"]]
        samples = [
            {
                "id": r["id"],
                "question": r["question"],
                "answer": r["prediction"],
                "contexts": [retriever.chunk_texts.get(d, "") for d in r["read"]],
                "reference": r["gold"],
            }
            for r in answered
        ]
        scores = ragas_with_retries(samples, self.config) if samples else []
        for record in records:
            record["metrics"].update(dict.fromkeys(RAGAS_JUDGED))
        for record, score in zip(answered, scores):
            record["metrics"].update(score)

    # ------------------------------------------------------------------------------------------ summary

    def _summarize(self, writer: ResumableJsonl) -> dict[str, Any]:
        """Per-cell rows over the records of this design and question set (older records are left out)."""
        wanted = {record_id(c, q["id"]) for c in self.design.values() for q in self.golden}
        records = [r for r in writer.read() if r["id"] in wanted]
        rows = summarize_cells(records, self.metric_names)
        if rows:
            with (self.out / "summary.csv").open("w", newline="", encoding="utf-8") as f:
                writer = csv.DictWriter(f, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
        summary = {
            "name": self.config.name,
            "cells": len(self.design),
            "questions": len(self.golden),
            "records": len(records),
            "complete": len(records) == len(wanted),
            "transient_failures": self.transient_failures,
            "missing_scores": {m: sum(row[f"{m}_missing"] for row in rows) for m in self.metric_names},
            "retrieval": {
                f"{chunking}/{mode}": {"inner_queries": r.inner_queries, "lookups": r.lookups, "max_k": r.max_k}
                for (chunking, mode), r in self.retrievers.items()
            },
            "per_cell": rows,
        }
        (self.out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        return summary


def run_experiment(config: ExperimentConfig, decode) -> dict[str, Any]:
    """Run (or finish) the experiment; returns the summary also written to summary.json."""
    return ExperimentRunner(config, decode).run()
