"""The export resources: a match as NDJSON (header first, every record in the caller's form, the signed trailer
last), and every match of a tournament as a zip of those exports with the signing key beside them."""

from __future__ import annotations

import json
import tempfile
import zipfile
from collections.abc import Iterator

from flask import Blueprint, Response, request, stream_with_context
from flask.views import MethodView
from werkzeug.wsgi import wrap_file

from domain.match import Match
from domain.ruleset import ORGANIZER, SPECTATOR, Viewer
from projections.delay import SpectatorDelay
from projections.records import viewer_for
from projections.views import as_json, export_lines
from service.auth import bearer_token, caller, note_organizer_read, organizer_of
from service.context import gambit, int_arg
from service.delay import delay_for, mark, shown_match
from service.tournaments import tournament_matches

bp = Blueprint("export", __name__)

# A tournament's zip is built in memory up to this size, and in a temporary file beyond it.
ZIP_IN_MEMORY = 16 * 1024 * 1024
KEY_FILE = "signing-key.json"


def export_of(
    latest: Match, viewer: Viewer, log_since: int | None = None
) -> tuple[Match, SpectatorDelay | None, Iterator[str]]:
    """The match as the viewer's export ends it (at the delayed version for a held-back spectator), how far it is
    held back, and the export's lines: header, records in the viewer's form, the trailer (the receipt of the
    write it ends on)."""
    g = gambit()
    delay = delay_for(latest, viewer)
    # A delayed version is a write's last record, so the export ends on that write's receipt.
    match = shown_match(latest, delay)
    trailer = g.trailer_for(match, log_since=log_since)

    def lines() -> Iterator[str]:
        yield from export_lines(g.matches, match, viewer)
        yield as_json(trailer) + "\n"

    return match, delay, lines()


class Export(MethodView):
    """/matches/{id}/export"""

    def get(self, match_id: str) -> Response:
        """Stream the export of a match as application/x-ndjson (up to its delayed version for a held-back spectator)."""
        latest = gambit().matches.match(match_id)
        viewer = caller(latest, "export")
        match, delay, lines = export_of(latest, viewer, int_arg("log_since"))
        response = Response(stream_with_context(lines), mimetype="application/x-ndjson")
        response.headers["Content-Disposition"] = f'attachment; filename="match-{match.match_id}.ndjson"'
        return mark(response, delay)


class TournamentExport(MethodView):
    """/tournaments/{id}/export"""

    def get(self, tournament_id: str) -> Response:
        """Every match of the tournament as `<match_id>.ndjson` (each what GET /matches/{id}/export gives this caller:
        the organizer's form with the organizer key, the public form without), and `signing-key.json`, in a zip."""
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        organizer = bearer_token() is not None
        if organizer:
            organizer_of(tournament)  # a token that is not the organizer key is refused, never read as public
        # Every match read first: one whose partition does not answer is a 503 before any read is noted, never a
        # zip without it (`gambit verify` would pass a tournament short of a match).
        matches = tournament_matches(tournament)
        spooled = tempfile.SpooledTemporaryFile(max_size=ZIP_IN_MEMORY)  # noqa: SIM115 - closed by the response
        with zipfile.ZipFile(spooled, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for latest in matches:
                match_id = latest.match_id
                viewer = viewer_for(latest, ORGANIZER if organizer else SPECTATOR)
                if organizer:
                    note_organizer_read(latest, "export")  # as the match's own export notes it
                _, _, lines = export_of(latest, viewer)
                with archive.open(f"{match_id}.ndjson", "w") as member:
                    for line in lines:
                        member.write(line.encode("utf-8"))
            archive.writestr(KEY_FILE, json.dumps(g.signer.public_key_document(), indent=2) + "\n")
        size = spooled.tell()
        spooled.seek(0)
        response = Response(wrap_file(request.environ, spooled), mimetype="application/zip", direct_passthrough=True)
        response.headers["Content-Length"] = str(size)
        response.headers["Content-Disposition"] = f'attachment; filename="tournament-{tournament.tournament_id}.zip"'
        return response


bp.add_url_rule("/matches/<match_id>/export", view_func=Export.as_view("export"))
bp.add_url_rule("/tournaments/<tournament_id>/export", view_func=TournamentExport.as_view("tournament_export"))
