"""Who is calling: a seat (token from joining), the match's tournament organizer, or a spectator.

Every organizer read of a match whose secrets are not yet public goes into the tournament's
access trail (who, what, when) before the response is built.
"""

from __future__ import annotations

from flask import request

from domain.application import MatchService
from domain.match import Match
from domain.ruleset import ORGANIZER, SPECTATOR, Viewer
from domain.tournament import Tournament
from projections.records import viewer_for
from service.context import gambit
from service.problems import Problem


def bearer_token() -> str | None:
    """The bearer token of the request, if it sent one; 401 for a malformed header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(401, "invalid_credentials", "use 'Authorization: Bearer <token>'")
    return token.strip()


def organizer_id(tournament: Tournament) -> str:
    """How the access trail names the organizer: a short digest of the key's hash, never the key."""
    return "organizer:" + tournament.organizer_key_hash[:12]


def caller(match: Match, resource: str | None = None) -> Viewer:
    """The viewer this request is for; a token that is sent must be valid (401 otherwise).

    `resource` names what is read, for the organizer access trail.
    """
    token = bearer_token()
    if token is None:
        return viewer_for(match, SPECTATOR)
    seat = MatchService.authenticate(match, token)
    if seat is not None:
        return viewer_for(match, "seat", seat)
    if match.tournament_id is not None:
        tournaments = gambit().matches.tournaments
        tournament = tournaments.tournament(match.tournament_id)
        if tournaments.is_organizer(tournament, token):
            if resource is not None:
                note_organizer_read(match, resource)
            return viewer_for(match, ORGANIZER)
    raise Problem(401, "invalid_credentials", "the token is not valid for this match")


def note_organizer_read(match: Match, resource: str, version: int | None = None) -> None:
    """Put an organizer's read of a running match in its tournament's access trail (nothing once it has finished).

    Called for every delivery that may carry a secret not yet public: a paged read, each batch of
    a stream, a write response in the organizer's form.
    """
    if match.status == "finished" or match.tournament_id is None:
        return
    tournaments = gambit().matches.tournaments
    tournament = tournaments.tournament(match.tournament_id)
    tournaments.record_secret_read(
        tournament.tournament_id,
        organizer_id(tournament),
        match.match_id,
        resource,
        match.version if version is None else version,
    )


def seat_caller(match: Match) -> str:
    """The seat making this request; 401 without a token, 403 for an organizer (organizers do not play)."""
    viewer = caller(match)
    if viewer.role == ORGANIZER:
        raise Problem(403, "seat_required", "organizers cannot act for a seat")
    if viewer.seat is None:
        raise Problem(401, "credentials_required", "this request needs a seat token (Authorization: Bearer <token>)")
    return viewer.seat


def organizer_of(tournament: Tournament) -> str:
    """The organizer making this request; 401 without a token, 403 with one that is not the key."""
    token = bearer_token()
    if token is None:
        raise Problem(401, "credentials_required", "this request needs the organizer key")
    if not gambit().matches.tournaments.is_organizer(tournament, token):
        raise Problem(403, "not_organizer", "only the tournament's organizer may do this")
    return organizer_id(tournament)
