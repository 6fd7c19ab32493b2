"""Checking a receipt's signature: all `gambit verify` needs of the service key, and light to import.

The key's handling (generation, PEM files, rotation) lives in service/signing.py and imports much
more of the key library; a verification imports only this.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain.records import canonical

RECEIPT_V2 = "gambit-receipt/2"


def receipt_message(match_id: str, version: int, head: str) -> bytes:
    """The bytes a receipt (v1) signs: canonical JSON of the match id, version and chain head."""
    return canonical({"match_id": match_id, "version": version, "head": head})


def receipt_message_v2(match_id: str, version: int, head: str, log: str, merge_delay: int) -> bytes:
    """The bytes a v2 receipt signs: v1's fields, the log's origin and the merge delay it promises, and its
    version (so a v2 signature is never a v1 one with fields dropped)."""
    return canonical(
        {
            "receipt": RECEIPT_V2,
            "match_id": match_id,
            "version": version,
            "head": head,
            "log": log,
            "merge_delay": merge_delay,
        }
    )


def signed_message(receipt: dict) -> bytes:
    """What a receipt's signature signs: v2's message when it names a log, v1's otherwise."""
    if "log" in receipt or "merge_delay" in receipt:
        return receipt_message_v2(
            receipt["match_id"], receipt["version"], receipt["head"], receipt["log"], receipt["merge_delay"]
        )
    return receipt_message(receipt["match_id"], receipt["version"], receipt["head"])


def verify_receipt(public_key_b64: str, receipt: dict) -> bool:
    """Whether a receipt's signature is the key's signature of its match id, version and head."""
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key_b64))
        key.verify(
            base64.b64decode(receipt["signature"]),
            signed_message(receipt),
        )
    except (InvalidSignature, KeyError, ValueError, TypeError):
        return False
    return True


def key_id_of(public_key_b64: str) -> str:
    """A key's id, as receipts name it: the first 16 hex digits of the SHA-256 of its raw bytes."""
    return hashlib.sha256(base64.b64decode(public_key_b64)).hexdigest()[:16]


def signed_by(public_key_b64: str) -> Callable[[dict], bool]:
    """A check that a receipt names this key (its key_id) and carries its valid signature."""
    key_id = key_id_of(public_key_b64)
    return lambda receipt: receipt.get("key_id") == key_id and verify_receipt(public_key_b64, receipt)


def signed_by_any(public_keys_b64: Iterable[str]) -> Callable[[dict], bool]:
    """A check that a receipt names one of these keys (by its key_id) and carries that key's valid signature:
    across a key rotation, each receipt is checked against the key that made it."""
    by_id = {key_id_of(key): key for key in public_keys_b64}

    def check(receipt: dict) -> bool:
        key_id = receipt.get("key_id")
        key = by_id.get(key_id) if isinstance(key_id, str) else None
        return key is not None and verify_receipt(key, receipt)

    return check
