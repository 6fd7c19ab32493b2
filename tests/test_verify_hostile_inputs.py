"""`gambit verify` answers any input with FAILED or a one-line usage error, never a traceback.

Hostile files of one family: JSON nested about a thousand levels deep (an export line, a
`--receipt` file, a `--key` file), values deep enough to parse but not to encode or print,
integers past Python's 4,300-digit parse limit, bytes that are not UTF-8. Each is tried on the
serial verification, on two processes (`--jobs 2`, a forked child) and on an export long enough
to take the split path by itself.
"""

from __future__ import annotations

import io
import json

import pytest

from domain import verification_split
from domain.records import chain_link, commitment, genesis
from service.verify_cli import EXIT_FAILED, EXIT_USAGE, run_verify
from tests.rules.test_derived_secrets import export_lines, playout

DEEP = "[" * 1000 + "]" * 1000  # deeper than Python's JSON reader can recurse
PARSEABLE = 900  # deep enough to break an encoder or printer called deeper in the stack, not the reader


@pytest.fixture(scope="module")
def honest() -> list[str]:
    """A finished dragons-gambit match's organizer export (rulings, opened evidence), one JSON text a line."""
    game = playout("dragons-gambit", {"players": 2, "target_score": 30}, 5)
    return export_lines(game, game.events)


@pytest.fixture(params=["serial", "two jobs", "long export"])
def way(request, monkeypatch):
    """How `gambit verify` runs: one process, `--jobs 2`, or the default on an export long enough to split."""
    if request.param == "long export":
        monkeypatch.setattr(verification_split, "cores_available", lambda: 2)
    return request.param


def verify(tmp_path, lines: list[str], way: str = "serial", **options) -> tuple[int, dict | None, str]:
    """`gambit verify --json` on these lines: (exit code, JSON report or None, what it wrote to stderr)."""
    path = tmp_path / "export.ndjson"
    padding = "\n" * verification_split.SPLIT_FROM_LINES if way == "long export" else ""
    path.write_text("\n".join(lines) + "\n" + padding, encoding="utf-8", errors="surrogateescape")
    jobs = {"serial": 1, "two jobs": 2, "long export": None}[way]
    out, err = io.StringIO(), io.StringIO()
    code = run_verify(str(path), options.pop("key", None), True, out=out, err=err, jobs=jobs, **options)
    return code, json.loads(out.getvalue()) if out.getvalue() else None, err.getvalue()


def failed(report: dict) -> dict:
    """Check name → detail of every failed check of the first report."""
    return {c["check"]: c["detail"] for c in report["reports"][0]["checks"] if c["status"] == "fail"}


def nested(depth: int) -> list:
    """A list nested `depth` levels deep."""
    return json.loads("[" * depth + "]" * depth)


def rechained(lines: list[str], edit) -> list[str]:
    """The export with `edit(records)` applied, its chain rebuilt and its trailer on the new head (what a dealer can do)."""
    parsed = [json.loads(line) for line in lines]
    header, records, trailer = parsed[0], parsed[1:-1], parsed[-1]
    edit(records)
    head = genesis(header["match_id"])
    for record in records:
        head = record["chain"] = chain_link(
            head, record["version"], record["kind"], record["timestamp"], record["public"], record["commitment"]
        )
    trailer["head"] = head
    # json.dumps of a value nested ~900 levels needs a shallow stack: these are written here, at the top.
    return [json.dumps(line) for line in (header, *records, trailer)]


@pytest.mark.parametrize("line", ["header", "record", "trailer"])
def test_json_nested_a_thousand_levels_in_an_export_line_fails_naming_the_line(tmp_path, honest, way, line):
    index = {"header": 0, "record": 3, "trailer": len(honest) - 1}[line]
    lines = list(honest)
    lines[index] = lines[index][:-1] + f', "deep": {DEEP}}}'
    code, report, _ = verify(tmp_path, lines, way)
    assert code == EXIT_FAILED
    assert f"line {index + 1} nests too deeply" in failed(report)["format"]


def test_a_public_part_nested_deeper_than_the_service_writes_fails_the_format_check(tmp_path, honest, way):
    def deepen(records):
        records[4]["public"]["deep"] = nested(PARSEABLE)

    code, report, _ = verify(tmp_path, rechained(honest, deepen), way)
    assert code == EXIT_FAILED
    assert "line 6 nests deeper than 64 levels" in failed(report)["format"]


