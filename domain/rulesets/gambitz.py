"""Gambitz: build one stack per rank, score the Nth card played on it, lock stacks with Queens.

The rules page is /work/shared/rules/gambitz.md (seed: Gambitz, (c) 2014 Tod Teeple). Decisions
taken where the seed and the rules page are silent, so that replays and clients can rely on them:

- Cards are named `<rank>-<suit>` ("7-blue", "queen-red"). The deck is a list, top first; a
  Knight's returned cards go to the end (the bottom) in the order the command lists them.
- Setup is one hidden shuffle (organizers only), then each seat in order takes the top 3 cards
  (one secret per seat): a uniform shuffle makes this the same as dealing round-robin.
- A Queen names the stack it locks (`stack`); other cards go to their own rank's stack.
- Bishop power: the command names `move_queen_from` (a locked stack) and `move_queen_to` (a
  non-Castle, unlocked stack holding exactly 3 cards once the Bishop lies on its stack, so a
  3rd Bishop may attract the Queen onto the Bishop stack itself).
- Knight power: `knight_return` lists one or both of the cards the seat held *besides* the
  Knight when it played it (never the card drawn this turn). The events run play, score, put
  to bottom, draw 1 + k: since the normal draw takes the top card and the returned cards go
  under the whole deck, this hands out exactly the cards that "draw 1, put k under, draw k"
  would, even when the deck is short or empty (then the returned cards come straight back).
- Redraw: forced when the seat cannot play, holds exactly three cards that are three Queens or
  two Queens and a card of a locked stack, and the deck is not empty (with an empty deck the
  reshuffle would hand back the same three cards forever, so the seat passes instead). It is
  a `redraw` command (the only legal one then): the hand is shown and returned, the deck is
  reshuffled (hidden), the seat draws 3 and its turn goes on. At most one redraw per turn: a
  seat that still cannot play afterwards passes. This always terminates: at most 4 cards
  can ever be unplayable (each locked stack kills one card and takes one Queen), so while the
  deck is non-empty the 3 x seats >= 6 cards in hand include a playable one and some seat
  plays within every round; each play lays a card down for good and shrinks the deck by one.
- End: after a pass, when the deck is empty and every seat holding cards has passed since the
  last card was played; after a play, when every hand is empty (kept for the rules page's sake:
  each Queen either stays in a hand or strands the last card of the stack it locks, so at least
  4 cards always stay in hands). Seats with empty hands are skipped. The scoring table's "hand" entries are signed score changes per card left in hand
  (-1 by default); the outcome reports `penalties` as positive amounts and
  `scores` = points - penalties.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import ClassVar

from domain.ruleset import ORGANIZER, Command, ConfigError, Event, RuleViolation, State, Viewer, chance_event

RULESET_ID = "gambitz"

SUITS = ("blue", "green", "red", "yellow")
RANKS = ("queen", "king", "bishop", "knight", "castle") + tuple(str(n) for n in range(1, 11))
STACK_RANKS = RANKS[1:]  # Queens have no stack of their own.
CARDS = tuple(f"{rank}-{suit}" for rank in RANKS for suit in SUITS)
_KNOWN_CARDS = frozenset(CARDS)
HAND_SIZE = 3
STACK_LIMIT = 4
POWER_POSITIONS = (2, 3)  # the 2nd and 3rd Bishop / Knight have a power

DEFAULT_SCORING: dict[str, dict[str, int]] = {
    "number": {"1": 0, "2": 1, "3": 3, "4": 1, "hand": -1},
    "king": {"1": 5, "2": 5, "3": 5, "4": 5, "hand": -5},
    "queen": {"4": 2, "hand": -2},
    "bishop": {"1": 1, "2": 2, "3": 2, "4": 1, "hand": -2},
    "knight": {"1": 1, "2": 2, "3": 2, "4": 1, "hand": -3},
    "castle": {"1": 1, "2": 1, "3": 1, "4": 1, "hand": -1},
}


def rank_of(card: str) -> str:
    """The rank of a card id ("7-blue" -> "7")."""
    return card.rsplit("-", 1)[0]


def group_of(rank: str) -> str:
    """The scoring-table row of a rank: "number" for 1-10, else the rank itself."""
    return "number" if rank.isdigit() else rank


def _complete_scoring(raw: object) -> object:
    """A partial table filled in from the defaults; malformed input is kept for validate()."""
    if not isinstance(raw, dict):
        return raw
    out: dict = {}
    for group, default_row in DEFAULT_SCORING.items():
        row = raw.get(group, {})
        out[group] = {**default_row, **row} if isinstance(row, dict) else row
    out.update({group: row for group, row in raw.items() if group not in DEFAULT_SCORING})
    return out


@dataclass(frozen=True)
class Config:
    """Match config: seat count, opening seat and the scoring table.

    `scoring` maps a rank group (number, king, queen, bishop, knight, castle) to points for the
    Nth card on its stack ("1".."4"; the Queen only "4") and "hand", the signed score change per
    card of that group left in hand at the end. Groups or keys left out keep their defaults.
    """

    players: int = 2
    first_seat: str = "p1"
    scoring: dict[str, dict[str, int]] = field(default_factory=lambda: copy.deepcopy(DEFAULT_SCORING))

    def __post_init__(self) -> None:
        object.__setattr__(self, "scoring", _complete_scoring(self.scoring))

    def validate(self) -> None:
        """Raise ConfigError for a seat count, opening seat or scoring table we cannot play."""
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 2 <= self.players <= 8:
            raise ConfigError("players", "must be an integer from 2 to 8")
        if self.first_seat not in seat_names(self):
            raise ConfigError("first_seat", f"must be one of {', '.join(seat_names(self))}")
        if not isinstance(self.scoring, dict):
            raise ConfigError("scoring", "must be an object of rank groups")
        for group, row in self.scoring.items():
            if group not in DEFAULT_SCORING:
                raise ConfigError("scoring", f"unknown rank group {group!r} (known: {', '.join(DEFAULT_SCORING)})")
            if not isinstance(row, dict):
                raise ConfigError("scoring", f"{group} must be an object")
            for key, value in row.items():
                if key not in DEFAULT_SCORING[group]:
                    raise ConfigError("scoring", f"unknown key {key!r} for {group} (known: {', '.join(DEFAULT_SCORING[group])})")
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError("scoring", f"{group}.{key} must be an integer")
                # Ten times the largest printed value either way: room for house tables, and a
                # score (at most 60 cards of it) stays a small number.
                if not -100 <= value <= 100:
                    raise ConfigError("scoring", f"{group}.{key} must be an integer from -100 to 100")


# --- commands ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlayCard(Command):
    """Play a card from hand onto its stack (a Queen names the stack it locks), with optional powers.

    `move_queen_from`/`move_queen_to`: a 2nd or 3rd Bishop's Queen move. `knight_return`: a 2nd
    or 3rd Knight's cards to put on the bottom of the deck, in that order.
    """

    type: ClassVar[str] = "play"
    card: str
    stack: str | None = None
    move_queen_from: str | None = None
    move_queen_to: str | None = None
    knight_return: tuple[str, ...] | None = None


@dataclass(frozen=True)
class PassTurn(Command):
    """Pass: allowed only when no card in hand can be played and no redraw is due."""

    type: ClassVar[str] = "pass"


@dataclass(frozen=True)
class RedrawHand(Command):
    """Show and return a hand of three Queens (or two Queens and a locked card), reshuffle, draw 3."""

    type: ClassVar[str] = "redraw"


COMMANDS = (PlayCard, PassTurn, RedrawHand)


# --- state and predicates shared by decide and legal_commands ------------------------------------

def seat_names(config: Config) -> list[str]:
    """The seats p1..pN."""
    return [f"p{n}" for n in range(1, config.players + 1)]


def initial_state(config: Config, seats: list[str]) -> State:
    """The table before the shuffle: the deck in catalogue order, empty hands and stacks."""
    return {
        "seats": list(seats), "first_seat": config.first_seat, "scoring": copy.deepcopy(config.scoring),
        "phase": "setup", "turn": None, "end_reason": None,
        "deck": list(CARDS), "hands": {seat: [] for seat in seats},
        "stacks": {rank: {"cards": [], "queen": None} for rank in STACK_RANKS},
        "points": {seat: 0 for seat in seats},
        "passed": [],  # seats that passed since the last card was played
        "redrew": False,  # the seat to act has redrawn this turn
        "shown": [],  # hands shown by redraws, public for good
        # Per seat, the deal and draw records that brought cards still in its hand: their version,
        # the cards not played yet, and whether a Knight sent one of them back unseen.
        "received": {seat: [] for seat in seats},
    }


def placement_problem(state: State, rank: str, stack: str) -> tuple[str, str] | None:
    """Why a card of `rank` cannot go on `stack` now (rule id, detail), or None if it can."""
    pile = state["stacks"][stack]
    if rank == "queen" and stack == "castle":
        return "queen_on_castle", "the Castle stack can never be locked"
    if pile["queen"] is not None:
        return "stack_locked", f"the {stack} stack is locked by {pile['queen']}"
    if len(pile["cards"]) >= STACK_LIMIT:
        return "stack_full", f"the {stack} stack already holds {STACK_LIMIT} cards"
    if rank == "queen" and len(pile["cards"]) != STACK_LIMIT - 1:
        return "queen_needs_three", f"a Queen goes only on a stack of exactly 3 cards; {stack} holds {len(pile['cards'])}"
    return None


def queen_targets(state: State) -> list[str]:
    """The stacks a Queen could lock now."""
    return [stack for stack in STACK_RANKS if placement_problem(state, "queen", stack) is None]


def is_playable(state: State, card: str) -> bool:
    """Whether a card could be played now (anywhere it may go)."""
    rank = rank_of(card)
    if rank == "queen":
        return bool(queen_targets(state))
    return placement_problem(state, rank, rank) is None


def must_redraw(state: State, seat: str) -> bool:
    """Whether the seat to act is stuck with Queens (and a locked card) and must redraw first."""
    hand = state["hands"][seat]
    if state["redrew"] or not state["deck"] or len(hand) != HAND_SIZE:
        return False
    if any(is_playable(state, card) for card in hand):
        return False
    others = [card for card in hand if rank_of(card) != "queen"]
    return not others or (len(others) == 1 and state["stacks"][rank_of(others[0])]["queen"] is not None)


def next_position(state: State, rank: str) -> int:
    """The position (1-4) a card of `rank` would take on its stack; a Queen is always the 4th."""
    return STACK_LIMIT if rank == "queen" else len(state["stacks"][rank]["cards"]) + 1


def has_power(rank: str, position: int) -> bool:
    """Whether playing this card at this position grants the Bishop's or the Knight's power."""
    return rank in ("bishop", "knight") and position in POWER_POSITIONS


def queen_moves(state: State) -> list[tuple[str, str]]:
    """The (from, to) Queen moves a Bishop played now onto its stack would allow."""
    def natural(stack: str) -> int:
        return len(state["stacks"][stack]["cards"]) + (1 if stack == "bishop" else 0)
    locked = [stack for stack in STACK_RANKS if state["stacks"][stack]["queen"] is not None]
    open_three = [stack for stack in STACK_RANKS
                  if stack != "castle" and state["stacks"][stack]["queen"] is None and natural(stack) == STACK_LIMIT - 1]
    return [(src, dst) for src in locked for dst in open_three]


def knight_returns(state: State, seat: str, knight: str) -> list[tuple[str, ...]]:
    """Every ordered choice of one or both of the other cards held when playing this Knight."""
    others = [card for card in state["hands"][seat] if card != knight]
    return [combo for size in (1, 2) for combo in itertools.permutations(others, size)]


def playable_commands(state: State, seat: str) -> list[PlayCard]:
    """Every play the seat may make now, each power option listed separately, in every spelling
    decide takes: a card other than a Queen may leave `stack` out or name its own rank's stack, and
    a play without a Knight's return may leave `knight_return` out or send it empty."""
    commands: list[PlayCard] = []
    for card in state["hands"][seat]:
        rank = rank_of(card)
        if rank == "queen":
            plays = [PlayCard(card, stack=stack) for stack in queen_targets(state)]
        elif placement_problem(state, rank, rank) is not None:
            continue
        else:
            plays = [PlayCard(card)]
            if has_power(rank, next_position(state, rank)):
                if rank == "bishop":
                    plays += [PlayCard(card, move_queen_from=src, move_queen_to=dst) for src, dst in queen_moves(state)]
                else:
                    plays += [PlayCard(card, knight_return=combo) for combo in knight_returns(state, seat, card)]
        commands += [spelled for play in plays for spelled in _spellings(play, rank)]
    return commands


