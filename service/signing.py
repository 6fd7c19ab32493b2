"""The service's Ed25519 signing key: receipts that bind a match's chain head to this server.

The key is generated on first start under the data directory (`signing-key.pem`, mode 0600)
or given by GAMBIT_SIGNING_KEY (a PEM, or a path to one). Its public half is served at
/.well-known/gambit-signing-key so a verifier can check receipts offline.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import os
import pathlib
from collections.abc import Callable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.tlog_note import Signature
from domain.tlog_rotation import retirement_entry, retirement_statement
from service.log_keys import sign_note
from service.receipt_signatures import RECEIPT_V2, key_id_of, receipt_message, receipt_message_v2, signed_by

KEY_FILE = "signing-key.pem"
ALGORITHM = "Ed25519"


class Signer:
    """Signs receipts with the service key."""

    def __init__(self, private_key: Ed25519PrivateKey, previous: tuple[str, ...] = ()) -> None:
        self._key = private_key
        raw = private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_key_b64 = base64.b64encode(raw).decode()
        self.key_id = hashlib.sha256(raw).hexdigest()[:16]
        # Receipts stored before a key rotation were signed by an earlier key: still this service's.
        self._trusted = [signed_by(self.public_key_b64), *(signed_by(key) for key in previous)]
        self.previous_keys = tuple(previous)
        # The log this service promises to enter every write in, and within how many seconds (receipt v2).
        self.log_origin: str | None = None
        self.merge_delay: int | None = None
        # Whether the log lets a receipt stand: one of a key retired in the log must be a leaf below its retirement.
        self._log_allows: Callable[[dict], bool] | None = None

    def heed_retirements(self, allows: Callable[[dict], bool]) -> None:
        """Check every receipt against the log's key retirements too (projections/tlog_log.TransparencyLog.allows)."""
        self._log_allows = allows

    def retirement_entry(self, log: str, retired_key: str, size: int) -> bytes:
        """The log leaf retiring an earlier key at this log size, signed by this key (docs/verification.md, 12)."""
        signature = base64.b64encode(self._key.sign(retirement_statement(log, retired_key, size))).decode()
        return retirement_entry(retired_key, size, self.key_id, signature)

    def promise_inclusion(self, log_origin: str, merge_delay: int) -> None:
        """Sign v2 receipts from now on: each promises its write a leaf of this log within the merge delay."""
        self.log_origin, self.merge_delay = log_origin, merge_delay

    def promising(self, log_origin: str, merge_delay: int) -> Signer:
        """This signer (the same key) promising another log: a partition's writes name its own log (issue 34)."""
        other = copy.copy(self)
        other.promise_inclusion(log_origin, merge_delay)
        return other

    def note_signature(self, text: str, name: str) -> Signature:
        """The service key's signed-note signature of a note (the log's checkpoints), under a key name."""
        return sign_note(text, name, self._key)

    @classmethod
    def load(cls, data_dir: str, configured: str | None = None, previous: tuple[str, ...] = ()) -> Signer:
        """The configured key, or the one under the data directory (created on first start)."""
        if configured:
            pem = (
                configured.encode()
                if configured.lstrip().startswith("-----BEGIN")
                else pathlib.Path(configured).read_bytes()
            )
            return cls(_private_from_pem(pem), previous)
        path = os.path.join(data_dir, KEY_FILE)
        if os.path.exists(path):
            with open(path, "rb") as handle:
                return cls(_private_from_pem(handle.read()), previous)
        os.makedirs(data_dir, exist_ok=True)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        # Workers start together: the key is written in full under a private name, then linked
        # into place atomically, so no worker ever reads a half-written file.
        draft = f"{path}.{os.getpid()}.tmp"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(draft, path)
        except FileExistsError:
            # Another worker placed its key first: use that one, so every worker signs alike.
            with open(path, "rb") as handle:
                return cls(_private_from_pem(handle.read()), previous)
        finally:
            os.unlink(draft)
        return cls(key, previous)

    def verify(self, receipt: dict) -> bool:
        """Whether a receipt carries a valid signature of this key or an earlier one (receipts read back), and, for a
        key the log retired, is of a write the log took in before the retirement."""
        if not any(check(receipt) for check in self._trusted):
            return False
        # The key signing now is not retired (the log retires only keys named as previous): no look-up on its receipts.
        if receipt.get("key_id") == self.key_id or self._log_allows is None:
            return True
        return self._log_allows(receipt)

    def derived_key(self, purpose: str) -> bytes:
        """A secret key for one purpose (sealing snapshots), derived from the signing key."""
        raw = self._key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        return hashlib.sha256(b"gambit-derived-key\0" + purpose.encode() + b"\0" + raw).digest()

    def public_key_document(self, retirements: dict[str, dict] | None = None) -> dict:
        """What /.well-known/gambit-signing-key serves; `retirements` (by retired key id) adds each previous key's
        retirement in the log, with its entry and proof."""
        retired = retirements or {}
        previous = []
        for key in self.previous_keys:
            item: dict[str, object] = {"public_key": key, "key_id": key_id_of(key)}
            if key_id_of(key) in retired:
                item["retired"] = retired[key_id_of(key)]
            previous.append(item)
        return {
            "algorithm": ALGORITHM,
            "public_key": self.public_key_b64,
            "key_id": self.key_id,
            "signs": 'canonical({"match_id", "version", "head"})',
            # Receipts that name a log (version 2) sign more: docs/verification.md, section 12.
            "signs_v2": f'canonical({{"receipt": "{RECEIPT_V2}", "match_id", "version", "head", "log", "merge_delay"}})',
            # The keys this service signed with before a rotation: receipts kept from then name one of
            # them, and `gambit verify --key` given this document checks each receipt against its own key.
            # With the log, each retired one carries its retirement: the size, the leaf entry, its tlog-proof.
            "previous_keys": previous,
        }

    def receipt(self, match_id: str, version: int, head: str) -> dict:
        """A signed receipt for a match's chain head at a version (v2, naming the log, once inclusion is promised)."""
        if self.log_origin is None or self.merge_delay is None:
            signature = self._key.sign(receipt_message(match_id, version, head))
            return {
                "match_id": match_id,
                "version": version,
                "head": head,
                "key_id": self.key_id,
                "signature": base64.b64encode(signature).decode(),
            }
        message = receipt_message_v2(match_id, version, head, self.log_origin, self.merge_delay)
        return {
            "match_id": match_id,
            "version": version,
            "head": head,
            "log": self.log_origin,
            "merge_delay": self.merge_delay,
            "key_id": self.key_id,
            "signature": base64.b64encode(self._key.sign(message)).decode(),
        }


def _private_from_pem(pem: bytes) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        # A key of another algorithm is a bad configured value, as an unreadable PEM is (ValueError).
        raise ValueError("the signing key must be an Ed25519 private key")  # noqa: TRY004
    return key
