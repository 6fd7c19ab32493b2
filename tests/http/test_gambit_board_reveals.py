"""gambit-board reveals and evidence through the service.

- A spent kamikaze is a new commitment, so a later call on that piece rests on evidence that
  supports its verdict, and the audit verifies it.
- `verified` re-adjudicates: a recorded verdict the evidence contradicts is not verified, whether
  the evidence was revealed to everyone or sealed for organizers.
- Reveals never leak: what a reveal opens to the opponent and spectators is only a lost piece's
  powers or a power a true claim revealed — never the rest of an assignment.
"""

from __future__ import annotations

import random

import pytest

from domain import rulesets
from domain.rulesets.gambit_board import bluffs
from domain.rulesets.gambit_board.commands import (
    Accept,
    AssignPowers,
    CallBluff,
    ChooseLoss,
    ClaimKamikaze,
    MovePiece,
    Reassign,
)
from domain.rulesets.gambit_board.powers import power_type
from tests.conformance.test_reveals import next_move
from tests.support.api import auth, create_match, join_all
from tests.support.harness import start

SOUTH = {"S1": ("diagonal", "sitting"), "S2": ("bulldozer", "moat")}
NORTH = {"N1": ("ghost", "kamikaze"), "N2": ("sidewinder", "detective")}


@pytest.fixture
def organizer(client) -> dict:
    """A tournament's organizer key (and id)."""
    return client.post("/tournaments", json={"name": "Reveal Cup"}).get_json()


def _match(client, organizer: dict) -> tuple[str, dict]:
    match = client.post("/matches", json={"ruleset": "gambit-board", "config": {},
                                          "tournament_id": organizer["tournament_id"]},
                        headers=auth(organizer["organizer_key"])).get_json()
    tokens = join_all(client, match)
    return match["match_id"], tokens


def _play(matches, match_id: str, *steps) -> list:
    """Run (seat, command) steps through the domain; returns the event records of the last one (after its command's)."""
    records = []
    for seat, command in steps:
        command_record, *records = matches.act(match_id, seat, command).records
        assert command_record.kind == "CommandReceived" and command_record.public["type"] == command.type
    return records


def _audit(client, match_id: str, headers: dict, ruling_version: int) -> dict:
    calls = client.get(f"/matches/{match_id}/audit/bluffs", headers=headers).get_json()["calls"]
    return next(c for c in calls if c["ruling_version"] == ruling_version)


def test_a_call_after_an_accepted_kamikaze_rests_on_the_spent_power_and_is_verified(client, app, organizer):
    matches = app.extensions["gambit"].matches
    match_id, tokens = _match(client, organizer)
    _play(matches, match_id, ("south", AssignPowers(powers=SOUTH)), ("north", AssignPowers(powers=NORTH)),
          ("south", MovePiece(piece="S1", to="a3")),
          ("north", MovePiece(piece="N1", to="a4")), ("south", Accept()),
          ("south", MovePiece(piece="S1", to="a4", claims=("sitting",))), ("north", ClaimKamikaze(piece="N1")))
    accepted, spent = _play(matches, match_id, ("south", Accept()))
    assert accepted.kind == "KamikazeAccepted" and spent.kind == "PowerCommitted"
    assert spent.public == {"seat": "north", "piece": "N1", "power_type": "action", "reason": "kamikaze_spent"}
    assert spent.secret["power"] is None and spent.audience == ["north"]
    _play(matches, match_id, ("north", MovePiece(piece="N6", to="f5")),
          ("south", MovePiece(piece="S2", to="b3")), ("north", Accept()),
          ("north", MovePiece(piece="N6", to="f4")),
          ("south", MovePiece(piece="S2", to="b4")), ("north", Accept()),
          ("north", MovePiece(piece="N6", to="f3")),
          ("south", MovePiece(piece="S2", to="a4", claims=("sitting",))), ("north", ClaimKamikaze(piece="N1")))
    [ruling] = _play(matches, match_id, ("south", CallBluff(claim="kamikaze")))
    call = ruling.public["bluff_call"]
    # The call rests on the spent power's own commitment, which says what the verdict says.
    assert call["verdict"] == "false" and call["evidence_version"] == spent.originator_version
    assert ruling.public["sealed_evidence"] == [spent.originator_version] and "opens" not in ruling.public
    (evidence,) = ruling.secret["sealed_evidence"]
    assert evidence["version"] == spent.originator_version and evidence["secret"]["power"] is None
    entry = _audit(client, match_id, auth(organizer["organizer_key"]), ruling.originator_version)
    assert entry["verified"] is True and entry["evidence_versions"] == [spent.originator_version]
    assert entry["commitments"] == {str(spent.originator_version): spent.commitment}
    # While the match runs the evidence is sealed from the seats and spectators: no verdict on it yet.
    for headers in ({}, auth(tokens["south"]), auth(tokens["north"])):
        sealed = _audit(client, match_id, headers, ruling.originator_version)
        assert sealed["verified"] is None and sealed["evidence"] is None and sealed["opened"] == []
    # At the end everyone sees it, and it holds.
    client.post(f"/matches/{match_id}/commands", json={"type": "resign"}, headers=auth(tokens["north"]))
    assert _audit(client, match_id, {}, ruling.originator_version)["verified"] is True


