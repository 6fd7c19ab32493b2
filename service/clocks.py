"""A match's clock: read it (anyone), and the organizer's pause, resume and added time (docs/clocks.md).

Every adjustment is a record of the match (`ClockPaused`, `ClockResumed`, `TimeAdded`) with the
organizer's note; a pause may name the dispute that prompted it. Like every touch of a match, each
request first records the expiries already due.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from domain.clock import MAX_ADDED_SECONDS, ClockError
from domain.match import Match
from domain.record_bounds import MAX_NOTE
from domain.ruleset import ORGANIZER
from projections.clocks import match_clock
from projections.records import viewer_for
from service.auth import bearer_token, organizer_of
from service.bodies import StrictString, load
from service.commands import recorded
from service.context import gambit
from service.delay import mark, public_delay, shown_match
from service.problems import Problem, problem_response

bp = Blueprint("clocks", __name__)


class PauseBody(Schema):
    """POST /matches/{id}/clock/pause."""

    note = StrictString(load_default="", validate=validate.Length(max=MAX_NOTE))
    dispute = fields.Integer(load_default=None, allow_none=True, strict=True, validate=validate.Range(min=1))


class ResumeBody(Schema):
    """POST /matches/{id}/clock/resume."""

    note = StrictString(load_default="", validate=validate.Length(max=MAX_NOTE))


class AddTimeBody(Schema):
    """POST /matches/{id}/clock/add-time."""

    seat = StrictString(required=True, validate=validate.Length(min=1, max=32))
    seconds = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=MAX_ADDED_SECONDS))
    note = StrictString(load_default="", validate=validate.Length(max=MAX_NOTE))


def _as_organizer(match_id: str) -> Match:
    """The match, once the caller has shown its tournament's organizer key (401/403 otherwise)."""
    g = gambit()
    match = g.matches.match(match_id)
    if bearer_token() is None:
        raise Problem(401, "credentials_required", "adjusting a clock needs the organizer key")
    if match.tournament_id is None:
        raise Problem(403, "not_organizer", "only a tournament's organizer may adjust a clock, and this match has none")
    organizer_of(g.matches.tournaments.tournament(match.tournament_id))
    return match


class Clock(MethodView):
    """/matches/{id}/clock"""

    def get(self, match_id: str) -> Response:
        """The clock as of the match's version (null when untimed): public, as of the delayed version for a
        spectator held back by a spectator delay, like the summary."""
        latest = gambit().matches.match(match_id)
        delay = public_delay(latest)
        match = shown_match(latest, delay)
        response = jsonify({"match_id": match.match_id, "version": match.version, "clock": match_clock(match)})
        response.set_etag(str(match.version))
        return mark(response, delay)


class Pause(MethodView):
    """/matches/{id}/clock/pause"""

    def post(self, match_id: str) -> Response:
        """The organizer pauses every clock of the match (optionally naming the dispute that prompted it)."""
        _as_organizer(match_id)
        body = load(PauseBody())
        written = gambit().matches.clocks.pause_clock(match_id, body["note"], body["dispute"])
        return recorded(written, viewer_for(written.match, ORGANIZER))


class Resume(MethodView):
    """/matches/{id}/clock/resume"""

    def post(self, match_id: str) -> Response:
        """The organizer starts the clocks again."""
        _as_organizer(match_id)
        body = load(ResumeBody())
        written = gambit().matches.clocks.resume_clock(match_id, body["note"])
        return recorded(written, viewer_for(written.match, ORGANIZER))


class AddTime(MethodView):
    """/matches/{id}/clock/add-time"""

    def post(self, match_id: str) -> Response:
        """The organizer adds whole seconds to one seat's clock."""
        _as_organizer(match_id)
        body = load(AddTimeBody())
        written = gambit().matches.clocks.add_time(match_id, body["seat"], body["seconds"], body["note"])
        return recorded(written, viewer_for(written.match, ORGANIZER))


@bp.app_errorhandler(ClockError)
def _clock_error(exc: ClockError) -> Response:
    """A refused clock request or a late command: problem+json with the clock's stable code (409, or 422)."""
    return problem_response(Problem(exc.status, exc.code, exc.detail, **exc.extra))


bp.add_url_rule("/matches/<match_id>/clock", view_func=Clock.as_view("clock"))
bp.add_url_rule("/matches/<match_id>/clock/pause", view_func=Pause.as_view("pause"))
bp.add_url_rule("/matches/<match_id>/clock/resume", view_func=Resume.as_view("resume"))
bp.add_url_rule("/matches/<match_id>/clock/add-time", view_func=AddTime.as_view("add_time"))
