"""Bluff-call audits: one match's calls with their evidence, and the cross-match call index."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.views import MethodView

from domain.errors import MatchNotFound, PartitionUnavailable
from projections.audit import bluff_audit
from projections.delay import SpectatorDelay
from service.auth import caller
from service.context import choice_arg, gambit, int_arg, text_arg
from service.delay import delay_for, mark, public_delay, shown_match

bp = Blueprint("audit", __name__)

MAX_PAGE = 200


class MatchBluffs(MethodView):
    """/matches/{id}/audit/bluffs"""

    def get(self, match_id: str) -> Response:
        """Every bluff call of the match: claim, verdict, consequences, commitment and (if visible) evidence."""
        g = gambit()
        latest = g.matches.match(match_id)
        viewer = caller(latest, "audit/bluffs")
        delay = delay_for(latest, viewer)
        match = shown_match(latest, delay)
        body = {
            "match_id": match.match_id,
            "ruleset": match.ruleset_id,
            "version": match.version,
            "viewer": viewer.label,
            "calls": bluff_audit(g.matches, match, viewer),
        }
        return mark(jsonify(body), delay)


class BluffCalls(MethodView):
    """/bluff-calls"""

    def get(self) -> Response:
        """Bluff calls across matches (public parts), oldest first, filtered and paged.

        A ruling past the version its caller may see of a running match (a held-back spectator's)
        is left out, so a page may hold fewer than `limit` calls; `next` still continues after the
        last one looked at. So is a running match's call when its partition does not answer (what
        the caller may see of it is unknown): its match is named under `unavailable`.
        """
        g = gambit()
        match_id = text_arg("match_id")
        calls, cursor = g.index.bluff_calls(
            match_id=match_id,
            tournament_id=text_arg("tournament_id"),
            verdict=choice_arg("verdict", ("true", "false")),
            after=int_arg("after", None, minimum=0),
            limit=int_arg("limit", 50, minimum=1, maximum=MAX_PAGE),
        )
        delays, unavailable = _held_back({call["match_id"] for call in calls} | ({match_id} if match_id else set()))
        visible = [
            c
            for c in calls
            if c["match_id"] not in unavailable
            and (c["match_id"] not in delays or c["ruling_version"] <= delays[c["match_id"]].as_of)
        ]
        body: dict = {"bluff_calls": visible, "next": None if cursor is None else str(cursor)}
        if unavailable:
            body["unavailable"] = sorted(unavailable)
        response = jsonify(body)
        # Who is held back depends on the bearer token: no shared cache may answer another caller with it.
        response.vary.add("Authorization")
        response.headers["Cache-Control"] = "no-store"
        return mark(response, delays.get(match_id) if match_id else None)


def _held_back(match_ids: set[str]) -> tuple[dict[str, SpectatorDelay], set[str]]:
    """The caller's delay in each of these matches that holds it back (running matches with a spectator delay),
    and the running ones whose partition does not answer (their delay cannot be known)."""
    g = gambit()
    delays = {}
    unavailable = set()
    for match_id in g.index.unfinished(match_ids):
        try:
            delay = public_delay(g.matches.match(match_id))
        except MatchNotFound:
            continue
        except PartitionUnavailable:
            unavailable.add(match_id)
            continue
        if delay is not None:
            delays[match_id] = delay
    return delays, unavailable


bp.add_url_rule("/matches/<match_id>/audit/bluffs", view_func=MatchBluffs.as_view("match_bluffs"))
bp.add_url_rule("/bluff-calls", view_func=BluffCalls.as_view("bluff_calls"))
