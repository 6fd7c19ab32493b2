"""Legal moves are exactly what `decide` accepts, in both directions, for every ruleset.

For positions reached by random play (several seeds, small configs) and for every seat, each
game's candidate generator below builds command bodies by brute force over small field domains
drawn from the state (seat names, card ids in hands, decks and zones, pieces, squares, windows,
small ints, every subset and sequence up to the family's size where feasible, plus values that
must be refused). Each candidate goes through `decide`, and

    accepted  <=>  listed by `legal_commands`  or  formed from one of `legal_choices`.

Every listed command is decided too, and random members of every choice. A ruleset in the
registry without a generator here fails: this is a conformance kit every game must pass.

The brute force is bounded by a sample: at each position and seat, GAMBIT_LEGAL_MOVES_SAMPLE
(default 1000) of the generated candidates, drawn at random, are checked in both directions (every
listed command and the members drawn from every choice are decided too, all of them). Telling a
candidate's verdict from the offered moves cost far more than deciding it: the whole brute force
(about 1.2 million bodies for gambit-board alone) was a quarter of the suite. The run's seed
(GAMBIT_LEGAL_MOVES_SEED, drawn once per run by tests/conftest.py and shown in pytest's header)
picks the positions and the sample; it is in every failure message, and setting it replays the
same run, so each run checks other positions and bodies.
"""

from __future__ import annotations

import itertools
import json
import os
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pytest

from domain import rulesets
from domain.chance import Drawn
from domain.choices import Choice, random_legal_command
from domain.ruleset import RuleViolation, config_from_dict
from tests.support.harness import Game, start

SEEDS = 3
ENDERS = ("resign", "concede")
MEMBERS_PER_CHOICE = 6
# Candidates checked per position and seat, drawn from all those the kit generates.
SAMPLE = int(os.environ.get("GAMBIT_LEGAL_MOVES_SAMPLE", "1000"))
RUN_SEED = int(os.environ.get("GAMBIT_LEGAL_MOVES_SEED") or random.SystemRandom().randrange(10**6))  # tests/conftest.py sets it
REPLAY = f"replay with GAMBIT_LEGAL_MOVES_SEED={RUN_SEED} GAMBIT_LEGAL_MOVES_SAMPLE={SAMPLE}"


@dataclass(frozen=True)
class Kit:
    """How to test one ruleset: small configs, join options, and its candidate generator."""

    configs: tuple[dict, ...]
    candidates: Callable[[dict, str], Iterable]
    positions_per_game: int = 12
    seat_options: dict | None = None
    extra_positions: Callable[[], Iterable[Game]] | None = None
    always: Callable[[dict], bool] | None = None  # positions to check whenever random play meets them
    enders_rate: float = 0.02  # how often random play may resign or concede


def sequences(items: list, longest: int) -> list[tuple]:
    """Every ordered selection of distinct items, up to `longest` long."""
    return [seq for n in range(min(longest, len(items)) + 1) for seq in itertools.permutations(items, n)]


def subsets_both_ways(items: list) -> list[tuple]:
    """Every subset, in the given order and reversed (orders beyond these come from `sequences`)."""
    out = []
    for n in range(len(items) + 1):
        for combo in itertools.combinations(items, n):
            out += [combo, combo[::-1]]
    return out


def lists_of(items: list, longest: int) -> list[tuple]:
    """Short sequences (all orders) and every longer subset both ways, without repeats."""
    return list(dict.fromkeys(sequences(items, longest) + subsets_both_ways(items)))


# Each generator imports its game lazily, so the kit still collects when a game is not in the build.

# ----- gambitz ----------------------------------------------------------------------------------

def gambitz_candidates(state: dict, seat: str) -> Iterable:
    """Plays of every hand card (and cards not held) on every stack, with every Queen move and Knight return."""
    from domain.rulesets.gambitz import STACK_RANKS, PassTurn, PlayCard, RedrawHand, Resign
    hand = state["hands"][seat]
    outsider = [c for c in state["deck"] + [c for h in state["hands"].values() for c in h] if c not in hand][:1]
    cards = hand + outsider + ["joker-blue"]
    stacks = [None, *STACK_RANKS, "nowhere"]
    yield from (PassTurn(), RedrawHand(), Resign())
    for card in cards:
        for stack in stacks:
            yield PlayCard(card, stack=stack)
        for src, dst in itertools.product(stacks, stacks):
            if (src, dst) != (None, None):
                yield PlayCard(card, move_queen_from=src, move_queen_to=dst)
                yield PlayCard(card, stack=card.rsplit("-", 1)[0], move_queen_from=src, move_queen_to=dst)
        for returned in sequences(hand + outsider, 3):
            yield PlayCard(card, knight_return=returned)
            yield PlayCard(card, stack=card.rsplit("-", 1)[0], knight_return=returned)
            yield PlayCard(card, stack="7", knight_return=returned)


