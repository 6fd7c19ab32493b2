"""A log in memory for the witness tests: leaves, roots, consistency proofs and checkpoints signed by a log key."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.tlog import TILE_HEIGHT, TILE_WIDTH, Hashes, entry_bundle, leaf_hash, node_hash, parse_tile_path
from domain.tlog_note import ED25519_NOTE, AddCheckpoint, Checkpoint, Note, vkey
from service.log_keys import raw_public, sign_note

ORIGIN = "example.test/log"


class MemoryLog:
    """A small log (under 256 leaves: level 0 is all its tiles hold) with its own Ed25519 key."""

    def __init__(self, origin: str = ORIGIN, key: Ed25519PrivateKey | None = None) -> None:
        self.origin = origin
        self.key = key or Ed25519PrivateKey.generate()
        self.leaves: list[bytes] = []
        self.entries: list[bytes] = []

    @property
    def vkey(self) -> str:
        """The log's verifier key, as a witness is given it."""
        return vkey(self.origin, ED25519_NOTE, raw_public(self.key))

    def add(self, *entries: bytes) -> MemoryLog:
        """Append entries."""
        self.leaves.extend(leaf_hash(entry) for entry in entries)
        self.entries.extend(entries)
        return self

    def fetch(self, path: str) -> bytes:
        """What the log serves under its URL: its checkpoint and its level-0 and entries tiles (OSError otherwise)."""
        if path == "checkpoint":
            return self.note().render().encode()
        parsed = parse_tile_path(path.removeprefix("tile/"))
        if parsed is None:
            raise OSError(f"HTTP 404 for {path}")
        level, index, width = parsed
        start = index * TILE_WIDTH
        if level == "entries":
            if start + width > len(self.entries):
                raise OSError(f"HTTP 404 for {path}")
            return entry_bundle(self.entries[start : start + width])
        hashes = self.read_level(TILE_HEIGHT * level, start, start + width)
        if len(hashes) != width:
            raise OSError(f"HTTP 404 for {path}")
        return b"".join(hashes)

    def hashes(self) -> Hashes:
        """The tree's hashes."""
        return Hashes(self.read_level)

    def read_level(self, height: int, start: int, end: int) -> list[bytes]:
        """The complete subtrees of 2**height leaves with indices in [start, end) (computed, as a store keeps them)."""
        found = []
        for index in range(start, end):
            leaves = self.leaves[index << height : (index + 1) << height]
            if len(leaves) < 1 << height:
                break
            while len(leaves) > 1:
                leaves = [node_hash(leaves[i], leaves[i + 1]) for i in range(0, len(leaves), 2)]
            found.append(leaves[0])
        return found

    def note(self, size: int | None = None) -> Note:
        """The signed checkpoint of the first `size` leaves (all by default)."""
        size = len(self.leaves) if size is None else size
        body = Checkpoint(self.origin, size, self.hashes().root(size)).body()
        return Note(body, (sign_note(body, self.origin, self.key),))

    def add_checkpoint(self, old: int, size: int | None = None) -> str:
        """The add-checkpoint request body from `old` to the tree of `size` leaves."""
        size = len(self.leaves) if size is None else size
        return AddCheckpoint(old, tuple(self.hashes().consistency_proof(old, size)), self.note(size)).render()
