"""The offline verifier: check a match export without a server, a database or trust.

It checks, in one pass over the NDJSON: the header; version continuity and the hash chain;
that every visible commitment opens; that the revealed server seed matches its commitment and
re-derives every visible chance result; that every bluff ruling's opened evidence re-commits
to the commitments it names; then, when every secret is visible (a finished match, or an
organizer's export), it replays the events through the ruleset, re-adjudicates every bluff
call and Final Gambit from the replayed hidden state and compares the verdicts, and checks the
final outcome. The signature of the trailer is checked by a callback (the key type lives
outside the domain).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Iterable

from domain import rulesets
from domain.chance import derive_draw, derive_permutation
from domain.match import MATCH_CREATED, MATCH_FINISHED, MATCH_KINDS, OUTCOME_AMENDED, SEAT_JOINED
from domain.records import chain_link, commitment, genesis, sha256_hex
from domain.ruleset import Event, config_from_dict

EXPORT_FORMAT = "gambit-match-export/1"
RECEIPT_FORMAT = "gambit-receipt/1"


@dataclass
class Check:
    """One line of the report: what was checked, and whether it held."""

    name: str
    status: str  # "pass" | "fail" | "skip"
    detail: str = ""

    def as_dict(self) -> dict:
        """JSON form."""
        return {"check": self.name, "status": self.status, "detail": self.detail}


@dataclass
class Report:
    """The outcome of verifying one export."""

    source: str
    match_id: str | None = None
    ruleset: str | None = None
    records: int = 0
    checks: list[Check] = field(default_factory=list)
    calls: list[dict] = field(default_factory=list)
    disputes: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return all(check.status != "fail" for check in self.checks)

    def add(self, name: str, ok: bool | None, detail: str = "") -> None:
        """Record a check (`None` = skipped)."""
        self.checks.append(Check(name, "skip" if ok is None else "pass" if ok else "fail", detail))

    def as_dict(self) -> dict:
        """JSON form of the whole report."""
        return {"source": self.source, "ok": self.ok, "match_id": self.match_id, "ruleset": self.ruleset,
                "records": self.records, "checks": [c.as_dict() for c in self.checks], "calls": self.calls,
                "disputes": self.disputes}


def _rederive(seed: bytes, match_id: str, client_seeds: list[str], chance: dict):
    kind, purpose, n = chance["draw"], chance["purpose"], chance["n"]
    if kind == "permutation":
        return derive_permutation(seed, match_id, client_seeds, purpose, n)
    value = derive_draw(seed, match_id, client_seeds, purpose, n)
    return value + 1 if kind == "roll" else value


def verify_export(lines: Iterable[str], source: str = "export", *,
                  check_signature: Callable[[dict], bool | None] | None = None,
                  progress: Callable[[int], None] | None = None) -> Report:
    """Verify one match export; never raises on bad content — every problem is a failed check."""
    report = Report(source)
    try:
        parsed = [json.loads(line) for line in lines if line.strip()]
    except ValueError as exc:
        report.add("format", False, f"a line is not JSON: {exc}")
        return report
    if not parsed or parsed[0].get("format") != EXPORT_FORMAT:
        report.add("format", False, f"the first line is not a {EXPORT_FORMAT} header")
        return report
    header, records = parsed[0], parsed[1:]
    trailer = records.pop() if records and records[-1].get("trailer") == RECEIPT_FORMAT else None
    report.match_id, report.ruleset = header.get("match_id"), header.get("ruleset")
    report.records = len(records)
    report.add("format", True, f"{EXPORT_FORMAT}, exported for {header.get('viewer')}")
    head = _check_chain(report, header, records, progress)
    _check_commitments(report, records)
    _check_chance(report, header, records)
    _check_evidence(report, records)
    _check_trailer(report, trailer, records, head, check_signature)
    _replay(report, header, records)
    report.disputes = [dict(r["public"], version=r["version"], kind=r["kind"]) for r in records
                       if r["kind"] in MATCH_KINDS - {MATCH_CREATED, SEAT_JOINED, MATCH_FINISHED}]
    return report


def _check_chain(report: Report, header: dict, records: list[dict], progress) -> str | None:
    previous = genesis(header["match_id"])
    for expected, record in enumerate(records, start=1):
        if record.get("version") != expected:
            report.add("versions", False, f"version {record.get('version')} where {expected} was expected")
            return None
        try:
            link = chain_link(previous, record["version"], record["kind"], record["timestamp"], record["public"],
                              record["commitment"])
        except (KeyError, TypeError, ValueError) as exc:
            report.add("chain", False, f"record {expected} is malformed: {exc}")
            return None
        if link != record.get("chain"):
            report.add("chain", False, f"the chain breaks at version {expected}")
            return None
        previous = link
        if progress is not None and expected % 1000 == 0:
            progress(expected)
    report.add("versions", True, f"1..{len(records)} with no gap")
    report.add("chain", True, f"head {previous}")
    if not records or records[0]["kind"] != MATCH_CREATED or records[0]["public"].get("match_id") != header["match_id"]:
        report.add("genesis", False, "the first record is not this match's MatchCreated")
    return previous


def _check_commitments(report: Report, records: list[dict]) -> None:
    opened = hidden = 0
    for record in records:
        if (record.get("commitment") is None) != (record.get("audience") is None):
            report.add("commitments", False, f"version {record['version']}: audience and commitment disagree")
            return
        if "secret" in record:
            if commitment(record["secret"], record.get("salt")) != record["commitment"]:
                report.add("commitments", False, f"the commitment of version {record['version']} does not open")
                return
            opened += 1
        elif record.get("commitment") is not None:
            hidden += 1
    report.add("commitments", True, f"{opened} opened, {hidden} not visible in this export")


def _client_seeds(header: dict, records: list[dict]) -> list[str]:
    joined = {r["public"]["seat"]: r["public"].get("client_seed", "") for r in records if r["kind"] == SEAT_JOINED}
    seats = header.get("seats") or (records[0]["public"].get("seats", []) if records else [])
    return [joined.get(seat, "") for seat in seats]


def _check_chance(report: Report, header: dict, records: list[dict]) -> None:
    finished = [r for r in records if r["kind"] == MATCH_FINISHED]
    if not finished:
        report.add("chance", None, "the match has not finished: the server seed is not revealed yet")
        return
    seed_hex = finished[-1]["public"].get("server_seed", "")
    if sha256_hex(bytes.fromhex(seed_hex)) != records[0]["public"].get("server_seed_commitment"):
        report.add("server seed", False, "the revealed server seed does not match its commitment")
        return
    report.add("server seed", True, "matches the commitment made at creation")
    seed, client_seeds = bytes.fromhex(seed_hex), _client_seeds(header, records)
    derived = 0
    for record in records:
        chance = record["public"].get("chance")
        if chance is None:
            continue
        if "chance_result" in record["public"]:
            recorded = record["public"]["chance_result"]
        elif "secret" in record:
            recorded = record["secret"].get("chance_result")
        else:
            continue
        if _rederive(seed, header["match_id"], client_seeds, chance) != recorded:
            report.add("chance", False, f"the chance result of version {record['version']} does not re-derive")
            return
        derived += 1
    report.add("chance", True, f"{derived} results re-derived from the revealed seed")


def _check_evidence(report: Report, records: list[dict]) -> None:
    by_version = {r["version"]: r for r in records}
    checked = 0
    for record in records:
        call = record["public"].get("bluff_call")
        if call is None:
            continue
        entry = {"ruling_version": record["version"], **call, "evidence": "not visible"}
        if "secret" in record:
            for item in record["secret"].get("opened", []):
                target = by_version.get(item.get("version"))
                if target is None or commitment(item.get("secret"), item.get("salt")) != target.get("commitment"):
                    report.add("evidence", False, f"ruling {record['version']}: the evidence for version "
                                                  f"{item.get('version')} does not open its commitment")
                    return
            entry["evidence"] = "opened and verified"
            checked += 1
        report.calls.append(entry)
    report.add("evidence", True if checked else None, f"{checked} of {len(report.calls)} rulings' evidence opened")


def _check_trailer(report: Report, trailer: dict | None, records: list[dict], head: str | None, check_signature) -> None:
    if trailer is None:
        report.add("receipt", False, "the export has no signed trailer")
        return
    if trailer.get("version") != len(records):
        report.add("receipt", False, f"the trailer signs version {trailer.get('version')}, "
                                     f"but the records end at version {len(records)}")
        return
    if trailer.get("head") != head:
        report.add("receipt", False, f"the trailer signs head {str(trailer.get('head'))[:16]}… at version "
                                     f"{trailer.get('version')}, but the records' chain ends at {str(head)[:16]}…")
        return
    if check_signature is None:
        report.add("signature", None, "no public key given")
    else:
        valid = check_signature(trailer)
        report.add("signature", valid, "the trailer is signed by the service key" if valid else "bad signature")
    report.add("receipt", True, f"version {trailer['version']}, head {trailer['head'][:16]}…")


def _replay(report: Report, header: dict, records: list[dict]) -> None:
    if any(r.get("commitment") is not None and "secret" not in r for r in records):
        report.add("replay", None, "some secrets are not visible in this export (an organizer's export, or one "
                                   "taken after the end, has them all)")
        return
    try:
        ruleset = rulesets.get(header["ruleset"])
        config = config_from_dict(ruleset.Config, header["config"])
    except (KeyError, ValueError) as exc:
        report.add("replay", False, f"cannot load ruleset {header.get('ruleset')!r}: {exc}")
        return
    seats = header.get("seats") or records[0]["public"]["seats"]
    state = ruleset.initial_state(config, list(seats))
    readjudicate = getattr(ruleset, "readjudicate", None)
    rulings = 0
    outcome = None
    try:
        for record in records:
            if record["kind"] == MATCH_FINISHED:
                outcome = record["public"].get("outcome")
                if json.loads(json.dumps(ruleset.outcome(state))) != outcome:
                    report.add("outcome", False, "the recorded outcome is not the one the rules give")
                    return
                continue
            if record["kind"] == OUTCOME_AMENDED or record["kind"] in MATCH_KINDS:
                continue
            secret = record.get("secret")
            if secret is not None:
                secret = {k: v for k, v in secret.items() if k != "opened"}
            event = Event(record["kind"], record["public"], secret,
                          None if record.get("audience") is None else tuple(record["audience"]), (), record["version"])
            call = record["public"].get("bluff_call")
            if call is not None and readjudicate is not None:
                expected = readjudicate(json.loads(json.dumps(state)), event)
                differs = {k: (call.get(k), v) for k, v in expected.items() if call.get(k) != v}
                if differs:
                    report.add("verdicts", False, f"ruling {record['version']} differs from the rules: {differs}")
                    return
                rulings += 1
            state = ruleset.evolve(state, event)
    except Exception as exc:  # a tampered record can break any fold; that is a finding, not a crash
        report.add("replay", False, f"the events do not replay: {type(exc).__name__}: {exc}")
        return
    report.add("replay", True, f"{len(records)} records replayed through {header['ruleset']}")
    if readjudicate is None:
        report.add("verdicts", None if not report.calls else False,
                   "this ruleset records no bluff calls" if not report.calls else "no re-adjudication for this ruleset")
    else:
        report.add("verdicts", True, f"{rulings} rulings re-adjudicated from the replayed hidden state")
    if outcome is not None:
        report.add("outcome", True, "the recorded outcome is the one the rules give")

