"""The answer verifier: a calibrated probability that a candidate answer of the tree is right, and the threshold
above which it is shown as `generated`.

A logistic regression over the candidate features of `rqrag.answer.candidate_answers` (standardised), fitted
by `rqrag fit verifier` on the model's own trees over *training* ids of HotpotQA, 2Wiki and MuSiQue with
their gold answers, and saved beside the model as `verifier/verifier.json`:

    {"features": [...], "mean": [...], "scale": [...], "coef": [...], "intercept": b,
     "threshold": t, "precision_target": 0.8, "report": {...}}

It scores through the one `rqrag.logistic.LogisticScorer` (the reader's models are the same shape); the file keeps
the scorer's fields at its top level, as it always has. Scoring needs numpy only (no scikit-learn at run time). A model without its own verifier uses the default
model's (`DEFAULT_VERIFIER`), and every answer says which verifier judged it.

    verifier = Verifier.for_model("rqrag-smollm2-135m")      # its verifier/, else the default model's
    verifier.score(candidates)                                # sets candidate.p, returns them best first
    verifier.confident(candidates[0])                         # p >= threshold: shown as generated
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rqrag.answer.candidate_answers import FEATURES, AnswerCandidate
from rqrag.logistic import LogisticScorer, require_known


# The features a verifier may score besides the tree's candidates' (`FEATURES`): a model reading's, what the
# decision on a reading is fitted over (`rqrag.answer.reading.model_decision.decision_features`; the fit:
# rqrag fit decision on training ids): how sure the model was of its answer's tokens, whether a sentence it
# cited holds the answer or only one it did not cite, how far down the extractive ranking that sentence was, the
# model's own yes/no check of the quote, the answer's length, whether the question is a yes/no one, and how much of
# the question the quote (with its page's title) and the quote's whole passage speak of: a 1.5B model names an answer
# from evidence about something else as surely as from the right page, so whether the quote is *about* the question
# must come from the words.
READING_FEATURES = (
    "log_p",
    "cited_holds",
    "quote_rank",
    "verified",
    "answer_words",
    "yes_no",
    "quote_overlap",
    "passage_overlap",
)


VERIFIER_DIR = "verifier"
VERIFIER_FILE = "verifier.json"


def _models_dir() -> Path:
    from rqrag.paths import models_dir

    return models_dir()


@dataclass(frozen=True)
class Verifier:
    """Standardised features -> logistic -> p(correct); `threshold` chosen for the precision target."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    precision_target: float = 0.8
    source: str = ""  # which model's verifier it is (reported with every answer): its folder's name, never a path
    report: dict = field(default_factory=dict, compare=False)
    # the shared scorer built from the five fields above (made here, so `dataclasses.replace` remakes it too)
    scorer: LogisticScorer = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        # the tree's candidates, or a model reader's reading (the same logistic form judges both)
        require_known(self.features, {*FEATURES, *READING_FEATURES}, "verifier")
        scorer = LogisticScorer(self.features, self.mean, self.scale, self.coef, self.intercept)  # checks lengths
        object.__setattr__(self, "scorer", scorer)

    @classmethod
    def of(cls, scorer: LogisticScorer, threshold: float, precision_target: float = 0.8, **rest) -> Verifier:
        """A verifier scoring with a fitted `scorer` (`rest`: source, report)."""
        s = scorer
        return cls(s.features, s.mean, s.scale, s.coef, s.intercept, threshold, precision_target, **rest)

    def probability(self, features: dict[str, float]) -> float:
        return self.scorer.probability(features)

    def score(self, candidates: Sequence[AnswerCandidate]) -> list[AnswerCandidate]:
        """Sets each candidate's `p`; returns them by p, highest first (ties: the more voted, the earlier)."""
        for c, p in zip(candidates, self.scorer.probabilities([c.features for c in candidates])):
            c.p = float(p)
        return sorted(candidates, key=lambda c: -c.p)

    def confident(self, candidate: AnswerCandidate) -> bool:
        return candidate.p is not None and candidate.p >= self.threshold

    # ------------------------------------------------------------------------------------------ files

    def to_dict(self) -> dict:
        # the scorer's fields first, at the top level: the format of every verifier.json already shipped
        return {
            **self.scorer.to_dict(),
            "threshold": self.threshold,
            "precision_target": self.precision_target,
            "report": self.report,
        }

    def save(self, folder: str | Path) -> Path:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / VERIFIER_FILE
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Verifier:
        path = Path(path)
        if path.is_dir():
            path = path / VERIFIER_FILE if (path / VERIFIER_FILE).is_file() else path / VERIFIER_DIR / VERIFIER_FILE
        data = json.loads(path.read_text())
        return cls.of(
            LogisticScorer.from_dict(data, {*FEATURES, *READING_FEATURES}, "verifier"),
            float(data["threshold"]),
            float(data.get("precision_target", 0.8)),
            # the model folder's name (".../rqrag-smollm2-135m-selftrain/verifier/verifier.json"): an answer the
            # server returns says which verifier judged it without giving away where the server keeps its files
            source=Path(path).parent.parent.name if Path(path).parent.name == VERIFIER_DIR else Path(path).stem,
            report=data.get("report", {}),
        )

    @classmethod
    def for_model(cls, model: str | None) -> Verifier:
        """The verifier saved beside `model` (a folder, or a name under models/), else the default model's."""
        return _for_model(str(model or ""))


# The default model's verifier: the one used for models that have none of their own (a user's 7B, a chat endpoint).
DEFAULT_VERIFIER_MODEL = "rqrag-smollm2-135m-selftrain"


@functools.lru_cache(maxsize=8)
def _for_model(model: str) -> Verifier:
    # a training output folder, or a name under models/ ("rqrag-smollm2-135m"); a hub id has nothing beside it
    # (the user's own folder first: a model trained with its own verifier needs no rq-rag-models)
    if model and (Path(model) / VERIFIER_DIR / VERIFIER_FILE).is_file():
        return Verifier.load(Path(model) / VERIFIER_DIR / VERIFIER_FILE)
    for folder in [_models_dir() / model] if model else []:
        if (folder / VERIFIER_DIR / VERIFIER_FILE).is_file():
            return Verifier.load(folder / VERIFIER_DIR / VERIFIER_FILE)
    return Verifier.load(_models_dir() / DEFAULT_VERIFIER_MODEL / VERIFIER_DIR / VERIFIER_FILE)
