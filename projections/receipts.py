"""The latest signed receipt of each match, kept beside the event store.

A receipt is signed when a write is acknowledged, so a later deletion of the newest records
(or any rewrite of history) no longer matches the receipt an export ends with.
"""

from __future__ import annotations

import json

from projections.sqlstore import SqlStore

_SCHEMA = """CREATE TABLE IF NOT EXISTS gambit_receipts (
    match_id TEXT PRIMARY KEY, version INTEGER NOT NULL, head TEXT NOT NULL, receipt TEXT NOT NULL)"""


class ReceiptBook:
    """Latest receipt per match."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        with store.schema_transaction() as cur:
            cur.execute(_SCHEMA)

    def latest(self, match_id: str) -> dict | None:
        """The newest receipt of a match, if any."""
        rows = self.store.query("SELECT receipt FROM gambit_receipts WHERE match_id = ?", (match_id,))
        return json.loads(rows[0][0]) if rows else None

    def keep(self, receipt: dict) -> None:
        """Store a receipt unless a newer one is already kept."""
        with self.store.transaction(lock_table="gambit_receipts") as cur:
            cur.execute("SELECT version FROM gambit_receipts WHERE match_id = ?", (receipt["match_id"],))
            row = cur.fetchone()
            if row is None:
                cur.execute("INSERT INTO gambit_receipts (match_id, version, head, receipt) VALUES (?, ?, ?, ?)",
                            (receipt["match_id"], receipt["version"], receipt["head"], json.dumps(receipt)))
            elif int(row[0]) < receipt["version"]:
                cur.execute("UPDATE gambit_receipts SET version = ?, head = ?, receipt = ? WHERE match_id = ?",
                            (receipt["version"], receipt["head"], json.dumps(receipt), receipt["match_id"]))
