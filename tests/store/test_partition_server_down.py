"""A partition's PostgreSQL server stops for real (`pg_ctl stop -m immediate`) while matches are played in it and in
another partition on the main server: only its matches become unavailable (503 `partition_unavailable` naming it),
the others keep playing and their followers keep going; once it is started again its matches are served, its
followers catch up, and nothing acknowledged is lost or folded twice."""

from __future__ import annotations

import random
import threading
import time
from contextlib import contextmanager

import pytest

from domain.errors import PartitionUnavailable
from projections.clocks import ClockKeeper
from service.app import create_app
from service.keeper import build_scrubs, build_sequencer, scrub_once
from service.settings import Settings
from tests.stores import postgres_schema_url
from tests.support.api import auth, create_match, legal_options
from tests.support.entrants import new_desk, play_entrants
from tests.support.postgres_server import throwaway_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

MATCHES_PER_PARTITION = 2


class Acknowledged:
    """Every write the service acknowledged, by partition: (match id, version, receipt)."""

    def __init__(self) -> None:
        self.writes: dict[int, list[tuple[str, int, dict]]] = {0: [], 1: []}

    def add(self, partition: int, match_id: str, answer: dict) -> None:
        self.writes[partition].append((match_id, answer["version"], answer["receipt"]))


def _create(client, store, acknowledged: Acknowledged) -> dict[int, list[dict]]:
    """Matches created until each of the two partitions holds MATCHES_PER_PARTITION, each with every seat taken."""
    made: dict[int, list[dict]] = {0: [], 1: []}
    while min(len(m) for m in made.values()) < MATCHES_PER_PARTITION:
        match = create_match(client, "gambitz")
        number = store.partition_number(match["match_id"])
        # A creation's answer (the summary) carries no receipt; the one stored with it is read back.
        receipt = client.get(f"/matches/{match['match_id']}/receipts/{match['version']}").get_json()
        acknowledged.add(number, match["match_id"], {"version": match["version"], "receipt": receipt})
        if len(made[number]) >= MATCHES_PER_PARTITION:
            continue
        match["tokens"] = {}
        for seat in [s["seat"] for s in match["seats"]]:
            joined = client.post(f"/matches/{match['match_id']}/seats", json={"name": seat, "seat": seat})
            assert joined.status_code == 201
            acknowledged.add(number, match["match_id"], joined.get_json())
            match["tokens"][seat] = joined.get_json()["token"]
        made[number].append(match)
    return made


def _play(client, match: dict, rng: random.Random):
    """Post one legal command of the seat to act; the response."""
    summary = client.get(f"/matches/{match['match_id']}").get_json()
    seat = summary["to_act"][0]
    body = rng.choice(
        [o for o in legal_options(client, match["match_id"], match["tokens"][seat], rng) if o["type"] != "resign"]
    )
    return client.post(f"/matches/{match['match_id']}/commands", json=body, headers=auth(match["tokens"][seat]))


def _play_acknowledged(client, partition: int, match: dict, rng: random.Random, acknowledged: Acknowledged) -> None:
    answer = _play(client, match, rng)
    assert answer.status_code == 201, answer.get_json()
    acknowledged.add(partition, match["match_id"], answer.get_json())


def _notifications(partition) -> list:
    """Every notification of a partition's log, oldest first."""
    found: list = []
    while batch := partition.recorder.select_notifications((found[-1].id if found else 0) + 1, 500):
        found += batch
    return found


def _index_versions(gambit, store, partition: int) -> dict[str, int]:
    rows = gambit.index.store.query("SELECT match_id, version FROM gambit_match_index")
    return {match_id: int(version) for match_id, version in rows if store.partition_number(match_id) == partition}


@pytest.fixture
def two_servers(tmp_path):
    """An app with partition 0 on the main server (the shared store too) and partition 1 on a throwaway server."""
    with throwaway_postgres() as server:
        shared, drop_shared = postgres_schema_url()
        other, drop_other = postgres_schema_url(server.url)
        # The library tries a call 10 times, each waiting up to the connect timeout for a connection: 1 s keeps a
        # call to the stopped server near 11 s (deploy/runbook.md, "A partition down").
        other += "&connect_timeout=1"
        app = create_app(Settings(database_url=shared, data_dir=str(tmp_path), partition_urls=(shared, other)))
        app.testing = True
        try:
            yield app, server
        finally:
            app.extensions["gambit"].close()
            drop_shared()
            if not server.running():
                server.start()
            drop_other()


