"""The transparency log's Merkle tree: RFC 6962 / RFC 9162 hashing, proofs and their checks, tile paths.

Every acknowledged write of a match is one leaf; its entry is the canonical JSON of the match id,
version, chain head and signing key id its receipt signs (docs/verification.md, section 12). The
tree is read through `Hashes`, the complete subtrees a store keeps at the tile levels (0, 8, 16, …:
C2SP tlog-tiles), so a proof needs no more than a few hundred hashes however large the log grows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from domain.records import canonical

TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
EMPTY_ROOT = hashlib.sha256(b"").digest()
# The most proof lines a tree of 2**63 leaves can need; longer input is refused before any hashing.
MAX_PROOF_HASHES = 63

# Reads the stored hashes at a tile level (0, 8, 16, …) with indices in [start, end), in order.
ReadLevel = Callable[[int, int, int], list[bytes]]


def leaf_hash(entry: bytes) -> bytes:
    """RFC 6962 leaf hash: SHA-256(0x00 || entry)."""
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 6962 interior node hash: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


SALT_BYTES = 32


def entry_bytes(match_id: str, version: int, head: str, key_id: str, salt: bytes | None = None) -> bytes:
    """A leaf's entry: canonical JSON of what the write's receipt signs and the key that signed it; with a salt (a
    match with a spectator delay), only a commitment to that: SHA-256(salt || the open entry), which hides the match,
    version and head from everyone until the salt is revealed and binds them all the same."""
    opened = canonical({"match_id": match_id, "version": version, "head": head, "key_id": key_id})
    if salt is None:
        return opened
    return canonical({"sealed": hashlib.sha256(salt + opened).hexdigest()})


def entry_of_receipt(receipt: dict, salt: bytes | None = None) -> bytes:
    """The leaf entry of a receipt (v1 or v2: the log name and merge delay are not part of the leaf), sealed with
    the salt its proof reveals (a tlog-proof's `extra`) when there is one."""
    return entry_bytes(receipt["match_id"], receipt["version"], receipt["head"], receipt["key_id"], salt)


def _split(size: int) -> int:
    """The largest power of two smaller than `size` (size ≥ 2): where RFC 6962 splits a range."""
    return 1 << ((size - 1).bit_length() - 1)


class Hashes:
    """The tree's hashes as a store keeps them: complete subtrees at the tile levels, read on demand."""

    def __init__(self, read_level: ReadLevel) -> None:
        self._read = read_level
        self._cache: dict[tuple[int, int], bytes] = {}

    def subtree(self, height: int, index: int) -> bytes:
        """The root of the complete subtree of 2**height leaves starting at leaf index * 2**height."""
        key = (height, index)
        if key in self._cache:
            return self._cache[key]
        stored = height - height % TILE_HEIGHT
        span = height - stored
        level = self._read(stored, index << span, (index + 1) << span)
        if len(level) != 1 << span:
            raise LookupError(f"the log holds no subtree at height {height}, index {index}")
        for _ in range(span):
            level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        self._cache[key] = level[0]
        return level[0]

    def range_hash(self, start: int, end: int) -> bytes:
        """MTH(D[start:end]) for a range that starts on a boundary of its size's split (every range a proof uses)."""
        size = end - start
        if size == 0:
            return EMPTY_ROOT
        if size & (size - 1) == 0 and start % size == 0:
            return self.subtree(size.bit_length() - 1, start // size)
        k = _split(size)
        return node_hash(self.range_hash(start, start + k), self.range_hash(start + k, end))

    def root(self, size: int) -> bytes:
        """The root hash of the tree of the first `size` leaves."""
        return self.range_hash(0, size)

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """RFC 6962 PATH(index, D[0:size]): the leaf's sibling first, up to the root's child."""
        if not 0 <= index < size:
            raise ValueError(f"leaf {index} is not in a tree of {size}")
        return self._path(index, 0, size)

    def _path(self, index: int, start: int, end: int) -> list[bytes]:
        if end - start == 1:
            return []
        k = _split(end - start)
        if index < start + k:
            return [*self._path(index, start, start + k), self.range_hash(start + k, end)]
        return [*self._path(index, start + k, end), self.range_hash(start, start + k)]

    def consistency_proof(self, old: int, new: int) -> list[bytes]:
        """RFC 6962 PROOF(old, D[0:new]): empty when old is 0 or equals new."""
        if not 0 <= old <= new:
            raise ValueError(f"no consistency proof from {old} to {new}")
        if old in (0, new):
            return []
        return self._subproof(old, 0, new, True)

    def _subproof(self, old: int, start: int, end: int, whole: bool) -> list[bytes]:
        size = end - start
        if old == size:
            return [] if whole else [self.range_hash(start, end)]
        k = _split(size)
        if old <= k:
            return [*self._subproof(old, start, start + k, whole), self.range_hash(start + k, end)]
        return [*self._subproof(old - k, start + k, end, False), self.range_hash(start, start + k)]


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: list[bytes]) -> bytes | None:
    """The root an inclusion proof leads to (RFC 9162, 2.1.3.2); None when the proof cannot be one for index/size."""
    if not 0 <= index < size or len(proof) > MAX_PROOF_HASHES:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return r if sn == 0 else None


def consistent(old: int, new: int, old_root: bytes, new_root: bytes, proof: list[bytes]) -> bool:
    """Whether a consistency proof shows the tree of `new` leaves extends the one of `old` (RFC 9162, 2.1.4.2)."""
    if not 0 <= old <= new or len(proof) > MAX_PROOF_HASHES:
        return False
    if old == new:
        return not proof and old_root == new_root
    if old == 0:
        return not proof
    if not proof:
        return False
    path = [old_root, *proof] if old & (old - 1) == 0 else list(proof)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == old_root and sr == new_root and sn == 0


class Frontier:
    """The roots of the complete subtrees a tree's leaves make (its binary decomposition): enough to append and
    to give the root, and which tile-level hashes each append completes."""

    def __init__(self, size: int = 0, roots: list[tuple[int, bytes]] | None = None) -> None:
        self.size = size
        # (height, hash), largest subtree first.
        self.roots: list[tuple[int, bytes]] = list(roots or [])

    @classmethod
    def of(cls, hashes: Hashes, size: int) -> Frontier:
        """The frontier of the stored tree of `size` leaves."""
        roots: list[tuple[int, bytes]] = []
        start = 0
        for height in range(size.bit_length() - 1, -1, -1):
            if size >> height & 1:
                roots.append((height, hashes.subtree(height, start >> height)))
                start += 1 << height
        return cls(size, roots)

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        """Add a leaf; returns the (level, index, hash) of each tile-level subtree above level 0 it completes."""
        completed: list[tuple[int, int, bytes]] = []
        height, value, index = 0, leaf, self.size
        while self.roots and self.roots[-1][0] == height:
            _, left = self.roots.pop()
            value = node_hash(left, value)
            height += 1
            index >>= 1
            if height % TILE_HEIGHT == 0:
                completed.append((height, index, value))
        self.roots.append((height, value))
        self.size += 1
        return completed

    def root(self) -> bytes:
        """The tree's root hash."""
        if not self.roots:
            return EMPTY_ROOT
        value = self.roots[-1][1]
        for _, left in reversed(self.roots[:-1]):
            value = node_hash(left, value)
        return value


# ----- tile paths (C2SP tlog-tiles) -------------------------------------------------------------


def tile_index_path(n: int) -> str:
    """A tile index as tlog-tiles writes it: three-digit elements, all but the last prefixed with x."""
    parts = [f"{n % 1000:03d}"]
    n //= 1000
    while n > 0:
        parts.append(f"x{n % 1000:03d}")
        n //= 1000
    return "/".join(reversed(parts))


def parse_tile_path(path: str) -> tuple[Any, int, int] | None:
    """(level or "entries", index, width) of a tile path after `tile/` (width 256 for a full tile); None if malformed."""
    parts = path.split("/")
    if len(parts) < 2:
        return None
    head, rest = parts[0], parts[1:]
    if head == "entries":
        level: Any = "entries"
    elif head.isdigit() and head == str(int(head)) and int(head) <= 63:
        level = int(head)
    else:
        return None
    width = TILE_WIDTH
    if len(rest) >= 2 and rest[-2].endswith(".p"):
        w = rest[-1]
        if not (w.isdigit() and w == str(int(w)) and 1 <= int(w) < TILE_WIDTH):
            return None
        width = int(w)
        rest = [*rest[:-2], rest[-2][: -len(".p")]]
    index = 0
    for position, element in enumerate(rest):
        last = position == len(rest) - 1
        digits = element if last else element[1:]
        if not last and not element.startswith("x"):
            return None
        if len(digits) != 3 or not digits.isdigit():
            return None
        index = index * 1000 + int(digits)
    if tile_index_path(index) != "/".join(rest):
        return None  # one tile, one path: no leading x000 elements
    return level, index, width


def tile_path(level: Any, index: int, width: int = TILE_WIDTH) -> str:
    """The path (after `tile/`) of a tile: level (or "entries"), index, and `.p/<width>` for a partial one."""
    path = f"{level}/{tile_index_path(index)}"
    return path if width == TILE_WIDTH else f"{path}.p/{width}"


def entry_bundle(entries: list[bytes]) -> bytes:
    """An entries tile: each entry as a big-endian 16-bit length and its bytes."""
    return b"".join(len(entry).to_bytes(2, "big") + entry for entry in entries)


def read_entry_bundle(data: bytes) -> list[bytes]:
    """The entries of an entries tile; ValueError when it is cut short."""
    entries, at = [], 0
    while at < len(data):
        if at + 2 > len(data):
            raise ValueError("an entries tile ends inside a length")
        size = int.from_bytes(data[at : at + 2], "big")
        if at + 2 + size > len(data):
            raise ValueError("an entries tile ends inside an entry")
        entries.append(data[at + 2 : at + 2 + size])
        at += 2 + size
    return entries