def _spellings(play: PlayCard, rank: str) -> list[PlayCard]:
    """The play as written, then with the other spellings decide reads the same way."""
    stacks = [play.stack] if rank == "queen" else [None, rank]
    returns = [play.knight_return] if play.knight_return else [None, ()]
    return [dataclasses.replace(play, stack=stack, knight_return=kr) for kr in returns for stack in stacks]


# --- setup and decide ---------------------------------------------------------------------------

def shuffle_public(state: State) -> dict:
    """The public part of a shuffle of the whole deck: why, its size, and the size the permutation draws over."""
    # The deck is shuffled at setup and for a redraw only, and always whole: a smaller `n` would
    # drop the cards past it (evolve keeps only the permuted positions).
    size = len(state["deck"])
    return {"reason": "setup" if state["phase"] == "setup" else "redraw", "deck_size": size,
            "chance": {"draw": "permutation", "n": size}}


def _shuffle_event(state: State, chance, purpose: str) -> Event:
    public = shuffle_public(state)
    drawn = chance.permutation(purpose, public["chance"]["n"])
    return chance_event("DeckShuffled", drawn, {"reason": public["reason"], "deck_size": public["deck_size"]},
                        hidden_from_all_but=())


def _draw_event(kind: str, public: dict, cards: list[str]) -> Event:
    return Event(kind, public, {"cards": list(cards)}, (public["seat"],))


