"""Reading a match export: its lines parsed, shaped and hashed as they are read.

`parse_export` is the reading the verifier trusts: every line's shape is checked (the careful
reading names the line of any problem), no object may repeat a key, and each record's chain link
and commitment opening are computed while its line is at hand (docs/verification.md says what
they are). `read_records` is the same reading at parse speed with nothing checked, for a second
process that replays what the first one checks (domain/verification_split.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from domain.records import chain_body_parsed, genesis, linked, opening_parsed, sha256_hex

EXPORT_FORMAT = "gambit-match-export/1"

_RECORD_FIELDS = {"version": int, "kind": str, "timestamp": str, "public": dict, "chain": str}
# The format is closed: a field it does not define is a change nobody can check, so it fails.
_RECORD_KEYS = frozenset(_RECORD_FIELDS) | {"commitment", "audience", "secret", "salt"}
_HEADER_KEYS = frozenset({"format", "match_id", "ruleset", "config", "seats", "version", "exported_at", "viewer"})
_TRAILER_KEYS = frozenset(
    {"trailer", "match_id", "version", "head", "key_id", "signature", "unreceipted", "integrity_problem"}
    # A receipt that names the log (gambit-receipt/2), and the log's proofs of it (docs/verification.md, section 12).
    | {"log", "merge_delay", "log_proof", "log_consistency"}
)
_HEX = re.compile(r"[0-9a-f]*")
# The deepest a header, a trailer or a record's public part may nest. The service takes request
# bodies at most 32 levels deep (service/bodies.py) and nests them a few levels further at most:
# anything deeper is no record it wrote, and would only make reading or printing it recurse.
MAX_DEPTH = 64


class Malformed(ValueError):
    """A line of the export is not what the format says; the message names the line."""


def _strict_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object whose keys are all distinct: a repeated key would let two readers see two records."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("an object repeats a key")
    return found


def nests_deeper_than(value: object, limit: int) -> bool:
    """Whether a JSON value nests objects and arrays more than `limit` levels deep (read without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _may_nest_deeper_than(text: str, limit: int) -> bool:
    """A C-speed pre-check: a line with no more than `limit` brackets cannot nest deeper than `limit`."""
    return text.count("{") + text.count("[") > limit


def is_hex(value: object, length: int | None = None) -> bool:
    """Whether a value is lowercase hex (of an exact length, when given)."""
    return (
        isinstance(value, str)
        and len(value) % 2 == 0
        and _HEX.fullmatch(value) is not None
        and (length is None or len(value) == length)
    )


class Unencodable:
    """A record part that has no canonical encoding (an integer beyond 2**53 - 1, a lone surrogate…)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __str__(self) -> str:
        return str(self.error)


@dataclass
class ParsedExport:
    """An export as parsed, with what its records hash to, computed while each line was at hand.

    `links[i]` is record i's chain value computed over record i-1's `chain` (the match's genesis
    for the first): the chain check stops at the first record whose `chain` differs from its link,
    so every link it compares was computed over a chain it had verified. `openings[i]` is the
    hash of record i's secret and salt (None without a secret). Either is `Unencodable` when
    the parts cannot be encoded canonically.
    """

    header: dict
    records: list[dict]
    trailer: dict | None
    links: list[str | Unencodable]
    openings: list[str | Unencodable | None]


# The JSON reader of every line: plain C-speed parsing, refusing NaN and Infinity.
_DECODER = json.JSONDecoder(parse_constant=_strict_constant)


def parse_export(lines: Iterable[str], progress: Callable[[int], None] | None = None) -> ParsedExport:
    """Header, records and trailer of an export; Malformed naming the line when the shape is wrong.

    `progress` hears every 1,000 records read: reading and hashing them is the larger part of a verification.
    """
    header: dict | None = None
    records: list[dict] = []
    trailer: dict | None = None
    links: list[str | Unencodable] = []
    openings: list[str | Unencodable | None] = []
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
        except ValueError as exc:  # a huge integer (over 4,300 digits) is one too
            raise Malformed(f"line {number} is not JSON: {exc}") from None
        except RecursionError:
            raise Malformed(f"line {number} nests too deeply to be read (at most {MAX_DEPTH} levels)") from None
        if not isinstance(item, dict):
            raise Malformed(f"line {number} is not a JSON object")
        too_deep = item.get("public") if header is not None and "trailer" not in item else item
        if _may_nest_deeper_than(line, MAX_DEPTH) and nests_deeper_than(too_deep, MAX_DEPTH):
            raise Malformed(f"line {number} nests deeper than {MAX_DEPTH} levels, deeper than the service writes")
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
            links.append(body if isinstance(body, Unencodable) else linked(previous, body))
            openings.append(secret if secret is None or isinstance(secret, Unencodable) else sha256_hex(secret))
            if progress is not None and len(records) % 1000 == 0:
                progress(len(records))
    if header is None:
        raise Malformed("the export is empty")
    return ParsedExport(header, records, trailer, links, openings)


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
        except (ValueError, RecursionError):
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


def _encodings(record: dict) -> tuple[bytes | Unencodable, bytes | Unencodable | None]:
    """The canonical bytes a record's chain link hashes, and those its commitment hashes (None without a secret)."""
    try:
        body: bytes | Unencodable = chain_body_parsed(
            record["version"], record["kind"], record["timestamp"], record["public"], record.get("commitment")
        )
    except (TypeError, ValueError) as exc:
        body = Unencodable(exc)
    except RecursionError:
        body = Unencodable(ValueError("the record nests too deeply to be encoded"))
    if "secret" not in record:
        return body, None
    try:
        return body, opening_parsed(record["secret"], record["salt"])
    except (TypeError, ValueError) as exc:
        return body, Unencodable(exc)
    except RecursionError:
        return body, Unencodable(ValueError("the secret nests too deeply to be encoded"))


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
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or "trailer" in record:
        return None
    if not _plainly_shaped(record):
        return None
    if _may_nest_deeper_than(line, MAX_DEPTH) and nests_deeper_than(record["public"], MAX_DEPTH):
        return None
    body, secret = _encodings(record)
    if isinstance(body, Unencodable) or isinstance(secret, Unencodable):
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
