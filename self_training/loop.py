"""Self-training from the tree (rejection sampling / expert iteration): the model's own right answers
that searched their way to the gold paragraphs become training data.

    rqrag data self-train --config configs/data/self_train.yaml
    rqrag data self-train --config configs/data/self_train.yaml --sources hotpotqa:20 2wikimultihopqa:10 musique:10
    rqrag data self-train --config configs/data/self_train.yaml --model runs/train/selftrain_r1 --round 2 \
        --out_dir runs/data/self_train_r2 --seed 1

The sampled tree (queries at temperature 1.0, `width` samples per refinement kind, answers greedy) runs on the
TRAINING ids of HotpotQA, 2WikiMultihopQA and MuSiQue (`rqrag/benchmarks/splits/`; an eval id is refused even
when a file of your own holds it), each question searching its own candidate paragraphs, batched by the
evaluation engine (`eval/engine.py`: the same answer pipeline, resume and progress bar as `rqrag eval`).
`self_training/selection.py` keeps per question the right trajectory that found the gold with the fewest
searches and passes the query filter, its answer replaced by the short gold span; when the model's own direct
answer already held the gold, a second record teaches that direct answer as the short span. Output, as `rqrag
data build`: `data.jsonl` (records `training/data.py` reads; `metadata.origin = "self_train"`), `direct.jsonl`
(the direct answers, `origin = "self_train_direct"`), `dropped.jsonl` (a reason per question), `report.json`
and a printed table (kept per source and per refinement kind, drop reasons, answer words), `resolved_config.yaml`. Rerunning the same command resumes: no question is lost or written twice.
"""

from __future__ import annotations

import functools
import json
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rqrag.answer.pipeline import EvidenceSource
from rqrag.answer.policy import AnsweringPolicy
from rqrag.benchmarks.files import default_file
from rqrag.benchmarks.source_spec import parse_source_spec
from rqrag.benchmarks.sources import parse_records
from rqrag.benchmarks.splits import load_split
from rqrag.config_loader import concern, save_resolved_config
from rqrag.eval.engine import Answerer, Study, StudyCell, StudyQuestion, run_study
from rqrag.eval.runner import build_task_retriever
from rqrag.eval.tasks import EvalExample, MultiHopTask, get_task
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.records import ReadStats, read_records
from rqrag.resumable import ResumableJsonl
from rqrag.retrieval.base import Hit
from rqrag.retrieval.candidate_paragraphs import candidate_docid
from rqrag.self_training.run_report import (  # the output files, and the report over them (re-exported here)
    DATA_FILE,
    DIRECT_FILE,
    DROPPED_FILE,
    REPORT_FILE,
    build_report,
)
from rqrag.self_training.run_report import (
    format_report as format_report,
)
from rqrag.self_training.selection import (
    Candidate,
    SelectionRules,
    choose,
    knew_directly,
    score_trajectory,
    training_trajectory,
)
from rqrag.trajectory import Step, Trajectory
from rqrag.trajectory_render import render_assistant


logger = logging.getLogger(__name__)

SOURCES = ("hotpotqa", "2wikimultihopqa", "musique")  # the benchmarks with candidates and gold paragraphs


@concern(
    "self-training",
    "which training questions are decoded, which trajectories are kept, where the rows go",
    common=("out_dir", "sources", "round"),
)
@dataclass
class SelfTrainConfig:
    out_dir: str = field(default="runs/data/self_train", metadata={"help": "data.jsonl, dropped.jsonl, report"})
    sources: list[str] = field(
        default_factory=lambda: list(SOURCES),
        metadata={
            "help": "multi-hop sources, each `name`, `name:limit` (the first `limit` training ids) or `name:start-end` "
            "(training ids start+1..end in file order: a later round's questions that an earlier round did not use)"
        },
    )
    source_files: list[str] = field(
        default_factory=list,
        metadata={"help": "overrides `name=path` (JSON/JSONL); ids of the eval split are refused there too"},
    )
    benchmarks_dir: str | None = field(
        default=None,
        metadata={"help": "folder of the full benchmark files (default: RQRAG_BENCHMARKS_DIR, else the slices)"},
    )
    min_f1: float = field(default=0.8, metadata={"help": "answer F1 against the gold that counts as right"})
    require_supporting: Literal["all", "any", "none"] = field(
        default="all",
        metadata={"help": "gold paragraphs a kept trajectory's searches must have found (none: direct answers too)"},
    )
    query_filter: bool = field(
        default=True, metadata={"help": "reject trajectories whose queries fail data_construction/query_filter.py"}
    )
    full_passages: bool = field(
        default=True,
        metadata={
            "help": "write each evidence passage whole (as rqrag data build), not cut to the decoder's "
            "evidence_max_words: training cuts with its own --evidence_max_words"
        },
    )
    direct_records: bool = field(
        default=True,
        metadata={
            "help": "also write a question's direct answer as its short gold span (direct.jsonl) when the model's "
            "own direct answer held a gold answer: short direct answers, learnt only where the model knew"
        },
    )
    max_length: int = field(default=2048, metadata={"help": "drop records longer than this many tokens"})
    round: int = field(default=1, metadata={"help": "expert-iteration round, written into each record"})
    batch_size: int = field(default=4, metadata={"help": "questions decoded together (one tree each)"})

    def __post_init__(self):
        if not 0.0 < self.min_f1 <= 1.0:
            raise ValueError(f"min_f1 must be in (0, 1], got {self.min_f1}")
        for spec in self.sources:
            name = parse_source_spec(spec).name
            if name not in SOURCES:
                raise ValueError(f"self-training reads {list(SOURCES)} (candidates and gold paragraphs), not {name!r}")

    @property
    def rules(self) -> SelectionRules:
        return SelectionRules(self.min_f1, self.require_supporting, self.query_filter)


