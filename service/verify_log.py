"""`gambit verify`'s log step: the export's final head (and each kept receipt with a proof) is in the log, and the log
is consistent with a checkpoint the user kept (docs/verification.md, section 12).

It runs after the export's own checks and adds to the same report: `log` (the trailer's tlog-proof), `kept receipts
in the log`, and `kept checkpoint` (with `--checkpoint FILE`).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass

from domain.clock import iso, parse_instant
from domain.clock_verification import check_witnessed_times
from domain.tlog import consistent, entry_of_receipt, leaf_hash, root_from_inclusion
from domain.tlog_note import ED25519_COSIGNATURE, Checkpoint, Note, NoteError, parse_checkpoint, parse_note, parse_proof
from domain.verification_report import Report
from service.log_keys import NoteKey


class CheckpointFileError(ValueError):
    """A --checkpoint file that holds no checkpoint (a usage error)."""


def read_kept_checkpoint(path: str) -> Note:
    """The checkpoint a user kept: a file holding a checkpoint note, or a tlog-proof (its checkpoint is used)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise CheckpointFileError(f"cannot read the checkpoint file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CheckpointFileError(f"{path} is not UTF-8 text, so it holds no checkpoint") from None
    try:
        note = parse_proof(text).note if text.startswith("c2sp.org/tlog-proof@") else parse_note(text)
        parse_checkpoint(note.text)
    except NoteError as exc:
        raise CheckpointFileError(f"{path} holds no checkpoint: {exc}") from None
    return note


@dataclass(frozen=True)
class Witnesses:
    """The witnesses a verifier trusts (`--witness-key`), how many must have cosigned (`--quorum`), and the time now
    (seconds since the epoch) against which a receipt's merge delay is measured."""

    keys: tuple[NoteKey, ...]
    quorum: int
    now: float


def load_witnesses(values: list[str], quorum: int | None, now: float) -> Witnesses | None:
    """The --witness-key keys (files holding a vkey, or vkeys) and --quorum; None when none is given; CheckpointFileError
    (a usage error) for a key that is not a witness's, or a quorum that is not more than half of them."""
    if not values:
        if quorum is not None:
            raise CheckpointFileError("--quorum needs the witnesses' keys (--witness-key FILE, repeatable)")
        return None
    keys = []
    for value in values:
        text = value
        if os.path.exists(value):
            try:
                with open(value, encoding="utf-8") as handle:
                    text = handle.read().strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise CheckpointFileError(f"cannot read the witness key file {value}: {exc}") from None
        try:
            key = NoteKey.parse(text)
        except NoteError as exc:
            raise CheckpointFileError(f"{value} holds no witness key: {exc}") from None
        if key.kind != ED25519_COSIGNATURE:
            raise CheckpointFileError(f"{value} is a log's key, not a witness's (a cosigner key, type 0x04)")
        keys.append(key)
    if len({(k.name, k.public_key) for k in keys}) != len(keys):
        raise CheckpointFileError("a witness key is given twice")
    n = len(keys)
    k = n // 2 + 1 if quorum is None else quorum
    if not n / 2 < k <= n:
        raise CheckpointFileError(
            f"--quorum {k} of {n} witness keys: a quorum must be more than half of the keys given "
            f"(so any two quorums share a witness) and at most all of them: {n // 2 + 1} to {n}"
        )
    return Witnesses(tuple(keys), k, now)


def export_trailer(lines: list[str]) -> dict | None:
    """The export's trailer (its last non-blank line, when that is a JSON object with a `trailer`), or None."""
    for line in reversed(lines):
        if line.strip():
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                return None
            return value if isinstance(value, dict) and "trailer" in value else None
    return None


def _signed(note: Note, origin: str, keys: list[str]) -> bool:
    """Whether a given service key signed the checkpoint note under the log's origin."""
    return any(NoteKey.log(origin, key).signed(note) is not None for key in keys)


def _included(receipt: dict, proof_text: object, keys: list[str]) -> tuple[bool, str, Checkpoint | None]:
    """Whether a receipt's tlog-proof shows its write in a checkpoint of its log signed by a given key."""
    if not isinstance(proof_text, str):
        return False, "its log proof is not a tlog-proof text", None
    try:
        proof = parse_proof(proof_text)
        leaf = leaf_hash(entry_of_receipt(receipt, proof.extra))
    except (NoteError, KeyError, TypeError, ValueError) as exc:
        return False, f"its log proof cannot be read: {exc}", None
    checkpoint = proof.checkpoint
    if checkpoint.origin != receipt.get("log"):
        return False, f"the proof is of log {checkpoint.origin!r}, but the receipt names {receipt.get('log')!r}", None
    if keys and not _signed(proof.note, checkpoint.origin, keys):
        return False, "the proof's checkpoint is not signed by any given key", None
    if root_from_inclusion(proof.index, checkpoint.size, leaf, list(proof.hashes)) != checkpoint.root:
        return False, f"the write is not leaf {proof.index} of the checkpoint's tree of {checkpoint.size}", None
    return True, f"leaf {proof.index} of the log's tree of {checkpoint.size}", checkpoint


def check_log(
    report: Report,
    lines: list[str],
    kept: list[dict],
    keys: list[str],
    kept_note: Note | None,
    witnesses: Witnesses | None = None,
) -> None:
    """Add the log's checks to an export's report (nothing when the export did not get as far as its trailer)."""
    _check_log(report, lines, kept, keys, kept_note)
    if witnesses is not None:
        _check_witnessed(report, lines, kept, witnesses)


def _check_log(report: Report, lines: list[str], kept: list[dict], keys: list[str], kept_note: Note | None) -> None:
    if not any(check.name == "receipt" and check.status == "pass" for check in report.checks):
        return
    trailer = export_trailer(lines)
    if trailer is None:
        return
    if "log" not in trailer:
        report.add("log", None, "the receipt names no log (a gambit-receipt/1 from before the log): nothing to prove")
        return
    if "log_proof" not in trailer:
        report.add(
            "log",
            None,
            f"the export carries no proof that its write is in log {trailer['log']!r} yet (exported before it was "
            f"integrated; its receipt promises it within {trailer.get('merge_delay')} seconds)",
        )
        return
    ok, detail, checkpoint = _included(trailer, trailer["log_proof"], keys)
    report.add("log", ok, f"the final write is {detail}" if ok else f"the final write: {detail}")
    mine = [r for r in kept if r.get("match_id") == report.match_id and "log_proof" in r]
    for receipt in mine:
        kept_ok, kept_detail, _ = _included(receipt, receipt["log_proof"], keys)
        if not kept_ok:
            report.add(
                "kept receipts in the log",
                False,
                f"the kept receipt for version {receipt.get('version')}: {kept_detail}",
            )
            break
    else:
        if mine:
            report.add("kept receipts in the log", True, f"{len(mine)} kept receipts carry proofs, each in the log")
    if kept_note is not None and checkpoint is not None:
        _check_kept_checkpoint(report, trailer, checkpoint, kept_note, keys)


def _check_kept_checkpoint(
    report: Report, trailer: dict, current: Checkpoint, kept_note: Note, keys: list[str]
) -> None:
    """The log the export's proof is against extends (or is) the checkpoint the user kept."""
    kept = parse_checkpoint(kept_note.text)
    name = "kept checkpoint"
    if kept.origin != current.origin:
        report.add(name, False, f"the kept checkpoint is of log {kept.origin!r}, the export's of {current.origin!r}")
        return
    if keys and not _signed(kept_note, kept.origin, keys):
        report.add(name, False, "the kept checkpoint is not signed by any given key")
        return
    if kept.size == current.size:
        same = kept.root == current.root
        report.add(
            name,
            same,
            f"the same tree of {kept.size}" if same else f"two different trees of {kept.size} leaves: the log forked",
        )
        return
    if kept.size > current.size:
        report.add(
            name,
            None,
            f"the kept checkpoint ({kept.size} leaves) is newer than the export's proof ({current.size}): "
            "export again to prove the one extends the other",
        )
        return
    carried = trailer.get("log_consistency")
    if not isinstance(carried, dict) or carried.get("old") != kept.size or not isinstance(carried.get("proof"), list):
        report.add(
            name,
            None,
            f"the export carries no consistency proof from {kept.size} leaves: export it with ?log_since={kept.size}",
        )
        return
    try:
        proof = [_hash(item) for item in carried["proof"]]
    except ValueError as exc:
        report.add(name, False, f"the consistency proof cannot be read: {exc}")
        return
    ok = consistent(kept.size, current.size, kept.root, current.root, proof)
    report.add(
        name,
        ok,
        f"the log of {current.size} leaves extends the kept one of {kept.size}"
        if ok
        else f"the log of {current.size} leaves does not extend the kept one of {kept.size}: history was rewritten",
    )


def _hash(item: object) -> bytes:
    """A base64 SHA-256 hash of a carried proof; ValueError when it is not one."""
    if not isinstance(item, str):
        raise ValueError("a proof hash is not base64 text")  # noqa: TRY004 - bad content, as bad base64 is
    try:
        raw = base64.b64decode(item, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a proof hash is not base64") from None
    if len(raw) != 32:
        raise ValueError("a proof hash is not 32 bytes")
    return raw


def _record_stamps(lines: list[str]) -> dict[int, tuple[str, int]]:
    """Each record's kind and timestamp (microseconds) by version: when the service says it acknowledged the write."""
    stamps: dict[int, tuple[str, int]] = {}
    for line in lines:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and isinstance(record.get("version"), int) and "timestamp" in record:
            try:
                stamps[record["version"]] = (str(record.get("kind")), parse_instant(str(record["timestamp"])))
            except (ValueError, TypeError):
                continue
    return stamps


def _cosigners(proof_text: object, witnesses: Witnesses) -> list[tuple[str, int]]:
    """(name, time) of each trusted witness whose valid cosignature the proof's checkpoint carries."""
    if not isinstance(proof_text, str):
        return []
    try:
        note = parse_proof(proof_text).note
    except NoteError:
        return []
    found = []
    for key in witnesses.keys:
        at = key.cosigned_at(note)
        if at is not None:
            found.append((key.name, at))
    return found


def _check_witnessed(report: Report, lines: list[str], kept: list[dict], witnesses: Witnesses) -> None:
    """The `witnessed` check: the final write (and each kept receipt) is in a checkpoint cosigned by a quorum of the
    trusted witnesses; while one is not and its receipt's merge delay has not passed since its record's time, the
    verdict waits (PENDING); after that, it fails."""
    if not report.ok or not any(c.name == "receipt" and c.status == "pass" for c in report.checks):
        return
    trailer = export_trailer(lines)
    if trailer is None or "log" not in trailer:
        return
    stamps = _record_stamps(lines)
    times = {version: stamp / 1_000_000 for version, (_, stamp) in stamps.items()}
    mine = [r for r in kept if r.get("match_id") == report.match_id and r.get("version") != trailer.get("version")]
    waiting, failing, proven = [], [], []
    for receipt in [trailer, *mine]:
        version = receipt.get("version")
        cosigners = _cosigners(receipt.get("log_proof"), witnesses)
        if len(cosigners) >= witnesses.quorum:
            proven.append((version, cosigners))
            continue
        delay = receipt.get("merge_delay")
        at = times.get(version) if isinstance(version, int) else None
        if not isinstance(delay, int) or at is None:
            failing.append(f"version {version}: not in a checkpoint a quorum cosigned, and no merge delay to wait on")
            continue
        why = (
            f"version {version} is in no checkpoint cosigned by {witnesses.quorum} of the {len(witnesses.keys)} "
            f"witnesses given ({len(cosigners)} cosigned)"
        )
        if witnesses.now <= at + delay:
            waiting.append(f"{why}; its receipt promises it within {delay} s of {at:.0f}: export again later")
        else:
            failing.append(f"{why}, {witnesses.now - at - delay:.0f} s after its merge delay of {delay} s ran out")
    # A quorum's cosignatures bound when its checkpoint, and every write in it, existed: by the time the quorum-th of
    # them cosigned (it holds unless that many witnesses lie together about their clocks).
    bounds = [
        (version, sorted(at for _, at in cosigners)[witnesses.quorum - 1])
        for version, cosigners in proven
        if isinstance(version, int)
    ]
    if failing:
        report.add("witnessed", False, "; ".join(failing))
    elif waiting:
        report.add("witnessed", None, "; ".join(waiting))
        report.pending = waiting[0]
    else:
        existed = ", ".join(f"version {version} by {iso(at * 1_000_000)}" for version, at in sorted(bounds))
        report.add(
            "witnessed",
            True,
            f"{len(proven)} write(s) each in a checkpoint cosigned by at least {witnesses.quorum} of the "
            f"{len(witnesses.keys)} witnesses given; each existed no later than the quorum's cosignature: {existed}",
        )
    check_witnessed_times(report, stamps, bounds)
