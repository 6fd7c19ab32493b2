"""The log's text formats (C2SP): signed notes, checkpoints, cosignature messages, tlog-proof, add-checkpoint.

Only formats live here; the Ed25519 signing and checking is the caller's (service/log_keys.py), so the
verifier and the witness read these with the key library they already load.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field

from domain.tlog import MAX_PROOF_HASHES

SIGNATURE_DASH = "\u2014"  # signed-note: every signature line starts with an em dash and a space
ED25519_NOTE = 0x01
ED25519_COSIGNATURE = 0x04
PROOF_HEADER = "c2sp.org/tlog-proof@v1"
COSIGNATURE_HEADER = "cosignature/v1"
# A note over this size is refused before it is parsed (a checkpoint with many cosignatures is ~2 kB).
MAX_NOTE_BYTES = 64 * 1024


class NoteError(ValueError):
    """Text that is not a well-formed note, checkpoint or proof."""


def key_hash(name: str, kind: int, public_key: bytes) -> bytes:
    """The 4-byte key id of a signed-note key: SHA-256(name || "\\n" || type || public key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public_key).digest()[:4]


def vkey(name: str, kind: int, public_key: bytes) -> str:
    """A verifier key as signed-note writes it: name+hex key id+base64(type || public key)."""
    encoded = base64.b64encode(bytes([kind]) + public_key).decode()
    return f"{name}+{key_hash(name, kind, public_key).hex()}+{encoded}"


def parse_vkey(text: str) -> tuple[str, int, bytes]:
    """(name, type, public key) of a verifier key; NoteError when it is not one or its key id does not match."""
    parts = text.strip().split("+", 2)  # the base64 key part may itself hold a "+"
    if len(parts) != 3 or not parts[0]:
        raise NoteError("a verifier key is name+keyid+base64(type || key)")
    name, hex_id, encoded = parts
    raw = _b64(encoded)
    if raw is None or len(raw) != 33:
        raise NoteError("a verifier key's key part is not base64 of a type byte and 32 key bytes")
    if key_hash(name, raw[0], raw[1:]).hex() != hex_id:
        raise NoteError("a verifier key's key id does not match its name and key")
    return name, raw[0], raw[1:]


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


@dataclass(frozen=True)
class Signature:
    """One signature line of a note: the key's name, its 4-byte id and the signature bytes after it."""

    name: str
    key_id: bytes
    signature: bytes

    def line(self) -> str:
        """The signature line, newline included."""
        return f"{SIGNATURE_DASH} {self.name} {base64.b64encode(self.key_id + self.signature).decode()}\n"


@dataclass(frozen=True)
class Note:
    """A signed note: its text (ending in a newline) and its signature lines."""

    text: str
    signatures: tuple[Signature, ...] = ()

    def render(self) -> str:
        """The note as served: text, a blank line, the signature lines."""
        return self.text + "\n" + "".join(s.line() for s in self.signatures)

    def with_signatures(self, more: list[Signature]) -> Note:
        """This note with more signature lines (a line already present is not repeated)."""
        known = set(self.signatures)
        return Note(self.text, self.signatures + tuple(s for s in more if s not in known))


def parse_signature_lines(text: str) -> list[Signature]:
    """Signature lines (as a witness answers add-checkpoint); NoteError for a line that is not one."""
    found = []
    for line in text.split("\n"):
        if not line:
            continue
        if not line.startswith(SIGNATURE_DASH + " "):
            raise NoteError("a signature line starts with an em dash and a space")
        parts = line[2:].split(" ")
        if len(parts) != 2 or not parts[0]:
            raise NoteError("a signature line is a key name and one base64 signature")
        raw = _b64(parts[1])
        if raw is None or len(raw) < 5:
            raise NoteError("a signature is base64 of a 4-byte key id and the signature")
        found.append(Signature(parts[0], raw[:4], raw[4:]))
    return found


def parse_note(text: str) -> Note:
    """A signed note from its text form; NoteError when it is not one (no signature, bad lines)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_NOTE_BYTES:
        raise NoteError("the note is too large")
    at = text.rfind("\n\n")
    if at < 0 or not text.endswith("\n"):
        raise NoteError("a note is text, a blank line and signature lines, each ending in a newline")
    body, lines = text[: at + 1], text[at + 2 :]
    signatures = parse_signature_lines(lines)
    if not signatures:
        raise NoteError("the note has no signature")
    return Note(body, tuple(signatures))


@dataclass(frozen=True)
class Checkpoint:
    """A tlog-checkpoint body: the log's origin, the tree size and root hash (and extension lines)."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def body(self) -> str:
        """The note text: origin, size, base64 root, extension lines, each ending in a newline."""
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode(), *self.extensions]
        return "".join(line + "\n" for line in lines)


