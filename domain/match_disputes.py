"""A match's disputes: filing one against a bluff call, and the organizer's ruling (methods of Match).

The records they make are folded by the Match itself (domain/match.py `_fold`), like every record.
"""

from __future__ import annotations

from domain.errors import DisputeRejected
from domain.match_shape import MatchShape
from domain.record_bounds import DECISIONS
from domain.records import DISPUTE_FILED, DISPUTE_RULED, OUTCOME_AMENDED, json_copy
from domain.ruleset import Event


class MatchDisputes(MatchShape):
    """The dispute commands of a Match (a base class of it, holding no state of its own)."""

    def file_dispute(self, call_version: int, ruling: int, reason: str, filed_by: str, limit: int | None = None) -> int:
        """Dispute a bluff call (or Final Gambit call) whose ruling is at `ruling`; returns the dispute number.

        The match service finds the ruling in the records (a dispute may name the call or its ruling).

        `limit` caps the disputes one filer may file in this match, so one seat cannot grow the
        match's record (and the organizer's queue) without bound.
        """
        if limit is not None and sum(1 for d in self.disputes.values() if d["filed_by"] == filed_by) >= limit:
            raise DisputeRejected(
                "dispute_limit_reached", f"{filed_by} has filed the {limit} disputes a filer may file"
            )
        number = len(self.disputes) + 1
        self._record(
            Event(
                DISPUTE_FILED,
                {
                    "dispute": number,
                    "call_version": call_version,
                    "ruling_version": ruling,
                    "reason": reason,
                    "filed_by": filed_by,
                },
            )
        )
        return number

    def rule_dispute(self, number: int, decision: str, note: str, amended_outcome: dict | None) -> None:
        """The organizer's ruling on a dispute; an amended outcome is its own record, never an edit."""
        dispute = self.disputes.get(str(number))
        if dispute is None:
            raise DisputeRejected("unknown_dispute", f"this match has no dispute {number}")
        if dispute["status"] != "open":
            raise DisputeRejected("dispute_already_ruled", f"dispute {number} has been ruled already")
        if decision not in DECISIONS:
            raise DisputeRejected("unknown_decision", f"decision must be one of {', '.join(DECISIONS)}")
        if amended_outcome is not None and self.status != "finished":
            raise DisputeRejected("match_not_finished", "an outcome can only be amended once the match has finished")
        if amended_outcome is not None:
            self._check_amended_outcome(amended_outcome)
        self._record(
            Event(
                DISPUTE_RULED,
                {
                    "dispute": number,
                    "call_version": dispute["call_version"],
                    "decision": decision,
                    "note": note,
                    "amends_outcome": amended_outcome is not None,
                },
            )
        )
        if amended_outcome is not None:
            self._record(
                Event(
                    OUTCOME_AMENDED,
                    {
                        "dispute": number,
                        "outcome": json_copy(amended_outcome),
                        "previous_outcome": json_copy(self.outcome),
                    },
                )
            )

    def _check_amended_outcome(self, amended_outcome: dict) -> None:
        """An amended outcome names its winners as distinct seats of this match (standings count them)."""
        winners = amended_outcome.get("winners")
        if not isinstance(winners, list) or not all(isinstance(w, str) for w in winners):
            raise DisputeRejected("invalid_amended_outcome", "amended_outcome.winners must be a list of seats")
        unknown = [w for w in winners if w not in self.seat_order]
        if unknown:
            raise DisputeRejected(
                "invalid_amended_outcome", f"amended_outcome.winners names {unknown[0]!r}, not a seat of this match"
            )
        if len(set(winners)) != len(winners):
            raise DisputeRejected("invalid_amended_outcome", "amended_outcome.winners names a seat twice")
