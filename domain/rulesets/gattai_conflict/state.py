"""The state of a conflict, `evolve` (folds one recorded event in) and `Sim` (decide's scratch copy).

State (plain JSON):
- `version` (of the last folded event), `config`, `seats`, `pilots` (pilot seats in order),
  `mode`, `phase`, `harmony`, `team` {pilot: gauges and stats}, `threats` {name: rating}.
- `decks` {pilot|coach: {draw, trash, omens}}, `hands` {seat: [cards]}, `stacks` {threat: [cards
  invested on it, face down]}, `table` [{card, seat, role, face_up}] for the Gambit's two cards
  and sealed Initiative cards.
- `sealed` [{version, seat, kind, card, source, origin, reveal_version}]: every sealed play.
- `queue` (triggers waiting to resolve), `after_queue` (what follows once it is empty).
- `gambit` / `throwdown`: the mode's own bookkeeping (see gambit.py and throwdown.py).
- `discards_due` {seat: n} after the conflict, `result` once decided (see `outcome`).
"""

from __future__ import annotations

import json

from domain.ruleset import Event, config_to_dict

from . import cards as C
from .commands import COACH, STATS, Config, sheet_of
from .team import DAMAGE, apply_resolved

# Phases in which a Throwdown's damage waits in a Payload instead of resolving at once.
FIGHTING = ("initiative", "reveal", "question", "swap", "turns")


def side_of(seat: str) -> str:
    """The Throwdown side a seat fights on."""
    return "coach" if seat == COACH else "pilots"


def other_side(side: str) -> str:
    """The opposing side."""
    return "pilots" if side == "coach" else "coach"


def initial_state(config: Config, seats: list[str]) -> dict:
    """The state before setup: decks unshuffled, hands empty, the Team as its sheets say."""
    pilots = [s for s in seats if s != COACH]
    team = {}
    for p in pilots:
        sheet = sheet_of(config, p)
        team[p] = {**{s: sheet[s] for s in STATS}, "charges": sheet["charges"], "charges_max": sheet["charges_max"],
                   "buffers": sheet["buffers"], "buffers_max": sheet["buffers"]}
    return {
        "version": 0, "config": config_to_dict(config), "seats": list(seats), "pilots": pilots,
        "mode": config.mode, "phase": "setup", "harmony": config.harmony, "team": team,
        "threats": dict(config.threats), "decks": C.new_decks(), "hands": {s: [] for s in seats},
        "stacks": {t: [] for t in config.threats}, "table": [], "sealed": [], "queue": [], "after_queue": None,
        "gambit": None, "throwdown": None,
        "discards_due": {}, "result": None,
    }


def fast_copy(state: dict) -> dict:
    """An independent copy of a plain-JSON state (cheaper than deepcopy)."""
    return json.loads(json.dumps(state))


class Sim:
    """Decide's scratch pad: a copy of the state that every emitted event is folded into at once.

    Rules that depend on what an earlier event of the same decision did (a draw that empties the
    deck, an Omen reaching the top) read `sim.state`. Events are folded with the version they will
    be recorded at, so `next_version` names an event before it is recorded (bluff-call versions).
    """

    def __init__(self, state: dict, chance) -> None:
        self.state = fast_copy(state)
        self.chance = chance
        self.events: list[Event] = []
        self._purposes = 0
        # The match tells where this decision's records start (its own records, such as
        # disputes, may lie between ruleset events); the fold count is only the fallback.
        known = getattr(chance, "version", None)
        self._first_version = known if known is not None else self.state["version"] + 1

    @property
    def next_version(self) -> int:
        """The version the next emitted event will be recorded at."""
        return self._first_version + len(self.events)

    def purpose(self, name: str) -> str:
        """A chance purpose unique within this decision."""
        self._purposes += 1
        return f"{name}-{self._purposes}"

    def emit(self, kind: str, public: dict, secret: dict | None = None, audience: tuple[str, ...] | None = None,
             opens: tuple[int, ...] = ()) -> int:
        """Record an event of this decision and fold it; returns its version."""
        return self.add(Event(kind, public, secret, None if secret is None else tuple(audience or ()), tuple(opens)))

    def emit_chance(self, kind: str, drawn, public: dict) -> int:
        """Record a hidden chance event (only organizers see the result while the match runs)."""
        pub = dict(public)
        pub["chance"] = drawn.descriptor
        return self.add(Event(kind, pub, {"chance_result": drawn.result}, ()))

    def add(self, event: Event) -> int:
        """Fold an event (a JSON copy, so later folds never alias it) and keep it for the record."""
        version = self.next_version
        data = json.loads(json.dumps({"p": event.public, "s": event.secret}))
        evolve(self.state, Event(event.kind, data["p"], data["s"], event.audience, event.opens, version))
        self.events.append(event)
        return version


