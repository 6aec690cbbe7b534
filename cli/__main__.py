"""`python -m rqrag.cli ...`, the same as the `rqrag` entry point: tests, `accelerate launch -m rqrag.cli` and the
server's own child process (serve/server/process.py) start the CLI this way, with the interpreter they choose."""

import sys

from rqrag.cli import main


sys.exit(main())
