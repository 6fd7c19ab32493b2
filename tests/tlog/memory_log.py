"""A log in memory for the witness tests: leaves, roots, consistency proofs and checkpoints signed by a log key."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.tlog import Hashes, leaf_hash
from domain.tlog_note import ED25519_NOTE, AddCheckpoint, Checkpoint, Note, vkey
from service.log_keys import raw_public, sign_note

ORIGIN = "example.test/log"


class MemoryLog:
    """A small log (under 256 leaves: level 0 is all its tiles hold) with its own Ed25519 key."""

    def __init__(self, origin: str = ORIGIN, key: Ed25519PrivateKey | None = None) -> None:
        self.origin = origin
        self.key = key or Ed25519PrivateKey.generate()
        self.leaves: list[bytes] = []

    @property
    def vkey(self) -> str:
        """The log's verifier key, as a witness is given it."""
        return vkey(self.origin, ED25519_NOTE, raw_public(self.key))

    def add(self, *entries: bytes) -> MemoryLog:
        """Append entries."""
        self.leaves.extend(leaf_hash(entry) for entry in entries)
        return self

    def hashes(self) -> Hashes:
        """The tree's hashes."""
        return Hashes(lambda level, start, end: self.leaves[start:end] if level == 0 else [])

    def note(self, size: int | None = None) -> Note:
        """The signed checkpoint of the first `size` leaves (all by default)."""
        size = len(self.leaves) if size is None else size
        body = Checkpoint(self.origin, size, self.hashes().root(size)).body()
        return Note(body, (sign_note(body, self.origin, self.key),))

    def add_checkpoint(self, old: int, size: int | None = None) -> str:
        """The add-checkpoint request body from `old` to the tree of `size` leaves."""
        size = len(self.leaves) if size is None else size
        return AddCheckpoint(old, tuple(self.hashes().consistency_proof(old, size)), self.note(size)).render()
