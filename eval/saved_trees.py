"""The trees `rqrag eval` saved, read back: the records a fit learns from and a replay decides again, and how well
the p a decision gives is calibrated.

    trees = load_trees(["runs/verifier/selftrain/train"])   # (benchmark, record) per predictions.jsonl line
    refuse_eval_ids(trees)                                  # a fit never sees a held-out question
    golds(record); question_search(record)                 # its gold answers; its question's own search
    calibration(p, y)                                       # expected calibration error and reliability bins

Every record keeps its whole tree (`QuestionResult.from_record`), so a new decision rule or a new fit reads these
files without decoding again (`rqrag.fit`, `rqrag.eval.decision_replay`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from rqrag.benchmarks.splits import load_split
from rqrag.records import read_records


def load_trees(folders: Iterable[str | Path]) -> list[tuple[str, dict]]:
    """(benchmark, record) for every `predictions.jsonl` under `folders` (a folder per benchmark run)."""
    out = []
    for folder in folders:
        for path in sorted(Path(folder).rglob("predictions.jsonl")):
            for record in read_records(path):
                task = record["id"].split(":", 1)[0]
                out.append((task, record))
    return out


def refuse_eval_ids(trees: Sequence[tuple[str, dict]]) -> None:
    """Raises if any record's question is a held-out (eval) id of its benchmark."""
    for task, record in trees:
        split = load_split(task)
        source_id = record["id"].split(":", 1)[1]
        if split is not None and source_id in split.eval:
            raise ValueError(f"{record['id']} is an eval id of {task}: the verifier is fitted on training ids only")


def golds(record: dict) -> list[str]:
    gold = record.get("gold", {})
    return list(gold.get("answers") or gold.get("aliases") or ([gold["answer"]] if "answer" in gold else []))


def question_search(record: dict) -> list:
    """The question's own search, as recorded (`question_search`), or [] for records made before it was kept."""
    from rqrag.retrieval.base import Hit

    return [Hit.from_dict(h) for h in record.get("question_search", [])]


def calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> dict:
    """Expected calibration error over equal-width bins, and each bin's mean p, accuracy and count."""
    edges = np.linspace(0, 1, bins + 1)
    rows, ece = [], 0.0
    for low, high in zip(edges[:-1], edges[1:]):
        inside = (p >= low) & ((p < high) if high < 1 else (p <= high))
        if inside.any():
            mean_p, accuracy = float(p[inside].mean()), float(y[inside].mean())
            ece += inside.sum() / len(p) * abs(mean_p - accuracy)
            rows.append(
                {"low": float(low), "high": float(high), "p": mean_p, "accuracy": accuracy, "n": int(inside.sum())}
            )
    return {"ece": float(ece), "bins": rows}
