"""Key retirement through the log: the leaf that retires a signing key, and what it lets a verifier conclude.

When the service's signing key rotates, the new key logs the old one's retirement as a leaf of its own kind: the
retired key, and the log's size when it was retired, which is that leaf's own index. Every write the retired key
made before is a leaf below that index; a receipt of the retired key whose write is not is no receipt of this
service (a leaked old key, docs/verification.md section 12). Only the formats live here; the Ed25519 signing and
checking is the caller's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass

from domain.records import canonical

RETIREMENT = "gambit-key-retirement/1"
_ENTRY_KEYS = frozenset({"key_id", "retired_key", "retired_key_id", "signature", "size"})


def key_id_of(public_key_b64: str) -> str:
    """A signing key's id, as receipts name it: the first 16 hex digits of SHA-256 of its raw 32 bytes."""
    return hashlib.sha256(base64.b64decode(public_key_b64)).hexdigest()[:16]


def retirement_statement(log: str, retired_key: str, size: int) -> bytes:
    """What the new key signs to retire an old one: the log, the retired public key (base64) and the log's size."""
    return canonical({"retirement": RETIREMENT, "log": log, "retired_key": retired_key, "size": size})


def retirement_entry(retired_key: str, size: int, key_id: str, signature: str) -> bytes:
    """The leaf entry retiring a key: the retired key and its id, the size, the retiring key's id and its signature of
    the statement (so the entry alone proves who retired what, where the log's checkpoint proves it was logged)."""
    return canonical(
        {
            "key_id": key_id,
            "retired_key": retired_key,
            "retired_key_id": key_id_of(retired_key),
            "signature": signature,
            "size": size,
        }
    )


@dataclass(frozen=True)
class Retirement:
    """A key retirement read from its leaf entry: the retired key, the log size it was retired at, who retired it."""

    retired_key: str
    retired_key_id: str
    size: int
    key_id: str
    signature: bytes

    def statement(self, log: str) -> bytes:
        """The statement its signature must sign, in the log it is a leaf of."""
        return retirement_statement(log, self.retired_key, self.size)


def is_retirement(entry: bytes) -> bool:
    """Whether a leaf entry is a key retirement (an object with a `retired_key`), not a write."""
    return entry.startswith(b"{") and b'"retired_key":' in entry


def parse_retirement(entry: bytes) -> Retirement | None:
    """The retirement a leaf entry holds, or None when it is not a well-formed one (in canonical form)."""
    try:
        value = json.loads(entry)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or set(value) != _ENTRY_KEYS:
        return None
    retired, size, key_id, signature = value["retired_key"], value["size"], value["key_id"], value["signature"]
    if not (isinstance(retired, str) and isinstance(key_id, str) and isinstance(signature, str)):
        return None
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return None
    try:
        raw_key = base64.b64decode(retired, validate=True)
        raw_signature = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw_key) != 32 or len(raw_signature) != 64 or value["retired_key_id"] != key_id_of(retired):
        return None
    if retirement_entry(retired, size, key_id, signature) != entry:
        return None  # one entry, one spelling: a leaf that is not canonical is no retirement
    return Retirement(retired, value["retired_key_id"], size, key_id, raw_signature)


@dataclass(frozen=True)
class RetirementProof:
    """A retirement leaf with its inclusion proof in a checkpoint: what a witness is shown before it cosigns the
    checkpoints of a log's new key (the retirement of the key it cosigned for until then, signed by the new one)."""

    index: int
    entry: bytes
    hashes: tuple[bytes, ...]

    def render(self) -> str:
        """Its one-line form (an HTTP header's value): base64 of the canonical JSON of index, entry and proof."""
        value = {
            "index": self.index,
            "entry": base64.b64encode(self.entry).decode(),
            "proof": [base64.b64encode(h).decode() for h in self.hashes],
        }
        return base64.b64encode(canonical(value)).decode()


# The most proof hashes a tree of 2**63 leaves can need.
_MAX_PROOF_HASHES = 63


def parse_retirement_proof(text: str) -> RetirementProof | None:
    """A retirement proof from its one-line form, or None when it is not one."""
    try:
        value = json.loads(base64.b64decode(text.strip(), validate=True))
    except (binascii.Error, ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or set(value) != {"index", "entry", "proof"}:
        return None
    index, entry, proof = value["index"], value["entry"], value["proof"]
    if not isinstance(index, int) or isinstance(index, bool) or index < 0 or not isinstance(entry, str):
        return None
    if not isinstance(proof, list) or len(proof) > _MAX_PROOF_HASHES or not all(isinstance(h, str) for h in proof):
        return None
    try:
        hashes = tuple(base64.b64decode(h, validate=True) for h in proof)
        raw_entry = base64.b64decode(entry, validate=True)
    except (binascii.Error, ValueError):
        return None
    if any(len(h) != 32 for h in hashes):
        return None
    return RetirementProof(index, raw_entry, hashes)
