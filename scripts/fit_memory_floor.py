"""Renamed: `rqrag fit memory-floor` (the recipe is `fit/memory_floor.py`, `rqrag.fit.memory_floor`). This name keeps working for one
release, with a warning.

    rqrag fit memory-floor --help
"""

from __future__ import annotations

import sys


if __name__ == "__main__":
    from rqrag.fit.memory_floor import main

    print(
        "scripts/fit_memory_floor.py is now `rqrag fit memory-floor`; this name goes in the next release",
        file=sys.stderr,
    )
    sys.exit(main(sys.argv[1:]) or 0)
