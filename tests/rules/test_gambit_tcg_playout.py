"""Random playouts of `gambit-tcg`: invariants after every step, replay, legal commands, hidden views.

500 complete games between the preconstructed decks and random valid custom decks. Random play
is biased toward attacking (and toward springing traps) so games end by damage as well as by
deck-out; the ending distribution is printed (`-s`) and checked to contain both. Every trap
kind of the pool fires, every window a trap names opens, and no trap is ever set for a window
its card does not name (trap windows are card data), so every set trap could fire.
"""

from __future__ import annotations

import collections
import json
import random

import pytest

from domain.ruleset import RuleViolation, Viewer
from domain.rulesets import gambit_tcg as g
from domain.rulesets.gambit_tcg.cards import CARDS, ENERGY_CAP, MAX_COPIES, SET_CAP, STARTING_LIFE, UNIT_CAP
from tests.support.harness import Game, start

GAMES = 500
ENDINGS: collections.Counter = collections.Counter()
FIRED: collections.Counter = collections.Counter()  # trap id -> activations
OPENED: collections.Counter = collections.Counter()  # window -> times it opened
SET_FOR: collections.Counter = collections.Counter()  # (trap id, declared window) -> times set


def random_deck(rng: random.Random) -> list[str]:
    """A random legal 30-card list (at most 3 copies of a card)."""
    pool = [card for card in CARDS for _ in range(MAX_COPIES)]
    return rng.sample(pool, 30)


def seat_options(rng: random.Random, index: int) -> dict:
    """Preconstructed mirrors and swaps, and custom lists, across the run."""
    kind = index % 4
    if kind == 0:
        return {}
    if kind == 1:
        return {"p1": {"deck": "dusk"}, "p2": {"deck": "dawn"}}
    if kind == 2:
        return {"p1": {"deck_list": random_deck(rng)}, "p2": {"deck": rng.choice(["dawn", "dusk"])}}
    return {"p1": {"deck_list": random_deck(rng)}, "p2": {"deck_list": random_deck(rng)}}


def choose(rng: random.Random, options: list):
    """A command: attacks with everything able most of the time, traps when possible, else random by type."""
    by_type = collections.defaultdict(list)
    for command in options:
        by_type[command.type].append(command)
    if "declare_attack" in by_type:
        attacks = by_type["declare_attack"]
        return max(attacks, key=lambda c: len(c.attackers)) if rng.random() < 0.8 else rng.choice(attacks)
    if "activate_trap" in by_type and rng.random() < 0.7:
        return rng.choice(by_type["activate_trap"])
    if "play_card" in by_type and rng.random() < 0.5:
        return rng.choice(by_type["play_card"])
    if "set_card" in by_type and len(by_type) > 1 and rng.random() < 0.5:
        by_type.pop("set_card")  # setting is always possible; keep it from crowding out the rest
    kind = rng.choice(sorted(by_type))
    return rng.choice(by_type[kind])


def zone_cards(state: dict) -> list[str]:
    """Every card instance in every zone (a card in two zones appears twice)."""
    out = []
    for seat in state["seats"]:
        p = state["players"][seat]
        out += p["deck"] + p["hand"] + [e["card"] for e in p["set"]] + [e["card"] for e in p["energy"]]
        out += p["graveyard"] + p["exile"]
        for unit in p["units"]:
            out.append(unit["card"])
            if unit["item"] is not None:
                out.append(unit["item"])
    if state["field"] is not None:
        out.append(state["field"]["card"])
    if state["pending_spell"] is not None:
        out.append(state["pending_spell"]["card"])
    return out


class Ledger:
    """Life arithmetic from the record: 20 + gains − damage, per seat."""

    def __init__(self) -> None:
        self.life = {"p1": STARTING_LIFE, "p2": STARTING_LIFE}
        self.seen = 0

    def fold(self, events) -> None:
        for ev in events[self.seen:]:
            pub = ev.public
            if ev.kind == "PlayerDamaged":
                self.life[pub["seat"]] -= pub["amount"]
            elif ev.kind == "UnitSacrificed":
                self.life[pub["life_gained_by"]] += pub["life_gained"]
            elif ev.kind == "CombatResolved":
                for seat, amount in pub["player_damage"].items():
                    self.life[seat] -= amount
            elif ev.kind == "SetCardRevealed" and "bluff_call" in pub:
                self.life[pub["bluff_call"]["caller"]] += pub["bluff_call"]["consequences"]["life_gained"]
        self.seen = len(events)


