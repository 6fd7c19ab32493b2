"""`gambit witness`: an independent witness of transparency logs (C2SP tlog-witness, `add-checkpoint`).

A witness cosigns (tlog-cosignature/v1, with its time) a checkpoint of a log it knows only when the
log's key signed it and it extends the last checkpoint the witness cosigned for that log, proven by
the consistency proof the request carries. So two parties shown two different trees under one log
name cannot both hold a checkpoint a quorum of honest witnesses cosigned.

Its own Ed25519 key is made on first run in its state directory, beside one small file per log
(origin, size, root) that survives restarts; the file is replaced whole (written aside, then
renamed) before a cosignature leaves, so a crash never lets it cosign two trees of one size.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from flask import Flask, Response, request

from domain.tlog import consistent
from domain.tlog_note import ED25519_COSIGNATURE, ED25519_NOTE, NoteError, parse_add_checkpoint, parse_checkpoint, vkey
from service.log_keys import NoteKey, cosign, raw_public

KEY_FILE = "witness-key.pem"
VKEY_FILE = "witness.vkey"
LOGS_DIR = "logs"
TEXT = "text/plain; charset=utf-8"
# tlog-witness: a 409 for a wrong old size carries the witness's size in this content type.
SIZE_TYPE = "text/x.tlog.size"
# A request body larger than this is refused before it is read (a checkpoint and 63 proof lines are ~5 kB).
MAX_BODY = 64 * 1024


class WitnessRefusal(Exception):
    """A request the witness does not cosign: an HTTP status and a one-line reason."""

    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


@dataclass(frozen=True)
class Seen:
    """The last checkpoint a witness cosigned for a log: its size and root."""

    size: int
    root: bytes


class Witness:
    """A witness's key, the logs it knows and its state on disk; `add_checkpoint` is its one operation."""

    def __init__(self, state_dir: str, name: str, log_keys: list[str], clock: Callable[[], float] = time.time) -> None:
        """`log_keys`: the vkeys (signed-note, Ed25519 type 0x01) of the logs it witnesses; their names are the
        logs' origins. ValueError when a key is not such a vkey or `name` cannot name a note key."""
        if not name or any(ch.isspace() or ch == "+" for ch in name):
            raise ValueError(f"a witness name is printable text without spaces or '+', not {name!r}")
        self.dir = Path(state_dir)
        (self.dir / LOGS_DIR).mkdir(parents=True, exist_ok=True)
        self.name = name
        self.clock = clock
        self.key = _load_or_make_key(self.dir / KEY_FILE)
        self.vkey = vkey(name, ED25519_COSIGNATURE, raw_public(self.key))
        (self.dir / VKEY_FILE).write_text(self.vkey + "\n", encoding="utf-8")
        self.logs: dict[str, NoteKey] = {}
        for text in log_keys:
            try:
                key = NoteKey.parse(text)
            except NoteError as exc:
                raise ValueError(f"{text!r} is not a log's verifier key: {exc}") from None
            if key.kind != ED25519_NOTE:
                raise ValueError(f"{text!r} is a cosigner key, not a log's (type 0x01)")
            self.logs[key.name] = key
        self._lock = threading.Lock()

    def _path(self, origin: str) -> Path:
        return self.dir / LOGS_DIR / (hashlib.sha256(origin.encode()).hexdigest() + ".json")

    def seen(self, origin: str) -> Seen | None:
        """The last checkpoint cosigned for a log, or None before the first."""
        path = self._path(origin)
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return Seen(int(data["size"]), base64.b64decode(data["root"]))

    def _keep(self, origin: str, seen: Seen) -> None:
        path = self._path(origin)
        aside = path.with_suffix(".tmp")
        text = json.dumps({"origin": origin, "size": seen.size, "root": base64.b64encode(seen.root).decode()})
        with open(aside, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(aside, path)

    def add_checkpoint(self, body: str) -> str:
        """The cosignature line of a checkpoint (tlog-witness add-checkpoint); WitnessRefusal when not cosigned."""
        try:
            request_ = parse_add_checkpoint(body)
            checkpoint = parse_checkpoint(request_.note.text)
        except NoteError as exc:
            raise WitnessRefusal(400, "invalid_request", f"not an add-checkpoint request: {exc}") from None
        key = self.logs.get(checkpoint.origin)
        if key is None:
            raise WitnessRefusal(404, "unknown_log", f"this witness does not know the log {checkpoint.origin!r}")
        if key.signed(request_.note) is None:
            raise WitnessRefusal(403, "not_signed_by_log", "the checkpoint is not signed by the log's key")
        if request_.old > checkpoint.size:
            raise WitnessRefusal(
                400, "invalid_request", f"the old size {request_.old} is larger than the checkpoint's {checkpoint.size}"
            )
        with self._lock:
            seen = self.seen(checkpoint.origin) or Seen(0, b"")
            if request_.old != seen.size:
                raise WitnessRefusal(409, "old_size_mismatch", str(seen.size))
            if seen.size and not consistent(
                seen.size, checkpoint.size, seen.root, checkpoint.root, list(request_.proof)
            ):
                raise WitnessRefusal(
                    422,
                    "inconsistent",
                    f"the checkpoint of {checkpoint.size} leaves does not extend the one of {seen.size} cosigned",
                )
            self._keep(checkpoint.origin, Seen(checkpoint.size, checkpoint.root))
            return cosign(request_.note.text, self.name, self.key, int(self.clock())).line()


def _load_or_make_key(path: Path) -> Ed25519PrivateKey:
    """The witness's key: read from its file, or made and written there (owner-only) on first run."""
    if path.exists():
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path} holds no Ed25519 private key")
        return key
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)
    return key


def _refused(refusal: WitnessRefusal) -> Response:
    """A refusal as tlog-witness wants it: for a wrong old size, 409 with the witness's size as text/x.tlog.size;
    otherwise its status with a problem+json body carrying a stable `code`."""
    if refusal.status == 409:
        return Response(refusal.reason + "\n", status=409, content_type=SIZE_TYPE)
    body = {"type": "about:blank", "title": refusal.code.replace("_", " ").capitalize(), "status": refusal.status}
    body.update({"code": refusal.code, "detail": refusal.reason})
    return Response(json.dumps(body), status=refusal.status, content_type="application/problem+json")


def create_witness_app(witness: Witness) -> Flask:
    """The witness over HTTP: POST /add-checkpoint (C2SP tlog-witness), and GET / saying who it is."""
    app = Flask("gambit-witness")

    @app.post("/add-checkpoint")
    def add_checkpoint() -> Response:
        """Cosign a checkpoint that extends the last one cosigned for its log."""
        if (request.content_length or 0) > MAX_BODY:
            return _refused(WitnessRefusal(413, "too_large", f"the request is larger than {MAX_BODY} bytes"))
        body = request.get_data(as_text=True)
        try:
            line = witness.add_checkpoint(body)
        except WitnessRefusal as refusal:
            return _refused(refusal)
        return Response(line, content_type=TEXT)

    @app.get("/")
    def about() -> Response:
        """The witness's name, verifier key and the logs it witnesses."""
        return Response(
            json.dumps({"name": witness.name, "vkey": witness.vkey, "logs": sorted(witness.logs)}),
            content_type="application/json",
        )

    return app
