"""The matches resource: create, list, read one; and the seats sub-resource (joining)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, url_for
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from domain.errors import TournamentNotFound, UnknownTournament
from projections.views import summary
from service.auth import organizer_of
from service.bodies import StrictString, load
from service.context import choice_arg, gambit, int_arg, text_arg

bp = Blueprint("matches", __name__)

MAX_PAGE = 200


class CreateMatchBody(Schema):
    """POST /matches."""

    ruleset = StrictString(required=True, validate=validate.Length(min=1, max=64))
    config = fields.Dict(keys=fields.String(), load_default=dict)
    tournament_id = StrictString(allow_none=True, load_default=None, validate=validate.Length(max=64))


class JoinBody(Schema):
    """POST /matches/{id}/seats."""

    name = StrictString(required=True, validate=validate.Length(min=1, max=64))
    seat = StrictString(allow_none=True, load_default=None, validate=validate.Length(max=32))
    client_seed = StrictString(
        load_default="", validate=validate.Regexp(r"^(?:[0-9a-fA-F]{2}){0,64}$", error="must be hex, at most 64 bytes")
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)


def full_summary(match) -> dict:
    """The summary, with the signed receipt once the match has finished."""
    body = summary(match)
    if match.status == "finished":
        body["receipt"] = match.receipt
    return body


def summary_response(match, status: int = 200, headers: dict | None = None) -> Response:
    """A match summary with its version as the ETag."""
    response = jsonify(full_summary(match))
    response.status_code = status
    response.set_etag(str(match.version))
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


class MatchCollection(MethodView):
    """/matches"""

    def post(self) -> Response:
        """Create a match of a ruleset; the config is validated and echoed with defaults."""
        body = load(CreateMatchBody())
        g = gambit()
        if body["tournament_id"] is not None:
            # Only the organizer adds matches to a tournament: its standings and dispute queue are theirs.
            try:
                tournament = g.matches.tournament(body["tournament_id"])
            except TournamentNotFound:
                raise UnknownTournament(f"no tournament {body['tournament_id']!r}") from None
            organizer_of(tournament)
        match = g.matches.create_match(body["ruleset"], body["config"], body["tournament_id"])
        return summary_response(match, 201, {"Location": url_for("matches.match", match_id=match.match_id)})

    def get(self) -> Response:
        """List matches, newest first, filtered by status, ruleset and tournament."""
        g = gambit()
        ids, cursor = g.index.matches(
            status=choice_arg("status", ("open", "active", "finished")),
            ruleset=text_arg("ruleset"),
            tournament_id=text_arg("tournament_id"),
            after=int_arg("after", None, minimum=0),
            limit=int_arg("limit", 50, minimum=1, maximum=MAX_PAGE),
        )
        return jsonify(
            {
                "matches": [full_summary(g.matches.match(i)) for i in ids],
                "next": None if cursor is None else str(cursor),
            }
        )


class MatchItem(MethodView):
    """/matches/{id}"""

    def get(self, match_id: str) -> Response:
        """The match summary."""
        return summary_response(gambit().matches.match(match_id))


class Seats(MethodView):
    """/matches/{id}/seats"""

    def post(self, match_id: str) -> Response:
        """Join a match; the bearer token is shown only in this response."""
        g = gambit()
        g.matches.match(match_id)  # an unknown match is a 404 whatever the body says
        body = load(JoinBody())
        seat, token, match = g.matches.join(
            match_id, body["name"], body["seat"], body["client_seed"].lower(), body["options"]
        )
        response = jsonify(
            {
                "seat": seat,
                "token": token,
                "match_id": match.match_id,
                "version": match.version,
                "receipt": match.receipt,
            }
        )
        response.status_code = 201
        response.headers["Cache-Control"] = "no-store"
        return response


bp.add_url_rule("/matches", view_func=MatchCollection.as_view("matches"))
bp.add_url_rule("/matches/<match_id>", view_func=MatchItem.as_view("match"))
bp.add_url_rule("/matches/<match_id>/seats", view_func=Seats.as_view("seats"))
