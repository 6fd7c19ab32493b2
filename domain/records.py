"""The fixed formulas of the event record: canonical JSON, commitments and the hash chain.

These are the formulas of API.md, "The event record"; independent verifiers are written
against them, so they never change shape.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets as _secrets
from typing import Any

MAX_JSON_INT = 2**53 - 1
# Any integer beyond MAX_JSON_INT is written with at least this many digits in a row.
_LONG_DIGIT_RUN = re.compile(rb"[0-9]{%d}" % len(str(MAX_JSON_INT)))


def canonical(value: Any) -> bytes:
    """Encode a JSON value canonically: sorted keys, no spaces, UTF-8; ValueError for what JSON cannot carry."""
    # NaN/Infinity, lone surrogates and integers beyond 2**53 - 1 are refused so that no chained
    # record can hold a value other languages' JSON readers reject or round.
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a lone UTF-16 surrogate is not text and cannot be encoded") from None
    # The C-speed scan finds no long digit run in nearly every record; only then is the value
    # walked to tell an integer from digits inside a string.
    if _LONG_DIGIT_RUN.search(data) is not None:
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


def commitment(secret: Any, salt: str) -> str:
    """The salted commitment to a secret part."""
    return sha256_hex(canonical({"salt": salt, "secret": secret}))


def genesis(match_id: str) -> str:
    """The 'previous chain' of a match's first record."""
    return sha256_hex(("gambit:" + match_id).encode())


def chain_link(previous: str, version: int, kind: str, timestamp: str, public: Any, commitment_hex: str | None) -> str:
    """The chain value of one record, linked to the previous record's chain."""
    body = {"version": version, "kind": kind, "timestamp": timestamp, "public": public, "commitment": commitment_hex}
    return sha256_hex(bytes.fromhex(previous) + canonical(body))