def returned_public(state: State, seat: str, cards: list[str]) -> dict:
    """The public part of a Knight's return: how many cards go under the deck, and its size after."""
    return {"seat": seat, "count": len(cards), "deck_size": len(state["deck"]) + len(cards)}


def refill(state: State, seat: str) -> dict:
    """The secret of a deal or draw: the top cards of the deck that bring the hand back to three."""
    # Every deal and draw is this refill: the opening deal, "draw 1 + k" after a play (the hand
    # holds 3 while the deck has cards; once it is empty only returned cards come back) and the
    # redraw's 3 after the hand was returned.
    count = max(HAND_SIZE - len(state["hands"][seat]), 0)
    return {"cards": state["deck"][:count]}


def refill_public(state: State, seat: str) -> dict:
    """The public part of a deal or draw: how many cards the refill takes, and the deck's size after."""
    count = len(refill(state, seat)["cards"])
    return {"seat": seat, "count": count, "deck_size": len(state["deck"]) - count}


def _refill_event(kind: str, state: State, seat: str) -> Event:
    """A deal or draw event topping the seat's hand up from the top of `state`'s deck."""
    return _draw_event(kind, refill_public(state, seat), refill(state, seat)["cards"])


def dealt_seat(state: State) -> str | None:
    """The seat the opening deal serves next: the first, in seat order, with no cards yet."""
    return next((seat for seat in state["seats"] if not state["hands"][seat]), None)


