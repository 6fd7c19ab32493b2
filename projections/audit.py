"""The bluff-call audit of one match: every call, its verdict and the evidence that proves it."""

from __future__ import annotations

import copy
from typing import Any

from domain.application import MatchApp
from domain.match import DISPUTE_FILED, DISPUTE_RULED, Match
from domain.records import commitment
from domain.ruleset import Viewer

BATCH = 1000
DISPUTE_KINDS = (DISPUTE_FILED, DISPUTE_RULED)


def _all_records(app: MatchApp, match: Match) -> list[Any]:
    records: list[Any] = []
    while len(records) < match.version:
        batch = app.records(match.match_id, after=len(records), upto=match.version, limit=BATCH)
        if not batch:
            break
        records.extend(batch)
    return records


def opened_is_verified(opened: list[dict], commitments: dict[int, str | None]) -> bool:
    """Whether every opened secret re-commits to the commitment stored at its version."""
    if not opened:
        return False
    for item in opened:
        stored = commitments.get(item.get("version"))
        if stored is None or item.get("salt") is None or commitment(item.get("secret"), item["salt"]) != stored:
            return False
    return True


def bluff_audit(app: MatchApp, match: Match, viewer: Viewer) -> list[dict]:
    """One entry per bluff call (and Final Gambit call), in the viewer's form."""
    records = _all_records(app, match)
    commitments = {rec.originator_version: rec.commitment for rec in records}
    entries: dict[int, dict] = {}
    for rec in records:
        call = rec.public.get("bluff_call")
        if call is not None:
            entry = copy.deepcopy(call)
            entry["ruling_version"] = rec.originator_version
            entry["ruling_kind"] = rec.kind
            entry.setdefault("consequences", {})
            opens = list(rec.public.get("opens", []))
            entry["evidence_versions"] = opens
            entry["commitments"] = {str(v): commitments.get(v) for v in opens}
            entry["ruling_commitment"] = rec.commitment
            if rec.secret is not None and viewer.may_see(rec.audience):
                entry["evidence"] = copy.deepcopy(rec.secret)
                entry["salt"] = rec.salt
                entry["verified"] = opened_is_verified(rec.secret.get("opened", []), commitments)
            else:
                entry["evidence"] = None
                entry["verified"] = None
            entries[entry.get("call_version", rec.originator_version)] = entry
        if rec.kind in DISPUTE_KINDS and rec.public.get("call_version") is not None:
            target = entries.get(rec.public["call_version"]) or next(
                (e for e in entries.values() if e["ruling_version"] == rec.public["call_version"]), None)
            if target is not None:
                target.setdefault("disputes", []).append({"version": rec.originator_version, "kind": rec.kind,
                                                          **copy.deepcopy(rec.public)})
        followup = rec.public.get("bluff_call_followup")
        if followup is not None and followup.get("call_version") in entries:
            extra = {k: copy.deepcopy(v) for k, v in followup.items() if k != "call_version"}
            entries[followup["call_version"]]["consequences"].update(extra)
    return list(entries.values())
