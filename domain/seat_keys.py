"""Seat keys: the public key a seat registers when it joins, and the signature it sends with each command
(docs/verification.md, section 2; `Gambit-Signature` in the API).

A seat's key is Ed25519 or ECDSA P-256 (for browsers whose WebCrypto lacks Ed25519). The match records it
in one canonical form, `{"alg", "key"}` with `key` the base64 of the key's SubjectPublicKeyInfo (DER), so
the join's receipt covers exactly one spelling of it. A signature signs the canonical JSON of
`{"match_id", "version", "command"}`, `version` being the version the command is decided on; it is 64 bytes
either way (Ed25519, or ECDSA with SHA-256 as raw r‖s, the form WebCrypto makes), sent and recorded in base64.

The domain reads keys and signatures as bytes only (it imports no key library): whether a signature holds is
a `SignatureCheck` the service gives it (service/seat_signatures.py), like the receipts' signature check.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from domain.errors import InvalidSeatKey
from domain.records import canonical

ED25519, P256 = "ed25519", "p256"
ALGORITHMS = (ED25519, P256)
SIGNATURE_BYTES = 64
# The SubjectPublicKeyInfo of each algorithm is this fixed DER prefix (the algorithm identifier and the bit
# string's header) followed by the raw key: 32 bytes (Ed25519), or the 65-byte uncompressed point (P-256).
SPKI_PREFIX = {
    ED25519: bytes.fromhex("302a300506032b6570032100"),
    P256: bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200"),
}
RAW_LENGTH = {ED25519: 32, P256: 65}
UNCOMPRESSED_POINT = 0x04
# The longest base64 text of a key either way (a P-256 SPKI is 91 bytes: 124 characters).
MAX_KEY_TEXT = 200

# Whether a signature (base64) is the canonical key's signature of the message: given by the service.
SignatureCheck = Callable[[dict, bytes, str], bool]


class InvalidPublicKey(ValueError):
    """A public key the service cannot take: an unknown algorithm, or bytes that are no key of it."""


def canonical_public_key(value: Any) -> dict:
    """The key as the match records it, `{"alg", "key": <base64 SPKI>}`, from `{"alg", "key"}` with the key in
    base64 of its raw form (Ed25519: 32 bytes; P-256: 65 bytes uncompressed) or of its SPKI; InvalidPublicKey
    when it is neither. (Whether a P-256 point lies on the curve is the key library's to say: the service
    checks it at join, and a point off the curve verifies no signature.)"""
    if not isinstance(value, dict) or set(value) != {"alg", "key"}:
        raise InvalidPublicKey('a public key is an object of exactly "alg" and "key"')
    alg, text = value["alg"], value["key"]
    if alg not in ALGORITHMS:
        raise InvalidPublicKey(f'"alg" must be one of {", ".join(ALGORITHMS)}')
    if not isinstance(text, str) or not 0 < len(text) <= MAX_KEY_TEXT:
        raise InvalidPublicKey('"key" must be base64 text of the raw or SPKI public key')
    raw = _strict_base64(text)
    if raw is None:
        raise InvalidPublicKey('"key" is not base64')
    key = raw_key(alg, raw)
    if key is None:
        raise InvalidPublicKey(f'"key" is no {alg} public key (raw or SubjectPublicKeyInfo)')
    return {"alg": alg, "key": base64.b64encode(SPKI_PREFIX[alg] + key).decode()}


def canonical_seat_key(value: Any) -> dict:
    """`canonical_public_key`, refusing a bad key with the match error InvalidSeatKey (`invalid_public_key`)."""
    try:
        return canonical_public_key(value)
    except InvalidPublicKey as exc:
        raise InvalidSeatKey(str(exc)) from None


def raw_key(alg: Any, data: bytes) -> bytes | None:
    """The raw key of `alg` whose raw or SPKI bytes are `data`; None when they are neither."""
    if alg not in ALGORITHMS:
        return None
    prefix, length = SPKI_PREFIX[alg], RAW_LENGTH[alg]
    if len(data) == len(prefix) + length and data.startswith(prefix):
        data = data[len(prefix) :]
    if len(data) != length or (alg == P256 and data[0] != UNCOMPRESSED_POINT):
        return None
    return data


def recorded_raw_key(public_key: Any) -> tuple[str, bytes] | None:
    """(alg, raw key) of a key as the match records it; None when it is not one."""
    if not isinstance(public_key, dict) or not isinstance(public_key.get("key"), str):
        return None
    spki = _strict_base64(public_key["key"])
    key = None if spki is None else raw_key(public_key.get("alg"), spki)
    return None if key is None else (public_key["alg"], key)


def signed_message(match_id: str, version: int, command: Any) -> bytes:
    """The bytes a seat signs for a command: canonical JSON of the match id, the version the command is decided
    on and the command body as sent."""
    return canonical({"match_id": match_id, "version": version, "command": command})


def decoded_signature(text: Any) -> bytes | None:
    """The signature's bytes when `text` is base64 of exactly 64 bytes; None otherwise."""
    if not isinstance(text, str) or len(text) > 4 * SIGNATURE_BYTES:
        return None
    raw = _strict_base64(text)
    return raw if raw is not None and len(raw) == SIGNATURE_BYTES else None


def _strict_base64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
