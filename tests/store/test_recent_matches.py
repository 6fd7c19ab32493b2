"""A process keeps the matches it saw last and brings them up to date instead of rebuilding them:
never at the cost of missing another writer's records or a record rewritten in the database."""

from __future__ import annotations

import hashlib
import hmac
import random
from uuid import UUID

import pytest

from domain.application import MatchService, open_matches
from domain.match import Match
from domain.store import storage_env
from tests.hardening.play import pick
from tests.support.tamper import StoreAccess


class KeyedSigner:
    """A receipt signer for tests (HMAC under a key the database attacker does not have)."""

    key_id = "test"

    def __init__(self) -> None:
        self._key = b"not in the database"

    def _mac(self, match_id: str, version: int, head: str) -> str:
        return hmac.new(self._key, f"{match_id}|{version}|{head}".encode(), hashlib.sha256).hexdigest()

    def receipt(self, match_id: str, version: int, head: str) -> dict:
        """A receipt for this head."""
        return {"match_id": match_id, "version": version, "head": head, "signature": self._mac(match_id, version, head)}

    def verify(self, receipt: dict) -> bool:
        """Whether this signer made the receipt."""
        expected = self._mac(receipt["match_id"], receipt["version"], receipt["head"])
        return hmac.compare_digest(expected, str(receipt.get("signature")))


def _started(app: MatchService) -> str:
    match = app.create_match("gambitz", {"players": 2})
    for seat in match.seat_order:
        app.join(match.match_id, f"n-{seat}", seat)
    return match.match_id


def _play(app: MatchService, match_id: str, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        match = app.match(match_id)
        if match.status != "active":
            return
        seat = rng.choice(match.to_act())
        app.act(match_id, seat, pick(rng, match.ruleset.legal_commands(match.state, seat), enders_rate=0))


def _replayed(app: MatchService, match_id: str) -> Match:
    """The match rebuilt from every record, with no snapshot and nothing kept in memory."""
    match = None
    for record in app.records(match_id):
        match = record.mutate(match)
    return match


@pytest.fixture
def two_apps(database_url):
    """Two processes' worth of applications on one store, each keeping its recent matches."""
    problems: list[tuple[str, str]] = []
    env = storage_env(database_url)
    signer = KeyedSigner()
    first = open_matches(env=env, signer=signer, on_integrity_problem=lambda mid, problem: problems.append((mid, problem)))
    second = open_matches(env=env, signer=signer)
    yield first, second, problems
    first.close()
    second.close()


def test_a_kept_match_takes_in_the_records_another_process_wrote(two_apps):
    first, second, _ = two_apps
    rng = random.Random(5)
    match_id = _started(first)
    _play(first, match_id, rng, 3)
    _play(second, match_id, rng, 20)
    loaded = first.match(match_id)
    truth = _replayed(first, match_id)
    assert loaded.version == truth.version == second.match(match_id).version
    assert loaded.state == truth.state and loaded.head == truth.head


def test_a_loaded_match_is_a_copy_so_a_change_that_is_never_saved_leaves_no_trace(two_apps):
    first, _, _ = two_apps
    match_id = _started(first)
    before = first.match(match_id)
    changed = first.match(match_id)
    changed.state["forged"] = True
    changed.seats.clear()
    after = first.match(match_id)
    assert "forged" not in after.state and after.seats == before.seats


def test_a_record_rewritten_in_the_database_after_the_match_was_kept_is_noticed(two_apps, database_url):
    first, _, problems = two_apps
    match_id = _started(first)
    _play(first, match_id, random.Random(9), 6)
    first.match(match_id)  # kept at its latest version
    store = StoreAccess(database_url)
    store.drop_guards()
    latest = max(store.rows(match_id))

    def forge(rows: dict) -> None:
        rows[latest]["public"]["forged"] = True

    store.rewrite_from(match_id, latest, forge)
    first.match(match_id)
    assert problems and problems[-1][0] == match_id


def test_keeping_no_matches_loads_the_same_match(database_url):
    app = open_matches(env=storage_env(database_url), recent_matches=0)
    try:
        match_id = _started(app)
        _play(app, match_id, random.Random(2), 10)
        assert app.match(match_id).state == _replayed(app, match_id).state
    finally:
        app.close()


def test_the_service_keeps_as_many_recent_matches_as_configured(tmp_path):
    from service.app import build_gambit
    from service.settings import Settings

    assert Settings.from_env({}).recent_matches == 256
    settings = Settings.from_env({"GAMBIT_RECENT_MATCHES": "0", "GAMBIT_DATA_DIR": str(tmp_path)})
    assert settings.recent_matches == 0
    gambit = build_gambit(settings)
    try:
        match_id = _started(gambit.matches)
        gambit.matches.match(match_id)
        assert gambit.matches.store._recent.get(UUID(match_id)) is None
    finally:
        gambit.close()


def test_a_match_the_application_loaded_holds_only_what_a_snapshot_can_store(two_apps):
    first, _, _ = two_apps
    match_id = _started(first)
    _play(first, match_id, random.Random(4), 5)
    for match in (first.match(match_id), first.match(match_id).fresh_copy()):
        snapshot = Match.Snapshot.take(match)
        assert first.store.mapper.to_stored_event(snapshot).state


def test_which_records_were_revealed_is_read_only_as_far_back_as_asked(two_apps):
    from domain.reveals import RevealIndex

    first, _, _ = two_apps
    # dragons-gambit opens each round's deal when the round ends: play until one has.
    created = first.create_match("dragons-gambit", {"players": 2, "target_score": 1_000_000})
    match_id = created.match_id
    for seat in created.seat_order:
        first.join(match_id, f"n-{seat}", seat)
    rng = random.Random(7)
    while not any(r.public.get("opens") for r in first.records(match_id)):
        _play(first, match_id, rng, 10)
    _play(first, match_id, rng, 20)
    records = first.records(match_id)
    latest = records[-1].originator_version
    truth = {}
    for record in records:
        for opened in record.public.get("opens", []):
            truth.setdefault(opened, record.originator_version)
    assert truth, "the seed's play reveals records"
    reads: list[tuple[int, int]] = []

    def read(mid: str, after: int, upto: int) -> list:
        reads.append((after, upto))
        return first.records(mid, after=after, upto=upto)

    index = RevealIndex(read)
    newest_half = range(latest // 2, latest + 1)
    assert {v: index.revealed_at(match_id, v, latest) for v in newest_half} == {v: truth.get(v) for v in newest_half}
    assert reads[0] == (latest // 2, latest) and all(after >= latest // 2 for after, _ in reads)
    assert {v: index.revealed_at(match_id, v, latest) for v in range(1, latest + 1)} == {
        v: truth.get(v) for v in range(1, latest + 1)
    }


def test_a_match_once_loaded_does_not_keep_its_application_alive(database_url):
    import gc
    import weakref

    app = open_matches(env=storage_env(database_url))
    match_id = _started(app)
    app.match(match_id)
    gone = weakref.ref(app)
    app.close()
    del app
    gc.collect()
    assert gone() is None, "something process-wide still holds the application (and its store's connections)"
