"""Fitting the one logistic scorer (`rqrag.logistic.LogisticScorer`): standardise, then scikit-learn's L2 logistic
regression. Every learned decider of the answer step is fitted here:

* the tree's verifier — `rqrag.fit.verifier_fit` (`cross_fit`, `fit_verifier`, called by rqrag fit verifier);
* the model reader's judge — `rqrag.fit.decision_fit.fit_judge`, through `fit_verifier`;
* the reader's sentence and span models — `rqrag.fit.reader_fit.fit_scorer` (rqrag fit reader).

It sits in the training stage, below the answer step and eval, so it knows nothing of candidates or readers: a
matrix, its labels and its column names in, a scorer out. scikit-learn is imported only when fitting.

    scorer = fit_logistic(X, y, features=("votes", "log_p"), C=1.0)
    scorer.probabilities(X_held_back)

Two ways of measuring the spread are kept, because each shipped file was fitted with one and a refit must give it
back bit for bit (`scaling`):

* "scaler" (the verifier and the judge): scikit-learn's `StandardScaler` — population variance by its corrected
  two-pass sum, and a *near*-constant feature (variance within rounding of 0) gets scale 1;
* "numpy" (the reader): `X.std(axis=0)` — the same population deviation summed once; only an *exactly* zero
  deviation gets scale 1.

The means are the same sum either way; the scales agree to the last bit or two, except a feature that is constant
but not exactly representable (0.1 in every row), which "numpy" divides by its ~1e-17 rounding noise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rqrag.logistic import LogisticScorer


SCALINGS = ("scaler", "numpy")


def standardisation(X: np.ndarray, scaling: str = "scaler") -> tuple[np.ndarray, np.ndarray]:
    """The training mean and scale of each column of `X`, a scale of 0 made 1 (see the module docstring)."""
    if scaling == "scaler":
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler().fit(X)
        return scaler.mean_, scaler.scale_
    if scaling == "numpy":
        scale = X.std(axis=0)
        return X.mean(axis=0), np.where(scale == 0, 1.0, scale)
    raise ValueError(f"scaling {scaling!r}: one of {SCALINGS}")


def fit_logistic(
    X: np.ndarray,
    y: np.ndarray | Sequence[int],
    features: Sequence[str],
    C: float = 1.0,
    max_iter: int = 2000,
    scaling: str = "scaler",
) -> LogisticScorer:
    """A `LogisticScorer` over `features` (the columns of `X`) fitted to the 0/1 labels `y`: `C` the inverse L2
    strength; `max_iter` the solver's limit (lbfgs stops at its tolerance well before it on these tables)."""
    from sklearn.linear_model import LogisticRegression

    X = np.asarray(X, dtype=float).reshape(-1, len(features))
    mean, scale = standardisation(X, scaling)
    # (X - mean) / scale is what StandardScaler.transform computes, in the same order: the solver sees the same bits
    model = LogisticRegression(C=C, max_iter=max_iter).fit((X - mean) / scale, np.asarray(y))
    return LogisticScorer(
        tuple(features),
        tuple(float(v) for v in mean),
        tuple(float(v) for v in scale),
        tuple(float(v) for v in model.coef_[0]),
        float(model.intercept_[0]),
    )
