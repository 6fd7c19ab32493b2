"""Seat key pairs for tests (Ed25519 and ECDSA P-256, signing as WebCrypto does), and playing a match whose seats
sign every command over HTTP."""

from __future__ import annotations

import base64
import random

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from domain.seat_keys import signed_message
from tests.support.api import auth, going_on, legal_options

SIGNATURE = "Gambit-Signature"


class SeatKey:
    """A seat's key pair: its public key as a join sends it, and its signatures of commands."""

    def __init__(self, alg: str = "ed25519", spki: bool = False) -> None:
        self.alg = alg
        self._key = Ed25519PrivateKey.generate() if alg == "ed25519" else ec.generate_private_key(ec.SECP256R1())
        public = self._key.public_key()
        if spki:
            raw = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        elif alg == "ed25519":
            raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        else:
            raw = public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.sent = {"alg": alg, "key": base64.b64encode(raw).decode()}
        der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        self.recorded = {"alg": alg, "key": base64.b64encode(der).decode()}

    def sign_bytes(self, message: bytes) -> str:
        """Base64 of the signature of `message`: Ed25519, or P-256 ECDSA/SHA-256 as raw r‖s."""
        if self.alg == "ed25519":
            return base64.b64encode(self._key.sign(message)).decode()
        r, s = decode_dss_signature(self._key.sign(message, ec.ECDSA(hashes.SHA256())))
        return base64.b64encode(r.to_bytes(32, "big") + s.to_bytes(32, "big")).decode()

    def sign(self, match_id: str, version: int, command: dict) -> str:
        """The Gambit-Signature of a command decided on `version` of a match."""
        return self.sign_bytes(signed_message(match_id, version, command))


def join_keyed(client, match: dict, keys: dict[str, SeatKey | None], options: dict | None = None) -> dict:
    """Join every seat, each with its key (None: no key) and its join options (if any); returns seat → token."""
    tokens = {}
    for seat in [s["seat"] for s in match["seats"]]:
        body: dict = {"name": f"player-{seat}", "seat": seat}
        if keys.get(seat) is not None:
            body["public_key"] = keys[seat].sent
        if options and seat in options:
            body["options"] = options[seat]
        response = client.post(f"/matches/{match['match_id']}/seats", json=body)
        assert response.status_code == 201, response.get_json()
        tokens[seat] = response.get_json()["token"]
    return tokens


def signed_post(client, match_id: str, token: str, key: SeatKey | None, body: dict, version: int):
    """POST a command as a seat, signed by its key (when it has one) over the version it is decided on."""
    headers = auth(token)
    if key is not None:
        headers[SIGNATURE] = key.sign(match_id, version, body)
    return client.post(f"/matches/{match_id}/commands", json=body, headers=headers)


def play_signed(client, match_id: str, tokens: dict, keys: dict, rng: random.Random, until: int | None = None,
                max_commands: int = 5000, prefer=None) -> None:
    """Play random legal commands (those `prefer` picks, when it picks any), each signed by its seat's key, until
    the match finishes (or reaches `until`)."""
    for _ in range(max_commands):
        summary = client.get(f"/matches/{match_id}").get_json()
        if summary["status"] == "finished" or (until is not None and summary["version"] >= until):
            return
        seat = rng.choice(sorted(summary["to_act"]))
        options = going_on(legal_options(client, match_id, tokens[seat], rng))
        body = rng.choice([c for c in options if prefer(c)] or options if prefer is not None else options)
        response = signed_post(client, match_id, tokens[seat], keys.get(seat), body, summary["version"])
        assert response.status_code == 201, (body, response.get_json())
    raise AssertionError("the match did not finish")
