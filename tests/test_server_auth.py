"""The server's guard (`serve/server/auth.py`) fails closed: a key source that names nothing stops the server at
start, a users file that breaks while it runs is a 503 that shows no server path, and the Bearer scheme is matched
case-insensitively (RFC 7235) in both keyed modes.

    python -m pytest tests/test_server_auth.py -q

In process (`create_app` + `TestClient`, no model: `/v1/me` and `/v1/models` need none), except one real
`rqrag serve` start with its key variable unset.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from rqrag.config_loader import ConfigError
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.local_servers.processes import free_port
from rqrag.paths import PROJECT_ROOT
from rqrag.serve.serve_config import ServeConfig
from rqrag.serve.server.app import create_app
from rqrag.serve.users import UserFile


KEY_ENV = "RQRAG_TEST_AUTH_KEY"


def _app(tmp_path, **serve):
    return create_app(DecodeConfig(prompting="trained", max_depth=0), ServeConfig(**serve), decoder=object())


def test_serve_refuses_to_start_when_its_key_variable_is_unset(tmp_path):
    env = {name: value for name, value in os.environ.items() if name != KEY_ENV}
    command = [
        sys.executable, "-m", "rqrag.cli", "serve", "--config", str(PROJECT_ROOT / "configs/serve/default.yaml"),
        "--port", str(free_port()), "--database_url", f"sqlite:///{tmp_path}/s.db", "--api_key_env", KEY_ENV,
    ]  # fmt: skip
    try:
        started = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"rqrag serve --api_key_env {KEY_ENV} (unset) kept running: it answers everyone")
    assert started.returncode != 0
    assert KEY_ENV in started.stderr and "not set" in started.stderr, started.stderr[-2000:]
    assert "Traceback" not in started.stderr  # a message for the operator, not a crash


@pytest.mark.parametrize("value", ["", "   ", "\n\t"])
def test_an_empty_key_refuses_to_start_and_the_message_names_the_variable(tmp_path, monkeypatch, value):
    monkeypatch.setenv(KEY_ENV, value)
    with pytest.raises(ConfigError, match=KEY_ENV) as refused:
        _app(tmp_path, api_key_env=KEY_ENV)
    assert "empty" in str(refused.value)


def test_a_key_no_request_could_send_refuses_to_start(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "two words")  # `Bearer two words` is no Bearer header: nobody could get in
    with pytest.raises(ConfigError, match=f"{KEY_ENV}.*spaces") as refused:
        _app(tmp_path, api_key_env=KEY_ENV)
    assert "two words" not in str(refused.value)


def test_an_unset_key_variable_refuses_in_process_too(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(ConfigError, match=f"{KEY_ENV}.*not set"):
        _app(tmp_path, api_key_env=KEY_ENV)


def test_the_message_names_the_variable_never_its_value(tmp_path, monkeypatch):
    # A value that is only whitespace around nothing is empty; one with text is a key and starts the server.
    monkeypatch.setenv(KEY_ENV, "  s3cret-value  ")
    client = TestClient(_app(tmp_path, api_key_env=KEY_ENV))
    assert client.get("/v1/me", headers={"Authorization": "Bearer s3cret-value"}).status_code == 200
    monkeypatch.setenv(KEY_ENV, " \t ")
    with pytest.raises(ConfigError) as refused:
        _app(tmp_path, api_key_env=KEY_ENV)
    assert "s3cret" not in str(refused.value) and "\t" not in str(refused.value)


@pytest.mark.parametrize("setting", [{"api_key_env": ""}, {"api_key_env": "  "}, {"users": ""}, {"users": " "}])
def test_a_key_source_given_as_an_empty_name_refuses_to_start(tmp_path, setting):
    # `--users ""` or `--api_key_env ""` would otherwise be the open mode: everyone is anyone.
    with pytest.raises(ConfigError, match="empty"):
        _app(tmp_path, **setting)


def test_a_users_file_with_an_empty_key_hash_refuses_to_start(tmp_path):
    path = tmp_path / "users.json"
    UserFile(path).add("alice")
    path.write_text(path.read_text().replace('"hash": "', '"hash": "", "was": "'))
    with pytest.raises(ConfigError, match="hash"):
        _app(tmp_path, users=str(path))


def test_a_missing_users_file_refuses_to_start_with_a_message(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        _app(tmp_path, users=str(tmp_path / "nobody.json"))


def test_a_users_file_broken_while_serving_is_503_without_the_servers_path(tmp_path, caplog):
    path = tmp_path / "users.json"
    key = UserFile(path).add("alice")
    client = TestClient(_app(tmp_path, users=str(path)))
    assert client.get("/v1/me", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    path.write_text("{not json")
    with caplog.at_level(logging.ERROR):
        reply = client.get("/v1/me", headers={"Authorization": f"Bearer {key}"})
    assert reply.status_code == 503, reply.text
    error = reply.json()["error"]
    assert error["code"] == "users_file" and error["type"] == "server_error"
    assert str(tmp_path) not in reply.text and "users.json" not in reply.text
    assert str(path) in caplog.text  # the operator finds which file in the server's log


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_bearer_scheme_is_case_insensitive_with_a_shared_key(tmp_path, monkeypatch, scheme):
    monkeypatch.setenv(KEY_ENV, "s3cret")
    client = TestClient(_app(tmp_path, api_key_env=KEY_ENV))
    me = client.get("/v1/me", headers={"Authorization": f"{scheme} s3cret"})
    assert me.status_code == 200, me.text
    assert me.json()["auth"] == "key"
    for wrong in (f"{scheme} s3cre", f"{scheme}s3cret", "Basic s3cret", "s3cret", f"{scheme} s3cret x"):
        assert client.get("/v1/me", headers={"Authorization": wrong}).status_code == 401, wrong


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_the_bearer_scheme_is_case_insensitive_with_users(tmp_path, scheme):
    path = tmp_path / "users.json"
    key = UserFile(path).add("alice")
    client = TestClient(_app(tmp_path, users=str(path)))
    me = client.get("/v1/me", headers={"Authorization": f"{scheme} {key}"})
    assert me.status_code == 200, me.text
    assert me.json()["authenticated"] is True and me.json()["auth"] == "users"
    assert client.get("/v1/me", headers={"Authorization": f"Basic {key}"}).status_code == 401
