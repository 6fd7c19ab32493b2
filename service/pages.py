"""The organizer's and entrants' pages: `GET /organize/<tid>`, `GET /ruling/<match_id>/<number>`, `GET /entry/<tid>`.

Like the watch pages (service/watch.py) they are static HTML with plain-JS modules under
`service/static/`, served with the same strict security headers, and they read only the public
REST resources. A credential (the organizer key, an entrant's invite) is taken from the URL
*fragment* (`#key=…`, `#invite=…`), which browsers never send to the server, kept in the tab's
session storage and sent only as `Authorization: Bearer`. An unknown tournament or match answers
the not-found page with status 404.
"""

from __future__ import annotations

from flask import Blueprint, Response

from domain.errors import MatchNotFound, TournamentNotFound
from service.context import gambit
from service.watch import page

bp = Blueprint("pages", __name__)


def _tournament_page(tournament_id: str, name: str) -> Response:
    """A tournament's page, or the not-found page when there is no such tournament."""
    try:
        gambit().matches.tournaments.tournament(tournament_id)
    except TournamentNotFound:
        return page("not-found.html", 404)
    return page(name)


@bp.get("/organize/<tournament_id>")
def organize(tournament_id: str) -> Response:
    """The organizer's desk of a tournament (the key is given on the page, never in the URL's path or query)."""
    return _tournament_page(tournament_id, "organize.html")


@bp.get("/entry/<tournament_id>")
def entry(tournament_id: str) -> Response:
    """An entrant's page: the matches its invite (in the fragment) is paired to, each with a link to take the seat."""
    return _tournament_page(tournament_id, "entry.html")


@bp.get("/ruling/<match_id>/<number>")
def ruling(match_id: str, number: str) -> Response:
    """The printable ruling of a dispute of a match (the page says so when the dispute is not ruled, or not visible yet).

    Only the match is looked up here: whether a dispute numbered so exists is for the page to ask
    as its viewer, so that the page's status cannot tell a delayed spectator of a dispute filed later.
    """
    if not number.isdecimal() or int(number) < 1:
        return page("not-found.html", 404)
    try:
        gambit().matches.match(match_id)
    except MatchNotFound:
        return page("not-found.html", 404)
    return page("ruling.html")
