"""Ed25519 for the log's notes: the log's checkpoint signatures and witnesses' cosignatures (C2SP signed-note,
tlog-cosignature), made and checked."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from domain.tlog_note import (
    ED25519_COSIGNATURE,
    ED25519_NOTE,
    Note,
    NoteError,
    Signature,
    cosignature_message,
    key_hash,
    parse_vkey,
)


def raw_public(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw bytes of a private key's public half."""
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def sign_note(text: str, name: str, key: Ed25519PrivateKey) -> Signature:
    """The log's signature line of a note (signed-note, Ed25519 type 0x01)."""
    return Signature(name, key_hash(name, ED25519_NOTE, raw_public(key)), key.sign(text.encode()))


def cosign(body: str, name: str, key: Ed25519PrivateKey, timestamp: int | None = None) -> Signature:
    """A witness's tlog-cosignature/v1 of a checkpoint body, at a time (now by default)."""
    when = int(time.time()) if timestamp is None else timestamp
    signature = key.sign(cosignature_message(body, when))
    return Signature(name, key_hash(name, ED25519_COSIGNATURE, raw_public(key)), when.to_bytes(8, "big") + signature)


@dataclass(frozen=True)
class NoteKey:
    """A key that may sign a note: its name, type (0x01 a log, 0x04 a cosigner) and 32-byte Ed25519 public key."""

    name: str
    kind: int
    public_key: bytes

    @classmethod
    def log(cls, name: str, public_key_b64: str) -> NoteKey:
        """The log's key: the service key under the log's origin."""
        return cls(name, ED25519_NOTE, base64.b64decode(public_key_b64))

    @classmethod
    def parse(cls, text: str) -> NoteKey:
        """A witness (or log) key from its vkey text; NoteError when it is not an Ed25519 one."""
        name, kind, public = parse_vkey(text)
        if kind not in (ED25519_NOTE, ED25519_COSIGNATURE) or len(public) != 32:
            raise NoteError("only Ed25519 note keys (type 0x01) and cosigner keys (type 0x04) are known")
        return cls(name, kind, public)

    @property
    def key_id(self) -> bytes:
        """The 4-byte id its signature lines carry."""
        return key_hash(self.name, self.kind, self.public_key)

    def signed(self, note: Note) -> Signature | None:
        """This key's valid signature on the note, or None (a line of another key, or a bad signature)."""
        key = Ed25519PublicKey.from_public_bytes(self.public_key)
        for line in note.signatures:
            if line.name != self.name or line.key_id != self.key_id:
                continue
            if self.kind == ED25519_NOTE:
                message, signature = note.text.encode(), line.signature
            else:
                if len(line.signature) != 8 + 64:
                    continue
                message = cosignature_message(note.text, int.from_bytes(line.signature[:8], "big"))
                signature = line.signature[8:]
            try:
                key.verify(signature, message)
            except InvalidSignature:
                continue
            return line
        return None

    def cosigned_at(self, note: Note) -> int | None:
        """The time a cosigner's valid cosignature on the note carries, or None when it has none."""
        line = self.signed(note)
        if line is None or self.kind != ED25519_COSIGNATURE:
            return None
        return int.from_bytes(line.signature[:8], "big")
