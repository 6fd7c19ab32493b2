"""Tournament standings from the outcomes of its finished matches."""

from __future__ import annotations

from domain.match import Match


def standings(matches: list[Match]) -> list[dict]:
    """Per player name: matches played and won (a shared win counts as a win), best first."""
    table: dict[str, dict] = {}
    for match in matches:
        if match.status != "finished" or not match.outcome:
            continue
        listed = match.outcome.get("winners")
        # Amendments recorded before winners were checked may hold anything: count no winner then.
        winners = {w for w in listed if isinstance(w, str)} if isinstance(listed, list) else set()
        for seat, info in match.seats.items():
            row = table.setdefault(info["name"], {"name": info["name"], "played": 0, "wins": 0, "shared_wins": 0})
            row["played"] += 1
            if seat in winners:
                row["wins"] += 1
                if len(winners) > 1:
                    row["shared_wins"] += 1
    return sorted(table.values(), key=lambda row: (-row["wins"], row["played"], row["name"]))