# ----- dragons-gambit ---------------------------------------------------------------------------

def dragons_candidates(state: dict, seat: str) -> Iterable:
    """Every command over slots -1..4 and every seat (and one that does not exist)."""
    from domain.rulesets import dragons_gambit as dg
    slots = range(-1, 5)
    seats = [*state["seats"], "p9"]
    yield from (dg.PeekCards(a, b) for a in slots for b in slots)
    yield from (dg.DrawCard(), dg.DiscardDrawnCard(), dg.SkipAbility(), dg.CallFinalGambit(), dg.Resign())
    for slot in slots:
        yield from (dg.SwapDrawnCard(slot), dg.PeekOwnCard(slot), dg.TakeDiscard(slot))
        for other in seats:
            yield from (dg.AddToken(other, slot), dg.PeekOtherCard(other, slot))
            yield from (dg.BlindSwap(slot, other, o) for o in slots)


# ----- gambit-board -----------------------------------------------------------------------------

def board_candidates(state: dict, seat: str) -> Iterable:
    """Every piece command over every piece and power; moves to every square within reach with every claim."""
    from domain.rulesets import gambit_board as gb
    from domain.rulesets.gambit_board.board import COLUMNS
    from domain.rulesets.gambit_board.powers import ACTION, ALL_POWERS, MOVEMENT, faces
    pieces = [*state["powers"], "X9"]
    mine = [p for p in state["powers"] if p.startswith(seat[0].upper())]
    powers = [*ALL_POWERS, "teleport"]
    yield from (gb.Accept(), gb.Resign())
    yield from (gb.CallBluff(p) for p in powers)
    for piece in pieces:
        yield from (gb.ClaimMoat(piece), gb.ClaimKamikaze(piece), gb.ChooseLoss(piece))
        yield from (gb.Reassign(power, piece) for power in powers)
        yield from (gb.Detect(piece, target) for target in pieces)
    yield gb.DeclineJuggernaut()
    yield from (gb.ChoosePlayerPower(p) for p in ("sensei", "magician", "juggernaut", "witch_doctor", "wizard"))
    for piece in pieces:
        yield gb.UseWitchDoctor(piece)
        yield from (gb.UseMagician(piece, target) for target in pieces)
    named = [(), ("moat",), ("teleport",), ("ghost", "moat"), ("moat", "ghost"), ("ghost", "diagonal"), ("moat", "moat")]
    for source in mine[:3] + pieces[-2:]:
        yield from (gb.UseSensei(source, target, p) for target in mine[:3] for p in named)
    if state["phase"] == "assign":
        yield from _assignments(state, seat, mine, faces, MOVEMENT, ACTION, gb.AssignPowers)
        return
    where = {p: sq for sq, stack in state["board"].items() for p in stack}
    claims = [()] + [(p,) for p in powers] + list(itertools.product(ALL_POWERS, ALL_POWERS))
    for piece in [p for p in mine if p in where] + [p for p in pieces if p in where and p not in mine][:1]:
        col, row = COLUMNS.index(where[piece][0]), int(where[piece][1:])
        near = [f"{COLUMNS[(col + dc) % 6]}{row + dr}" for dc in range(-2, 3) for dr in range(-2, 3)
                if 1 <= row + dr <= 6 and (dc, dr) != (0, 0)]
        for to in near + ["z9"]:
            yield from (gb.MovePiece(piece, to, c) for c in claims)