def _flip_verdicts(monkeypatch) -> None:
    """A service bug: every ruling records the opposite of what the hidden powers give."""
    real = bluffs.ruling_call

    def flipped(state, caller, claim, call_version):
        call = real(state, caller, claim, call_version)
        return {**call, "verdict": "false" if call["verdict"] == "true" else "true"}

    monkeypatch.setattr(bluffs, "ruling_call", flipped)


def test_a_verdict_its_evidence_contradicts_is_not_verified(client, app, organizer, monkeypatch):
    matches = app.extensions["gambit"].matches
    match_id, tokens = _match(client, organizer)
    _play(matches, match_id, ("south", AssignPowers(powers=SOUTH)), ("north", AssignPowers(powers=NORTH)))
    # An honest true claim first: verified for everyone, since its evidence is revealed.
    _play(matches, match_id, ("south", MovePiece(piece="S1", to="b2", claims=("diagonal",))))
    [honest] = _play(matches, match_id, ("north", CallBluff(claim="diagonal")))
    for headers in ({}, auth(tokens["north"]), auth(organizer["organizer_key"])):
        assert _audit(client, match_id, headers, honest.originator_version)["verified"] is True
    _play(matches, match_id, ("north", ChooseLoss(piece="N6")), ("south", Reassign(power="ghost", piece="S3")),
          ("north", MovePiece(piece="N5", to="e5")))
    # S4 holds no movement power; a buggy service rules the bluff "true" and reveals the slot.
    _play(matches, match_id, ("south", MovePiece(piece="S4", to="e2", claims=("diagonal",))))
    with monkeypatch.context() as patch:
        _flip_verdicts(patch)
        [wrong] = _play(matches, match_id, ("north", CallBluff(claim="diagonal")))
    assert wrong.public["bluff_call"]["verdict"] == "true"
    (slot,) = wrong.public["opens"]
    assert matches.records(match_id, after=slot - 1, upto=slot)[0].secret["power"] is None
    for headers in ({}, auth(tokens["north"]), auth(organizer["organizer_key"])):
        entry = _audit(client, match_id, headers, wrong.originator_version)
        # The revealed evidence re-commits, but it gives the other verdict.
        assert [o["version"] for o in entry["opened"]] == [slot]
        assert entry["verified"] is False, headers


def test_a_sealed_evidence_contradicting_its_verdict_is_not_verified(client, app, organizer, monkeypatch):
    matches = app.extensions["gambit"].matches
    match_id, _tokens = _match(client, organizer)
    _play(matches, match_id, ("south", AssignPowers(powers=SOUTH)), ("north", AssignPowers(powers=NORTH)),
          ("south", MovePiece(piece="S1", to="b2", claims=("diagonal",))))
    with monkeypatch.context() as patch:
        _flip_verdicts(patch)
        [wrong] = _play(matches, match_id, ("north", CallBluff(claim="diagonal")))
    assert wrong.public["bluff_call"]["verdict"] == "false" and wrong.public["sealed_evidence"]
    assert _audit(client, match_id, auth(organizer["organizer_key"]), wrong.originator_version)["verified"] is False
    assert _audit(client, match_id, {}, wrong.originator_version)["verified"] is None


# ----- no reveal shows what the rules keep hidden -------------------------------------------------

