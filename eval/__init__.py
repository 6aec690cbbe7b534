"""`rqrag.eval` — installed from the checkout's `eval/` folder (setuptools package-dir).

Benchmarks and factorial studies on one engine (`engine.py`): `rqrag eval` is a study whose factor is the system
(`runner.py`, `systems.py`: standard RAG defined once), `rqrag experiment` a factorial one (`experiment_*.py`,
ART ANOVA in `art*.py`); tasks, metrics and both reports. Self-training runs the tree on training ids through the
same engine and keeps the trajectories worth learning (`self_training.py`, `trajectory_selection.py`).
"""