def _assignments(state, seat, mine, faces, movement, action, assign_cls) -> Iterable:
    """Exhaustive over three pieces: each absent, empty, or one or two powers in either order."""
    dice = state["dice"][seat]
    rolled = faces(dice) if dice else {"movement": [], "action": []}
    move = list(dict.fromkeys([f for f in rolled["movement"] if f != "wild"] + list(movement)))[:2]
    act = list(dict.fromkeys([f for f in rolled["action"] if f != "wild"] + list(action)))[:2]
    vocabulary = move + act
    per_piece = [None, ()] + [(p,) for p in vocabulary] + list(itertools.product(vocabulary, vocabulary))
    for values in itertools.product(per_piece, repeat=3):
        yield assign_cls({p: v for p, v in zip(mine[:3], values) if v is not None})
    yield assign_cls({mine[0]: (move[0],), mine[1]: (move[1],), mine[2]: (act[0],), "X9": (act[1],)})
    yield assign_cls({mine[0]: (move[0], act[0]), mine[1]: (move[1], "teleport")})


# ----- gambit-tcg -------------------------------------------------------------------------------

def tcg_candidates(state: dict, seat: str) -> Iterable:
    """Sets, energizes, attacks and blocks over the zones' cards; plays with every choice and many payments."""
    from domain.rulesets import gambit_tcg as tcg
    from domain.rulesets.gambit_tcg.cards import TYPES, WINDOWS
    me, foe = state["players"][seat], state["players"][next(s for s in state["seats"] if s != seat)]
    hand, my_set = me["hand"], [e["card"] for e in me["set"]]
    foe_set = [e["card"] for e in foe["set"]]
    my_units, foe_units = [u["card"] for u in me["units"]], [u["card"] for u in foe["units"]]
    energy = [e["card"] for e in me["energy"]]
    seats = [*state["seats"], "p9"]
    yield from (tcg.EndPhase(), tcg.Pass(), tcg.Resign())
    for card in hand + my_set + foe_set[:1] + foe["hand"][:1]:
        yield from (tcg.SetCard(card, window) for window in (None, *WINDOWS, "dusk"))
        yield tcg.Energize(card)
    attackers = my_units + foe_units[:1]
    for chosen in lists_of(attackers, 3):
        yield from (tcg.DeclareAttack(chosen, target) for target in (None, *seats))
    combat = state["combat"]
    if combat is not None:
        yield from _block_assignments(tcg.AssignBlockers, my_units, list(combat["attackers"]),
                                      foe_units[:1] + [u for u in my_units if u not in combat["attackers"]][:1])
    units = my_units + foe_units
    sets = my_set + foe_set
    combos = [{}]
    combos += [{"target": u} for u in units + sets[:1]]
    combos += [{"reveal": s} for s in sets + units[:1]] + [{"declared_type": t} for t in TYPES]
    combos += [{"reveal": s, "declared_type": t} for s in sets for t in (*TYPES, "rune")]
    combos += [{"sacrifice": u} for u in units] + [{"target_player": s} for s in seats]
    combos += [{"sacrifice": u, "target_player": s} for u in units for s in seats]
    listed = tcg.legal_commands(state, seat)
    formed = [c.random_command(random.Random(i)) for c in tcg.legal_choices(state, seat) for i in range(4)]
    seen_payments = {(c.energy, c.discard) for c in listed + formed if hasattr(c, "energy")}
    ready = [e["card"] for e in me["energy"] if e["ready"]]
    for kind in (tcg.PlayCard, tcg.ActivateTrap):
        for card in hand + my_set + foe_set[:1] + my_units[:1]:
            others = [c for c in hand if c != card]
            payments = set(seen_payments) | {((), ())}
            payments |= {(tuple(ready[:k]), ()) for k in range(len(ready) + 1)}
            payments |= {((), tuple(others[len(others) - k:])) for k in range(1, len(others) + 1)}
            payments |= {(tuple(ready[:1]), tuple(others[len(others) - k:])) for k in range(1, len(others) + 1)}
            for combo, (paid, discarded) in itertools.product(combos, payments):
                yield kind(card, paid, discarded, **combo)
            legal = [c for c in listed + formed if isinstance(c, kind) and c.card == card]
            if legal:
                yield from _every_payment(kind, legal[0], energy, others + [card])


class _DeckOrder:
    """A chance source whose shuffles keep each deck list's order, so positions can be built by hand."""

    version = None

    def permutation(self, purpose: str, n: int) -> Drawn:
        return Drawn("permutation", purpose, n, list(range(n)))


def tcg_stacked(p1: list[str], p2: list[str]) -> Game:
    """A gambit-tcg game whose decks are `p1` and `p2` on top (then filler), before p2's free set."""
    from domain.rulesets import gambit_tcg as tcg
    from tests.rules.test_gambit_tcg import deck
    config = config_from_dict(tcg.Config, {})
    seats = tcg.seat_names(config)
    game = Game(tcg, config, seats, tcg.initial_state(config, seats))
    options = {s: tcg.join_options(config, s, {"deck_list": deck(top)}) for s, top in (("p1", p1), ("p2", p2))}
    game.record(tcg.setup(config, seats, _DeckOrder(), options))
    return game


