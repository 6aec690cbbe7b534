"""ART-C: pairwise contrasts after an Aligned Rank Transform (Elkin, Kay, Higgins & Wobbrock, UIST 2021).

Plain ART ranks are aligned for one effect, so comparing, say, cell a1,b1 with cell a2,b2 on the ranks aligned for
A:B mixes in effects that alignment stripped out. ART-C instead merges the factors of the term into one combined
factor ("a1,b1", "a1,b2", ...), aligns and ranks the response for that combined factor's main effect in the model
of the other factors crossed with it, fits that model and compares every pair of combined levels. This gives the
same numbers as ARTool 0.11.2's `summary(art.con(m, "A:B", adjust=...))` (tests/test_art.py checks them):

- estimate: the difference of the two levels' marginal means of the ranks, averaged over the other factors with
  equal weight per cell (emmeans' default); in a balanced design, the difference of the rank means;
- SE and df from the model's residual: OLS on the cells without a subject; with a subject (balanced designs, as in
  R's `aov` with `Error(subject)`), the within-subject residual when the term's factors vary within subjects and
  the residual of the subject means when they are constant within subjects;
- p two-sided from the t distribution, then corrected over all pairs by Holm or Bonferroni.

A term mixing within- and between-subject factors would need estimates pooled across strata; ARTool itself fails on
it (emmeans on an aovlist), so it is refused here.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.stats import rankdata
from scipy.stats import t as t_distribution
from statsmodels.stats.multitest import multipletests
from statsmodels.tools.sm_exceptions import SingularMatrixWarning

from rqrag.eval.experiments.art import RANK_ROUNDING_DIGITS, Design, validate_design


ADJUSTMENTS = ("holm", "bonferroni", "none")


def _term_factors(term: str, design: Design) -> tuple[str, ...]:
    names = tuple(name.strip() for name in term.split(":"))
    unknown = [name for name in names if name not in design.factors]
    if unknown or len(set(names)) != len(names):
        raise ValueError(f"term {term!r} must join distinct factors of {list(design.factors)} with ':'")
    return names


def _combined_levels(design: Design, term_factors: tuple[str, ...]) -> tuple[np.ndarray, list[str]]:
    """Each row's combined level and the level order: a single factor keeps its own order; several factors are
    joined with "," and sorted as text, which is what R's factor() does to the pasted labels ARTool builds."""
    if len(term_factors) == 1:
        factor = term_factors[0]
        return design.codes[factor], [str(level) for level in design.levels[factor]]
    labels = [
        ",".join(str(design.levels[f][code]) for f, code in zip(term_factors, row))
        for row in zip(*(design.codes[f] for f in term_factors))
    ]
    order = sorted(set(labels))
    position = {label: i for i, label in enumerate(order)}
    return np.array([position[label] for label in labels], dtype=np.int64), order


def _artc_ranks(design: Design, combined: np.ndarray) -> np.ndarray:
    """Align for the combined factor's main effect (residual from the full cell means plus the combined factor's
    marginal mean minus the grand mean), then rank with ties averaged."""
    y = pd.Series(design.y)
    cell_means = y.groupby(design.cell_index(design.factors)).transform("mean").to_numpy()
    combined_means = y.groupby(combined).transform("mean").to_numpy()
    aligned = design.y - cell_means + combined_means - design.y.mean()
    return rankdata(np.round(aligned, RANK_ROUNDING_DIGITS))


