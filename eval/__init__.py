"""`rqrag.eval` — installed from the checkout's `eval/` folder (setuptools package-dir).

Benchmarks and factorial studies on one engine (`engine.py`): `rqrag eval` is a study whose factor is the system
(`runner.py`, `systems.py`: standard RAG defined once; tasks `tasks.py`, metrics `metrics.py` and
`rag_metrics.py`, the report `benchmark_report.py`); `rqrag experiment` is a factorial one (`experiments/`). Self-training,
which runs the same engine over training ids, lives in its own stage (`self_training/`).
"""
