"""The bluff-call audit of one match: every call, its verdict and the evidence that proves it.

`verified` means both: every opened piece of evidence re-commits to the commitment stored at its
version, and the rules, re-applied to the hidden state just before the ruling, give the recorded
call. It is shown whenever the viewer may see all the evidence: at once for evidence a reveal
made public, otherwise once the viewer may see the ruling's sealed evidence.
"""

from __future__ import annotations

import copy
from typing import Any

from domain.application import MatchService
from domain.match import DISPUTE_FILED, DISPUTE_RULED, OPENED, OPENS, SEALED_EVIDENCE, Match
from domain.records import commitment, json_copy
from domain.ruleset import Event, Ruleset, Viewer
from projections.records import is_revealed

BATCH = 1000
DISPUTE_KINDS = (DISPUTE_FILED, DISPUTE_RULED)


def _all_records(app: MatchService, match: Match) -> list[Any]:
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
        stored = commitments.get(item["version"]) if "version" in item else None
        if stored is None or item.get("salt") is None or commitment(item.get("secret"), item["salt"]) != stored:
            return False
    return True


def _versions(value: Any) -> list[int]:
    """The versions a record's public part names under one key (nothing when malformed)."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]


def _items(value: Any) -> list[dict]:
    """The opened entries a ruling's secret holds under one key (nothing when malformed)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


class HiddenStates:
    """The match's state just before each ruling, folded forward from one snapshot load per request.

    Rulings come oldest first, so one load as of the first ruling and a fold of the records up to
    each later one costs about as much as loading the match once.
    """

    def __init__(self, app: MatchService, match: Match) -> None:
        self.app = app
        self.match_id = match.match_id
        self.loaded: Match | None = None

    def before(self, version: int) -> dict:
        """A copy of the ruleset state as of `version - 1`."""
        target = version - 1
        if self.loaded is None or self.loaded.version > target:
            self.loaded = self.app.match(self.match_id, version=target)
        elif self.loaded.version < target:
            # Fresh records from the store: the fold may come to share their payloads.
            for stored in self.app.records(self.match_id, after=self.loaded.version, upto=target):
                stored.mutate(self.loaded)
        return json_copy(self.loaded.state)


def readjudicated(match: Match, states: HiddenStates, rec: Any) -> bool:
    """Whether the rules, applied to the hidden state just before the ruling, give its recorded call."""
    ruleset: Ruleset = match.ruleset  # every ruleset re-adjudicates its rulings (domain/ruleset.py)
    call = rec.public.get("bluff_call")
    if not isinstance(call, dict):
        return False
    secret = None if rec.secret is None else {k: v for k, v in rec.secret.items() if k not in (OPENED, SEALED_EVIDENCE)}
    event = Event(
        rec.kind,
        copy.deepcopy(rec.public),
        copy.deepcopy(secret),
        None if rec.audience is None else tuple(rec.audience),
        (),
        rec.originator_version,
    )
    try:
        expected = json_copy(ruleset.readjudicate(states.before(rec.originator_version), event))
    except Exception:  # noqa: BLE001 - any ruleset error: a ruling the rules cannot re-adjudicate is not verified
        return False
    return all(call.get(key) == value for key, value in expected.items())


def _commitment_of(by_version: dict[int, Any], version: int) -> str | None:
    """The commitment of the record at `version`; None when the match holds no such record."""
    stored = by_version.get(version)
    return None if stored is None else stored.commitment


def _opened_item(stored: Any) -> dict:
    return {
        "version": stored.originator_version,
        "secret": copy.deepcopy(stored.secret),
        "salt": stored.salt,
        "commitment": stored.commitment,
    }


def _sealed_entry(rec: Any, viewer: Viewer, match: Match) -> dict:
    """A sealed play awaiting its reveal: who sealed it and its commitment; its secret only for its audience."""
    version = rec.originator_version
    visible = viewer.may_see(rec.audience) or is_revealed(match, version)
    return {
        "kind": rec.public["sealed_play"],
        "claim_version": version,
        "claimant": rec.public.get("seat"),
        "caller": None,
        "call_version": None,
        "verdict": None,
        "consequences": {},
        "sealed": True,
        "sealed_version": version,
        "revealed_version": None,
        "ruling_version": None,
        "ruling_kind": None,
        "evidence_versions": [version],
        "commitments": {str(version): rec.commitment},
        "ruling_commitment": None,
        "evidence": None,
        "opened": [_opened_item(rec)] if visible else [],
        "verified": None,
    }


