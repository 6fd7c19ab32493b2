"""The rate-limit stores: the embedded one counts as the library's does, without a timer thread per request; a
shared one that fails or hangs slows no request by more than its short timeout and lets it through, counted and logged."""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest
from limits.storage import MemoryStorage
from prometheus_client.parser import text_string_to_metric_families

from service import ratelimit
from service.app import create_app
from service.ratelimit import Limit, Limiter, Limits, SweptMemoryStorage, limit_storage
from service.settings import Settings


def test_the_memory_address_gets_the_swept_store_and_others_the_librarys():
    assert type(limit_storage("memory://")) is SweptMemoryStorage
    assert not isinstance(limit_storage("redis://127.0.0.1:6379"), SweptMemoryStorage)


def test_the_library_still_has_the_private_hooks_the_swept_store_replaces():
    # If an upgrade renames them, the override would silently stop applying (or the sweep fail).
    assert callable(getattr(MemoryStorage, "_MemoryStorage__schedule_expiry", None))
    assert callable(getattr(MemoryStorage, "_MemoryStorage__expire_events", None))


def test_counting_starts_no_timer_thread_per_hit():
    store = SweptMemoryStorage("memory://")
    time.sleep(0.05)  # the constructor's one timer (the library's) has run out
    before = threading.active_count()
    for n in range(200):
        store.incr(f"key-{n % 7}", 60)
    assert threading.active_count() == before
    assert store.get("key-0") == 29


def test_an_expired_count_reads_as_zero_and_is_swept(monkeypatch):
    monkeypatch.setattr(ratelimit, "SWEEP_SECONDS", 0.0)
    store = SweptMemoryStorage("memory://")
    store.incr("short", 0.01)
    store.incr("long", 60)
    time.sleep(0.02)
    assert store.get("short") == 0
    store.incr("short-again", 0.01)  # a hit after SWEEP_SECONDS sweeps the expired keys
    time.sleep(0.02)
    store.incr("long", 60)
    assert "short-again" not in store.storage
    assert store.get("long") == 2


@pytest.fixture
def silent_store():
    """A TCP server on 127.0.0.1 that accepts every connection and never answers: a hung Redis."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []

    def accept_and_hold() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # the fixture closed the server
                return
            held.append(connection)

    threading.Thread(target=accept_and_hold, daemon=True).start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0", held
    server.close()
    for connection in held:
        connection.close()


def _failures(client) -> float:
    text = client.get("/metrics").get_data(as_text=True)
    [value] = [
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "gambit_rate_limit_store_failures_total"
    ]
    return value


# The client's default waited for an answer for minutes; 10 s is a bound only that would fail.
@pytest.mark.timeout(10)
def test_a_limit_store_that_accepts_but_never_answers_lets_requests_through_counted_and_logged(
    silent_store, tmp_path, caplog
):
    uri, held = silent_store
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 's.sqlite3'}",
        data_dir=str(tmp_path),
        rate_limit_per_address=Limit(1, 1),
        match_creation_limit=Limit(1, 1),
        rate_limit_storage=uri,
    )
    app = create_app(settings)
    client = app.test_client()
    caplog.set_level(logging.WARNING, logger="gambit.ratelimit")
    try:
        assert client.get("/rulesets").status_code == 200
        assert client.post("/matches", json={"ruleset": "gambitz"}).status_code == 201
        assert held, "the request did reach the silent store"
        assert _failures(client) >= 1
        [line] = [r for r in caplog.records if r.name == "gambit.ratelimit"]
        assert "not limiting" in line.getMessage()
    finally:
        app.extensions["gambit"].close()


def test_limit_store_failures_are_logged_at_most_once_a_minute_and_each_one_counted(monkeypatch, caplog):
    monkeypatch.setattr(ratelimit, "FAILURE_PAUSE_SECONDS", 0.0)
    counted: list[None] = []
    limiter = Limiter(
        Limits(Limit(1, 1), Limit(0, 0), Limit(0, 0), "redis://127.0.0.1:1/0"), on_failure=lambda: counted.append(None)
    )
    caplog.set_level(logging.WARNING, logger="gambit.ratelimit")
    assert [limiter.wait(limiter.config.per_address, "address", "a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert len(counted) == 3
    assert len([r for r in caplog.records if r.name == "gambit.ratelimit"]) == 1


def test_after_a_limit_store_failure_requests_skip_the_store_for_a_pause(monkeypatch):
    counted: list[None] = []
    limiter = Limiter(
        Limits(Limit(1, 1), Limit(0, 0), Limit(0, 0), "redis://127.0.0.1:1/0"), on_failure=lambda: counted.append(None)
    )
    assert [limiter.wait(limiter.config.per_address, "address", "a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert len(counted) == 1, "the next requests within the pause did not call the store"


def test_a_redis_store_gets_the_configured_timeouts_and_the_uri_query_wins():
    pool = limit_storage("redis://127.0.0.1:6379/0", timeout=0.4).storage.connection_pool
    assert pool.connection_kwargs["socket_timeout"] == 0.4
    assert pool.connection_kwargs["socket_connect_timeout"] == 0.4
    chosen = limit_storage("redis://127.0.0.1:6379/0?socket_timeout=2", timeout=0.4).storage.connection_pool
    assert chosen.connection_kwargs["socket_timeout"] == 2


def test_the_limit_store_timeout_is_a_setting_with_a_short_default():
    assert Settings.from_env({}).limits.storage_timeout == ratelimit.DEFAULT_STORAGE_TIMEOUT <= 0.5
    assert Settings.from_env({"GAMBIT_RATE_LIMIT_STORAGE_TIMEOUT": "0.4"}).limits.storage_timeout == 0.4
    with pytest.raises(ValueError, match="GAMBIT_RATE_LIMIT_STORAGE_TIMEOUT"):
        Settings.from_env({"GAMBIT_RATE_LIMIT_STORAGE_TIMEOUT": "0"})
