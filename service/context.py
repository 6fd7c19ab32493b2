"""The per-process objects the blueprints share (built per gunicorn worker, after fork)."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import current_app, request

from domain.application import MatchApp
from domain.match import Match
from projections.index import CrossMatchIndex
from projections.integrity import IntegrityAlerts
from service.metrics import Metrics
from service.problems import Problem
from service.settings import Settings
from service.signing import Signer
from service.streams import StreamHub


@dataclass
class Gambit:
    """The match application, the cross-match index and the settings of one process."""

    settings: Settings
    matches: MatchApp
    index: CrossMatchIndex
    alerts: IntegrityAlerts
    signer: Signer
    streams: StreamHub
    metrics: Metrics = field(default_factory=Metrics)

    def trailer_for(self, match: Match) -> dict:
        """The trailer an export of this match ends with: the receipt stored with its newest write.

        Never a receipt minted now: if records lie past the newest receipt, or the match fails
        its integrity checks, the trailer says so (and `gambit verify` fails the export).
        """
        receipt = match.receipt or {
            "match_id": match.match_id,
            "version": 0,
            "head": None,
            "key_id": None,
            "signature": None,
        }
        trailer = {"trailer": RECEIPT_FORMAT, **receipt}
        if receipt["version"] < match.version:
            trailer["unreceipted"] = {"from": receipt["version"] + 1, "to": match.version}
        problem = self.matches.integrity_problem(match)
        if problem is not None:
            trailer["integrity_problem"] = problem
        return trailer

    def close(self) -> None:
        """End open streams and release the store's connections (tests and graceful shutdown)."""
        self.streams.close()
        self.index.close()
        self.matches.close()


def gambit() -> Gambit:
    """The Gambit objects of the running app."""
    return current_app.extensions["gambit"]


RECEIPT_FORMAT = "gambit-receipt/1"
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
    value = value.removeprefix("W/")
    value = value.strip('"')
    if not value.isdigit():
        raise Problem(412, "precondition_failed", 'If-Match must be the match version as an ETag, e.g. "12"')
    return int(value)
