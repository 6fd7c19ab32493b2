"""Who is calling: a seat (bearer token from joining), or an anonymous spectator."""

from __future__ import annotations

from flask import request

from domain.application import MatchApp
from domain.match import Match
from domain.ruleset import SPECTATOR, Viewer
from projections.records import viewer_for
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


def caller(match: Match) -> Viewer:
    """The viewer this request is for; a token that is sent must be valid (401 otherwise)."""
    token = bearer_token()
    if token is None:
        return viewer_for(match, SPECTATOR)
    seat = MatchApp.authenticate(match, token)
    if seat is None:
        raise Problem(401, "invalid_credentials", "the token is not valid for this match")
    return viewer_for(match, "seat", seat)


def seat_caller(match: Match) -> str:
    """The seat making this request; 401 without a valid seat token."""
    viewer = caller(match)
    if viewer.seat is None:
        raise Problem(401, "credentials_required", "this request needs a seat token (Authorization: Bearer <token>)")
    return viewer.seat
