"""Integrity alerts: matches whose stored records are not what this service wrote.

Any process that loads such a match notes it here (the match id and the first problem found),
and so does the scrub, which replays whole chains (projections/scrub.py); while an alert stands
every process refuses writes to the match. Readiness fails while an alert stands, and clears an
alert itself once the match's whole chain checks clean again (an operator restored it from a
backup). Alerts are a read model: losing the table loses nothing, since the next load of the
match (or the next scrub of it) finds the same problem.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from projections.sqlstore import SqlStore

log = logging.getLogger("gambit.integrity")

_SCHEMA = """CREATE TABLE IF NOT EXISTS gambit_integrity_alerts (
    match_id TEXT PRIMARY KEY, problem TEXT NOT NULL, noticed_at TEXT NOT NULL)"""


class IntegrityAlerts:
    """Standing alerts, one per match."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self._known: dict[str, str] = {}
        with store.schema_transaction() as cur:
            cur.execute(_SCHEMA)

    def raise_alert(self, match_id: str, problem: str, recheck: bool = False) -> None:
        """Log a match's integrity problem loudly and keep it as a standing alert.

        `recheck` looks in the shared table rather than this process's memory of what it raised
        (the scrub: another process may have cleared the alert since).
        """
        known = self.problem_of(match_id) if recheck else self._known.get(match_id)
        if known == problem:
            self._known[match_id] = problem
            return
        log.error("INTEGRITY ALERT: match %s: %s", match_id, problem)
        with self.store.transaction() as cur:
            cur.execute("DELETE FROM gambit_integrity_alerts WHERE match_id = ?", (match_id,))
            cur.execute(
                "INSERT INTO gambit_integrity_alerts (match_id, problem, noticed_at) VALUES (?, ?, ?)",
                (match_id, problem, datetime.now(UTC).isoformat()),
            )
        self._known[match_id] = problem

    def problem_of(self, match_id: str) -> str | None:
        """The standing alert's problem for a match, from the table every process shares; None without one."""
        rows = self.store.query("SELECT problem FROM gambit_integrity_alerts WHERE match_id = ?", (match_id,))
        return str(rows[0][0]) if rows else None

    def standing(self, limit: int = 20) -> list[dict]:
        """The standing alerts, oldest first."""
        rows = self.store.query(
            "SELECT match_id, problem, noticed_at FROM gambit_integrity_alerts ORDER BY noticed_at LIMIT ?", (limit,)
        )
        return [{"match_id": m, "problem": p, "noticed_at": t} for m, p, t in rows]

    def clear(self, match_id: str) -> None:
        """Drop a match's alert (it loads clean again)."""
        with self.store.transaction() as cur:
            cur.execute("DELETE FROM gambit_integrity_alerts WHERE match_id = ?", (match_id,))
        self._known.pop(match_id, None)
