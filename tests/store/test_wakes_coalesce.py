"""The followers' wake after an append is sent by a thread of its own, one at a time: every append is followed by a
wake that starts after it committed, and appends that commit while a wake is being sent share the next one."""

from __future__ import annotations

import threading
import time

from domain.pg_append import Waker


class _SlowSender:
    """A wake that takes a while to send, recording when each one started."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started: list[float] = []
        self.sending = threading.Event()
        self.release = threading.Event()
        self.release.set()

    def __call__(self) -> None:
        self.started.append(time.monotonic())
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
