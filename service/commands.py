"""The commands resource (playing) and the legal-commands a seat may post now."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request
from flask.views import MethodView

from domain.record_bounds import MAX_IDEMPOTENCY_KEY
from domain.ruleset import ORGANIZER, Viewer
from domain.store import Written
from projections.records import record_form, viewer_for
from projections.views import legal_bodies
from service.auth import note_organizer_read, seat_caller
from service.bodies import json_body, parse_command
from service.context import etag_version, gambit
from service.metrics import count_as_command
from service.problems import Problem

bp = Blueprint("commands", __name__)

SIGNATURE_HEADER = "Gambit-Signature"


def recorded(written: Written, viewer: Viewer) -> Response:
    """201 with the records a write stored (versions first..last) in the viewer's form, and the receipt signed for it.

    A retried Idempotency-Key is answered from the records and receipt of its first answer (the
    match service reads them back), so it gets exactly that answer: the same body and the same ETag.
    """
    match, last = written.match, written.last
    events = [record_form(record, viewer, match, as_of=last) for record in written.records]
    if viewer.role == ORGANIZER and any(event.get("secret") is not None for event in events):
        note_organizer_read(match, "write-response", last)
    version = last if written.records else match.version
    # The receipt signed for this write, stored with its newest record: a seat keeps it as proof.
    response = jsonify({"version": version, "events": events, "receipt": written.receipt})
    response.status_code = 201
    response.set_etag(str(version))
    return response


class Commands(MethodView):
    """/matches/{id}/commands"""

    def post(self, match_id: str) -> Response:
        """Play one command as the calling seat; returns the new version and the events it recorded."""
        g = gambit()
        match = g.matches.match(match_id)
        count_as_command(match.ruleset_id)
        seat = seat_caller(match)
        body = json_body()
        command = parse_command(match.ruleset, body)
        key = request.headers.get("Idempotency-Key")
        if key is not None and not (0 < len(key) <= MAX_IDEMPOTENCY_KEY):
            raise Problem(
                400, "invalid_idempotency_key", f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} characters"
            )
        # A keyed seat's signature over the match, the version decided on and this body (docs/verification.md).
        signature = request.headers.get(SIGNATURE_HEADER)
        written = g.matches.act(
            match_id, seat, command, etag_version(match.version), key, loaded=match, sent=body, signature=signature
        )
        return recorded(written, viewer_for(written.match, "seat", seat))


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
