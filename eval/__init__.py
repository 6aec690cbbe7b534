"""Benchmark tasks, metrics, the evaluation runner and its reports (`rqrag eval`)."""