def tcg_combat(attackers: int, blockers: int, guards: int = 0) -> Game:
    """p1 attacks with `attackers` units into p2's `blockers` units (`guards` of them Shield Bearers)."""
    from domain.rulesets import gambit_tcg as tcg
    from tests.rules.test_gambit_tcg import c, finish_turn, put_unit
    game = tcg_stacked(["N1", "N1", "N1", "G2", "G2"], ["N2"] * guards + ["G2", "G2", "G1", "G1", "B1", "B1"])
    game.act("p2", tcg.Pass())
    for n in range(1, attackers + 1):
        put_unit(game, "p1", c("p1", n))
    finish_turn(game)
    for n in range(1, blockers + 1):
        put_unit(game, "p2", c("p2", n))
    finish_turn(game)
    game.act("p1", tcg.EndPhase())
    game.act("p1", tcg.DeclareAttack(tuple(c("p1", n) for n in range(1, attackers + 1))))
    assert game.state["step"] == "blocks", game.state["step"]
    return game


def tcg_traps_ready() -> Game:
    """p2 set Ambush Pit before the first turn and Snare Vines since; p1's Rushing Scout attacks on
    turn 3, so p2 answers in the attack_declared window with a ready trap (and one not ready yet)."""
    from domain.rulesets import gambit_tcg as tcg
    from tests.rules.test_gambit_tcg import c, finish_turn
    game = tcg_stacked(["N1", "N1", "N1", "G2", "G2"], ["B5", "B5", "G5", "W4", "N2", "G2"])
    game.act("p2", tcg.SetCard(c("p2", 1), "attack_declared"))
    finish_turn(game)
    game.act("p2", tcg.SetCard(c("p2", 3), "attack_declared"))
    game.act("p2", tcg.Energize(c("p2", 4)))
    finish_turn(game)
    game.act("p1", tcg.PlayCard(c("p1", 1), discard=(c("p1", 5),)))
    game.act("p1", tcg.EndPhase())
    game.act("p1", tcg.DeclareAttack((c("p1", 1),)))
    assert game.state["window"] is not None and tcg.to_act(game.state) == ["p2"]
    return game


def tcg_conduit_payments() -> Game:
    """p1 on turn 5 with two Conduits and a plain card ready in its Energy Zone, cards to pay with."""
    from domain.rulesets import gambit_tcg as tcg
    from tests.rules.test_gambit_tcg import c, finish_turn
    game = tcg_stacked(["G1", "G4", "N1", "G2", "W2", "B2", "N2"], [])
    game.act("p2", tcg.Pass())
    for n in (1, 2, 3):
        game.act("p1", tcg.Energize(c("p1", n)))
        finish_turn(game)
        finish_turn(game)
    return game


def tcg_positions() -> Iterable[Game]:
    """Positions random play seldom reaches: big combats (Guard among the blockers), ready traps, Conduits."""
    yield from (tcg_combat(3, 5), tcg_combat(4, 4, guards=1), tcg_combat(5, 5, guards=2), tcg_combat(2, 3, guards=3))
    yield tcg_traps_ready()
    yield tcg_conduit_payments()


def _block_assignments(assign_cls, blockers: list, attackers: list, strangers: list) -> Iterable:
    """Every partial matching of blockers to attackers, and some with a unit that may not take part."""
    for size in range(min(len(blockers), len(attackers)) + 1):
        for chosen in itertools.combinations(blockers, size):
            for targets in itertools.permutations(attackers, size):
                yield assign_cls(dict(zip(chosen, targets)))
    for stranger in strangers:
        yield from (assign_cls({stranger: a}) for a in attackers)
        yield from (assign_cls({b: stranger}) for b in blockers)


def _every_payment(kind, legal, energy: list, discardable: list) -> Iterable:
    """One legal play or activation with every payment of up to 3 energy and 4 discards, both orders."""
    choice = {f: getattr(legal, f) for f in ("target", "reveal", "declared_type", "sacrifice", "target_player")}
    energies = [c for n in range(min(3, len(energy)) + 1) for c in itertools.combinations(energy, n)]
    discards = [c for n in range(min(4, len(discardable)) + 1) for c in itertools.combinations(discardable, n)]
    for paid, discarded in itertools.product(energies, discards):
        yield kind(legal.card, paid, discarded, **choice)
        if len(paid) + len(discarded) > 1:
            yield kind(legal.card, paid[::-1], discarded[::-1], **choice)


