"""The match aggregate against a real event store: replay, snapshots, conflicts, idempotency, tampering."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from domain.application import MatchService, open_matches
from domain.errors import ConcurrentWrite, IdempotencyKeyReused, SeatUnavailable, VersionMismatch
from domain.match import Match
from domain.ruleset import RuleViolation
from domain.store import storage_env
from projections.records import viewer_for
from projections.views import export_lines
from tests.hardening.play import pick
from tests.support.independent_verifier import VerificationError, verify_export
from tests.support.tamper import drop_sqlite_guards


@pytest.fixture
def db_path(tmp_path):
    """A fresh SQLite store file (for the tests that open the file itself)."""
    return tmp_path / "store.sqlite3"


@pytest.fixture
def matches(database_url):
    """The match application on a fresh store (SQLite and PostgreSQL)."""
    app = open_matches(env=storage_env(database_url))
    yield app
    app.close()


@pytest.fixture
def sqlite_matches(db_path):
    """The match application on a SQLite file the test can open itself."""
    app = open_matches(env=storage_env(f"sqlite:///{db_path}"))
    yield app
    app.close()


def _started(matches: MatchService, players: int = 3) -> tuple[str, dict]:
    match = matches.create_match("gambitz", {"players": players})
    tokens = {}
    for _ in range(players):
        seat, token, _ = matches.join(match.match_id, f"n{len(tokens)}")
        tokens[seat] = token
    return match.match_id, tokens


def _play(matches: MatchService, match_id: str, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        match = matches.match(match_id)
        if match.status != "active":
            return
        seat = rng.choice(match.to_act())
        matches.act(match_id, seat, pick(rng, match.ruleset.legal_commands(match.state, seat), enders_rate=0))


def _export(matches: MatchService, match_id: str, role: str = "organizer") -> str:
    match = matches.match(match_id)
    return "".join(export_lines(matches, match, viewer_for(match, role)))


def test_joining_the_last_seat_starts_the_match_with_a_recorded_shuffle(matches):
    match_id, _ = _started(matches, players=2)
    match = matches.match(match_id)
    kinds = [r.kind for r in matches.records(match_id)]
    assert match.status == "active"
    assert kinds[:3] == ["MatchCreated", "SeatJoined", "SeatJoined"]
    assert any("chance" in r.public for r in matches.records(match_id))


def test_a_full_match_cannot_be_joined_again(matches):
    match_id, _ = _started(matches, players=2)
    with pytest.raises(SeatUnavailable):
        matches.join(match_id, "late")


def test_the_loaded_state_equals_a_replay_of_every_event_from_scratch(matches):
    match_id, _ = _started(matches)
    _play(matches, match_id, random.Random(3), 120)
    loaded = matches.match(match_id)  # from the latest snapshot plus the events after it
    from_events = None
    for record in matches.records(match_id):
        from_events = record.mutate(from_events)
    assert (from_events.version, from_events.state, from_events.head) == (loaded.version, loaded.state, loaded.head)


def test_snapshots_are_taken_so_loading_does_not_replay_the_whole_match(matches):
    match_id, _ = _started(matches)
    _play(matches, match_id, random.Random(4), 150)
    version = matches.match(match_id).version
    snapshots = list(matches.store.snapshots.get(matches.match(match_id).id))
    assert version >= 100
    assert snapshots and snapshots[-1].originator_version > version - 2 * 50


def test_a_rejected_command_changes_nothing(matches):
    match_id, _tokens = _started(matches, players=2)
    before = matches.match(match_id)
    waiting = next(seat for seat in before.seat_order if seat not in before.to_act())
    command = before.ruleset.legal_commands(before.state, before.to_act()[0])[0]
    with pytest.raises(RuleViolation) as caught:
        matches.act(match_id, waiting, command)
    assert caught.value.rule == "not_your_turn"
    after = matches.match(match_id)
    assert (after.version, after.state, after.head) == (before.version, before.state, before.head)


def test_two_writers_at_the_same_version_conflict_and_only_one_is_stored(matches):
    match_id, _ = _started(matches, players=2)
    first, second = matches.match(match_id), matches.match(match_id)
    seat = first.to_act()[0]
    command = first.ruleset.legal_commands(first.state, seat)[0]
    first.act(seat, command)
    second.act(seat, command)
    matches.store.save(first)
    with pytest.raises(Exception) as caught:
        matches.store.save(second)
    assert "IntegrityError" in type(caught.value).__name__
    assert matches.match(match_id).version == first.version


def test_the_application_reports_a_lost_race_as_a_concurrent_write(matches, monkeypatch):
    match_id, _ = _started(matches, players=2)
    match = matches.match(match_id)
    seat = match.to_act()[0]
    command = match.ruleset.legal_commands(match.state, seat)[0]
    real_match = matches.match

    def stale(mid, version=None):
        # Another writer records first, between our load and our save.
        loaded = real_match(mid, version)
        if version is None and not getattr(stale, "done", False):
            stale.done = True
            matches.act(mid, seat, command)
        return loaded

    monkeypatch.setattr(matches, "match", stale)
    with pytest.raises(ConcurrentWrite):
        matches.act(match_id, seat, command)


def test_an_expected_version_that_is_not_current_is_refused(matches):
    match_id, _ = _started(matches, players=2)
    match = matches.match(match_id)
    seat = match.to_act()[0]
    with pytest.raises(VersionMismatch):
        matches.act(match_id, seat, match.ruleset.legal_commands(match.state, seat)[0], expected_version=match.version - 1)


def test_a_retried_idempotency_key_returns_the_original_versions_and_records_nothing(matches):
    match_id, _ = _started(matches, players=2)
    match = matches.match(match_id)
    seat = match.to_act()[0]
    command = match.ruleset.legal_commands(match.state, seat)[0]
    first = matches.act(match_id, seat, command, idempotency_key="k-1")
    version = matches.match(match_id).version
    again = matches.act(match_id, seat, command, idempotency_key="k-1")
    assert (again.first, again.last) == (first.first, first.last)
    assert [r.chain for r in again.records] == [r.chain for r in first.records]
    assert again.receipt == first.receipt
    assert matches.match(match_id).version == version


def test_an_idempotency_key_reused_for_another_command_is_refused(matches):
    match_id, _ = _started(matches, players=2)
    match = matches.match(match_id)
    seat = match.to_act()[0]
    options = match.ruleset.legal_commands(match.state, seat)
    matches.act(match_id, seat, options[0], idempotency_key="k-2")
    other = next(c for c in options if c != options[0]) if len(options) > 1 else type(options[0])(card="none-x")
    with pytest.raises(IdempotencyKeyReused):
        matches.act(match_id, seat, other, idempotency_key="k-2")


def test_tokens_are_never_stored_and_their_hashes_never_exported(sqlite_matches, db_path):
    matches = sqlite_matches
    match_id, tokens = _started(matches, players=2)
    raw = db_path.read_bytes() + (db_path.parent / (db_path.name + "-wal")).read_bytes() if (db_path.parent / (db_path.name + "-wal")).exists() else db_path.read_bytes()
    export = _export(matches, match_id)
    for seat, token in tokens.items():
        assert token.encode() not in raw
        assert matches.match(match_id).token_hashes()[seat] not in export


def test_an_export_verifies_independently_and_a_tampered_row_does_not(sqlite_matches, db_path):
    matches = sqlite_matches
    match_id, _ = _started(matches)
    _play(matches, match_id, random.Random(9), 10_000)
    assert matches.match(match_id).status == "finished"
    report = verify_export(_export(matches, match_id, "spectator"))
    assert report["chance_rederived"] >= 1 and report["commitments_opened"] > 0
    drop_sqlite_guards(db_path)  # an attacker with database access removes the triggers first
    conn = sqlite3.connect(db_path)
    state, = conn.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 12",
                          (matches.match(match_id).id.hex,)).fetchone()
    stored = json.loads(state)
    stored["public"]["tampered"] = True
    conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 12",
                 (json.dumps(stored).encode(), matches.match(match_id).id.hex))
    conn.commit()
    with pytest.raises(VerificationError, match="chain breaks at version 12"):
        verify_export(_export(open_matches(env=storage_env(f"sqlite:///{db_path}")), match_id, "spectator"))


def test_the_match_class_keeps_explicit_stable_topics():
    assert Match.TOPIC == "gambit:Match"
    assert Match.Created.TOPIC == "gambit:Match.Created"
    assert Match.Recorded.TOPIC == "gambit:Match.Recorded"
