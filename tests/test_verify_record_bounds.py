"""The records a match writes itself have exactly their fields: `gambit verify` fails any other shape.

The chain is rebuilt after each edit (what a dealer holding the key can do), so only the bounds
check can tell: docs/verification.md, section 2, lists the fields of each such record.
"""

from __future__ import annotations

import pytest

from domain.records import commitment
from domain.verification import verify_export
from tests.rules.test_derived_secrets import export_lines, playout
from tests.test_verify_hostile_inputs import rechained


@pytest.fixture(scope="module")
def honest() -> list[str]:
    """A finished dragons-gambit match's organizer export, one JSON text a line."""
    game = playout("dragons-gambit", {"players": 2, "target_score": 30}, 5)
    return export_lines(game, game.events)


def bounds(lines: list[str]) -> tuple[str, str]:
    """The status and detail of the bounds check of these lines."""
    check = next(c for c in verify_export(lines).checks if c.name == "bounds")
    return check.status, check.detail


def _first(records: list[dict], kind: str) -> dict:
    return next(r for r in records if r["kind"] == kind)


def test_the_honest_export_is_within_bounds(honest):
    assert bounds(honest)[0] == "pass"


def _extra_public_field(records):
    _first(records, "SeatJoined")["public"]["avatar"] = "x"


def _missing_public_field(records):
    del _first(records, "SeatJoined")["public"]["name"]


def _extra_created_field(records):
    records[0]["public"]["house_edge"] = 1


def _more_than_the_seed(records):
    created = records[0]
    created["secret"]["also"] = "x"
    created["commitment"] = commitment(created["secret"], created["salt"])


def _a_join_with_a_secret(records):
    joined = _first(records, "SeatJoined")
    joined.update(secret={"x": 1}, salt="s", audience=[])
    joined["commitment"] = commitment(joined["secret"], joined["salt"])


@pytest.mark.parametrize(
    "edit, finding",
    [
        (_extra_public_field, "'avatar'"),
        (_missing_public_field, "'name'"),
        (_extra_created_field, "'house_edge'"),
        (_more_than_the_seed, "server seed alone"),
        (_a_join_with_a_secret, "with a secret"),
    ],
)
def test_a_match_record_of_another_shape_fails_the_bounds_check(honest, edit, finding):
    status, detail = bounds(rechained(honest, edit))
    assert status == "fail" and finding in detail, detail


TOURNAMENT = "0b6f1a52-6f0e-4f7e-9a43-2d8c3f7d1e10"


def _in_a_tournament(records, pairing=None, joins=()):
    """The match as a tournament's, its seats paired as given and its joins naming the given entrants."""
    records[0]["public"]["tournament_id"] = TOURNAMENT
    if pairing is not None:
        records[0]["public"]["entrants"] = pairing
    joined = [r for r in records if r["kind"] == "SeatJoined"]
    for record, entrant_id in zip(joined, joins, strict=False):
        if entrant_id is not None:
            record["public"]["entrant_id"] = entrant_id


def test_a_pairing_honoured_by_its_entrants_joins_is_within_bounds(honest):
    edited = rechained(honest, lambda r: _in_a_tournament(r, {"p1": "e1", "p2": "e2"}, ("e1", "e2")))
    assert bounds(edited)[0] == "pass"
    assert bounds(rechained(honest, lambda r: _in_a_tournament(r, None, ("e7", None))))[0] == "pass"


@pytest.mark.parametrize(
    "edit, finding",
    [
        (lambda r: r[0]["public"].update(entrants={"p1": "e1"}), "pairing"),
        (lambda r: _in_a_tournament(r, {"p9": "e1"}), "pairing"),
        (lambda r: _in_a_tournament(r, {"p1": "e1", "p2": "e1"}), "pairing"),
        (lambda r: _in_a_tournament(r, {"p1": "player-1"}), "pairing"),
        (lambda r: _in_a_tournament(r, {}), "pairing"),
        (lambda r: _in_a_tournament(r, {"p1": "e1"}, (None, None)), "paired to e1"),
        (lambda r: _in_a_tournament(r, {"p1": "e1"}, ("e2", None)), "paired to e1"),
        (lambda r: _in_a_tournament(r, None, ("e3", "e3")), "second seat"),
        (lambda r: _in_a_tournament(r, None, ("e01", None)), "not an entrant's id"),
        (lambda r: _first(r, "SeatJoined")["public"].update(entrant_id="e1"), "no tournament"),
    ],
)
def test_a_pairing_or_entrant_join_the_service_would_refuse_fails_the_bounds_check(honest, edit, finding):
    status, detail = bounds(rechained(honest, edit))
    assert status == "fail" and finding in detail, detail
