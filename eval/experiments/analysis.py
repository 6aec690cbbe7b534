"""The two analysis actions of `rqrag experiment`, on a run's output folder.

    rqrag experiment report --config configs/experiments/pt_manual_small.yaml [--report_dir docs/experiments/NAME]
    rqrag experiment queries --config configs/experiments/pt_manual_small.yaml [--llm_base_url URL --llm_model M]

* **report** reads `records.jsonl` (one line per cell and question) and writes `report.md` with descriptive
  statistics, histograms, interaction plots, the ART ANOVA per metric and ART-C contrasts of the significant
  effects, with CSVs beside it (`eval/experiments/experiment_report.py`), plus the resolved config it was made from.
* **queries** evaluates retrieval without the golden set: one generated query per page of each corpus document
  (`eval/generated_queries.py`), ranked by every search mode over each chunking's index, into
  `generated_queries.csv` and `retrieval_on_generated_queries.csv`.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from rqrag.eval.experiments.experiment_config import ExperimentConfig, chunking_label, resolve_path
from rqrag.eval.experiments.experiment_report import write_report
from rqrag.eval.experiments.metrics import BASE_METRICS, flatten_records
from rqrag.retrieval.registry import SEARCH_MODES


logger = logging.getLogger(__name__)

RAGAS_METRICS = ("faithfulness", "answer_relevancy", "context_precision", "context_recall", "answer_correctness")


def load_scores(run_dir: Path) -> tuple[pd.DataFrame, list[str]]:
    """The run's answers as one row each (factor levels and metrics as columns), and the metrics it has."""
    from rqrag.resumable import ResumableJsonl

    path = run_dir / "records.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: run `rqrag experiment run` first")
    records = list(ResumableJsonl(path).read())
    if not records:
        raise ValueError(f"{path} holds no answers yet")
    names = [*BASE_METRICS, *RAGAS_METRICS]
    data = pd.DataFrame(flatten_records(records, names))
    present = [m for m in names if m in data and data[m].notna().any()]
    return data.astype({m: float for m in present}), present


def make_report(config: ExperimentConfig, report_dir: str | None = None) -> Path:
    """`report.md` and its tables and plots for the run `config` names (into `report_dir`, default the run)."""
    run_dir = config.output_path
    data, metrics = load_scores(run_dir)
    # Only questions every cell answered: a run stopped or narrowed (`--max_questions`) part-way leaves some cells
    # with more questions than others, and comparing cells on different questions would confound the factors.
    cells = data["cell_id"].nunique()
    answered = data.groupby("question_id")["cell_id"].nunique()
    complete = answered[answered == cells].index
    if len(complete) < data["question_id"].nunique():
        logger.info("report on the %d questions every cell answered (of %d)", len(complete), len(answered))
    data = data[data["question_id"].isin(complete)].reset_index(drop=True)
    factors = [f for f in config.factors if f in data]
    out = Path(report_dir) if report_dir else run_dir / "report"
    # F1 first: the answer-quality score the question "does refinement help?" is about.
    primary = "f1" if "f1" in metrics else metrics[0]
    title = f"Experiment {config.name}: which settings matter on this corpus"
    path = write_report(data, factors, metrics, out, title, primary=primary)
    logger.info("report of %d answers (%d cells) in %s", len(data), data["cell_id"].nunique(), path)
    return path


def generated_query_retrieval(config: ExperimentConfig, llm_base_url=None, llm_model=None) -> pd.DataFrame:
    """Per chunking and search mode: mean rank, MRR, P@1 and not-found share of one generated query per page."""
    from rqrag.eval.generated_queries import evaluate_modes, section_queries
    from rqrag.ingest.libraries import open_library
    from rqrag.ingest.pipeline import ingest_path

    client = None
    if llm_base_url:
        from rqrag.llm.client import ChatClient

        client = ChatClient(base_url=llm_base_url, model=llm_model or "default", max_tokens=300, max_retries=1)
    queries = []
    for name in config.corpus:
        document = ingest_path(resolve_path(name))
        queries += section_queries(document.pages, client=client, language=config.language, doc_id=document.doc_id)
    out = config.output_path
    pd.DataFrame([q.__dict__ for q in queries]).to_csv(out / "generated_queries.csv", index=False)
    tables = []
    for level in config.factors.get("chunking", []):
        folder = out / "indexes" / chunking_label(level)
        if not folder.is_dir():
            logger.warning("no index for %s under %s: run the experiment first; skipped", level, folder)
            continue
        library = open_library(folder)
        modes = [m for m in config.factors.get("search_mode", SEARCH_MODES)]
        table = evaluate_modes({m: library.retriever(m) for m in modes}, queries, k=20)
        tables.append(table.assign(chunking=level))
    result = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    result.to_csv(out / "retrieval_on_generated_queries.csv", index=False)
    return result
