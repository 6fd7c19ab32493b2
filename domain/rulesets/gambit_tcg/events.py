"""Every event gambit-tcg records, declared as a typed payload (`EVENTS`), and the verifier's hooks.

Each kind is a frozen dataclass of its public fields and its secret ones (`hidden`), declared in
payloads.py; state.py folds each type, and the conformance kit holds every emitted record to
its declaration. The
parts that follow from the state are built once in parts.py: decide and setup emit what those
builders return, and `derived_secret`/`derived_public` here hand the verifier the same values
for a recorded event, so the two can never disagree.

Which part of each secret the rules fix (`derived_secret`), and which is a seat's choice:
- DeckRegistered: a preconstructed deck's list is the rules page's; a custom list is the seat's.
- DeckShuffled: its secret is the chance result itself, which the verifier re-derives.
- CardsDrawn: the ids of the cards on top of the deck (instances are numbered by shuffled
  position, so the shuffle and the deck list fix which card each one is).
- CardSet: the set card's identity and type follow from the state; so does its window when the
  card leaves no choice (none for a card that is no trap, the one window a trap's card data
  names); a trap naming several windows is set for one of them by choice.
- SetCardRevealed, TrapActivated and a face-down CardPlayed open a set card: its identity and
  the window declared when it was set are all in the state.

`derived_public` binds the public parts the same way. Fixed by the state: every shuffle's size
(the registered list), the instances a draw takes off the top of the deck and how many (the
opening hands, the draw phase's refill), what every card shown face up is (`id`, `type`, a
payment's discards, a destroyed unit's item, the field), who acts and on which turn, who a trap
window asks, a combat's damage and the turn limit's verdict. A seat's choices stay free: what
it plays or sets and with which choices and payment, attacks and blocks, passing; so do the
amounts an effect deals or boosts by and how many cards a draw effect takes (the resolving
card is not named in those records), and which seat decked out.
"""

from __future__ import annotations

from domain.event_types import EventTypes
from domain.ruleset import Event

from .cards import DECKS, SEATS, energy_value
from .parts import (
    activated_public,
    card_identity,
    combat_public,
    destroyed_public,
    drawn_public,
    drawn_secret,
    due_draw,
    field_public,
    fixed_window,
    opened_secret,
    pending_spell_public,
    played_public,
    registered_public,
    revealed_public,
    sacrificed_public,
    set_public,
    shuffle_public,
    started_public,
    turn_limit_public,
    window_opened_public,
)
from .payloads import (
    AttackDeclared,
    AttackerMuted,
    BlockersAssigned,
    BlocksAwaited,
    CardEnergized,
    CardPlayed,
    CardsDrawn,
    CardSet,
    CombatResolved,
    DeckRegistered,
    DeckShuffled,
    FieldDestroyed,
    FreeSetDeclined,
    GameStarted,
    PhaseBegan,
    PlayerDamaged,
    SeatLost,
    SetCardRevealed,
    SpellNullified,
    SpellResolved,
    TrapActivated,
    TurnBegan,
    TurnEnded,
    TurnLimitReached,
    UnitBoosted,
    UnitDamaged,
    UnitDestroyed,
    UnitSacrificed,
    WindowClosed,
    WindowOpened,
    WindowPassed,
)
from .shapes import TcgState, active_on, combat_of, on_turn

EVENTS = EventTypes(
    DeckRegistered,
    DeckShuffled,
    CardsDrawn,
    GameStarted,
    FreeSetDeclined,
    TurnBegan,
    PhaseBegan,
    WindowOpened,
    WindowPassed,
    WindowClosed,
    TurnEnded,
    SeatLost,
    TurnLimitReached,
    CardSet,
    CardEnergized,
    CardPlayed,
    SpellResolved,
    SpellNullified,
    TrapActivated,
    SetCardRevealed,
    UnitSacrificed,
    UnitDestroyed,
    PlayerDamaged,
    UnitDamaged,
    UnitBoosted,
    AttackerMuted,
    FieldDestroyed,
    AttackDeclared,
    BlocksAwaited,
    BlockersAssigned,
    CombatResolved,
)

