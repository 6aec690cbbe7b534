"""What one call of the answer pipeline takes and gives: its settings, its evidence, and each question's answer.

    settings = AnswerSettings(decode=config, search_first=True, language="pt")
    source = EvidenceSource(retriever, library, retriever_name="documents")
    answer: PipelineAnswer = pipeline.answer(questions, source, settings)[0]
    answer.to_dict()        # the one shape every surface returns; each adds only its own extras

`Prepared` is a question between the pipeline's retrieval steps and its model steps (`rqrag.answer.pipeline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rqrag.answer.grounding import GroundedAnswer
from rqrag.answer.messages import AnswerKind
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.failures import Failure
from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.retrieval.base import Hit, Retriever


@dataclass(frozen=True)
class AnswerSettings:
    """How to answer, for one call: the tree and selection (`decode`), and the pipeline's own steps."""

    decode: DecodeConfig
    search_first: bool = True  # search the question with its own words before the tree (standard RAG's step)
    grounded: bool = True  # show only supported answers, else quote the evidence
    language: str | None = None  # the answer's language; None: the library's, else the question's
    # tree: the refinement tree (RQ-RAG); ircot or iter_retgen: the iterative baselines with the same model and
    # retriever (rqrag.inference.decoding.iterative), answered, grounded and cited by the same steps.
    method: str = "tree"
    # the question's own search for the reader when the tree does not make it first (`rqrag eval` asks for it: the
    # benchmarks' candidate paragraphs; a served question over documents is searched first anyway)
    reader_search: bool = False


@dataclass
class EvidenceSource:
    """Where this call's evidence comes from: a retriever, and the document library behind it if any (its
    language and the not-found rule)."""

    retriever: Retriever
    library: object | None = None
    retriever_name: str = ""  # what configs and requests call it (`retriever: documents`, `corpus`, `memories` ...)
    not_found: bool = True  # apply the library's not-found rule (off when memories are searched with it)
    personal: bool = False  # a user's memories are searched with it (their questions are searched first)


@dataclass
class PipelineAnswer:
    """One question's outcome: what the user reads, its kind, its sources, and everything behind it."""

    qid: str
    question: str
    text: str
    kind: AnswerKind
    language: str
    sources: list[dict] = field(default_factory=list)
    trajectory: list[dict] = field(default_factory=list)  # the shown path's steps, with their evidence
    result: QuestionResult | None = None  # the tree (None when not found stopped it)
    grounded: GroundedAnswer | None = None
    strategy: str = ""
    error: Failure | None = None  # why the tree gave no answer at all (then `text` says so)
    timings: dict = field(default_factory=dict)
    asked: Question | None = None  # the question as the tree got it: with its own search as a given step
    searched: list[Hit] = field(default_factory=list)  # the question's own search made for the reader only
    short_answer: str | None = None  # a written answer's short answer, shown first and scored on its own
    written: object | None = None  # the writer's outcome (rqrag.answer.writer.Written): shown and dropped sentences

    @property
    def confidence(self) -> float | None:
        """The verifier's calibrated p that the tree's best answer is right (None: no tree, or not grounded)."""
        return self.grounded.confidence if self.grounded is not None else None

    @property
    def tree(self) -> QuestionResult | None:
        """Every trajectory of the tree, scored, with the selection (None when no tree ran: not found, quoted
        without a model)."""
        return self.result

    @property
    def generated(self) -> str | None:
        """The selected trajectory's own answer, shown or not (what the model said)."""
        return self.result.answer_by(self.strategy) if self.result is not None else None

    def to_dict(self, include_tree: bool = False) -> dict:
        """The answer as every surface returns it (`rqrag ask --json`, `/v1/ask`, a chat completion's `rqrag`
        object, `rqrag.Pipeline`); a surface adds only its own extras. `include_tree`: every trajectory and the
        tree's bookkeeping (selection, merges, guards, cost) too."""
        best = self.result.best_by(self.strategy) if self.result is not None else None
        out = {
            "qid": self.qid,
            "question": self.question,
            "answer": self.text,  # what the user reads
            "answer_kind": self.kind.value,
            "confidence": None if self.confidence is None else round(self.confidence, 4),  # calibrated p
            "language": self.language,
            # the sentence(s) that state the answer, read after it, with where they are (title, file, pages)
            "quote": self.grounded.quote_dict() if self.grounded else None,
            "short_answer": self.short_answer,  # a written answer's short answer (answer_kind written)
            "written": _written_dict(self.written),
            "generated_answer": self.generated,  # the selected trajectory's own answer, shown or not
            "strategy": self.strategy,
            "selected_path": best.path_id if best is not None else None,
            "sources": self.sources,
            "evidence_used": bool(self.sources),
            "trajectory": self.trajectory,
            "grounding": self.grounded.to_dict() if self.grounded else None,
            **(self.error.to_record() if self.error else {"error": None}),
            "timings": self.timings,
        }
        if include_tree and self.result is not None:
            tree = self.result.to_dict()
            out.update({key: value for key, value in tree.items() if key not in out and key != "answer"})
        return out


@dataclass
class Prepared:
    """A question after steps 1-3: its language, and either its first search or the not-found answer."""

    question: Question
    language: str
    outside: str | None = None  # the not-found message, when the question is outside the documents
    outside_kind: AnswerKind = AnswerKind.NOT_FOUND  # NO_ANSWER when `outside` says the sources could not be searched
    seconds: float = 0.0
    searched: list[Hit] = field(default_factory=list)  # the question's own search, when the tree did not make it


def _written_dict(written) -> dict | None:
    """The writer's sentences, shown and dropped, each with its citations and its check (None: nothing written)."""
    if written is None:
        return None
    return {
        "short": written.short,
        "shown": [s.to_dict() for s in written.shown],
        "dropped": [s.to_dict() for s in written.dropped],
        "problem": written.problem,
        "reply": written.reply,
        "read": [{"docid": h.docid, "title": h.title, "text": h.text} for h in written.passages],  # what it was given
        "seconds": round(written.seconds, 3),
        "first_sentence_seconds": written.first_sentence_seconds,
        "attempts": written.attempts,
    }
