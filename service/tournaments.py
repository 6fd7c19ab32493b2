"""The tournaments resource: creation (with the organizer key), matches and standings (also as CSV), disputes,
access trail."""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Blueprint, Response, jsonify, url_for
from flask.views import MethodView
from marshmallow import Schema, validate

from domain.match import Match
from domain.tournament import Tournament
from projections.standings import CSV_COLUMNS, csv_cell, standings
from service.auth import organizer_of
from service.bodies import StrictString, load
from service.context import gambit, int_arg
from service.matches import each_readable, full_summary

bp = Blueprint("tournaments", __name__)

MAX_PAGE = 500


class CreateTournamentBody(Schema):
    """POST /tournaments."""

    name = StrictString(required=True, validate=validate.Length(min=1, max=100))


def tournament_match_ids(tournament_id: str) -> list[str]:
    """Every match id of the tournament, oldest first."""
    g = gambit()
    ids, cursor = g.index.matches(tournament_id=tournament_id, limit=200)
    while cursor is not None:
        more, cursor = g.index.matches(tournament_id=tournament_id, after=cursor, limit=200)
        ids.extend(more)
    return list(reversed(ids))


class TournamentCollection(MethodView):
    """/tournaments"""

    def post(self) -> Response:
        """Create a tournament; the organizer key is shown only in this response."""
        body = load(CreateTournamentBody())
        tournament, key = gambit().matches.tournaments.create_tournament(body["name"])
        response = jsonify(
            {
                "tournament_id": tournament.tournament_id,
                "name": tournament.name,
                "organizer_key": key,
                "created_at": tournament.created_at,
            }
        )
        response.status_code = 201
        response.headers["Location"] = url_for("tournaments.tournament", tournament_id=tournament.tournament_id)
        response.headers["Cache-Control"] = "no-store"
        return response


class TournamentItem(MethodView):
    """/tournaments/{id}"""

    def get(self, tournament_id: str) -> Response:
        """The tournament with a page of its matches (oldest first) and the standings of all of them (public).

        `after` counts the matches already read (the previous page's `next_after`). A match whose partition does
        not answer is named under `unavailable` instead: the page is served without it, and `standings` is null,
        since standings without one of the matches could be wrong (a missing result moves points and Buchholz).
        """
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        after = int_arg("after", 0, minimum=0)
        limit = int_arg("limit", 100, minimum=1, maximum=200)
        ids = tournament_match_ids(tournament.tournament_id)
        on_page = set(ids[after : after + limit])
        read, unavailable = each_readable(ids, lambda m: (m, full_summary(m) if m.match_id in on_page else None))
        body: dict[str, Any] = {
            "tournament_id": tournament.tournament_id,
            "name": tournament.name,
            "created_at": tournament.created_at,
            "matches": [shown for _, shown in read if shown is not None],
            "next_after": after + limit if len(ids) > after + limit else None,
            "standings": None if unavailable else tournament_standings(tournament, [m for m, _ in read]),
        }
        if unavailable:
            body["unavailable"] = unavailable
        return jsonify(body)


def tournament_matches(tournament: Tournament) -> list[Match]:
    """Every match of the tournament as it stands now, oldest first; PartitionUnavailable (503) when the partition
    of any does not answer, before anything is done with the others (for what would be wrong without one)."""
    g = gambit()
    return [g.matches.match(i) for i in tournament_match_ids(tournament.tournament_id)]


def tournament_standings(tournament: Tournament, matches: list[Match]) -> list[dict]:
    """The standings of the tournament's matches, a row per entrant (projections/standings.py)."""
    amended = {m.match_id for m in matches if m.status == "finished" and gambit().matches.outcome_amended(m)}
    return standings(matches, tournament.entrants, amended)


class StandingsCsv(MethodView):
    """/tournaments/{id}/standings.csv"""

    def get(self, tournament_id: str) -> Response:
        """The standings as CSV, a header row first; cells a spreadsheet would run as formulas are escaped (public).

        A table has no room to say a match is missing: while the partition of any match of the tournament does not
        answer, this answers 503 `partition_unavailable` naming it rather than standings that could be wrong."""
        tournament = gambit().matches.tournaments.tournament(tournament_id)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        for row in tournament_standings(tournament, tournament_matches(tournament)):
            writer.writerow([csv_cell(row[column]) for column in CSV_COLUMNS])
        response = Response(out.getvalue(), mimetype="text/csv")
        response.headers["Content-Type"] = "text/csv; charset=utf-8"
        response.headers["Content-Disposition"] = f'attachment; filename="standings-{tournament.tournament_id}.csv"'
        return response


class TournamentDisputes(MethodView):
    """/tournaments/{id}/disputes"""

    def get(self, tournament_id: str) -> Response:
        """Every dispute of the tournament's matches, open ones first (organizer only)."""
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        organizer_of(tournament)
        after = int_arg("after", 0, minimum=0)
        limit = int_arg("limit", 100, minimum=1, maximum=MAX_PAGE)
        # `after` counts the entries already read: the queue's order (open first) is not by one key.
        page = g.index.disputes(tournament.tournament_id, offset=after, limit=limit + 1)
        more = len(page) > limit
        return jsonify(
            {
                "tournament_id": tournament.tournament_id,
                "disputes": page[:limit],
                "next_after": after + limit if more else None,
            }
        )


class AccessLog(MethodView):
    """/tournaments/{id}/access-log"""

    def get(self, tournament_id: str) -> Response:
        """Every organizer read of unrevealed secrets: who, which match and resource, when (organizer only)."""
        g = gambit()
        tournament = g.matches.tournaments.tournament(tournament_id)
        organizer_of(tournament)
        after = int_arg("after", 0, minimum=0)
        limit = int_arg("limit", 100, minimum=1, maximum=MAX_PAGE)
        events = g.matches.tournaments.access_trail(tournament.tournament_id, after=after, limit=limit)
        entries = [
            {
                "entry": e.originator_version - 1,
                "organizer": e.organizer,
                "match_id": e.match_id,
                "resource": e.resource,
                "match_version": e.match_version,
                "at": e.timestamp.isoformat(),
            }
            for e in events
        ]
        # An entry is its event's version - 1: more follow while the newest read's version lies beyond.
        newest = tournament.last_read_version or 0
        more = bool(entries) and entries[-1]["entry"] + 1 < newest
        return jsonify(
            {
                "tournament_id": tournament.tournament_id,
                "entries": entries,
                "next_after": entries[-1]["entry"] if more else None,
            }
        )


bp.add_url_rule("/tournaments", view_func=TournamentCollection.as_view("tournaments"))
bp.add_url_rule("/tournaments/<tournament_id>", view_func=TournamentItem.as_view("tournament"))
bp.add_url_rule("/tournaments/<tournament_id>/standings.csv", view_func=StandingsCsv.as_view("standings_csv"))
bp.add_url_rule("/tournaments/<tournament_id>/disputes", view_func=TournamentDisputes.as_view("disputes"))
bp.add_url_rule("/tournaments/<tournament_id>/access-log", view_func=AccessLog.as_view("access_log"))