# ----- gattai-conflict --------------------------------------------------------------------------

def gattai_candidates(state: dict, seat: str) -> Iterable:
    """Every command over the hands' cards, the seats, threats, triggers, stats and Omens; lists of cards."""
    from domain.rulesets import gattai_conflict as gc
    from domain.rulesets.gattai_conflict import gambit, team
    from domain.rulesets.gattai_conflict.commands import STATS
    hand = state["hands"][seat]
    foreign = [c for s, h in state["hands"].items() if s != seat for c in h][:1]
    cards = hand + foreign
    seats = [*state["seats"], "p9"]
    omens = [o["card"] for d in state["decks"].values() for o in d["omens"]] + ["P.JK9"]
    yield from (gc.FlipCard(), gc.RevealInitiative(), gc.Concede(), gc.Resign())
    yield from (gc.AnswerQuestion(True), gc.AnswerQuestion(False))
    yield from (gc.PlayThreshold(source, card) for source in ("hand", "deck", "sleeve") for card in [None, *cards])
    yield from (gc.ChooseOutcome(o) for o in (*gambit.CHOSEN, "yes_and", "maybe"))
    yield from (gc.PickBoon(t) for t in (*gambit.BOONS, "rally"))
    yield from (gc.NameComplication(t) for t in (*gambit.COMPLICATIONS, "trauma"))
    for card in cards:
        for cls in (gc.PlayCard, gc.SealInitiative, gc.Assist, gc.Counter, gc.Block, gc.Escalate, gc.Rumble):
            yield cls(card)
        yield from (gc.ThreatAssist(threat, card) for threat in [*state["threats"], "kraken"])
    # Every short list in every order, and every subset (both ways) of each size a rule asks for.
    sizes = {len(hand), 3, state["discards_due"].get(seat, 0)}
    if state["throwdown"] is not None:
        sizes |= set(state["throwdown"]["returns_due"].values())
    chosen_lists = dict.fromkeys(sequences(cards, 2))
    for size in sizes:
        for combo in itertools.combinations(cards, size):
            chosen_lists.update(dict.fromkeys([combo, combo[::-1]]))
    for chosen in chosen_lists:
        yield gc.GiveCards(chosen)
        yield gc.DiscardToMax(chosen)
        yield from (gc.ReturnCards(to, chosen) for to in seats)
    for use_buffer in (True, False):
        yield from (gc.ResolveTrigger(use_buffer, stat) for stat in (None, *STATS, "luck"))
    yield from (gc.SpendOmen(o, e) for o in omens for e in ("self_full", "all_2", "crisis", "storm"))
    targets = [*seats, *state["threats"], "team", "table", "", "x" * 40, "x" * 41, "the hangar"]
    for name in (*team.COACH_FIRES, *team.PILOT_FIRES, "quake"):
        yield from (gc.RecordTrigger(name, target) for target in targets)


KITS: dict[str, Kit] = {
    "gambitz": Kit(({"players": 2}, {"players": 3}), gambitz_candidates),
    "dragons-gambit": Kit(({"players": 2, "target_score": 30}, {"players": 3, "initial_peek": "choose",
                                                                 "target_score": 30}), dragons_candidates),
    "gambit-board": Kit(({}, {"power_mode": "roll", "loss_choice": "winner", "board": "bridges"},
                         {"player_powers": True}),
                        board_candidates, positions_per_game=8),
    "gambit-tcg": Kit(({"turn_limit": 30},), tcg_candidates, positions_per_game=16, extra_positions=tcg_positions),
    "gattai-conflict": Kit(({"mode": "gambit"},
                            {"mode": "throwdown", "pilots": {"p1": {"synch": 3}, "p2": {}, "p3": {"charges": 2}},
                             "harmony": 7, "threats": {"kaiju": 3, "swarm": 1}, "threat_stacks": {"kaiju": 2}},
                            {"mode": "throwdown", "pilots": {"p1": {}, "p2": {"charges": 3}}, "harmony": 3,
                             "started_by": "coach"}), gattai_candidates, positions_per_game=10,
                           always=lambda state: state["phase"] in ("swap", "cleanup"), enders_rate=0.15),
}


