"""Match summaries, views at any version, replay frames and the NDJSON export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from domain.application import MatchService
from domain.match import Match
from domain.ruleset import Viewer
from projections.clocks import match_clock
from projections.records import opened_by, record_form

MAX_REPLAY_FRAMES = 500
EXPORT_FORMAT = "gambit-match-export/1"
EXPORT_BATCH = 500


def summary(match: Match) -> dict:
    """The match summary (`GET /matches/{id}` in api-spec/openapi.yaml)."""
    return {
        "match_id": match.match_id,
        "ruleset": match.ruleset_id,
        "config": match.config,
        "status": match.status,
        "version": match.version,
        "seats": [
            {
                "seat": seat,
                "name": match.seats.get(seat, {}).get("name"),
                "joined": seat in match.seats,
                "entrant_id": match.entrant_of(seat),
            }
            for seat in match.seat_order
        ],
        "to_act": match.to_act(),
        "clock": match_clock(match),
        "outcome": match.outcome,
        "tournament_id": match.tournament_id,
        "server_seed_commitment": match.server_seed_commitment,
        "created_at": match.created_at,
    }


def view_of(match: Match, viewer: Viewer) -> dict:
    """A match as of its current version, for one viewer."""
    return {
        "version": match.version,
        "viewer": viewer.label,
        "status": match.status,
        "to_act": match.to_act(),
        "may_act": match.may_act(),
        "clock": match_clock(match),
        "outcome": match.outcome,
        "state": match.ruleset.view(match.state, viewer),
    }


def replay(app: MatchService, match_id: str, viewer: Viewer, first: int, last: int) -> dict:
    """Frames (record + view) for versions first..last, folding forward from one snapshot load.

    `last` must not pass the match's version; at most MAX_REPLAY_FRAMES frames are returned and
    `next_from` says where the next page starts.
    """
    end = min(last, first + MAX_REPLAY_FRAMES - 1)
    match = app.match(match_id, version=first)
    records = app.records(match_id, after=first - 1, upto=end)
    frames = []
    for stored in records:
        version = stored.originator_version
        # The record's form is taken before it is folded: a replayed record's payload is not
        # copied for the fold (domain/match.py), so the ruleset's state may come to share it.
        # Each frame is read as of its own version, so a reveal shows from its frame on.
        event = record_form(stored, viewer, match, as_of=version)
        if version > match.version:
            stored.mutate(match)
        frame = {"version": version, "event": event, "view": view_of(match, viewer)}
        opened = opened_forms(app, match, stored, viewer, as_of=version)
        if opened:
            frame["opened"] = opened
        frames.append(frame)
    return {"frames": frames, "next_from": end + 1 if end < last else None}


def opened_forms(app: MatchService, match: Match, stored: Any, viewer: Viewer, as_of: int) -> list[dict]:
    """The earlier records `stored` reveals, in the viewer's form as of `as_of` (secret and salt shown).

    A replay frame or a live stream carries them beside the revealing record, since the records
    themselves went by before they were revealed.
    """
    forms = []
    for version in opened_by(stored):
        # Fresh copies from the store: the ones a replay folds may share objects with its state.
        for record in app.records(match.match_id, after=version - 1, upto=version):
            forms.append(record_form(record, viewer, match, as_of=as_of))
    return forms


def export_lines(app: MatchService, match: Match, viewer: Viewer) -> Iterator[str]:
    """The NDJSON export: a header line, then every record oldest first, in the viewer's form."""
    header = {
        "format": EXPORT_FORMAT,
        "match_id": match.match_id,
        "ruleset": match.ruleset_id,
        "config": match.config,
        "exported_at": datetime.now(UTC).isoformat(),
        "viewer": viewer.label,
        "seats": list(match.seat_order),
        "version": match.version,
    }
    yield json.dumps(header, ensure_ascii=False) + "\n"
    after = 0
    while after < match.version:
        batch = app.records(match.match_id, after=after, upto=match.version, limit=EXPORT_BATCH)
        if not batch:
            break
        for stored in batch:
            yield json.dumps(record_form(stored, viewer, match, as_of=match.version), ensure_ascii=False) + "\n"
        after = batch[-1].originator_version


def records_page(
    app: MatchService, match: Match, viewer: Viewer, after: int, limit: int, upto: int | None = None
) -> dict:
    """A page of the event log in the viewer's form, as of `upto` (a held-back spectator's version) or the latest."""
    newest = match.version if upto is None else upto
    batch = app.records(match.match_id, after=after, upto=upto, limit=limit)
    events = [record_form(stored, viewer, match, as_of=newest) for stored in batch]
    more = bool(batch) and batch[-1].originator_version < newest
    return {"events": events, "next_after": batch[-1].originator_version if more else None}


def legal_bodies(match: Match, seat: str) -> dict:
    """What this seat may post now: whole `commands` and `choices` (families of bodies, see
    domain/choices.py); both empty unless the match is active."""
    if match.status != "active":
        return {"commands": [], "choices": []}
    return {
        "commands": [command.body() for command in match.ruleset.legal_commands(match.state, seat)],
        "choices": [choice.body() for choice in match.ruleset.legal_choices(match.state, seat)],
    }


def as_json(value: Any) -> str:
    """Compact JSON for streaming responses."""
    return json.dumps(value, ensure_ascii=False)
