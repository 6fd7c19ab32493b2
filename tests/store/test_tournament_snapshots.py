"""A tournament snapshot stored before tournaments had entrants still loads: no entrant registered yet, and its
access trail pages as before (every event after the creation was a read then)."""

from __future__ import annotations

import dataclasses

from domain.application import open_matches
from domain.store import storage_env
from domain.tournament import Tournament

SEAL_KEY = b"tournament-snapshots".ljust(32, b".")


def test_a_tournament_snapshot_before_entrants_loads_with_none_and_takes_new_ones(database_url):
    env = storage_env(database_url)
    writer = open_matches(env=env, seal_key=SEAL_KEY)
    try:
        tournament, _ = writer.tournaments.create_tournament("Old Cup")
        tid = tournament.tournament_id
        for number in range(3):
            writer.tournaments.record_secret_read(tid, "organizer:abc", "m", "view", number + 1)
        taken = Tournament.Snapshot.take(writer.tournaments.tournament(tid))
        state = dict(taken.state)
        assert state.pop("class_version") == 2, "a new snapshot says it has entrants"
        del state["entrants"], state["last_read_version"]  # as the service stored snapshots before entrants
        assert writer.store.snapshots is not None
        writer.store.snapshots.put([dataclasses.replace(taken, state=state)])
    finally:
        writer.close()

    reader = open_matches(env=env, seal_key=SEAL_KEY)
    try:
        loaded = reader.tournaments.tournament(tid)
        assert loaded.entrants == {} and loaded.last_read_version == 4
        assert [e.match_version for e in reader.tournaments.access_trail(tid, after=1, limit=10)] == [2, 3]
        entry, invite = reader.tournaments.register_entrant(tid, "Ann", None)
        assert entry["entrant_id"] == "e1" and reader.tournaments.entrant_by_invite(loaded, invite) is None
        assert reader.tournaments.entrant_by_invite(reader.tournaments.tournament(tid), invite)["name"] == "Ann"
    finally:
        reader.close()
