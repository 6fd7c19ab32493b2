"""The events resource: the record log in the caller's form, paged or streamed as SSE."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, jsonify, request, stream_with_context
from flask.views import MethodView

from domain.match import Match
from domain.ruleset import ORGANIZER, SPECTATOR, Viewer
from projections.records import record_form, viewer_for
from projections.views import as_json, opened_forms, records_page
from service.auth import caller, note_organizer_read
from service.context import Gambit, bounded_int, gambit, int_arg
from service.delay import delay_for, mark

bp = Blueprint("events", __name__)

MAX_PAGE = 500
STREAM_SECONDS = 55.0
HEARTBEAT_SECONDS = 15.0


class Events(MethodView):
    """/matches/{id}/events"""

    def get(self, match_id: str) -> Response:
        """Records after a version, oldest first; `Accept: text/event-stream` follows new ones live.

        A held-back spectator gets records up to its delayed version only, live ones included.
        """
        g = gambit()
        match = g.matches.match(match_id)
        viewer = caller(match, "events")
        delay = delay_for(match, viewer)
        after = int_arg("after", 0, minimum=0)
        if request.accept_mimetypes.best == "text/event-stream":
            last_id = request.headers.get("Last-Event-ID", "")
            resumed = bounded_int(last_id)
            start = resumed if resumed is not None and resumed >= 0 else after
            return mark(_stream(match, viewer, start), delay)
        limit = int_arg("limit", 100, minimum=1, maximum=MAX_PAGE)
        upto = None if delay is None else delay.as_of
        return mark(jsonify(records_page(g.matches, match, viewer, after, limit, upto)), delay)


def _stream(first_match: Match, first_viewer: Viewer, after: int) -> Response:
    """Server-Sent Events: each new record in the caller's form, until the match ends or time is up.

    The viewer is re-derived as the match moves on, so a spectator receives secrets only once
    the match has finished or a reveal has opened them, exactly as the paged log would give them.
    A held-back spectator is sent records up to its delayed version only: each new write moves
    that version on (and releases what it passes), and the finish releases the rest.
    Between records the stream sleeps until the process's watcher rings it (service/streams.py):
    an idle follower queries nothing and, under gevent workers, holds no thread.
    """
    g = gambit()
    match_id = first_match.match_id
    follower = g.streams.reserve(match_id, request.remote_addr or "unknown")
    # Whether this follower may be held back at all; while it is, each ring reloads the match to
    # learn how far the delayed version has moved.
    may_be_held = first_viewer.role == SPECTATOR and first_match.options.spectator_delay > 0

    def frames() -> Iterator[str]:
        position = after
        started = time.monotonic()
        yield "retry: 2000\n\n"
        match = first_match
        while True:
            delay = delay_for(match, viewer_for(match, first_viewer.role, first_viewer.seat)) if may_be_held else None
            upto = None if delay is None else delay.as_of
            batch = g.matches.records(match_id, after=position, upto=upto, limit=MAX_PAGE)
            if batch:
                if delay is None:
                    match = g.matches.match(match_id)
                yield from _batch_frames(g, match, first_viewer, batch, upto)
                position = batch[-1].originator_version
            if match.status == "finished" and position >= match.version:
                yield "event: end\ndata: {}\n\n"
                return
            if batch:
                continue  # a full page may have more behind it
            remaining = STREAM_SECONDS - (time.monotonic() - started)
            if remaining <= 0 or g.streams.stopped:
                return
            rung = follower.wait(min(HEARTBEAT_SECONDS, remaining))
            if not rung:
                yield ": keep-alive\n\n"
            if g.streams.stopped:
                return
            if rung and delay is not None:
                match = g.matches.match(match_id)

    response = Response(stream_with_context(frames()), mimetype="text/event-stream")
    # The slot is given back when the server closes the response, whether or not it was read.
    response.call_on_close(lambda: g.streams.release(follower))
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _batch_frames(
    g: Gambit, match: Match, first_viewer: Viewer, batch: list[Any], upto: int | None = None
) -> list[str]:
    """The frames of one batch of new records, in the caller's form as of the match now (or as of `upto`).

    Every batch an organizer is sent while the match runs is a read of its secrets: it enters the
    access trail before it leaves, as a paged read would.
    """
    viewer = viewer_for(match, first_viewer.role, first_viewer.seat)
    as_of = match.version if upto is None else upto
    frames = []
    for stored in batch:
        form = record_form(stored, viewer, match, as_of=as_of)
        frames.append(f"id: {stored.originator_version}\nevent: record\ndata: {as_json(form)}\n\n")
        # The records a reveal opens went by earlier without their secrets: each is sent again,
        # now opened, as an `opened` frame (no id: resuming stays at the reveal).
        for opened in opened_forms(g.matches, match, stored, viewer, as_of=as_of):
            frames.append(f"event: opened\ndata: {as_json(opened)}\n\n")
    if viewer.role == ORGANIZER:
        note_organizer_read(match, "events-stream", batch[-1].originator_version)
    return frames


bp.add_url_rule("/matches/<match_id>/events", view_func=Events.as_view("events"))
