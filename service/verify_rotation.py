"""`gambit verify`'s `retired keys` check: a receipt of a key the log retired stands only for a write the log took in
before the retirement (docs/verification.md, section 12, "Key rotation").

The retirements come with the service's key document (`--key` given the saved /.well-known/gambit-signing-key): each
previous key the log retired carries its retirement leaf and that leaf's tlog-proof. A retirement counts only when its
entry is signed by a given key, is the leaf its proof names at the index it states, and the proof's checkpoint is
signed by that key. Then every receipt of the export (its trailer, each kept receipt of the match) by a retired key
must carry a tlog-proof of its write at an index below the retirement, against a checkpoint of the same log signed by
a key that is not retired: a leaked old key can sign a receipt and a checkpoint, but not one of the new key.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain.tlog import entry_of_receipt, leaf_hash, root_from_inclusion
from domain.tlog_note import NoteError, parse_proof
from domain.tlog_rotation import key_id_of, parse_retirement
from domain.verification_report import Report
from service.log_keys import NoteKey

CHECK = "retired keys"


@dataclass(frozen=True)
class Retired:
    """A key retirement that holds: the retired key's id, the log it was retired in, and the size it was retired at."""

    key_id: str
    log: str
    size: int


def retirements_given(values: list[str]) -> list[dict]:
    """The retirements the key documents among the `--key` values carry (each previous key's `retired`), as given."""
    found = []
    for value in values:
        if not os.path.isfile(value):
            continue
        try:
            with open(value, encoding="utf-8") as handle:
                document = json.loads(handle.read())
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue  # the key loader has already refused an unreadable key file
        previous = document.get("previous_keys") if isinstance(document, dict) else None
        for item in previous if isinstance(previous, list) else []:
            if isinstance(item, dict) and "retired" in item:
                found.append(item["retired"])
    return found


def _holds(retirement: object, keys: list[str]) -> tuple[Retired | None, str]:
    """The retirement, when its entry, signature and proof hold under a given key; else None and why not."""
    if not isinstance(retirement, dict) or not isinstance(retirement.get("entry"), str):
        return None, "a retirement in the key document has no entry"
    entry = retirement["entry"].encode()
    parsed = parse_retirement(entry)
    if parsed is None:
        return None, "a retirement's entry is not a key retirement leaf"
    try:
        proof = parse_proof(str(retirement.get("proof")))
    except NoteError as exc:
        return None, f"the retirement of {parsed.retired_key_id}: its proof cannot be read: {exc}"
    checkpoint = proof.checkpoint
    retiring = next((key for key in keys if key_id_of(key) == parsed.key_id), None)
    if retiring is None:
        return None, f"the retirement of {parsed.retired_key_id} is by key {parsed.key_id}, not a key given"
    try:
        Ed25519PublicKey.from_public_bytes(base64.b64decode(retiring)).verify(
            parsed.signature, parsed.statement(checkpoint.origin)
        )
    except (InvalidSignature, ValueError, binascii.Error):
        return None, f"the retirement of {parsed.retired_key_id} is not signed by key {parsed.key_id}"
    if proof.index != parsed.size:
        return None, f"the retirement of {parsed.retired_key_id} states size {parsed.size} but is leaf {proof.index}"
    if NoteKey.log(checkpoint.origin, retiring).signed(proof.note) is None:
        return (
            None,
            f"the retirement of {parsed.retired_key_id}: its proof's checkpoint is not signed by {parsed.key_id}",
        )
    if root_from_inclusion(proof.index, checkpoint.size, leaf_hash(entry), list(proof.hashes)) != checkpoint.root:
        return None, f"the retirement of {parsed.retired_key_id} is not leaf {proof.index} of its checkpoint's tree"
    return Retired(parsed.retired_key_id, checkpoint.origin, parsed.size), ""


def _logged_before(receipt: dict, retired: Retired, live_keys: list[str]) -> tuple[bool, str]:
    """Whether a receipt of a retired key carries a proof of its write below the retirement, in a checkpoint of the
    same log signed by a key not retired."""
    proof_text = receipt.get("log_proof")
    version = receipt.get("version")
    where = f"the receipt for version {version} (key {retired.key_id}, retired at log size {retired.size})"
    if not isinstance(proof_text, str):
        return False, f"{where} carries no proof that its write was logged before the retirement"
    try:
        proof = parse_proof(proof_text)
        leaf = leaf_hash(entry_of_receipt(receipt, proof.extra))
    except (NoteError, KeyError, TypeError, ValueError) as exc:
        return False, f"{where}: its log proof cannot be read: {exc}"
    checkpoint = proof.checkpoint
    if checkpoint.origin != retired.log:
        return False, f"{where}: its proof is of log {checkpoint.origin!r}, the retirement of {retired.log!r}"
    if not any(NoteKey.log(checkpoint.origin, key).signed(proof.note) is not None for key in live_keys):
        return False, f"{where}: its proof's checkpoint is not signed by a given key that is not retired"
    if root_from_inclusion(proof.index, checkpoint.size, leaf, list(proof.hashes)) != checkpoint.root:
        return False, f"{where}: its write is not leaf {proof.index} of the checkpoint's tree"
    if proof.index >= retired.size:
        return False, f"{where}: its write is leaf {proof.index}, logged after the key was retired"
    return True, ""


def check_retirements(
    report: Report, trailer: dict | None, kept: list[dict], keys: list[str], given: list[dict]
) -> None:
    """Add the `retired keys` check: every receipt of a retired key is of a write logged before its retirement."""
    if trailer is None or not any(c.name == "receipt" and c.status == "pass" for c in report.checks):
        return
    retired: dict[str, Retired] = {}
    for retirement in given:
        holding, why = _holds(retirement, keys)
        if holding is None:
            report.add(CHECK, False, why)
            return
        if holding.key_id not in retired or holding.size < retired[holding.key_id].size:
            retired[holding.key_id] = holding
    live = [key for key in keys if key_id_of(key) not in retired]
    mine = [trailer, *(r for r in kept if r.get("match_id") == report.match_id)]
    checked = 0
    for receipt in mine:
        by = retired.get(str(receipt.get("key_id")))
        if by is None:
            continue
        ok, why = _logged_before(receipt, by, live)
        if not ok:
            report.add(CHECK, False, why)
            return
        checked += 1
    names = ", ".join(f"{r.key_id} at log size {r.size}" for r in retired.values())
    report.add(
        CHECK,
        True,
        f"{checked} receipt(s) of a retired key, each of a write logged before its retirement (retired: {names})"
        if checked
        else f"no receipt of this export is by a retired key (retired: {names})",
    )