def check_invariants(game: Game, ledger: Ledger) -> None:
    """Card conservation, zone caps, life arithmetic."""
    state = game.state
    cards = zone_cards(state)
    assert sorted(cards) == sorted(state["cards"]), "a card was lost or duplicated"
    assert len(state["cards"]) == 60
    for seat in state["seats"]:
        p = state["players"][seat]
        assert len(p["units"]) <= UNIT_CAP and len(p["set"]) <= SET_CAP and len(p["energy"]) <= ENERGY_CAP
        for unit in p["units"]:
            assert unit["item"] is None or CARDS[state["cards"][unit["item"]]]["type"] == "item"
    ledger.fold(game.events)
    assert ledger.life == {s: state["players"][s]["life"] for s in state["seats"]}


def hidden_leaks(state: dict, view: dict, seat: str | None) -> list[str]:
    """Card instances whose identity the view shows though `seat` may not know it."""
    known = set()
    for s in state["seats"]:
        p = state["players"][s]
        public = p["graveyard"] + p["exile"] + [e["card"] for e in p["energy"]]
        public += [u["card"] for u in p["units"]] + [u["item"] for u in p["units"] if u["item"]]
        public += [e["card"] for e in p["set"] if e["revealed"]]
        known |= set(public)
        if s == seat:
            known |= set(p["hand"]) | {e["card"] for e in p["set"]}
    if state["field"]:
        known.add(state["field"]["card"])
    if state["pending_spell"]:
        known.add(state["pending_spell"]["card"])
    leaks = []

    def walk(node):
        if isinstance(node, dict):
            if "card" in node and "id" in node and node["card"] not in known:
                leaks.append(node["card"])
            if seat != node.get("card", "").split("-")[0] and node.get("face") == "down" and "window" in node:
                leaks.append(f"window of {node['card']}")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(view)
    return leaks


def check_all_legal_accepted(game: Game) -> None:
    """Every listed command of every seat to act is accepted by decide (on the same state)."""
    for seat in g.to_act(game.state):
        for command in g.legal_commands(game.state, seat):
            try:
                g.decide(game.state, seat, command, game.chance())
            except RuleViolation as exc:  # pragma: no cover - the assertion explains
                raise AssertionError(f"listed {command} refused: {exc.rule} {exc.detail}") from exc


def check_views(game: Game) -> None:
    """No seat or spectator sees a hidden card identity or another seat's declared window."""
    state = game.state
    for viewer, seat in ((Viewer("seat", "p1"), "p1"), (Viewer("seat", "p2"), "p2"), (Viewer("spectator"), None)):
        assert hidden_leaks(state, g.view(state, viewer), seat) == []


def play(rng: random.Random, index: int) -> Game:
    """One complete game with checks after every step."""
    game = start(g, None, server_seed=rng.randbytes(32), seat_options=seat_options(rng, index))
    ledger = Ledger()
    check_invariants(game, ledger)
    for step in range(5000):
        if g.outcome(game.state) is not None:
            return game
        acting = g.to_act(game.state)
        assert acting, "no seat to act but no outcome"
        seat = acting[0]
        # Listed commands, and a random member of each choice (payments, blocks, attacks, set windows).
        options = [c for c in g.legal_commands(game.state, seat) if c.type != "resign"]  # see test_gambit_tcg
        options += [choice.random_command(rng) for choice in g.legal_choices(game.state, seat)]
        assert options, f"{seat} is to act but has no legal command"
        if step % 37 == 0:
            check_all_legal_accepted(game)
            check_views(game)
        game.act(seat, choose(rng, options))
        check_invariants(game, ledger)
    raise AssertionError("no outcome after 5000 steps")


