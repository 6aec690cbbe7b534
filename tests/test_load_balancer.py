"""The load balancer's configuration: the shipped file is what the code renders, and HAProxy accepts it.

    python -m pytest tests/test_load_balancer.py -q

The balancer at work, in front of two real replicas, is tests/test_replicas.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rqrag.serve.load_balancer import HAPROXY, haproxy_config


ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "configs" / "deploy" / "haproxy.cfg"


def test_the_shipped_configuration_is_the_rendered_one():
    assert SHIPPED.read_text() == haproxy_config([8001, 8002], port=8000)


def test_the_configuration_checks_readiness_and_retries_only_what_was_not_delivered_or_is_a_get():
    text = haproxy_config(["10.0.0.5:8001", 8002], port=9000)
    assert "server replica1 10.0.0.5:8001 check" in text and "server replica2 127.0.0.1:8002 check" in text
    assert "option httpchk GET /ready" in text and "bind 127.0.0.1:9000" in text
    assert "http-request disable-l7-retry unless METH_GET || METH_HEAD" in text


@pytest.mark.skipif(not Path(HAPROXY).is_file(), reason="needs HAProxy (apt-get install haproxy)")
def test_haproxy_accepts_the_shipped_configuration():
    checked = subprocess.run([HAPROXY, "-c", "-f", str(SHIPPED)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0 and "Configuration file is valid" in checked.stdout + checked.stderr, checked.stderr
    assert "WARNING" not in checked.stdout + checked.stderr


def test_ready_is_503_until_the_server_has_started_then_names_the_server(make_app):
    """What HAProxy asks each replica every second (no key: a balancer has none)."""
    from fastapi.testclient import TestClient

    from rqrag.serve.documents.job_queue import server_id

    app, _, _ = make_app(serve={"api_key_env": None})
    assert TestClient(app).get("/ready").status_code == 503  # the lifespan has not run: not started
    with TestClient(app) as client:
        ready = client.get("/ready")
        assert ready.status_code == 200 and ready.json()["server"] == server_id()
        assert client.get("/health").status_code == 200
