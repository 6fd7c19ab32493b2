"""`gambit verify` reads fast and refuses as much as ever.

Record lines are parsed at C speed, and the canonical encodings the chain and the commitments
need prove that no object repeats a key; a line that proof does not cover gets the careful
reading, so a repeated key anywhere still fails the format check, whatever JSON style wrote the
export. And `gambit verify` imports the verifier, not the web app or the stores.
"""

from __future__ import annotations

import gc
import io
import json
from pathlib import Path

import pytest

from domain import match as match_module
from domain import records as records_module
from domain import verification
from domain.verification import verify_export
from projections.runner import PROJECTIONS
from service import cli
from service.verify_cli import ROLES, run_verify
from tests.rules.test_derived_secrets import export_lines, playout
from tests.support.verify_process import games_imported, verify_in_a_fresh_process

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def honest() -> list[str]:
    """A finished dragons-gambit match's organizer export (rulings, opened evidence), one JSON text a line."""
    game = playout("dragons-gambit", {"players": 2, "target_score": 30}, 5)
    return export_lines(game, game.events)


def checks(lines: list[str]) -> list[dict]:
    """What the verifier reports of these lines."""
    return verify_export(lines).as_dict()["checks"]


def restyled(lines: list[str], **style) -> list[str]:
    """The same export written by another JSON writer."""
    return [json.dumps(json.loads(line), **style) for line in lines]


def first_line(lines: list[str], holds: str) -> int:
    """The index of the first record line whose text holds a fragment."""
    return next(index for index, line in enumerate(lines[1:-1], start=1) if holds in line)


def test_the_honest_export_verifies(honest):
    report = verify_export(honest)
    assert report.verdict == "UNSIGNED", [c.as_dict() for c in report.checks if c.status == "fail"]
    assert {c.name for c in report.checks if c.status == "pass"} >= {"chain", "commitments", "evidence", "replay"}


@pytest.mark.parametrize(
    "style",
    [
        {"ensure_ascii": False},
        {"separators": (",", ":"), "sort_keys": True, "ensure_ascii": False},
        {"separators": (",", ":")},
        {"separators": (" , ", " :  ")},
    ],
    ids=["unicode", "canonical", "compact", "spaced"],
)
def test_any_json_style_of_the_same_export_gets_the_same_report(honest, style):
    assert checks(restyled(honest, **style)) == checks(honest)


def test_colons_written_as_escapes_get_the_same_report(honest):
    # A colon written `\u003a` is one the count cannot see: such a line is read carefully instead.
    escaped = [line.replace("00:", "00\\u003a") for line in honest]
    assert escaped != honest
    assert checks(escaped) == checks(honest)


def with_line(lines: list[str], index: int, text: str) -> list[str]:
    return [*lines[:index], text, *lines[index + 1 :]]


def repeated_key_variants(lines: list[str]) -> dict[str, tuple[int, str]]:
    """Record lines given a repeated key in various places; the original value always comes last, so a
    reader that keeps the last one sees the honest record (its chain and commitment still hold)."""
    dealt = first_line(lines, '"grids"')
    ruling = first_line(lines, '"opened"')
    plain = 2
    return {
        "top level": (plain, lines[plain][:-1] + ', "kind": "Forged"}'),
        "top level, first": (plain, '{"kind": "Forged", ' + lines[plain][1:]),
        "top level, escaped name": (plain, '{"\\u006bind": "Forged", ' + lines[plain][1:]),
        "in public": (dealt, lines[dealt].replace('"public": {', '"public": {"round": 99, ', 1)),
        "in the secret": (dealt, lines[dealt].replace('"secret": {', '"secret": {"grids": null, ', 1)),
        "in opened evidence": (ruling, lines[ruling].replace('"opened": [{', '"opened": [{"version": 0, ', 1)),
        "with a colon escaped elsewhere": (
            dealt,
            lines[dealt].replace('"public": {', '"public": {"round": 99, ', 1).replace("00:", "00\\u003a", 1),
        ),
        "with a colon in the repeated name": (
            plain,
            lines[plain].replace('"public": {', '"public": {"a:b": 1, "a:b": 2, ', 1),
        ),
    }


