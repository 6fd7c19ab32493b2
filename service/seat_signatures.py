"""Checking a seat's signature of a command, and whether a seat's key is a usable key: the key library's part of
seat keys (domain/seat_keys.py reads the bytes; the domain imports no key library). Light to import, as
`gambit verify` imports it."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from domain.seat_keys import ED25519, SIGNATURE_BYTES, decoded_signature, recorded_raw_key

HALF = SIGNATURE_BYTES // 2


def _loaded(public_key: object) -> Ed25519PublicKey | ec.EllipticCurvePublicKey | None:
    found = recorded_raw_key(public_key)
    if found is None:
        return None
    alg, raw = found
    try:
        if alg == ED25519:
            return Ed25519PublicKey.from_public_bytes(raw)
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return None


def usable_key(public_key: object) -> bool:
    """Whether a canonical seat key is a key of its algorithm (a P-256 point on the curve)."""
    return _loaded(public_key) is not None


def seat_signature_holds(public_key: dict, message: bytes, signature: str) -> bool:
    """Whether `signature` (base64: Ed25519, or P-256 ECDSA/SHA-256 as raw r‖s) is the key's signature of
    `message`; False for anything malformed."""
    raw = decoded_signature(signature)
    key = _loaded(public_key)
    try:
        if raw is None or key is None:
            return False
        if isinstance(key, Ed25519PublicKey):
            key.verify(raw, message)
        else:
            r, s = int.from_bytes(raw[:HALF], "big"), int.from_bytes(raw[HALF:], "big")
            key.verify(encode_dss_signature(r, s), message, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True
