"""The fixed formulas of the event record: canonical JSON, commitments and the hash chain.

These are the formulas of docs/verification.md ("The event record", "The chain"); verifiers are written
against them, so they never change shape.
"""

from __future__ import annotations

import hashlib
import json
import secrets as _secrets
from collections.abc import Callable
from json.encoder import (  # type: ignore[attr-defined]  # c_make_encoder: json's private C accelerator, not in typeshed
    c_make_encoder,
    encode_basestring,
)
from typing import Any

MAX_JSON_INT = 2**53 - 1

# Exactly what `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
# allow_nan=False)` builds on every call, built once: the set-up is much of the cost of a small value.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# The C encoder that `_ENCODER.encode` makes per call, made once and without the cycle check: only
# for values parsed from JSON text, which cannot be cyclic (None where Python has no C encoder).
_ENCODE_ACYCLIC = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", True, False, False)
)
# Any integer beyond MAX_JSON_INT is written with at least this many ASCII digits in a row; mapping
# every digit to "0" and every other byte to " " finds such a run with one C-speed search.
_LONG_DIGIT_RUN = b"0" * len(str(MAX_JSON_INT))
_DIGITS_TO_ZERO = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))


# The C encoder `json.dumps(value)` makes per call, made once (no cycle check: the values copied are
# plain data the rules and the records built), writing non-ASCII text as is (the copy reads it back).
_ENCODE_FOR_COPY = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True)
)
_DECODE = json.JSONDecoder().decode


def json_copy(value: Any) -> Any:
    """An independent JSON-typed copy (tuples become lists), as `json.loads(json.dumps(value))` makes it, sooner."""
    if _ENCODE_FOR_COPY is None:
        return json.loads(json.dumps(value))
    return _DECODE("".join(_ENCODE_FOR_COPY(value, 0)))


def canonical(value: Any) -> bytes:
    """Encode a JSON value canonically: sorted keys, no spaces, UTF-8; ValueError for what JSON cannot carry."""
    return _checked_utf8(_ENCODER.encode(value), value)


def canonical_parsed(value: Any) -> bytes:
    """`canonical(value)` for a value parsed from JSON text (never cyclic): the same bytes or error, sooner."""
    if _ENCODE_ACYCLIC is None:
        return canonical(value)
    return _checked_utf8("".join(_ENCODE_ACYCLIC(value, 0)), value)


def chain_body_parsed(version: int, kind: str, timestamp: str, public: Any, commitment_hex: str | None) -> bytes:
    """`chain_body(..., canonical)` for parts parsed from JSON text: the same bytes or error, built
    without the five-key object around them (its keys in code-point order: commitment, kind,
    public, timestamp, version)."""
    plain = type(version) is int and type(kind) is str and type(timestamp) is str
    if _ENCODE_ACYCLIC is None or not plain or not (commitment_hex is None or type(commitment_hex) is str):
        return chain_body(version, kind, timestamp, public, commitment_hex, canonical_parsed)
    if not -MAX_JSON_INT <= version <= MAX_JSON_INT:
        raise ValueError("an integer is beyond ±(2**53 - 1), the range every JSON reader keeps exact")
    text = "".join(
        (
            '{"commitment":',
            "null" if commitment_hex is None else encode_basestring(commitment_hex),
            ',"kind":',
            encode_basestring(kind),
            ',"public":',
            *_ENCODE_ACYCLIC(public, 0),
            ',"timestamp":',
            encode_basestring(timestamp),
            ',"version":',
            str(version),
            "}",
        )
    )
    return _checked_utf8(text, public)


def opening_parsed(secret: Any, salt: str) -> bytes:
    """`opening(secret, salt, canonical)` for parts parsed from JSON text: the same bytes or error, sooner."""
    if _ENCODE_ACYCLIC is None or type(salt) is not str:
        return opening(secret, salt, canonical_parsed)
    return _checked_utf8(
        "".join(('{"salt":', encode_basestring(salt), ',"secret":', *_ENCODE_ACYCLIC(secret, 0), "}")), secret
    )


