"""Tournament standings from the outcomes of its finished matches: one row per entrant, or per seat of no entrant.

A win scores 1 point, a win shared by k winners 1/k, anything else 0. The tie-break is the
Buchholz score: the sum of the final points of every opponent met, once per meeting. Points are
added up as exact fractions and rounded (to 4 places) only for the answer, so rows that tie
exactly are told apart by nothing but their tie-breaks. docs/tournaments.md describes the table.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from domain.match import Match

# Decimal places of `points` and `buchholz` in an answer.
PLACES = 4
# The columns of the standings as CSV (GET /tournaments/{id}/standings.csv), in order.
CSV_COLUMNS = ("rank", "entrant_id", "name", "points", "played", "wins", "shared_wins", "losses", "buchholz", "amended")

RowKey = tuple[str, ...]


def winners_of(match: Match) -> set[str]:
    """The seats that won a finished match, as its outcome (amended or not) stands; none for anything else."""
    listed = (match.outcome or {}).get("winners")
    # Amendments recorded before winners were checked may hold anything: count no winner then.
    return {w for w in listed if isinstance(w, str) and w in match.seat_order} if isinstance(listed, list) else set()


def standings(
    matches: Iterable[Match], entrants: dict[str, dict] | None = None, amended: set[str] | None = None
) -> list[dict]:
    """The standings, best first: a row per entrant (every registered one, played or not) and per seat of a
    finished match that no entrant holds (never merged by display name).

    `entrants` are the tournament's (entrant id → entry with its `name`); `amended` the ids of the
    matches whose outcome an organizer's ruling amended.
    """
    entrants = entrants or {}
    amended = amended or set()
    rows: dict[RowKey, dict] = {("entrant", e): _row(e, entry["name"]) for e, entry in entrants.items()}
    points: dict[RowKey, Fraction] = dict.fromkeys(rows, Fraction(0))
    met: dict[RowKey, list[RowKey]] = {key: [] for key in rows}
    for match in matches:
        if match.status != "finished" or not match.outcome:
            continue
        winners = winners_of(match)
        keys = {
            seat: _key_of(match, seat, entrants, rows, points, met) for seat in match.seat_order if seat in match.seats
        }
        for seat, key in keys.items():
            row = rows[key]
            row["played"] += 1
            row["amended"] += match.match_id in amended
            met[key] += [other for other_seat, other in keys.items() if other_seat != seat]
            if seat in winners:
                row["wins"] += 1
                row["shared_wins"] += len(winners) > 1
                points[key] += Fraction(1, len(winners))
            elif winners:
                row["losses"] += 1
    buchholz = {key: sum((points[other] for other in met[key]), Fraction(0)) for key in rows}
    order = sorted(rows, key=lambda k: (-points[k], -buchholz[k], -rows[k]["wins"], rows[k]["name"], _tie(rows[k])))
    table: list[dict] = []
    previous: tuple | None = None
    for place, key in enumerate(order, start=1):
        merit = (points[key], buchholz[key], rows[key]["wins"])
        rank = table[-1]["rank"] if merit == previous else place
        previous = merit
        table.append({"rank": rank, **rows[key], "points": _number(points[key]), "buchholz": _number(buchholz[key])})
    return table


def _row(entrant_id: str | None, name: str) -> dict:
    return {
        "entrant_id": entrant_id,
        "name": name,
        "played": 0,
        "wins": 0,
        "shared_wins": 0,
        "losses": 0,
        "amended": 0,
    }


def _key_of(
    match: Match,
    seat: str,
    entrants: dict[str, dict],
    rows: dict[RowKey, dict],
    points: dict[RowKey, Fraction],
    met: dict[RowKey, list[RowKey]],
) -> RowKey:
    """The row a seat of a finished match counts for (made on first sight): its entrant's, or the seat's own."""
    entrant_id = match.entrant_of(seat)
    key: RowKey = ("entrant", entrant_id) if entrant_id is not None else ("seat", match.match_id, seat)
    if key not in rows:
        if entrant_id is not None:  # an entrant the tournament no longer lists: its id is all there is
            rows[key] = _row(entrant_id, (entrants.get(entrant_id) or {}).get("name", entrant_id))
        else:
            rows[key] = {**_row(None, match.seats[seat]["name"]), "match_id": match.match_id, "seat": seat}
        points[key] = Fraction(0)
        met[key] = []
    return key


def _tie(row: dict) -> tuple[str, str, str]:
    """The last tie-break: the entrant id, then (for a row of no entrant) its match and seat."""
    return (row["entrant_id"] or "", row.get("match_id", ""), row.get("seat", ""))


def _number(value: Fraction) -> int | float:
    """A score as JSON shows it: a whole number as an integer, else rounded to PLACES decimals."""
    return int(value) if value.denominator == 1 else round(float(value), PLACES)


def csv_cell(value: object) -> str:
    """A cell of the standings CSV: text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a
    carriage return first) gets a leading `'`, so it stays text."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text