# ----- evolvers ---------------------------------------------------------------------------------

def _take(state: dict, seat: str, card: str) -> None:
    hand = state["hands"][seat]
    if card in hand:
        hand.remove(card)


def _deck_shuffled(state, ev):
    C.apply_shuffle(state, ev.public["deck"], ev.public["reason"], ev.secret["chance_result"])


def _omen_revealed(state, ev):
    C.apply_omen_revealed(state, ev.public["deck"])


def _cards_drawn(state, ev):
    deck = state["decks"][ev.public["deck"]]["draw"]
    n = ev.public["count"]
    state["hands"][ev.public["seat"]].extend(deck[:n])
    del deck[:n]


def _threat_stack_dealt(state, ev):
    deck = state["decks"][ev.public["deck"]]["draw"]
    n = ev.public["count"]
    state["stacks"][ev.public["threat"]].extend(deck[:n])
    del deck[:n]


def _card_milled(state, ev):
    deck = state["decks"][ev.public["deck"]]["draw"]
    if deck:
        C.to_trash(state, deck.pop(0))


def _conflict_started(state, ev):
    # The mode modules import this one, so they are imported when first needed.
    from .gambit import new_gambit
    from .throwdown import new_throwdown
    if state["mode"] == "gambit":
        state["gambit"] = new_gambit(state)
        state["phase"] = "threshold"
    else:
        state["throwdown"] = new_throwdown(state)
        state["phase"] = "initiative"


def place_sealed(state: dict, ev: Event, kind: str) -> None:
    """Move a sealed card face down onto the table and note the claim (source) and where it came from."""
    seat, card, source = ev.public["seat"], ev.secret["card"], ev.secret["source"]
    origin = "hand" if card in state["hands"][seat] else "deck"
    if origin == "hand":
        _take(state, seat, card)
    else:
        state["decks"][C.deck_of(card)]["draw"].remove(card)
    state["table"].append({"card": card, "seat": seat, "role": kind, "face_up": False})
    state["sealed"].append({"version": ev.version, "seat": seat, "kind": kind, "card": card, "source": source,
                            "origin": origin, "reveal_version": None})


def sealed_verdict(entry: dict) -> str:
    """A sealed play's bluff verdict: "true" when the card came from where its seat claimed."""
    return "true" if entry["origin"] == entry["source"] else "false"


def mark_revealed(state: dict, ev: Event) -> None:
    """Mark a sealed play revealed by the event carrying its bluff call, and turn its card face up."""
    call = ev.public["bluff_call"]
    for entry in state["sealed"]:
        if entry["version"] == call["claim_version"]:
            entry["reveal_version"] = ev.version
    for entry in state["table"]:
        if entry["card"] == call["card"]:
            entry["face_up"] = True


def _trigger_fired(state, ev):
    t = dict(ev.public["fired"])
    td = state["throwdown"]
    if td is not None and state["phase"] in FIGHTING and t["trigger"] in DAMAGE and not t["immediate"]:
        td["payloads"][side_of(t["by"])].append(t)
    else:
        state["queue"].append(t)


def _trigger_resolved(state, ev):
    apply_resolved(state, ev.public)


def _omen_spent(state, ev):
    for omen in state["decks"][ev.public["deck"]]["omens"]:
        if omen["card"] == ev.public["omen"]:
            omen["spent"] = True


def _cleanup_started(state, ev):
    due = dict(ev.public["discards_due"])
    state["discards_due"] = due
    state["phase"] = "cleanup" if due else "over"


def _cards_discarded(state, ev):
    seat = ev.public["seat"]
    for card in ev.public["cards"]:
        _take(state, seat, card)
        C.to_trash(state, card)
    state["discards_due"].pop(seat, None)
    if not state["discards_due"]:
        state["phase"] = "over"


def _evolvers() -> dict:
    from . import gambit, throwdown_events
    table = {
        "DeckShuffled": _deck_shuffled, "OmenRevealed": _omen_revealed, "CardsDrawn": _cards_drawn,
        "ThreatStackDealt": _threat_stack_dealt,
        "CardMilled": _card_milled, "ConflictStarted": _conflict_started,
        "TriggerFired": _trigger_fired, "TriggerResolved": _trigger_resolved, "OmenSpent": _omen_spent,
        "CleanupStarted": _cleanup_started, "CardsDiscarded": _cards_discarded,
    }
    table.update(gambit.EVOLVERS)
    table.update(throwdown_events.EVOLVERS)
    return table


_TABLE: dict = {}


def evolve(state: dict, event: Event) -> dict:
    """Fold one recorded event into the state; never validates (unknown kinds are ignored)."""
    if not _TABLE:
        _TABLE.update(_evolvers())
    if event.version is not None:
        state["version"] = event.version
    apply = _TABLE.get(event.kind)
    if apply is not None:
        apply(state, event)
    return state
