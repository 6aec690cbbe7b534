"""Run a command that dies with the process that started it (Linux: the parent-death signal), or a watchdog.

    python -m rqrag.child_launcher -- vllm serve ...            # exec'd: SIGTERM when its parent dies
    python -m rqrag.child_launcher --on_parent_death "python -m rqrag.retrieval.postgres_server stop --data-dir D"

A server rq-rag or its tests start (vLLM, `rqrag serve`) runs in its own process group, so it can be stopped with
every worker it forked; but a process group outlives a parent killed by SIGKILL or by a test runner's timeout, and
a vLLM server left behind holds a core for hours. This launcher asks the kernel (`prctl(PR_SET_PDEATHSIG)`) to send
SIGTERM when its parent dies, then execs the command: the signal survives exec, and the server's own SIGTERM
handling stops its workers. PostgreSQL daemonizes (pg_ctl), so it is not our child at all: the watchdog form waits
for that signal and then runs the given stop command.

Off Linux there is no parent-death signal: the command simply runs (process groups still stop it on a clean exit).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shlex
import signal
import subprocess
import sys
import time


PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> bool:
    """Ask for SIGTERM when the parent dies; exit at once if it already died (the race between fork and prctl).
    Returns whether the kernel took the request."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        return False
    if os.getppid() != parent:
        os._exit(0)  # the parent is already gone: nothing to serve
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--on_parent_death", default=None, help="a command to run once the parent dies (watchdog)")
    parser.add_argument("--parent", type=int, default=None, help="the parent's pid (default: ours now)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to exec, after --")
    args = parser.parse_args(argv)
    parent = args.parent or os.getppid()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.on_parent_death:
        stop = shlex.split(args.on_parent_death)
        signal.signal(signal.SIGTERM, lambda *_: (subprocess.run(stop, check=False), os._exit(0)))
        die_with_parent(parent)
        while True:  # SIGTERM (the parent died, or someone stopped us) runs the stop command and exits
            time.sleep(3600)
    if not command:
        parser.error("no command to run")
    die_with_parent(parent)
    os.execvp(command[0], command)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