def _dummies(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indicator columns of the distinct codes, and the code each column stands for."""
    values = np.unique(codes)
    return (codes[:, None] == values[None, :]).astype(float), values


def _level_weights(cells: np.ndarray, cell_level: np.ndarray, n_levels: int) -> np.ndarray:
    """Row l: equal weights over the cell coefficients that belong to combined level l (an emmeans marginal mean)."""
    weights = np.zeros((n_levels, len(cells)))
    for level in range(n_levels):
        members = cell_level == level
        weights[level, members] = 1.0 / members.sum()
    return weights


def _fit_levels(design: Design, ranks: np.ndarray, combined: np.ndarray, term_factors: tuple[str, ...], n_levels):
    """Fit the model for the combined factor; return (level weights over the coefficients, coefficients, their
    covariance, residual df)."""
    if design.subject is None:
        stratum_rows, y, modelled = np.arange(design.n), ranks, design.factors
        extra = None
    else:
        in_between = [f in design.between for f in term_factors]
        if all(in_between):  # compare subject means, cells of the between-subject factors only
            stratum_rows = pd.Series(np.arange(design.n)).groupby(design.subject_codes).first().to_numpy()
            y = pd.Series(ranks).groupby(design.subject_codes).mean().to_numpy()
            modelled, extra = design.between, None
        elif not any(in_between):  # subject dummies absorb the subject stratum
            stratum_rows, y, modelled = np.arange(design.n), ranks, design.factors
            extra = _dummies(design.subject_codes)[0]
        else:
            raise ValueError(
                f"term mixes between-subject {[f for f in term_factors if f in design.between]} and within-subject "
                f"factors of {design.subject!r}; contrasts across strata are not supported (nor by ARTool's aov)"
            )
    full_cell = design.cell_index(modelled)[stratum_rows]
    cell_columns, cells = _dummies(full_cell)
    cell_level = pd.Series(combined[stratum_rows]).groupby(full_cell).first().reindex(cells).to_numpy()
    weights = _level_weights(cells, cell_level, n_levels)
    exog = cell_columns if extra is None else np.hstack([cell_columns, extra])
    with warnings.catch_warnings():
        # With subject dummies the columns are collinear on purpose: OLS uses the pseudo-inverse, and the level
        # contrasts (within-subject, summing to zero over each subject's cells) stay estimable and unique.
        warnings.simplefilter("ignore", SingularMatrixWarning)
        fit = sm.OLS(y, exog).fit()
    if fit.df_resid < 1:
        raise ValueError("no residual degrees of freedom for the contrasts (one observation per cell?)")
    padded = np.hstack([weights, np.zeros((n_levels, exog.shape[1] - len(cells)))])
    return padded, fit.params, fit.cov_params(), float(fit.df_resid)


def art_contrasts(
    data: pd.DataFrame,
    response: str,
    factors: list[str],
    term: str,
    subject: str | None = None,
    adjust: str = "holm",
) -> pd.DataFrame:
    """ART-C pairwise contrasts of the combined levels of `term` ("A", "A:B", ...).

    Returns one row per pair, in emmeans' order (first level minus each later one): contrast ("a1,b1 - a1,b2"),
    estimate, SE, df, t, p (unadjusted, two-sided), p_adjusted (by `adjust` over all pairs: holm, bonferroni, none).
    """
    if adjust not in ADJUSTMENTS:
        raise ValueError(f"adjust must be one of {ADJUSTMENTS}, got {adjust!r}")
    design = validate_design(data, response, factors, subject)
    term_factors = _term_factors(term, design)
    combined, level_names = _combined_levels(design, term_factors)
    ranks = _artc_ranks(design, combined)
    weights, params, covariance, df = _fit_levels(design, ranks, combined, term_factors, len(level_names))
    rows = []
    for first, second in itertools.combinations(range(len(level_names)), 2):
        vector = weights[first] - weights[second]
        estimate = float(vector @ params)
        se = float(np.sqrt(vector @ covariance @ vector))
        t_value = estimate / se
        p_value = float(2 * t_distribution.sf(abs(t_value), df))
        row = {"estimate": estimate, "SE": se, "df": df, "t": t_value, "p": p_value}
        rows.append({"contrast": f"{level_names[first]} - {level_names[second]}", **row})
    table = pd.DataFrame(rows)
    if adjust == "none":
        table["p_adjusted"] = table["p"]
    else:
        table["p_adjusted"] = multipletests(table["p"].to_numpy(), method=adjust)[1]
    return table
