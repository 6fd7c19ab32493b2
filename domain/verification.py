"""The offline verifier: check a match export without a server, a database or trust.

It checks, in one pass over the NDJSON (docs/verification.md says what each check means):
the shape of every line; the header against the chained records (`config`, `seats`, match id,
ruleset); version continuity and the hash chain; that every visible commitment opens — and,
once the match has finished, that every commitment is opened; that the revealed server seed
matches its commitment and re-derives every chance result; that every bluff ruling's opened
evidence re-commits to the commitments it names; that the trailer is the receipt for exactly
the records' version and head, for this match, with nothing left unreceipted. Then, when every
secret is visible, it replays the events through the ruleset: every secret that chance and the
state fix (a deal, a draw) must be what they give, every ruling is re-adjudicated from the
replayed hidden state, and the final outcome must be the one the rules give. The trailer's
signature is checked by a callback (the key type lives outside the domain).

Bad content never raises: every problem is a failed check naming the line or version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from domain.chance import derive_draw, derive_permutation
from domain.clock import CLOCK_KINDS
from domain.clock_verification import check_clocks
from domain.match_options import ruleset_part
from domain.records import (
    MATCH_CREATED,
    MATCH_FINISHED,
    SEAT_JOINED,
    canonical_parsed,
    chain_body_parsed,
    genesis,
    json_copy,
    linked,
    opening,
    opening_parsed,
    sha256_hex,
)
from domain.records import MATCH_KINDS as RECORD_KINDS
from domain.ruleset import ConfigError, Event, config_from_dict

EXPORT_FORMAT = "gambit-match-export/1"
# Every kind of record the match writes itself, whatever the ruleset (domain.match.MATCH_KINDS,
# named without importing the aggregate and its store library): none is the rules' to fold.
MATCH_KINDS = RECORD_KINDS | CLOCK_KINDS
RECEIPT_FORMAT = "gambit-receipt/1"

VERIFIED, UNSIGNED, FAILED = "VERIFIED", "UNSIGNED", "FAILED"

_RECORD_FIELDS = {"version": int, "kind": str, "timestamp": str, "public": dict, "chain": str}
# The format is closed: a field it does not define is a change nobody can check, so it fails.
_RECORD_KEYS = frozenset(_RECORD_FIELDS) | {"commitment", "audience", "secret", "salt"}
_HEADER_KEYS = frozenset({"format", "match_id", "ruleset", "config", "seats", "version", "exported_at", "viewer"})
_TRAILER_KEYS = frozenset(
    {"trailer", "match_id", "version", "head", "key_id", "signature", "unreceipted", "integrity_problem"}
)
_HEX = re.compile(r"[0-9a-f]*")


class Malformed(ValueError):
    """A line of the export is not what the format says; the message names the line."""


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
    signed: bool = False
    checks: list[Check] = field(default_factory=list)
    calls: list[dict] = field(default_factory=list)
    disputes: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return all(check.status != "fail" for check in self.checks)

    @property
    def verdict(self) -> str:
        """FAILED when any check failed; UNSIGNED when all held but no key checked the receipt."""
        if not self.ok:
            return FAILED
        return VERIFIED if self.signed else UNSIGNED

    def add(self, name: str, ok: bool | None, detail: str = "") -> None:
        """Record a check (`None` = skipped)."""
        self.checks.append(Check(name, "skip" if ok is None else "pass" if ok else "fail", detail))

    def as_dict(self) -> dict:
        """JSON form of the whole report."""
        return {
            "source": self.source,
            "ok": self.ok,
            "verdict": self.verdict,
            "match_id": self.match_id,
            "ruleset": self.ruleset,
            "records": self.records,
            "checks": [c.as_dict() for c in self.checks],
            "calls": self.calls,
            "disputes": self.disputes,
        }


def _strict_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object whose keys are all distinct: a repeated key would let two readers see two records."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("an object repeats a key")
    return found


def is_hex(value: object, length: int | None = None) -> bool:
    """Whether a value is lowercase hex (of an exact length, when given)."""
    return (
        isinstance(value, str)
        and len(value) % 2 == 0
        and _HEX.fullmatch(value) is not None
        and (length is None or len(value) == length)
    )


class _Unencodable:
    """A record part that has no canonical encoding (an integer beyond 2**53 - 1, a lone surrogate…)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __str__(self) -> str:
        return str(self.error)


