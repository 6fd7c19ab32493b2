"""The events resource: the record log in the caller's form, paged or streamed as SSE."""

from __future__ import annotations

import time
from typing import Iterator

from flask import Blueprint, Response, jsonify, request, stream_with_context
from flask.views import MethodView

from projections.records import record_form, viewer_for
from projections.views import as_json, opened_forms, records_page
from service.auth import caller
from service.context import gambit, int_arg

bp = Blueprint("events", __name__)

MAX_PAGE = 500
STREAM_SECONDS = 55.0
POLL_SECONDS = 0.25
HEARTBEAT_SECONDS = 15.0


class Events(MethodView):
    """/matches/{id}/events"""

    def get(self, match_id: str) -> Response:
        """Records after a version, oldest first; `Accept: text/event-stream` follows new ones live."""
        g = gambit()
        match = g.matches.match(match_id)
        viewer = caller(match, "events")
        after = int_arg("after", 0, minimum=0)
        if request.accept_mimetypes.best == "text/event-stream":
            last_id = request.headers.get("Last-Event-ID", "")
            start = int(last_id) if last_id.isdigit() and len(last_id) <= 18 else after
            return _stream(match, viewer, start)
        limit = int_arg("limit", 100, minimum=1, maximum=MAX_PAGE)
        return jsonify(records_page(g.matches, match, viewer, after, limit))


def _stream(first_match, first_viewer, after: int) -> Response:
    """Server-Sent Events: each new record in the caller's form, until the match ends or time is up.

    The viewer is re-derived as the match moves on, so a spectator receives secrets only once
    the match has finished or a reveal has opened them, exactly as the paged log would give them.
    """
    g = gambit()
    match_id = first_match.match_id

    def frames() -> Iterator[str]:
        position = after
        started = last_beat = time.monotonic()
        yield "retry: 2000\n\n"
        match = first_match
        while time.monotonic() - started < STREAM_SECONDS:
            # An idle follower costs one small select per poll; the match is loaded only when
            # records arrive, after them, so a finish seen here reveals only what it may.
            batch = g.matches.records(match_id, after=position, limit=MAX_PAGE)
            if batch:
                match = g.matches.match(match_id)
                viewer = viewer_for(match, first_viewer.role, first_viewer.seat)
                for stored in batch:
                    position = stored.originator_version
                    form = record_form(stored, viewer, match, as_of=match.version)
                    yield f"id: {position}\nevent: record\ndata: {as_json(form)}\n\n"
                    # The records a reveal opens went by earlier without their secrets: each is sent
                    # again, now opened, as an `opened` frame (no id: resuming stays at the reveal).
                    for opened in opened_forms(g.matches, match, stored, viewer, as_of=match.version):
                        yield f"event: opened\ndata: {as_json(opened)}\n\n"
            if match.status == "finished" and position >= match.version:
                yield "event: end\ndata: {}\n\n"
                return
            if time.monotonic() - last_beat > HEARTBEAT_SECONDS:
                last_beat = time.monotonic()
                yield ": keep-alive\n\n"
            if not batch:
                time.sleep(POLL_SECONDS)

    response = Response(stream_with_context(frames()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


bp.add_url_rule("/matches/<match_id>/events", view_func=Events.as_view("events"))
