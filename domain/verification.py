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

This module makes the checks in their order into a report (domain/verification_report.py);
reading the lines is domain/export_reading.py, the replay domain/replay_check.py, and the same
verification in two processes domain/verification_split.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.chance import derive_draw, derive_permutation
from domain.clock_verification import check_clocks
from domain.export_reading import (
    EXPORT_FORMAT,
    Malformed,
    ParsedExport,
    Records,
    Unencodable,
    is_hex,
    parse_export,
    read_records,
)
from domain.record_bounds import check_bounds, check_timestamps
from domain.records import (
    COMMAND_RECEIVED,
    EVIDENCE_FIELDS,
    EVIDENCE_NAMES,
    MATCH_CREATED,
    MATCH_FINISHED,
    SEAT_JOINED,
    SEAT_KEY_CHANGED,
    genesis,
    opening_parsed,
    sha256_hex,
)
from domain.replay_check import MATCH_KINDS, check_replay
from domain.seat_keys import SignatureCheck
from domain.signature_check import check_seat_signatures
from domain.verification_report import FAILED, UNSIGNED, VERIFIED, Check, Report, add_unforeseen

RECEIPT_FORMAT = "gambit-receipt/1"
# A receipt that also signs the log's name and the merge delay it promises (docs/verification.md, section 12).
RECEIPT_FORMATS = (RECEIPT_FORMAT, "gambit-receipt/2")

# Read by the service and the tests from here, where the verifier's names have always been.
__all__ = [
    "EXPORT_FORMAT",
    "FAILED",
    "MATCH_KINDS",
    "RECEIPT_FORMAT",
    "UNSIGNED",
    "VERIFIED",
    "Check",
    "Malformed",
    "Records",
    "Report",
    "add_unforeseen",
    "check_evidence_of",
    "checks_before_replay",
    "is_hex",
    "read_records",
    "replay_and_summarize",
    "verify_export",
]


def verify_export(
    lines: Iterable[str],
    source: str = "export",
    *,
    check_signature: Callable[[dict], bool] | None = None,
    progress: Callable[[int], None] | None = None,
    kept_receipts: list[dict] | None = None,
    check_seat_signature: SignatureCheck | None = None,
    redecide: bool = True,
) -> Report:
    """Verify one match export; never raises on bad content — every problem is a failed check.

    `check_seat_signature` checks a keyed seat's signature of a command (the key library's, as
    `check_signature` is for receipts); without it the seat signatures are reported as not checked.

    `kept_receipts` are receipts a seat kept from the service's write responses: each one of
    this match must be covered by the export (its version present, its head on the chain), so an
    export cut back to an earlier write is caught.

    `redecide=False`: benchmarks only, to size the `commands` check (`check_replay`).
    """
    report = Report(source)
    export = checks_before_replay(
        report, lines, progress, check_signature, kept_receipts, check_seat_signature=check_seat_signature
    )
    if export is not None:
        replay_and_summarize(report, export, redecide=redecide)
    return report


def checks_before_replay(
    report: Report,
    lines: Iterable[str],
    progress: Callable[[int], None] | None,
    check_signature: Callable[[dict], bool] | None,
    kept_receipts: list[dict] | None,
    check_evidence: Callable[[Report, list[dict]], None] | None = None,
    check_seat_signature: SignatureCheck | None = None,
) -> ParsedExport | None:
    """Every check of `verify_export` before the replay, in the report's order; the parsed export
    when the replay comes next, None when a check ended the verification.

    `check_evidence` stands in for the evidence check, in its place (another process can make it).
    """
    try:
        export = parse_export(lines, progress)
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
        check_timestamps(report, records)
        check_bounds(report, header, records)
        check_seat_signatures(report, header, records, check_seat_signature)
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


def replay_and_summarize(report: Report, export: ParsedExport | Records, *, redecide: bool = True) -> None:
    """The last step of `verify_export`: the replay through the rules, then the disputes the records hold."""
    records = export.records
    try:
        check_replay(report, export.header, records, redecide=redecide)
    except Exception as exc:  # noqa: BLE001 - content no check foresaw: still a report, never a traceback
        add_unforeseen(report, exc)
        return
    report.disputes = [
        dict(r["public"], version=r["version"], kind=r["kind"])
        for r in records
        if r["kind"] in MATCH_KINDS - {MATCH_CREATED, SEAT_JOINED, MATCH_FINISHED, COMMAND_RECEIVED, SEAT_KEY_CHANGED}
    ]


def _check_chain(report: Report, header: dict, records: list[dict], links: list[str | Unencodable]) -> str | None:
    previous = genesis(header["match_id"])
    for expected, record in enumerate(records, start=1):
        if record["version"] != expected:
            report.add("versions", False, f"version {record['version']} where {expected} was expected")
            return None
        link = links[expected - 1]
        if isinstance(link, Unencodable):
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
    report: Report, records: list[dict], openings: list[str | Unencodable | None], finished: bool
) -> None:
    opened = hidden = 0
    for record, opening_hash in zip(records, openings, strict=True):
        if (record.get("commitment") is None) != (record.get("audience") is None):
            report.add("commitments", False, f"version {record['version']}: audience and commitment disagree")
            return
        if "secret" in record:
            if opening_hash != record.get("commitment"):  # an Unencodable opens nothing
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


def check_evidence_of(report: Report, records: list[dict]) -> None:
    """The evidence check: every record's named evidence opens its commitments; bluff rulings listed in `report.calls`."""
    by_version = {r["version"]: r for r in records}
    checked = 0
    for record in records:
        public = record["public"]
        call = public.get("bluff_call")
        if call is None and EVIDENCE_NAMES.isdisjoint(public):
            continue
        names = [name for name, _ in EVIDENCE_FIELDS if name in public]
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
    for public_key, secret_key in EVIDENCE_FIELDS:
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
                    opening_parsed(item.get("secret"), item.get("salt"))
                ) == target.get("commitment")
            except (TypeError, ValueError):
                opens = False
            if not opens:
                return f"the evidence for version {item.get('version')} does not open its commitment"
    return None


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
    if trailer.get("trailer") not in RECEIPT_FORMATS:
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
        "the trailer is signed by a given service key"
        if valid
        else f"the trailer is not signed by any given key: it names key_id {str(trailer.get('key_id'))[:32]!r} "
        "(a key not given, or a bad signature)",
    )


def _check_kept_receipts(
    report: Report, header: dict, records: list[dict], kept: list[dict], check_signature: Callable[[dict], bool] | None
) -> None:
    """Every kept receipt of this match is for a version the export holds, with the same head."""
    mine = [r for r in kept if isinstance(r, dict) and r.get("match_id") == header["match_id"]]
    for receipt in mine:
        version = receipt.get("version")
        if check_signature is not None and not check_signature(receipt):
            report.add(
                "kept receipts",
                False,
                f"the kept receipt for version {version} is not signed by any given key: it names key_id "
                f"{str(receipt.get('key_id'))[:32]!r} (a key not given, e.g. one from before a key rotation, "
                "or a bad signature)",
            )
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
