"""Bluff-call audits: one match's calls with their evidence, and the cross-match call index."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.views import MethodView

from projections.audit import bluff_audit
from service.auth import caller
from service.context import choice_arg, gambit, int_arg, text_arg

bp = Blueprint("audit", __name__)

MAX_PAGE = 200


class MatchBluffs(MethodView):
    """/matches/{id}/audit/bluffs"""

    def get(self, match_id: str) -> Response:
        """Every bluff call of the match: claim, verdict, consequences, commitment and (if visible) evidence."""
        g = gambit()
        match = g.matches.match(match_id)
        viewer = caller(match, "audit/bluffs")
        return jsonify(
            {
                "match_id": match.match_id,
                "ruleset": match.ruleset_id,
                "version": match.version,
                "viewer": viewer.label,
                "calls": bluff_audit(g.matches, match, viewer),
            }
        )


class BluffCalls(MethodView):
    """/bluff-calls"""

    def get(self) -> Response:
        """Bluff calls across matches (public parts), oldest first, filtered and paged."""
        calls, cursor = gambit().index.bluff_calls(
            match_id=text_arg("match_id"),
            tournament_id=text_arg("tournament_id"),
            verdict=choice_arg("verdict", ("true", "false")),
            after=int_arg("after", None, minimum=0),
            limit=int_arg("limit", 50, minimum=1, maximum=MAX_PAGE),
        )
        return jsonify({"bluff_calls": calls, "next": None if cursor is None else str(cursor)})


bp.add_url_rule("/matches/<match_id>/audit/bluffs", view_func=MatchBluffs.as_view("match_bluffs"))
bp.add_url_rule("/bluff-calls", view_func=BluffCalls.as_view("bluff_calls"))
