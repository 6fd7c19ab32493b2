"""A real `gambit serve` process (gunicorn) on a free port, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.stores import BACKENDS, database_url_for


def free_port() -> int:
    """A TCP port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None,
         headers: dict | None = None, timeout: float = 120) -> tuple[int, dict]:
    """One JSON request; returns status and body (problem bodies too)."""
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def start_server(tmp_path, database_url: str | None, workers: int,
                 extra_env: dict | None = None) -> tuple[str, subprocess.Popen]:
    """Start `gambit serve` and wait for /healthz (`extra_env` adds or overrides settings)."""
    port = free_port()
    # Load tests come from one address and share seat tokens: the rate limits are lifted here
    # (tests/http/test_operations.py checks them).
    env = {**os.environ, "GAMBIT_DATA_DIR": str(tmp_path / "data"), "GAMBIT_ACCESS_LOG": "-",
           "GAMBIT_RATE_LIMIT_PER_ADDRESS": "0", "GAMBIT_RATE_LIMIT_PER_TOKEN": "0",
           "GAMBIT_MATCH_CREATION_LIMIT": "0"}
    env.update(extra_env or {})
    env.pop("GAMBIT_DATABASE_URL", None)
    if database_url is not None:
        env["GAMBIT_DATABASE_URL"] = database_url
    # Output goes to a file: an undrained pipe fills with the access log and stalls every worker.
    # The server holds its own copy of the descriptor, so ours can close once it has started.
    with open(tmp_path / "serve.log", "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                                    "--workers", str(workers)],
                                   env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    process.log_path = tmp_path / "serve.log"
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if call(base, "GET", "/healthz", timeout=2)[0] == 200:
                return base, process
        except OSError:
            time.sleep(0.2)
    process.kill()
    pytest.fail("gambit serve did not come up: " + (tmp_path / "serve.log").read_text())


@pytest.fixture(params=BACKENDS)
def server(request, tmp_path):
    """`gambit serve --workers 4` on a fresh store of each kind: (base URL, process, data dir)."""
    url, drop = database_url_for(request.param, tmp_path)
    base, process = start_server(tmp_path, None if request.param == "sqlite" else url, workers=4)
    yield base, process, tmp_path / "data"
    process.terminate()
    try:
        process.wait(timeout=30)
    finally:
        drop()
