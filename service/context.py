"""The per-process objects the blueprints share (built per gunicorn worker, after fork)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import overload

from flask import current_app, request

from domain.application import MatchService
from domain.match import Match
from projections.index import CrossMatchIndex
from projections.integrity import IntegrityAlerts
from projections.tlog_log import TransparencyLog, log_evidence
from service.metrics import Metrics
from service.problems import Problem
from service.settings import Settings
from service.signing import Signer
from service.streams import StreamHub


@dataclass
class Gambit:
    """The match service (with its clock and tournament services), the cross-match index and the settings of one process."""

    settings: Settings
    matches: MatchService
    index: CrossMatchIndex
    alerts: IntegrityAlerts
    signer: Signer
    streams: StreamHub
    metrics: Metrics = field(default_factory=Metrics)
    # The event store's transparency log (projections/tlog_log.py): the first partition's.
    log: TransparencyLog | None = None
    # One log per partition, in the partitions' order (the first is `log`); empty: only `log`.
    logs: list[TransparencyLog] = field(default_factory=list)

    def partition_logs(self) -> list[TransparencyLog]:
        """The transparency log of each partition, in order (one without partitions)."""
        return self.logs or ([self.log] if self.log is not None else [])

    def log_of(self, match_id: str) -> TransparencyLog | None:
        """The log a match's writes enter: its partition's."""
        logs = self.partition_logs()
        if len(logs) <= 1:
            return self.log
        return logs[self.matches.store.partition_number(match_id)]

    def trailer_for(self, match: Match, log_since: int | None = None) -> dict:
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
        trailer = {"trailer": RECEIPT_FORMAT_V2 if "log" in receipt else RECEIPT_FORMAT, **receipt}
        log = self.log_of(match.match_id)
        if log is not None and ("log" in receipt or self._retired(receipt, log)):
            # A receipt of a retired key (even one from before receipts named the log) needs its proof to stand.
            trailer.update(log_evidence(log, match.match_id, receipt, log_since))
        if receipt["version"] < match.version:
            trailer["unreceipted"] = {"from": receipt["version"] + 1, "to": match.version}
        problem = self.matches.store.integrity_problem(match)
        if problem is not None:
            trailer["integrity_problem"] = problem
        return trailer

    def _retired(self, receipt: dict, log: TransparencyLog) -> bool:
        key_id = receipt.get("key_id")
        if not isinstance(key_id, str) or key_id == self.signer.key_id:
            return False  # the key signing now is never retired: no look-up for the receipts it makes
        return log.retired_size(key_id) is not None

    def close(self) -> None:
        """End open streams and release the store's connections (tests and graceful shutdown)."""
        self.streams.close()
        self.index.close()
        self.matches.close()


def gambit() -> Gambit:
    """The Gambit objects of the running app."""
    return current_app.extensions["gambit"]


RECEIPT_FORMAT = "gambit-receipt/1"
RECEIPT_FORMAT_V2 = "gambit-receipt/2"
MAX_INT = 2**63 - 1  # the stores' integer columns are 64-bit; larger values are not positions
# Digits of the largest integer any header, query or path part may carry. Longer text is refused
# before int() sees it: Python refuses to convert more than 4,300 digits with an error of its own.
MAX_INT_DIGITS = len(str(MAX_INT))
_DECIMAL = re.compile(r"-?[0-9]+")


def bounded_int(text: str) -> int | None:
    """`text` as an integer when it is ASCII decimal digits (an optional leading `-`) within ±MAX_INT; else None.

    The length is checked before any conversion, so no input reaches Python's int/str digit limit.
    """
    if len(text.lstrip("-")) > MAX_INT_DIGITS or not _DECIMAL.fullmatch(text):
        return None
    value = int(text)
    return value if -MAX_INT <= value <= MAX_INT else None


# With a default the parameter always has a value; without one, None stands for "absent".
@overload
def int_arg(name: str, default: int, minimum: int = 0, maximum: int | None = None) -> int: ...
@overload
def int_arg(name: str, default: None = None, minimum: int = 0, maximum: int | None = None) -> int | None: ...
def int_arg(name: str, default: int | None = None, minimum: int = 0, maximum: int | None = None) -> int | None:
    """An integer query parameter (ASCII digits, see bounded_int) within bounds (never beyond 64 bits); 400 otherwise."""
    maximum = MAX_INT if maximum is None else min(maximum, MAX_INT)
    raw = request.args.get(name)
    if raw is None:
        return default
    value = bounded_int(raw)
    if value is None:
        if _DECIMAL.fullmatch(raw):  # digits, but more than any position has
            raise Problem(400, "invalid_parameter", f"'{name}' must be between {minimum} and {maximum}", parameter=name)
        raise Problem(400, "invalid_parameter", f"'{name}' must be an integer", parameter=name)
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


def etag_version(current: int | None = None) -> int | None:
    """The version `If-Match` lets a write happen at (RFC 9110 §13.1.1, parsed by werkzeug); None: no condition.

    `current` is the match's version as just loaded. `*` matches any current match (None); a list
    matches when any tag is the current version, and then that version is returned. Otherwise the
    newest version named is returned, so the write is refused with 412 `version_mismatch` — after
    a retried Idempotency-Key has had its first answer. A header naming no version at all (`"abc"`,
    empty) is 412 `precondition_failed`.

    A weak tag (`W/"5"`) counts as its version, although RFC 9110 compares strongly under
    If-Match: this service only ever sends strong ETags, a weak one reaches a client only when a
    proxy weakened it (compressing the body), and it still names the match version the write is
    conditioned on, so refusing it would break such clients for nothing. A bare `5` is read as
    `"5"`, as it always was. A tag of more digits than any version can have (beyond 2**63 - 1)
    names no version.
    """
    if "If-Match" not in request.headers:
        return None
    tags = request.if_match
    if tags.star_tag:
        return None
    versions = {int(tag) for tag in tags.as_set(include_weak=True) if _names_a_version(tag)}
    if not versions:
        raise Problem(412, "precondition_failed", 'If-Match must be the match version as an ETag, e.g. "12"')
    if current is not None and current in versions:
        return current
    return max(versions)


_VERSION_TAG = re.compile(r"0|[1-9][0-9]*")


def _names_a_version(tag: str) -> bool:
    """Whether an entity tag spells a version: decimal, no leading zero, within the stores' 64 bits."""
    return len(tag) <= MAX_INT_DIGITS and _VERSION_TAG.fullmatch(tag) is not None and int(tag) <= MAX_INT
