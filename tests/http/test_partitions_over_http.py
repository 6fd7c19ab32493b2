"""Over HTTP with matches in several partitions: every request reaches its match's partition, lists merge them, and
a partition that does not answer makes only its own matches unavailable (503 naming it), never the others."""

from __future__ import annotations

import random

import pytest

from service.app import create_app
from service.settings import Settings
from tests.stores import BACKENDS, partitioned_urls_for
from tests.support.api import auth, create_match, join_all, legal_options, play_until_a_bluff_call

PARTITIONS = 2


def _partitioned_app(backend: str, tmp_path):
    shared, partitions, drop = partitioned_urls_for(backend, tmp_path, PARTITIONS)
    app = create_app(Settings(database_url=shared, data_dir=str(tmp_path), partition_urls=partitions))
    app.testing = True
    return app, drop


@pytest.fixture(params=BACKENDS)
def partitioned(request, tmp_path):
    """An app whose matches live in two partitions (the shared store the first)."""
    app, drop = _partitioned_app(request.param, tmp_path)
    yield app
    app.extensions["gambit"].close()
    drop()


@pytest.fixture
def partitioned_on_postgres(tmp_path):
    """The same on PostgreSQL schemas (a partition there can stop answering while the others go on)."""
    app, drop = _partitioned_app("postgres", tmp_path)
    yield app
    app.extensions["gambit"].close()
    drop()


def _one_match_in_each_partition(client, app, ruleset: str = "gambitz") -> list[dict]:
    """Matches created until each partition holds one: the first of each, by partition."""
    store = app.extensions["gambit"].matches.store
    found: dict[int, dict] = {}
    while len(found) < PARTITIONS:
        match = create_match(client, ruleset)
        found.setdefault(store.partition_number(match["match_id"]), match)
    return [found[number] for number in range(PARTITIONS)]


def _play_one(client, match: dict, tokens: dict) -> int:
    seat = client.get(f"/matches/{match['match_id']}").get_json()["to_act"][0]
    body = legal_options(client, match["match_id"], tokens[seat], random.Random(3))[0]
    return client.post(f"/matches/{match['match_id']}/commands", json=body, headers=auth(tokens[seat])).status_code


def test_matches_in_every_partition_are_played_and_listed(partitioned):
    app = partitioned
    client = app.test_client()
    matches = _one_match_in_each_partition(client, app)
    for match in matches:
        assert _play_one(client, match, join_all(client, match)) == 201
    listed = client.get("/matches?limit=100").get_json()
    assert {m["match_id"] for m in matches} <= {m["match_id"] for m in listed["matches"]}
    assert "unavailable" not in listed


@pytest.mark.postgres
def test_a_partition_that_is_down_makes_only_its_matches_unavailable(partitioned_on_postgres):
    app = partitioned_on_postgres
    client = app.test_client()
    up, down = _one_match_in_each_partition(client, app)
    up_tokens = join_all(client, up)
    join_all(client, down)
    assert client.get("/matches?limit=100").status_code == 200  # the index has taken in both matches
    # The partition's server stops answering: every connection its store would take fails.
    app.extensions["gambit"].matches.store.partitions[1].recorder.datastore.pool.close()
    answer = client.get(f"/matches/{down['match_id']}")
    assert answer.status_code == 503
    assert answer.content_type == "application/problem+json"
    problem = answer.get_json()
    assert problem["code"] == "partition_unavailable"
    assert "partition 1" in problem["detail"]
    assert client.get(f"/matches/{up['match_id']}").status_code == 200
    assert _play_one(client, up, up_tokens) == 201
    listed = client.get("/matches?limit=100").get_json()
    assert up["match_id"] in {m["match_id"] for m in listed["matches"]}
    store = app.extensions["gambit"].matches.store
    assert down["match_id"] in listed["unavailable"]
    assert {store.partition_number(match_id) for match_id in listed["unavailable"]} == {1}
    assert all(store.partition_number(m["match_id"]) == 0 for m in listed["matches"])


