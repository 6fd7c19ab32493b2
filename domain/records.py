"""The fixed formulas of the event record: canonical JSON, commitments and the hash chain.

These are the formulas of API.md, "The event record"; independent verifiers are written
against them, so they never change shape.
"""

from __future__ import annotations

import hashlib
import json
import secrets as _secrets
from typing import Any


def canonical(value: Any) -> bytes:
    """Encode a JSON value canonically: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


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
