"""Every process rq-rag or its tests start ends when its parent is killed, by SIGTERM or SIGKILL (issue 45: a
`make test` stopped by a timeout left a vLLM server running for an hour).

A parent Python process starts the child the way the product does, prints the pid to watch, and sleeps; the test
kills the parent and waits for the child to be gone. The control starts the same child without the launcher and
sees it survive: what the mechanism prevents does happen without it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def start_parent(code: str) -> tuple[subprocess.Popen, int]:
    """A parent process running `code`, which prints the pid of the child to watch; (parent, child pid)."""
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    line = parent.stdout.readline()
    assert line.strip().isdigit(), line
    return parent, int(line)


def alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def family(pid: int) -> list[int]:
    """The process and every descendant (a launcher, the server under it, the server's workers)."""
    import psutil

    return [pid, *(p.pid for p in psutil.Process(pid).children(recursive=True))]


def gone_within(pid: int | list[int], seconds: float) -> bool:
    pids = [pid] if isinstance(pid, int) else pid
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.2)
    return False


def kill(parent: subprocess.Popen, signum: int) -> None:
    os.kill(parent.pid, signum)
    parent.wait(timeout=30)


LAUNCHED = """
    import subprocess, sys, time
    from rqrag.local_servers.processes import with_parent_death
    child = subprocess.Popen(with_parent_death({sleeper!r}), start_new_session=True)
    print(child.pid, flush=True)
    time.sleep(600)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_server_started_through_the_launcher_dies_with_its_parent(signum):
    parent, child = start_parent(LAUNCHED.format(sleeper=SLEEPER))
    assert alive(child)
    time.sleep(0.5)  # the launcher has started the command under it
    everyone = family(child)
    assert len(everyone) == 2, everyone  # the launcher and the command
    kill(parent, signum)
    assert gone_within(everyone, 10), f"{everyone} outlived their parent"


def test_a_server_started_from_a_thread_that_ends_keeps_running():
    """The kernel's parent-death signal fires when the starting *thread* ends: the launcher watches the process,
    so a server started from a worker thread (a restart in a thread pool) is not stopped when that thread is done."""
    code = f"""
        import subprocess, sys, threading, time
        from rqrag.local_servers.processes import with_parent_death
        started = []
        worker = threading.Thread(target=lambda: started.append(
            subprocess.Popen(with_parent_death({SLEEPER!r}), start_new_session=True)))
        worker.start(); worker.join()
        print(started[0].pid, flush=True)
        time.sleep(600)
    """
    parent, child = start_parent(code)
    time.sleep(3)
    try:
        assert alive(child), "the server died with the thread that started it"
    finally:
        everyone = family(child)
        kill(parent, signal.SIGKILL)
        assert gone_within(everyone, 10)


def test_without_the_launcher_the_child_outlives_its_parent():
    """The control: a process group of its own, as servers are started, survives its parent's SIGKILL."""
    code = f"""
        import subprocess, time
        child = subprocess.Popen({SLEEPER!r}, start_new_session=True)
        print(child.pid, flush=True)
        time.sleep(600)
    """
    parent, child = start_parent(code)
    kill(parent, signal.SIGKILL)
    try:
        assert not gone_within(child, 3)
    finally:
        os.kill(child, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_local_postgres_stops_when_its_parent_is_killed(tmp_path, signum):
    """PostgreSQL daemonizes (pg_ctl): its watchdog stops it when the process that started it dies."""
    code = f"""
        import time
        from rqrag.retrieval.postgres_server import LocalPostgres
        server = LocalPostgres({str(tmp_path / "pg")!r}, delete_on_stop=True)
        server.start()
        print(open({str(tmp_path / "pg" / "postmaster.pid")!r}).read().split()[0], flush=True)
        time.sleep(600)
    """
    parent, postmaster = start_parent(code)
    assert alive(postmaster)
    kill(parent, signum)
    assert gone_within(postmaster, 60), f"postgres {postmaster} outlived its parent"


@pytest.mark.slow
def test_rqrag_serve_dies_with_the_test_that_started_it(tmp_path):
    """The real server, as the tests start it (`RQRAGServer`), and the parent killed as a timeout kills pytest."""
    code = f"""
        import time
        from rqrag.serve.server.process import RQRAGServer
        server = RQRAGServer({str(tmp_path)!r}, {str(tmp_path / "c.db")!r}, ["--max_depth", "1"])
        print(server.process.pid, flush=True)
        time.sleep(600)
    """
    parent, served = start_parent(code)
    everyone = family(served)
    assert len(everyone) >= 2, everyone  # the launcher and the server under it
    kill(parent, signal.SIGKILL)
    assert gone_within(everyone, 60), f"rqrag serve {everyone} outlived its parent"
