"""Deciding recorded trees again: what a user would read with another verifier, without decoding anything.

Every `rqrag eval` record keeps the whole tree (answers, their token logprobs, every passage read). `replay` hands
each tree to the answer pipeline's own last step (`AnswerPipeline.finish`: candidates, verifier, quote), so the
figures below are what `rqrag eval` itself reports with that verifier — the decoding is deterministic with the
shipped settings (greedy queries), and a test checks replayed and live answers agree.

What is scored is what the user reads (`shown`): a generated or quoted text (not found and no answer score 0),
by the benchmark's token F1; the label by how often `generated` is right (`is_correct`) and how often a question
gets one (coverage); the verifier by the calibration of the shown candidate's p on these questions.

    rows = replay(records, AnswerPipeline(None, verifier=Verifier.load(path)))
    summarize(rows)   # {"n", "shown_f1", "kinds", "generated_precision", "coverage", "ece", ...}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from rqrag.answer.candidate_answers import is_correct
from rqrag.answer.messages import AnswerKind
from rqrag.answer.pipeline import AnswerPipeline, Prepared
from rqrag.answer.policy import AnsweringPolicy
from rqrag.eval.metrics import holds_gold
from rqrag.eval.saved_trees import calibration, golds, question_search
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.text.answer_text import answer_f1


def replay(
    records: Sequence[dict],
    pipeline: AnswerPipeline,
    language: str = "en",
    min_confidence: float | None = None,
    searched: dict | None = None,
) -> list[dict]:
    """Each record's tree decided by `pipeline` (its verifier, quoter and reader; `min_confidence` in place of the
    verifier's threshold): one row per question. `searched`: the question's own search by record id, for records
    made before it was kept (`reader_fit.own_searches`)."""
    policy = AnsweringPolicy(DecodeConfig(min_confidence=min_confidence), pipeline)
    rows = []
    for record in records:
        result = QuestionResult.from_record(record)
        question = Question(record["id"], [{"role": "user", "content": record["question"]}], language=language)
        own = (searched or {}).get(record["id"]) or question_search(record)
        answer = policy.decide(Prepared(question, language, searched=list(own)), result, language)
        gold = golds(record)
        shown = answer.text if answer.kind.states_an_answer else ""
        grounded = answer.grounded
        quote = grounded.quote.text if grounded is not None and grounded.quote is not None else ""
        best = grounded.candidates[0] if grounded and grounded.candidates else None
        rows.append(
            {
                "id": record["id"],
                "question": record["question"],
                "gold": gold,
                "answer": answer.text,
                "kind": answer.kind,
                "confidence": grounded.confidence if grounded else None,
                "f1": answer_f1(shown, gold) if shown else 0.0,
                "right": bool(shown) and is_correct(shown, gold, record["question"]),
                "quote": quote,
                # what a person reads holds the gold answer: the short answer, or the quote read after it
                "holds": holds_gold(shown, gold, record["question"]) or (bool(shown) and holds_gold(quote, gold)),
                "best_candidate": best["text"] if best else None,
                "best_candidate_right": bool(best) and is_correct(best["text"], gold, record["question"]),
                "vote_f1": record.get("scores", {}).get("vote", {}).get("f1"),
                "oracle_f1": record.get("oracle", {}).get("f1"),
                "candidates": grounded.candidates if grounded else [],
            }
        )
    return rows


def summarize(rows: Sequence[dict]) -> dict:
    """Shown F1, the kinds, precision and coverage of `generated`, and the calibration of the best candidate's p."""
    n = len(rows)
    kinds = Counter(r["kind"] for r in rows)
    generated = [r for r in rows if r["kind"] == AnswerKind.GENERATED]
    quoted = [r for r in rows if r["kind"] == AnswerKind.QUOTED]
    scored = [r for r in rows if r["confidence"] is not None]
    p = np.array([r["confidence"] for r in scored], dtype=float)
    y = np.array([r["best_candidate_right"] for r in scored], dtype=int)
    return {
        "n": n,
        "holds_gold": float(np.mean([r["holds"] for r in rows])) if n else None,
        "shown_f1": 100 * float(np.mean([r["f1"] for r in rows])) if n else None,
        "vote_f1": 100 * float(np.mean([r["vote_f1"] or 0 for r in rows])) if n else None,
        "oracle_f1": 100 * float(np.mean([r["oracle_f1"] or 0 for r in rows])) if n else None,
        "kinds": dict(kinds),
        "generated_precision": float(np.mean([r["right"] for r in generated])) if generated else None,
        "coverage": len(generated) / n if n else None,
        "quoted_holds_gold": float(np.mean([r["right"] for r in quoted])) if quoted else None,
        "quote_words": float(np.mean([len(r["answer"].split()) for r in quoted])) if quoted else None,
        "best_candidate_right": float(y.mean()) if len(y) else None,
        "ece_best_candidate": calibration(p, y)["ece"] if len(y) else None,
    }
