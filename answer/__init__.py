"""`rqrag.answer` — the answer step, installed from the checkout's `answer/` folder (setuptools package-dir).

A question, the tree's trajectories and the evidence they read, to the answer a person reads: `policy.py` (the
one answering policy every surface calls, `AnsweringPolicy`), `pipeline.py` (its steps, `AnswerPipeline.answer`), `grounding.py` (the answer checked against its evidence,
or a quote instead), `candidate_answers.py` (the answers the tree's leaves offer), `verifier.py` (how likely each holds),
`reading/` (who reads the short answer out of all the evidence), `extractive.py` and `sentence_cues.py` (quoting a sentence).

This module is the package's public API: the served application (`rqrag.serve`) imports from here only, never from
the tree's internals (`rqrag.inference.*`) or this package's modules; an import-linter contract in pyproject.toml
checks it. Imports stay cheap: nothing here loads a model.
"""

from rqrag.answer.extractive import answerer_for
from rqrag.answer.grounding import check_answer
from rqrag.answer.messages import AnswerKind, Message, answer_language, earlier_messages, said
from rqrag.answer.pipeline import AnswerPipeline, AnswerSettings, EvidenceSource, PipelineAnswer, Prepared
from rqrag.answer.policy import AnsweringPolicy, searches_first
from rqrag.inference.build import build_decoder, retriever_for
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.failures import Failure, FailureKind
from rqrag.inference.decoding.select import STRATEGY_NAMES, StrategyName
from rqrag.inference.decoding.tree import Question, QuestionResult


__all__ = [
    "STRATEGY_NAMES",
    "AnswerKind",
    "AnswerPipeline",
    "AnswerSettings",
    "AnsweringPolicy",
    "DecodeConfig",
    "EvidenceSource",
    "Failure",
    "FailureKind",
    "Message",
    "PipelineAnswer",
    "Prepared",
    "Question",
    "QuestionResult",
    "StrategyName",
    "answer_language",
    "answerer_for",
    "build_decoder",
    "check_answer",
    "earlier_messages",
    "retriever_for",
    "said",
    "searches_first",
]
