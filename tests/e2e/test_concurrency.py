"""Many clients at once against 4 gunicorn workers: nothing acknowledged is lost or duplicated,
every chain verifies, and the losers of a race get 409 (or 412 with If-Match) and succeed on retry."""

from __future__ import annotations

import itertools
import random
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.e2e.conftest import call
from tests.support.api import going_on
from tests.support.independent_verifier import verify_export

MATCHES = 200
CLIENTS = 32
COMMANDS_PER_MATCH = 6
RACERS = 8
# A 2-seat gambitz game lasts at least 54 plays, so the match outlives every round.
RACE_ROUNDS = 5

pytestmark = pytest.mark.slow


def _export(base: str, match_id: str) -> str:
    with urllib.request.urlopen(f"{base}/matches/{match_id}/export", timeout=60) as response:
        return response.read().decode()


def _start_match(base: str) -> tuple[str, dict]:
    status, match = call(base, "POST", "/matches", {"ruleset": "gambitz", "config": {"players": 2}})
    assert status == 201
    tokens = {}
    for name in ("ann", "bob"):
        status, joined = call(base, "POST", f"/matches/{match['match_id']}/seats", {"name": name})
        assert status == 201, joined
        tokens[joined["seat"]] = joined["token"]
    return match["match_id"], tokens


def _play(base: str, match_id: str, tokens: dict, rng: random.Random) -> list[tuple[int, int]]:
    """Play a few commands; returns (first, last) versions of every acknowledged command."""
    acknowledged = []
    for _ in range(COMMANDS_PER_MATCH):
        summary = call(base, "GET", f"/matches/{match_id}")[1]
        if summary["status"] != "active":
            break
        seat = summary["to_act"][0]
        legal = call(base, "GET", f"/matches/{match_id}/legal-commands", token=tokens[seat])[1]
        status, body = call(base, "POST", f"/matches/{match_id}/commands", rng.choice(going_on(legal["commands"])), tokens[seat])
        assert status == 201, body
        acknowledged.append((body["events"][0]["version"], body["version"]))
    return acknowledged


def test_thirty_two_clients_play_two_hundred_matches_at_once_and_lose_nothing(server):
    base, _, _ = server
    with ThreadPoolExecutor(CLIENTS) as pool:
        started = list(pool.map(lambda _: _start_match(base), range(MATCHES)))
        played = list(pool.map(lambda item: _play(base, item[0], item[1], random.Random(item[0])), started))
    for (match_id, _), acknowledged in zip(started, played):
        versions = [r["version"] for r in call(base, "GET", f"/matches/{match_id}/events?limit=500")[1]["events"]]
        assert versions == list(range(1, len(versions) + 1)), "no gap and no duplicate"
        for first, last in acknowledged:
            assert set(range(first, last + 1)) <= set(versions), "every acknowledged command is stored"
        verify_export(_export(base, match_id))
    listed = call(base, "GET", "/matches?status=active&limit=200")[1]["matches"]
    assert len(listed) == MATCHES


def test_eight_clients_racing_on_one_match_get_409_or_412_and_succeed_on_retry(server):
    base, _, _ = server
    match_id, tokens = _start_match(base)
    outcomes: dict[int, int] = {}
    acknowledged: list[tuple[int, int, str]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(RACERS)

    def racer(number: int) -> None:
        rng = random.Random(number)
        for round_number in range(RACE_ROUNDS):
            barrier.wait(timeout=60)
            key = f"racer-{number}-{round_number}"
            for _attempt in range(50):
                summary = call(base, "GET", f"/matches/{match_id}")[1]
                if summary["status"] != "active":
                    return
                seat = summary["to_act"][0]
                legal = call(base, "GET", f"/matches/{match_id}/legal-commands", token=tokens[seat])[1]
                if not legal["commands"]:
                    continue  # another racer moved between our two reads: read again
                headers = {"Idempotency-Key": key}
                if number % 2 == 0:
                    headers["If-Match"] = f'"{legal["version"]}"'
                status, body = call(base, "POST", f"/matches/{match_id}/commands", rng.choice(going_on(legal["commands"])),
                                    tokens[seat], headers=headers)
                with lock:
                    outcomes[status] = outcomes.get(status, 0) + 1
                if status == 201:
                    with lock:
                        acknowledged.append((body["events"][0]["version"], body["version"], key))
                    break
                # Losers re-read and retry; a command that is no longer legal after the winner's
                # move is refused (422) and is retried with a fresh choice as well.
                assert status in (409, 412, 422), body
            else:
                pytest.fail(f"racer {number} never succeeded in round {round_number}")

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    versions = [r["version"] for r in call(base, "GET", f"/matches/{match_id}/events?limit=500")[1]["events"]]
    spans = sorted((first, last) for first, last, _ in acknowledged)
    for (first, last), (next_first, _) in itertools.pairwise(spans):
        assert last < next_first, "two acknowledged commands never share a version"
    assert all(set(range(first, last + 1)) <= set(versions) for first, last in spans)
    assert versions == list(range(1, len(versions) + 1))
    assert outcomes.get(409, 0) + outcomes.get(412, 0) > 0, outcomes
    assert len(acknowledged) == len({key for _, _, key in acknowledged})
    verify_export(_export(base, match_id))
