"""The log's worked example in docs/verification.md (section 12) is what the code computes."""

from __future__ import annotations

import base64
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.tlog import Frontier, Hashes, entry_bytes, leaf_hash
from domain.tlog_note import Checkpoint
from domain.tlog_rotation import retirement_statement
from service.signing import Signer

DOC = Path(__file__).resolve().parents[2] / "docs" / "verification.md"
KEY_ID = "fe812c12f3ab4ce6"
HEADS = [
    ("m", 1, "cd1c950969cffb47dbb907a46e8525d95d1ae861e266962ab1e257b55d8982e2"),
    ("m", 2, "68a037b90c2bd866f6cf8e09385fcda742fafbaa0247aab8baca1cdf40a376d0"),
    ("n", 1, "00" * 32),
]


def test_the_worked_example_of_the_log_is_what_the_code_computes():
    text = DOC.read_text(encoding="utf-8").split("## 12. The transparency log")[1]
    entries = [entry_bytes(match_id, version, head, KEY_ID) for match_id, version, head in HEADS]
    leaves = [leaf_hash(entry) for entry in entries]
    frontier = Frontier()
    for leaf in leaves:
        frontier.append(leaf)
    hashes = Hashes(lambda level, start, end: leaves[start:end])
    body = Checkpoint(f"gambit-log/{KEY_ID}", 3, frontier.root()).body()
    proof = "index 1\n" + "".join(base64.b64encode(h).decode() + "\n" for h in hashes.inclusion_proof(1, 3))
    assert f"entry 1 = {entries[1].decode()}\n" in text
    assert f"leaf hash 1 = {leaves[1].hex()}\n" in text
    assert f"```\n{body}```" in text
    assert f"```\n{proof}```" in text


def test_the_worked_example_of_a_key_retirement_is_what_the_code_computes():
    text = DOC.read_text(encoding="utf-8").split("### Key rotation: the new key retires the old one in the log")[1]
    old = Signer(Ed25519PrivateKey.from_private_bytes(b"\x07" * 32))
    new = Signer(Ed25519PrivateKey.from_private_bytes(b"\x08" * 32))
    origin = f"gambit-log/{KEY_ID}"
    entry = new.retirement_entry(origin, old.public_key_b64, 3)
    leaves = [leaf_hash(entry_bytes(match_id, version, head, KEY_ID)) for match_id, version, head in HEADS]
    frontier = Frontier()
    for leaf in [*leaves, leaf_hash(entry)]:
        frontier.append(leaf)
    assert f"public key is\n`{new.public_key_b64}` and key id `{new.key_id}`" in text
    assert f"statement = {retirement_statement(origin, old.public_key_b64, 3).decode()}\n" in text
    assert f"entry 3 = {entry.decode()}\n" in text
    assert f"leaf hash 3 = {leaf_hash(entry).hex()}\n" in text
    assert f"```\n{Checkpoint(origin, 4, frontier.root()).body()}```" in text
