"""`rqrag.eval.experiments` — factorial experiments on a user's corpus (`rqrag experiment run --config ...`).

`experiment_config.py` (the factors and their levels), `design.py` (cells of the full factorial), `runner.py` (each
cell's answers through the eval engine, resumable), `metrics.py` (per-question scores, Ragas-judged ones included),
`analysis.py` + `experiment_report.py` (effects, plots, the markdown report), `art.py` + `art_contrasts.py` (aligned rank
transform ANOVA and its contrasts, for scores that are not normal).
"""
