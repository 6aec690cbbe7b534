"""`rqrag.fit` — everything rq-rag learned, in one home: each recipe, its data and what it writes side by side,
installed from the checkout's `fit/` folder (setuptools package-dir). One command runs them all:

    rqrag fit --help                          # every learned part, what it writes and from what
    rqrag fit verifier runs/verifier/selftrain/train --out models/rqrag-smollm2-135m-selftrain/verifier
    rqrag fit memory-floor                    # the memory floor's table, from fit/data/memory_relevance

Each part is a recipe module with `main(argv)` (`verifier.py`, `reader.py`, `decision.py`, `memory_floor.py`);
the fitting they share is `logistic.py` (the one logistic regression behind the verifier, the reader and the
judge), and the trees they learn from are `rqrag eval --split train` records (`rqrag.eval.saved_trees`). Every
fit writes `resolved_config.yaml` beside its output, naming the command that made it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LearnedPart:
    """One learned part: the recipe that fits it, what it writes, what it learns from, and what it decides."""

    module: str
    writes: str
    learns_from: str
    decides: str


PARTS: dict[str, LearnedPart] = {
    "verifier": LearnedPart(
        "rqrag.fit.verifier",
        "models/<model>/verifier/verifier.json",
        "the model's own trees over training ids (scripts/verifier_trees.sh)",
        "whether the tree's best answer is shown (its calibrated p and threshold)",
    ),
    "reader": LearnedPart(
        "rqrag.fit.reader",
        "models/reader/reader.json",
        "the trees over training ids and the two tuning manuals' questions",
        "which sentence and span of the evidence state the answer",
    ),
    "decision": LearnedPart(
        "rqrag.fit.decision",
        "models/reader/<reader model>/verifier.json",
        "a reader model's readings of training trees, and of another question's evidence",
        "whether a reader model's answer is shown",
    ),
    "memory-floor": LearnedPart(
        "rqrag.fit.memory_floor",
        "the floor table (serve/memory/retriever.py RELEVANCE_FLOOR)",
        "fit/data/memory_relevance/pairs.jsonl (labelled question-memory pairs, pt and en)",
        "which memories join the sources of a documents question",
    ),
}
