"""Answer and retrieval metrics of the benchmarks, as pure functions (paper §3, App. B.3).

* `exact_match` / `f1` — SQuAD-style, after the usual normalisation (lower case, no punctuation, no
  articles, single spaces), maximised over the gold aliases: HotpotQA, 2WikiMultihopQA, MuSiQue.
* `match` — PopQA (as in Self-RAG and RQ-RAG): 1 if any gold alias, normalised, occurs inside the
  normalised prediction. Lenient on purpose: long-tail entities are rarely phrased exactly.
* `choice_label` / `choice_accuracy` — ARC-Challenge, OpenBookQA: the option the prediction names, by its
  label ("B", "B.", "(B)", "answer is B") or, failing that, by containing one option's text and no other's.
* `str_em` — ASQA: the share of the disambiguated readings whose short answers appear in the prediction.
* `retrieval_ranks` and friends — for tasks whose gold paragraphs are known: recall of the supporting
  paragraphs over a trajectory's searches, and per search the rank of the first gold hit, from which MR
  (mean rank of the first gold hit, over searches that found one), MRR and P@1.
* `ci95_half_width` — the uncertainty of a mean score over n questions (normal approximation), so that a
  results table says which differences are larger than the sample's noise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from rqrag.text.answer_text import answer_f1, choice_label, normalize_answer


__all__ = [
    "choice_accuracy",
    "choice_label",
    "ci95_half_width",
    "exact_match",
    "f1",
    "match",
    "normalize_answer",
    "rank_metrics",
    "retrieval_ranks",
    "str_em",
    "supporting_recall",
]


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 if the normalised prediction equals any normalised gold answer."""
    norm = normalize_answer(prediction or "")
    return float(any(norm == normalize_answer(g) for g in golds))


f1 = answer_f1  # token F1 against the best gold: the core's one definition (`rqrag.text.answer_text`)


def match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 if any non-empty normalised gold answer occurs in the normalised prediction (word-aligned)."""
    pred = f" {normalize_answer(prediction or '')} "
    return float(any(norm and f" {norm} " in pred for norm in (normalize_answer(g) for g in golds)))


def choice_accuracy(prediction: str, choices: Sequence[tuple[str, str]], gold_label: str) -> float:
    return float(choice_label(prediction, choices) == gold_label)


def str_em(prediction: str, answer_sets: Sequence[Sequence[str]]) -> float:
    """ASQA STR-EM: the share of readings (each a list of accepted short answers) the prediction contains."""
    if not answer_sets:
        return 0.0
    return sum(match(prediction, answers) for answers in answer_sets) / len(answer_sets)


# ------------------------------------------------------------------------------------------ retrieval


def supporting_recall(retrieved_docids: Iterable[str], supporting: set[str]) -> float | None:
    """Share of the supporting paragraphs found anywhere in a trajectory's searches (None: no gold known)."""
    if not supporting:
        return None
    return len(set(retrieved_docids) & supporting) / len(supporting)


def retrieval_ranks(searches: Sequence[Sequence[str]], supporting: set[str]) -> list[int | None]:
    """Per search, the 1-based rank of its first supporting hit, or None if it found none."""
    ranks: list[int | None] = []
    for docids in searches:
        ranks.append(next((i for i, docid in enumerate(docids, 1) if docid in supporting), None))
    return ranks


def rank_metrics(ranks: Sequence[int | None]) -> dict[str, float | None]:
    """MR (mean rank of the first gold hit, over searches that found one), MRR and P@1 over searches."""
    if not ranks:
        return {"mr": None, "mrr": None, "p@1": None}
    found = [r for r in ranks if r is not None]
    return {
        "mr": sum(found) / len(found) if found else None,
        "mrr": sum(1.0 / r for r in found) / len(ranks),
        "p@1": sum(r == 1 for r in found) / len(ranks),
    }


def ci95_half_width(values: Sequence[float]) -> float | None:
    """Half-width of the 95 % confidence interval of the mean: 1.96 * sample standard deviation / sqrt(n).

    Per-question scores are bounded and n is in the tens to hundreds, where the normal approximation is what
    QA papers report; None below two values (no spread to estimate)."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return 1.96 * math.sqrt(variance / n)


def holds_gold(text: str, golds: Sequence[str], question: str = "") -> bool:
    """Whether a person reading `text` reads a gold answer: it is right (`answer_candidates.is_correct`: token F1
    >= 0.5, the gold inside it, the right option of a comparison), or it holds a gold answer whole."""
    from rqrag.answer.candidate_answers import is_correct
    from rqrag.text.answer_text import normalize_answer

    if not text:
        return False
    padded = f" {normalize_answer(text)} "
    return is_correct(text, golds, question) or any(
        f" {normalize_answer(g)} " in padded for g in golds if normalize_answer(g)
    )
