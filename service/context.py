"""The per-process objects the blueprints share (built per gunicorn worker, after fork)."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import current_app, request

from domain.application import MatchApp
from domain.match import Match
from projections.index import CrossMatchIndex
from projections.receipts import ReceiptBook
from service.metrics import Metrics
from service.problems import Problem
from service.settings import Settings
from service.signing import Signer


@dataclass
class Gambit:
    """The match application, the cross-match index and the settings of one process."""

    settings: Settings
    matches: MatchApp
    index: CrossMatchIndex
    receipts: ReceiptBook
    signer: Signer
    metrics: Metrics = field(default_factory=Metrics)

    def acknowledge(self, match: Match) -> dict:
        """Sign and keep a receipt for a write that was just stored; returns it."""
        receipt = self.signer.receipt(match.match_id, match.version, match.head)
        self.receipts.keep(receipt)
        return receipt

    def receipt_for(self, match: Match) -> dict:
        """The receipt an export of this match ends with.

        The kept receipt when it is for this version; a fresh one when the store has moved on
        (a write whose receipt was not kept); the kept one, unchanged, when the store now
        holds less than was signed — so a deleted record cannot be covered by a new signature.
        """
        kept = self.receipts.latest(match.match_id)
        if kept is not None and kept["version"] >= match.version:
            return kept
        return self.acknowledge(match)

    def close(self) -> None:
        """Release the store's connections (tests and graceful shutdown)."""
        self.index.close()
        self.matches.close()


def gambit() -> Gambit:
    """The Gambit objects of the running app."""
    return current_app.extensions["gambit"]


MAX_INT = 2**63 - 1  # the stores' integer columns are 64-bit; larger values are not positions


def int_arg(name: str, default: int | None = None, minimum: int = 0, maximum: int | None = None) -> int | None:
    """An integer query parameter within bounds (never beyond 64 bits); 400 when it is not one."""
    maximum = MAX_INT if maximum is None else min(maximum, MAX_INT)
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise Problem(400, "invalid_parameter", f"'{name}' must be an integer", parameter=name) from None
    if value < minimum or value > maximum:
        raise Problem(400, "invalid_parameter", f"'{name}' must be between {minimum} and {maximum}", parameter=name)
    return value


def text_arg(name: str, max_length: int = 64) -> str | None:
    """A free-text query parameter (None when absent or empty)."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    if len(raw) > max_length:
        raise Problem(400, "invalid_parameter", f"'{name}' is longer than {max_length} characters", parameter=name)
    return raw


def choice_arg(name: str, choices: tuple[str, ...]) -> str | None:
    """A query parameter that must be one of a few values."""
    raw = request.args.get(name)
    if raw is None:
        return None
    if raw not in choices:
        raise Problem(400, "invalid_parameter", f"'{name}' must be one of: {', '.join(choices)}", parameter=name)
    return raw


def etag_version() -> int | None:
    """The version a client expects, from If-Match (`"5"`, `W/"5"` or `5`); 412 when malformed."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    value = raw.strip()
    if value.startswith("W/"):
        value = value[2:]
    value = value.strip('"')
    if not value.isdigit():
        raise Problem(412, "precondition_failed", "If-Match must be the match version as an ETag, e.g. \"12\"")
    return int(value)