def parse_checkpoint(body: str) -> Checkpoint:
    """The checkpoint a note's text holds; NoteError when it is not one."""
    lines = body.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        raise NoteError("a checkpoint is an origin, a size and a root hash, each on a line")
    origin, size, root, *extensions = lines[:-1]
    if not origin:
        raise NoteError("the checkpoint's origin is empty")
    if not size.isdigit() or size != str(int(size)) or int(size) >= 1 << 63:
        raise NoteError("the checkpoint's size is not a decimal without leading zeroes")
    raw = _b64(root)
    if raw is None or len(raw) != 32:
        raise NoteError("the checkpoint's root is not base64 of 32 bytes")
    if any(not line for line in extensions):
        raise NoteError("a checkpoint's extension line is empty")
    return Checkpoint(origin, int(size), raw, tuple(extensions))


def cosignature_message(body: str, timestamp: int) -> bytes:
    """What a tlog-cosignature/v1 Ed25519 cosignature signs: its header and time lines, then the checkpoint."""
    return f"{COSIGNATURE_HEADER}\ntime {timestamp}\n{body}".encode()


@dataclass(frozen=True)
class Proof:
    """A tlog-proof: the leaf index, its inclusion proof and the checkpoint note it proves against."""

    index: int
    hashes: tuple[bytes, ...]
    note: Note
    checkpoint: Checkpoint = field(compare=False)
    extra: bytes | None = None

    def render(self) -> str:
        """The proof's text form (c2sp.org/tlog-proof@v1)."""
        lines = [PROOF_HEADER]
        if self.extra is not None:
            lines.append("extra " + base64.b64encode(self.extra).decode())
        lines.append(f"index {self.index}")
        lines.extend(base64.b64encode(h).decode() for h in self.hashes)
        return "\n".join(lines) + "\n\n" + self.note.render()


def parse_proof(text: str) -> Proof:
    """A tlog-proof from its text; NoteError when it is not one."""
    head, sep, rest = text.partition("\n\n")
    lines = head.split("\n")
    if not sep or lines[0] != PROOF_HEADER:
        raise NoteError(f"a proof starts with {PROOF_HEADER}")
    extra = None
    position = 1
    if len(lines) > position and lines[position].startswith("extra "):
        extra = _b64(lines[position][len("extra ") :])
        if extra is None:
            raise NoteError("the proof's extra data is not base64")
        position += 1
    if len(lines) <= position or not lines[position].startswith("index "):
        raise NoteError("the proof has no index line")
    index = lines[position][len("index ") :]
    if not index.isdigit() or index != str(int(index)):
        raise NoteError("the proof's index is not a decimal without leading zeroes")
    hashes = [_b64(line) for line in lines[position + 1 :]]
    if len(hashes) > MAX_PROOF_HASHES or any(h is None or len(h) != 32 for h in hashes):
        raise NoteError("the proof's hashes are not base64 of 32 bytes each (at most 63)")
    note = parse_note(rest)
    return Proof(int(index), tuple(h for h in hashes if h is not None), note, parse_checkpoint(note.text), extra)


@dataclass(frozen=True)
class AddCheckpoint:
    """A tlog-witness add-checkpoint request: the old size, a consistency proof from it, the checkpoint note."""

    old: int
    proof: tuple[bytes, ...]
    note: Note

    def render(self) -> str:
        """The request body."""
        lines = [f"old {self.old}", *(base64.b64encode(h).decode() for h in self.proof)]
        return "".join(line + "\n" for line in lines) + "\n" + self.note.render()


def parse_add_checkpoint(text: str) -> AddCheckpoint:
    """An add-checkpoint request body; NoteError when it is not one."""
    head, sep, rest = text.partition("\n\n")
    lines = head.split("\n")
    if not sep or not lines[0].startswith("old "):
        raise NoteError("the request starts with an old size line")
    old = lines[0][len("old ") :]
    if not old.isdigit() or old != str(int(old)):
        raise NoteError("the old size is not a decimal without leading zeroes")
    hashes = [_b64(line) for line in lines[1:]]
    if len(hashes) > MAX_PROOF_HASHES or any(h is None or len(h) != 32 for h in hashes):
        raise NoteError("the consistency proof is not base64 hashes of 32 bytes (at most 63)")
    return AddCheckpoint(int(old), tuple(h for h in hashes if h is not None), parse_note(rest))
