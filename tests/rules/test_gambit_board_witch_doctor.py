"""gambit-board, Player Powers: what a Witch Doctor swap tells each viewer (rules page, "Rulings added
after the third audit": Witch Doctor, what each seat learns).

After a swap each piece's new powers are a new secret with a new commitment for its owner alone.
The responder knows what it gave and what it received (the claimed powers, now real); it never
learns the mover's other powers, nor whether the claimed powers were really held. The mover
learns what its piece received. A spectator learns only that the two pieces swapped.

The same swap is played three times — the mover really holding the power it claims, bluffing it,
and bluffing it with other powers behind — and what each viewer is given is compared.
"""

from __future__ import annotations

import dataclasses

from domain.ruleset import Event, Viewer
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board.commands import (
    CallBluff,
    ChooseLoss,
    ClaimMoat,
    MovePiece,
    Reassign,
    Resign,
    UseWitchDoctor,
)
from domain.verification import verify_export
from tests.rules.gambit_board_scenarios import new_game, settle, slot_record, state_before, walk
from tests.rules.test_derived_secrets import export_lines
from tests.rules.test_gambit_board_player_powers import PP, TO_THE_FAR_ROW
from tests.support.harness import Game

SPECTATOR, SOUTH_SEAT, NORTH_SEAT = Viewer("spectator"), Viewer("seat", "south"), Viewer("seat", "north")
ORGANIZER = Viewer("organizer", None, sees_all=True)

# South's S3 holds an action power only, so what it gives leaves the mover's movement slot to
# tell whether the claimed `diagonal` was really held.
SOUTH = {"S1": ("diagonal", "sitting"), "S2": ("bulldozer",), "S3": ("moat",)}
# North's N2 claims `diagonal` on its way to c5: really held, bluffed, bluffed with other powers behind.
HELD = {"N1": ("ghost", "kamikaze"), "N2": ("diagonal", "detective")}
BLUFFED = {"N1": ("ghost", "kamikaze"), "N2": ("sidewinder", "detective")}
OTHER_POWERS_BEHIND = {"N1": ("ghost", "detective"), "N2": ("bulldozer", "kamikaze")}


def swapped(north: dict) -> tuple[Game, list[Event]]:
    """South holds a Witch Doctor; N2 moves b4→c5 claiming `diagonal` and S3 (moat alone) swaps with it."""
    # Numbered as a match numbers them (after its creation and two joins), so it exports as one.
    game = settle(walk(new_game(PP, SOUTH, north, base_version=3), *TO_THE_FAR_ROW), "witch_doctor")
    game.act("north", MovePiece(piece="N2", to="c5", claims=("diagonal",)))
    return game, game.act("south", UseWitchDoctor(piece="S3"))


def given_to(game: Game, viewer: Viewer) -> tuple[list, dict]:
    """Everything the viewer is given: each record as it receives it (its secret only if it may see it) and its view."""
    opened = {v for event in game.events for v in event.opens}
    records = [
        (e.kind, e.public, e.audience, e.secret if viewer.may_see(e.audience) or e.version in opened else None)
        for e in game.events
    ]
    return records, gb.view(game.state, viewer)


def shape(events: list[Event]) -> list:
    """What a record says without its hidden values: kind, public part, audience, the keys of its secret."""
    return [(e.kind, e.public, e.audience, sorted(e.secret or {}), e.opens) for e in events]


def test_witch_doctor_swap_never_shows_the_responder_the_movers_other_powers():
    bluffed, _ = swapped(BLUFFED)
    other, _ = swapped(OTHER_POWERS_BEHIND)
    assert bluffed.state["powers"]["N2"] != other.state["powers"]["N2"]
    assert given_to(bluffed, SOUTH_SEAT) == given_to(other, SOUTH_SEAT)


def test_witch_doctor_swap_never_shows_the_responder_whether_the_displayed_powers_were_held():
    held, _ = swapped(HELD)
    bluffed, _ = swapped(BLUFFED)
    # The mover lost the diagonal it really held, and kept the sidewinder behind its bluff.
    assert held.state["powers"]["N2"] == {"movement": None, "action": "moat"}
    assert bluffed.state["powers"]["N2"] == {"movement": "sidewinder", "action": "moat"}
    assert given_to(held, SOUTH_SEAT) == given_to(bluffed, SOUTH_SEAT)


def test_the_swap_records_have_one_shape_and_count_whether_or_not_the_claim_was_true():
    _, held = swapped(HELD)
    _, bluffed = swapped(BLUFFED)
    _, other = swapped(OTHER_POWERS_BEHIND)
    assert shape(held) == shape(bluffed) == shape(other)
    assert [e.kind for e in held] == ["WitchDoctorSwapped"] + ["PowerCommitted"] * 4


def test_a_spectator_learns_only_that_a_swap_happened_between_the_two_pieces():
    games = [swapped(north) for north in (HELD, BLUFFED, OTHER_POWERS_BEHIND)]
    assert given_to(games[0][0], SPECTATOR) == given_to(games[1][0], SPECTATOR) == given_to(games[2][0], SPECTATOR)
    game, (swap, *slots) = games[0]
    assert swap.public == {"seat": "south", "piece": "S3", "mover": "N2", "received": ["diagonal"],
                           "against_version": swap.version - 1}
    assert not any(SPECTATOR.may_see(e.audience) for e in (swap, *slots))
    pieces = gb.view(game.state, SPECTATOR)["pieces"]
    assert "powers" not in pieces["S3"] and "powers" not in pieces["N2"]


