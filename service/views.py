"""Reading a match: the view at any version, and replay frames for scrubbing."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request
from flask.views import MethodView

from projections.views import replay, view_of
from service.auth import caller
from service.context import gambit
from service.delay import delay_for, mark, newest_shown, shown_match, version_arg

bp = Blueprint("views", __name__)


class View(MethodView):
    """/matches/{id}/view"""

    def get(self, match_id: str) -> Response:
        """The match as the caller may see it, now or at `?at=<version>` (held back for a delayed spectator)."""
        g = gambit()
        latest = g.matches.match(match_id)
        viewer = caller(latest, "view")
        delay = delay_for(latest, viewer)
        at = version_arg("at", None, 1, newest_shown(latest, delay), delay)
        if at is None:
            match = shown_match(latest, delay)
        else:
            match = latest if at == latest.version else g.matches.match(match_id, version=at)
        body = view_of(match, viewer)
        if delay is not None:
            body["delay"] = delay.body()
        response = mark(jsonify(body), delay)
        response.set_etag(str(match.version))
        response.headers["Vary"] = "Authorization"
        # A past version's view changes when the match ends (its secrets become public) while
        # its version does not, so only the latest view answers If-None-Match with 304.
        if at is None:
            response.make_conditional(request)  # in place: it turns the response into a 304 when it matches
        return response


class Replay(MethodView):
    """/matches/{id}/replay"""

    def get(self, match_id: str) -> Response:
        """Frames (record + view) from `from` to `to`, at most 500 a page (`next_from` continues)."""
        g = gambit()
        latest = g.matches.match(match_id)
        viewer = caller(latest, "replay")
        delay = delay_for(latest, viewer)
        newest = newest_shown(latest, delay)
        first = version_arg("from", 1, 1, newest, delay)
        last = version_arg("to", newest, first, newest, delay)
        body = replay(g.matches, match_id, viewer, first, last)
        body["match_id"] = latest.match_id
        return mark(jsonify(body), delay)


bp.add_url_rule("/matches/<match_id>/view", view_func=View.as_view("view"))
bp.add_url_rule("/matches/<match_id>/replay", view_func=Replay.as_view("replay"))
