"""The receipts resource: the signed receipt a write of a match stored, read back by the version it ended on."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.views import MethodView

from domain.match import Match
from service.auth import caller
from service.context import bounded_int, gambit
from service.delay import delay_for, newest_shown
from service.problems import Problem

bp = Blueprint("receipts", __name__)


def shown_receipt(match_id: str, version: str) -> tuple[Match, dict]:
    """The match and the stored receipt of its write whose last record is `version`, for this caller.

    404 `no_receipt` when no write ended there, or when the caller may not see that version yet (a spectator
    held back by a spectator delay): a receipt holds no secret, but its version tells how far the match is.
    """
    g = gambit()
    latest = g.matches.match(match_id)
    viewer = caller(latest)
    number = bounded_int(version)
    missing = Problem(404, "no_receipt", f"no write of this match ended at version {version!r}")
    if number is None or not 1 <= number <= newest_shown(latest, delay_for(latest, viewer)):
        raise missing
    stored = g.matches.records(latest.match_id, after=number - 1, upto=number)
    receipt = stored[0].meta.get("receipt") if stored else None
    if receipt is None:
        raise missing
    return latest, receipt


class Receipt(MethodView):
    """/matches/{id}/receipts/{version}"""

    def get(self, match_id: str, version: str) -> Response:
        """The receipt of the write whose last record is `version`, exactly as that write's response carried it.

        Public (a receipt holds no secret), but never for a version the caller may not see yet.
        """
        return jsonify(shown_receipt(match_id, version)[1])


bp.add_url_rule("/matches/<match_id>/receipts/<version>", view_func=Receipt.as_view("receipt"))
