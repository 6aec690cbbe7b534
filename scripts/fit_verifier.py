"""Renamed: `rqrag fit verifier` (the recipe is `fit/verifier.py`, `rqrag.fit.verifier`). This name keeps working for one
release, with a warning.

    rqrag fit verifier --help
"""

from __future__ import annotations

import sys


if __name__ == "__main__":
    from rqrag.fit.verifier import main

    print("scripts/fit_verifier.py is now `rqrag fit verifier`; this name goes in the next release", file=sys.stderr)
    sys.exit(main(sys.argv[1:]) or 0)