# ----- the check --------------------------------------------------------------------------------

def _key(command) -> str:
    return json.dumps(command.body(), sort_keys=True)


def _accepted(game: Game, seat: str, command) -> bool:
    try:
        game.ruleset.decide(game.state, seat, command, game.chance())
    except RuleViolation:
        return False
    return True


def positions(ruleset, kit: Kit, ruleset_id: str, run_seed: int) -> Iterable[Game]:
    """Games paused at positions reached by random play (commands and choices alike)."""
    for config in kit.configs:
        for seed in range(SEEDS):
            rng = random.Random(f"legal-moves/{ruleset_id}/{json.dumps(config)}/{seed}/{run_seed}")
            game = start(ruleset, config, server_seed=rng.randbytes(32), seat_options=kit.seat_options)
            # Sample positions spread over the whole game: first play it through once, then replay.
            trace = []
            wanted = []
            while ruleset.outcome(game.state) is None and len(trace) < 3000:
                if kit.always is not None and len(wanted) < 4 and kit.always(game.state):
                    wanted.append(len(trace))
                seat = rng.choice(sorted(ruleset.to_act(game.state)))
                # Commands that end the game at once are rare, so the games run long enough.
                prefer = None if rng.random() < kit.enders_rate else (lambda kind: kind not in ENDERS)
                command = random_legal_command(ruleset, game.state, seat, rng, prefer)
                assert command is not None, f"{seat} is to act but nothing is listed or offered"
                trace.append((seat, command))
                game.act(seat, command)
            # The opening positions (assignments, peeks, free sets) always, the rest at random.
            later = rng.sample(range(2, len(trace)), min(kit.positions_per_game - 2, max(len(trace) - 2, 0)))
            steps = sorted({0, 1} & set(range(len(trace))) | set(later) | set(wanted))
            replay = start(ruleset, config, server_seed=game.server_seed, seat_options=kit.seat_options)
            done = 0
            for index in steps:
                while done < index:
                    replay.act(*trace[done])
                    done += 1
                yield replay
    if kit.extra_positions is not None:
        yield from kit.extra_positions()


def sampled(candidates: Iterable, rng: random.Random, sample: int) -> list:
    """`sample` of the candidates drawn at random (all of them when there are no more)."""
    every = list(candidates)
    return every if len(every) <= sample else rng.sample(every, sample)


@pytest.mark.parametrize("ruleset_id", rulesets.available())
def test_legal_commands_and_choices_are_exactly_what_decide_accepts(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    assert ruleset_id in KITS, f"{ruleset_id} has no candidate generator in this conformance kit"
    kit = KITS[ruleset_id]
    rng = random.Random(f"{ruleset_id}/{RUN_SEED}")
    wrong: list[str] = []
    tried = checked_positions = 0
    for game in positions(ruleset, kit, ruleset_id, RUN_SEED):
        checked_positions += 1
        for seat in game.seats:
            listed = ruleset.legal_commands(game.state, seat)
            choices = ruleset.legal_choices(game.state, seat)
            assert all(isinstance(c, Choice) for c in choices)
            keys = {_key(c) for c in listed}
            for command in listed:
                if not _accepted(game, seat, command):
                    wrong.append(f"listed but refused: {seat} {command.body()}")
            for choice in choices:
                for _ in range(MEMBERS_PER_CHOICE):
                    member = choice.random_command(rng)
                    if not _accepted(game, seat, member):
                        wrong.append(f"formed from {choice.body()} but refused: {seat} {member.body()}")
            for candidate in sampled(kit.candidates(game.state, seat), rng, SAMPLE):
                tried += 1
                body = candidate.body()
                offered = _key(candidate) in keys or any(type(candidate) is c.command and c.admits_body(body)
                                                         for c in choices)
                if _accepted(game, seat, candidate) != offered:
                    verdict = "offered but refused" if offered else "accepted but neither listed nor formable"
                    wrong.append(f"{verdict}: {seat} {candidate.body()}")
            assert not wrong, (f"{ruleset_id} at version {game.state.get('version')} ({REPLAY}):\n"
                               + "\n".join(wrong[:12]))
    print(f"{ruleset_id}: {checked_positions} positions, {tried} candidate bodies decided ({REPLAY})")
    assert checked_positions >= kit.positions_per_game, REPLAY
