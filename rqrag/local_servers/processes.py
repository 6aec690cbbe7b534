"""Supervise a local HTTP server process: start it on a free port, wait until it is healthy, stop all of it.

One helper for every server rq-rag starts on this machine — the vLLM OpenAI-compatible server
(`rqrag.local_servers.local_server`) and `rqrag serve` itself (`rqrag.serve.server.process`, used by tests and benchmarks):

    with start_server_process(cmd, port=port, log_path=log) as proc:
        httpx.get(f"{proc.root_url}/health")

The process runs in its own session (process group), so `stop()` signals the server and every worker it forked
(vLLM's engine core and CPU worker among them) at once: SIGTERM, then SIGKILL after `stop_timeout` s. It is started
under `rqrag.local_servers.child_launcher`, which stops it when this process dies without stopping it (SIGKILL, a test runner's
timeout): no server is left behind holding a core. Output goes
to a log file, never a pipe, so a chatty server cannot block on a full pipe; errors quote the log's tail.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


_LOG_TAIL_CHARS = 6000


class ServerProcessError(RuntimeError):
    """The server exited or did not become healthy in time; the message ends with the tail of its log."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (the kernel picks it; a tiny race with other processes remains)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def log_tail(path: str | os.PathLike, chars: int = _LOG_TAIL_CHARS) -> str:
    """The last `chars` characters of a log file ("" if it does not exist)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - chars))
            return fh.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


@dataclass
class ServerProcess:
    """A running server process group and where to reach it."""

    process: subprocess.Popen
    host: str
    port: int
    log_path: Path
    health_path: str = "/health"
    start_seconds: float = 0.0
    stop_timeout: float = 30.0
    _log_file: object = field(default=None, repr=False)
    _stopped: bool = field(default=False, repr=False)

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def healthy(self, timeout: float = 2.0) -> bool:
        """True when GET `health_path` answers 200."""
        try:
            with urllib.request.urlopen(f"{self.root_url}{self.health_path}", timeout=timeout) as resp:
                return resp.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    def log_tail(self, chars: int = _LOG_TAIL_CHARS) -> str:
        return log_tail(self.log_path, chars)

    def wait_healthy(self, timeout: float, name: str = "server") -> None:
        """Block until healthy; raise `ServerProcessError` (and stop) if the process dies or `timeout` s pass."""
        started = time.monotonic()
        deadline = started + timeout
        while not self.healthy():
            code = self.process.poll()
            if code is not None:
                self.stop()
                raise ServerProcessError(
                    f"{name} exited with code {code} before becoming healthy; log {self.log_path}:\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise ServerProcessError(
                    f"{name} not healthy after {timeout:.0f} s; log {self.log_path}:\n{self.log_tail()}"
                )
            time.sleep(0.5)

    def stop(self) -> None:
        """SIGTERM the process group, SIGKILL whatever is left after `stop_timeout` s. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        try:
            _terminate_group(self.process, self.stop_timeout)
        finally:
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def with_parent_death(command: Sequence[str]) -> list[str]:
    """`command` run under `rqrag.local_servers.child_launcher`, which stops it when this process dies, even by SIGKILL (it
    watches this process, whichever thread started it, and exits with the command's status)."""
    return [sys.executable, "-m", "rqrag.local_servers.child_launcher", "--parent", str(os.getpid()), "--", *command]


def start_server_process(
    command: Sequence[str],
    *,
    port: int,
    log_path: str | os.PathLike,
    host: str = "127.0.0.1",
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike | None = None,
    health_path: str = "/health",
    startup_timeout: float = 240,
    stop_timeout: float = 30,
    name: str = "server",
    process_class: type[ServerProcess] = ServerProcess,
    **fields,
) -> ServerProcess:
    """Start `command` in its own process group, logging to `log_path`, and return it once healthy.

    On failure the whole group is stopped and `ServerProcessError` carries the log's tail. Extra keyword
    arguments are fields of `process_class` (a subclass may carry e.g. the served model name).
    """
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = open(log_path, "wb", buffering=0)  # closed by ServerProcess.stop()
    log_file.write(("$ " + " ".join(command) + "\n").encode())
    started = time.monotonic()
    process = subprocess.Popen(
        with_parent_death(command),
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        start_new_session=True,  # own process group: stop() signals the server and all its workers at once
    )
    server = process_class(
        process=process,
        host=host,
        port=port,
        log_path=log_path,
        health_path=health_path,
        stop_timeout=stop_timeout,
        _log_file=log_file,
        **fields,
    )
    server.wait_healthy(startup_timeout, name)
    server.start_seconds = time.monotonic() - started
    return server


def _descendants(pid: int) -> list:
    """The process's descendants (psutil, a vLLM dependency); [] if psutil is missing or the process is gone."""
    try:
        import psutil

        return psutil.Process(pid).children(recursive=True)
    except Exception:  # best effort: the process group kill below is the main mechanism
        return []


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _terminate_group(process: subprocess.Popen, timeout: float) -> None:
    # Started with start_new_session=True, so the pid is also the process group id and every worker it forks or
    # spawns is in that group unless it calls setsid itself; the descendants are also collected by pid as a net.
    pgid = process.pid
    children = _descendants(process.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + timeout
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.2)
        if not any(_is_running(p) for p in children) and process.poll() is not None:
            break
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    for child in children:
        if _is_running(child):
            with contextlib.suppress(Exception):
                child.kill()
    if process.poll() is None:
        process.kill()
    process.wait(timeout=timeout)
    with contextlib.suppress(Exception):
        import psutil

        psutil.wait_procs(children, timeout=timeout)


def _is_running(proc) -> bool:
    try:
        import psutil

        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except Exception:  # NoSuchProcess and friends: it is gone
        return False
