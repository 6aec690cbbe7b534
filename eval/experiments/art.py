"""Aligned Rank Transform (ART) ANOVA for nonparametric factorial analyses.

The procedure of Wobbrock, Findlater, Gergle & Higgins (CHI 2011), written to give the same numbers as R's
ARTool 0.11.2 (`anova(art(y ~ A*B))` and `anova(art(y ~ A*B + Error(S)))`; tests/test_art.py checks them):

1. For every effect (a main effect or an interaction), align the response: take the residual from the full
   factorial cell means and add back that effect's estimate, found by inclusion-exclusion over the marginal means
   of the effect's factors (for A:B, mean_AB - mean_A - mean_B + grand mean).
2. Rank each aligned column (average ranks for ties, after rounding to 8 digits as ARTool does, so that values
   equal up to floating-point noise tie).
3. Fit the full factorial model to each ranked column and keep only the F test of the effect it was aligned for.
   Without a subject the model is OLS with sum-to-zero contrasts and a Type III (Wald) test. With a subject the
   model is the `Error(subject)` strata analysis: effects that vary within subjects are tested against the within-
   subject residual, effects constant within subjects against the residual of the subject means. It equals R's
   `aov` with `Error(subject)` only on balanced designs, so validation refuses unbalanced ones.

`alignment_check` is ARTool's `summary(art)` diagnostic: each aligned column must sum to ~0 and, in an ANOVA of the
aligned (unranked) responses, every effect other than the one aligned for must have F ~0.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.stats import rankdata


# ARTool rounds aligned responses to -floor(log10(sqrt(machine eps))) = 8 digits before ranking.
RANK_ROUNDING_DIGITS = 8
# The tolerance R's all.equal uses, which ARTool's summary(art) applies to column sums and F values.
ALIGNMENT_TOLERANCE = 1.5e-8

Term = tuple[str, ...]


@dataclass(frozen=True)
class Design:
    """A validated factorial data set: the response as floats and each factor as integer level codes."""

    y: np.ndarray
    codes: dict[str, np.ndarray]
    levels: dict[str, list]
    factors: tuple[str, ...]
    subject_codes: np.ndarray | None = None
    subject: str | None = None
    between: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return len(self.y)

    def cell_index(self, factors: tuple[str, ...]) -> np.ndarray:
        """One integer per row naming its cell of the given factors (0 for every row when there are none)."""
        index = np.zeros(self.n, dtype=np.int64)
        for factor in factors:
            index = index * len(self.levels[factor]) + self.codes[factor]
        return index


def term_label(term: Term) -> str:
    return ":".join(term)


def effect_terms(factors: tuple[str, ...] | list[str], max_order: int | None = None) -> list[Term]:
    """Main effects, then 2-way, 3-way... interactions, in the order R lists the terms of `A*B*C`."""
    top = len(factors) if max_order is None else min(max_order, len(factors))
    return [term for order in range(1, top + 1) for term in itertools.combinations(factors, order)]


def _factor_levels(column: pd.Series) -> list:
    if isinstance(column.dtype, pd.CategoricalDtype):
        present = set(column.unique())
        return [level for level in column.cat.categories if level in present]
    values = list(pd.unique(column))
    try:
        return sorted(values)
    except TypeError:  # mixed types: order by their text, as R's factor() of pasted strings would
        return sorted(values, key=str)


def validate_design(data: pd.DataFrame, response: str, factors: list[str], subject: str | None = None) -> Design:
    """Check the data can be analysed and turn it into a `Design`; raise ValueError saying what is wrong."""
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    factors = list(factors)
    if not factors:
        raise ValueError("at least one factor is needed")
    if len(set(factors)) != len(factors):
        raise ValueError(f"factors are listed more than once: {factors}")
    if response in factors or (subject is not None and (subject in factors or subject == response)):
        raise ValueError("the response, the factors and the subject must be different columns")
    columns = [response, *factors, *([subject] if subject is not None else [])]
    absent = [column for column in columns if column not in data.columns]
    if absent:
        raise ValueError(f"columns not in the data: {absent}")
    if not (pd.api.types.is_numeric_dtype(data[response]) or pd.api.types.is_bool_dtype(data[response])):
        raise ValueError(f"response {response!r} must be numeric (its dtype is {data[response].dtype})")
    missing = data[columns].isna().any(axis=1)
    if missing.any():
        where = [column for column in columns if data[column].isna().any()]
        raise ValueError(
            f"{int(missing.sum())} of {len(data)} rows have missing values (in {where}); drop or impute them"
        )
    y = data[response].to_numpy(dtype=float)
    if not np.isfinite(y).all():
        raise ValueError(f"{int((~np.isfinite(y)).sum())} rows have an infinite response")
    levels = {factor: _factor_levels(data[factor]) for factor in factors}
    for factor, factor_levels in levels.items():
        if len(factor_levels) < 2:
            raise ValueError(f"factor {factor!r} has only one level ({factor_levels!r}); an effect needs two or more")
    codes = {
        factor: pd.Categorical(data[factor], categories=levels[factor]).codes.astype(np.int64) for factor in factors
    }
    design = Design(y=y, codes=codes, levels=levels, factors=tuple(factors))
    n_cells = int(np.prod([len(v) for v in levels.values()]))
    filled = np.unique(design.cell_index(design.factors))
    if len(filled) < n_cells:
        empty = sorted(set(range(n_cells)) - set(filled.tolist()))[0]
        example = []
        for factor in reversed(factors):
            empty, code = divmod(empty, len(levels[factor]))
            example.insert(0, f"{factor}={levels[factor][code]}")
        raise ValueError(
            f"{n_cells - len(filled)} of {n_cells} cells of {' x '.join(factors)} have no observations "
            f"(e.g. {', '.join(example)}); ART needs every combination of levels"
        )
    if subject is None:
        return design
    subject_codes = pd.Categorical(data[subject]).codes.astype(np.int64)
    between = tuple(f for f in factors if _constant_within(subject_codes, codes[f]))
    design = Design(y, codes, levels, tuple(factors), subject_codes, subject, between)
    _check_balanced(design)
    return design


def _constant_within(groups: np.ndarray, values: np.ndarray) -> bool:
    return bool((pd.Series(values).groupby(groups).nunique() == 1).all())


def _check_balanced(design: Design) -> None:
    """The strata analysis equals R's aov(Error(subject)) only when the design is balanced."""
    within = tuple(f for f in design.factors if f not in design.between)
    per_subject_cell = (
        pd.Series(design.subject_codes).groupby([design.subject_codes, design.cell_index(within)]).size()
    )
    cells_per_subject = per_subject_cell.groupby(level=0).size()
    n_within_cells = int(np.prod([len(design.levels[f]) for f in within]))
    subjects_per_between_cell = pd.Series(design.cell_index(design.between)).groupby(design.subject_codes).first()
    if (
        per_subject_cell.nunique() != 1
        or (cells_per_subject != n_within_cells).any()
        or subjects_per_between_cell.value_counts().nunique() != 1
    ):
        raise ValueError(
            f"the repeated-measures analysis needs a balanced design: every {design.subject!r} must have the same "
            f"number of rows in every combination of its within-subject factors {list(within)}, and every "
            f"combination of the between-subject factors {list(design.between)} the same number of subjects"
        )


