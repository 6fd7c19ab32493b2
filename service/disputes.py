"""The disputes resource of a match: filing against a bluff call, and the organizer's ruling."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.views import MethodView
from marshmallow import INCLUDE, Schema, fields, validate

from domain.record_bounds import DECISIONS, MAX_NOTE, MAX_OUTCOME_REASON, MAX_REASON, MAX_WINNERS
from domain.ruleset import ORGANIZER
from projections.records import viewer_for
from service.auth import bearer_token, caller, organizer_of
from service.bodies import StrictBoolean, StrictString, load
from service.commands import recorded
from service.context import gambit, int_arg
from service.delay import mark, public_delay, shown_match
from service.problems import Problem

bp = Blueprint("disputes", __name__)

MAX_PAGE = 500


class FileDisputeBody(Schema):
    """POST /matches/{id}/disputes."""

    call_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    reason = StrictString(required=True, validate=validate.Length(min=1, max=MAX_REASON))
    # The organizer may stop a timed match's clocks while the dispute is looked at (same write).
    pause_clock = StrictBoolean(load_default=False)


class AmendedOutcome(Schema):
    """The outcome a ruling puts in place: its winners (seats of the match), a reason, any further facts."""

    class Meta:
        # Rulesets' outcomes carry their own facts (scores, hands); an amendment may restate them.
        unknown = INCLUDE

    winners = fields.List(
        StrictString(validate=validate.Length(min=1, max=64)), required=True, validate=validate.Length(max=MAX_WINNERS)
    )
    reason = StrictString(validate=validate.Length(min=1, max=MAX_OUTCOME_REASON))


class RulingBody(Schema):
    """POST /matches/{id}/disputes/{n}/ruling."""

    decision = StrictString(required=True, validate=validate.OneOf(DECISIONS))
    note = StrictString(load_default="", validate=validate.Length(max=MAX_NOTE))
    amended_outcome = fields.Nested(AmendedOutcome, load_default=None, allow_none=True)
    # Start a paused clock again with the ruling (same write).
    resume_clock = StrictBoolean(load_default=False)


class Disputes(MethodView):
    """/matches/{id}/disputes"""

    def get(self, match_id: str) -> Response:
        """The disputes of a match, by number, a page at a time (public: they are public records)."""
        latest = gambit().matches.match(match_id)
        delay = public_delay(latest)
        match = shown_match(latest, delay)
        after = int_arg("after", 0, minimum=0)
        limit = int_arg("limit", 100, minimum=1, maximum=MAX_PAGE)
        later = [d for d in match.disputes.values() if d["dispute"] > after]
        page = later[:limit]
        body = {
            "match_id": match.match_id,
            "disputes": page,
            "next_after": page[-1]["dispute"] if len(later) > limit else None,
        }
        return mark(jsonify(body), delay)

    def post(self, match_id: str) -> Response:
        """File a dispute against a bluff call, as a seat of the match or its organizer."""
        g = gambit()
        match = g.matches.match(match_id)
        if bearer_token() is None:
            raise Problem(401, "credentials_required", "a seat token or the organizer key is needed to dispute")
        viewer = caller(match)
        filed_by = viewer.seat if viewer.seat is not None else ORGANIZER
        body = load(FileDisputeBody())
        if body["pause_clock"] and filed_by != ORGANIZER:
            raise Problem(403, "not_organizer", "only the match's organizer may pause its clock")
        number, written = g.matches.file_dispute(
            match_id, body["call_version"], body["reason"], filed_by, pause_clock=body["pause_clock"]
        )
        response = recorded(written, viewer_for(written.match, viewer.role, viewer.seat))
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
        organizer_of(g.matches.tournaments.tournament(match.tournament_id))
        body = load(RulingBody())
        written = g.matches.rule_dispute(
            match_id, number, body["decision"], body["note"], body["amended_outcome"], resume_clock=body["resume_clock"]
        )
        return recorded(written, viewer_for(written.match, ORGANIZER))


bp.add_url_rule("/matches/<match_id>/disputes", view_func=Disputes.as_view("disputes"))
bp.add_url_rule("/matches/<match_id>/disputes/<int:number>/ruling", view_func=Ruling.as_view("ruling"))