def test_a_public_part_as_deep_as_a_request_body_may_be_is_read(tmp_path, honest):
    def deepen(records):
        records[4]["public"]["deep"] = nested(40)

    _code, report, _ = verify(tmp_path, rechained(honest, deepen))
    assert "format" not in failed(report), report


def test_a_secret_too_deep_to_encode_is_a_failed_check_not_a_traceback(tmp_path, honest, way):
    def deepen(records):
        record = next(r for r in records[1:] if isinstance(r.get("secret"), dict))
        record["secret"]["deep"] = nested(PARSEABLE)
        record["commitment"] = commitment(record["secret"], record["salt"])

    code, report, _ = verify(tmp_path, rechained(honest, deepen), way)
    assert code == EXIT_FAILED and failed(report), report


def test_an_integer_past_the_parse_limit_fails_the_format_check(tmp_path, honest, way):
    lines = list(honest)
    lines[3] = lines[3][:-1] + ', "huge": ' + "9" * 5000 + "}"
    code, report, _ = verify(tmp_path, lines, way)
    assert code == EXIT_FAILED and "line 4 is not JSON" in failed(report)["format"]


def test_bytes_that_are_not_utf8_fail_a_check(tmp_path, honest, way):
    lines = list(honest)
    lines[3] = lines[3].replace('"version"', '"v\udcffersion"', 1)
    code, report, _ = verify(tmp_path, lines, way)
    assert code == EXIT_FAILED and failed(report)


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(("[" + DEEP + "]").encode(), id="nested-a-thousand-levels"),
        pytest.param(('{"receipt": ' + DEEP + "}").encode(), id="nested-receipt"),
        pytest.param(b'{"head": "\xff"}', id="not-utf8"),
        pytest.param(b'{"head": ' + b"9" * 5000 + b"}", id="huge-integer"),
        pytest.param(b'{"receipt": {"head": "' + b"a" * 64 + b'", "version": 3}}', id="no-match-id"),
        pytest.param(b'{"head": "x", "match_id": "m", "version": true, "key_id": "k", "signature": "s"}', id="bool"),
        pytest.param(b'{"a": 1}', id="a-dict-that-is-no-receipt"),
        pytest.param(b"[1, 2]", id="no-objects"),
    ],
)
def test_a_receipt_file_gambit_verify_cannot_use_is_a_one_line_usage_error(tmp_path, honest, content):
    receipt = tmp_path / "kept.json"
    receipt.write_bytes(content)
    code, report, err = verify(tmp_path, honest, receipts=[str(receipt)])
    assert code == EXIT_USAGE and report is None
    assert err.count("\n") == 1 and str(receipt) in err, err


def test_a_receipt_without_a_match_id_is_named_as_such(tmp_path, honest):
    trailer = json.loads(honest[-1])
    receipt = tmp_path / "kept.json"
    receipt.write_text(json.dumps({k: v for k, v in trailer.items() if k != "match_id"}))
    code, _, err = verify(tmp_path, honest, receipts=[str(receipt)])
    assert code == EXIT_USAGE and "'match_id'" in err


@pytest.mark.parametrize(
    "content",
    [
        pytest.param('{"public_key": ' + DEEP + "}", id="nested-a-thousand-levels"),
        pytest.param("[" + DEEP + "]", id="nested-list"),
        pytest.param('{"public_key": ' + "9" * 5000 + "}", id="huge-integer"),
        pytest.param('{"public_key": "AAAA", "previous_keys": "x"}', id="bad-previous-keys"),
        pytest.param('{"previous_keys": []}', id="no-public-key"),
    ],
)
def test_a_key_file_gambit_verify_cannot_use_is_a_one_line_usage_error(tmp_path, honest, content):
    key = tmp_path / "key.json"
    key.write_text(content)
    code, report, err = verify(tmp_path, honest, key=str(key))
    assert code == EXIT_USAGE and report is None
    assert err.count("\n") == 1, err


def test_a_key_file_that_is_not_utf8_is_a_one_line_usage_error(tmp_path, honest):
    key = tmp_path / "key.json"
    key.write_bytes(b'{"public_key": "\xff"}')
    code, _, err = verify(tmp_path, honest, key=str(key))
    assert code == EXIT_USAGE and err.count("\n") == 1, err
