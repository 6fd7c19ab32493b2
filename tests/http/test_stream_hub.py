"""The stream watcher rings exactly the followers of the match that got a new record, on both stores."""

from __future__ import annotations

import random
import threading
import time

from tests.support.api import auth, create_match, join_all, legal_options

# A bound on waiting for the watcher's ring that only ends a hung run (it polls every 0.25 s).
RING_SECONDS = 30


def test_a_new_record_rings_its_matchs_followers_and_no_others(client, app):
    hub = app.extensions["gambit"].streams
    played, quiet = create_match(client, "gambitz"), create_match(client, "gambitz")
    tokens = join_all(client, played)
    join_all(client, quiet)
    mine = hub.reserve(played["match_id"], "10.0.0.1")
    other = hub.reserve(quiet["match_id"], "10.0.0.1")
    try:
        # The watcher's first look rings every follower it holds then, in one go: wait for it, so it is not taken
        # for a ring of the record below. It may have looked before the second follower came (the watcher starts
        # with the first), so the second's ring from it is taken if there was one, never required.
        assert mine.wait(RING_SECONDS), "the watcher's first look rings its follower"
        other.wait(0)
        seat = client.get(f"/matches/{played['match_id']}").get_json()["to_act"][0]
        body = legal_options(client, played["match_id"], tokens[seat], random.Random(2))[0]
        assert client.post(f"/matches/{played['match_id']}/commands", json=body,
                           headers=auth(tokens[seat])).status_code == 201
        assert mine.wait(RING_SECONDS), "the follower of the played match is woken"
        # A poll rings the followers of every match it saw in one go: the other one is not among them.
        assert not other.wait(0), "a follower of another match sleeps on"
    finally:
        hub.release(mine)
        hub.release(other)
    assert hub.open_streams == 0


def test_closing_the_hub_stops_its_watcher_before_the_store_closes(client, app):
    # A watcher still inside a query when the store closed its SQLite connection crashed the
    # process with a segmentation fault (seen in a parallel test run).
    hub = app.extensions["gambit"].streams
    follower = hub.reserve(create_match(client, "gambitz")["match_id"], "10.0.0.1")
    assert follower.wait(RING_SECONDS), "the watcher has started and looked once"
    watcher = hub._watcher
    assert watcher is not None and watcher.is_alive()
    hub.release(follower)
    hub.close()
    assert not watcher.is_alive(), "close() returned while the watcher could still use the store"


def test_closing_the_hub_waits_for_its_woken_streams_to_end(client, app):
    # A woken stream reads the store once more before it ends; the store must not close under it (the same crash).
    hub = app.extensions["gambit"].streams
    follower = hub.reserve(create_match(client, "gambitz")["match_id"], "10.0.0.1")
    ended = []

    def stream() -> None:
        while not hub.stopped:
            follower.wait(RING_SECONDS)
        time.sleep(0.3)  # the stream's last read of the store
        ended.append(time.monotonic())
        hub.release(follower)

    thread = threading.Thread(target=stream)
    thread.start()
    hub.close()
    closed = time.monotonic()
    thread.join(RING_SECONDS)
    assert ended and ended[0] <= closed, "close() returned while a woken stream could still use the store"
    assert hub.open_streams == 0