def _align(design: Design, terms: list[Term]) -> pd.DataFrame:
    """Aligned responses, one column per term: residual from the full cell means plus the term's estimated effect."""
    means: dict[Term, np.ndarray] = {}

    def marginal_mean(factors: Term) -> np.ndarray:
        if factors not in means:
            index = design.cell_index(factors)
            means[factors] = pd.Series(design.y).groupby(index).transform("mean").to_numpy()
        return means[factors]

    residual = design.y - marginal_mean(design.factors)
    aligned = {}
    for term in terms:
        effect = np.zeros(design.n)
        for order in range(len(term) + 1):
            sign = -1.0 if (len(term) - order) % 2 else 1.0
            for subset in itertools.combinations(term, order):
                effect += sign * marginal_mean(subset)
        aligned[term_label(term)] = residual + effect
    return pd.DataFrame(aligned)


def rank_aligned(aligned: pd.DataFrame) -> pd.DataFrame:
    """Average ranks of each aligned column, after ARTool's rounding so that numerical near-ties tie."""
    return aligned.apply(lambda column: rankdata(np.round(column.to_numpy(), RANK_ROUNDING_DIGITS)))


def aligned_responses(data: pd.DataFrame, response: str, factors: list[str], max_order: int = 4) -> pd.DataFrame:
    """The aligned (unranked) responses of every effect up to `max_order`-way, one column per effect ("A:B")."""
    design = validate_design(data, response, factors)
    return _align(design, effect_terms(design.factors, max_order))


