"""Races for one deadline between workers and the clock process: two apps on one store, on both stores.

Whatever the order, exactly one `ClockExpired` is written for a deadline, and a late command is
refused with `clock_expired` and changes nothing.
"""

from __future__ import annotations

import threading

import pytest

from domain.clock import ClockExpiredError
from domain.ruleset import Command
from projections.clocks import ClockKeeper
from service.app import create_app
from tests.support.api import auth
from tests.support.clocks import fake_time_source, first_legal, fischer, timed_match

GAMBITZ = {"players": 2}


@pytest.fixture
def now():
    """The fake time every record and deadline check of the test reads."""
    with fake_time_source() as fake:
        yield fake


@pytest.fixture
def two_apps(settings):
    """Two service processes' apps on one store (as two workers, or a worker and the clock process)."""
    apps = [create_app(settings), create_app(settings)]
    yield apps
    for app in apps:
        app.extensions["gambit"].close()


def _kinds(app, match_id: str) -> list[str]:
    return [record.kind for record in app.extensions["gambit"].matches.records(match_id)]


def _command(app, match_id: str, body: dict) -> Command:
    from service.bodies import parse_command

    return parse_command(app.extensions["gambit"].matches.store.load(match_id).ruleset, body)


def test_a_late_command_loaded_before_the_clock_process_wrote_the_expiry_is_refused(two_apps, now):
    worker, clock_process = two_apps
    client = worker.test_client()
    match_id, tokens = timed_match(client, "gambitz", fischer(60), config=GAMBITZ)
    command = _command(worker, match_id, first_legal(client, match_id, tokens["p1"]))
    now.advance(61)
    matches = worker.extensions["gambit"].matches
    loaded = matches.store.load(match_id)  # the worker read the match before the expiry
    gambit = clock_process.extensions["gambit"]
    assert ClockKeeper(gambit.matches.clocks, gambit.index.store).tick() == [match_id]
    with pytest.raises(ClockExpiredError):
        matches.act(match_id, "p1", command, loaded=loaded)
    assert _kinds(worker, match_id).count("ClockExpired") == 1
    assert _kinds(worker, match_id)[-3:] == ["ClockExpired", "SeatTimedOut", "MatchFinished"]


def _race(client, keeper: ClockKeeper, match_id: str, token: str, body: dict) -> list:
    """Post the command and tick the clock process at the same moment; returns the command's response."""
    answers = []
    start = threading.Barrier(2)

    def post() -> None:
        start.wait()
        answers.append(client.post(f"/matches/{match_id}/commands", json=body, headers=auth(token)))

    def tick() -> None:
        start.wait()
        keeper.tick()

    threads = [threading.Thread(target=post), threading.Thread(target=tick)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_a_late_command_and_the_clock_process_racing_write_one_expiry(two_apps, now):
    worker, clock_process = two_apps
    client = worker.test_client()
    gambit = clock_process.extensions["gambit"]
    keeper = ClockKeeper(gambit.matches.clocks, gambit.index.store)
    for _ in range(3):
        match_id, tokens = timed_match(client, "gambitz", fischer(60), config=GAMBITZ)
        body = first_legal(client, match_id, tokens["p1"])
        now.advance(61)
        answers = _race(client, keeper, match_id, tokens["p1"], body)
        assert answers[0].status_code == 409 and answers[0].get_json()["code"] == "clock_expired"
        assert _kinds(worker, match_id).count("ClockExpired") == 1
        assert _kinds(worker, match_id)[-3:] == ["ClockExpired", "SeatTimedOut", "MatchFinished"]


def test_readers_in_two_processes_record_one_expiry_for_a_deadline(two_apps, now):
    first, second = (app.test_client() for app in two_apps)
    match_id, _ = timed_match(first, "gambitz", fischer(60), config=GAMBITZ)
    now.advance(61)
    start = threading.Barrier(4)

    def read(client) -> None:
        start.wait()
        assert client.get(f"/matches/{match_id}/view").status_code == 200

    threads = [threading.Thread(target=read, args=(client,)) for client in (first, second, first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _kinds(two_apps[0], match_id).count("ClockExpired") == 1