def test_a_partition_whose_server_stops_makes_only_its_matches_unavailable_and_loses_nothing(two_servers):
    app, server = two_servers
    client = app.test_client()
    gambit = app.extensions["gambit"]
    store = gambit.matches.store
    keeper = ClockKeeper(gambit.matches.clocks, gambit.index.store)
    rng = random.Random(34)
    acknowledged = Acknowledged()
    made = _create(client, store, acknowledged)
    for number, matches in made.items():
        for match in matches:
            _play_acknowledged(client, number, match, rng, acknowledged)

    # --- the throwaway server stops at once, mid-play.
    assert client.get("/matches?limit=200").status_code == 200  # the index has taken in every match so far
    follower = gambit.streams.reserve(made[0][0]["match_id"], "10.0.0.1")
    assert follower.wait(30)  # the watcher's first look at each partition rings every follower once
    while follower.wait(0.5):
        pass
    server.stop("immediate")
    for down in made[1][:1]:
        answer = client.get(f"/matches/{down['match_id']}")
        assert answer.status_code == 503 and answer.content_type == "application/problem+json"
        problem = answer.get_json()
        assert problem["code"] == "partition_unavailable" and problem["partition"] == 1
        assert "partition 1" in problem["detail"]
    refused = client.post(
        f"/matches/{made[1][0]['match_id']}/commands",
        json={"type": "pass"},
        headers=auth(next(iter(made[1][0]["tokens"].values()))),
    )
    assert refused.status_code == 503 and refused.get_json()["code"] == "partition_unavailable"
    for _ in range(3):
        for match in made[0]:
            _play_acknowledged(client, 0, match, rng, acknowledged)
    assert follower.wait(30), "a live follower of a match in the other partition is still woken"
    gambit.streams.release(follower)
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["status"] == "degraded"
    assert ready.get_json()["unavailable_partitions"] == [1]
    listed = client.get("/matches?limit=200").get_json()
    assert {m["match_id"] for m in made[1]} <= set(listed["unavailable"])
    assert {m["match_id"] for m in made[0]} <= {m["match_id"] for m in listed["matches"]}
    # The live partition's followers keep going: the index, the clock keeper and its log reach its head.
    keeper.catch_up()
    build_sequencer(gambit, 0).integrate()
    head = store.partitions[0].recorder.max_notification_id()
    assert gambit.index.position(0) == head and keeper.position(0) == head
    assert gambit.partition_logs()[0].state()[1] == head

    # --- the server comes back: its matches are served again, and its followers catch up.
    server.start()
    deadline = time.monotonic() + 30
    while client.get(f"/matches/{made[1][0]['match_id']}").status_code != 200:
        assert time.monotonic() < deadline, "the partition's matches are served again once its server is back"
        time.sleep(0.2)
    for match in made[1]:
        _play_acknowledged(client, 1, match, rng, acknowledged)
    assert client.get("/readyz").get_json()["status"] == "ready"
    assert "unavailable" not in client.get("/matches?limit=200").get_json()
    keeper.catch_up()
    for number in (0, 1):
        build_sequencer(gambit, number).integrate()

    # --- nothing acknowledged was lost, nothing folded twice.
    for number in (0, 1):
        head = store.partitions[number].recorder.max_notification_id()
        assert gambit.index.position(number) == head and keeper.position(number) == head
        versions = _index_versions(gambit, store, number)
        records = _notifications(store.partitions[number])
        assert len({(n.originator_id, n.originator_version) for n in records}) == len(records)
        # Not `head`: a server that crashed skips the notification ids it had logged ahead (PostgreSQL's sequences).
        assert sum(versions.values()) == len(records), "each record of the partition is folded into the index once"
        for match_id, version in versions.items():
            assert version == len(store.records(match_id))
        size, position = gambit.partition_logs()[number].state()
        assert position == head and size == len(acknowledged.writes[number]), "one leaf per acknowledged write"
        for match_id, version, receipt in acknowledged.writes[number]:
            assert client.get(f"/matches/{match_id}/receipts/{version}").get_json() == receipt


