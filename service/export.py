"""The export resource: a match as NDJSON, header first, every record in the caller's form."""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, stream_with_context
from flask.views import MethodView

from projections.views import as_json, export_lines
from service.auth import caller
from service.context import gambit
from service.delay import delay_for, mark, shown_match

bp = Blueprint("export", __name__)


class Export(MethodView):
    """/matches/{id}/export"""

    def get(self, match_id: str) -> Response:
        """Stream the export of a match as application/x-ndjson (up to its delayed version for a held-back spectator)."""
        g = gambit()
        latest = g.matches.match(match_id)
        viewer = caller(latest, "export")
        delay = delay_for(latest, viewer)
        # A delayed version is a write's last record, so the export ends on that write's receipt.
        match = shown_match(latest, delay)
        trailer = g.trailer_for(match)

        def lines() -> Iterator[str]:
            yield from export_lines(g.matches, match, viewer)
            yield as_json(trailer) + "\n"

        response = Response(stream_with_context(lines()), mimetype="application/x-ndjson")
        response.headers["Content-Disposition"] = f'attachment; filename="match-{match.match_id}.ndjson"'
        return mark(response, delay)


bp.add_url_rule("/matches/<match_id>/export", view_func=Export.as_view("export"))
