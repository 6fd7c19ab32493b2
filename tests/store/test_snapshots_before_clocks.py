"""A snapshot stored before matches had clocks still loads: the match it holds is untimed.

Such a snapshot's state has no `clock` (nor `entrants`). The match declares its snapshots' version (2: with a
clock; 3: with a tournament pairing; 4: whether it records its causes, and the secret command bodies waiting to
open) and brings an older one up to it as it is read, so the match's code reads them by name.
"""

from __future__ import annotations

import dataclasses

from domain.application import open_matches
from domain.match import Match
from domain.store import storage_env

SEAL_KEY = b"snapshots-before-clocks".ljust(32, b".")


def test_a_snapshot_without_a_clock_loads_as_an_untimed_match_and_plays_on(database_url):
    env = storage_env(database_url)
    writer = open_matches(env=env, seal_key=SEAL_KEY)
    try:
        match = writer.create_match("gambitz", {"players": 2})
        for seat in match.seat_order:
            writer.join(match.match_id, f"n-{seat}", seat)
        latest = writer.match(match.match_id)
        taken = Match.Snapshot.take(latest)
        state = dict(taken.state)
        assert state.pop("class_version") == 4, "a new snapshot says it has a clock, a pairing and its causes"
        del state["clock"], state["entrants"]  # as the service stored snapshots before clocks
        assert writer.store.snapshots is not None
        writer.store.snapshots.put([dataclasses.replace(taken, state=state)])
    finally:
        writer.close()

    reader = open_matches(env=env, seal_key=SEAL_KEY)  # a fresh process: nothing kept in memory, the snapshot is read
    try:
        loaded = reader.match(match.match_id)
        assert loaded.version == latest.version
        assert loaded.clock is None and loaded.entrants == {}
        assert loaded.deadline_of(loaded.to_act()[0]) is None
        seat = loaded.to_act()[0]
        command = loaded.ruleset.legal_commands(loaded.state, seat)[0]
        reader.act(match.match_id, seat, command)
        assert reader.match(match.match_id).version > latest.version
    finally:
        reader.close()


def test_a_snapshot_without_a_pairing_loads_as_a_match_of_no_paired_seat_and_plays_on(database_url):
    env = storage_env(database_url)
    writer = open_matches(env=env, seal_key=SEAL_KEY)
    try:
        match = writer.create_match("gambitz", {"players": 2})
        for seat in match.seat_order:
            writer.join(match.match_id, f"n-{seat}", seat)
        latest = writer.match(match.match_id)
        taken = Match.Snapshot.take(latest)
        state = {**taken.state, "class_version": 2}
        del state["entrants"]  # as the service stored snapshots before tournament pairings
        assert writer.store.snapshots is not None
        writer.store.snapshots.put([dataclasses.replace(taken, state=state)])
    finally:
        writer.close()

    reader = open_matches(env=env, seal_key=SEAL_KEY)
    try:
        loaded = reader.match(match.match_id)
        assert loaded.version == latest.version and loaded.entrants == {}
        assert [loaded.entrant_of(seat) for seat in loaded.seat_order] == [None, None]
        seat = loaded.to_act()[0]
        reader.act(match.match_id, seat, loaded.ruleset.legal_commands(loaded.state, seat)[0])
        assert reader.match(match.match_id).version > latest.version
    finally:
        reader.close()


def test_a_snapshot_from_before_causes_were_recorded_loads_as_an_older_match_and_plays_on(database_url):
    env = storage_env(database_url)
    writer = open_matches(env=env, seal_key=SEAL_KEY)
    try:
        match = writer.create_match("gambitz", {"players": 2})
        for seat in match.seat_order:
            writer.join(match.match_id, f"n-{seat}", seat)
        latest = writer.match(match.match_id)
        taken = Match.Snapshot.take(latest)
        state = {**taken.state, "class_version": 3}
        del state["records_causes"], state["sealed_commands"]  # as the service stored snapshots before then
        assert writer.store.snapshots is not None
        writer.store.snapshots.put([dataclasses.replace(taken, state=state)])
    finally:
        writer.close()

    reader = open_matches(env=env, seal_key=SEAL_KEY)
    try:
        loaded = reader.match(match.match_id)
        assert loaded.version == latest.version and loaded.records_causes is False
        assert loaded.sealed_commands == {"following": None, "waiting": {}}
        seat = loaded.to_act()[0]
        reader.act(match.match_id, seat, loaded.ruleset.legal_commands(loaded.state, seat)[0])
        assert reader.match(match.match_id).version > latest.version
    finally:
        reader.close()
