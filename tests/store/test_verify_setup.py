"""The setup is re-decided like a command: a seat's join options are part of the record, on both stores.

Each `SeatJoined` of a seat that gave join options (gambit-tcg's deck list) holds them as a committed
secret for that seat, and `gambit verify` runs the ruleset's `setup` with them and the setup write's
recorded chance: the setup's records must be exactly what it gives. A key holder who edits the record,
rebuilds the commitments and the chain and re-signs the trailer is caught by the `commands` check, and
so are public amounts the replayed state alone does not fix (a tcg effect's damage, a gattai-conflict
Bonus Draw, gambit-board's drawn first seat). An export of a match recorded before causes were (no
`records_causes`, no options in its joins) still verifies, its setup bound only as it was then.
"""

from __future__ import annotations

import pytest

from domain import rulesets
from domain.rulesets.gambit_tcg.cards import DECKS
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED
from tests.store.test_verify_tampering import Played, failed, rechain_and_resign, recommit

CUSTOM_DECK = DECKS["dawn"][:15] + DECKS["dusk"][:15]
TCG_OPTIONS = {"p1": {"deck_list": CUSTOM_DECK}, "p2": {"deck": "dawn"}}
GAMES = {
    "gambitz": {"players": 3},
    "gambit-board": {"first_seat": "random"},
    "dragons-gambit": {"players": 3, "target_score": 40},
    "gambit-tcg": {"turn_limit": 24},
    "gattai-conflict": {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}, "threats": {"kaiju": 3},
                        "threat_stacks": {"kaiju": 2}, "commander": "p2"},
}


def _checks(report: dict) -> dict:
    return {c["check"]: c for c in report["reports"][0]["checks"]}


def _records(lines: list[dict]) -> list[dict]:
    return lines[1:-1]


def _forged_fails_commands(played: Played, lines: list[dict], version: int) -> str:
    """Re-chain and re-sign the edited lines as a key holder; the report must fail `commands` (its detail)."""
    code, report = played.verify(rechain_and_resign(lines, played.signer()))
    found = failed(report)
    assert code == EXIT_FAILED and "commands" in found, found
    assert f"version {version}" in found["commands"], found
    assert {"chain", "commitments", "receipt", "signature"}.isdisjoint(found), "only the rules catch it"
    return found["commands"]


@pytest.mark.parametrize("ruleset, options", [*((name, None) for name in sorted(GAMES)), ("gambit-tcg", TCG_OPTIONS)])
def test_an_honest_match_verifies_with_its_setup_re_decided(settings, tmp_path, ruleset, options):
    played = Played(settings, tmp_path, ruleset, GAMES[ruleset], seed=5, options=options)
    lines = played.export_lines()
    assert lines[1]["public"]["records_causes"] is True
    joins = [r for r in _records(lines) if r["kind"] == "SeatJoined"]
    for join in joins:
        given = (options or {}).get(join["public"]["seat"])
        assert join.get("secret") == (None if given is None else {"options": given})
        assert join["audience"] == (None if given is None else [join["public"]["seat"]])
    code, report = played.verify(lines)
    assert code == EXIT_VERIFIED, failed(report)
    assert _checks(report)["commands"]["status"] == "pass" and "the setup" in _checks(report)["commands"]["detail"]


def test_a_seats_deck_list_changed_at_join_fails(settings, tmp_path):
    played = Played(settings, tmp_path, "gambit-tcg", GAMES["gambit-tcg"], seed=5, options=TCG_OPTIONS)
    lines = played.export_lines()
    join = next(r for r in _records(lines) if r["kind"] == "SeatJoined" and r["public"]["seat"] == "p1")
    deck = join["secret"]["options"]["deck_list"]
    deck[deck.index(CUSTOM_DECK[0])] = next(c for c in DECKS["dusk"] if c not in CUSTOM_DECK and deck.count(c) < 2)
    recommit(join)
    registered = next(r for r in _records(lines) if r["kind"] == "DeckRegistered")
    _forged_fails_commands(played, lines, registered["version"])


def test_a_deck_list_the_rules_refuse_fails_even_with_the_deck_it_registered(settings, tmp_path):
    played = Played(settings, tmp_path, "gambit-tcg", GAMES["gambit-tcg"], seed=5, options=TCG_OPTIONS)
    lines = played.export_lines()
    join = next(r for r in _records(lines) if r["kind"] == "SeatJoined" and r["public"]["seat"] == "p1")
    join["secret"]["options"]["deck_list"] = CUSTOM_DECK[:29]
    recommit(join)
    last_join = max(r["version"] for r in _records(lines) if r["kind"] == "SeatJoined")
    detail = _forged_fails_commands(played, lines, last_join)
    assert "p1's join options" in detail