class EvalIdRefused(ValueError):
    """A question of the eval split was about to become training data."""


def load_training_questions(config: SelfTrainConfig) -> tuple[list[tuple[MultiHopTask, EvalExample]], dict]:
    """Every training-id question of each source (file order, up to its limit), with candidates and gold.

    Only ids listed as `train` in the source's split file are read; an id of the eval split is counted and
    skipped, in the shipped files and in a file of your own alike (no split file: the source is refused)."""
    overrides = dict(item.split("=", 1) for item in config.source_files)
    questions: list[tuple[MultiHopTask, EvalExample]] = []
    stats: dict[str, dict[str, int]] = {}
    for spec in map(parse_source_spec, config.sources):
        source = spec.name
        split = load_split(source)
        if split is None:
            raise EvalIdRefused(f"{source} has no split file: its eval ids cannot be kept out")
        task = get_task(source)
        path = overrides.get(source) or str(default_file(source, config.benchmarks_dir))
        read = ReadStats()
        st = stats.setdefault(source, Counter())
        seen: set[str] = set()

        def unusable(position: int, reason: str, st: Counter = st) -> None:
            st["unusable"] += 1

        for ex in parse_records(source, read_records(path, read), unusable):
            if ex.source_id in split.eval:
                st["eval_ids_refused"] += 1
                continue
            if ex.source_id not in split.train and source not in overrides:
                st["outside_split"] += 1
                continue
            if ex.uid in seen or not ex.pool:
                st["unusable"] += 1
                continue
            seen.add(ex.uid)
            position = len(seen)  # 1-based among this source's usable training questions
            if spec.before(position):
                st["before_range"] += 1
                continue
            questions.append((task, task.example(ex)))
            st["selected"] += 1
            if spec.last(position):
                break
        st["records_read"] = read.read
    return questions, {s: dict(c) for s, c in stats.items()}


def refuse_eval_id(uid: str) -> None:
    """The last gate before a record is written: its id must not be in its source's eval split."""
    source, _, source_id = uid.partition(":")
    split = _split(source)
    if split is None or source_id in split.eval:
        raise EvalIdRefused(f"{uid} is an eval id (or its source has no split): never training data")


@functools.cache
def _split(source: str):
    return load_split(source)


class KeptOrDropped:
    """The engine's writer for a self-training run: a record with a `reason` goes to dropped.jsonl, any other
    to data.jsonl; a question found in either file is done (both are `ResumableJsonl`: a killed run resumes).
    A record's `direct` companion goes to direct.jsonl first, so a run killed between the two writes redoes the
    question and the companion, already there, is not written twice."""

    def __init__(self, out_dir: Path):
        self.data = ResumableJsonl(out_dir / DATA_FILE)
        self.direct = ResumableJsonl(out_dir / DIRECT_FILE)
        self.dropped = ResumableJsonl(out_dir / DROPPED_FILE)

    def __contains__(self, record_id: str) -> bool:
        return record_id in self.data or record_id in self.dropped

    def append(self, record: dict) -> bool:
        direct = record.pop("direct", None)
        if direct is not None:
            refuse_eval_id(str(direct["id"]))
            self.direct.append(direct)
        if "reason" in record:
            return self.dropped.append(record)
        refuse_eval_id(str(record["id"]))
        return self.data.append(record)

    def sync(self) -> None:
        for file in (self.data, self.direct, self.dropped):
            file.sync()

    def close(self) -> None:
        for file in (self.data, self.direct, self.dropped):
            file.close()


