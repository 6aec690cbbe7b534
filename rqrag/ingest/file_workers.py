"""Worker processes for work on files nobody vouches for: a user's upload read, its pages drawn.

    workers = FileWorkers(WorkerLimits(workers=2, memory_mb=1024, cpu_seconds=120, wall_seconds=180))
    pages = workers.run(read_file, data, "manual.pdf", progress=on_page)     # in a worker, with its limits
    workers.run(render_page, data, 4, wall_seconds=15)                       # a tighter clock for one page
    workers.close()

Why. pdfium, lxml and python-docx are native or deep code: a file can make them crash (a signal no `except`
catches), allocate gigabytes, or loop. In the server's own process any of those takes every user's requests down
with it, and with durable jobs the next replica reads the same file and dies too. Here each call runs in a worker
process under an address-space limit (`RLIMIT_AS`), a CPU-time limit (`RLIMIT_CPU`, counted from the call's start)
and a wall-clock timeout; a worker that dies or overruns is killed and replaced, and the call raises an
`IngestError` a person can act on: `file_too_complex` (over the memory, CPU or time limit) or `parser_crashed`
(killed by a signal). The server goes on. All workers busy for `queue_seconds`: `WorkersBusy`.

Why not `concurrent.futures.ProcessPoolExecutor` or pebble: when one worker of the former dies, the whole pool is
broken and every other user's call in flight fails with it; neither has a channel for progress (a job shows pages
read, and its cancel is checked at each page), nor per-call CPU limits. The processes are `multiprocessing`'s,
started from a forkserver that imported the readers once (a replacement worker starts in milliseconds, and never
inherits the server's threads or its models' memory); the supervision is the part written here.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from rqrag.ingest.extract import IngestError


logger = logging.getLogger(__name__)

FILE_TOO_COMPLEX = "file_too_complex"
PARSER_CRASHED = "parser_crashed"

# What the workers import once, in the forkserver: every reader a task uses, so a new worker is a cheap fork.
PRELOADED = ["rqrag.ingest.pipeline", "rqrag.ingest.page_image", "rqrag.ingest.upload_precheck"]


# Workers run at a lower CPU priority than the server: on 2 cores, six users drawing pages at once kept a question
# waiting 5.1 s (median) at the same priority; a file's reading is background work, a question is someone waiting.
WORKER_NICENESS = 10


class WorkersBusy(RuntimeError):
    """Every worker stayed busy for the caller's whole wait: try again shortly."""


@dataclass(frozen=True)
class WorkerLimits:
    """The pool's size and what one call may cost. Defaults for 2 cores: two workers (one ingestion, one page
    drawing at a time run side by side); 1 GiB of address space each (a worker starts near 300 MB with its readers;
    the 104-page manual peaks under 500 MB, a page drawn within its pixel budget under 150 MB); two minutes of CPU
    and three of wall clock for a file (the manual takes ~4 s)."""

    workers: int = 2
    memory_mb: int = 1024  # address space (RLIMIT_AS), not resident memory; 0: no limit
    cpu_seconds: float = 120.0
    wall_seconds: float = 180.0
    queue_seconds: float = 60.0  # how long a call waits for a free worker before `WorkersBusy`
    tasks_per_worker: int = 200  # a worker is replaced after this many calls (what a reader leaks goes with it)


# ---------------------------------------------------------------------------------------------- in the worker


def _worker_main(conn, memory_bytes: int) -> None:
    """A worker's loop: limits set once, then (task, args, kwargs, cpu_seconds) in, ("ok"|"error"|"progress", ...) out."""
    import resource

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the server's to handle; it stops us itself
    os.nice(WORKER_NICENESS)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no multi-GB core file behind
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    _, hard_cpu = resource.getrlimit(resource.RLIMIT_CPU)
    while True:
        try:
            task, args, kwargs, cpu_seconds = conn.recv()
        except (EOFError, OSError):
            return  # the server closed the pool, or is gone
        used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
        soft = math.ceil(used + cpu_seconds) if cpu_seconds else resource.RLIM_INFINITY
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard_cpu))  # SIGXCPU past it: the server sees the signal
        if kwargs.pop("progress", None):
            kwargs["progress"] = lambda done, total: conn.send(("progress", done, total))
        try:
            conn.send(("ok", task(*args, **kwargs)))
        except MemoryError:
            conn.send(("memory", None))
            return  # the heap may be in pieces: a fresh worker takes the next call
        except Exception as error:  # noqa: BLE001 - sent back as it is; the caller decides what it means
            try:
                conn.send(("error", error))
            except Exception:  # not picklable: its type and text are enough
                conn.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))


# ---------------------------------------------------------------------------------------------- in the server


class _Worker:
    def __init__(self, context, memory_bytes: int):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, memory_bytes), daemon=True)
        self.process.start()
        child.close()
        self.calls = 0

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


def _signal_name(exitcode: int | None) -> str:
    try:
        return signal.Signals(-exitcode).name if exitcode and exitcode < 0 else f"exit code {exitcode}"
    except ValueError:
        return f"signal {-exitcode}"