def _checked_utf8(text: str, value: Any) -> bytes:
    # NaN/Infinity (refused by the encoder), lone surrogates and integers beyond 2**53 - 1 are
    # refused so that no chained record can hold a value other languages' JSON readers reject or round.
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a lone UTF-16 surrogate is not text and cannot be encoded") from None
    # The C-speed scan finds no long digit run in nearly every record; only then is the value
    # walked to tell an integer from digits inside a string.
    if _LONG_DIGIT_RUN in data.translate(_DIGITS_TO_ZERO):
        _check_ints(value)
    return data


def _check_ints(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            continue
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool) and not -MAX_JSON_INT <= item <= MAX_JSON_INT:
            raise ValueError("an integer is beyond ±(2**53 - 1), the range every JSON reader keeps exact")


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of some bytes."""
    return hashlib.sha256(data).hexdigest()


def new_salt() -> str:
    """A fresh 128-bit salt as 32 hex characters."""
    return _secrets.token_hex(16)


def opening(secret: Any, salt: str, encode: Callable[[Any], bytes] = canonical) -> bytes:
    """The bytes a commitment hashes: the secret part with its salt, canonically."""
    return encode({"salt": salt, "secret": secret})


def commitment(secret: Any, salt: str) -> str:
    """The salted commitment to a secret part."""
    return sha256_hex(opening(secret, salt))


def genesis(match_id: str) -> str:
    """The 'previous chain' of a match's first record."""
    return sha256_hex(("gambit:" + match_id).encode())


def chain_body(
    version: int,
    kind: str,
    timestamp: str,
    public: Any,
    commitment_hex: str | None,
    encode: Callable[[Any], bytes] = canonical,
) -> bytes:
    """The bytes of one record that its chain link hashes after the previous link."""
    return encode(
        {"version": version, "kind": kind, "timestamp": timestamp, "public": public, "commitment": commitment_hex}
    )


def linked(previous: str, body: bytes) -> str:
    """The chain value of a record with this chain body, after the previous record's chain."""
    digest = hashlib.sha256(bytes.fromhex(previous))
    digest.update(body)
    return digest.hexdigest()


def chain_link(previous: str, version: int, kind: str, timestamp: str, public: Any, commitment_hex: str | None) -> str:
    """The chain value of one record, linked to the previous record's chain."""
    return linked(previous, chain_body(version, kind, timestamp, public, commitment_hex))


# A record names what it reveals to everyone (`public.opens`, copies in `secret.opened`) and what
# it rests on but keeps sealed (`public.sealed_evidence`, copies in `secret.sealed_evidence`).
EVIDENCE_FIELDS = (("opens", "opened"), ("sealed_evidence", "sealed_evidence"))
EVIDENCE_NAMES = frozenset(name for name, _ in EVIDENCE_FIELDS)
EVIDENCE_COPIES = frozenset(copies for _, copies in EVIDENCE_FIELDS)

# The kinds of record the match itself writes, whatever its ruleset (the rulesets' own kinds are theirs).
MATCH_CREATED = "MatchCreated"
SEAT_JOINED = "SeatJoined"
MATCH_FINISHED = "MatchFinished"
DISPUTE_FILED = "DisputeFiled"
DISPUTE_RULED = "DisputeRuled"
OUTCOME_AMENDED = "OutcomeAmended"
# The command a seat sent, recorded first in the write it causes (docs/verification.md, section 2).
COMMAND_RECEIVED = "CommandReceived"
# The organizer's new key for a seat that lost its own (docs/verification.md, section 2).
SEAT_KEY_CHANGED = "SeatKeyChanged"
# `MatchCreated.public.records_causes: true`: the match records the cause of every write (each command, as
# `CommandReceived`, and each seat's join options, in its `SeatJoined`), so a verifier holds it to them
# (docs/verification.md, section 2). A match created before then has no such field.
RECORDS_CAUSES = "records_causes"
# The secret of a `SeatJoined` whose seat gave join options: `{"options": …}`, for that seat.
JOIN_OPTIONS = "options"
MATCH_KINDS = frozenset(
    {
        MATCH_CREATED,
        SEAT_JOINED,
        MATCH_FINISHED,
        DISPUTE_FILED,
        DISPUTE_RULED,
        OUTCOME_AMENDED,
        COMMAND_RECEIVED,
        SEAT_KEY_CHANGED,
    }
)
