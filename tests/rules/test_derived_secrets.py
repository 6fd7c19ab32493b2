"""`derived_secret` of gambitz, dragons-gambit and gambit-board: what chance and the state fix is re-derived.

Random playouts are replayed from the initial state as the offline verifier replays an export:
every secret `derived_secret` returns must be the recorded one, and each game binds some. A
dealer's forgery — a card of an opening hand swapped with a later draw (in gambit-board, whose
hidden state is powers, a restated die roll or the powers a ruling or a detect shows), both
secrets re-committed — is caught at the forged version, by `derived_secret` and by
`verify_export` on an export rebuilt with a consistent chain and commitments.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace

import pytest

from domain import rulesets
from domain.match import MATCH_CREATED, MATCH_FINISHED, SEAT_JOINED
from domain.records import chain_link, commitment, genesis, sha256_hex
from domain.ruleset import Event, config_from_dict, config_to_dict
from domain.rulesets.dragons_gambit import FACE
from domain.verification import EXPORT_FORMAT, RECEIPT_FORMAT, verify_export
from tests.support.harness import Game, start

CASES = {  # (config, seed) of the random playouts; a few seeds are picked for a rare path (noted)
    "gambitz": [({"players": 2}, 1), ({"players": 5, "first_seat": "p3"}, 2), ({"players": 8}, 3),
                ({"players": 2}, 37), ({"players": 4}, 39)],  # 37, 39: a stuck hand is redrawn
    "dragons-gambit": [({"players": 2, "target_score": 30}, 1), ({"players": 2, "target_score": 30}, 2),
                       ({"players": 4, "initial_peek": "choose", "target_score": 40}, 1),
                       ({"players": 4, "initial_peek": "choose", "target_score": 40}, 3),
                       ({"players": 6, "target_score": 30, "memory_aid": False}, 1)],
    "gambit-board": [({"power_mode": "select"}, 1), ({"power_mode": "select", "board": "bridges"}, 2),
                     ({"power_mode": "roll", "first_seat": "random", "loss_choice": "winner"}, 1),
                     ({"power_mode": "roll", "board": "bridges"}, 2), ({"power_mode": "roll"}, 3)],
}
# Command types the random player picks seldom (the chance it keeps them among the types).
SELDOM = {"resign": 0.0, "call_final_gambit": 0.03, "call_bluff": 0.25}
# Secret kinds whose content chance and the state fix (derived_secret returns it; an assignment
# only restates rolled dice, so in select mode it is wholly free), and the secret kinds left
# alone: a shuffle's or die's bare chance result (the verifier re-derives it from the seed) and a
# seat's own choice (the cards a Knight returns).
BOUND = {
    "gambitz": {"CardsDealt", "CardsDrawn"},
    "dragons-gambit": {"RoundDealt", "InitialCardsPeeked", "CardDrawn", "CardPeeked", "DrawPileReshuffled"},
    "gambit-board": {"PowersAssigned", "PowerReassigned", "BluffRuled", "PowersDetected", "PowerCommitted"},
}
FREE = {
    "gambitz": {"DeckShuffled", "CardsReturned"},
    "dragons-gambit": set(),
    "gambit-board": {"PowerDieRolled", "ReassignmentDieRolled"},
}
# Every kind above, and the paths that reach them (a redraw, a Knight's return), occur in the cases.
MUST_SEE = {
    "gambitz": BOUND["gambitz"] | FREE["gambitz"] | {"HandShown"},
    "dragons-gambit": BOUND["dragons-gambit"],
    "gambit-board": BOUND["gambit-board"] | FREE["gambit-board"],
}


def choose(rng: random.Random, options: list, may_resign: bool):
    """A random command type, then random arguments; some types seldom, resigning only when allowed.

    (Uniform picks end most games before they show much: a gambit-board seat resigns at the first
    answer it owes and few detects stand, a dragons-gambit round ends at the first call.)
    """
    by_type: dict[str, list] = {}
    for command in options:
        by_type.setdefault(command.type, []).append(command)
    if may_resign and "resign" in by_type:
        return by_type["resign"][0]
    if len(by_type) > 1:
        by_type.pop("resign", None)  # every game offers it at nearly every move: only when allowed
    for kind, chance in SELDOM.items():
        if kind in by_type and len(by_type) > 1 and rng.random() >= chance:
            del by_type[kind]
    return rng.choice(by_type[rng.choice(sorted(by_type))])


def playout(ruleset_id: str, config: dict, seed: int, resign_after: int = 400) -> Game:
    """A random finished game whose versions follow the match's own records (creation, one join per seat)."""
    ruleset = rulesets.get(ruleset_id)
    rng = random.Random(seed)
    seats = ruleset.seat_names(config_from_dict(ruleset.Config, config))
    game = start(ruleset, config, server_seed=rng.randbytes(32), base_version=1 + len(seats))
    for step in range(10 * resign_after):
        if ruleset.outcome(game.state) is not None:
            return game
        seat = rng.choice(sorted(ruleset.to_act(game.state)))
        # Listed commands, and a random member of each choice (a gambit-board assignment, a TCG payment).
        options = ruleset.legal_commands(game.state, seat)
        options += [choice.random_command(rng) for choice in ruleset.legal_choices(game.state, seat)]
        game.act(seat, choose(rng, options, step >= resign_after))
    raise AssertionError(f"no outcome after {10 * resign_after} steps")


