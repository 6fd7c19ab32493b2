"""`derived_public` of every ruleset: what the state and chance fix of a record's public part is bound.

Random playouts of all five games are replayed from the initial state as the offline verifier
replays an export: before each event, `derived_public` must not touch the state, and every key it
returns must match the recorded public part (objects key by key, `_first_difference`). Every
chance record must be bound (its `n`), each event kind is judged bound or free, and the kinds
that show hidden cards or fix a shuffle's size must occur bound.

Then the dealer's forgeries that only this binding can catch: a shuffle (a die, in gambit-board)
recorded with `n` one smaller and its result re-derived for that `n` from the seed, and a card
shown publicly that is not the one the state gives. Each must be caught at the forged version,
by the replay here and by `verify_export` on a rebuilt, consistently chained export.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import functools
import json
import random

import pytest

from domain import rulesets
from domain.chance import derive_draw, derive_permutation
from domain.replay_check import _first_difference
from domain.ruleset import Event, config_from_dict
from domain.rulesets.gambit_tcg.cards import CARDS as TCG_CARDS
from domain.rulesets.gambitz import CARDS as GAMBITZ_CARDS
from domain.verification import verify_export
from tests.rules.test_derived_secrets import choose, export_lines
from tests.rules.test_derived_secrets_cards import GAMBIT, THROWDOWN
from tests.support.harness import Game, start

# Every registered game is replayed: one not named in CASES below with its default config (and
# the judging of its event kinds then fails, naming each kind nobody judged), never skipped.
RULESETS = rulesets.available()


def _prefer(*types: str, trigger: str | None = None, source: str | None = None):
    """A preference for some command types (or a story trigger, or a sealed play's source)."""
    def prefer(command) -> bool:
        return (command.type in types or (trigger is not None and getattr(command, "trigger", None) == trigger)
                or (source is not None and getattr(command, "source", None) == source))
    return prefer


RESHUFFLES = _prefer("flip_card", "spend_omen", trigger="tarry", source="deck")
TCG_PLAYS = _prefer("play_card", "activate_trap", "set_card")
SWAPPED = {"p1": {"deck": "dusk"}, "p2": {"deck": "dawn"}}

# (config, seed, join options, preferred commands) of the playouts; seeds picked for a rare path
# are noted. Without a preference the gambitz and dragons games are test_derived_secrets'. A game
# not named here is played as DEFAULT_CASES.
DEFAULT_CASES = [({}, 0, None, None)]
CASES = {
    "gambitz": [({"players": 2}, 1, None, None), ({"players": 5, "first_seat": "p3"}, 2, None, None),
                ({"players": 8}, 3, None, None),
                ({"players": 2}, 37, None, None), ({"players": 4}, 39, None, None)],  # 37, 39: a redraw
    "dragons-gambit": [({"players": 2, "target_score": 30}, 1, None, None),  # reshuffles its draw pile
                       ({"players": 4, "initial_peek": "choose", "target_score": 40}, 1, None, None),
                       ({"players": 6, "target_score": 30, "memory_aid": False}, 1, None, None)],
    "gambit-board": [({"power_mode": "select"}, 11, None, None),  # a kamikaze, a reassignment
                     ({"power_mode": "roll", "first_seat": "random", "loss_choice": "winner"}, 1, None, None),
                     ({"power_mode": "roll", "board": "bridges"}, 1, None, None),  # a reassignment die
                     ({"power_mode": "roll"}, 14, None, None)],  # 14: a double moat is re-rolled
    "gambit-tcg": [({"turn_limit": 40}, 11, None, None),  # a trap, a draw effect
                   ({"turn_limit": 10}, 0, None, None),  # the turn limit
                   ({"turn_limit": 40}, 0, None, TCG_PLAYS),  # a nullified spell
                   ({}, 0, SWAPPED, TCG_PLAYS)],
    "gattai-conflict": [(GAMBIT, 1, None, RESHUFFLES),  # both reshuffles, a flipped pilot card
                        (GAMBIT, 0, None, None),
                        (THROWDOWN, 10, None, RESHUFFLES),  # a Dissonance flip, the refill
                        (THROWDOWN, 52, None, None),  # a Block, a Rumble
                        (THROWDOWN, 1, None, None)],  # the Coach's free card
}

# Every event kind a playout may record, judged: bound whenever it occurs, bound only in some
# cases (named), or left free (a seat's choice, or an amount the state does not name).
BOUND = {
    "gambitz": {"DeckShuffled", "CardsDealt", "GameStarted", "CardPlayed", "QueenMoved", "CardsReturned",
                "CardsDrawn", "HandShown", "TurnPassed", "TurnBegan", "GameEnded"},
    "dragons-gambit": {"RoundDealt", "DrawPileReshuffled", "DiscardStarted", "CardDrawn", "DrawnCardSwapped",
                       "DrawnCardDiscarded", "TokenAdded", "CardPeeked", "AbilitySkipped", "CardsBlindSwapped",
                       "DiscardTaken", "FinalGambitCalled", "RoundEnded"},
    "gambit-board": {"FirstSeatDrawn", "PowerDieRolled", "BoardSetUp", "PowersAssigned", "PieceMoved",
                     "DetectClaimed", "MoatClaimed", "KamikazeClaimed", "ClaimAccepted", "MoatAccepted",
                     "KamikazeAccepted", "PowersDetected", "BluffRuled", "ReassignmentDieRolled", "PieceLost",
                     "PowerReassigned", "PowerCommitted", "MatchWon"},
    "gambit-tcg": {"DeckRegistered", "DeckShuffled", "CardsDrawn", "GameStarted", "FreeSetDeclined", "CardSet",
                   "TurnBegan", "PhaseBegan", "TurnEnded", "TurnLimitReached", "WindowOpened", "WindowPassed",
                   "WindowClosed", "CardEnergized", "CardPlayed", "SpellResolved", "SpellNullified", "TrapActivated",
                   "SetCardRevealed", "UnitSacrificed", "UnitDestroyed", "FieldDestroyed", "AttackDeclared",
                   "BlocksAwaited", "BlockersAssigned", "CombatResolved"},
    "gattai-conflict": {"DeckShuffled", "OmenRevealed", "CardsDrawn", "ThreatStackDealt", "CardMilled",
                        "ConflictStarted", "TriggerResolved", "OmenSpent", "CleanupStarted", "ThresholdSealed",
                        "InitiativeSealed",
                        "PilotCardPlayed", "ThresholdRevealed", "OutcomeChosen", "BoonPicked", "ComplicationNamed",
                        "GambitResolved", "InitiativeRevealed", "InitiativeResolved", "DissonanceFlipped",
                        "QuestionAnswered", "ThreatStacksDrawn", "CardsGiven", "CardsReturned", "ThreatAssisted",
                        "Countered", "Escalated", "Rumbled", "Blocked", "Conceded", "ThrowdownEnded",
                        "PilesCleared", "SeatResigned"},
}
SOMETIMES = {  # kind -> (game, event) -> whether it is bound
    "gambitz": {},
    "dragons-gambit": {"InitialCardsPeeked": lambda game, e: game.config.initial_peek == "near"},  # not `choose`
    "gambit-board": {},
    "gambit-tcg": {"SeatLost": lambda game, e: e.public["reason"] == "zero_life"},  # not who decked out
    "gattai-conflict": {},
}
FREE = {
    "gambitz": {"SeatResigned"},
    "dragons-gambit": {"SeatResigned"},
    "gambit-board": {"Resigned"},
    "gambit-tcg": {"PlayerDamaged", "UnitDamaged", "UnitBoosted", "AttackerMuted"},
    "gattai-conflict": {"TriggerFired", "CardsDiscarded", "Assisted", "ThrowdownCalledOff"},
}
# Bound kinds the cases must show: every chance record, and every public card or count off a pile.
MUST_SEE = {
    "gambitz": BOUND["gambitz"],
    "dragons-gambit": {"RoundDealt", "DrawPileReshuffled", "DiscardStarted", "CardDrawn", "DrawnCardDiscarded",
                       "DrawnCardSwapped", "DiscardTaken", "RoundEnded", "InitialCardsPeeked"},
    "gambit-board": {"FirstSeatDrawn", "PowerDieRolled", "ReassignmentDieRolled", "BoardSetUp", "PieceMoved",
                     "KamikazeAccepted", "PowersDetected", "BluffRuled", "PieceLost", "MatchWon"},
    "gambit-tcg": {"DeckRegistered", "DeckShuffled", "CardsDrawn/opening", "CardsDrawn/draw_phase",
                   "CardsDrawn/effect", "CardPlayed", "TrapActivated", "SetCardRevealed", "CombatResolved",
                   "UnitDestroyed", "TurnLimitReached"},
    "gattai-conflict": {"DeckShuffled/start", "DeckShuffled/trash_reshuffled", "DeckShuffled/omens_returned",
                        "OmenRevealed", "CardMilled", "DissonanceFlipped", "PilotCardPlayed/deck", "CardsDrawn/deal",
                        "CardsDrawn/refill", "CardsDrawn/bonus_draw", "CardsDrawn/free_card", "ThreatStackDealt",
                        "InitiativeResolved", "Blocked", "Rumbled", "ThrowdownEnded"},
}


def cases(ruleset_id: str) -> list:
    """The playouts of a game: its own CASES, or one with its defaults."""
    return CASES.get(ruleset_id, DEFAULT_CASES)


@functools.cache
def played(ruleset_id: str, index: int, resign_after: int = 400) -> Game:
    """One finished random playout of a case, recorded at the versions the match gives (creation, joins first)."""
    config, seed, options, prefer = cases(ruleset_id)[index]
    ruleset = rulesets.get(ruleset_id)
    rng = random.Random(seed)
    seats = ruleset.seat_names(config_from_dict(ruleset.Config, config))
    game = start(ruleset, config, server_seed=rng.randbytes(32), base_version=1 + len(seats), seat_options=options)
    for step in range(10 * resign_after):
        if ruleset.outcome(game.state) is not None:
            return game
        seat = rng.choice(sorted(ruleset.to_act(game.state)))
        legal = ruleset.legal_commands(game.state, seat)
        # Families too large to list (a gambit-board assignment) are offered as choices: one member each.
        legal += [choice.random_command(rng) for choice in ruleset.legal_choices(game.state, seat)]
        preferred = [c for c in legal if prefer is not None and prefer(c)]
        if preferred and rng.random() < 0.9:
            game.act(seat, rng.choice(preferred))
        else:
            game.act(seat, choose(rng, legal, step >= resign_after))
    raise AssertionError(f"no outcome after {10 * resign_after} steps")


def tag(event: Event) -> str:
    """The event kind, with the reason a shuffle or draw gives (and a pilot card's source)."""
    for key in ("reason", "why", "source"):
        value = event.public.get(key)
        if isinstance(value, str) and event.kind in ("DeckShuffled", "CardsDrawn", "PilotCardPlayed"):
            return f"{event.kind}/{value}"
    return event.kind


@dataclasses.dataclass
class Replay:
    """What replaying the events as the verifier does found."""

    failure: tuple[str, int, str] | None = None
    bound: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    derived: list = dataclasses.field(default_factory=list)


def replay(game: Game, events: list[Event] | None = None, *, public: bool = True) -> Replay:
    """Fold the events from the initial state, checking derived secrets and (unless told not to) public parts."""
    ruleset = game.ruleset
    state = ruleset.initial_state(game.config, list(game.seats))
    out = Replay()
    for event in game.events if events is None else events:
        before = json.dumps(state, sort_keys=True)
        try:
            secret = ruleset.derived_secret(state, event)
            fixed = ruleset.derived_public(state, event) if public else None
        except Exception as exc:  # noqa: BLE001 - as in the verifier, a record the rules cannot read is a finding
            out.failure = ("replay", event.version, repr(exc))
            return out
        assert json.dumps(state, sort_keys=True) == before, f"derived_public changed the state at {event.kind}"
        if secret is not None and json.loads(json.dumps(secret)) != {k: (event.secret or {}).get(k) for k in secret}:
            out.failure = ("secret", event.version, "")
            return out
        fixed = None if fixed is None else json.loads(json.dumps(fixed))
        if fixed is not None:
            difference = _first_difference(fixed, event.public)
            if difference is not None:
                out.failure = ("public", event.version, difference)
                return out
            out.bound[tag(event)] += 1
        out.derived.append((event, fixed))
        try:
            state = ruleset.evolve(state, event)
        except Exception as exc:  # noqa: BLE001 - a forged record may break the fold (the verifier reports it there)
            out.failure = ("replay", event.version, repr(exc))
            return out
    return out


def state_before(game: Game, version: int) -> dict:
    """The replayed state just before the event recorded at `version`."""
    state = game.ruleset.initial_state(game.config, list(game.seats))
    for event in game.events:
        if event.version == version:
            return state
        state = game.ruleset.evolve(state, event)
    raise AssertionError(f"no event at version {version}")


def deep(value):
    """An independent JSON copy."""
    return json.loads(json.dumps(value))


# ----- honest records ---------------------------------------------------------------------------

@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_public_part_the_state_fixes_is_the_recorded_one_and_every_kind_is_judged(ruleset_id):
    seen: set[str] = set()
    for index, (config, seed, _, _) in enumerate(cases(ruleset_id)):
        game = played(ruleset_id, index)
        result = replay(game)
        assert result.failure is None, (config, seed, result.failure)
        assert sum(result.bound.values()) > 0, f"{config} seed {seed}: no event was bound"
        for event, fixed in result.derived:
            kind = event.kind
            if "chance" in event.public:
                assert fixed is not None and set(fixed["chance"]) == {"draw", "n"}, f"{kind}: chance left unbound"
            sometimes = SOMETIMES.get(ruleset_id, {})
            if kind in BOUND.get(ruleset_id, set()):
                assert fixed is not None, f"{kind} v{event.version} left unbound"
            elif kind in sometimes:
                assert (fixed is not None) == sometimes[kind](game, event), f"{kind} v{event.version}"
            else:
                assert kind in FREE.get(ruleset_id, set()), f"an event kind of {ruleset_id} nobody judged: {kind}"
                assert fixed is None, f"{kind}: judged free but bound"
        seen |= set(result.bound) | {tagged.split("/")[0] for tagged in result.bound}
    must_see = MUST_SEE.get(ruleset_id, set())
    assert must_see <= seen, must_see - seen


def test_derived_public_is_none_for_a_kind_it_does_not_know():
    for ruleset_id in RULESETS:
        game = played(ruleset_id, 0)
        state = game.ruleset.initial_state(game.config, list(game.seats))
        assert game.ruleset.derived_public(state, Event("SomethingElse", {"x": 1})) is None


# ----- a shuffle (or die) recorded over fewer cards (or sides) ----------------------------------

def forge_chance(game: Game, kind: str, nth: int = 0, reason: str | None = None) -> tuple[list[Event], int]:
    """The `nth` chance record of `kind` (and reason) with `n` one smaller, its result re-derived for that `n`."""
    # The record's own secret, where it restates the result (a deal's grids), is re-derived too,
    # so only the public binding can tell.
    candidates = [e for e in game.events if e.kind == kind and (reason is None or e.public.get("reason") == reason)]
    event = candidates[nth]
    chance = deep(event.public["chance"])
    chance["n"] -= 1
    seeds = game.client_seeds or [""] * len(game.seats)
    if chance["draw"] == "permutation":
        result = derive_permutation(game.server_seed, game.match_id, seeds, chance["purpose"], chance["n"])
    else:
        result = derive_draw(game.server_seed, game.match_id, seeds, chance["purpose"], chance["n"])
        result += chance["draw"] == "roll"
    public, secret = {**deep(event.public), "chance": chance}, deep(event.secret)
    if "chance_result" in public:
        public["chance_result"] = result
    else:
        secret["chance_result"] = result
    forged = dataclasses.replace(event, public=public, secret=secret)
    restated = game.ruleset.derived_secret(state_before(game, event.version), forged)
    if restated is not None:
        forged = dataclasses.replace(forged, secret={**secret, **deep(restated)})
    return [forged if e is event else e for e in game.events], event.version


SHORT_CHANCE = [  # (ruleset, case, kind, nth, reason)
    ("gambitz", 0, "DeckShuffled", 0, "setup"),
    ("gambitz", 3, "DeckShuffled", 0, "redraw"),
    ("dragons-gambit", 0, "RoundDealt", 0, None),
    ("dragons-gambit", 0, "DrawPileReshuffled", 0, None),
    ("gambit-board", 1, "FirstSeatDrawn", 0, None),
    ("gambit-board", 1, "PowerDieRolled", 3, None),
    ("gambit-board", 2, "ReassignmentDieRolled", 0, None),
    ("gambit-tcg", 0, "DeckShuffled", 1, None),
    ("gattai-conflict", 1, "DeckShuffled", 0, "start"),
    ("gattai-conflict", 0, "DeckShuffled", 0, "trash_reshuffled"),
    ("gattai-conflict", 2, "DeckShuffled", 0, "omens_returned"),
]


@pytest.mark.parametrize("ruleset_id, case, kind, nth, reason", SHORT_CHANCE,
                         ids=[f"{r}-{k}-{reason or nth}" for r, _, k, nth, reason in SHORT_CHANCE])
def test_a_chance_record_over_one_fewer_cards_or_sides_is_caught_at_its_version(ruleset_id, case, kind, nth, reason):
    game = played(ruleset_id, case)
    events, version = forge_chance(game, kind, nth, reason)
    assert replay(game, events).failure == ("public", version, "chance.n")
    # Without the public binding nothing catches it there: the shuffle's own secret re-derives.
    unbound = replay(game, events, public=False).failure
    assert unbound is None or unbound[1] > version, unbound


# ----- a card shown publicly that is not the one the state gives --------------------------------

def _first(game: Game, kind: str, where=lambda e: True) -> Event:
    return next(e for e in game.events if e.kind == kind and where(e))


def _with_public(game: Game, event: Event, public: dict) -> tuple[list[Event], int]:
    return [dataclasses.replace(e, public=public) if e is event else e for e in game.events], event.version


def forge_gambitz_shown(game: Game):
    """A redraw shows a card the seat does not hold in place of one it does."""
    event = _first(game, "HandShown")
    public = deep(event.public)
    public["cards"][0] = next(c for c in GAMBITZ_CARDS if c not in public["cards"])
    return _with_public(game, event, public), "cards"


def forge_gambitz_count(game: Game):
    """A draw says it took one card fewer than the refill does (the secret left as it is)."""
    event = _first(game, "CardsDrawn", lambda e: e.public["count"] > 0)
    public = {**deep(event.public), "count": event.public["count"] - 1}
    return _with_public(game, event, public), "count"


def forge_dragons_discard(game: Game):
    """The discard pile is started with a card other than the draw pile's top."""
    event = _first(game, "DiscardStarted")
    other = state_before(game, event.version)["draw_pile"][1]
    public = {**deep(event.public), "card": other}
    return _with_public(game, event, public), "card"


def forge_dragons_drawn(game: Game):
    """A drawn card discarded face up is shown as another card."""
    event = _first(game, "DrawnCardDiscarded")
    other = state_before(game, event.version)["draw_pile"][0]
    public = {**deep(event.public), "card": other}
    return _with_public(game, event, public), "card"


def forge_board_loss(game: Game):
    """A lost piece is shown with powers it did not hold."""
    event = _first(game, "PieceLost")
    public = deep(event.public)
    public["powers"] = ["ghost"] if public["powers"] != ["ghost"] else ["diagonal"]
    return _with_public(game, event, public), "powers"


def forge_board_die(game: Game):
    """A re-rolled power die (after a double moat) is recorded as a die of the first attempt."""
    event = _first(game, "PowerDieRolled", lambda e: e.public["attempt"] == 2)
    public = {**deep(event.public), "attempt": 1}
    return _with_public(game, event, public), "attempt"


def forge_tcg_draw(game: Game):
    """A draw shows an instance from deeper in the deck as the top one (its secret ids left honest)."""
    event = _first(game, "CardsDrawn", lambda e: e.public["reason"] == "draw_phase")
    deck = state_before(game, event.version)["players"][event.public["seat"]]["deck"]
    public = deep(event.public)
    public["cards"][0] = deck[len(public["cards"])]
    return _with_public(game, event, public), "cards"


def forge_tcg_played(game: Game):
    """A card played face up is shown as another card."""
    event = _first(game, "CardPlayed")
    public = {**deep(event.public), "id": next(c for c in TCG_CARDS if c != event.public["id"])}
    return _with_public(game, event, public), "id"


def forge_gattai_milled(game: Game):
    """A card milled off the Coach Deck is shown as the one beneath it."""
    event = _first(game, "CardMilled")
    other = state_before(game, event.version)["decks"]["coach"]["draw"][1]
    public = {**deep(event.public), "card": other}
    return _with_public(game, event, public), "card"


def forge_gattai_flipped(game: Game):
    """A pilot's card flipped off the Pilot Deck is shown as the one beneath it."""
    event = _first(game, "PilotCardPlayed", lambda e: e.public["source"] == "deck")
    other = state_before(game, event.version)["decks"]["pilot"]["draw"][1]
    public = {**deep(event.public), "card": other}
    return _with_public(game, event, public), "card"


def forge_gattai_dissonance(game: Game):
    """A Dissonance flip shows another card than the Coach Deck's top."""
    event = _first(game, "DissonanceFlipped", lambda e: e.public["card"] is not None)
    other = state_before(game, event.version)["decks"]["coach"]["draw"][1]
    public = {**deep(event.public), "card": other}
    return _with_public(game, event, public), "card"


FORGED_PUBLIC = [  # (ruleset, case, forge)
    ("gambitz", 3, forge_gambitz_shown),
    ("gambitz", 1, forge_gambitz_count),
    ("dragons-gambit", 0, forge_dragons_discard),
    ("dragons-gambit", 2, forge_dragons_drawn),
    ("gambit-board", 0, forge_board_loss),
    ("gambit-board", 3, forge_board_die),
    ("gambit-tcg", 0, forge_tcg_draw),
    ("gambit-tcg", 2, forge_tcg_played),
    ("gattai-conflict", 0, forge_gattai_milled),
    ("gattai-conflict", 0, forge_gattai_flipped),
    ("gattai-conflict", 2, forge_gattai_dissonance),
]


@pytest.mark.parametrize("ruleset_id, case, forge", FORGED_PUBLIC,
                         ids=[f"{r}-{f.__name__}" for r, _, f in FORGED_PUBLIC])
def test_a_public_card_or_count_the_state_does_not_give_is_caught_at_its_version(ruleset_id, case, forge):
    game = played(ruleset_id, case)
    (events, version), key = forge(game)
    assert events != game.events
    assert replay(game, events).failure == ("public", version, key)


# ----- the same forgeries through the offline verifier ------------------------------------------

EXPORTED = [  # (ruleset, case, forgery of the chance record, forgery of a public card)
    ("gambitz", 3, ("DeckShuffled", 0, "redraw"), forge_gambitz_shown),
    ("dragons-gambit", 0, ("DrawPileReshuffled", 0, None), forge_dragons_discard),
    ("gambit-board", 2, ("ReassignmentDieRolled", 0, None), forge_board_loss),
    ("gambit-tcg", 0, ("DeckShuffled", 0, None), forge_tcg_draw),
    ("gattai-conflict", 0, ("DeckShuffled", 0, "trash_reshuffled"), forge_gattai_flipped),
]


@pytest.mark.parametrize("ruleset_id, case, short, forge", EXPORTED, ids=[r for r, *_ in EXPORTED])
def test_the_verifier_fails_a_rebuilt_export_with_a_short_shuffle_or_a_forged_public_card(ruleset_id, case, short,
                                                                                           forge):
    game = played(ruleset_id, case)
    honest = verify_export(export_lines(game, game.events))
    assert honest.verdict == "UNSIGNED", [c.as_dict() for c in honest.checks if c.status == "fail"]
    assert next(c for c in honest.checks if c.name == "dealt secrets").status == "pass"
    (events, version), key = forge(game)
    for forged, at, path in ((*forge_chance(game, *short), "chance.n"), (events, version, key)):
        report = verify_export(export_lines(game, copy.deepcopy(forged)))
        assert report.verdict == "FAILED"
        failed = [c for c in report.checks if c.status == "fail"]
        assert [c.name for c in failed] == ["public parts"], [c.as_dict() for c in failed]
        assert failed[0].detail.startswith(f"version {at}: public {path} "), failed[0].detail