def started_public(state: State) -> dict:
    """The public part of the game's start: the seats and the opening seat, as configured."""
    return {"seats": list(state["seats"]), "first_seat": state["first_seat"]}


def setup(config: Config, seats: list[str], chance) -> list[Event]:
    """Shuffle (hidden), deal 3 secret cards to each seat, then the first seat is to play."""
    sim = initial_state(config, seats)
    events = [_shuffle_event(sim, chance, "shuffle")]
    evolve(sim, events[0])
    for _ in seats:
        events.append(_refill_event("CardsDealt", sim, dealt_seat(sim)))
        evolve(sim, events[-1])
    events.append(Event("GameStarted", started_public(sim)))
    return events


def _working_copy(state: State) -> State:
    """A copy decide may fold events into: every container evolve mutates is new, the rest shared.

    (copy_state's deepcopy was most of the playout test's time; the scoring table and the
    entries of `shown` are never mutated, so sharing them is safe.)
    """
    sim = dict(state)
    sim["deck"] = list(state["deck"])
    sim["hands"] = {seat: list(cards) for seat, cards in state["hands"].items()}
    sim["stacks"] = {rank: {"cards": list(pile["cards"]), "queen": pile["queen"]} for rank, pile in state["stacks"].items()}
    sim["points"] = dict(state["points"])
    sim["passed"] = list(state["passed"])
    sim["shown"] = list(state["shown"])
    sim["received"] = {seat: [dict(entry, pending=list(entry["pending"])) for entry in entries]
                       for seat, entries in state.get("received", {}).items()}
    return sim


