"""Matches partitioned across event stores (issue 34): each lives in exactly one, named by its id, and the
followers (read models, clock keeper, live streams) follow every partition."""

from __future__ import annotations

import uuid

import pytest

from domain.errors import MatchNotFound
from domain.partitions import PARTITIONED_ID_VERSION, new_match_id, partition_of
from projections.clocks import ClockKeeper
from service.app import build_gambit
from service.settings import Settings
from tests.stores import BACKENDS, partitioned_urls_for

PARTITIONS = 3


@pytest.fixture(params=BACKENDS)
def gambit(request, tmp_path):
    """The process objects on a shared store and three partitions (the shared store the first)."""
    shared, partitions, drop = partitioned_urls_for(request.param, tmp_path, PARTITIONS)
    objects = build_gambit(Settings(database_url=shared, data_dir=str(tmp_path), partition_urls=partitions))
    yield objects
    objects.close()
    drop()


def _matches_in(store) -> set[str]:
    """The ids of the matches whose records a partition's own log holds."""
    return {str(n.originator_id) for n in store.recorder.select_notifications(1, 100_000)}


def test_a_partitioned_id_names_its_partition_and_keeps_naming_it_when_partitions_are_added():
    for partitions in (2, 4, 7):
        for _ in range(50):
            match_id = new_match_id(partitions)
            assert match_id.version == PARTITIONED_ID_VERSION
            number = partition_of(match_id)
            assert 0 <= number < partitions
            assert partition_of(uuid.UUID(str(match_id))) == number, "read back from its text, the same partition"


def test_an_ordinary_id_is_in_the_first_partition_so_matches_from_before_partitioning_stay_found():
    assert partition_of(uuid.uuid4()) == 0
    assert new_match_id(1).version == 4, "one store: ids as before partitions"


def test_every_match_lives_in_exactly_the_partition_its_id_names(gambit):
    store = gambit.matches.store
    created = [gambit.matches.create_match("gambitz", {"players": 2}).match_id for _ in range(24)]
    held = [_matches_in(partition) for partition in store.partitions]
    for match_id in created:
        holders = [number for number, ids in enumerate(held) if match_id in ids]
        assert holders == [store.partition_number(match_id)]
    assert all(ids for ids in held), "24 matches spread over 3 partitions leave none empty"


def test_a_match_is_played_and_read_back_through_its_partition(gambit):
    matches = gambit.matches
    match = matches.create_match("gambitz", {"players": 2})
    matches.join(match.match_id, "ann")
    matches.join(match.match_id, "bob")
    loaded = matches.match(match.match_id)
    assert loaded.status == "active"
    assert [r.originator_version for r in matches.records(match.match_id)] == list(range(1, loaded.version + 1))


def test_an_id_naming_a_partition_that_is_not_configured_is_no_match(gambit):
    raw = bytearray(new_match_id(PARTITIONS).bytes)
    raw[0:2] = (PARTITIONS + 5).to_bytes(2, "big")
    with pytest.raises(MatchNotFound):
        gambit.matches.match(str(uuid.UUID(bytes=bytes(raw))))


def test_tournaments_live_in_the_shared_store(gambit):
    tournament, _ = gambit.matches.tournaments.create_tournament("open")
    shared = gambit.matches.store.shared
    assert str(tournament.id) in {str(n.originator_id) for n in shared.recorder.select_notifications(1, 1000)}
    match = gambit.matches.create_match("gambitz", {"players": 2}, tournament.tournament_id)
    assert gambit.matches.match(match.match_id).tournament_id == tournament.tournament_id


def test_the_index_follows_every_partition_and_pages_across_them_once_each(gambit):
    created = [gambit.matches.create_match("gambitz", {"players": 2}).match_id for _ in range(13)]
    gambit.index.catch_up()
    seen, cursor = [], None
    while True:
        ids, cursor = gambit.index.matches(after=cursor, limit=4)
        seen += ids
        if cursor is None:
            break
    assert sorted(seen) == sorted(created), "every match listed, none twice"
    assert gambit.index.lag() == 0
    later = gambit.matches.create_match("gambitz", {"players": 2}).match_id
    gambit.index.catch_up()
    assert gambit.index.matches(limit=1)[0] == [later], "a new match comes first, past every page already given"


def test_the_clock_keeper_follows_every_partition(gambit):
    timed = {"players": 2, "time_control": {"kind": "fischer", "initial_s": 600}}
    created = [gambit.matches.create_match("gambitz", timed).match_id for _ in range(9)]
    for match_id in created:
        gambit.matches.join(match_id, "ann")
        gambit.matches.join(match_id, "bob")
    keeper = ClockKeeper(gambit.matches.clocks, gambit.index.store)
    keeper.catch_up()
    tracked = {row[0] for row in gambit.index.store.query("SELECT match_id FROM gambit_clock_deadlines")}
    assert tracked == set(created)
    assert keeper.next_deadline() is not None