def test_each_swapped_piece_is_committed_anew_for_its_owner_alone():
    game, (swap, *slots) = swapped(BLUFFED)
    # The swap's own secret is what both seats know: what S3 gave, which N2 received.
    assert swap.secret == {"given": ["moat"]} and swap.audience == ("south", "north")
    assert [(e.public["piece"], e.public["power_type"], e.public["reason"], e.audience) for e in slots] == [
        ("S3", "movement", "witch_doctor_swap", ("south",)),
        ("S3", "action", "witch_doctor_swap", ("south",)),
        ("N2", "movement", "witch_doctor_swap", ("north",)),
        ("N2", "action", "witch_doctor_swap", ("north",)),
    ]
    assert [e.secret["power"] for e in slots] == ["diagonal", None, "sidewinder", "moat"]
    assert {e.version for e in slots} == {slot_record(game, p, k).version for p in ("S3", "N2")
                                          for k in ("movement", "action")}


def test_the_responder_knows_what_it_gave_and_received_and_the_mover_what_its_piece_received():
    game, (swap, *_) = swapped(BLUFFED)
    south, north = gb.view(game.state, SOUTH_SEAT), gb.view(game.state, NORTH_SEAT)
    assert south["pieces"]["S3"]["powers"] == {"movement": "diagonal", "action": None}  # the bluff became real
    assert "powers" not in south["pieces"]["N2"]
    assert north["pieces"]["N2"]["powers"] == {"movement": "sidewinder", "action": "moat"}
    assert "powers" not in north["pieces"]["S3"]
    assert NORTH_SEAT.may_see(swap.audience) and swap.secret["given"] == ["moat"]


def _calls_on_both_pieces(game: Game) -> tuple[Event, Event]:
    """After the swap: north calls S3's diagonal (true), then south calls N2's moat (true)."""
    game.act("south", MovePiece(piece="S3", to="d2", claims=("diagonal",)))
    [s3_call] = [e for e in game.act("north", CallBluff(claim="diagonal")) if e.kind == "BluffRuled"]
    game.act("north", ChooseLoss(piece="N6"))
    game.act("south", Reassign(power="ghost", piece="S4"))
    walk(game, "N5>e5")
    game.act("south", MovePiece(piece="S3", to="d4"))  # next to N2 on c5
    game.act("north", ClaimMoat(piece="N2"))
    [n2_call] = [e for e in game.act("south", CallBluff(claim="moat")) if e.kind == "BluffRuled"]
    return s3_call, n2_call


def test_later_calls_on_either_swapped_piece_rest_on_the_swap_commitments():
    game, _ = swapped(BLUFFED)
    s3_call, n2_call = _calls_on_both_pieces(game)
    for ruled, piece, kind in ((s3_call, "S3", "movement"), (n2_call, "N2", "action")):
        call = ruled.public["bluff_call"]
        committed = next(e for e in game.events if e.kind == "PowerCommitted" and e.public["piece"] == piece
                         and e.public["power_type"] == kind and e.public["reason"] == "witch_doctor_swap")
        assert call["verdict"] == "true" and call["evidence_version"] == committed.version
        assert ruled.opens == (committed.version,) and committed.secret["power"] == call["power"]
        assert gb.readjudicate(state_before(game, ruled.version), ruled)["verdict"] == "true"


def test_an_honest_match_with_a_swap_verifies_and_a_forged_swap_commitment_does_not():
    game, (_, *slots) = swapped(HELD)
    _calls_on_both_pieces(game)
    game.act("north", Resign())
    report = verify_export(export_lines(game, game.events))
    assert [(c.name, c.detail) for c in report.checks if c.status == "fail"] == []
    # N2's new movement slot claims the diagonal it gave up: the replayed swap says otherwise.
    forged_slot = slots[2]
    assert forged_slot.public["piece"] == "N2" and forged_slot.secret["power"] is None
    forged = [dataclasses.replace(e, secret={**e.secret, "power": "diagonal"}) if e is forged_slot else e
              for e in game.events]
    failed = [c.name for c in verify_export(export_lines(game, forged)).checks if c.status == "fail"]
    assert failed == ["dealt secrets"]


def test_a_swap_recorded_before_this_ruling_still_verifies():
    """Such a swap's secret also held both pieces' new powers: the verifier binds what the rules fix (`given`)."""
    game, (swap, _, _, n2_movement, n2_action) = swapped(BLUFFED)
    game.act("north", Resign())
    old_secret = {**swap.secret, "piece_powers": {"movement": "diagonal", "action": None},
                  "mover_powers": {"movement": n2_movement.secret["power"], "action": n2_action.secret["power"]}}
    recorded = [dataclasses.replace(e, secret=old_secret) if e is swap else e for e in game.events]
    report = verify_export(export_lines(game, recorded))
    assert [(c.name, c.detail) for c in report.checks if c.status == "fail"] == []
