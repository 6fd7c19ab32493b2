"""`gambit serve` runs the API under gunicorn on a fresh SQLite store, with several workers."""

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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def server(tmp_path):
    """A real `gambit serve --workers 2` process on a free port; yields its base URL."""
    port = _free_port()
    env = {**os.environ, "GAMBIT_DATA_DIR": str(tmp_path / "data"), "GAMBIT_ACCESS_LOG": "-"}
    env.pop("GAMBIT_DATABASE_URL", None)
    process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "2"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if _call(base, "GET", "/healthz")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("gambit serve did not come up: " + (process.stdout.read() if process.stdout else ""))
    yield base, process, tmp_path / "data"
    process.terminate()
    process.wait(timeout=30)


def test_gambit_serve_plays_a_match_and_keeps_it_under_the_data_directory(server):
    base, process, data_dir = server
    status, match = _call(base, "POST", "/matches", {"ruleset": "gambitz", "config": {"players": 2}})
    assert status == 201
    tokens = {}
    for name in ("ann", "bob"):
        status, joined = _call(base, "POST", f"/matches/{match['match_id']}/seats", {"name": name})
        assert status == 201
        tokens[joined["seat"]] = joined["token"]
    for _ in range(10):
        summary = _call(base, "GET", f"/matches/{match['match_id']}")[1]
        seat = summary["to_act"][0]
        legal = _call(base, "GET", f"/matches/{match['match_id']}/legal-commands", token=tokens[seat])[1]
        status, _ = _call(base, "POST", f"/matches/{match['match_id']}/commands", legal["commands"][0], tokens[seat])
        assert status == 201
    assert _call(base, "GET", f"/matches/{match['match_id']}")[1]["version"] > 10
    assert (data_dir / "gambit.sqlite3").exists()
    process.terminate()
    output = process.communicate(timeout=30)[0]
    assert f"serving {base}/" in output
    for token in tokens.values():
        assert token not in output