class FileWorkers:
    """A pool of `WorkerLimits.workers` worker processes, started on first use and replaced when one dies."""

    def __init__(self, limits: WorkerLimits | None = None, start_method: str = "forkserver"):
        self.limits = limits or WorkerLimits()
        self._context = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            self._context.set_forkserver_preload(PRELOADED)
        self._slots = threading.BoundedSemaphore(self.limits.workers)
        self._idle: list[_Worker] = []
        self._busy: dict[int, _Worker] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.counts = {"calls": 0, "replaced": 0, FILE_TOO_COMPLEX: 0, PARSER_CRASHED: 0, "busy": 0}

    def pids(self, busy: bool = False) -> list[int]:
        """The process ids of the idle workers, or of those running a call."""
        with self._lock:
            return list(self._busy) if busy else [worker.process.pid for worker in self._idle]

    def run(
        self,
        task: Callable[..., Any],
        *args: Any,
        progress: Callable[[int, int], None] | None = None,
        wall_seconds: float | None = None,
        cpu_seconds: float | None = None,
        queue_seconds: float | None = None,
        name: str = "the file",
        **kwargs: Any,
    ) -> Any:
        """`task(*args, **kwargs)` in a worker, its result or its exception (an `IngestError` stays one);
        `progress(done, total)` is called here as the task reports it (an exception it raises, a cancelled job's,
        stops the worker and is raised). Over a limit or crashed: `IngestError` naming `name`."""
        wall = wall_seconds or self.limits.wall_seconds
        limits = replace(
            self.limits,
            wall_seconds=wall,
            cpu_seconds=min(cpu_seconds or self.limits.cpu_seconds, wall),
            queue_seconds=self.limits.queue_seconds if queue_seconds is None else queue_seconds,
        )
        if not self._slots.acquire(timeout=limits.queue_seconds):
            self.counts["busy"] += 1
            raise WorkersBusy(f"every file worker stayed busy for {limits.queue_seconds:.0f} s; try again shortly")
        worker, pid = None, None
        try:
            worker = self._take()
            pid = worker.process.pid
            with self._lock:
                self._busy[pid] = worker
            worker.calls += 1
            self.counts["calls"] += 1
            kwargs = {**kwargs, "progress": True} if progress else kwargs
            worker.conn.send((task, args, kwargs, limits.cpu_seconds))
            done, value = self._await(worker, limits, progress, name)
            if worker.calls < limits.tasks_per_worker:
                self._give_back(worker)  # a task's own exception (a refused file) leaves its worker sound
                worker = None
            if not done:
                raise value
            return value
        finally:
            if worker is not None:
                worker.kill()
            with self._lock:
                self._busy.pop(pid, None)
            self._slots.release()

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise RuntimeError("the file workers are closed")
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker
                worker.kill()
        return _Worker(self._context, self.limits.memory_mb << 20)

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(worker)
                return
        worker.kill()

    def _await(self, worker: _Worker, limits: WorkerLimits, progress, name: str) -> tuple[bool, Any]:
        """(True, the task's result) or (False, the exception it raised); over a limit or dead: `IngestError` (and
        `run` kills the worker)."""
        deadline = time.monotonic() + limits.wall_seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.counts["replaced"] += 1
                raise self._too_complex(name, f"took longer than {limits.wall_seconds:.0f} s")
            try:
                ready = worker.conn.poll(min(left, 1.0))
                message = worker.conn.recv() if ready else None
            except (EOFError, OSError):
                message = ("died", None)
            if message is None:
                continue
            kind, *rest = message
            if kind == "progress":
                progress(*rest)  # may raise (a cancelled job): `run` then kills the worker
            elif kind == "ok":
                return True, rest[0]
            elif kind == "error":
                return False, rest[0]
            elif kind == "memory":
                self.counts["replaced"] += 1
                raise self._too_complex(name, f"needed more than {limits.memory_mb} MB of memory")
            else:
                raise self._died(worker, limits, name)

    def _too_complex(self, name: str, what: str) -> IngestError:
        self.counts[FILE_TOO_COMPLEX] += 1
        return IngestError(
            FILE_TOO_COMPLEX,
            f"{name} {what} to read and was stopped; split it into smaller files, or save it again from the program "
            "that made it (a PDF printed again as PDF is often simpler)",
        )

    def _died(self, worker: _Worker, limits: WorkerLimits, name: str) -> IngestError:
        worker.process.join(5)
        exitcode = worker.process.exitcode
        self.counts["replaced"] += 1
        logger.warning("a file worker died reading %s (%s)", name, _signal_name(exitcode))
        if exitcode == -signal.SIGXCPU:
            return self._too_complex(name, f"needed more than {limits.cpu_seconds:.0f} s of CPU")
        self.counts[PARSER_CRASHED] += 1
        return IngestError(
            PARSER_CRASHED,
            f"the reader crashed on {name} ({_signal_name(exitcode)}); the file is damaged or built to break "
            "readers. Nothing else was affected: save it again from the program that made it and upload that",
        )

    def close(self) -> None:
        """Stop every idle worker; calls in flight end on their own (their workers are then stopped)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def __enter__(self) -> FileWorkers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["FileWorkers", "WorkerLimits", "WorkersBusy", "FILE_TOO_COMPLEX", "PARSER_CRASHED"]
