"""Fitting the answer verifier on the model's own trees, and measuring what its decision shows.

The trees come from `rqrag eval --split train` (scripts/verifier_trees.sh): every record holds the whole tree, so
each tree is decided again here by the same code the answer pipeline runs (`decide_record`). Steps:

1. `candidate_table` — every candidate answer of every training tree, its features (`FEATURES`) and its label:
   right when its token F1 against a gold answer is >= 0.5 or a gold answer is inside it (`is_correct`).
   A record whose question is an *eval* id of its benchmark is refused: the verifier never sees held-out questions.
2. `cross_fit` — out-of-fold p for every candidate (5 folds grouped by question, stratified by benchmark), so
   every training question is also a held-back one; the final model is then fitted on all of them.
   Every fit is `rqrag.fit.logistic.fit_logistic` (the one recipe of the verifier, judge and reader).
3. `choose_threshold` — the lowest p at which the shown (top) candidates of held-back questions reach the
   precision target (80 %); `calibration` — expected calibration error and the reliability bins.

    table = candidate_table(load_trees(["runs/verifier/selftrain/train"]))
    verifier, report = fit_verifier(table)
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from rqrag.answer.candidate_answers import FEATURES, is_correct
from rqrag.answer.verifier import Verifier
from rqrag.eval.saved_trees import calibration, golds, question_search, refuse_eval_ids
from rqrag.fit.logistic import fit_logistic
from rqrag.inference.decoding.tree import QuestionResult


PRECISION_TARGET = 0.8
FOLDS = 5


@dataclass
class CandidateTable:
    """One row per candidate answer: its question, benchmark, features, label and the question's vote rank."""

    qids: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    rows: list[list[float]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    features: tuple[str, ...] = tuple(FEATURES)  # what each row's columns are

    @property
    def X(self) -> np.ndarray:
        return np.asarray(self.rows, dtype=float).reshape(-1, len(self.features))

    @property
    def y(self) -> np.ndarray:
        return np.asarray(self.labels, dtype=int)

    def save(self, path: Path) -> Path:
        """The table as gzipped JSON lines (a header with the feature names, then a row per candidate): the data a
        fit read, kept beside what it wrote so that `rqrag fit verifier --table` refits it exactly."""
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(json.dumps({"features": list(self.features)}) + "\n")
            for row in zip(self.qids, self.tasks, self.rows, self.labels, self.texts):
                f.write(json.dumps(dict(zip(("qid", "task", "x", "y", "text"), row)), ensure_ascii=False) + "\n")
        return path

    @classmethod
    def load(cls, path: Path) -> CandidateTable:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            header, *rows = [json.loads(line) for line in f]
        return cls(
            [r["qid"] for r in rows],
            [r["task"] for r in rows],
            [r["x"] for r in rows],
            [r["y"] for r in rows],
            [r["text"] for r in rows],
            tuple(header["features"]),
        )


def candidate_table(
    trees: Sequence[tuple[str, dict]],
    language: str = "en",
    rank_sentences=None,
    reader_of: Callable[[str], object] | None = None,
    searched: dict | None = None,
) -> CandidateTable:
    """Every candidate of every tree, featurised and labelled (eval ids refused), as the answer pipeline gathers
    them (`grounding.read_and_gather`). `rank_sentences`: unused, kept for callers (the pipeline's own quoter ranks);
    `reader_of(record id)`: the reader whose spans join the candidates (out of fold on training ids: a reader never
    reads a question it was fitted on); `searched`: the question's own search by record id, else the record's."""
    from rqrag.answer.grounding import ExtractiveQuoter, read_and_gather

    refuse_eval_ids(trees)
    quoter = ExtractiveQuoter()
    table = CandidateTable()
    for task, record in tqdm(trees, desc="featurising trees", unit="tree"):
        result = QuestionResult.from_record(record)
        own = (searched or {}).get(record["id"]) or question_search(record)
        reader = reader_of(record["id"]) if reader_of is not None else None
        _, candidates = read_and_gather(result, record["question"], language, quoter, (), reader, own)
        for candidate in candidates:
            table.qids.append(record["id"])
            table.tasks.append(task)
            table.rows.append([candidate.features[f] for f in FEATURES])
            table.labels.append(int(is_correct(candidate.text, golds(record), record["question"])))
            table.texts.append(candidate.text)
    return table


def _folds(table: CandidateTable, folds: int, seed: int) -> np.ndarray:
    """A fold number per row: questions (never split across folds) dealt round-robin within each benchmark."""
    rng = np.random.default_rng(seed)
    fold_of: dict[str, int] = {}
    for task in sorted(set(table.tasks)):
        qids = sorted({q for q, t in zip(table.qids, table.tasks) if t == task})
        rng.shuffle(qids)
        fold_of.update({q: i % folds for i, q in enumerate(qids)})
    return np.array([fold_of[q] for q in table.qids])


def cross_fit(table: CandidateTable, C: float = 1.0, folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Out-of-fold p(correct) for every row."""
    X, y, fold = table.X, table.y, _folds(table, folds, seed)
    p = np.zeros(len(y))
    for k in range(folds):
        train, test = fold != k, fold == k
        if not test.any():
            continue
        # the verifier's recipe (StandardScaler's spread, lbfgs' 2000 steps): refits give the shipped files back
        scorer = fit_logistic(X[train], y[train], table.features, C, max_iter=2000, scaling="scaler")
        p[test] = scorer.probabilities(X[test])
    return p


def shown_rows(table: CandidateTable, p: np.ndarray) -> np.ndarray:
    """Per question, the row of its highest-p candidate (what the decision shows)."""
    best: dict[str, int] = {}
    for i, q in enumerate(table.qids):
        if q not in best or p[i] > p[best[q]]:
            best[q] = i
    return np.array(sorted(best.values()))


def precision_coverage(p: np.ndarray, y: np.ndarray, questions: int | None = None) -> list[dict]:
    """For each distinct p (as a threshold), the precision and coverage of answering when p >= it."""
    order = np.argsort(-p)
    n = questions or len(p)
    out, right = [], 0
    for rank, i in enumerate(order, 1):
        right += y[i]
        if rank == len(order) or p[order[rank]] < p[i]:
            out.append({"threshold": float(p[i]), "precision": right / rank, "coverage": rank / n, "answered": rank})
    return out


def choose_threshold(p: np.ndarray, y: np.ndarray, target: float = PRECISION_TARGET, min_answered: int = 10) -> float:
    """The lowest threshold whose answered set, and every stricter one with `min_answered` or more answers,
    reaches `target` precision (so a lucky dip in the curve is not chosen); 1.0 when none does."""
    curve = precision_coverage(p, y)
    chosen = 1.0
    for point in curve:  # from the strictest threshold down
        if point["answered"] < min_answered:
            continue
        if point["precision"] < target:
            break
        chosen = point["threshold"]
    return chosen


def fit_verifier(
    table: CandidateTable, C: float = 1.0, target: float = PRECISION_TARGET, seed: int = 0, oof=None
) -> tuple[Verifier, dict]:
    """The verifier fitted on every row, its threshold and report from the out-of-fold predictions (`oof`: those
    of `cross_fit(table, C, seed=seed)` when the caller has them already)."""
    X, y = table.X, table.y
    oof = cross_fit(table, C=C, seed=seed) if oof is None else oof
    shown = shown_rows(table, oof)
    threshold = choose_threshold(oof[shown], y[shown], target)
    scorer = fit_logistic(X, y, table.features, C, max_iter=2000, scaling="scaler")
    answered = shown[oof[shown] >= threshold]
    tasks = np.array(table.tasks)
    per_task = {}
    for task in sorted(set(table.tasks)):
        mine = shown[tasks[shown] == task]
        covered = mine[oof[mine] >= threshold]
        per_task[task] = {
            "questions": int(len(mine)),
            "best_candidate_right": float(y[mine].mean()) if len(mine) else None,
            "generated_precision": float(y[covered].mean()) if len(covered) else None,
            "coverage": float(len(covered) / len(mine)) if len(mine) else None,
        }
    report = {
        "questions": int(len(shown)),
        "candidates": int(len(y)),
        "candidates_right": float(y.mean()),
        "any_candidate_right": float(np.mean([y[np.array(table.qids) == q].max() for q in sorted(set(table.qids))])),
        "held_back": {
            "how": f"{FOLDS}-fold out-of-fold p, folds by question within each benchmark (seed {seed})",
            "shown_right": float(y[shown].mean()),
            "generated_precision": float(y[answered].mean()) if len(answered) else None,
            "coverage": float(len(answered) / len(shown)),
            "calibration_all_candidates": calibration(oof, y),
            "calibration_shown": calibration(oof[shown], y[shown]),
            "per_task": per_task,
            "curve": precision_coverage(oof[shown], y[shown]),
            "curve_by_task": {
                task: precision_coverage(oof[shown[tasks[shown] == task]], y[shown[tasks[shown] == task]])
                for task in sorted(set(table.tasks))
            },
        },
        "C": C,
        "label": "right = token F1 >= 0.5 against a gold answer, or a gold answer inside the text",
    }
    verifier = Verifier.of(scorer, float(threshold), target, report=report)
    return verifier, report


def save_report(folder: Path, report: dict) -> Path:
    path = folder / "report.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    return path
