"""Serving the spectator delay (projections/delay.py): who is held back, and how a held-back response says so.

A held-back response carries `Gambit-Spectator-Delay: <records>`; views and summaries also carry
`"delay": {"records", "as_of"}`. Nothing past `as_of` reaches a held-back caller: later versions
asked for by number are refused with 400 `invalid_parameter`, naming only versions it may see.
"""

from __future__ import annotations

from typing import overload

from flask import Response, request

from domain.application import MatchService
from domain.errors import TournamentNotFound
from domain.match import Match
from domain.ruleset import ORGANIZER, SPECTATOR, Viewer
from projections.delay import SpectatorDelay, shown_as_of, spectator_delay
from projections.records import viewer_for
from service.context import gambit, int_arg
from service.problems import Problem

HEADER = "Gambit-Spectator-Delay"


def delay_for(match: Match, viewer: Viewer) -> SpectatorDelay | None:
    """How far this viewer is held behind the match as loaded (its latest version); None: not at all."""
    return spectator_delay(gambit().matches, match, viewer)


def shown_match(match: Match, delay: SpectatorDelay | None) -> Match:
    """The match as of the version the caller may see: the latest one, or the delayed one."""
    return shown_as_of(gambit().matches, match, delay)


def newest_shown(match: Match, delay: SpectatorDelay | None) -> int:
    """The newest version the caller may see."""
    return match.version if delay is None else delay.as_of


def mark(response: Response, delay: SpectatorDelay | None) -> Response:
    """Tell the client a response is held back (`Gambit-Spectator-Delay: <records>`); nothing when it is not."""
    if delay is not None:
        response.headers[HEADER] = str(delay.records)
    return response


# With a default the version always has a value; without one, None stands for "absent".
@overload
def version_arg(name: str, default: int, minimum: int, newest: int, delay: SpectatorDelay | None) -> int: ...
@overload
def version_arg(name: str, default: None, minimum: int, newest: int, delay: SpectatorDelay | None) -> int | None: ...
def version_arg(name: str, default: int | None, minimum: int, newest: int, delay: SpectatorDelay | None) -> int | None:
    """A version query parameter from `minimum` to the newest version the caller may see; 400 otherwise."""
    if delay is None:
        return int_arg(name, default, minimum=minimum, maximum=newest)
    value = int_arg(name, default, minimum=minimum)
    if value is not None and value > newest:
        raise Problem(
            400,
            "invalid_parameter",
            f"'{name}' must be between {minimum} and {newest}: spectators see this match "
            f"{delay.records} records behind while it runs",
            parameter=name,
        )
    return value


def public_viewer(match: Match) -> Viewer:
    """The caller as a viewer of a resource anyone may read (summaries, the match and bluff-call indexes).

    Its seat or the organizer when the request's bearer token is theirs, otherwise a spectator. A
    token that is not this match's is not refused: these resources list many matches, and hold no
    secret of any, so such a caller simply reads them as a spectator (and so is held back).
    """
    token = _lenient_bearer_token()
    if token is None:
        return viewer_for(match, SPECTATOR)
    seat = MatchService.authenticate(match, token)
    if seat is not None:
        return viewer_for(match, "seat", seat)
    if match.tournament_id is not None:
        tournaments = gambit().matches.tournaments
        try:
            tournament = tournaments.tournament(match.tournament_id)
        except TournamentNotFound:
            return viewer_for(match, SPECTATOR)
        if tournaments.is_organizer(tournament, token):
            return viewer_for(match, ORGANIZER)
    return viewer_for(match, SPECTATOR)


def public_delay(match: Match) -> SpectatorDelay | None:
    """How far the caller of a resource anyone may read is held behind this match (see `public_viewer`)."""
    if match.options.spectator_delay == 0 or match.status == "finished":
        return None  # no token to check: nobody is held back
    return delay_for(match, public_viewer(match))


def _lenient_bearer_token() -> str | None:
    """The request's bearer token, or None when it sent none or something else in `Authorization`."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