def _sum_coded(codes: np.ndarray, n_levels: int) -> np.ndarray:
    """R's contr.sum: one column per level but the last, which is coded -1 in every column."""
    columns = (codes[:, None] == np.arange(n_levels - 1)[None, :]).astype(float)
    columns[codes == n_levels - 1] = -1.0
    return columns


def _term_columns(design: Design, term: Term, rows: np.ndarray | None = None) -> np.ndarray:
    block = np.ones((design.n if rows is None else len(rows), 1))
    for factor in term:
        codes = design.codes[factor] if rows is None else design.codes[factor][rows]
        coded = _sum_coded(codes, len(design.levels[factor]))
        block = (block[:, :, None] * coded[:, None, :]).reshape(len(block), -1)
    return block


def _wald_tests(y: np.ndarray, fixed: np.ndarray, blocks: dict[Term, np.ndarray], stratum: str) -> dict[Term, dict]:
    """OLS of y on `fixed` plus the blocks, and a Wald F test that each block's coefficients are all zero.

    With sum-to-zero contrasts this is the Type III test car::Anova runs for ARTool's lm models.
    """
    design_matrix = np.hstack([fixed, *blocks.values()])
    fit = sm.OLS(y, design_matrix).fit()
    if fit.df_resid < 1:
        raise ValueError(f"no residual degrees of freedom in the {stratum!r} stratum (one observation per cell?)")
    tests, start = {}, fixed.shape[1]
    for term, block in blocks.items():
        restriction = np.zeros((block.shape[1], design_matrix.shape[1]))
        restriction[:, start : start + block.shape[1]] = np.eye(block.shape[1])
        start += block.shape[1]
        result = fit.f_test(restriction)
        f_value, df_num = float(np.squeeze(result.fvalue)), float(result.df_num)
        sum_sq = f_value * df_num * fit.scale
        tests[term] = {
            "term": term_label(term),
            "error": stratum,
            "F": f_value,
            "df_num": df_num,
            "df_den": float(fit.df_resid),
            "p": float(result.pvalue),
            "partial_eta_sq": sum_sq / (sum_sq + fit.ssr),
            "sum_sq": sum_sq,
            "sum_sq_error": float(fit.ssr),
        }
    return tests


