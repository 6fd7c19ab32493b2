"""`gambit witness`: an independent witness of transparency logs (C2SP tlog-witness, `add-checkpoint`).

A witness cosigns (tlog-cosignature/v1, with its time) a checkpoint of a log it knows only when the
log's key signed it and it extends the last checkpoint the witness cosigned for that log, proven by
the consistency proof the request carries. So two parties shown two different trees under one log
name cannot both hold a checkpoint a quorum of honest witnesses cosigned.

Its own Ed25519 key is made on first run in its state directory, beside one small file per log
(origin, size, root, the log key it cosigned for, the keys it learned were retired) that survives
restarts; the file is replaced whole (written aside, then renamed) before a cosignature leaves, so a
crash never lets it cosign two trees of one size.

It learns a rotation of the log's key from the log itself (docs/verification.md, section 12, "Key
rotation"): it cosigns for one of the log's configured keys at a time. A checkpoint signed by
another configured key is cosigned only with the proof (the `Gambit-Key-Retirement` header: the
log's retirement leaves with their inclusion proofs, comma-separated, oldest first) that the
checkpoint's tree holds the retirement of the key it cosigned for until then, signed by the key that
replaced it, and so on to the key signing now (a witness away across two rotations follows both);
from then on it refuses a checkpoint of a retired key for a tree larger than the log's size at its
retirement, so a leaked old key gets no new cosignature.
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

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from flask import Flask, Response, request

from domain.tlog import consistent, leaf_hash, root_from_inclusion
from domain.tlog_note import (
    ED25519_COSIGNATURE,
    ED25519_NOTE,
    Checkpoint,
    NoteError,
    parse_add_checkpoint,
    parse_checkpoint,
    vkey,
)
from domain.tlog_rotation import key_id_of, parse_retirement, parse_retirement_proof
from service.log_keys import NoteKey, cosign, raw_public

KEY_FILE = "witness-key.pem"
VKEY_FILE = "witness.vkey"
LOGS_DIR = "logs"
TEXT = "text/plain; charset=utf-8"
# tlog-witness: a 409 for a wrong old size carries the witness's size in this content type.
SIZE_TYPE = "text/x.tlog.size"
# A request body larger than this is refused before it is read (a checkpoint and 63 proof lines are ~5 kB).
MAX_BODY = 64 * 1024
# The request header carrying a key retirement with its inclusion proof (domain/tlog_rotation.py, RetirementProof).
RETIREMENT_HEADER = "Gambit-Key-Retirement"
# The most retirements one header may carry (its proofs, comma-separated, oldest first).
_MAX_RETIREMENTS = 64


class WitnessRefusal(Exception):
    """A request the witness does not cosign: an HTTP status and a one-line reason."""

    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


@dataclass(frozen=True)
class Seen:
    """The last checkpoint a witness cosigned for a log: its size and root, the log key that signed it (None in a state
    written before witnesses kept it), and the log keys it learned were retired, each with the log's size then."""

    size: int
    root: bytes
    key: bytes | None = None
    retired: tuple[tuple[str, int], ...] = ()

    def retired_at(self, public_key: bytes) -> int | None:
        """The log size at which a log key was retired, or None while the witness knows of no retirement of it."""
        key_id = key_id_of(base64.b64encode(public_key).decode())
        return next((size for retired, size in self.retired if retired == key_id), None)


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
        # A log's keys by its origin: more than one while its signing key rotates (the same log, so the same state).
        self.logs: dict[str, list[NoteKey]] = {}
        for text in log_keys:
            try:
                key = NoteKey.parse(text)
            except NoteError as exc:
                raise ValueError(f"{text!r} is not a log's verifier key: {exc}") from None
            if key.kind != ED25519_NOTE:
                raise ValueError(f"{text!r} is a cosigner key, not a log's (type 0x01)")
            self.logs.setdefault(key.name, []).append(key)
        self._lock = threading.Lock()

    def _path(self, origin: str) -> Path:
        return self.dir / LOGS_DIR / (hashlib.sha256(origin.encode()).hexdigest() + ".json")

    def seen(self, origin: str) -> Seen | None:
        """The last checkpoint cosigned for a log, or None before the first."""
        path = self._path(origin)
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        key = base64.b64decode(data["key"]) if data.get("key") else None
        retired = tuple((str(k), int(v)) for k, v in sorted((data.get("retired") or {}).items()))
        return Seen(int(data["size"]), base64.b64decode(data["root"]), key, retired)

    def _keep(self, origin: str, seen: Seen) -> None:
        path = self._path(origin)
        aside = path.with_suffix(".tmp")
        text = json.dumps(
            {
                "origin": origin,
                "size": seen.size,
                "root": base64.b64encode(seen.root).decode(),
                "key": base64.b64encode(seen.key).decode() if seen.key else None,
                "retired": dict(seen.retired),
            }
        )
        with open(aside, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(aside, path)

    def add_checkpoint(self, body: str, retirement: str | None = None) -> str:
        """The cosignature line of a checkpoint (tlog-witness add-checkpoint); WitnessRefusal when not cosigned.

        `retirement`: a key retirement with its inclusion proof in this checkpoint (RetirementProof's one-line form),
        needed only when the checkpoint is signed by another of the log's keys than the one cosigned for until now.
        """
        try:
            request_ = parse_add_checkpoint(body)
            checkpoint = parse_checkpoint(request_.note.text)
        except NoteError as exc:
            raise WitnessRefusal(400, "invalid_request", f"not an add-checkpoint request: {exc}") from None
        keys = self.logs.get(checkpoint.origin)
        if keys is None:
            raise WitnessRefusal(404, "unknown_log", f"this witness does not know the log {checkpoint.origin!r}")
        signers = [key for key in keys if key.signed(request_.note) is not None]
        if not signers:
            raise WitnessRefusal(403, "not_signed_by_log", "the checkpoint is not signed by the log's key")
        if request_.old > checkpoint.size:
            raise WitnessRefusal(
                400, "invalid_request", f"the old size {request_.old} is larger than the checkpoint's {checkpoint.size}"
            )
        with self._lock:
            seen = self.seen(checkpoint.origin) or Seen(0, b"")
            # A retired key signs nothing past its retirement: a checkpoint only it signed, of a larger tree, is a
            # leaked key at work.
            standing = [key for key in signers if _may_sign(seen.retired_at(key.public_key), checkpoint.size)]
            if not standing:
                retired = seen.retired_at(signers[0].public_key)
                raise WitnessRefusal(
                    403,
                    "retired_key",
                    f"the checkpoint of {checkpoint.size} leaves is signed by a key of the log retired at size {retired}",
                )
            signer = next((key for key in standing if key.public_key == seen.key), standing[0])
            retired_now = seen.retired
            if seen.key is not None and signer.public_key != seen.key:
                retired_now = self._proven_retirements(checkpoint, signer, seen, retirement, keys)
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
            self._keep(checkpoint.origin, Seen(checkpoint.size, checkpoint.root, signer.public_key, retired_now))
            return cosign(request_.note.text, self.name, self.key, int(self.clock())).line()

    def _proven_retirements(
        self, checkpoint: Checkpoint, signer: NoteKey, seen: Seen, evidence: str | None, keys: list[NoteKey]
    ) -> tuple[tuple[str, int], ...]:
        """The retirements known once the checkpoint's tree proves a chain of them from the key cosigned for until now
        to the one signing it (each a leaf of the checkpoint, signed by the log key that replaced the one it names:
        a witness that was away across two rotations follows both); WitnessRefusal when it does not."""
        assert seen.key is not None
        old_id = _key_id(seen.key)

        def unproven(why: str) -> WitnessRefusal:
            return WitnessRefusal(
                403,
                "key_change_unproven",
                f"the checkpoint is signed by another key of the log than key {old_id}, which this witness cosigned "
                f"for until now; it cosigns for a new key only once the log holds the old one's retirement ({why})",
            )

        if not evidence:
            raise unproven(f"no {RETIREMENT_HEADER} header")
        proofs = [parse_retirement_proof(part) for part in evidence.split(",")]
        if any(proof is None for proof in proofs) or len(proofs) > _MAX_RETIREMENTS:
            raise WitnessRefusal(
                400, "invalid_request", f"the {RETIREMENT_HEADER} header is not a list of retirement proofs"
            )
        steps = {}
        for proof in proofs:
            assert proof is not None
            retirement = parse_retirement(proof.entry)
            if retirement is None:
                raise unproven("an entry is not a key retirement")
            steps[retirement.retired_key_id] = (proof, retirement)
        log_keys = {_key_id(key.public_key): key for key in keys}
        retired = dict(seen.retired)
        current = seen.key
        while current != signer.public_key:
            current_id = _key_id(current)
            if current_id not in steps or current_id in retired:
                raise unproven(f"no retirement of key {current_id} is given")
            proof, retirement = steps[current_id]
            successor = log_keys.get(retirement.key_id)
            if successor is None:
                raise unproven(f"the entry retires key {current_id} by key {retirement.key_id}, not a key of this log")
            try:
                Ed25519PublicKey.from_public_bytes(successor.public_key).verify(
                    retirement.signature, retirement.statement(checkpoint.origin)
                )
            except InvalidSignature:
                raise unproven(f"key {retirement.key_id} did not sign the retirement of key {current_id}") from None
            if proof.index != retirement.size or proof.index >= checkpoint.size:
                raise unproven(f"the retirement is not the leaf at index {retirement.size} of this tree")
            root = root_from_inclusion(proof.index, checkpoint.size, leaf_hash(proof.entry), list(proof.hashes))
            if root != checkpoint.root:
                raise unproven("its inclusion proof does not lead to the checkpoint's root")
            retired[current_id] = retirement.size
            current = successor.public_key
        return tuple(sorted(retired.items()))


def _key_id(public_key: bytes) -> str:
    """A log key's id, as key retirements name it."""
    return key_id_of(base64.b64encode(public_key).decode())


def _may_sign(retired_at: int | None, size: int) -> bool:
    """Whether a log key may sign a checkpoint of `size` leaves: it is not retired, or the tree is no larger than the
    log was at its retirement."""
    return retired_at is None or size <= retired_at


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
            line = witness.add_checkpoint(body, request.headers.get(RETIREMENT_HEADER))
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
