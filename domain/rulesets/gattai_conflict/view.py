"""`view`: the conflict as one viewer may see it; `catalogue`: the public card lists of both decks.

A seat sees its own hand and its own sealed cards; everyone sees what is face up (Piles, Trash,
Omens, revealed cards), gauges, scores, Payloads, hand and deck sizes, and which sealed plays
exist (their versions name the records whose commitments prove them). Organizers, and everyone
once the match has ended, see everything, deck order included.

While a Throwdown is fought the view always shows the Strikes the next card is judged against:
`strikes` for a card played in the current stage (from stage 4 on the pilots' is the Team's
Harmony), `escalation_strikes` for a card opening the next stage (so in stage 3 the pilots' is
already the Harmony a Rumble card faces); both count this turn's Assists.
"""

from __future__ import annotations

import copy
from typing import Any, NotRequired, TypedDict

from domain.ruleset import Viewer
from domain.view_types import ViewTypes

from .cards import DECKS, SUIT_VALUE, SUITS, deck_cards, is_joker, rank
from .config import COACH
from .legal import to_act
from .shapes import (
    FiredTrigger,
    GambitResult,
    GambitState,
    GattaiState,
    Gauge,
    Mode,
    Omen,
    Phase,
    SealedKind,
    Side,
    SideScores,
    Source,
    TableRole,
    ThrowdownBook,
    ThrowdownResult,
    throwdown_of,
)
from .team import HARMONY_NAMES, max_hand, pending
from .throwdown import FIGHTING, delivered_payload, strike
from .throwdown_events import SidePayloadRecords

SIDES: tuple[Side, ...] = ("pilots", "coach")
LAST_STAGE = 7
STAGE_NAMES = {
    1: "Confrontation",
    2: "Struggle",
    3: "Final Attack",
    4: "Rumble I",
    5: "Rumble II",
    6: "Rumble III",
    7: "Rumble IV",
}


def view(state: GattaiState, viewer: Viewer) -> dict:
    """The board for `viewer`."""
    all_known = viewer.sees_all
    me = viewer.seat if viewer.role == "seat" and viewer.seat in state["seats"] else None

    def shown(seat: str) -> bool:
        """Whether this viewer sees what `seat` holds face down."""
        return all_known or seat == me

    hands = {s: {"count": len(h), "cards": list(h) if shown(s) else None} for s, h in state["hands"].items()}
    decks = {}
    for name, d in state["decks"].items():
        decks[name] = {"count": len(d["draw"]), "trash": list(d["trash"]), "omens": [dict(o) for o in d["omens"]]}
        if all_known:
            decks[name]["order"] = list(d["draw"])
    table = [
        {
            "seat": e["seat"],
            "role": e["role"],
            "face_up": e["face_up"],
            "card": e["card"] if e["face_up"] or shown(e["seat"]) else None,
        }
        for e in state["table"]
    ]
    sealed = [
        {
            "version": e["version"],
            "seat": e["seat"],
            "kind": e["kind"],
            "source": e["source"],
            "reveal_version": e["reveal_version"],
            "card": e["card"] if e["reveal_version"] is not None or shown(e["seat"]) else None,
        }
        for e in state["sealed"]
    ]
    waiting = pending(state)
    out = {
        "mode": state["mode"],
        "phase": state["phase"],
        "seats": list(state["seats"]),
        "to_act": to_act(state),
        "harmony": {"level": state["harmony"], "name": HARMONY_NAMES[state["harmony"]]},
        "team": copy.deepcopy(state["team"]),
        "threats": dict(state["threats"]),
        "hands": hands,
        "max_hands": {s: max_hand(state, s) for s in state["seats"]},
        "decks": decks,
        "table": table,
        "sealed": sealed,
        "threat_stacks": {
            t: {"count": len(c), "cards": list(c) if shown(COACH) else None} for t, c in state["stacks"].items()
        },
        "queue": copy.deepcopy(state["queue"]),
        "pending": None if waiting is None else {"seat": waiting, "trigger": dict(state["queue"][0])},
        "discards_due": dict(state["discards_due"]),
        "result": copy.deepcopy(state["result"]),
        "gambit": copy.deepcopy(state["gambit"]),
        "throwdown": _throwdown(state),
        "crisis_tier": state["config"]["crisis_tier"],
    }
    return out


def _throwdown(state: GattaiState) -> dict | None:
    td = state["throwdown"]
    if td is None:
        return None
    out: dict[str, Any] = copy.deepcopy(dict(td))
    out["payloads"] = {side: delivered_payload(state, side) for side in SIDES}
    out["stage_name"] = STAGE_NAMES.get(td["stage"])
    out["initiative"] = {side: v is not None for side, v in td["initiative"].items()}
    out["strikes"], out["escalation_strikes"] = _strikes(state)
    out["winning_card"] = td["piles"][-1]["cards"][-1]["card"] if td["piles"] else None
    out["coach"] = COACH
    return out


def _strikes(state: GattaiState) -> tuple[dict | None, dict | None]:
    """The Strikes the next card is judged against, per side: one played in the current stage (an
    Initiative card, a Counter) and one opening the next stage (an Escalate; a Rumble, judged against
    the Team's Harmony), None where no such card can come (the Throwdown ended; stage 7)."""
    if state["phase"] not in FIGHTING:
        return None, None
    stage = throwdown_of(state)["stage"]
    now = {side: strike(state, side) for side in SIDES}
    nxt = None if stage >= LAST_STAGE else {side: strike(state, side, stage + 1) for side in SIDES}
    return now, nxt


