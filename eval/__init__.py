"""Benchmark tasks, metrics and the evaluation runner (`rqrag eval`).

Filled by the benchmark issue.
"""
