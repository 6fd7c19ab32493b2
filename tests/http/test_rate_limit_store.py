"""The rate-limit stores: the embedded one counts as the library's does, without a timer thread per request; a
shared one that fails or hangs slows no request by more than its short timeout and lets it through, counted and logged."""

from __future__ import annotations

import logging
import socket
import threading

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


class Ticks:
    """A monotonic clock that moves only when the test advances it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.now += seconds


def _timers_of(store: MemoryStorage) -> list[threading.Thread]:
    """The live timer threads that run `store`'s expiry (the library's timers call its bound method)."""
    return [
        thread
        for thread in threading.enumerate()
        if isinstance(thread, threading.Timer) and getattr(thread.function, "__self__", None) is store
    ]


def test_counting_starts_no_timer_thread_per_hit():
    store = SweptMemoryStorage("memory://")
    constructors_timer = store.timer
    # The library's store starts a new timer on a hit that finds its last one finished: finish it.
    constructors_timer.join()
    for n in range(200):
        store.incr(f"key-{n % 7}", 60)
        assert _timers_of(store) == []
    assert store.timer is constructors_timer, "a hit scheduled a timer of its own"
    assert store.get("key-0") == 29


# A count incremented with a negative expiry is one whose window has already closed, whatever the
# library's wall clock reads; the sweep is timed by the clock the test moves.
def test_an_expired_count_reads_as_zero_and_is_swept_at_most_once_per_sweep_interval():
    ticks = Ticks()
    store = SweptMemoryStorage("memory://", monotonic=ticks)
    store.timer.join()  # the library's one timer from the constructor has swept an empty store
    store.incr("closed", -1)
    store.incr("open", 60)
    assert "closed" in store.storage, "swept before SWEEP_SECONDS had passed"
    ticks.advance(ratelimit.SWEEP_SECONDS)
    store.incr("open", 60)  # the first hit once a sweep is due sweeps the expired keys
    assert "closed" not in store.storage
    store.incr("closed-again", -1)
    ticks.advance(ratelimit.SWEEP_SECONDS / 2)
    store.incr("open", 60)
    assert "closed-again" in store.storage, "swept twice within SWEEP_SECONDS"
    assert store.get("closed-again") == 0, "an expired count is read as zero, swept or not"
    assert store.get("open") == 3


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


def _failing_limiter(counted: list[None], ticks: Ticks) -> Limiter:
    """A limiter of one request a second per address whose store refuses every connection."""
    limits_ = Limits(Limit(1, 1), Limit(0, 0), Limit(0, 0), "redis://127.0.0.1:1/0")
    return Limiter(limits_, on_failure=lambda: counted.append(None), monotonic=ticks)


def test_limit_store_failures_are_logged_at_most_once_a_minute_and_each_one_counted(caplog):
    counted: list[None] = []
    ticks = Ticks()
    limiter = _failing_limiter(counted, ticks)
    caplog.set_level(logging.WARNING, logger="gambit.ratelimit")

    def logged() -> int:
        return len([r for r in caplog.records if r.name == "gambit.ratelimit"])

    for _ in range(3):
        assert limiter.wait(limiter.config.per_address, "address", "a") == 0.0
        ticks.advance(ratelimit.FAILURE_PAUSE_SECONDS)  # past the pause: the next request tries the store
    assert len(counted) == 3
    assert logged() == 1
    ticks.advance(ratelimit.FAILURE_LOG_SECONDS)
    assert limiter.wait(limiter.config.per_address, "address", "a") == 0.0
    assert logged() == 2, "a failure a minute after the last line is logged again"
    [_, again] = [r for r in caplog.records if r.name == "gambit.ratelimit"]
    assert "(3 failure(s) since the last line)" in again.getMessage()


def test_after_a_limit_store_failure_requests_skip_the_store_for_a_pause():
    counted: list[None] = []
    ticks = Ticks()
    limiter = _failing_limiter(counted, ticks)
    assert limiter.wait(limiter.config.per_address, "address", "a") == 0.0
    ticks.advance(ratelimit.FAILURE_PAUSE_SECONDS / 2)
    assert [limiter.wait(limiter.config.per_address, "address", "a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert len(counted) == 1, "the next requests within the pause did not call the store"
    ticks.advance(ratelimit.FAILURE_PAUSE_SECONDS / 2)
    assert limiter.wait(limiter.config.per_address, "address", "a") == 0.0
    assert len(counted) == 2, "the first request after the pause tries the store again"


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