def derivations(game: Game, events: list[Event]) -> list[tuple[Event, dict | None]]:
    """Each event with what derived_secret gives for it, replayed from the initial state as the verifier does."""
    ruleset = game.ruleset
    state = ruleset.initial_state(game.config, list(game.seats))
    out = []
    for event in events:
        before = json.dumps(state, sort_keys=True)
        derived = ruleset.derived_secret(state, event)
        assert json.dumps(state, sort_keys=True) == before, f"derived_secret changed the state at {event.kind}"
        out.append((event, None if derived is None else json.loads(json.dumps(derived))))
        state = ruleset.evolve(state, event)
    return out


def mismatch(event: Event, derived: dict | None) -> bool:
    """Whether a derived secret disagrees with the recorded one (the verifier's comparison)."""
    return derived is not None and derived != {key: (event.secret or {}).get(key) for key in derived}


def first_mismatch(game: Game, events: list[Event]) -> int | None:
    """The version of the first event whose recorded secret is not what chance and the state give."""
    return next((event.version for event, derived in derivations(game, events) if mismatch(event, derived)), None)


# ---- every recorded secret is the derived one --------------------------------------------------

@pytest.mark.parametrize("ruleset_id", sorted(CASES))
def test_random_playouts_record_exactly_the_secrets_chance_and_the_state_fix(ruleset_id):
    seen = set()
    for config, seed in CASES[ruleset_id]:
        game = playout(ruleset_id, config, seed)
        bound = 0
        for event, derived in derivations(game, game.events):
            assert not mismatch(event, derived), f"{config} seed {seed}: {event.kind} v{event.version}"
            seen.add(event.kind)
            if event.secret is None or event.kind in FREE[ruleset_id]:
                assert derived is None, f"{event.kind}: nothing there for chance and the state to fix"
                continue
            assert event.kind in BOUND[ruleset_id], f"a secret kind nobody judged: {event.kind}"
            assert derived is not None or event.kind == "PowersAssigned", f"{event.kind} left unbound"
            bound += derived is not None
        assert bound > 0, f"{config} seed {seed}: no secret was bound"
    assert MUST_SEE[ruleset_id] <= seen, MUST_SEE[ruleset_id] - seen


def test_an_assignment_in_select_mode_is_a_free_choice_and_in_roll_mode_restates_the_dice():
    for config, dice in (({"power_mode": "select"}, False), ({"power_mode": "roll"}, True)):
        game = playout("gambit-board", config, 1)
        assigned = [(e, d) for e, d in derivations(game, game.events) if e.kind == "PowersAssigned"]
        assert assigned and all((d is not None) == dice for _, d in assigned)
        assert all(d is None or set(d) == {"dice"} for _, d in assigned)


# ---- forged deals ------------------------------------------------------------------------------

def with_secret(events: list[Event], version: int, secret: dict) -> list[Event]:
    """The events with one event's secret replaced."""
    return [replace(e, secret=secret) if e.version == version else e for e in events]


