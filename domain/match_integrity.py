"""A match's own integrity: the receipt it signs into a write, and the checks of every stored record it folds
(methods of Match; the service's checks of receipts are domain/store.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.match_shape import MatchShape
from domain.records import chain_link, commitment


class MatchIntegrity(MatchShape):
    """Receipts and stored-record checks of a Match (a base class of it, holding no state of its own)."""

    def acknowledge(self, sign: Callable[[str, int, str], dict]) -> dict | None:
        """Sign the head of the records about to be saved; the receipt goes in the newest one's meta.

        So the receipt is stored in the same transaction as the records it covers, and a receipt
        is only ever made for a write this match itself decided.
        """
        if not self.pending_events:
            return None
        receipt = sign(self.match_id, self.version, self.head)
        newest: Any = self.pending_events[-1]  # a Match.Recorded (or Created): it has `meta`
        newest.meta["receipt"] = receipt
        self.receipt = receipt
        return receipt

    def _check_stored(
        self,
        chain: str,
        version: int,
        kind: str,
        timestamp: str,
        public: dict,
        secret: Any,
        salt: str | None,
        commit: str | None,
        previous: str,
    ) -> None:
        """Note the first stored record whose chain link or commitment does not hold."""
        if self.integrity_problem is not None:
            return
        try:
            if chain_link(previous, version, kind, timestamp, public, commit) != chain:
                self.integrity_problem = f"version {version}: the chain does not link to the record before it"
            elif (secret is None) != (commit is None) or (
                secret is not None and (salt is None or commitment(secret, salt) != commit)
            ):
                self.integrity_problem = f"version {version}: the secret does not open its commitment"
        except (TypeError, ValueError):
            self.integrity_problem = f"version {version}: the record cannot be encoded canonically"

    def _keep_receipt(self, receipt: Any, version: int, chain: str) -> None:
        """Keep a stored receipt as the newest, if it is for this very record."""
        if receipt is None:
            return
        if (
            not isinstance(receipt, dict)
            or receipt.get("version") != version
            or receipt.get("head") != chain
            or receipt.get("match_id") != self.match_id
        ):
            if self.integrity_problem is None:
                self.integrity_problem = f"version {version}: its receipt is not for this record"
            return
        self.receipt = receipt
