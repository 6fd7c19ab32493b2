"""The service's side of witnessing: send each checkpoint the log signs to the configured witnesses (C2SP
tlog-witness add-checkpoint), keep the cosignatures, and store the checkpoint once a quorum cosigned it.

It runs in the sequencer's duty, after an integration, never in a write: a witness that is down or
slow delays only the cosigned checkpoint (readiness and metrics say by how much), never a command.
`GAMBIT_WITNESSES` names each witness as `name=url=vkey` (entries separated by spaces or commas;
the vkey is the witness's cosigner key, signed-note form) and `GAMBIT_WITNESS_QUORUM` how many must
cosign (default: a majority).
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from domain.tlog_note import (
    ED25519_COSIGNATURE,
    AddCheckpoint,
    Note,
    NoteError,
    Signature,
    parse_checkpoint,
    parse_signature_lines,
)
from domain.tlog_rotation import RetirementProof
from projections.tlog_log import TransparencyLog
from service.log_keys import NoteKey
from service.witness import RETIREMENT_HEADER

log = logging.getLogger("gambit.witnessing")

# Seconds a witness has to answer one add-checkpoint before this round goes on without it.
WITNESS_TIMEOUT = 3.0


@dataclass(frozen=True)
class WitnessConfig:
    """One configured witness: its name, its base URL and its cosigner key."""

    name: str
    url: str
    key: NoteKey


def parse_witnesses(text: str) -> tuple[WitnessConfig, ...]:
    """`GAMBIT_WITNESSES`: `name=url=vkey` entries separated by spaces or commas; ValueError naming a bad entry."""
    found = []
    for entry in text.replace(",", " ").split():
        name, sep, rest = entry.partition("=")
        url, sep2, key_text = rest.rpartition("=")
        if not (name and sep and sep2 and url.startswith(("http://", "https://"))):
            raise ValueError(f"GAMBIT_WITNESSES entry {entry!r} is not name=http(s)://url=vkey")
        try:
            key = NoteKey.parse(key_text)
        except NoteError as exc:
            raise ValueError(f"GAMBIT_WITNESSES entry {name!r}: its key is not a witness vkey ({exc})") from None
        if key.kind != ED25519_COSIGNATURE:
            raise ValueError(f"GAMBIT_WITNESSES entry {name!r}: its key is not a cosigner key (type 0x04)")
        found.append(WitnessConfig(name, url.rstrip("/"), key))
    if len({w.name for w in found}) != len(found):
        raise ValueError("GAMBIT_WITNESSES names a witness twice")
    return tuple(found)


class Witnessing:
    """Collects cosignatures for the log's newest checkpoint from its witnesses and stores a quorum's."""

    def __init__(self, log: TransparencyLog, witnesses: tuple[WitnessConfig, ...], quorum: int) -> None:
        """ValueError when the quorum cannot be met by these witnesses."""
        if not 1 <= quorum <= len(witnesses):
            raise ValueError(f"GAMBIT_WITNESS_QUORUM must be between 1 and {len(witnesses)}, not {quorum}")
        self.log = log
        self.witnesses = witnesses
        self.quorum = quorum
        # The size each witness last cosigned for this log, as far as this process knows (a 409 corrects it).
        self._known: dict[str, int] = {}
        self._pool = ThreadPoolExecutor(max_workers=len(witnesses), thread_name_prefix="gambit-witness")
        self._rounds = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gambit-witnessing")
        self._round: Future | None = None

    def collect_soon(self) -> None:
        """Start a round of `collect` unless one is still running: the sequencer goes on integrating (and signing a
        checkpoint every interval) while a slow witness keeps a round waiting up to its timeout."""
        if self._round is not None and not self._round.done():
            return
        self._round = self._rounds.submit(self._collect_logged)

    def _collect_logged(self) -> None:
        try:
            self.collect()
        except Exception:
            log.exception("log: a failure collecting cosignatures (the store?); the next round tries again")

    def close(self) -> None:
        """Stop the threads (after the round under way)."""
        self._rounds.shutdown(wait=True)
        self._pool.shutdown(wait=True)

    def collect(self) -> bool:
        """Ask every witness to cosign the newest signed checkpoint; store it when a quorum did. Returns whether
        the stored cosigned checkpoint is now the newest (nothing to do is also True)."""
        note = self.log.checkpoint_note()
        if note is None:
            return False
        size = parse_checkpoint(note.text).size
        cosigned = self.log.cosigned_note()
        if cosigned is not None and cosigned.text == note.text:
            return True
        evidence = self._retirement_evidence(size)
        lines = [line for line in self._pool.map(lambda w: self._ask(w, note, size, evidence), self.witnesses) if line]
        if len(lines) < self.quorum:
            log.warning(
                "log: %d of %d witnesses cosigned the checkpoint of %d leaves; %d needed",
                len(lines),
                len(self.witnesses),
                size,
                self.quorum,
            )
            return False
        self.log.set_cosigned(note.with_signatures(lines), size)
        return True

    def _retirement_evidence(self, size: int) -> str | None:
        """Every key retirement in the tree of `size` leaves with its inclusion proof, oldest first and comma-separated,
        as a witness wants them to cosign the new key's checkpoints (service/witness.py: one that was away across
        several rotations follows the chain), or None when the log retired no key."""
        held = [(index, entry) for index, entry in self.log.retirements() if index < size]
        if not held:
            return None
        hashes = self.log.hashes()
        return ", ".join(
            RetirementProof(index, entry, tuple(hashes.inclusion_proof(index, size))).render() for index, entry in held
        )

    def _ask(self, witness: WitnessConfig, note: Note, size: int, evidence: str | None = None) -> Signature | None:
        """The witness's valid cosignature line of the note, or None (down, refusing, or answering nonsense).

        `evidence`: the log's key retirements with their proofs, which a witness that still cosigns for a retired key
        needs to cosign the new key's checkpoint (sent with every request: a witness that needs none ignores it)."""
        for _ in range(2):  # once more after a 409 tells the witness's size
            old = min(self._known.get(witness.name, 0), size)
            body = AddCheckpoint(old, tuple(self.log.consistency(old, size)), note).render()
            try:
                status, text = _post(f"{witness.url}/add-checkpoint", body, evidence)
            except OSError as exc:
                log.warning("log: witness %s is unreachable (%s)", witness.name, exc)
                return None
            if status == 409 and text.strip().isdigit():
                self._known[witness.name] = int(text.strip())
                if int(text.strip()) > size:
                    log.error("log: witness %s cosigned %s leaves, more than this log has", witness.name, text.strip())
                    return None
                continue
            if status != 200:
                log.warning("log: witness %s refused the checkpoint (%d: %s)", witness.name, status, text.strip())
                return None
            try:
                lines = parse_signature_lines(text)
            except NoteError:
                return None
            valid = witness.key.signed(note.with_signatures(lines))
            if valid is not None:
                self._known[witness.name] = size
            return valid
        return None