@contextmanager
def placed_in(store, partition: int):
    """New matches go to this partition: ids are drawn until one names it, as one draw in two would by chance."""
    drawn = store.new_match_id

    def in_partition():
        while store.partition_number(found := drawn()) != partition:
            pass
        return found

    store.new_match_id = in_partition
    try:
        yield
    finally:
        del store.new_match_id


def _tournament_in_both_partitions(app) -> tuple:
    """The app's test client, its match store, and a tournament of two entrants with a match each has won in
    partition 0, one Bob won in partition 1, and a running match in partition 0 that pairs nobody."""
    client = app.test_client()
    store = app.extensions["gambit"].matches.store
    desk = new_desk(client, "Down Cup")
    ann, bob = desk.register("Ann"), desk.register("Bob")
    with placed_in(store, 0):
        won_up = play_entrants(desk, ann, bob)
        running = desk.match()["match_id"]
    with placed_in(store, 1):
        won_down = play_entrants(desk, bob, ann)
    return client, store, {"desk": desk, "ann": ann, "bob": bob, "up": [won_up, running], "down": [won_down]}


def test_a_partition_that_is_down_leaves_the_tournament_readable_and_names_its_matches(two_servers):
    app, server = two_servers
    client, store, cup = _tournament_in_both_partitions(app)
    desk, ann, (down,) = cup["desk"], cup["ann"], cup["down"]
    path = f"/tournaments/{desk.tournament_id}"
    whole = client.get(path).get_json()
    assert "unavailable" not in whole and [r["points"] for r in whole["standings"]] == [1.0, 1.0]

    server.stop("immediate")
    # The first call finds it down (the library's retries); then the process passes over it without asking.
    answer = client.get(path)
    assert answer.status_code == 200, "a tournament is served while one of its partitions is down"
    body = answer.get_json()
    assert body["unavailable"] == [down]
    assert [m["match_id"] for m in body["matches"]] == cup["up"]
    assert body["standings"] is None, "no standings rather than standings short of a result"
    assert body["next_after"] is None
    paged = client.get(f"{path}?limit=1&after=2").get_json()
    assert paged["matches"] == [] and paged["unavailable"] == [down]

    entrants = client.get(f"{path}/entrants").get_json()
    assert entrants["unavailable"] == [down]
    assert {s["match_id"] for e in entrants["entrants"] for s in e["seats"]} == {cup["up"][0]}
    one = client.get(f"{path}/entrants/{ann['entrant_id']}").get_json()
    assert one["unavailable"] == [down] and [s["match_id"] for s in one["seats"]] == [cup["up"][0]]
    entry = client.get(f"{path}/entry", headers=auth(ann["invite"])).get_json()
    assert entry["unavailable"] == [down] and [m["match_id"] for m in entry["matches"]] == [cup["up"][0]]

    # What a table or an archive cannot mark as short of a match is refused, naming the partition.
    trail = client.get(f"{path}/access-log", headers=desk.organizer).get_json()["entries"]
    for refused in (client.get(f"{path}/standings.csv"), client.get(f"{path}/export", headers=desk.organizer)):
        assert refused.status_code == 503 and refused.content_type == "application/problem+json"
        assert refused.get_json()["code"] == "partition_unavailable" and refused.get_json()["partition"] == 1
    assert client.get(f"{path}/access-log", headers=desk.organizer).get_json()["entries"] == trail, (
        "a refused export notes no read of the running match it did not send"
    )
    # A write that needs the partition is refused; one the shared store alone holds is taken.
    with placed_in(store, 1):
        refused = client.post("/matches", json={"ruleset": "gambit-board", "tournament_id": desk.tournament_id},
                              headers=desk.organizer)
    assert refused.status_code == 503 and refused.get_json()["partition"] == 1
    assert [m["match_id"] for m in client.get(path).get_json()["matches"]] == cup["up"]
    cy = desk.register("Cy")
    ready = client.get("/readyz").get_json()
    assert ready["status"] == "degraded" and ready["unavailable_partitions"] == [1]
    assert 'gambit_partition_up{partition="1"} 0.0' in client.get("/metrics").get_data(as_text=True)

    server.start()
    deadline = time.monotonic() + 30
    while "unavailable" in (back := client.get(path).get_json()):
        assert time.monotonic() < deadline, "the tournament is whole again once the partition is back"
        time.sleep(0.2)
    assert {r["entrant_id"]: r["points"] for r in back["standings"]} == {
        ann["entrant_id"]: 1.0, cup["bob"]["entrant_id"]: 1.0, cy["entrant_id"]: 0.0
    }
    assert client.get(f"{path}/standings.csv").status_code == 200
    assert client.get(f"{path}/export", headers=desk.organizer).status_code == 200
    assert client.get("/readyz").get_json()["status"] == "ready"