def test_a_seats_join_options_are_not_secret_to_another_seat_fails_the_bounds(settings, tmp_path):
    played = Played(settings, tmp_path, "gambit-tcg", GAMES["gambit-tcg"], seed=5, options=TCG_OPTIONS)
    lines = played.export_lines()
    join = next(r for r in _records(lines) if r["kind"] == "SeatJoined" and r["public"]["seat"] == "p1")
    join["audience"] = ["p1", "p2"]
    code, report = played.verify(rechain_and_resign(lines, played.signer()))
    assert code == EXIT_FAILED and f"version {join['version']}" in failed(report)["bounds"]


def test_gambit_boards_drawn_first_seat_changed_fails(settings, tmp_path):
    played = Played(settings, tmp_path, "gambit-board", GAMES["gambit-board"], seed=5)
    lines = played.export_lines()
    set_up = next(r for r in _records(lines) if r["kind"] == "BoardSetUp")
    seats = next(r for r in _records(lines) if r["kind"] == "FirstSeatDrawn")["public"]["seats"]
    set_up["public"]["first_seat"] = next(s for s in seats if s != set_up["public"]["first_seat"])
    _forged_fails_commands(played, lines, set_up["version"])


def test_a_gambit_tcg_effects_damage_changed_in_a_commands_write_fails(settings, tmp_path):
    for seed in range(5, 15):
        played = Played(settings, tmp_path, "gambit-tcg", GAMES["gambit-tcg"], seed=seed)
        lines = played.export_lines()
        damage = next((r for r in _records(lines) if r["kind"] in ("PlayerDamaged", "UnitDamaged")), None)
        if damage is not None:
            break
    assert damage is not None, "no effect dealt damage in ten matches"
    damage["public"]["amount"] += 1
    _forged_fails_commands(played, lines, damage["version"])


def test_a_gattai_conflict_bonus_draw_total_changed_fails(settings, tmp_path):
    for seed in range(5, 15):
        played = Played(settings, tmp_path, "gattai-conflict", GAMES["gattai-conflict"], seed=seed)
        lines = played.export_lines()
        bonus = next((r for r in _records(lines) if r["kind"] == "CardsDrawn" and r["public"]["why"] == "bonus_draw"
                      and r["public"]["count"] > 0), None)
        if bonus is not None:
            break
    assert bonus is not None, "no Bonus Draw in ten matches"
    bonus["public"]["count"] -= 1
    bonus["secret"]["cards"] = bonus["secret"]["cards"][:-1]
    recommit(bonus)
    _forged_fails_commands(played, lines, bonus["version"])


def _as_recorded_before_causes(lines: list[dict]) -> list[dict]:
    """The export as the service recorded the same match before it recorded causes: no `records_causes`, join
    options kept on the server alone, every body of a secret type secret, command bodies opened only at the end."""
    records = _records(lines)
    by_version = {r["version"]: r for r in records}
    secret_types = rulesets.get(lines[0]["ruleset"]).SECRET_COMMANDS
    del records[0]["public"]["records_causes"]
    for record in records:
        if record["kind"] == "SeatJoined" and record["commitment"] is not None:
            del record["secret"], record["salt"]
            record["commitment"] = record["audience"] = None
        if record["kind"] == "CommandReceived" and record["public"]["type"] in secret_types and "body" in record["public"]:
            record["secret"], record["audience"] = {"body": record["public"].pop("body")}, [record["public"]["seat"]]
            recommit(record)
        opened = [v for v in record["public"].get("opens", []) if by_version[v]["kind"] == "CommandReceived"]
        if opened:
            record["public"]["opens"] = [v for v in record["public"]["opens"] if v not in opened]
            record["secret"]["opened"] = [c for c in record["secret"]["opened"] if c["version"] not in opened]
            recommit(record)
    return lines


def test_an_export_recorded_before_causes_still_verifies_with_its_setup_unchecked(settings, tmp_path):
    played = Played(settings, tmp_path, "gambit-tcg", GAMES["gambit-tcg"], seed=5, options=TCG_OPTIONS)
    older = rechain_and_resign(_as_recorded_before_causes(played.export_lines()), played.signer())
    code, report = played.verify(older)
    assert code == EXIT_VERIFIED, failed(report)
    assert "the setup" not in _checks(report)["commands"]["detail"]


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_a_setup_draw_recorded_under_another_purpose_fails(settings, tmp_path, ruleset):
    """The setup is re-decided with the recorded chance: a draw under a purpose the rules do not use is refused
    (for gambit-tcg, whose commands draw nothing, this is where a renamed purpose can hide)."""
    played = Played(settings, tmp_path, ruleset, GAMES[ruleset], seed=5)
    lines = played.export_lines()
    last_join = max(r["version"] for r in _records(lines) if r["kind"] == "SeatJoined")
    drawn = next(
        r for r in _records(lines) if r["version"] > last_join and isinstance(r["public"].get("chance"), dict)
    )
    drawn["public"]["chance"]["purpose"] += "-renamed"
    code, report = played.verify(rechain_and_resign(lines, played.signer()))
    found = failed(report)
    assert code == EXIT_FAILED and "commands" in found, found
    assert f"version {drawn['version']}" in found["commands"] or "purpose" in found["commands"], found
