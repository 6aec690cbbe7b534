"""Train / eval id splits per benchmark, so the model is never evaluated on what it was trained on.

The offline benchmark files are dev/test sets, and the shipped small model is trained on some of their
questions; `rqrag/benchmarks/splits/<source>.json` lists, once and for all, which ids may be used for
training and which are held out for evaluation. Data construction reads only `train` ids, the benchmark
runner only `eval` ids, and a test checks that the two never meet and that every id of the shipped files is
in exactly one of them.

The assignment is a stable hash of (source, id), written out as explicit id lists, so it does not depend on
file order and never shifts when a file gains records. Regenerate with `python scripts/make_splits.py`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


SPLITS_DIR = Path(__file__).resolve().parent / "splits"

# Held-out sizes: at least 200 HotpotQA questions for the benchmark table, the rest split roughly in half.
EVAL_SIZES = {
    "hotpotqa": 250,
    "2wikimultihopqa": 100,
    "musique": 150,
    "asqa": 448,
    "arc_challenge": 672,
    "openbookqa": 300,
    "popqa": None,  # evaluation only, as in the paper
}


@dataclass(frozen=True)
class Split:
    source: str
    train: frozenset[str]
    eval: frozenset[str]

    def ids(self, which: str) -> frozenset[str]:
        if which not in ("train", "eval"):
            raise ValueError(f"split must be 'train' or 'eval', got {which!r}")
        return self.train if which == "train" else self.eval


def split_path(source: str, splits_dir: Path = SPLITS_DIR) -> Path:
    return splits_dir / f"{source}.json"


def load_split(source: str, splits_dir: Path = SPLITS_DIR) -> Split | None:
    """The shipped split of `source`, or None for sources without one (instruction data is all training)."""
    path = split_path(source, splits_dir)
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    split = Split(source, frozenset(map(str, data["train"])), frozenset(map(str, data["eval"])))
    overlap = split.train & split.eval
    if overlap:
        raise ValueError(f"{path}: {len(overlap)} id(s) are in both train and eval, e.g. {sorted(overlap)[:3]}")
    return split


def _rank(source: str, qid: str) -> str:
    return hashlib.sha256(f"rqrag-split\0{source}\0{qid}".encode()).hexdigest()


def assign(source: str, ids: Iterable[str], n_eval: int | None) -> tuple[list[str], list[str]]:
    """(train, eval) ids: the `n_eval` ids with the smallest hash are held out (all of them when None)."""
    unique = sorted(set(map(str, ids)), key=lambda qid: _rank(source, qid))
    n_eval = len(unique) if n_eval is None else min(n_eval, len(unique))
    return sorted(unique[n_eval:]), sorted(unique[:n_eval])


def write_split(source: str, train: list[str], eval_: list[str], origin: str, splits_dir: Path = SPLITS_DIR) -> Path:
    splits_dir.mkdir(parents=True, exist_ok=True)
    path = split_path(source, splits_dir)
    payload = {
        "source": source,
        "origin": origin,
        "n_train": len(train),
        "n_eval": len(eval_),
        "train": train,
        "eval": eval_,
    }
    path.write_text(json.dumps(payload, indent=0) + "\n")
    return path
