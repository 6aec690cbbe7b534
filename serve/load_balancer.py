"""HAProxy in front of several `rqrag serve` replicas: the configuration, and a local one for tests and scripts.

    print(haproxy_config([8001, 8002], port=8000))        # what configs/deploy/haproxy.cfg holds
    with LoadBalancer([8001, 8002], log_dir) as balancer:  # haproxy -db on a free port, stopped on exit
        httpx.get(balancer.base + "/v1/models")

Why HAProxy (Debian's `haproxy`, `apt-get install haproxy`): it checks each replica's readiness itself (`GET /ready`
every second: a replica starting, draining after SIGTERM, or cut off from its database is taken out of the rotation
within two checks), where open-source nginx only notices a replica once requests to it fail.

What it retries. A request that could not be delivered (the replica's port refused it: killed, or draining) goes to
the other replica, whatever its method: nothing of it reached a server. A request that reached a replica and got no
answer (the replica died while working on it) is retried only if it is a GET: resending a POST could store a chat
turn or an upload twice, so the client gets the error and decides (HAProxy's `disable-l7-retry`). Replies are
streamed through (`/v1/chat` streams its steps as server-sent events), with long server timeouts: a tree decode on
a CPU, or an upload of a 100-page PDF, takes minutes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rqrag.local_servers.processes import ServerProcess, free_port, start_server_process


HAPROXY = "/usr/sbin/haproxy"
INSTALL_HINT = "apt-get install haproxy (Debian/Ubuntu)"


def haproxy_config(replicas: Sequence[int | str], port: int = 8000, host: str = "127.0.0.1") -> str:
    """The configuration for replicas at `replicas` (ports on this machine, or `host:port`), listening on `port`."""
    addresses = [r if isinstance(r, str) and ":" in r else f"127.0.0.1:{r}" for r in replicas]
    servers = "\n".join(
        f"    server replica{n} {address} check inter 1s fall 2 rise 1" for n, address in enumerate(addresses, 1)
    )
    return f"""# HAProxy in front of rq-rag replicas (docs/scale.md); rendered by rqrag.serve.load_balancer.haproxy_config
global
    maxconn 1024
    log stdout format raw local0

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 15m
    timeout server 15m
    timeout http-request 60s
    retries 2
    option redispatch 1
    # a request no replica took (port refused) goes to another; one a replica took and dropped: GETs only
    retry-on conn-failure empty-response response-timeout

frontend rqrag
    bind {host}:{port}
    http-request disable-l7-retry unless METH_GET || METH_HEAD
    default_backend replicas

backend replicas
    balance leastconn
    option httpchk GET /ready
    http-check expect status 200
{servers}
"""


class LoadBalancer:
    """A HAProxy process in the foreground over `replicas`, on `port` (default: a free one)."""

    def __init__(self, replicas: Sequence[int | str], log_dir: str | os.PathLike, port: int | None = None):
        if not Path(HAPROXY).is_file():
            raise RuntimeError(f"the load balancer needs HAProxy at {HAPROXY}: {INSTALL_HINT}")
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        log_dir = Path(log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        self.config_path = log_dir / f"haproxy-{self.port}.cfg"
        self.config_path.write_text(haproxy_config(replicas, self.port))
        self._process: ServerProcess = start_server_process(
            [HAPROXY, "-db", "-f", str(self.config_path)],
            port=self.port,
            log_path=log_dir / f"haproxy-{self.port}.log",
            health_path="/health",
            startup_timeout=60,
            name="haproxy",
        )

    def stop(self) -> None:
        self._process.stop()

    def __enter__(self) -> LoadBalancer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
