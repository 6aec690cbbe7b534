"""The one scorer every learned decider of the answer step shares: standardised features -> logistic regression.

The tree's verifier (`rqrag.answer.verifier`), the model reader's judge (the same file format) and the reader's
sentence and span models (`rqrag.answer.reading.span_reader`) are all this shape: a row of named features is standardised with
the training mean and scale, weighted, and the logit turned into a probability. They are fitted by
`rqrag.fit.logistic.fit_logistic`; scoring needs numpy only, so nothing at run time imports scikit-learn.

    scorer = LogisticScorer.from_dict(data, known=FEATURES, what="verifier")
    scorer.probability({"votes": 3.0, "log_p": -0.4})        # one row
    scorer.logits(rows)                                      # many rows at once (dicts, or a matrix in feature order)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


# exp overflows a float past ~709; the probabilities at ±50 are already 1.0 and ~2e-22, so nothing is lost by it
LOGIT_CLIP = 50.0


def sigmoid(z: float) -> float:
    """p of a logit. Element by element with math.exp on purpose: numpy's vectorised exp rounds differently in the
    last bit, and the fitted thresholds were chosen from p's computed this way (scikit-learn's expit agrees)."""
    return 1.0 / (1.0 + math.exp(-max(-LOGIT_CLIP, min(LOGIT_CLIP, float(z)))))


def require_known(features: Sequence[str], known: Sequence[str] | set[str], what: str) -> None:
    """Raises when a saved model names a feature this version does not compute (scoring it would read 0 silently)."""
    unknown = [f for f in features if f not in known]
    if unknown:
        raise ValueError(f"{what} names features this version does not compute: {unknown}")


@dataclass(frozen=True)
class LogisticScorer:
    """Standardised features -> logit -> p. A scale of 0 (a feature constant over the training rows) divides by 1."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def __post_init__(self):
        if not (len(self.features) == len(self.mean) == len(self.scale) == len(self.coef)):
            raise ValueError("logistic scorer: features, mean, scale and coef must have the same length")

    def matrix(self, rows: Sequence[dict[str, float]] | np.ndarray) -> np.ndarray:
        """Rows as a float matrix in `features` order: dicts (a missing feature reads 0) or a matrix already."""
        if isinstance(rows, np.ndarray):
            if rows.ndim != 2 or rows.shape[1] != len(self.features):
                raise ValueError(f"logistic scorer: a matrix of {len(self.features)} columns, got shape {rows.shape}")
            return rows.astype(float, copy=False)
        shape = (len(rows), len(self.features))  # explicit: no rows (or no features) still gives a 2-D matrix
        return np.array([[r.get(f, 0.0) for f in self.features] for r in rows], dtype=float).reshape(shape)

    def logits(self, rows: Sequence[dict[str, float]] | np.ndarray) -> np.ndarray:
        # the same operations, in the same order, as scikit-learn's scaler then decision_function: a refit's
        # out-of-fold p (and so the threshold chosen from them) come out bit for bit as before
        x = self.matrix(rows)
        if not len(x):
            return np.zeros(0)
        scale = np.array(self.scale, dtype=float)
        scale = np.where(scale == 0, 1.0, scale)
        return ((x - np.array(self.mean, dtype=float)) / scale) @ np.array(self.coef, dtype=float) + self.intercept

    def probabilities(self, rows: Sequence[dict[str, float]] | np.ndarray) -> np.ndarray:
        return np.array([sigmoid(z) for z in self.logits(rows)], dtype=float)

    def probability(self, row: dict[str, float]) -> float:
        return float(self.probabilities([row])[0])

    # ------------------------------------------------------------------------------------------ files

    def to_dict(self) -> dict:
        # the key order of the shipped files (verifier.json, reader.json): saving again rewrites the same bytes
        return {
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
        }

    @classmethod
    def from_dict(cls, data: dict, known: Sequence[str] | set[str], what: str = "reader") -> LogisticScorer:
        """The scorer saved as `to_dict`; `known`: the features this version computes (`what` names the model
        in the error)."""
        require_known(data["features"], known, what)
        return cls(
            tuple(data["features"]),
            tuple(map(float, data["mean"])),
            tuple(map(float, data["scale"])),
            tuple(map(float, data["coef"])),
            float(data["intercept"]),
        )
