"""The disputes resource of a match: filing against a bluff call, and the organizer's ruling."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from domain.match import DECISIONS
from domain.ruleset import ORGANIZER
from projections.records import viewer_for
from service.auth import bearer_token, caller, organizer_of
from service.bodies import StrictString, load
from service.commands import recorded
from service.context import gambit
from service.problems import Problem

bp = Blueprint("disputes", __name__)


class FileDisputeBody(Schema):
    """POST /matches/{id}/disputes."""

    call_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    reason = StrictString(required=True, validate=validate.Length(min=1, max=2000))


class RulingBody(Schema):
    """POST /matches/{id}/disputes/{n}/ruling."""

    decision = StrictString(required=True, validate=validate.OneOf(DECISIONS))
    note = StrictString(load_default="", validate=validate.Length(max=2000))
    amended_outcome = fields.Dict(keys=fields.String(), load_default=None, allow_none=True)


class Disputes(MethodView):
    """/matches/{id}/disputes"""

    def get(self, match_id: str) -> Response:
        """The disputes of a match (public: they are public records)."""
        match = gambit().matches.match(match_id)
        return jsonify({"match_id": match.match_id, "disputes": list(match.disputes.values())})

    def post(self, match_id: str) -> Response:
        """File a dispute against a bluff call, as a seat of the match or its organizer."""
        g = gambit()
        match = g.matches.match(match_id)
        if bearer_token() is None:
            raise Problem(401, "credentials_required", "a seat token or the organizer key is needed to dispute")
        viewer = caller(match)
        filed_by = viewer.seat if viewer.seat is not None else ORGANIZER
        body = load(FileDisputeBody())
        first = match.version + 1
        number, match = g.matches.file_dispute(match_id, body["call_version"], body["reason"], filed_by)
        response = recorded(match, first, match.version, viewer_for(match, viewer.role, viewer.seat))
        response.headers["Location"] = f"/matches/{match.match_id}/disputes/{number}"
        return response


class Ruling(MethodView):
    """/matches/{id}/disputes/{n}/ruling"""

    def post(self, match_id: str, number: int) -> Response:
        """The organizer rules: upheld or overturned, with a note and optionally an amended outcome."""
        g = gambit()
        match = g.matches.match(match_id)
        if bearer_token() is None:
            raise Problem(401, "credentials_required", "ruling on a dispute needs the organizer key")
        if match.tournament_id is None:
            raise Problem(403, "not_organizer", "only a tournament's organizer may rule, and this match has none")
        organizer_of(g.matches.tournament(match.tournament_id))
        body = load(RulingBody())
        first = match.version + 1
        match = g.matches.rule_dispute(match_id, number, body["decision"], body["note"], body["amended_outcome"])
        return recorded(match, first, match.version, viewer_for(match, ORGANIZER))


bp.add_url_rule("/matches/<match_id>/disputes", view_func=Disputes.as_view("disputes"))
bp.add_url_rule("/matches/<match_id>/disputes/<int:number>/ruling", view_func=Ruling.as_view("ruling"))
