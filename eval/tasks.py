"""One small class per benchmark: where its questions come from, how an answer is scored, how it retrieves.

    task = get_task("hotpotqa")
    examples, stats = task.load(limit=200)                  # eval-split ids of the shipped file
    task.score("Chief of Protocol", examples[0])            # {"em": 1.0, "f1": 1.0}

Questions are read by the data-construction loaders (`rqrag/benchmarks/sources.py`), so the slices shipped in
`rqrag/benchmarks/data/`, the full files `rqrag data fetch` downloads (preferred when present) and the hub
layouts (`hf:name[:config]:split`) all work, and only the ids
of the *eval* split (`rqrag/benchmarks/splits/`) are used: the shipped model never saw them in training.

| task            | metric(s)        | retrieval at inference (paper App. B.3)                    | depth |
|-----------------|------------------|------------------------------------------------------------|-------|
| hotpotqa        | em, f1           | the question's candidate paragraphs, 3 per search           | 2     |
| 2wikimultihopqa | em, f1           | candidates                                                  | 4     |
| musique         | em, f1           | candidates                                                  | 4     |
| arc_challenge   | acc              | the configured retriever (web in the paper; corpus offline) | 2     |
| openbookqa      | acc              | configured retriever                                        | 2     |
| popqa           | match            | configured retriever                                        | 2     |
| asqa            | str_em           | configured retriever                                        | 2     |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rqrag.benchmarks.files import default_file
from rqrag.benchmarks.sources import SourceExample, parse_records
from rqrag.benchmarks.splits import load_split
from rqrag.eval import metrics
from rqrag.records import ReadStats, read_records
from rqrag.retrieval.candidate_paragraphs import candidate_docid


@dataclass(frozen=True)
class EvalExample:
    """A benchmark question with everything needed to score an answer to it."""

    uid: str  # "<source>:<id>", also the candidates retriever's question id
    messages: tuple[dict, ...]
    golds: tuple[str, ...]
    choices: tuple[tuple[str, str], ...] = ()
    gold_label: str | None = None
    answer_sets: tuple[tuple[str, ...], ...] = ()
    supporting: frozenset[str] = frozenset()  # candidate docids of the gold paragraphs
    pool: tuple[dict, ...] = ()

    @property
    def question(self) -> str:
        return self.messages[-1]["content"]

    def pool_record(self) -> dict:
        return {"question_id": self.uid, "contexts": list(self.pool)}

    def gold_dict(self) -> dict:
        out: dict[str, Any] = {"answers": list(self.golds)}
        if self.gold_label:
            out["label"] = self.gold_label
        if self.supporting:
            out["supporting"] = sorted(self.supporting)
        return out


@dataclass
class LoadStats:
    read: ReadStats = field(default_factory=ReadStats)
    unusable: int = 0
    outside_split: int = 0
    duplicates: int = 0

    def as_dict(self) -> dict:
        return {
            "records_read": self.read.read,
            "malformed_lines": self.read.skipped,
            "unusable_records": self.unusable,
            "outside_split": self.outside_split,
            "duplicates": self.duplicates,
        }


class Task:
    name: ClassVar[str]
    source: ClassVar[str]  # the data-construction loader
    metric_names: ClassVar[tuple[str, ...]]
    uses_candidates: ClassVar[bool] = False
    default_depth: ClassVar[int] = 2

    @property
    def primary_metric(self) -> str:
        return self.metric_names[-1]

    def default_file(self) -> str:
        """The fetched full file, else the slice shipped in the package (every eval id is in it)."""
        return str(default_file(self.source))

    def load(
        self, data_file: str | None = None, split: str = "eval", limit: int | None = None
    ) -> tuple[list[EvalExample], LoadStats]:
        """The task's questions, in file order. `split="eval"` keeps held-out ids of the shipped file only;
        `split="train"` its training ids only (the trees the answer verifier is fitted on, never scored as a
        benchmark); a file of your own (`data_file`) is used whole, as is `split="all"`."""
        stats = LoadStats()
        path = data_file or self.default_file()
        ids = load_split(self.source) if split != "all" and data_file is None else None
        if split not in ("eval", "train", "all"):
            raise ValueError(f"split must be 'eval', 'train' or 'all', got {split!r}")
        keep = None if ids is None else (ids.train if split == "train" else ids.eval)

        def unusable(position: int, reason: str) -> None:
            stats.unusable += 1

        examples: list[EvalExample] = []
        seen: set[str] = set()
        for source_example in parse_records(self.source, read_records(path, stats.read), unusable):
            if keep is not None and source_example.source_id not in keep:
                stats.outside_split += 1
                continue
            if source_example.uid in seen:
                stats.duplicates += 1
                continue
            seen.add(source_example.uid)
            examples.append(self.example(source_example))
            if limit is not None and len(examples) >= limit:
                break
        if not examples:
            raise ValueError(f"{self.name}: no usable question in {path} ({stats.as_dict()})")
        return examples, stats

    def example(self, ex: SourceExample) -> EvalExample:
        return EvalExample(uid=ex.uid, messages=ex.messages, golds=ex.aliases or (ex.answer,))

    def score(self, prediction: str | None, example: EvalExample) -> dict[str, float]:
        raise NotImplementedError


class MultiHopTask(Task):
    metric_names = ("em", "f1")
    uses_candidates = True

    def example(self, ex: SourceExample) -> EvalExample:
        uid = ex.uid
        supporting = frozenset(candidate_docid(uid, p["idx"]) for p in ex.pool if p.get("is_supporting"))
        return EvalExample(uid=uid, messages=ex.messages, golds=ex.aliases, supporting=supporting, pool=ex.pool)

    def score(self, prediction, example):
        return {
            "em": metrics.exact_match(prediction or "", example.golds),
            "f1": metrics.f1(prediction or "", example.golds),
        }


class HotpotQA(MultiHopTask):
    name = source = "hotpotqa"


class TwoWikiMultihopQA(MultiHopTask):
    name = source = "2wikimultihopqa"
    default_depth = 4


class MuSiQue(MultiHopTask):
    name = source = "musique"
    default_depth = 4


class MultipleChoiceTask(Task):
    metric_names = ("acc",)

    def example(self, ex: SourceExample) -> EvalExample:
        label = ex.extra["answer_label"]
        return EvalExample(
            uid=ex.uid, messages=ex.messages, golds=(dict(ex.choices)[label],), choices=ex.choices, gold_label=label
        )

    def score(self, prediction, example):
        return {"acc": metrics.choice_accuracy(prediction or "", example.choices, example.gold_label)}


class ARCChallenge(MultipleChoiceTask):
    name = source = "arc_challenge"


class OpenBookQA(MultipleChoiceTask):
    name = source = "openbookqa"


class PopQA(Task):
    name = source = "popqa"
    metric_names = ("match",)

    def score(self, prediction, example):
        return {"match": metrics.match(prediction or "", example.golds)}


class ASQA(Task):
    name = source = "asqa"
    metric_names = ("str_em",)

    def example(self, ex: SourceExample) -> EvalExample:
        sets = tuple(tuple(s) for s in ex.extra.get("answer_sets", []) if s)
        return EvalExample(uid=ex.uid, messages=ex.messages, golds=ex.aliases, answer_sets=sets)

    def score(self, prediction, example):
        return {"str_em": metrics.str_em(prediction or "", example.answer_sets)}


TASKS: Mapping[str, type[Task]] = {
    cls.name: cls for cls in (HotpotQA, TwoWikiMultihopQA, MuSiQue, ARCChallenge, OpenBookQA, PopQA, ASQA)
}


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; choose from {sorted(TASKS)}")
    return TASKS[name]()
