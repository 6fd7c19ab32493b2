"""A tournament's entrants: the organizer registers them and (re-)issues their invites; anyone lists their names
and seats, the organizer also their contacts; an entrant reads its own entry, and the matches it is paired to,
with its invite.

An invite is shown only in the response that creates it: the tournament keeps its hash (domain/tournament.py).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, url_for
from flask.views import MethodView
from marshmallow import Schema, validate

from domain.match import Match
from domain.tournament import Tournament
from projections.entrants import entrant_seats
from service.auth import bearer_token, organizer_of
from service.bodies import StrictString, load
from service.context import gambit, int_arg
from service.delay import public_delay, shown_match
from service.matches import each_readable
from service.problems import Problem
from service.tournaments import tournament_match_ids

bp = Blueprint("entrants", __name__)

MAX_PAGE = 500


class RegisterEntrantBody(Schema):
    """POST /tournaments/{id}/entrants."""

    name = StrictString(required=True, validate=validate.Length(min=1, max=100))
    contact = StrictString(load_default=None, validate=validate.Length(max=200))


def _shown(tournament: Tournament) -> tuple[list[Match], list[str]]:
    """The tournament's matches as a reader of a public resource may see them (held back by a spectator delay),
    and apart the ids of those whose partition does not answer (their seats cannot be listed now)."""
    return each_readable(tournament_match_ids(tournament.tournament_id), lambda m: shown_match(m, public_delay(m)))


def _with_unavailable(body: dict, unavailable: list[str]) -> Response:
    """The body, naming under `unavailable` the matches whose partition does not answer (only when there are any)."""
    if unavailable:
        body["unavailable"] = unavailable
    return jsonify(body)


def _by_organizer(tournament: Tournament) -> bool:
    """Whether the request carries the organizer key: no token is a public read; any other token is refused (403)."""
    if bearer_token() is None:
        return False
    organizer_of(tournament)
    return True


def _entrant_body(entry: dict, seats: list[dict], organizer: bool) -> dict:
    """An entrant as listed: its id, name and seats, and its contact for the organizer; never its invite."""
    body = {"entrant_id": entry["entrant_id"], "name": entry["name"], "seats": seats}
    if organizer:
        body["contact"] = entry["contact"]
    return body


class Entrants(MethodView):
    """/tournaments/{id}/entrants"""

    def post(self, tournament_id: str) -> Response:
        """Register an entrant (organizer); its invite is shown only in this response."""
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        organizer_of(tournament)
        body = load(RegisterEntrantBody())
        contact = body["contact"] or None
        entry, invite = g.matches.tournaments.register_entrant(tournament.tournament_id, body["name"], contact)
        response = jsonify(
            {
                "entrant_id": entry["entrant_id"],
                "name": entry["name"],
                "contact": entry["contact"],
                "invite": invite,
                "created_at": entry["created_at"],
            }
        )
        response.status_code = 201
        response.headers["Location"] = url_for(
            "entrants.entrant", tournament_id=tournament.tournament_id, entrant_id=entry["entrant_id"]
        )
        response.headers["Cache-Control"] = "no-store"
        return response

    def get(self, tournament_id: str) -> Response:
        """A page of the entrants in the order registered, each with its seats (public; contacts for the organizer).

        `after` counts the entrants already read (the previous page's `next_after`).
        """
        tournament = gambit().matches.tournaments.tournament(tournament_id)
        organizer = _by_organizer(tournament)
        after = int_arg("after", 0, minimum=0)
        limit = int_arg("limit", 100, minimum=1, maximum=MAX_PAGE)
        entries = list(tournament.entrants.values())
        page = entries[after : after + limit]
        shown, unavailable = _shown(tournament) if page else ([], [])
        seats = entrant_seats(shown)
        return _with_unavailable(
            {
                "tournament_id": tournament.tournament_id,
                "entrants": [_entrant_body(e, seats.get(e["entrant_id"], []), organizer) for e in page],
                "next_after": after + limit if len(entries) > after + limit else None,
            },
            unavailable,
        )


class EntrantItem(MethodView):
    """/tournaments/{id}/entrants/{entrant_id}"""

    def get(self, tournament_id: str, entrant_id: str) -> Response:
        """One entrant with its seats (public; its contact for the organizer)."""
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        organizer = _by_organizer(tournament)
        entry = g.matches.tournaments.entrant(tournament, entrant_id)
        shown, unavailable = _shown(tournament)
        seats = entrant_seats(shown).get(entry["entrant_id"], [])
        return _with_unavailable(
            {"tournament_id": tournament.tournament_id, **_entrant_body(entry, seats, organizer)}, unavailable
        )


class Invite(MethodView):
    """/tournaments/{id}/entrants/{entrant_id}/invite"""

    def post(self, tournament_id: str, entrant_id: str) -> Response:
        """Give an entrant a new invite (organizer); the one before stops working. Shown only in this response."""
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        organizer_of(tournament)
        invite = g.matches.tournaments.reissue_invite(tournament.tournament_id, entrant_id)
        response = jsonify({"entrant_id": entrant_id, "invite": invite})
        response.status_code = 201
        response.headers["Cache-Control"] = "no-store"
        return response


class Entry(MethodView):
    """/tournaments/{id}/entry"""

    def get(self, tournament_id: str) -> Response:
        """The entrant whose invite is the bearer token, and the matches it is paired to or has joined."""
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        invite = bearer_token()
        if invite is None:
            raise Problem(401, "credentials_required", "this request needs an invite (Authorization: Bearer <invite>)")
        entry = g.matches.tournaments.entrant_by_invite(tournament, invite)
        if entry is None:
            raise Problem(401, "invalid_credentials", "the token is not a current invite of this tournament")
        readable, unavailable = _shown(tournament)
        shown = {m.match_id: m for m in readable}
        matches = [
            {
                "match_id": seat["match_id"],
                "ruleset": shown[seat["match_id"]].ruleset_id,
                "seat": seat["seat"],
                "status": shown[seat["match_id"]].status,
                "joined": seat["joined"],
            }
            for seat in entrant_seats(shown.values()).get(entry["entrant_id"], [])
        ]
        return _with_unavailable(
            {
                "tournament_id": tournament.tournament_id,
                "tournament_name": tournament.name,
                "entrant": {"entrant_id": entry["entrant_id"], "name": entry["name"]},
                "matches": matches,
            },
            unavailable,
        )


bp.add_url_rule("/tournaments/<tournament_id>/entrants", view_func=Entrants.as_view("entrants"))
bp.add_url_rule("/tournaments/<tournament_id>/entrants/<entrant_id>", view_func=EntrantItem.as_view("entrant"))
bp.add_url_rule("/tournaments/<tournament_id>/entrants/<entrant_id>/invite", view_func=Invite.as_view("invite"))
bp.add_url_rule("/tournaments/<tournament_id>/entry", view_func=Entry.as_view("entry"))
