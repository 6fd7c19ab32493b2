"""The followers' wake after an append is sent by a thread of its own, one at a time and at most one per pace: every
append is followed by a wake that starts after it committed and names its log, and appends that commit while a wake
is being sent (or paced) share the next one. One waker serves every events table of a server."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from domain.pg_append import Waker, _wake_tables


class _SlowSender:
    """A wake that takes a while to send, recording when each one started."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started: list[float] = []
        self.named: list[list] = []
        self.sending = threading.Event()
        self.release = threading.Event()
        self.release.set()

    def __call__(self, items: list) -> None:
        self.started.append(time.monotonic())
        self.named.append(items)
        self.sending.set()
        self.release.wait(10)
        time.sleep(self.seconds)


def _settled(sender: _SlowSender, count: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while len(sender.started) < count and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.05)  # and no further wake follows


def test_every_ask_is_followed_by_a_wake_that_starts_after_it():
    sender = _SlowSender(0.0)
    waker = Waker(sender)
    for _ in range(5):
        asked = time.monotonic()
        waker.ask()
        _settled(sender, 1)
        assert sender.started and sender.started[-1] >= asked
        sender.started.clear()


def test_asks_made_while_a_wake_is_being_sent_share_one_next_wake():
    sender = _SlowSender(0.0)
    sender.release.clear()
    waker = Waker(sender)
    waker.ask()
    assert sender.sending.wait(5)
    asked = time.monotonic()
    for _ in range(50):
        waker.ask()
    sender.release.set()
    _settled(sender, 2)
    assert len(sender.started) == 2, "fifty asks during one wake are answered by exactly one more"
    assert sender.started[1] >= asked


def test_an_idle_waker_ends_its_thread_and_the_next_ask_starts_another(monkeypatch):
    monkeypatch.setattr(Waker, "IDLE_SECONDS", 0.5)
    sender = _SlowSender(0.0)
    waker = Waker(sender)
    others = set(threading.enumerate())
    waker.ask()
    _settled(sender, 1)
    (mine,) = [thread for thread in threading.enumerate() if thread.name == "gambit-wake" and thread not in others]
    mine.join(5)
    assert not mine.is_alive()
    waker.ask()
    _settled(sender, 2)
    assert len(sender.started) == 2


def test_concurrent_asks_never_go_unanswered():
    sender = _SlowSender(0.001)
    waker = Waker(sender)
    last_ask: list[float] = []

    def ask_many() -> None:
        for _ in range(200):
            last_ask.append(time.monotonic())
            waker.ask()

    threads = [threading.Thread(target=ask_many) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    deadline = time.monotonic() + 10
    while (not sender.started or sender.started[-1] < max(last_ask)) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert sender.started[-1] >= max(last_ask), "the last ask got no wake after it"
    assert len(sender.started) < 1600, "every ask sent its own wake"


def test_a_waker_under_a_stream_of_asks_sends_at_most_one_wake_per_pace():
    sender = _SlowSender(0.0)
    waker = Waker(sender)
    began = last_ask = time.monotonic()
    while last_ask - began < 0.5:
        last_ask = time.monotonic()
        waker.ask()
        time.sleep(0.0002)
    _settled(sender, 2)
    gaps = [later - earlier for earlier, later in zip(sender.started, sender.started[1:])]
    assert gaps and min(gaps) >= Waker.PACE_SECONDS * 0.99, "two wakes closer than the pace"
    assert sender.started[-1] >= last_ask, "the last ask got no wake after it"


def test_one_wake_names_every_log_asked_for_since_the_last():
    sender = _SlowSender(0.0)
    sender.release.clear()
    waker = Waker(sender)
    waker.ask("first")
    assert sender.sending.wait(5)
    for log in ("second", "third", "second"):
        waker.ask(log)
    sender.release.set()
    _settled(sender, 2)
    assert sender.named == [["first"], ["second", "third"]]


@pytest.mark.postgres
def test_on_postgresql_the_tables_of_one_server_share_a_waker_and_one_wake_wakes_each_tables_followers(
    two_partitions_of_one_server,
):
    one, two = two_partitions_of_one_server
    first, second = one.app.store.recorder, two.app.store.recorder
    assert first._waker is second._waker
    with psycopg.connect(one.url.split("?")[0], autocommit=True) as listener:
        for recorder in (first, second):
            listener.execute(f'LISTEN "{recorder.wake_channel}"')
        first._waker.ask(first)
        first._waker.ask(second)
        heard = {note.channel for note in listener.notifies(timeout=10, stop_after=2)}
    assert heard == {first.wake_channel, second.wake_channel}


@pytest.mark.postgres
def test_on_postgresql_a_wake_that_fails_for_one_table_still_wakes_the_others(two_partitions_of_one_server):
    one, two = two_partitions_of_one_server
    gone, kept = one.app.store.recorder, two.app.store.recorder
    one.drop()  # its wake function with it
    with psycopg.connect(two.url.split("?")[0], autocommit=True) as listener:
        listener.execute(f'LISTEN "{kept.wake_channel}"')
        _wake_tables([gone, kept])
        heard = [note.channel for note in listener.notifies(timeout=10, stop_after=1)]
    assert heard == [kept.wake_channel]
