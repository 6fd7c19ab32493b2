"""The log's Merkle tree follows RFC 6962: proofs made from tile-level hashes verify, and nothing else does."""

from __future__ import annotations

import hashlib
import random

import pytest

from domain.tlog import (
    EMPTY_ROOT,
    Frontier,
    Hashes,
    consistent,
    entry_bundle,
    leaf_hash,
    node_hash,
    parse_tile_path,
    read_entry_bundle,
    root_from_inclusion,
    tile_path,
)


def _reference_root(leaves: list[bytes]) -> bytes:
    """MTH straight from RFC 6962, section 2.1, on the leaf hashes."""
    if not leaves:
        return EMPTY_ROOT
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return node_hash(_reference_root(leaves[:k]), _reference_root(leaves[k:]))


def _tree(size: int) -> tuple[list[bytes], Hashes, Frontier]:
    """A tree of `size` leaves, its hashes kept only at the tile levels, as the store keeps them."""
    leaves = [leaf_hash(f"leaf {i}".encode()) for i in range(size)]
    stored: dict[int, dict[int, bytes]] = {0: dict(enumerate(leaves))}
    frontier = Frontier()
    for leaf in leaves:
        for level, index, value in frontier.append(leaf):
            stored.setdefault(level, {})[index] = value

    def read(level: int, start: int, end: int) -> list[bytes]:
        return [stored[level][i] for i in range(start, end) if i in stored.get(level, {})]

    return leaves, Hashes(read), frontier


def test_the_leaf_and_node_hashes_are_rfc_6962s():
    assert leaf_hash(b"") == hashlib.sha256(b"\x00").digest()
    assert node_hash(b"a" * 32, b"b" * 32) == hashlib.sha256(b"\x01" + b"a" * 32 + b"b" * 32).digest()
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 8, 255, 256, 257, 300, 513, 1000])
def test_the_root_from_tile_level_hashes_and_from_the_frontier_is_the_reference_root(size):
    leaves, hashes, frontier = _tree(size)
    assert hashes.root(size) == frontier.root() == _reference_root(leaves)
    assert Frontier.of(hashes, size).root() == frontier.root()


def test_every_inclusion_proof_verifies_and_a_changed_one_does_not():
    rng = random.Random(7)
    leaves, hashes, _ = _tree(700)
    for size in [1, 2, 5, 256, 257, 699, 700]:
        root = _reference_root(leaves[:size])
        for index in {0, size - 1, rng.randrange(size)}:
            proof = hashes.inclusion_proof(index, size)
            assert root_from_inclusion(index, size, leaves[index], proof) == root
            if proof:
                bent = [*proof[:-1], bytes(32)]
                assert root_from_inclusion(index, size, leaves[index], bent) != root
            other = (index + 1) % size
            if other != index:
                assert root_from_inclusion(index, size, leaves[other], proof) != root


def test_every_consistency_proof_verifies_and_a_fork_does_not():
    leaves, hashes, _ = _tree(600)
    for old, new in [(0, 5), (1, 2), (3, 7), (4, 8), (8, 8), (256, 600), (255, 257), (300, 513), (599, 600)]:
        proof = hashes.consistency_proof(old, new)
        old_root, new_root = _reference_root(leaves[:old]), _reference_root(leaves[:new])
        assert consistent(old, new, old_root, new_root, proof)
        forked = _reference_root([*leaves[: new - 1], leaf_hash(b"another")])
        if 0 < old < new:  # every tree extends the empty one
            assert not consistent(old, new, old_root, forked, proof)
        if old > 0:
            assert not consistent(old, new, leaf_hash(b"x"), new_root, proof)


@pytest.mark.parametrize(
    ("path", "parsed"),
    [
        ("0/000", (0, 0, 256)),
        ("0/x001/x234/067", (0, 1234067, 256)),
        ("2/005.p/17", (2, 5, 17)),
        ("entries/x001/000.p/255", ("entries", 1000, 255)),
    ],
)
def test_tile_paths_read_and_write_as_tlog_tiles_spells_them(path, parsed):
    assert parse_tile_path(path) == parsed
    assert tile_path(*parsed) == path


@pytest.mark.parametrize("path", ["0/1", "0/x000/001", "64/000", "0/000.p/256", "0/000.p/0", "01/000", "x/000", "0"])
def test_a_path_that_is_not_a_tile_is_refused(path):
    assert parse_tile_path(path) is None


def test_an_entries_tile_holds_each_entry_behind_its_length():
    entries = [b"", b"a", b"x" * 300]
    assert read_entry_bundle(entry_bundle(entries)) == entries
    with pytest.raises(ValueError):
        read_entry_bundle(entry_bundle(entries)[:-1])
