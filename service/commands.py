"""The commands resource (playing) and the legal-commands a seat may post now."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import Blueprint, Response, jsonify, request
from flask import g as flask_g
from flask.views import MethodView

from domain.match import Match
from domain.ruleset import ORGANIZER, Viewer
from projections.records import record_form, viewer_for
from projections.views import legal_bodies
from service.auth import note_organizer_read, seat_caller
from service.bodies import json_body, parse_command
from service.context import etag_version, gambit
from service.problems import Problem

bp = Blueprint("commands", __name__)

MAX_IDEMPOTENCY_KEY = 200


def recorded(match: Match, first: int, last: int, viewer: Viewer, written: Sequence[Any] = ()) -> Response:
    """201 with the records first..last in the viewer's form and the receipt signed for the write.

    `written` are the records this very request stored, when the caller has them: if they are
    exactly first..last they are answered as they are, else the records are read from the store.
    A retried Idempotency-Key gets exactly the first answer: the same body and the same ETag.
    """
    g = gambit()
    count = last - first + 1
    if count > 0 and [record.originator_version for record in written] == list(range(first, last + 1)):
        stored = list(written)
    else:
        stored = g.matches.records(match.match_id, after=first - 1, upto=last) if count > 0 else []
    events = [record_form(record, viewer, match, as_of=last) for record in stored]
    if viewer.role == ORGANIZER and any(event.get("secret") is not None for event in events):
        note_organizer_read(match, "write-response", last)
    # The receipt signed for this write, stored with its newest record: a seat keeps it as proof.
    receipt = stored[-1].meta.get("receipt") if stored else None
    response = jsonify({"version": last if count > 0 else match.version, "events": events, "receipt": receipt})
    response.status_code = 201
    response.set_etag(str(last if count > 0 else match.version))
    return response


class Commands(MethodView):
    """/matches/{id}/commands"""

    def post(self, match_id: str) -> Response:
        """Play one command as the calling seat; returns the new version and the events it recorded."""
        g = gambit()
        match = g.matches.match(match_id)
        flask_g.gambit_ruleset = match.ruleset_id
        seat = seat_caller(match)
        body = json_body()
        command = parse_command(match.ruleset, body)
        key = request.headers.get("Idempotency-Key")
        if key is not None and not (0 < len(key) <= MAX_IDEMPOTENCY_KEY):
            raise Problem(
                400, "invalid_idempotency_key", f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} characters"
            )
        written: list[Any] = []
        first, last, match = g.matches.act(
            match_id, seat, command, etag_version(match.version), key, loaded=match, written=written
        )
        return recorded(match, first, last, viewer_for(match, "seat", seat), written)


class LegalCommands(MethodView):
    """/matches/{id}/legal-commands"""

    def get(self, match_id: str) -> Response:
        """Every command body the calling seat may post at the current version: listed, or formed from a choice."""
        match = gambit().matches.match(match_id)
        seat = seat_caller(match)
        response = jsonify({"version": match.version, "seat": seat, **legal_bodies(match, seat)})
        response.set_etag(str(match.version))
        return response


bp.add_url_rule("/matches/<match_id>/commands", view_func=Commands.as_view("commands"))
bp.add_url_rule("/matches/<match_id>/legal-commands", view_func=LegalCommands.as_view("legal_commands"))
