"""Kill a real run mid-way, as a user's `kill -9` or a power cut would: the helper the resume tests share."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path


def kill_after_first_line(command, records: Path, *, cwd, env, log: Path, timeout: float = 600) -> None:
    """Start `command`, wait until `records` holds one complete line, then SIGKILL it (no cleanup runs).

    The child's stderr goes to `log` (a file: a pipe nobody reads would fill up and stall the child)."""
    with log.open("w") as sink:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=sink)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if records.is_file() and records.read_text().count("\n") >= 1:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    process.wait()
