"""A save snapshots the match its write made: the very snapshot the library would take by rebuilding the match
from the store, byte for byte, in every ruleset, whichever process wrote the records before it."""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.application import Application

from domain import rulesets
from domain.application import MatchService, open_matches
from domain.choices import random_legal_command
from domain.match import SNAPSHOT_INTERVAL, Match, project_match
from domain.store import storage_env
from tests.hardening.play import join_options


class KeyedSigner:
    """A receipt signer for tests, so every write carries a receipt as the service's do."""

    key_id = "test"

    def _mac(self, match_id: str, version: int, head: str) -> str:
        return hmac.new(b"test key", f"{match_id}|{version}|{head}".encode(), hashlib.sha256).hexdigest()

    def receipt(self, match_id: str, version: int, head: str) -> dict:
        """A receipt for this head."""
        return {"match_id": match_id, "version": version, "head": head, "signature": self._mac(match_id, version, head)}

    def verify(self, receipt: dict) -> bool:
        """Whether this signer made the receipt."""
        expected = self._mac(receipt["match_id"], receipt["version"], receipt["head"])
        return hmac.compare_digest(expected, str(receipt.get("signature")))


@pytest.fixture
def two_apps(database_url):
    """Two processes' worth of applications on one store, signing with one key."""
    env = storage_env(database_url)
    signer = KeyedSigner()
    first, second = open_matches(env=env, signer=signer), open_matches(env=env, signer=signer)
    yield first, second
    first.close()
    second.close()


def _played(apps: tuple[MatchService, ...], ruleset_id: str, rng: random.Random, versions: int) -> str:
    """A match of the ruleset played with random legal commands, each sent to a random one of the apps."""
    ruleset = rulesets.get(ruleset_id)
    match = apps[0].create_match(ruleset_id, {})
    options = join_options(ruleset_id, match.seat_order, rng) or {}
    for seat in match.seat_order:
        apps[0].join(match.match_id, f"n-{seat}", seat, options=options.get(seat))
    while True:
        app = rng.choice(apps)
        match = app.match(match.match_id)
        if match.status != "active" or match.version >= versions:
            return match.match_id
        seat = rng.choice(match.to_act())
        app.act(match.match_id, seat, random_legal_command(ruleset, match.state, seat, rng, lambda kind: kind != "resign"))


def _stored_snapshots(app: MatchService, match_id: str) -> list[Any]:
    """The match's snapshots as stored (unsealed), oldest first."""
    assert app.store.snapshots is not None
    return list(app.store.snapshots.recorder.select_events(UUID(match_id)))


def _library_snapshot(app: MatchService, match_id: str, version: int, timestamp: Any) -> Any:
    """The library's snapshot (as stored) of the match rebuilt from every stored record up to `version`."""
    rebuilt = project_match(None, app.store.events.get(UUID(match_id), lte=version))
    taken = Match.Snapshot.take(rebuilt)
    at_the_same_instant = type(taken)(
        originator_id=taken.originator_id,
        originator_version=taken.originator_version,
        timestamp=timestamp,
        topic=taken.topic,
        state=taken.state,
    )
    return app.store.mapper.to_stored_event(at_the_same_instant)


@pytest.mark.parametrize("ruleset_id", rulesets.available())
def test_a_snapshot_is_the_bytes_the_library_takes_of_the_match_rebuilt_from_the_store(two_apps, ruleset_id):
    rng = random.Random(f"snapshots/{ruleset_id}")
    first, second = two_apps
    compared = 0
    while compared < 3:  # games shorter than a snapshot interval are played again
        match_id = _played((first, second), ruleset_id, rng, 3 * SNAPSHOT_INTERVAL + 5)
        for snapshot in _stored_snapshots(first, match_id):
            timestamp = first.store.mapper.to_domain_event(snapshot).timestamp
            library = _library_snapshot(first, match_id, snapshot.originator_version, timestamp)
            assert (snapshot.topic, snapshot.state) == (library.topic, library.state)
            compared += 1


def test_a_snapshot_of_a_match_is_taken_without_rebuilding_the_match(two_apps, monkeypatch):
    first, _ = two_apps
    rebuilt: list[int | None] = []
    library_take = Application.take_snapshot

    def counting_take(self: Application, aggregate_id: Any, version: int | None = None, **kwargs: Any) -> None:
        rebuilt.append(version)
        library_take(self, aggregate_id, version, **kwargs)

    monkeypatch.setattr(Application, "take_snapshot", counting_take)
    match_id = _played((first,), "gambitz", random.Random(3), 2 * SNAPSHOT_INTERVAL + 5)
    assert len(_stored_snapshots(first, match_id)) >= 2
    assert rebuilt == []


def test_a_match_loaded_from_a_snapshot_of_the_write_is_the_match_rebuilt_from_every_record(two_apps):
    first, second = two_apps
    match_id = _played((first, second), "gambitz", random.Random(11), 2 * SNAPSHOT_INTERVAL + 7)
    loaded = second.store.repository.get(UUID(match_id), projector_func=project_match)
    replayed = project_match(None, second.store.events.get(UUID(match_id)))
    assert vars(loaded) == vars(replayed)
