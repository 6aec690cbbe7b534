"""Run the tree decoder (and the baselines, by the same code) on a benchmark; write predictions as they come.

    rqrag eval --config configs/eval/hotpotqa.yaml --limit 200 [--resume]

For every system in `EvalConfig.systems` the runner appends one JSON line per question to
`<output_dir>/<system>/predictions.jsonl` as soon as its batch is decoded: the gold answers, the answer each
selection strategy picks and its scores, the oracle (best trajectory) scores, retrieval recall of the gold
paragraphs where they are known, and every trajectory with its perplexity and confidence. A killed run loses
at most the batch in flight; `--resume` runs only the questions missing from the file, and a partial last
line is cut off first, so nothing is lost or written twice. `summary.json` and `strategies.png` are rebuilt
from the files at the end, so a resumed run reports on every question.

The benchmark is a study of the evaluation engine (`rqrag.eval.engine`) whose one factor is the system
(`rqrag.eval.systems`); the engine runs it, resumes it and leaves out answers that failed only because a server
could not be reached (`--resume` asks them again). This module says what a benchmark record holds.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
from collections.abc import Sequence
from pathlib import Path

from rqrag.answer.messages import AnswerKind
from rqrag.answer.pipeline import EvidenceSource
from rqrag.answer.policy import AnsweringPolicy
from rqrag.config_loader import ConfigError, save_resolved_config
from rqrag.eval import metrics
from rqrag.eval.benchmark_report import summarize_task, write_reports
from rqrag.eval.engine import Answerer, Study, StudyCell, StudyQuestion, run_study
from rqrag.eval.eval_config import EvalConfig
from rqrag.eval.systems import BENCHMARK_SYSTEMS, answer_settings
from rqrag.eval.tasks import EvalExample, Task, get_task
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.select import STRATEGIES
from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.resumable import ResumableJsonl


logger = logging.getLogger(__name__)

PREDICTIONS = "predictions.jsonl"


def build_task_retriever(task: Task, examples: Sequence[EvalExample], config: DecodeConfig):
    """Multi-hop tasks search each question's own candidate paragraphs (paper App. B.3); the others the
    configured retriever (web in the paper, the embedded corpus offline). `retrieval_mode` (bm25 or dense, as
    in the paper's App. B.4) and `retrieval_cache` apply to both."""
    from rqrag.inference.build import retriever_for

    if task.uses_candidates:
        candidates = dataclasses.replace(config, retriever="candidates")
        return retriever_for(candidates, records=[ex.pool_record() for ex in examples])
    return retriever_for(config)


def question_record(task: Task, example: EvalExample, result: QuestionResult, system: str, seconds: float) -> dict:
    """Everything about one question's outcome, scores included, as one JSON-safe dict."""
    scores = {s: task.score(result.answer_by(s), example) for s in STRATEGIES}
    finished = [t for t in result.trajectories if t.ok]
    zero = dict.fromkeys(task.metric_names, 0.0)
    per_trajectory = [task.score(t.trajectory.answer, example) for t in finished]
    oracle = {m: max((s[m] for s in per_trajectory), default=0.0) for m in task.metric_names} if finished else zero
    record = {
        "id": example.uid,
        "system": system,
        "question": example.question,
        "gold": example.gold_dict(),
        "prediction": result.answer,
        "strategy": result.strategy,
        "selected": result.selected,  # strategy -> index into trajectories
        "scores": scores,
        "oracle": oracle,
        "well_formed": sum(t.well_formed for t in result.trajectories) / max(1, len(result.trajectories)),
        "error": None if result.error is None else str(result.error),
        "seconds": round(seconds, 3),
        # The work the tree saved (rqrag.inference.decoding.expansions / guards / stop_confidence).
        "merged": len(result.merged),
        "guarded": len(result.guarded),
        "stopped_at": result.stopped_at,
        "cost": dict(result.cost),  # model calls, prompt and generated tokens spent on this question
        "trajectories": [t.to_dict() for t in result.trajectories],
    }
    if example.supporting:
        record["retrieval"] = retrieval_record(result, example)
    return record


def retrieval_record(result: QuestionResult, example: EvalExample) -> dict:
    """Recall of the gold paragraphs by the selected trajectory (and the best one), and its ranks."""
    searches_by_index = [
        [[h.docid for h in step.evidence] for step in t.trajectory.steps if step.action.is_query]
        for t in result.trajectories
    ]
    recalls = [
        metrics.supporting_recall([d for s in searches for d in s], set(example.supporting))
        for searches in searches_by_index
    ]
    best = result.selected.get(result.strategy)
    selected_searches = searches_by_index[best] if best is not None else []
    return {
        "recall": recalls[best] if best is not None else 0.0,
        "recall_max": max(recalls, default=0.0),
        "recall_by_trajectory": recalls,
        "ranks": metrics.retrieval_ranks(selected_searches, set(example.supporting)),
    }


def _prepare_output(config: EvalConfig) -> Path:
    out = Path(config.output_dir)
    existing = [out / s / PREDICTIONS for s in config.systems if (out / s / PREDICTIONS).is_file()]
    existing = [p for p in existing if p.stat().st_size > 0]
    if existing and config.overwrite:
        for path in existing:
            shutil.rmtree(path.parent)
    elif existing and not config.resume:
        raise ConfigError(
            f"{out} already holds predictions ({', '.join(str(p) for p in existing)}); "
            "pass --resume to finish that run or --overwrite to start over"
        )
    out.mkdir(parents=True, exist_ok=True)
    return out


SHOWN = (
    AnswerKind.GENERATED,
    AnswerKind.QUOTED,
    AnswerKind.WRITTEN,
)  # the kinds that answer; "not found" and "nothing supported" score as no answer


class BenchmarkStudy(Study):
    """A benchmark as a study whose one factor is the system: one cell (and one predictions file) per system."""

    def __init__(
        self,
        task: Task,
        examples: Sequence[EvalExample],
        config: EvalConfig,
        decode: DecodeConfig,
        out: Path,
        decoder=None,
    ):
        self.task = task
        self.examples = list(examples)
        self.config = config
        self.decode = decode
        self.decoder = decoder  # the caller's, or built in `open` when some question is left
        self.batch_size = config.batch_size
        self.cells = [
            StudyCell(s, {"system": s}, ResumableJsonl(out / s / PREDICTIONS, id_key="id")) for s in config.systems
        ]
        self.questions = [
            StudyQuestion(ex.uid, Question(ex.uid, list(ex.messages), choices=tuple(ex.choices), task=task.name), ex)
            for ex in self.examples
        ]

    def open(self, cells: Sequence[StudyCell]) -> None:
        retriever = build_task_retriever(self.task, self.examples, self.decode)
        if self.decoder is None:
            from rqrag.inference.build import build_decoder

            self.decoder = build_decoder(self.decode, retriever=retriever)
        else:
            self.decoder = self.decoder.using(retriever=retriever)  # the caller's decoder is left as it was

    def answerer(self, cell: StudyCell) -> Answerer:
        # The same answer pipeline as every other surface; this system's settings go with each call.
        system = BENCHMARK_SYSTEMS[cell.cell_id]
        policy = AnsweringPolicy.for_decoder(self.decoder, self.decode)
        source = EvidenceSource(self.decoder.retriever, retriever_name=self.decode.retriever)
        return Answerer(policy, source, answer_settings(system, policy, source, language="en"))

    def records(self, cell, batch, answers, seconds) -> list[dict]:
        records = []
        for question, answer in zip(batch, answers):
            example = question.item
            record = question_record(self.task, example, answer.result, cell.cell_id, seconds)
            # the question's own search, which the reader read beside the tree: a replay reads the same
            record["question_search"] = [h.to_dict() for h in answer.searched]
            if self.decode.grounded:
                # a written answer is scored by its short answer (its sentences are read for "holds the gold")
                shown = (answer.short_answer or answer.text) if answer.kind in SHOWN else None
                record["scores"]["grounded"] = self.task.score(shown, example)
                grounding = answer.grounded.to_dict() if answer.grounded else {}
                record["grounded"] = {**grounding, "answer": answer.text, "kind": answer.kind.value}
                record["grounded"]["short_answer"] = answer.short_answer
                written = answer.to_dict()["written"]
                if written is not None:
                    record["grounded"]["written"] = written
                    record["grounded"]["cited_sources"] = [s for s in answer.sources if s.get("cited")]
            records.append(record)
        return records


def run_eval(config: EvalConfig, decode: DecodeConfig, decoder=None) -> dict:
    """Evaluate every configured system on the task; returns the summary (also written to summary.json)."""
    task = get_task(config.task)
    examples, load_stats = task.load(config.data_file, config.split, config.limit)
    out = _prepare_output(config)
    save_resolved_config(out, "rqrag eval", decode, config)
    logger.info("%s: %d questions (%s)", task.name, len(examples), load_stats.as_dict())

    study = BenchmarkStudy(task, examples, config, decode, out, decoder)
    stats = run_study(study)
    prompting = study.decoder.prompting if study.decoder else decode.prompting
    label = config.label or f"{Path(decode.model).name} ({prompting})"
    records = {c.cell_id: list(c.writer.read()) for c in study.cells}
    summary = summarize_task(task, examples, records, label)
    summary["questions_loaded"] = load_stats.as_dict()
    if stats.transient_failures:  # not recorded: `--resume` asks them again
        summary["transient_failures"] = stats.transient_failures
    write_reports(out, summary)
    return summary