def _next_turn_event(sim: State, seat: str) -> Event:
    """After a play or pass (already folded into `sim`): the next seat with cards, or the end."""
    seats, hands = sim["seats"], sim["hands"]
    holding = [s for s in seats if hands[s]]
    if not holding:
        return Event("GameEnded", {"reason": "all_hands_empty"})
    if not sim["deck"] and all(s in sim["passed"] for s in holding):
        return Event("GameEnded", {"reason": "no_card_can_be_played"})
    at = seats.index(seat)
    following = seats[at + 1:] + seats[:at + 1]
    return Event("TurnBegan", {"seat": next(s for s in following if hands[s])})


def _resolve_stack(card: str, stack: object) -> str:
    rank = rank_of(card)
    if rank == "queen":
        if stack is None:
            raise RuleViolation("queen_needs_stack", "name the stack the Queen locks (`stack`)")
        if stack not in STACK_RANKS:
            raise RuleViolation("unknown_stack", f"no stack named {stack!r}")
        return stack
    if stack is not None and stack != rank:
        raise RuleViolation("wrong_stack", f"{card} goes only on the {rank} stack")
    return rank


def played_public(state: State, seat: str, card: str, stack: str) -> dict:
    """The public part of a play: the stack it goes on, the position it takes and the points it scores."""
    # Only a Queen's stack is the seat's choice; every other card goes on its own rank's stack,
    # and the position and points follow from that stack and the scoring table.
    rank = rank_of(card)
    position = next_position(state, rank)
    return {"seat": seat, "card": card, "stack": stack if rank == "queen" else rank, "position": position,
            "points": state["scoring"][group_of(rank)][str(position)], "locks": rank == "queen"}


def shown_public(state: State, seat: str) -> dict:
    """The public part of a redraw's shown hand: the whole hand, and the deck's size once it is returned."""
    hand = list(state["hands"][seat])
    return {"seat": seat, "cards": hand, "deck_size": len(state["deck"]) + len(hand)}


