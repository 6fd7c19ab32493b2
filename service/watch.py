"""The spectator web viewer: `GET /` (recent and live matches) and `GET /watch/<match_id>`.

Both pages are static HTML with plain-JS modules under `service/static/` (no build step, no
CDN: the page works offline). The pages use the public REST resources only — the summary,
`/events` (also as Server-Sent Events), `/replay`, `/view`, `/audit/bluffs`, `/rulesets/{id}`, and for
a seat `/legal-commands`, `POST /seats` and `POST /commands` — so a page can never show or do more
than the API allows the same caller.

Viewing as a seat or organizer: the token is given in the URL *fragment* (`#token=...`),
which browsers never send to the server (so it never reaches an access log or a Referer),
or typed into the page's form; the scripts send it only as `Authorization: Bearer`.
The pages carry a strict Content-Security-Policy (scripts and connections to this origin
only, no inline script) and `Referrer-Policy: no-referrer`.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

from domain.errors import MatchNotFound
from service.context import gambit

bp = Blueprint("watch", __name__, static_folder="static", static_url_path="/watch-assets")

STATIC = Path(__file__).parent / "static"

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def page(name: str, status: int = 200) -> Response:
    """One of the service's HTML pages, with the security headers."""
    response = send_from_directory(STATIC, name, mimetype="text/html", max_age=0)
    response.status_code = status
    for key, value in SECURITY_HEADERS.items():
        response.headers[key] = value
    return response


@bp.get("/")
def index() -> Response:
    """The home page: live matches and recent ones, each linking to its watch page."""
    return page("index.html")


@bp.get("/watch/<match_id>")
def watch(match_id: str) -> Response:
    """The viewer of one match (404 page when there is no such match)."""
    try:
        gambit().matches.match(match_id)
    except MatchNotFound:
        return page("not-found.html", 404)
    return page("watch.html")