def test_readiness_reports_every_partition_with_its_own_lags(partitioned):
    app = partitioned
    client = app.test_client()
    matches = _one_match_in_each_partition(client, app)
    for match in matches:
        join_all(client, match)
    ready = client.get("/readyz").get_json()
    assert ready["status"] == "ready"
    assert [p["partition"] for p in ready["partitions"]] == list(range(PARTITIONS))
    index = app.extensions["gambit"].index
    for number, partition in enumerate(index.app.partitions):
        entry = ready["partitions"][number]
        assert entry["answers"] is True
        assert entry["notifications"] == partition.recorder.max_notification_id()
        assert entry["projection_lag"] == entry["notifications"] - index.position(number)
    assert ready["projection_lag"] == sum(p["projection_lag"] for p in ready["partitions"])
    metrics = client.get("/metrics").get_data(as_text=True)
    for entry in ready["partitions"]:
        assert f'gambit_partition_up{{partition="{entry["partition"]}"}} 1.0' in metrics
        assert f'gambit_partition_notifications{{partition="{entry["partition"]}"}} {float(entry["notifications"])}' in metrics


@pytest.mark.postgres
def test_a_partition_that_is_down_leaves_the_host_ready_but_degraded_and_names_it(partitioned_on_postgres):
    app = partitioned_on_postgres
    client = app.test_client()
    _one_match_in_each_partition(client, app)
    app.extensions["gambit"].matches.store.partitions[1].recorder.datastore.pool.close()
    answer = client.get("/readyz")
    assert answer.status_code == 200, "a load balancer keeps routing to a host whose other partitions work"
    ready = answer.get_json()
    assert ready["status"] == "degraded" and ready["unavailable_partitions"] == [1]
    up, down = ready["partitions"]
    assert up["answers"] is True and "projection_lag" in up
    assert down == {"partition": 1, "answers": False, "cause": down["cause"]} and down["cause"]
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'gambit_partition_up{partition="1"} 0.0' in metrics
    assert 'gambit_partition_up{partition="0"} 1.0' in metrics
    assert 'gambit_projection_lag{partition="1",projection="cross-match-index"} NaN' in metrics


@pytest.mark.postgres
def test_bluff_calls_of_a_running_match_in_a_partition_that_is_down_are_left_out_and_named(partitioned_on_postgres):
    app = partitioned_on_postgres
    client = app.test_client()
    up, down = _one_match_in_each_partition(client, app, "gambit-board")
    for match in (up, down):
        play_until_a_bluff_call(client, match["match_id"], join_all(client, match), random.Random(0))
    listed = client.get("/bluff-calls?limit=200").get_json()
    assert {up["match_id"], down["match_id"]} <= {c["match_id"] for c in listed["bluff_calls"]}
    assert "unavailable" not in listed
    app.extensions["gambit"].matches.store.partitions[1].recorder.datastore.pool.close()
    answer = client.get("/bluff-calls?limit=200")
    assert answer.status_code == 200, "a list across partitions is served while one of them is down"
    listed = answer.get_json()
    assert listed["unavailable"] == [down["match_id"]]
    assert {c["match_id"] for c in listed["bluff_calls"]} == {up["match_id"]}
    alone = client.get(f"/bluff-calls?match_id={down['match_id']}").get_json()
    assert alone["bluff_calls"] == [] and alone["unavailable"] == [down["match_id"]]


def test_the_stream_watcher_rings_followers_of_matches_in_every_partition(partitioned):
    app = partitioned
    client = app.test_client()
    hub = app.extensions["gambit"].streams
    matches = _one_match_in_each_partition(client, app)
    tokens = [join_all(client, match) for match in matches]
    followers = [hub.reserve(match["match_id"], "10.0.0.1") for match in matches]
    try:
        # The watcher starts with the first follower and its first look rings every follower it knows then (a
        # follower reserved after that look has no first ring to wait for): wait for that look, then for quiet.
        assert followers[0].wait(30)
        while any(follower.wait(0.5) for follower in followers):
            pass
        for match, seat_tokens, follower in zip(matches, tokens, followers, strict=True):
            assert _play_one(client, match, seat_tokens) == 201
            assert follower.wait(30), "the follower of a match in this partition is woken"
    finally:
        for follower in followers:
            hub.release(follower)
