"""Renamed: `rqrag fit decision` (the recipe is `fit/decision.py`, `rqrag.fit.decision`). This name keeps working for one
release, with a warning.

    rqrag fit decision --help
"""

from __future__ import annotations

import sys


if __name__ == "__main__":
    from rqrag.fit.decision import main

    print(
        "scripts/fit_model_decision.py is now `rqrag fit decision`; this name goes in the next release",
        file=sys.stderr,
    )
    sys.exit(main(sys.argv[1:]) or 0)
