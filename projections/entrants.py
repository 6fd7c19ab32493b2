"""Which seats a tournament's entrants are paired to or hold, from its matches."""

from __future__ import annotations

from collections.abc import Iterable

from domain.match import Match


def entrant_seats(matches: Iterable[Match]) -> dict[str, list[dict]]:
    """Entrant id → its seats (`match_id`, `seat`, `joined`), in the order of the matches given and their seats."""
    seats: dict[str, list[dict]] = {}
    for match in matches:
        for seat in match.seat_order:
            entrant_id = match.entrant_of(seat)
            if entrant_id is not None:
                seats.setdefault(entrant_id, []).append(
                    {"match_id": match.match_id, "seat": seat, "joined": seat in match.seats}
                )
    return seats