class CatalogueCard(TypedDict):
    """A card of a deck: its id with its rank, suit and value, or marked as a Joker (then nothing else)."""

    id: str
    joker: NotRequired[bool]
    rank: NotRequired[str]
    suit: NotRequired[str]
    value: NotRequired[int]


class GattaiCatalogue(TypedDict):
    """The card list of each deck (`pilot`, `coach`) and the suits, highest first."""

    decks: dict[str, list[CatalogueCard]]
    suit_order: list[str]


CATALOGUE = GattaiCatalogue


def catalogue() -> GattaiCatalogue:
    """The public card lists of both decks: each card id with its rank and suit, or marked as a Joker."""

    def entry(card: str) -> CatalogueCard:
        if is_joker(card):
            return {"id": card, "joker": True}
        return {"id": card, "rank": card[2:-1], "suit": card[-1], "value": rank(card)}

    return {
        "decks": {deck: [entry(card) for card in deck_cards(deck)] for deck in DECKS},
        "suit_order": sorted(SUITS, key=lambda s: -SUIT_VALUE[s]),
    }


# ----- the view's types, per viewer ---------------------------------------------------------------


class HarmonyView(TypedDict):
    """The Team's Harmony and its colour."""

    level: int
    name: str


class PendingView(TypedDict):
    """The trigger at the front of the queue and the pilot whose answer it waits for."""

    seat: str
    trigger: FiredTrigger


class SideFlags(TypedDict):
    """Per side, whether its Initiative card is sealed."""

    pilots: bool
    coach: bool


class ThrowdownView(ThrowdownBook):
    """The Throwdown's bookkeeping as shown: Payloads whole, the Initiative as sealed or not, the Strikes."""

    initiative: SideFlags
    payloads: SidePayloadRecords
    stage_name: str | None
    strikes: SideScores | None
    escalation_strikes: SideScores | None
    winning_card: str | None
    coach: str


class ConflictView(TypedDict):
    """What every viewer is shown alike."""

    mode: Mode
    phase: Phase
    seats: list[str]
    to_act: list[str]
    harmony: HarmonyView
    team: dict[str, Gauge]
    threats: dict[str, int]
    max_hands: dict[str, int]
    queue: list[FiredTrigger]
    pending: PendingView | None
    discards_due: dict[str, int]
    result: GambitResult | ThrowdownResult | None
    gambit: GambitState | None
    throwdown: ThrowdownView | None
    crisis_tier: int


class DeckView(TypedDict):
    """A deck as the table sees it: its size, its face-up Trash and its Omens."""

    count: int
    trash: list[str]
    omens: list[Omen]


class DeckInOrder(DeckView):
    """A deck with its draw pile in order (organizers, and everyone once the match has ended)."""

    order: list[str]


class HandView(TypedDict):
    """A hand: its size, and its cards when this viewer may see them."""

    count: int
    cards: list[str] | None


class HiddenHand(TypedDict):
    """A hand a spectator sees: its size only."""

    count: int
    cards: None


class OpenHand(TypedDict):
    """A hand seen whole."""

    count: int
    cards: list[str]


class TableCardView(TypedDict):
    """A card on the table, its face when face up or this viewer's own."""

    seat: str
    role: TableRole
    face_up: bool
    card: str | None


class SealedView(TypedDict):
    """A sealed play: its record, its claimed source, and the card once revealed or when this viewer's own."""

    version: int | None
    seat: str
    kind: SealedKind
    source: Source
    reveal_version: int | None
    card: str | None


class OpenTableCard(TypedDict):
    """A card on the table, seen whether face up or not."""

    seat: str
    role: TableRole
    face_up: bool
    card: str


class OpenSealed(TypedDict):
    """A sealed play seen with its card."""

    version: int | None
    seat: str
    kind: SealedKind
    source: Source
    reveal_version: int | None
    card: str


class SeatView(ConflictView):
    """A seat's view while the match runs: its own hand, sealed cards and (the Coach's) Threat stacks."""

    hands: dict[str, HandView]
    decks: dict[str, DeckView]
    table: list[TableCardView]
    sealed: list[SealedView]
    threat_stacks: dict[str, HandView]


class SpectatorView(ConflictView):
    """A spectator's view while the match runs: no hand, no stack, only face-up and revealed cards."""

    hands: dict[str, HiddenHand]
    decks: dict[str, DeckView]
    table: list[TableCardView]
    sealed: list[SealedView]
    threat_stacks: dict[str, HiddenHand]


class FullView(ConflictView):
    """Everything, deck order included: organizers, and everyone once the match has ended."""

    hands: dict[str, OpenHand]
    decks: dict[str, DeckInOrder]
    table: list[OpenTableCard]
    sealed: list[OpenSealed]
    threat_stacks: dict[str, OpenHand]


class EndedView(FullView):
    """Anyone's view once the match has ended: everything, as organizers see it."""


VIEWS = ViewTypes(seat=SeatView, spectator=SpectatorView, organizer=FullView, ended=EndedView)