def _shown_powers(event, piece: str) -> list[str] | None:
    """The powers a record shows publicly for a piece it reports lost (None when it reports none)."""
    pub = event.public
    if event.kind == "PieceLost" and pub["piece"] == piece:
        return pub["powers"]
    if event.kind == "KamikazeAccepted" and pub["sitter"] == piece:
        return pub["sitter_powers"]
    consequences = pub.get("bluff_call", {}).get("consequences", {})
    if consequences.get("sitter_removed") == piece:
        return consequences["sitter_powers"]
    return None


def _revealed_pairs(events) -> set[tuple[str, str]]:
    """(piece, power type) slots the public records have shown: lost pieces, truly claimed powers."""
    shown = set()
    for event in events:
        pub = event.public
        if event.kind == "PieceLost":
            shown |= {(pub["piece"], kind) for kind in ("movement", "action")}
        elif event.kind == "KamikazeAccepted":
            shown |= {(pub["sitter"], kind) for kind in ("movement", "action")}
        elif event.kind == "BluffRuled" and pub["bluff_call"]["verdict"] == "true":
            call = pub["bluff_call"]
            shown.add((call["piece"], power_type(call["power"])))
            sitter = call["consequences"].get("sitter_removed")
            if sitter:
                shown |= {(sitter, kind) for kind in ("movement", "action")}
    return shown


# Forty random games, each move chosen by trying every legal command: the whole run checks it, `make test-fast` does not.
@pytest.mark.slow
def test_a_reveal_opens_only_a_lost_pieces_powers_or_a_truly_claimed_power():
    ruleset = rulesets.get("gambit-board")
    seen = 0
    for number in range(40):
        rng = random.Random(f"board-leaks/{number}")
        game = start(ruleset, {"power_mode": rng.choice(["select", "roll"])}, server_seed=rng.randbytes(32))
        for _ in range(250):
            if ruleset.outcome(game.state) is not None:
                break
            seat, command, _ = next_move(ruleset, game.state, rng, game.chance)
            for event in game.act(seat, command):
                by_version = {e.version: e for e in game.events}
                for version in event.opens:
                    opened = by_version[version]
                    # Never a whole assignment: only a slot, and only one the public records show now.
                    assert opened.kind == "PowerCommitted", f"{event.kind} opens a {opened.kind}"
                    slot = (opened.secret["piece"], opened.secret["power_type"])
                    assert slot in _revealed_pairs(e for e in game.events if e.version <= event.version), \
                        f"{event.kind} v{event.version} opens {slot}, which nothing has shown"
                    # And it holds what that record shows: the claimed power, or the lost piece's.
                    shown = _shown_powers(event, slot[0])
                    if shown is None:
                        assert opened.secret["power"] == event.public["bluff_call"]["power"]
                    else:
                        assert opened.secret["power"] is None or opened.secret["power"] in shown
                    seen += 1
                assert event.evidence == () or by_version[event.evidence[0]].kind in ("PowerCommitted",
                                                                                       "PowersAssigned",
                                                                                       "PowerReassigned")
    assert seen > 50


def test_no_viewer_receives_the_powers_of_a_piece_that_was_not_revealed(client, app):
    matches = app.extensions["gambit"].matches
    rng = random.Random(3)
    match = create_match(client, "gambit-board", {})
    tokens = join_all(client, match)
    match_id = match["match_id"]
    checked = 0
    for step in range(400):
        current = matches.match(match_id)
        if current.status != "active":
            break
        seat, command, _ = next_move(current.ruleset, current.state, rng, current.chance)
        matches.act(match_id, seat, command)
        if step % 5:
            continue
        records = matches.records(match_id)
        shown = _revealed_pairs(records)
        for viewer, headers in (("spectator", {}), *((s, auth(t)) for s, t in tokens.items())):
            events = client.get(f"/matches/{match_id}/events?after=0&limit=500", headers=headers).get_json()["events"]
            for record in events:
                if "secret" not in record or viewer in (record["audience"] or []):
                    continue
                # Outside its audience, a viewer sees only opened slot records of revealed slots.
                assert record["kind"] == "PowerCommitted", (viewer, record["kind"])
                assert (record["secret"]["piece"], record["secret"]["power_type"]) in shown
                checked += 1
    assert checked > 0