def test_the_unavailable_list_of_a_tournament_names_only_its_own_matches(two_servers):
    app, server = two_servers
    client, store, cup = _tournament_in_both_partitions(app)
    desk, ann, (down,) = cup["desk"], cup["ann"], cup["down"]
    other = new_desk(client, "Other Cup")
    with placed_in(store, 1):
        others = other.match()["match_id"]
        loose = create_match(client, "gambit-board")["match_id"]
    path = f"/tournaments/{desk.tournament_id}"
    assert client.get(path).status_code == 200  # the index has taken in every match so far
    server.stop("immediate")
    answers = [
        client.get(path),
        client.get(f"{path}/entrants"),
        client.get(f"{path}/entrants/{ann['entrant_id']}"),
        client.get(f"{path}/entry", headers=auth(ann["invite"])),
    ]
    for answer in answers:
        assert answer.status_code == 200
        assert answer.get_json()["unavailable"] == [down], "another tournament's match and a loose one stay unnamed"
        text = answer.get_data(as_text=True)
        # Nothing of the cause reaches a public list: not the server's address, nor the library's error.
        assert others not in text and loose not in text and "127.0.0.1" not in text
        assert "OperationalError" not in text and "partition 1" not in text
    assert client.get(f"/tournaments/{other.tournament_id}").get_json()["unavailable"] == [others]


def test_the_scrub_of_a_partition_that_is_down_raises_no_alert_and_goes_on_from_its_place_when_back(two_servers):
    app, server = two_servers
    client = app.test_client()
    gambit = app.extensions["gambit"]
    store = gambit.matches.store
    with placed_in(store, 1):
        made = [create_match(client, "gambitz")["match_id"] for _ in range(3)]
    checked: list[tuple[str, str | None]] = []
    passed = threading.Event()

    def on_checked(match_id: str, problem: str | None) -> None:
        checked.append((match_id, problem))
        if len(checked) == 1:
            server.stop("immediate")  # mid-pass: the next match's records cannot be read

    scrub = build_scrubs(gambit)[1]
    scrub.on_checked, scrub.on_pass = on_checked, lambda _: passed.set()
    with pytest.raises(PartitionUnavailable):
        scrub.keep_scrubbing(passed, 0.0, 3600.0)
    # Taken as down now: the next attempt is refused by the process's partition health, without asking the server.
    with pytest.raises(PartitionUnavailable, match="did not answer"):
        scrub.keep_scrubbing(passed, 0.0, 3600.0)
    assert scrub_once(gambit).unavailable.keys() == {1}
    assert gambit.alerts.standing() == [], "a partition that does not answer is no tampering"
    assert client.get("/readyz").get_json()["status"] == "degraded"
    assert checked == [(made[0], None)]

    server.start()
    # Back once it answers through the process's own pool, which reconnects on its own backoff (1 s, doubling while
    # the server was down: as long again as the outage, at worst).
    deadline = time.monotonic() + 120
    while client.get("/readyz").get_json()["status"] != "ready":
        assert time.monotonic() < deadline, client.get("/readyz").get_json()
        time.sleep(0.5)
    scrub.keep_scrubbing(passed, 0.0, 3600.0)  # goes on from its place, and returns once the pass is done
    assert checked == [(match_id, None) for match_id in made], "every match checked once in the pass, none twice"
    assert gambit.alerts.standing() == []
