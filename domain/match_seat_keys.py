"""A match's seats and their keys: the seats taken, their client seeds and token hashes, the key in force for a seat, the check of a command's signature, and the organizer's
re-key of a seat that lost its key (methods of Match; docs/verification.md, section 2).

The records they make are folded by the Match itself (domain/match.py `_fold`), like every record.
"""

from __future__ import annotations

from domain.errors import InvalidSignature, RekeyRefused, SignatureRequired
from domain.match_shape import MatchShape
from domain.records import SEAT_KEY_CHANGED, json_copy
from domain.ruleset import ORGANIZER, Event
from domain.seat_keys import SignatureCheck, decoded_signature, signed_message


class MatchSeatKeys(MatchShape):
    """The seat and seat-key methods of a Match (a base class of it, holding no state of its own)."""

    def client_seeds(self) -> list[str]:
        """Client seeds in seat order; a seat that gave none (or has not joined) contributes ''."""
        return [self.seats.get(seat, {}).get("client_seed", "") for seat in self.seat_order]

    def free_seats(self) -> list[str]:
        """Seats nobody has taken yet, in order."""
        return [seat for seat in self.seat_order if seat not in self.seats]

    def token_hashes(self) -> dict[str, str]:
        """Seat → hash of its bearer token."""
        return {seat: info["token_hash"] for seat, info in self.seats.items()}

    def seat_key(self, seat: str) -> dict | None:
        """The public key in force for a seat (`{"alg", "key"}`), or None when it registered none."""
        return self.seats.get(seat, {}).get("public_key")

    def check_signature(self, seat: str, sent: dict, signature: str | None, holds: SignatureCheck | None) -> None:
        """Refuse a keyed seat's command without its valid signature over this match, the current version (the one
        the command is decided on) and the body as sent, as `holds` (the service's key library) says; an unkeyed
        seat's signature, if any, is refused too, since no key could check it."""
        key = self.seat_key(seat)
        if key is None:
            if signature is not None:
                raise InvalidSignature(f"{seat} registered no public key, so its commands carry no Gambit-Signature")
            return
        if signature is None:
            raise SignatureRequired(f"{seat} registered a public key: its commands need a Gambit-Signature")
        if decoded_signature(signature) is None:
            raise InvalidSignature("Gambit-Signature must be base64 of a 64-byte signature")
        if holds is None or not holds(key, signed_message(self.match_id, self.version, sent), signature):
            raise InvalidSignature(
                f"Gambit-Signature is not {seat}'s signature of this match, version {self.version} and this command"
            )

    def rekey(self, seat: str, public_key: dict, note: str) -> None:
        """The organizer gives a joined seat a new public key (canonical form); its later commands need it."""
        if seat not in self.seats:
            raise RekeyRefused(f"{seat} has not joined this match, so it has no key to change")
        if self.status == "finished":
            raise RekeyRefused("the match has finished; its seats send no more commands")
        public = {"seat": seat, "public_key": json_copy(public_key), "by": ORGANIZER, "note": note}
        self._record(Event(SEAT_KEY_CHANGED, public))