def _effect_tests(design: Design, y: np.ndarray) -> dict[Term, dict]:
    """F tests of every effect of the full factorial model fitted to y (rows in `effect_terms` order)."""
    terms = effect_terms(design.factors)
    if design.subject is None:
        return _wald_tests(y, np.ones((design.n, 1)), {t: _term_columns(design, t) for t in terms}, "residual")
    between_terms = [t for t in terms if set(t) <= set(design.between)]
    within_terms = [t for t in terms if t not in between_terms]
    tests = {}
    if within_terms:  # subject dummies absorb the subject stratum, leaving the within-subject residual
        subject_dummies = (design.subject_codes[:, None] == np.unique(design.subject_codes)[None, :]).astype(float)
        blocks = {t: _term_columns(design, t) for t in within_terms}
        tests.update(_wald_tests(y, subject_dummies, blocks, "within"))
    if between_terms:  # balanced: the subject stratum is the analysis of the subject means
        subject_means = pd.Series(y).groupby(design.subject_codes).mean().to_numpy()
        first_rows = pd.Series(np.arange(design.n)).groupby(design.subject_codes).first().to_numpy()
        blocks = {t: _term_columns(design, t, first_rows) for t in between_terms}
        between_tests = _wald_tests(subject_means, np.ones((len(first_rows), 1)), blocks, design.subject)
        rows_per_subject = design.n / len(first_rows)  # aov's sums of squares are on the scale of the rows
        for row in between_tests.values():
            row["sum_sq"] *= rows_per_subject
            row["sum_sq_error"] *= rows_per_subject
        tests.update(between_tests)
    return {t: tests[t] for t in terms}


def alignment_check(
    data: pd.DataFrame,
    response: str,
    factors: list[str],
    subject: str | None = None,
    max_order: int = 4,
    aligned: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """ARTool's summary(art) diagnostic, one row per aligned column: its sum and the largest |F| of the other effects.

    `ok` is False when the sum or those F values are not ~0, which means the alignment did not strip out the other
    effects (ART may then be inappropriate, or the alignment is wrong). Pass `aligned` to check your own columns.
    """
    design = validate_design(data, response, factors, subject)
    terms = effect_terms(design.factors, max_order)
    if aligned is None:
        aligned = _align(design, terms)
    rows = []
    for label in aligned.columns:
        column = aligned[label].to_numpy(dtype=float)
        other_f = [abs(row["F"]) for row in _effect_tests(design, column).values() if row["term"] != label]
        column_sum = float(column.sum())
        sum_ok = abs(column_sum) <= ALIGNMENT_TOLERANCE * max(1.0, float(np.abs(column).sum()))
        max_f = max(other_f, default=0.0)
        ok = bool(sum_ok and max_f <= ALIGNMENT_TOLERANCE)
        rows.append({"term": label, "column_sum": column_sum, "max_abs_F_other_effects": max_f, "ok": ok})
    return pd.DataFrame(rows)


def art_anova(
    data: pd.DataFrame,
    response: str,
    factors: list[str],
    subject: str | None = None,
    max_order: int = 4,
    check_alignment: bool = True,
) -> pd.DataFrame:
    """Aligned Rank Transform ANOVA: one row per effect up to `max_order`-way.

    Columns: term ("A", "A:B"), error (the stratum the effect is tested in: "residual" without a subject, else the
    subject column's name for between-subject effects or "within"), F, df_num, df_den, p, partial_eta_sq (on the
    aligned ranks), sum_sq, sum_sq_error. Every model is the full factorial one, as in ARTool; `max_order` only
    limits which effects are aligned and reported. With `check_alignment`, warns when `alignment_check` fails.
    """
    if max_order < 1:
        raise ValueError(f"max_order must be at least 1, got {max_order}")
    design = validate_design(data, response, factors, subject)
    terms = effect_terms(design.factors, max_order)
    aligned = _align(design, terms)
    ranks = rank_aligned(aligned)
    rows = [_effect_tests(design, ranks[term_label(term)].to_numpy())[term] for term in terms]
    for term, row in zip(terms, rows):
        if np.ptp(ranks[term_label(term)].to_numpy()) == 0:
            # Every aligned response ties (the effect's cells and the error are all exactly flat): there is
            # nothing to test, and the F of two rounding-noise sums of squares would be a made-up number.
            row.update({"F": np.nan, "p": np.nan, "partial_eta_sq": np.nan})
    if check_alignment:
        check = alignment_check(data, response, factors, subject, max_order, aligned=aligned)
        if not check["ok"].all():
            bad = check.loc[~check["ok"], "term"].tolist()
            message = f"aligned responses for {bad} do not strip out the other effects; ART may not be appropriate"
            warnings.warn(message, stacklevel=2)
    return pd.DataFrame(rows)