def test_partition_urls_are_read_from_the_environment_in_order():
    env = {
        "GAMBIT_DATABASE_URL": "postgresql://db/shared",
        "GAMBIT_PARTITION_URLS": " postgresql://a/db?schema=p0 ,postgresql://b/db?schema=p1",
    }
    settings = Settings.from_env(env)
    assert settings.partition_urls == ("postgresql://a/db?schema=p0", "postgresql://b/db?schema=p1")
    assert Settings.from_env({}).partition_urls == (), "unset: the one store of GAMBIT_DATABASE_URL"


@pytest.mark.parametrize("urls", ["mysql://a/db", "postgresql://a/db,postgresql://a/db"], ids=["scheme", "twice"])
def test_a_bad_partition_list_fails_at_start(urls):
    with pytest.raises(ValueError, match="GAMBIT_PARTITION_URLS"):
        Settings.from_env({"GAMBIT_PARTITION_URLS": urls})


def test_the_index_goes_on_with_the_other_partitions_while_one_fails_and_loses_nothing_when_it_is_back(
    gambit, monkeypatch
):
    from eventsourcing.persistence import OperationalError

    store = gambit.matches.store
    created = [gambit.matches.create_match("gambitz", {"players": 2}).match_id for _ in range(12)]
    failing = store.partitions[1].recorder

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(failing, "select_notifications", down)
    gambit.index.catch_up()
    listed = set(gambit.index.matches(limit=100)[0])
    assert listed == {m for m in created if store.partition_number(m) != 1}
    monkeypatch.undo()
    store.health.answered(1)  # its retry interval is over (test_a_partition_that_did_not_answer_is_passed_over_…)
    gambit.index.catch_up()
    everything = gambit.index.matches(limit=100)[0]
    assert sorted(everything) == sorted(created), "every match once, the failed partition's as well"


def test_a_partition_that_did_not_answer_is_passed_over_for_a_while_then_asked_again(gambit, monkeypatch):
    from eventsourcing.persistence import OperationalError

    from domain.errors import PartitionUnavailable

    store = gambit.matches.store
    created = [gambit.matches.create_match("gambitz", {"players": 2}).match_id for _ in range(12)]
    down_match = next(m for m in created if store.partition_number(m) == 1)
    failing = store.partitions[1].recorder
    asked = []

    def down(*args, **kwargs):
        asked.append(args)
        raise OperationalError("connection refused")

    monkeypatch.setattr(failing, "select_notifications", down)
    monkeypatch.setattr(store.partitions[1], "load", lambda *args, **kwargs: down())
    gambit.index.catch_up()
    assert len(asked) == 1
    with pytest.raises(PartitionUnavailable, match="partition 1 does not answer"):
        gambit.matches.match(down_match)
    assert len(asked) == 1, "a partition that did not answer lately is not asked again: calls fail at once"
    gambit.index.catch_up()
    with pytest.raises(PartitionUnavailable, match="did not answer"):
        gambit.matches.match(down_match)
    assert len(asked) == 1
    store.health.retry_after = 0  # the retry interval is over
    monkeypatch.undo()
    assert gambit.matches.match(down_match).match_id == down_match, "once it answers its matches are served"
    gambit.index.catch_up()
    assert sorted(gambit.index.matches(limit=100)[0]) == sorted(created)


def test_many_writers_across_partitions_and_a_follower_lose_nothing_and_see_nothing_twice(gambit):
    import threading

    from projections.runner import follow

    created: list[str] = []
    lock = threading.Lock()

    def writer() -> None:
        for _ in range(6):
            match = gambit.matches.create_match("gambitz", {"players": 2})
            gambit.matches.join(match.match_id, "ann")
            with lock:
                created.append(match.match_id)

    folded: list[int] = []
    stop = threading.Event()
    runner = threading.Thread(target=follow, args=(gambit.index, stop), kwargs={"poll_seconds": 0.05,
                                                                              "on_batch": folded.append})
    runner.start()
    writers = [threading.Thread(target=writer) for _ in range(6)]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=120)
    heads = [p.recorder.max_notification_id() or 0 for p in gambit.matches.store.partitions]
    try:
        give_up = threading.Event()
        for _ in range(600):  # bounded only to end a hung run; no timing is asserted
            if all(gambit.index.position(n) >= head for n, head in enumerate(heads)):
                break
            give_up.wait(0.05)
    finally:
        stop.set()
        runner.join(timeout=30)
    assert sum(folded) == sum(heads), "every record of every partition folded exactly once"
    rows = gambit.index.store.query("SELECT match_id, seats_joined FROM gambit_match_index")
    assert sorted(r[0] for r in rows) == sorted(created)
    assert {r[1] for r in rows} == {1}
