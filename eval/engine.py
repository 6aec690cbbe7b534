"""The one evaluation engine: every cell of a study answers every question through the answer pipeline, batch by
batch, and each scored answer is appended to a resumable file the moment its batch ends.

    stats = run_study(study)        # study: a Study (cells, questions, how to answer and score them)

A study is cells x questions. A benchmark run (`rqrag eval`, `eval/runner.py`) is a study whose one factor is
the system (`eval/systems.py`: rqrag, no_retrieval, standard_rag); a designed experiment (`rqrag experiment
run`, `eval/experiments/runner.py`) one whose factors are chunking, search mode, k, generator, refinement and any
decode setting. What they share is here:

* **resume** — records go to `rqrag.resumable.ResumableJsonl` files (one per cell or one for all, as the study
  chooses) and a (cell, question) whose record id is already there is not asked again. Each batch is
  flushed and fsynced when written, so a killed run (even `kill -9`) loses at most the batches in flight, and
  the torn last line it may leave is cut off when the file is reopened: a rerun writes each missing record
  once and none twice;
* **transient failures** — an answer that failed only because the generator or the retriever could not be
  reached is not recorded, so the next run asks again (an outcome that would repeat is recorded as it is);
* **concurrency** — cells whose generator is a server run on a pool of `concurrency` threads while the cells
  of an in-process model run one at a time (a loaded model is not shared between threads);
* **laziness** — `Study.open` (models, indexes, retrievers) is called only when some cell has work left.

What differs stays with the study: its record (what is scored and how) and its report.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tqdm.auto import tqdm

from rqrag.answer.pipeline import AnswerSettings, EvidenceSource, PipelineAnswer
from rqrag.answer.policy import AnsweringPolicy
from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.resumable import ResumableJsonl


logger = logging.getLogger(__name__)


@dataclass
class StudyCell:
    """One run of the study: its id, the levels of its factors, and the file its records go to."""

    cell_id: str
    levels: dict[str, Any]
    writer: ResumableJsonl
    remote: bool = False  # its generator is a server: it may run on a thread beside other cells


@dataclass(frozen=True)
class StudyQuestion:
    qid: str
    question: Question  # what the answer pipeline is asked
    item: Any  # what the study scores against (a benchmark example, a golden row)


@dataclass(frozen=True)
class Answerer:
    """How one cell answers: the answering policy (its decoder), where evidence comes from, and this cell's settings
    (made by the policy)."""

    policy: AnsweringPolicy
    source: EvidenceSource
    settings: AnswerSettings


@dataclass
class RunStats:
    cells_run: int = 0
    answers_written: int = 0
    transient_failures: int = 0  # answers not recorded because a server failed; the next run retries them


class Study(ABC):
    """What the engine needs from a study; `cells` and `questions` are set by the subclass."""

    cells: list[StudyCell]
    questions: list[StudyQuestion]
    batch_size: int = 8
    concurrency: int = 1

    def record_id(self, cell: StudyCell, question: StudyQuestion) -> str:
        """The id of the record a cell writes for a question (unique in that cell's file)."""
        return question.qid

    @abstractmethod
    def open(self, cells: Sequence[StudyCell]) -> None:
        """Load what the cells still to run need (models, indexes, retrievers); not called when nothing is left."""

    @abstractmethod
    def answerer(self, cell: StudyCell) -> Answerer:
        """The policy, evidence source and settings `cell` answers with (called on the cell's own thread)."""

    @abstractmethod
    def records(
        self,
        cell: StudyCell,
        batch: Sequence[StudyQuestion],
        answers: Sequence[PipelineAnswer],
        seconds: float,
    ) -> list[dict[str, Any]]:
        """One scored record per question of the batch, each with its `record_id` under the writer's id key."""


def failed_for_now(result: QuestionResult | None) -> bool:
    """Whether a question failed only because the generator or the retriever could not be reached (a rerun may
    succeed), as opposed to an outcome that would repeat (unusable output, a question beyond the context)."""
    if result is None:
        return False
    return any(t.error is not None and t.error.kind.transient for t in result.trajectories)


def pending_questions(study: Study) -> dict[str, list[StudyQuestion]]:
    """Per cell id, the questions whose record is not yet in the cell's file."""
    return {
        cell.cell_id: [q for q in study.questions if study.record_id(cell, q) not in cell.writer]
        for cell in study.cells
    }


class _StudyRun:
    """One call of `run_study`: the progress bar, the write lock and the counts shared by the cells' threads."""

    def __init__(self, study: Study, pending: dict[str, list[StudyQuestion]], todo: list[StudyCell]):
        self.study = study
        self.pending = pending
        self.todo = todo
        self.stats = RunStats()
        self.lock = threading.Lock()
        total = sum(len(pending[c.cell_id]) for c in todo)
        self.progress = tqdm(total=total, unit="answer", desc=f"cells 0/{len(todo)} done", dynamic_ncols=True)

    def run(self) -> None:
        remote = [c for c in self.todo if c.remote]
        local = [c for c in self.todo if not c.remote]
        try:
            with ThreadPoolExecutor(max_workers=self.study.concurrency, thread_name_prefix="cell") as pool:
                futures = [pool.submit(self.run_cell, c) for c in remote]
                for cell in local:  # one at a time: an in-process model is not shared between threads
                    self.run_cell(cell)
                for future in futures:
                    future.result()  # re-raises a remote cell's failure
        finally:
            self.progress.close()

    def run_cell(self, cell: StudyCell) -> None:
        answerer = self.study.answerer(cell)
        questions = self.pending[cell.cell_id]
        size = self.study.batch_size
        for start in range(0, len(questions), size):
            batch = questions[start : start + size]
            started = time.perf_counter()
            answers = answerer.policy.answer([q.question for q in batch], answerer.source, answerer.settings)
            seconds = (time.perf_counter() - started) / len(batch)
            records = self.study.records(cell, batch, answers, seconds)
            with self.lock:
                for record, answer in zip(records, answers):
                    if failed_for_now(answer.result):  # not written: the rerun asks again
                        self.stats.transient_failures += 1
                        continue
                    self.stats.answers_written += cell.writer.append(record)
                cell.writer.sync()
                self.progress.update(len(batch))
        with self.lock:
            self.stats.cells_run += 1
            left = len(self.todo) - self.stats.cells_run
            self.progress.set_description(f"cells {self.stats.cells_run}/{len(self.todo)} done, {left} left")


def run_study(study: Study) -> RunStats:
    """Answer every (cell, question) not yet recorded; the cells' files are closed (and synced) on return."""
    try:
        pending = pending_questions(study)
        todo = [c for c in study.cells if pending[c.cell_id]]
        logger.info(
            "%d cells x %d questions: %d cells to run (%d answers)",
            len(study.cells),
            len(study.questions),
            len(todo),
            sum(len(v) for v in pending.values()),
        )
        if not todo:
            return RunStats()
        study.open(todo)
        run = _StudyRun(study, pending, todo)
        run.run()
        if run.stats.transient_failures:
            logger.warning("%d answers failed on an unreachable server: run again", run.stats.transient_failures)
        return run.stats
    finally:
        for writer in {id(c.writer): c.writer for c in study.cells}.values():
            writer.close()