def _decide_play(state: State, seat: str, command: PlayCard) -> list[Event]:
    card = command.card
    if not isinstance(card, str) or card not in _KNOWN_CARDS:
        raise RuleViolation("unknown_card", f"no card {card!r} in this game")
    if card not in state["hands"][seat]:
        raise RuleViolation("card_not_in_hand", f"{card} is not in {seat}'s hand")
    rank = rank_of(card)
    stack = _resolve_stack(card, command.stack)
    problem = placement_problem(state, rank, stack)
    if problem is not None:
        raise RuleViolation(*problem)
    position = next_position(state, rank)
    move = (command.move_queen_from, command.move_queen_to)
    if move != (None, None):
        if not (rank == "bishop" and has_power(rank, position)):
            raise RuleViolation("bishop_power_unavailable", "only the 2nd or 3rd Bishop may move a Queen")
        if move not in queen_moves(state):
            raise RuleViolation("invalid_queen_move", "move a locking Queen to another non-Castle stack of exactly 3 cards")
    returned = command.knight_return or ()
    if not isinstance(returned, (tuple, list)):
        raise RuleViolation("invalid_knight_return", "knight_return lists card ids")
    returned = tuple(returned)
    if returned:
        if not (rank == "knight" and has_power(rank, position)):
            raise RuleViolation("knight_power_unavailable", "only the 2nd or 3rd Knight may return cards")
        if returned not in knight_returns(state, seat, card):
            raise RuleViolation("invalid_knight_return", "return one or both of the other cards you held, once each")

    sim = _working_copy(state)
    events: list[Event] = []

    def emit(event: Event) -> None:
        events.append(event)
        evolve(sim, event)

    emit(Event("CardPlayed", played_public(state, seat, card, stack)))
    if move != (None, None):
        emit(Event("QueenMoved", {"seat": seat, "queen": sim["stacks"][move[0]]["queen"], "from": move[0],
                                  "to": move[1]}))
    if returned:
        emit(_draw_event("CardsReturned", returned_public(sim, seat, list(returned)), list(returned)))
    if sim["deck"]:
        emit(_refill_event("CardsDrawn", sim, seat))
    emit(_next_turn_event(sim, seat))
    return events


def _decide_pass(state: State, seat: str) -> list[Event]:
    if must_redraw(state, seat):
        raise RuleViolation("must_redraw", "a hand of Queens that cannot be played must be redrawn")
    if any(is_playable(state, card) for card in state["hands"][seat]):
        raise RuleViolation("cannot_pass_with_playable_card", "a seat that can play a card must play one")
    sim = _working_copy(state)
    passed = Event("TurnPassed", {"seat": seat})
    evolve(sim, passed)
    return [passed, _next_turn_event(sim, seat)]


def _decide_redraw(state: State, seat: str, chance) -> list[Event]:
    if not must_redraw(state, seat):
        raise RuleViolation("redraw_not_allowed", "only a stuck hand of three Queens, or two Queens and a locked "
                                                  "card, with cards left in the deck, is redrawn (once a turn)")
    sim = _working_copy(state)
    shown = Event("HandShown", shown_public(sim, seat), opens=revealed_by_showing(sim, seat))
    evolve(sim, shown)
    shuffled = _shuffle_event(sim, chance, "reshuffle")
    evolve(sim, shuffled)
    return [shown, shuffled, _refill_event("CardsDrawn", sim, seat)]


def decide(state: State, seat: str, command: Command, chance) -> list[Event]:
    """The events of a legal command; RuleViolation for anything the rules do not allow."""
    if state["phase"] == "over":
        raise RuleViolation("game_over", "the game has ended")
    if state["phase"] != "play":
        raise RuleViolation("not_started", "the cards have not been dealt yet")
    if seat != state["turn"]:
        raise RuleViolation("not_your_turn", f"it is {state['turn']}'s turn")
    if isinstance(command, PlayCard):
        if must_redraw(state, seat):
            raise RuleViolation("must_redraw", "a hand of Queens that cannot be played must be redrawn")
        return _decide_play(state, seat, command)
    if isinstance(command, PassTurn):
        return _decide_pass(state, seat)
    if isinstance(command, RedrawHand):
        return _decide_redraw(state, seat, chance)
    raise RuleViolation("unknown_command", f"gambitz has no command {getattr(command, 'type', command)!r}")


# --- evolve -------------------------------------------------------------------------------------

def _take(cards: list[str], taken: list[str]) -> None:
    for card in taken:
        if card in cards:
            cards.remove(card)


def _chance_result(event: Event):
    if "chance_result" in event.public:
        return event.public["chance_result"]
    return (event.secret or {}).get("chance_result", [])


