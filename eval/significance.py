"""Is one system better than another on the same questions? The paired bootstrap the reports use.

    paired_bootstrap(new_f1, old_f1)   # {"n", "delta", "ci95", "p"}: p = one-sided chance the new is no better

Per-question scores of two systems on the same questions are differenced; the questions are resampled with
replacement (10,000 times by default) and the share of resampled mean differences below zero (ties counted half)
is the one-sided p-value of "the first is no better". Used by `scripts/query_quality.py` (the tree against its
baselines) and `scripts/compare_models.py` (a retrained model against the one it would replace).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def paired_bootstrap(a: Sequence[float], b: Sequence[float], resamples: int = 10_000, seed: int = 0) -> dict:
    """Paired bootstrap of mean(a - b): the difference, its 95 % interval, and the one-sided p of a <= b."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diff.size == 0:
        return {"n": 0, "delta": None, "ci95": None, "p": None}
    rng = np.random.default_rng(seed)
    means = np.concatenate(  # in chunks: resamples x questions indices at once can be hundreds of MB
        [diff[rng.integers(0, diff.size, size=(min(1000, resamples - s), diff.size))].mean(axis=1)
         for s in range(0, resamples, 1000)]
    )  # fmt: skip
    p = (np.sum(means < 0) + 0.5 * np.sum(means == 0)) / resamples
    low, high = np.percentile(means, [2.5, 97.5])
    return {"n": int(diff.size), "delta": float(diff.mean()), "ci95": [float(low), float(high)], "p": float(p)}
