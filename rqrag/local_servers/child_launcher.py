"""Run a command that ends when the process that started it dies, or a watchdog that runs a stop command then.

    python -m rqrag.local_servers.child_launcher --parent PID -- vllm serve ...      # the server, stopped if PID dies
    python -m rqrag.local_servers.child_launcher --parent PID --on_parent_death "python -m rqrag.retrieval.postgres_server stop ..."

A server rq-rag or its tests start (vLLM, `rqrag serve`) runs in its own process group, so it can be stopped with
every worker it forked; but a process group outlives a parent killed by SIGKILL or by a test runner's timeout, and
a vLLM server left behind holds a core for hours. This launcher stays between the two: it runs the command in its
own process group, passes on the signals it gets (a stop of the group reaches both anyway), exits with the command's
status, and once a second checks that its parent is still there; when it is not, it stops the command (SIGTERM, then
SIGKILL after `GRACE_S`). It watches the parent *process*: the kernel's parent-death signal (`PR_SET_PDEATHSIG`) fires
when the *thread* that started the child ends, which would stop a server started from a worker thread as soon as
that thread is done. PostgreSQL daemonizes (pg_ctl), so it is not our child at all: the watchdog form waits for the
parent to die and then runs the given stop command.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import time


POLL_S = 1.0
GRACE_S = 20.0


def parent_alive(parent: int) -> bool:
    # When the parent dies we are re-parented (to init or a subreaper): our parent pid changes.
    return os.getppid() == parent


def supervise(command: list[str], parent: int) -> int:
    """Run `command` until it exits (its status is ours) or `parent` dies (then stop it)."""
    child = subprocess.Popen(command)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda number, frame: child.send_signal(number))
    while True:
        try:
            return child.wait(timeout=POLL_S)
        except subprocess.TimeoutExpired:
            pass
        if not parent_alive(parent):
            child.terminate()
            try:
                child.wait(timeout=GRACE_S)
            except subprocess.TimeoutExpired:
                child.kill()
            return 1


def watch(stop: list[str], parent: int) -> int:
    """Wait for `parent` to die (or for SIGTERM), then run `stop`."""
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    while parent_alive(parent) and not stopping:
        time.sleep(POLL_S)
    return subprocess.run(stop, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--parent", type=int, required=True, help="the pid whose death stops the command")
    parser.add_argument("--on_parent_death", default=None, help="a command to run once the parent dies (watchdog)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args(argv)
    if not parent_alive(args.parent):
        return 1  # the parent died before we started: nothing to serve
    if args.on_parent_death:
        return watch(shlex.split(args.on_parent_death), args.parent)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    return supervise(command, args.parent)


if __name__ == "__main__":
    sys.exit(main())