def evolve(state: State, event: Event) -> State:
    """Fold one recorded event into the state (never validates)."""
    pub = event.public
    kind = event.kind
    if kind == "DeckShuffled":
        deck = state["deck"]
        state["deck"] = [deck[i] for i in _chance_result(event)]
    elif kind in ("CardsDealt", "CardsDrawn"):
        cards = (event.secret or {}).get("cards", [])
        _take(state["deck"], cards)
        state["hands"][pub["seat"]].extend(cards)
        if cards:
            state.setdefault("received", {}).setdefault(pub["seat"], []).append(
                {"version": event.version, "pending": list(cards), "tainted": False})
    elif kind == "GameStarted":
        state["phase"], state["turn"] = "play", pub["first_seat"]
    elif kind == "CardPlayed":
        _take(state["hands"][pub["seat"]], [pub["card"]])
        _settle_received(state, pub["seat"], [pub["card"]], tainted=False)
        pile = state["stacks"][pub["stack"]]
        if pub["locks"]:
            pile["queen"] = pub["card"]
        else:
            pile["cards"].append(pub["card"])
        state["points"][pub["seat"]] += pub["points"]
        state["passed"] = []
    elif kind == "QueenMoved":
        state["stacks"][pub["from"]]["queen"] = None
        state["stacks"][pub["to"]]["queen"] = pub["queen"]
    elif kind == "CardsReturned":
        cards = (event.secret or {}).get("cards", [])
        _take(state["hands"][pub["seat"]], cards)
        state["deck"].extend(cards)
        _settle_received(state, pub["seat"], cards, tainted=True)
    elif kind == "HandShown":
        _take(state["hands"][pub["seat"]], pub["cards"])
        state["deck"].extend(pub["cards"])
        state["shown"].append({"seat": pub["seat"], "cards": list(pub["cards"])})
        state["redrew"] = True
        state.setdefault("received", {})[pub["seat"]] = []
    elif kind == "TurnPassed":
        state["passed"].append(pub["seat"])
    elif kind == "TurnBegan":
        state["turn"], state["redrew"] = pub["seat"], False
    elif kind == "GameEnded":
        state["phase"], state["turn"], state["end_reason"] = "over", None, pub["reason"]
    return state


def _settle_received(state: State, seat: str, cards: list[str], tainted: bool) -> None:
    """Cards leave the hand: played face up, or (tainted) returned unseen under the deck."""
    entries = state.setdefault("received", {}).setdefault(seat, [])
    for entry in entries:
        gone = [card for card in entry["pending"] if card in cards]
        if gone:
            entry["pending"] = [card for card in entry["pending"] if card not in gone]
            entry["tainted"] = entry["tainted"] or tainted
    # A record all of whose cards were played shows nothing a later hand could reveal.
    entries[:] = [entry for entry in entries if entry["pending"]]


def revealed_by_showing(state: State, seat: str) -> tuple[int, ...]:
    """The deal and draw records a shown hand reveals to everyone: those that brought its cards.

    Every card such a record holds is public once the hand is shown: the rest were played face up.
    A record a Knight sent a card back from is not revealed (that card's identity stays hidden).
    What opening adds is only when each shown card arrived, of a hand that goes back into the
    deck and is reshuffled at once.
    """
    return tuple(entry["version"] for entry in state.get("received", {}).get(seat, []) if not entry["tainted"])


def derived_secret(state: State, event: Event) -> dict | None:
    """The cards a deal or draw takes off the replayed deck; None for other events."""
    # A shuffle's secret is only its chance result (re-derived from the seed by the verifier),
    # and the cards a Knight returns are the seat's own choice.
    if event.kind in ("CardsDealt", "CardsDrawn"):
        return refill(state, event.public["seat"])
    return None


def readjudicate(state: State, event: Event) -> dict:
    """Gambitz has no bluff calls, so no record of it is a ruling to re-adjudicate."""
    raise ValueError(f"a {event.kind} is not a ruling: gambitz records no rulings")


