"""The servers a soak (`scripts/soak.py`) or a benchmark runs against: one `rqrag serve`, or replicas behind HAProxy.

    deployment = Deployment(out, replicas=2, flags=[...])   # PostgreSQL, 2 replicas on it, HAProxy in front
    deployment.base                                          # where clients send requests (the balancer's URL)
    deployment.kill_and_restart(0)                           # SIGKILL replica 0, start it again on its port
    deployment.restart_database(down_s=5)
    deployment.rss_mb()                                      # every replica's processes together
    deployment.stop()

One replica is the single-machine server (no balancer; its document library in a folder, as `rqrag serve` keeps it
by default). Two or more share everything through the one PostgreSQL (conversations, memories, users, the job queue,
the document library: docs/scale.md), and jobs are leased for `job_lease_s` so a killed replica's upload is taken
over within that time.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


class Deployment:
    def __init__(self, out: Path, replicas: int = 1, flags: list[str] | None = None, job_lease_s: float = 10.0):
        from rqrag.retrieval.postgres_server import LocalPostgres

        self.out = Path(out)
        self.database = LocalPostgres(self.out / "pg", delete_on_stop=False)
        self.url = self.database.start()
        shared = ["--documents_database_url", self.url] if replicas > 1 else []
        folder = [] if replicas > 1 else ["--documents_dir", str(self.out / "libraries")]
        self.flags = ["--database_url", self.url, *shared, *folder, "--job_lease_seconds", str(job_lease_s),
                      *(flags or [])]  # fmt: skip
        self.ports: list[int | None] = [None] * replicas
        self.starts = [0] * replicas
        self.servers = [self._start(n) for n in range(replicas)]
        self.balancer = None
        if replicas > 1:
            from rqrag.serve.load_balancer import LoadBalancer

            self.balancer = LoadBalancer(self.ports, self.out / "balancer")
        self.base = self.balancer.base if self.balancer else self.servers[0].base

    def _start(self, n: int):
        from rqrag.serve.server.process import RQRAGServer

        self.starts[n] += 1  # each start logs to a folder of its own: a restart on the same port keeps the old log
        folder = self.out / f"replica{n}" / f"start{self.starts[n]}"
        server = RQRAGServer(folder, self.out / "unused.db", self.flags, port=self.ports[n])
        self.ports[n] = server.port
        return server

    def kill_and_restart(self, n: int) -> None:
        """SIGKILL replica `n` (its whole process group) and start it again on the same port."""
        os.killpg(self.servers[n].process.pid, signal.SIGKILL)
        self.servers[n].process.wait()
        self.servers[n] = self._start(n)

    def restart_database(self, down_s: float) -> None:
        self.database.stop()
        time.sleep(down_s)
        self.database.start()

    def rss_mb(self) -> float | None:
        """The resident memory of every replica and its children, in MB (None if one could not be read)."""
        import psutil

        total = 0
        try:
            for server in self.servers:
                process = psutil.Process(server.process.pid)
                total += sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])
        except (psutil.Error, AttributeError):
            return None
        return total / 2**20

    def open_files(self) -> int | None:
        import psutil

        try:
            processes = [psutil.Process(server.process.pid) for server in self.servers]
            return sum(p.num_fds() for parent in processes for p in [parent, *parent.children(recursive=True)])
        except (psutil.Error, AttributeError):
            return None

    def stop(self) -> None:
        if self.balancer is not None:
            self.balancer.stop()
        for server in self.servers:
            server.stop()
        self.database.stop()