def _post(url: str, body: str, retirement: str | None = None) -> tuple[int, str]:
    """POST a text body (with a key retirement's proof, when given); (status, text) for any HTTP answer, OSError when
    there is none."""
    headers = {"Content-Type": "text/plain"}
    if retirement:
        headers[RETIREMENT_HEADER] = retirement
    req = urllib.request.Request(url, data=body.encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=WITNESS_TIMEOUT) as response:
            return response.status, response.read(64 * 1024).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(64 * 1024).decode("utf-8", "replace")


def witnessing_status(log: TransparencyLog, witnesses: tuple[WitnessConfig, ...], now: float) -> dict:
    """How far witnessing is behind the log: the signed tree's size, the newest quorum checkpoint's size, the leaves
    between them, and how long ago that checkpoint was cosigned (0 when the newest signed checkpoint is the cosigned
    one; None before any was)."""
    signed = log.checkpoint_note()
    size = parse_checkpoint(signed.text).size if signed is not None else 0
    cosigned = log.cosigned_note()
    if cosigned is None:
        return {"size": size, "witnessed_size": 0, "behind_leaves": size, "behind_seconds": None}
    witnessed = parse_checkpoint(cosigned.text).size
    times = [t for t in (w.key.cosigned_at(cosigned) for w in witnesses) if t is not None]
    behind = max(0, size - witnessed)
    # A signed checkpoint the quorum has not cosigned waits even at the same size (another tree of that size, which
    # witnesses refuse): its age shows it where the leaves behind cannot. An honest log signs one body per size.
    waiting = signed is not None and signed.text != cosigned.text
    age = 0.0 if not waiting or not times else max(0.0, round(now - max(times), 3))
    return {"size": size, "witnessed_size": witnessed, "behind_leaves": behind, "behind_seconds": age}