def derived_public(state: State, event: Event) -> dict | None:
    """What the replayed state fixes of an event's public part; None when it is all a seat's choice."""
    # Everything here follows from the state but the card played (and a Queen's stack), a
    # Bishop's move and a Knight's returned cards, which are the seat's to choose; the count of
    # returned cards restates the (then opened) secret. Only the seat whose turn it is acts.
    kind, pub = event.kind, event.public
    turn = state["turn"]
    if kind == "DeckShuffled":
        return shuffle_public(state)
    if kind == "CardsDealt":
        return refill_public(state, dealt_seat(state))
    if kind == "CardsDrawn":
        return refill_public(state, turn)
    if kind == "GameStarted":
        return started_public(state)
    if kind == "CardPlayed":
        return played_public(state, turn, pub["card"], pub.get("stack"))
    if kind == "QueenMoved":
        return {"seat": turn, "queen": state["stacks"][pub["from"]]["queen"]}
    if kind == "CardsReturned":
        cards = (event.secret or {}).get("cards")
        return {"seat": turn} if cards is None else returned_public(state, turn, cards)
    if kind == "HandShown":
        return shown_public(state, turn)
    if kind == "TurnPassed":
        return {"seat": turn}
    if kind in ("TurnBegan", "GameEnded"):
        # Which of the two follows is fixed too: the other kind's key is then missing.
        return _next_turn_event(state, turn).public
    return None


# --- queries ------------------------------------------------------------------------------------

def to_act(state: State) -> list[str]:
    """The seat whose turn it is (nobody before the deal or after the end)."""
    return [state["turn"]] if state["phase"] == "play" else []


def legal_commands(state: State, seat: str) -> list[Command]:
    """Every command decide accepts now: the forced redraw, else every play (powers included), else pass."""
    if state["phase"] != "play" or seat != state["turn"]:
        return []
    if must_redraw(state, seat):
        return [RedrawHand()]
    return playable_commands(state, seat) or [PassTurn()]


def catalogue() -> dict:
    """The public card list (every card with its rank and suit), the stacks, and the default scoring table."""
    return {"cards": [{"id": card, "rank": rank_of(card), "suit": card.rsplit("-", 1)[1]} for card in CARDS],
            "stacks": list(STACK_RANKS), "hand_size": HAND_SIZE, "stack_limit": STACK_LIMIT,
            "scoring": copy.deepcopy(DEFAULT_SCORING)}


def legal_choices(state: State, seat: str) -> list:
    """None: every legal gambitz command is listed by legal_commands (at most a few dozen)."""
    return []


def penalty_of(state: State, cards: list[str]) -> int:
    """The penalty (a positive amount under the default table) for these cards left in hand."""
    return -sum(state["scoring"][group_of(rank_of(card))]["hand"] for card in cards)


def outcome(state: State) -> dict | None:
    """None while playing; then winners (ties share), reason, final scores, points and penalties."""
    if state["phase"] != "over":
        return None
    seats = state["seats"]
    penalties = {seat: penalty_of(state, state["hands"][seat]) for seat in seats}
    scores = {seat: state["points"][seat] - penalties[seat] for seat in seats}
    best = max(scores.values())
    return {"winners": [seat for seat in seats if scores[seat] == best], "reason": state["end_reason"],
            "scores": scores, "points": dict(state["points"]), "penalties": penalties,
            "hands": {seat: list(state["hands"][seat]) for seat in seats}}


def view(state: State, viewer: Viewer) -> dict:
    """The table as `viewer` may see it: every hand and the deck order only with sees_all/organizer."""
    out = {
        "phase": state["phase"], "turn": state["turn"], "seats": list(state["seats"]),
        "first_seat": state["first_seat"], "deck_size": len(state["deck"]),
        "stacks": {rank: {"cards": list(pile["cards"]), "queen": pile["queen"], "locked": pile["queen"] is not None,
                          "size": len(pile["cards"]) + (pile["queen"] is not None)}
                   for rank, pile in state["stacks"].items()},
        "points": dict(state["points"]),
        "hand_sizes": {seat: len(cards) for seat, cards in state["hands"].items()},
        "passed": list(state["passed"]), "redrew": state["redrew"],
        "shown_hands": copy.deepcopy(state["shown"]), "scoring": copy.deepcopy(state["scoring"]),
    }
    if viewer.seat in state["hands"]:
        out["hand"] = list(state["hands"][viewer.seat])
    if viewer.sees_all or viewer.role == ORGANIZER:
        out["hands"] = {seat: list(cards) for seat, cards in state["hands"].items()}
        out["deck"] = list(state["deck"])
    return out