@pytest.mark.slow
def test_random_playouts_keep_the_invariants_and_replay_identically():
    rng = random.Random(20261122)
    for index in range(GAMES):
        game = play(rng, index)
        assert game.replayed_state() == game.state
        assert json.loads(json.dumps(game.state)) == game.state
        result = g.outcome(game.state)
        ENDINGS[result["reason"]] += 1
        count_traps(game)
        assert g.to_act(game.state) == []
        assert all(g.legal_commands(game.state, s) == [] for s in ("p1", "p2"))
    print(f"\ngambit-tcg endings over {GAMES} games: {dict(ENDINGS)}")
    print(f"traps fired: {dict(FIRED)}; windows opened: {dict(OPENED)}; traps set: {dict(SET_FOR)}")
    assert ENDINGS["zero_life"] > 0 and ENDINGS["deck_out"] > 0
    traps = {card_id: card["windows"] for card_id, card in CARDS.items() if card["type"] == "trap"}
    assert set(FIRED) == set(traps), f"trap kinds that never fired: {sorted(set(traps) - set(FIRED))}"
    named = {window for windows in traps.values() for window in windows}
    assert set(OPENED) == named, f"windows named {sorted(named)}, opened {sorted(OPENED)}"
    assert all(window in traps[trap] for trap, window in SET_FOR), "a trap was set for a window it cannot use"
    assert {trap for trap, _ in SET_FOR} == set(traps)


def count_traps(game: Game) -> None:
    """Tally a finished game's trap activations, opened windows and trap sets (from the record)."""
    for event in game.events:
        if event.kind == "TrapActivated":
            FIRED[event.public["id"]] += 1
            assert event.public["window"] in CARDS[event.public["id"]]["windows"]
        elif event.kind == "WindowOpened":
            OPENED[event.public["window"]] += 1
        elif event.kind == "CardSet" and event.secret["type"] == "trap":
            SET_FOR[(event.secret["id"], event.secret["window"])] += 1


def garbage(rng: random.Random, state: dict):
    """A command of a random type with random (mostly wrong) field values."""
    import dataclasses
    names = list(state["cards"]) + ["zzz", "p1-99", ""]
    cls = rng.choice(g.COMMANDS)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name == "blocks":
            values[f.name] = {rng.choice(names): rng.choice(names) for _ in range(rng.randint(0, 3))}
        elif f.name in ("energy", "discard", "attackers"):
            values[f.name] = tuple(rng.choice(names) for _ in range(rng.randint(0, 3)))
        elif f.name == "window":
            values[f.name] = rng.choice([None, "main1", "attack_declared", "teatime"])
        elif f.name == "declared_type":
            values[f.name] = rng.choice([None, "trap", "unit", "dragon"])
        elif f.name == "target_player":
            values[f.name] = rng.choice([None, "p1", "p2", "p9"])
        elif f.name == "card":
            values[f.name] = rng.choice(names)
        else:
            values[f.name] = rng.choice([None, rng.choice(names)])
    return cls(**values)


def test_any_command_is_either_accepted_or_refused_with_a_rule_violation():
    rng = random.Random(7)
    for index in range(20):
        game = start(g, None, server_seed=rng.randbytes(32), seat_options=seat_options(rng, index))
        while g.outcome(game.state) is None:
            for _ in range(3):
                try:
                    g.decide(game.state, rng.choice(["p1", "p2", "p3"]), garbage(rng, game.state), game.chance())
                except RuleViolation:
                    pass
            seat = g.to_act(game.state)[0]
            options = [c for c in g.legal_commands(game.state, seat) if c.type != "resign"]  # see test_gambit_tcg
            options += [choice.random_command(rng) for choice in g.legal_choices(game.state, seat)]
            game.act(seat, choose(rng, options))
        assert violation_rule(game, garbage(rng, game.state)) == "game_over"


def violation_rule(game: Game, command) -> str:
    try:
        g.decide(game.state, "p1", command, game.chance())
    except RuleViolation as exc:
        return exc.rule
    return "accepted"


def test_uniform_random_play_through_the_harness_ends_every_game():
    from tests.support.harness import random_playout
    rng = random.Random(11)
    for _ in range(20):
        game = random_playout(g, None, rng, max_steps=5000, enders_rate=0)
        assert g.outcome(game.state) is not None and game.replayed_state() == game.state