def _ruling_entry(rec: Any, viewer: Viewer, match: Match, by_version: dict[int, Any], states: HiddenStates) -> dict:
    """A ruling: its call, what it rests on, and — when this viewer can see all of that — whether it holds."""
    entry = copy.deepcopy(rec.public["bluff_call"])
    entry["ruling_version"] = rec.originator_version
    entry["ruling_kind"] = rec.kind
    entry.setdefault("consequences", {})
    revealed = _versions(rec.public.get(OPENS))
    sealed = _versions(rec.public.get(SEALED_EVIDENCE))
    named = revealed + sealed
    entry["evidence_versions"] = named
    entry["commitments"] = {str(v): _commitment_of(by_version, v) for v in named}
    entry["ruling_commitment"] = rec.commitment
    sees_ruling = rec.secret is not None and viewer.may_see(rec.audience)
    entry["evidence"] = copy.deepcopy(rec.secret) if sees_ruling else None
    if sees_ruling:
        entry["salt"] = rec.salt
    public = [v for v in revealed if is_revealed(match, v) and v in by_version]
    if sees_ruling:
        # The copies under the ruling's own commitment are what a verifier of the record checks.
        copies = _items(rec.secret.get(OPENED)) + _items(rec.secret.get(SEALED_EVIDENCE))
        entry["opened"] = copy.deepcopy(copies)
        if sorted(str(item.get("version")) for item in copies) != sorted(map(str, named)):
            copies = []
    else:
        copies = [_opened_item(by_version[v]) for v in public]
        entry["opened"] = copy.deepcopy(copies)
    if not named:
        entry["verified"] = False if sees_ruling else None
    elif not sees_ruling and (sealed or len(public) < len(revealed)):
        entry["verified"] = None  # part of the evidence is still sealed from this viewer
    else:
        commitments = {v: _commitment_of(by_version, v) for v in named}
        entry["verified"] = opened_is_verified(copies, commitments) and readjudicated(match, states, rec)
    return entry


def bluff_audit(app: MatchService, match: Match, viewer: Viewer) -> list[dict]:
    """One entry per bluff call (and Final Gambit call), and per sealed play from the moment it is sealed.

    A sealed play (a record whose public part names its `sealed_play`) is listed at once with its
    commitment and `sealed: true`; the ruling that reveals it completes the same entry.
    """
    records = _all_records(app, match)
    by_version = {rec.originator_version: rec for rec in records}
    states = HiddenStates(app, match)
    entries: list[dict] = []
    by_call: dict[Any, dict] = {}
    by_ruling: dict[int, dict] = {}
    sealed: dict[Any, dict] = {}
    for rec in records:
        version = rec.originator_version
        if rec.public.get("sealed_play") is not None and rec.commitment is not None:
            sealed[version] = _sealed_entry(rec, viewer, match)
            entries.append(sealed[version])
        call = rec.public.get("bluff_call")
        if isinstance(call, dict):
            ruling = _ruling_entry(rec, viewer, match, by_version, states)
            entry = sealed.pop(call.get("claim_version"), None)
            if entry is None:
                entries.append(ruling)
                entry = ruling
            else:
                entry.update(ruling, sealed=False, revealed_version=version)
            by_call[entry.get("call_version", version)] = entry
            by_ruling[version] = entry
        if rec.kind in DISPUTE_KINDS and rec.public.get("call_version") is not None:
            target = by_call.get(rec.public["call_version"]) or by_ruling.get(rec.public["call_version"])
            if target is not None:
                target.setdefault("disputes", []).append(
                    {"version": version, "kind": rec.kind, **copy.deepcopy(rec.public)}
                )
        followup = rec.public.get("bluff_call_followup")
        if isinstance(followup, dict) and followup.get("call_version") in by_call:
            extra = {k: copy.deepcopy(v) for k, v in followup.items() if k != "call_version"}
            by_call[followup["call_version"]]["consequences"].update(extra)
    return entries