def first(events: list[Event], kind: str, after: int = 0) -> Event:
    """The first event of a kind after a version."""
    return next(e for e in events if e.kind == kind and e.version > after)


def forge_gambitz_deal(events: list[Event]) -> tuple[list[Event], int]:
    """Swap the first card of the first opening hand with the first card of a later draw."""
    deal = first(events, "CardsDealt")
    draw = first(events, "CardsDrawn", deal.version)
    hand, drawn = copy.deepcopy(deal.secret), copy.deepcopy(draw.secret)
    hand["cards"][0], drawn["cards"][0] = drawn["cards"][0], hand["cards"][0]
    return with_secret(with_secret(events, deal.version, hand), draw.version, drawn), deal.version


def forge_dragons_deal(events: list[Event]) -> tuple[list[Event], int]:
    """Swap an unpeeked grid card of the first deal with the first drawn card (the deal's record re-committed)."""
    deal = first(events, "RoundDealt")
    draw = first(events, "CardDrawn", deal.version)
    grids, drawn = copy.deepcopy(deal.secret), copy.deepcopy(draw.secret)
    grid = next(iter(grids["grids"].values()))
    grid[0], drawn["card"] = drawn["card"], grid[0]
    drawn["face"] = FACE[drawn["card"]]
    return with_secret(with_secret(events, deal.version, grids), draw.version, drawn), deal.version


def forge_dragons_peek(events: list[Event]) -> tuple[list[Event], int]:
    """Show a seat a later draw in its initial peek and the peeked card as that draw (the deal left alone)."""
    peek = first(events, "InitialCardsPeeked")
    draw = first(events, "CardDrawn", peek.version)
    peeked, drawn = copy.deepcopy(peek.secret), copy.deepcopy(draw.secret)
    shown = peeked["cards"][0]
    shown["card"], drawn["card"] = drawn["card"], shown["card"]
    shown["face"], drawn["face"] = drawn["face"], shown["face"]
    return with_secret(with_secret(events, peek.version, peeked), draw.version, drawn), peek.version


def forge_board_dice(events: list[Event]) -> tuple[list[Event], int]:
    """Restate the other seat's rolled dice in the first roll-mode assignment (a better roll, say)."""
    mine, theirs = [e for e in events if e.kind == "PowersAssigned"][:2]
    assert mine.secret["dice"] != theirs.secret["dice"], "pick a seed whose seats rolled differently"
    return with_secret(events, mine.version, {**mine.secret, "dice": theirs.secret["dice"]}), mine.version


def forge_board_ruling(events: list[Event]) -> tuple[list[Event], int]:
    """Show, as a ruling's evidence, the claimed piece's powers swapped with another piece of the claimant."""
    ruling = first(events, "BluffRuled")
    secret = copy.deepcopy(ruling.secret)
    piece = ruling.public["bluff_call"]["piece"]
    other = next(p for p, record in secret["assignment"].items() if p != piece and record != secret["held"])
    assignment = secret["assignment"]
    assignment[piece], assignment[other] = assignment[other], assignment[piece]
    secret["held"] = dict(assignment[piece])
    return with_secret(events, ruling.version, secret), ruling.version


def forge_board_detect(events: list[Event]) -> tuple[list[Event], int]:
    """Tell the detecting seat made-up powers of the target."""
    detected = first(events, "PowersDetected")
    record = detected.secret["powers"]
    fake = {"movement": "ghost" if record["movement"] != "ghost" else "diagonal", "action": record["action"]}
    return with_secret(events, detected.version, {**detected.secret, "powers": fake}), detected.version


FORGERIES = [
    ("gambitz", {"players": 3}, 4, forge_gambitz_deal),
    ("gambitz", {"players": 8, "first_seat": "p5"}, 5, forge_gambitz_deal),
    ("dragons-gambit", {"players": 3, "target_score": 30}, 4, forge_dragons_deal),
    ("dragons-gambit", {"players": 2, "initial_peek": "choose", "target_score": 30}, 5, forge_dragons_peek),
    ("dragons-gambit", {"players": 4, "target_score": 30}, 6, forge_dragons_peek),
    ("gambit-board", {"power_mode": "roll"}, 1, forge_board_dice),
    ("gambit-board", {"power_mode": "select"}, 2, forge_board_ruling),
    ("gambit-board", {"power_mode": "roll", "loss_choice": "winner"}, 3, forge_board_detect),
]


