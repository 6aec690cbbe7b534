"""Renamed: `python -m rqrag.eval.benchmark_report` (`eval/benchmark_report.py`: summaries, the strategy chart and
the results table of prediction files). This name keeps working for one release, with a warning.

    python -m rqrag.eval.benchmark_report runs/eval/*
"""

from __future__ import annotations

import sys


if __name__ == "__main__":
    from rqrag.eval.benchmark_report import main

    print("python -m rqrag.eval.report is now python -m rqrag.eval.benchmark_report; this name goes in the next "
          "release", file=sys.stderr)  # fmt: skip
    sys.exit(main())