@dataclass
class _Export:
    """An export as parsed, with what its records hash to, computed while each line was at hand.

    `links[i]` is record i's chain value computed over record i-1's `chain` (the match's genesis
    for the first): the chain check stops at the first record whose `chain` differs from its link,
    so every link it compares was computed over a chain it had verified. `openings[i]` is the
    hash of record i's secret and salt (None without a secret). Either is `_Unencodable` when
    the parts cannot be encoded canonically.
    """

    header: dict
    records: list[dict]
    trailer: dict | None
    links: list[str | _Unencodable]
    openings: list[str | _Unencodable | None]


# The JSON reader of every line: plain C-speed parsing, refusing NaN and Infinity.
_DECODER = json.JSONDecoder(parse_constant=_strict_constant)


def _parse(lines: Iterable[str], progress: Callable[[int], None] | None = None) -> _Export:
    """Header, records and trailer of an export; Malformed naming the line when the shape is wrong.

    `progress` hears every 1,000 records read: reading and hashing them is the larger part of a verification.
    """
    header: dict | None = None
    records: list[dict] = []
    trailer: dict | None = None
    links: list[str | _Unencodable] = []
    openings: list[str | _Unencodable | None] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if header is not None and trailer is None:  # a record line, unless it is the trailer
            previous = records[-1]["chain"] if records else genesis(header["match_id"])
            sealed = _record_read_fast(line, previous)
            if sealed is not None:
                records.append(sealed[0])
                links.append(sealed[1])
                openings.append(sealed[2])
                if progress is not None and len(records) % 1000 == 0:
                    progress(len(records))
                continue
        try:
            item = json.loads(line, parse_constant=_strict_constant, object_pairs_hook=_unique_keys)
        except ValueError as exc:
            raise Malformed(f"line {number} is not JSON: {exc}") from None
        if not isinstance(item, dict):
            raise Malformed(f"line {number} is not a JSON object")
        if trailer is not None:
            raise Malformed(f"line {number} comes after the trailer")
        if header is None:
            _check_header(item, number)
            header = item
        elif "trailer" in item:
            unknown = sorted(set(item) - _TRAILER_KEYS)
            if unknown:
                raise Malformed(f"line {number}: the trailer has a field the format does not define: {unknown[0]!r}")
            trailer = item
        else:
            _check_record_shape(item, number)
            body, secret = _encodings(item)
            records.append(item)
            links.append(body if isinstance(body, _Unencodable) else linked(previous, body))
            openings.append(secret if secret is None or isinstance(secret, _Unencodable) else sha256_hex(secret))
            if progress is not None and len(records) % 1000 == 0:
                progress(len(records))
    if header is None:
        raise Malformed("the export is empty")
    return _Export(header, records, trailer, links, openings)


@dataclass
class Records:
    """An export's header and records as read, before any check: what the replay needs."""

    header: dict
    records: list[dict]


def read_records(lines: Iterable[str], progress: Callable[[int], None] | None = None) -> Records | None:
    """The header and records of an export read at parse speed, with no encoding, hash or check;
    None when a line does not read as a JSON object.

    Its values are those `_parse` gives only for lines `_parse` accepts, which prove that no
    object repeats a key (the one way two readers of a JSON object can keep different values):
    use it only alongside `checks_before_replay` on the same lines, and only when that passed.
    """
    header: dict | None = None
    records: list[dict] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            item = _DECODER.decode(line)
        except ValueError:
            return None
        if not isinstance(item, dict):
            return None
        if header is None:
            header = item
        elif "trailer" in item:
            break
        else:
            records.append(item)
            if progress is not None and len(records) % 1000 == 0:
                progress(len(records))
    return None if header is None else Records(header, records)


def _encodings(record: dict) -> tuple[bytes | _Unencodable, bytes | _Unencodable | None]:
    """The canonical bytes a record's chain link hashes, and those its commitment hashes (None without a secret)."""
    try:
        body: bytes | _Unencodable = chain_body_parsed(
            record["version"], record["kind"], record["timestamp"], record["public"], record.get("commitment")
        )
    except (TypeError, ValueError) as exc:
        body = _Unencodable(exc)
    if "secret" not in record:
        return body, None
    try:
        return body, opening_parsed(record["secret"], record["salt"])
    except (TypeError, ValueError) as exc:
        return body, _Unencodable(exc)