_OPENING = ("SetCardRevealed", "TrapActivated", "CardPlayed")


def derived_secret(state: TcgState, event: Event) -> dict | None:
    """The part of an event's secret that the state and chance fix; None when it is all a choice."""
    pub = event.public
    if event.secret is None:
        return None
    if event.kind == "DeckRegistered":
        name = event.secret.get("deck")
        return {"cards": list(DECKS[name])} if name in DECKS else None
    if event.kind == "CardsDrawn":
        return drawn_secret(state, pub["seat"], len(pub["cards"]))
    if event.kind == "CardSet":
        return {**card_identity(state, pub["card"]), **fixed_window(state, pub["card"])}
    if event.kind in _OPENING:
        return opened_secret(state, pub["card"])
    return None


def derived_public(state: TcgState, event: Event) -> dict | None:
    """The part of an event's public record that the state and chance fix; None when it is all a choice."""
    kind, pub = event.kind, event.public
    active = state["active"]
    if kind == "DeckRegistered":
        return registered_public(state)
    if kind == "DeckShuffled":
        return shuffle_public(state)
    if kind == "CardsDrawn":
        due = due_draw(state)
        if due is None:
            # An effect's draw: its count is the card's, but the cards are still the deck's top.
            return drawn_public(state, pub["seat"], len(pub["cards"]), "effect")
        seat, reason, count = due
        return drawn_public(state, seat, count, reason)
    if kind == "GameStarted":
        return started_public()
    if kind == "FreeSetDeclined":
        return {"seat": SEATS[1]}
    if kind == "CardSet":
        free = state["phase"] == "free_set"
        return set_public(state, SEATS[1] if free else on_turn(state), pub["card"], free)
    if kind == "TurnBegan":
        return {"seat": active_on(state["turn"] + 1), "turn": state["turn"] + 1}
    if kind in ("PhaseBegan", "TurnEnded"):
        return {"seat": active, "turn": state["turn"]}
    if kind == "TurnLimitReached":
        return turn_limit_public(state)
    if kind == "WindowOpened":
        # A record naming no window asks no one: no trap names the empty window.
        return window_opened_public(state, pub.get("window", ""))
    if kind in ("WindowPassed", "WindowClosed"):
        return {"window": None if state["window"] is None else state["window"]["name"]}
    if kind == "CardEnergized":
        card_id = state["cards"][pub["card"]]
        return {"seat": active, "id": card_id, "value": energy_value(card_id)}
    if kind == "CardPlayed":
        discard = [d["card"] for d in pub["paid"]["discard"]]
        return played_public(state, on_turn(state), pub["card"], pub["choices"], pub["paid"]["energy"], discard)
    if kind in ("SpellResolved", "SpellNullified"):
        return pending_spell_public(state)
    if kind == "TrapActivated":
        discard = [d["card"] for d in pub["paid"]["discard"]]
        return activated_public(state, pub["card"], pub["choices"], pub["paid"]["energy"], discard)
    if kind == "SetCardRevealed":
        return revealed_public(state, pub["card"])
    if kind == "UnitSacrificed":
        return sacrificed_public(state, pub["unit"])
    if kind == "UnitDestroyed":
        return destroyed_public(state, pub["unit"]) or {"unit": None}
    if kind == "FieldDestroyed":
        return field_public(state)
    if kind == "AttackDeclared":
        return {"seat": active}
    if kind in ("BlocksAwaited", "BlockersAssigned"):
        combat_now = combat_of(state)
        return {
            "seat": combat_now["target"],
            **({"attackers": list(combat_now["attackers"])} if kind == "BlocksAwaited" else {}),
        }
    if kind == "CombatResolved":
        return combat_public(state)
    if kind == "SeatLost" and pub.get("reason") == "zero_life":
        return {"seats": [s for s in state["seats"] if state["players"][s]["life"] <= 0]}
    return None