@pytest.mark.parametrize("ruleset_id, config, seed, forge", FORGERIES,
                         ids=[f"{r}-{f.__name__}-{s}" for r, _, s, f in FORGERIES])
def test_a_forged_deal_is_caught_at_the_forged_version(ruleset_id, config, seed, forge):
    game = playout(ruleset_id, config, seed)
    assert first_mismatch(game, game.events) is None
    forged, version = forge(game.events)
    assert forged != game.events
    assert first_mismatch(game, forged) == version


# ---- the same forgeries through the offline verifier -------------------------------------------

def export_lines(game: Game, events: list[Event]) -> list[str]:
    """A finished match's organizer export of these ruleset events, chained and committed consistently."""
    ruleset, config = game.ruleset, config_to_dict(game.config)
    created = {"match_id": game.match_id, "ruleset": ruleset.RULESET_ID, "config": config, "seats": list(game.seats),
               "tournament_id": None, "server_seed_commitment": sha256_hex(game.server_seed)}
    rows = [(MATCH_CREATED, created, {"server_seed": game.server_seed.hex()}, [], ())]
    rows += [(SEAT_JOINED, {"seat": seat, "name": seat, "client_seed": ""}, None, None, ()) for seat in game.seats]
    rows += [(e.kind, copy.deepcopy(e.public), copy.deepcopy(e.secret),
              None if e.audience is None else list(e.audience), e.opens) for e in events]
    rows.append((MATCH_FINISHED, {"outcome": json.loads(json.dumps(ruleset.outcome(game.state))),
                                  "server_seed": game.server_seed.hex()}, None, None, ()))
    records, head = [], genesis(game.match_id)
    for version, (kind, public, secret, audience, opens) in enumerate(rows, start=1):
        if opens:
            # A ruling opens the records it rests on, as the match records it.
            opened = [{"version": v, "secret": records[v - 1]["secret"], "salt": records[v - 1]["salt"],
                       "commitment": records[v - 1]["commitment"]} for v in opens]
            secret, audience = {**(secret or {}), "opened": opened}, audience or []
            public = {**public, "opens": list(opens)}
        record = {"version": version, "kind": kind, "timestamp": f"2026-01-01T{version // 3600:02d}:{version // 60 % 60:02d}:{version % 60:02d}+00:00",
                  "public": public, "commitment": None, "audience": audience}
        if secret is not None:
            record.update(secret=secret, salt=f"salt-{version}", commitment=commitment(secret, f"salt-{version}"))
        head = record["chain"] = chain_link(head, version, kind, record["timestamp"], public, record["commitment"])
        records.append(record)
    header = {"format": EXPORT_FORMAT, "match_id": game.match_id, "ruleset": ruleset.RULESET_ID, "config": config,
              "exported_at": "2026-01-02T00:00:00+00:00", "viewer": "organizer", "seats": list(game.seats),
              "version": len(records)}
    trailer = {"trailer": RECEIPT_FORMAT, "match_id": game.match_id, "version": len(records), "head": head}
    return [json.dumps(line) for line in (header, *records, trailer)]


@pytest.mark.parametrize("ruleset_id, config, seed, forge", FORGERIES,
                         ids=[f"{r}-{f.__name__}-{s}" for r, _, s, f in FORGERIES])
def test_the_verifier_fails_a_rebuilt_export_with_a_forged_deal(ruleset_id, config, seed, forge):
    game = playout(ruleset_id, config, seed)
    honest = verify_export(export_lines(game, game.events))
    assert honest.verdict == "UNSIGNED", [c.as_dict() for c in honest.checks if c.status == "fail"]
    assert next(c for c in honest.checks if c.name == "dealt secrets").status == "pass"
    forged, version = forge(game.events)
    report = verify_export(export_lines(game, forged))
    assert report.verdict == "FAILED"
    failed = [c for c in report.checks if c.status == "fail"]
    assert [c.name for c in failed] == ["dealt secrets"], [c.as_dict() for c in failed]
    assert failed[0].detail.startswith(f"version {version}:")