def _record_read_fast(line: str, previous: str) -> tuple[dict, str, str | None] | None:
    """A record line read without a Python call per JSON object, with its link and opening; None
    when the line needs the careful reading (which names its problem, if any).

    The careful reading refuses an object that repeats a key. Here the canonical encodings the
    chain and the commitment need anyway prove that no key repeats, by counting colons: outside
    strings a JSON text has one colon per key, inside them one per colon of the decoded text, as
    long as no colon is written as an escape. A repeated key is one more key in the line than in
    what was parsed (which keeps one of the two); the canonical encodings of the parsed parts
    write every colon as is, so their colons are exactly those of the parsed record.
    """
    if "\\u003" in line:  # maybe a colon written as an escape (\u003a), which the count cannot see
        return None
    try:
        record = _DECODER.decode(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or "trailer" in record:
        return None
    if not _plainly_shaped(record):
        return None
    body, secret = _encodings(record)
    if isinstance(body, _Unencodable) or isinstance(secret, _Unencodable):
        return None
    # The top-level keys (all named by the format, no colon in them), then each value's colons:
    # chain, commitment and version have none; the chain body holds kind, timestamp and public
    # under 5 keys; the opening holds salt and secret under 2.
    parsed = len(record) + body.count(b":") - 5
    if secret is not None:
        parsed += secret.count(b":") - 2
    elif "salt" in record:
        if not isinstance(record["salt"], str):
            return None
        parsed += record["salt"].count(":")
    for seat in record["audience"] or ():
        parsed += seat.count(":")
    if line.count(":") != parsed:
        return None
    return record, linked(previous, body), None if secret is None else sha256_hex(secret)


# The key sets of nearly every record: without and with a visible secret.
_PLAIN_KEYS = frozenset({"version", "kind", "timestamp", "public", "commitment", "audience", "chain"})
_PLAIN_SECRET_KEYS = _PLAIN_KEYS | {"secret", "salt"}
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _plainly_shaped(record: dict) -> bool:
    """True only for a record `_check_record_shape` passes, in its common shapes (few calls per record);
    False sends the record to the careful reading, which names any problem."""
    keys = record.keys()
    if keys != _PLAIN_KEYS and keys != _PLAIN_SECRET_KEYS:
        return False
    version, chain, commitment, audience = record["version"], record["chain"], record["commitment"], record["audience"]
    if not (
        type(version) is int
        and type(record["kind"]) is str
        and type(record["timestamp"]) is str
        and type(record["public"]) is dict
        and type(chain) is str
        and _HEX64.fullmatch(chain) is not None
        and (commitment is None or (type(commitment) is str and _HEX64.fullmatch(commitment) is not None))
    ):
        return False
    if audience is not None and (type(audience) is not list or not all(type(seat) is str for seat in audience)):
        return False
    return "secret" not in record or (
        type(record["salt"]) is str and (record["secret"] is None or type(record["secret"]) is dict)
    )


def _check_header(header: dict, number: int) -> None:
    if header.get("format") != EXPORT_FORMAT:
        raise Malformed(f"line {number}: the first line is not a {EXPORT_FORMAT} header")
    for name, kind in (("match_id", str), ("ruleset", str), ("config", dict), ("seats", list), ("version", int)):
        if not isinstance(header.get(name), kind) or isinstance(header.get(name), bool):
            raise Malformed(f"line {number}: the header's {name!r} is missing or not a {kind.__name__}")
    unknown = sorted(set(header) - _HEADER_KEYS)
    if unknown:
        raise Malformed(f"line {number}: the header has a field the format does not define: {unknown[0]!r}")
    if not all(isinstance(seat, str) for seat in header["seats"]):
        raise Malformed(f"line {number}: the header's seats are not all names")


def _check_record_shape(record: dict, number: int) -> None:
    for name, kind in _RECORD_FIELDS.items():
        value = record.get(name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise Malformed(f"line {number}: the record has no {name!r} of type {kind.__name__}")
    if not _RECORD_KEYS.issuperset(record):
        unknown = sorted(set(record) - _RECORD_KEYS)
        raise Malformed(f"line {number}: the record has a field the format does not define: {unknown[0]!r}")
    if "commitment" not in record or "audience" not in record:
        raise Malformed(f"line {number}: the record has no 'commitment' or no 'audience' (null when no secret)")
    if not is_hex(record["chain"], 64):
        raise Malformed(f"line {number}: the record's chain is not 64 hex digits")
    secretive = record.get("commitment")
    if secretive is not None and not is_hex(secretive, 64):
        raise Malformed(f"line {number}: the record's commitment is not 64 hex digits")
    audience = record.get("audience")
    if audience is not None and not (isinstance(audience, list) and all(isinstance(s, str) for s in audience)):
        raise Malformed(f"line {number}: the record's audience is not a list of seats")
    if "secret" in record and not isinstance(record.get("salt"), str):
        raise Malformed(f"line {number}: the record has a secret without a salt")
    if "secret" in record and record["secret"] is not None and not isinstance(record["secret"], dict):
        raise Malformed(f"line {number}: the record's secret is not an object")


def verify_export(
    lines: Iterable[str],
    source: str = "export",
    *,
    check_signature: Callable[[dict], bool] | None = None,
    progress: Callable[[int], None] | None = None,
    kept_receipts: list[dict] | None = None,
) -> Report:
    """Verify one match export; never raises on bad content — every problem is a failed check.

    `kept_receipts` are receipts a seat kept from the service's write responses: each one of
    this match must be covered by the export (its version present, its head on the chain), so an
    export cut back to an earlier write is caught.
    """
    report = Report(source)
    export = checks_before_replay(report, lines, progress, check_signature, kept_receipts)
    if export is not None:
        replay_and_summarize(report, export)
    return report


def checks_before_replay(
    report: Report,
    lines: Iterable[str],
    progress: Callable[[int], None] | None,
    check_signature: Callable[[dict], bool] | None,
    kept_receipts: list[dict] | None,
    check_evidence: Callable[[Report, list[dict]], None] | None = None,
) -> _Export | None:
    """Every check of `verify_export` before the replay, in the report's order; the parsed export
    when the replay comes next, None when a check ended the verification.

    `check_evidence` stands in for the evidence check, in its place (another process can make it).
    """
    try:
        export = _parse(lines, progress)
    except Malformed as exc:
        report.add("format", False, str(exc))
        return None
    header, records, trailer = export.header, export.records, export.trailer
    report.match_id, report.ruleset = header["match_id"], header["ruleset"]
    report.records = len(records)
    report.add("format", True, f"{EXPORT_FORMAT}, exported for {header.get('viewer')}")
    try:
        head = _check_chain(report, header, records, export.links)
        if head is None:
            return None  # nothing after a broken chain can be trusted to mean anything
        _check_header_binding(report, header, records)
        finished = any(r["kind"] == MATCH_FINISHED for r in records)
        _check_commitments(report, records, export.openings, finished)
        _check_chance(report, header, records)
        (check_evidence or check_evidence_of)(report, records)
        _check_trailer(report, header, trailer, records, head, check_signature)
        if kept_receipts:
            _check_kept_receipts(report, header, records, kept_receipts, check_signature)
        check_clocks(report, header, records)
    except Exception as exc:  # noqa: BLE001 - content no check foresaw: still a report, never a traceback
        add_unforeseen(report, exc)
        return None
    return export


def add_unforeseen(report: Report, exc: Exception) -> None:
    """The failed check for content no check foresaw, which ends the verification."""
    report.add("content", False, f"the export cannot be checked: {type(exc).__name__}: {exc}")


def replay_and_summarize(report: Report, export: _Export | Records) -> None:
    """The last step of `verify_export`: the replay through the rules, then the disputes the records hold."""
    records = export.records
    try:
        _replay(report, export.header, records)
    except Exception as exc:  # noqa: BLE001 - content no check foresaw: still a report, never a traceback
        add_unforeseen(report, exc)
        return
    report.disputes = [
        dict(r["public"], version=r["version"], kind=r["kind"])
        for r in records
        if r["kind"] in MATCH_KINDS - {MATCH_CREATED, SEAT_JOINED, MATCH_FINISHED}
    ]


def _check_chain(report: Report, header: dict, records: list[dict], links: list[str | _Unencodable]) -> str | None:
    previous = genesis(header["match_id"])
    for expected, record in enumerate(records, start=1):
        if record["version"] != expected:
            report.add("versions", False, f"version {record['version']} where {expected} was expected")
            return None
        link = links[expected - 1]
        if isinstance(link, _Unencodable):
            report.add("chain", False, f"version {expected} cannot be encoded canonically: {link}")
            return None
        if link != record["chain"]:
            report.add("chain", False, f"the chain breaks at version {expected}")
            return None
        previous = link
    if not records:
        report.add("versions", False, "the export holds no records")
        return None
    report.add("versions", True, f"1..{len(records)} with no gap")
    report.add("chain", True, f"head {previous}")
    return previous


def _check_header_binding(report: Report, header: dict, records: list[dict]) -> None:
    created = records[0]
    public = created["public"]
    if created["kind"] != MATCH_CREATED or public.get("match_id") != header["match_id"]:
        report.add("header", False, "the first record is not this match's MatchCreated")
        return
    for name in ("ruleset", "config", "seats"):
        if public.get(name) != header[name]:
            report.add("header", False, f"the header's {name} is not the one MatchCreated records")
            return
    if header["version"] != len(records):
        report.add("header", False, f"the header says version {header['version']}, the records end at {len(records)}")
        return
    joined = [r["public"].get("seat") for r in records if r["kind"] == SEAT_JOINED]
    if any(not isinstance(seat, str) or seat not in header["seats"] for seat in joined) or len(
        set(map(str, joined))
    ) != len(joined):
        report.add("header", False, "a SeatJoined record names a seat the match does not have, or twice")
        return
    report.add("header", True, "match id, ruleset, config and seats are the chained ones")


def _check_commitments(
    report: Report, records: list[dict], openings: list[str | _Unencodable | None], finished: bool
) -> None:
    opened = hidden = 0
    for record, opening_hash in zip(records, openings, strict=True):
        if (record.get("commitment") is None) != (record.get("audience") is None):
            report.add("commitments", False, f"version {record['version']}: audience and commitment disagree")
            return
        if "secret" in record:
            if opening_hash != record.get("commitment"):  # an _Unencodable opens nothing
                report.add("commitments", False, f"the commitment of version {record['version']} does not open")
                return
            opened += 1
        elif record.get("commitment") is not None:
            if finished:
                report.add(
                    "commitments",
                    False,
                    f"the match has finished, but the secret of version "
                    f"{record['version']} is not opened in this export",
                )
                return
            hidden += 1
    report.add("commitments", True, f"{opened} opened, {hidden} not visible in this export")


def _client_seeds(header: dict, records: list[dict]) -> list[str]:
    joined = {
        r["public"].get("seat"): r["public"].get("client_seed", "")
        for r in records
        if r["kind"] == SEAT_JOINED and isinstance(r["public"].get("seat"), str)
    }
    return [joined.get(seat, "") for seat in header["seats"]]


def _rederive(seed: bytes, match_id: str, client_seeds: list[str], chance: dict, recorded: object) -> Any:
    kind, purpose, n = chance["draw"], chance["purpose"], chance["n"]
    if kind not in ("permutation", "draw", "roll") or not isinstance(purpose, str) or not isinstance(n, int) or n < 1:
        raise ValueError("the chance descriptor is not one docs/verification.md defines")
    if kind == "permutation":
        if not isinstance(recorded, list) or len(recorded) != n:
            return None  # not a permutation of n: no need to derive one (n could be made huge)
        return derive_permutation(seed, match_id, client_seeds, purpose, n)
    value = derive_draw(seed, match_id, client_seeds, purpose, n)
    return value + 1 if kind == "roll" else value


def _check_chance(report: Report, header: dict, records: list[dict]) -> None:
    finished = [r for r in records if r["kind"] == MATCH_FINISHED]
    if not finished:
        report.add("chance", None, "the match has not finished: the server seed is not revealed yet")
        return
    seed_hex = finished[-1]["public"].get("server_seed")
    if not is_hex(seed_hex) or sha256_hex(bytes.fromhex(seed_hex)) != records[0]["public"].get(
        "server_seed_commitment"
    ):
        report.add("server seed", False, "the revealed server seed does not match its commitment")
        return
    report.add("server seed", True, "matches the commitment made at creation")
    seed, client_seeds = bytes.fromhex(seed_hex), _client_seeds(header, records)
    derived = 0
    purposes: set[str] = set()
    scope = 0
    for record in records:
        chance = record["public"].get("chance")
        if chance is None:
            continue
        problem = _purpose_problem(chance, record["version"], scope, purposes)
        if problem is not None:
            report.add("chance", False, f"version {record['version']}: {problem}")
            return
        scope = int(chance["purpose"][1:].split("/", 1)[0])
        purposes.add(chance["purpose"])
        if "chance_result" in record["public"]:
            recorded = record["public"]["chance_result"]
        elif isinstance(record.get("secret"), dict) and "chance_result" in record["secret"]:
            recorded = record["secret"]["chance_result"]
        else:
            report.add("chance", False, f"version {record['version']} records a draw but not its result")
            return
        try:
            again = _rederive(seed, header["match_id"], client_seeds, chance, recorded)
        except (KeyError, TypeError, ValueError) as exc:
            report.add("chance", False, f"the chance descriptor of version {record['version']} is malformed: {exc}")
            return
        if again != recorded:
            report.add("chance", False, f"the chance result of version {record['version']} does not re-derive")
            return
        derived += 1
    report.add("chance", True, f"{derived} results re-derived from the revealed seed")


def _purpose_problem(chance: object, version: int, scope: int, used: set[str]) -> str | None:
    """Why a draw's purpose is not one the match could have used, or None.

    A purpose is scoped by the version its decision started at (`v<N>/…`, N at most the record's
    version and never behind an earlier draw's) and used once: the server cannot re-draw under
    another purpose until it likes the result.
    """
    purpose = chance.get("purpose") if isinstance(chance, dict) else None
    if not isinstance(purpose, str):
        return "the chance descriptor has no purpose"
    prefix, _, rest = purpose.partition("/")
    if not (prefix[:1] == "v" and prefix[1:].isdigit() and rest):
        return f"the purpose {purpose!r} is not scoped by a version (v<N>/…)"
    if not scope <= int(prefix[1:]) <= version:
        return f"the purpose {purpose!r} is scoped outside versions {scope}..{version}"
    if purpose in used:
        return f"the purpose {purpose!r} was drawn twice"
    return None


# A record names what it reveals to everyone (`public.opens`, copies in `secret.opened`) and what
# it rests on but keeps sealed (`public.sealed_evidence`, copies in `secret.sealed_evidence`).
_EVIDENCE = (("opens", "opened"), ("sealed_evidence", "sealed_evidence"))
_EVIDENCE_NAMES = frozenset(name for name, _ in _EVIDENCE)
_EVIDENCE_COPIES = frozenset(copies for _, copies in _EVIDENCE)


def check_evidence_of(report: Report, records: list[dict]) -> None:
    """The evidence check: every record's named evidence opens its commitments; bluff rulings listed in `report.calls`."""
    by_version = {r["version"]: r for r in records}
    checked = 0
    for record in records:
        public = record["public"]
        call = public.get("bluff_call")
        if call is None and _EVIDENCE_NAMES.isdisjoint(public):
            continue
        names = [name for name, _ in _EVIDENCE if name in public]
        if call is not None and not isinstance(call, dict):
            report.add("evidence", False, f"ruling {record['version']}: the bluff call is not an object")
            return
        problem = _evidence_problem(record, by_version) if names else None
        if problem is not None:
            report.add("evidence", False, f"version {record['version']}: {problem}")
            return
        visible = isinstance(record.get("secret"), dict)
        checked += 1 if names and visible else 0
        if call is not None:
            report.calls.append(
                {
                    "ruling_version": record["version"],
                    **call,
                    "evidence": "opened and verified" if visible else "not visible",
                }
            )
    report.add(
        "evidence", True if checked else None, f"{checked} records' evidence re-committed ({len(report.calls)} rulings)"
    )


def _evidence_problem(record: dict, by_version: dict[int, dict]) -> str | None:
    """Why a record's named evidence is not what it carries, or does not open; None when it holds."""
    secret = record.get("secret")
    for public_key, secret_key in _EVIDENCE:
        named = record["public"].get(public_key, [])
        if not isinstance(named, list) or not all(isinstance(v, int) and 0 < v < record["version"] for v in named):
            return f"{public_key} must list earlier versions"
        if not isinstance(secret, dict):
            continue  # not visible to this viewer: the commitment stands for it
        copies = secret.get(secret_key, [])
        if (
            not isinstance(copies, list)
            or not all(isinstance(item, dict) for item in copies)
            or sorted(map(str, _versions_of(copies))) != sorted(map(str, named))
        ):
            return f"the evidence it carries is not the evidence it names in {public_key}"
        for item in copies:
            target = by_version.get(item.get("version"))
            try:
                opens = target is not None and sha256_hex(
                    opening(item.get("secret"), item.get("salt"), canonical_parsed)
                ) == target.get("commitment")
            except (TypeError, ValueError):
                opens = False
            if not opens:
                return f"the evidence for version {item.get('version')} does not open its commitment"
    return None


def _first_difference(expected: object, recorded: object, path: str = "") -> str | None:
    """The path of the first key whose recorded value differs from the expected (objects key by key)."""
    if isinstance(expected, dict):
        if not isinstance(recorded, dict):
            return path or "(public)"
        for key, value in expected.items():
            found = _first_difference(value, recorded.get(key, _MISSING), f"{path}.{key}" if path else key)
            if found is not None:
                return found
        return None
    return None if expected == recorded else (path or "(public)")


_MISSING = object()


def _holds(recorded: dict, expected: object) -> bool:
    """Whether a record holds every key of what the rules give, equal as it is: the common case, at C speed.

    The rules give JSON-typed values, so a value equal to the record's as it is stays equal as JSON;
    only when one differs is the JSON copy needed (a tuple differs from a list until copied), and
    `_first_difference` names it.
    """
    return isinstance(expected, dict) and expected.items() <= recorded.items()


def _versions_of(opened: list[dict]) -> list:
    return [item.get("version") for item in opened]


def _check_trailer(
    report: Report,
    header: dict,
    trailer: dict | None,
    records: list[dict],
    head: str,
    check_signature: Callable[[dict], bool] | None,
) -> None:
    if trailer is None:
        report.add("receipt", False, "the export has no signed trailer")
        return
    if trailer.get("trailer") != RECEIPT_FORMAT:
        report.add("receipt", False, f"the trailer is not a {RECEIPT_FORMAT} receipt")
        return
    if trailer.get("match_id") != header["match_id"]:
        report.add("receipt", False, "the trailer is a receipt for another match")
        return
    if trailer.get("integrity_problem"):
        report.add(
            "receipt",
            False,
            f"the service reports that the stored match fails its integrity checks: {trailer['integrity_problem']}",
        )
        return
    if trailer.get("unreceipted"):
        span = trailer["unreceipted"]
        report.add(
            "receipt",
            False,
            f"versions {span.get('from')}..{span.get('to')} carry no receipt of the service"
            if isinstance(span, dict)
            else "some versions carry no receipt of the service",
        )
        return
    if trailer.get("version") != len(records):
        report.add(
            "receipt",
            False,
            f"the trailer signs version {trailer.get('version')}, but the records end at version {len(records)}",
        )
        return
    if trailer.get("head") != head:
        report.add(
            "receipt",
            False,
            f"the trailer signs head {str(trailer.get('head'))[:16]}… at version "
            f"{trailer.get('version')}, but the records' chain ends at {head[:16]}…",
        )
        return
    report.add("receipt", True, f"version {trailer['version']}, head {head[:16]}…")
    if check_signature is None:
        report.add("signature", None, "no public key given: the receipt's signature is not checked (UNSIGNED)")
        return
    valid = check_signature(trailer)
    report.signed = bool(valid)
    report.add(
        "signature",
        bool(valid),
        "the trailer is signed by the given service key"
        if valid
        else "the trailer is not signed by the given key (wrong key_id, or a bad signature)",
    )


def _check_kept_receipts(
    report: Report, header: dict, records: list[dict], kept: list[dict], check_signature: Callable[[dict], bool] | None
) -> None:
    """Every kept receipt of this match is for a version the export holds, with the same head."""
    mine = [r for r in kept if isinstance(r, dict) and r.get("match_id") == header["match_id"]]
    for receipt in mine:
        version = receipt.get("version")
        if check_signature is not None and not check_signature(receipt):
            report.add("kept receipts", False, f"the kept receipt for version {version} is not signed by the key")
            return
        if not isinstance(version, int) or not 1 <= version <= len(records):
            report.add(
                "kept receipts",
                False,
                f"the service acknowledged version {version}, but this export ends at "
                f"version {len(records)}: records were removed",
            )
            return
        if records[version - 1]["chain"] != receipt.get("head"):
            report.add(
                "kept receipts",
                False,
                f"version {version} is not the record the service acknowledged (another head): history was rewritten",
            )
            return
    report.add(
        "kept receipts",
        True if mine else None,
        f"{len(mine)} of {len(kept)} kept receipts are this match's, and the export holds each",
    )


def _replay(report: Report, header: dict, records: list[dict]) -> None:
    if any(r.get("commitment") is not None and "secret" not in r for r in records):
        report.add(
            "replay",
            None,
            "some secrets are not visible in this export (an organizer's export, or one "
            "taken after the end, has them all)",
        )
        return
    # Imported here, not with the module: only a replay needs the games' rules.
    from domain import rulesets

    try:
        ruleset = rulesets.get(header["ruleset"])
        config = config_from_dict(ruleset.Config, ruleset_part(header["config"]))
    except (KeyError, ConfigError, TypeError) as exc:
        report.add("replay", False, f"cannot load ruleset {header['ruleset']!r} with this config: {exc}")
        return
    rulings = derived_count = 0
    outcome = None
    version = 0
    try:
        state = ruleset.initial_state(config, list(header["seats"]))
        for record in records:
            version = record["version"]
            if record["kind"] == MATCH_FINISHED:
                outcome = record["public"].get("outcome")
                if json_copy(ruleset.outcome(state)) != outcome:
                    report.add("outcome", False, "the recorded outcome is not the one the rules give")
                    return
                continue
            if record["kind"] in MATCH_KINDS:
                continue
            secret = record.get("secret")
            if secret is not None and not _EVIDENCE_COPIES.isdisjoint(secret):
                secret = dict(secret)  # the rules fold the secret without the evidence copies it carries
                for _, copies in _EVIDENCE:
                    secret.pop(copies, None)
            event = Event(
                record["kind"],
                record["public"],
                secret,
                None if record.get("audience") is None else tuple(record["audience"]),
                (),
                version,
            )
            derived = ruleset.derived_secret(state, event)
            if derived is not None:
                given = {k: (secret or {}).get(k) for k in derived}
                if derived != given and json_copy(derived) != given:  # the JSON copy only when needed (_holds)
                    report.add(
                        "dealt secrets",
                        False,
                        f"version {version}: the secret is not what chance and the "
                        f"replayed state give (a deal or draw off the shuffle)",
                    )
                    return
                derived_count += 1
            fixed = ruleset.derived_public(state, event)
            if fixed is not None and not _holds(record["public"], fixed):
                # Key by key first (a nested object may hold more than the rules fix); the JSON copy
                # only when a value still differs, as a tuple does from its list.
                mismatch = _first_difference(fixed, record["public"]) and _first_difference(
                    json_copy(fixed), record["public"]
                )
                if mismatch is not None:
                    report.add(
                        "public parts",
                        False,
                        f"version {version}: public {mismatch} is not what the replayed state gives",
                    )
                    return
            call = record["public"].get("bluff_call")
            if call is not None:
                expected = ruleset.readjudicate(state, event)  # never modifies the state (the contract)
                differs = (
                    {}
                    if isinstance(call, dict) and _holds(call, expected)
                    else {k: (call.get(k), v) for k, v in json_copy(expected).items() if call.get(k) != v}
                )
                if differs:
                    report.add("verdicts", False, f"ruling {version} differs from the rules: {differs}")
                    return
                rulings += 1
            state = ruleset.evolve(state, event)
    except Exception as exc:  # noqa: BLE001 - a tampered record can break any fold: a finding, not a crash
        report.add("replay", False, f"the events do not replay at version {version}: {type(exc).__name__}: {exc}")
        return
    report.add("replay", True, f"{len(records)} records replayed through {header['ruleset']}")
    report.add("dealt secrets", True, f"{derived_count} secrets re-derived from chance and the replayed state")
    report.add(
        "verdicts", True if rulings else None, f"{rulings} rulings re-adjudicated from the replayed hidden state"
    )
    if outcome is not None:
        report.add("outcome", True, "the recorded outcome is the one the rules give")