@pytest.mark.parametrize(
    "variant",
    [
        "top level",
        "top level, first",
        "top level, escaped name",
        "in public",
        "in the secret",
        "in opened evidence",
        "with a colon escaped elsewhere",
        "with a colon in the repeated name",
    ],
)
def test_a_repeated_key_fails_the_format_check_wherever_it_is(honest, variant):
    index, text = repeated_key_variants(honest)[variant]
    assert text != honest[index]
    report = verify_export(with_line(honest, index, text))
    assert report.verdict == "FAILED"
    assert [c.as_dict() for c in report.checks] == [
        {"check": "format", "status": "fail", "detail": f"line {index + 1} is not JSON: an object repeats a key"}
    ]


def test_a_repeated_key_fails_in_every_json_style(honest):
    for style in ({"ensure_ascii": False}, {"separators": (",", ":"), "sort_keys": True}):
        lines = restyled(honest, **style)
        doubled = lines[3][:-1] + ',"version":3}'
        report = verify_export(with_line(lines, 3, doubled))
        assert [c.name for c in report.checks if c.status == "fail"] == ["format"], style
        assert "repeats a key" in report.checks[0].detail


def test_verifying_leaves_the_garbage_collector_as_it_found_it(honest, tmp_path):
    path = tmp_path / "export.ndjson"
    path.write_text("\n".join(honest) + "\n")
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            assert run_verify(str(path), None, True, out=io.StringIO(), err=io.StringIO()) == 3  # UNSIGNED
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


# The web app, the stores and the read models; and the package metadata `--version` reads.
HEAVY = (
    "flask",
    "gunicorn",
    "sqlalchemy",
    "psycopg",
    "eventsourcing",
    "projections",
    "service.app",
    "importlib.metadata",
)


def _verify_in_a_fresh_process(lines: list[str], tmp_path) -> dict:
    """`gambit verify` of these lines in a new interpreter: its exit code and every module it imported."""
    path = tmp_path / "export.ndjson"
    path.write_text("\n".join(lines) + "\n")
    return verify_in_a_fresh_process(path)


def test_gambit_verify_imports_neither_the_web_app_nor_the_stores(honest, tmp_path):
    ran = _verify_in_a_fresh_process(honest, tmp_path)
    assert ran["code"] == 3  # UNSIGNED: the whole export was checked, replay included
    assert "domain.verification" in ran["modules"]
    loaded = [name for name in ran["modules"] if name.startswith(HEAVY)]
    assert loaded == []


def test_gambit_verify_with_a_key_imports_the_signature_check_not_the_key_handling(honest, tmp_path):
    from service.signing import Signer

    signer = Signer.load(str(tmp_path))
    path = tmp_path / "export.ndjson"
    path.write_text("\n".join(honest) + "\n")
    ran = verify_in_a_fresh_process(path, signer.public_key_b64)
    assert ran["code"] == 1  # FAILED: this export's trailer was not signed by that key, which was checked
    assert "service.receipt_signatures" in ran["modules"]
    assert "service.signing" not in ran["modules"]
    assert "cryptography.hazmat.primitives.serialization" not in ran["modules"]


def test_gambit_verify_imports_only_the_game_of_the_match_it_checks(honest, tmp_path):
    ran = _verify_in_a_fresh_process(honest, tmp_path)
    assert ran["code"] == 3  # UNSIGNED: replayed through the rules, so the game was loaded
    assert games_imported(ran) == {"dragons_gambit"}


def test_the_cli_offers_the_read_models_and_roles_the_commands_know():
    assert cli.REBUILDABLE == PROJECTIONS
    assert cli.EXPORT_ROLES == tuple(sorted(ROLES))


def test_gambit_version_prints_the_version_it_looks_up_when_asked(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"gambit {cli._version()}"


def test_the_verifier_knows_every_kind_of_record_the_match_writes_itself():
    for name in ("MATCH_CREATED", "SEAT_JOINED", "MATCH_FINISHED", "DISPUTE_FILED", "DISPUTE_RULED", "OUTCOME_AMENDED"):
        assert getattr(records_module, name) == getattr(match_module, name), name
    assert verification.MATCH_KINDS == match_module.MATCH_KINDS
