"""Live followers under `gambit serve`: idle SSE streams hold no request thread, and every one is woken.

Under the old thread-per-stream design 16 idle streams from one client began to starve a
two-worker server, and 96 took it down. Here a hundred idle followers are open while health
checks, views and commands are answered, and each follower gets the new record as it lands
(one poll of the notification log per process, or on PostgreSQL LISTEN/NOTIFY).
"""

from __future__ import annotations

import socket
import time
from urllib.parse import urlparse

import pytest

from tests.e2e.conftest import call, start_server
from tests.stores import backend_param, chosen_backends, database_url_for

FOLLOWERS = 100


def _open_stream(base: str, path: str) -> socket.socket:
    url = urlparse(base)
    sock = socket.create_connection((url.hostname, url.port), timeout=20)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {url.hostname}\r\nAccept: text/event-stream\r\n\r\n".encode())
    return sock


def _read_until(sock: socket.socket, needle: bytes, seconds: float = 20) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while needle not in seen:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            break
        seen += chunk
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("backend, watch", [backend_param(b, b, w) for b, w in (("sqlite", "poll"), ("postgres", "poll"),
                                                                                  ("postgres", "listen"))
                                            if b in chosen_backends()])
def test_a_hundred_idle_followers_leave_the_service_answering_and_all_hear_the_next_record(backend, watch, tmp_path):
    url, drop = database_url_for(backend, tmp_path)
    base, process = start_server(tmp_path, None if backend == "sqlite" else url, workers=2,
                                 extra_env={"GAMBIT_MAX_STREAMS_PER_CLIENT": "0", "GAMBIT_STREAM_WATCH": watch})
    streams: list[socket.socket] = []
    try:
        status, match = call(base, "POST", "/matches", {"ruleset": "gambitz"})
        assert status == 201
        mid = match["match_id"]
        tokens = {}
        for seat in match["seats"]:
            status, joined = call(base, "POST", f"/matches/{mid}/seats", {"name": seat["seat"], "seat": seat["seat"]})
            assert status == 201, joined
            tokens[seat["seat"]] = joined["token"]
        status, summary = call(base, "GET", f"/matches/{mid}")
        for _ in range(FOLLOWERS):
            sock = _open_stream(base, f"/matches/{mid}/events?after={summary['version']}")
            streams.append(sock)
        for sock in streams:
            assert b"retry:" in _read_until(sock, b"retry:"), "every follower's stream is open"

        assert call(base, "GET", "/healthz", timeout=10)[0] == 200
        assert call(base, "GET", f"/matches/{mid}/view", timeout=10)[0] == 200
        seat = summary["to_act"][0]
        _, legal = call(base, "GET", f"/matches/{mid}/legal-commands", token=tokens[seat], timeout=10)
        status, written = call(base, "POST", f"/matches/{mid}/commands", legal["commands"][0], token=tokens[seat],
                               timeout=10)
        assert status == 201, written
        heard = [b"event: record" in _read_until(sock, b"event: record") for sock in streams]
        assert all(heard), f"{heard.count(False)} followers never heard the new record"
    finally:
        for sock in streams:
            sock.close()
        process.terminate()
        try:
            process.wait(timeout=60)
        finally:
            drop()