class SelfTrainStudy(Study):
    """One cell (the sampled tree) over the training questions; each record is a kept trajectory or a drop."""

    def __init__(self, config: SelfTrainConfig, decode: DecodeConfig, questions, out: Path, decoder=None):
        self.config = config
        self.decode = decode
        self.decoder = decoder  # the caller's (tests), else built in `open`
        self.batch_size = config.batch_size
        self.writer = KeptOrDropped(out)
        self.cells = [StudyCell("self_train", {"round": config.round}, self.writer)]
        self.questions = [
            StudyQuestion(ex.uid, Question(ex.uid, list(ex.messages)), (task, ex)) for task, ex in questions
        ]

    def open(self, cells: Sequence[StudyCell]) -> None:
        items = [q.item for q in self.questions]
        retriever = build_task_retriever(items[0][0], [ex for _, ex in items], self.decode)
        if self.decoder is None:
            from rqrag.inference.build import build_decoder

            self.decoder = build_decoder(self.decode, retriever=retriever)
        else:
            self.decoder = self.decoder.using(retriever=retriever)

    def answerer(self, cell: StudyCell) -> Answerer:
        # No grounding and no first search: the trajectories are the model's own, as the tree wrote them.
        policy = AnsweringPolicy.for_decoder(self.decoder, self.decode)
        source = EvidenceSource(self.decoder.retriever, retriever_name="candidates")
        settings = policy.settings(source, language="en", search_first=False, grounded=False)
        return Answerer(policy, source, settings)

    def records(self, cell, batch, answers, seconds) -> list[dict]:
        return [self.record(q.item[0], q.item[1], answer.result) for q, answer in zip(batch, answers)]

    def record(self, task: MultiHopTask, ex: EvalExample, result: QuestionResult | None) -> dict:
        rules = self.config.rules
        candidates = [
            score_trajectory(
                t.path_id,
                t.trajectory,
                finished=t.ok,
                confidence=t.scored().confidence if t.ok else 0.0,
                question=ex.question,
                golds=ex.golds,
                supporting=set(ex.supporting),
            )
            for t in (result.trajectories if result is not None else [])
        ]
        choice = choose(candidates, rules)
        knew = knew_directly(candidates, ex.question, ex.golds) if self.config.direct_records else None
        direct = self.training_record(ex, knew, "self_train_direct", choice.by_kind) if knew else None
        companion = {"direct": direct} if direct is not None and "reason" not in direct else {}
        if choice.kept is None:
            detail = choice.detail or (result.error if result is not None else "") or ""
            drop = {"reason": choice.reason, "detail": detail, "by_kind": choice.by_kind}
            return {**self.identity(ex), **drop, **companion}
        record = self.training_record(ex, choice.kept, "self_train", choice.by_kind)
        return {**record, **companion}

    def training_record(self, ex: EvalExample, kept: Candidate, origin: str, by_kind: dict) -> dict:
        """`kept` as a record training/data.py reads (its answer the short gold span), or a `too_long` drop."""
        common = self.identity(ex)
        trajectory = training_trajectory(kept)
        if self.config.full_passages:
            trajectory = whole_passages(trajectory, ex)
        record = {
            "id": ex.uid,
            "messages": [*ex.messages, {"role": "assistant", "content": render_assistant(trajectory)}],
            "trajectory": trajectory.to_dict(),
            "metadata": {
                **{k: common[k] for k in ("source", "source_id", "round")},
                "qid": ex.uid,
                "origin": origin,
                "refinement": kept.refinement,
                "n_searches": kept.n_searches,
                "f1": round(kept.f1, 4),
                "recall": kept.recall,
                "confidence": round(kept.confidence, 4),
                "path_id": kept.path_id,
                "model_answer": kept.trajectory.answer,
                "gold_answers": list(ex.golds),
                "model": self.decode.model,
                "by_kind": by_kind,
            },
        }
        n_tokens = self.n_tokens(record)
        if n_tokens > self.config.max_length:
            return {**common, "reason": "too_long", "detail": f"{n_tokens} tokens", "by_kind": by_kind}
        record["metadata"]["n_tokens"] = n_tokens
        return record

    def identity(self, ex: EvalExample) -> dict:
        """What every record of a question carries, kept or dropped: its id, source and round."""
        source, _, source_id = ex.uid.partition(":")
        return {"id": ex.uid, "source": source, "source_id": source_id, "round": self.config.round}

    def n_tokens(self, record: dict) -> int:
        """Length as training tokenizes it (training/data.py): also proves the record parses back."""
        from rqrag.training.data import tokenize_record

        return len(tokenize_record(record, self.decoder.tokenizer)["input_ids"])


def whole_passages(trajectory: Trajectory, ex: EvalExample) -> Trajectory:
    """The same steps with each hit's passage as the candidate pool holds it (the decoder read a cut copy)."""
    pool = {candidate_docid(ex.uid, p["idx"]): p for p in ex.pool}

    def whole(hit: Hit) -> Hit:
        para = pool.get(hit.docid)
        if para is None:
            return hit
        return Hit(hit.docid, para.get("title", hit.title), para.get("paragraph_text", hit.text), hit.score)

    return Trajectory(tuple(Step(s.action, s.text, tuple(whole(h) for h in s.evidence)) for s in trajectory.steps))


def run_self_training(config: SelfTrainConfig, decode: DecodeConfig, decoder=None) -> dict:
    """Decode, select and write every training question not yet done; returns the report (also report.json)."""
    out = Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    save_resolved_config(out, "rqrag data self-train", decode, config)
    questions, load_stats = load_training_questions(config)
    logger.info("%d training questions (%s)", len(questions), load_stats)
    study = SelfTrainStudy(config, decode, questions, out, decoder)
    stats = run_study(study)
    report = build_report(out, [ex.uid for _, ex in questions], load_stats)
    report["this_run"] = {"written": stats.answers_written, "transient_failures": stats.transient_failures}
    (out / REPORT_FILE).write_text(json.dumps(report, indent=1) + "\n")
    return report
