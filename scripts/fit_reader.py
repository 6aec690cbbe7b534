"""Renamed: `rqrag fit reader` (the recipe is `fit/reader.py`, `rqrag.fit.reader`). This name keeps working for one
release, with a warning.

    rqrag fit reader --help
"""

from __future__ import annotations

import sys


if __name__ == "__main__":
    from rqrag.fit.reader import main

    print("scripts/fit_reader.py is now `rqrag fit reader`; this name goes in the next release", file=sys.stderr)
    sys.exit(main(sys.argv[1:]) or 0)
