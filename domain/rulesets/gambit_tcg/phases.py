"""What the turn's flow reads off the board: who the match waits for, which units may attack, who a trap window asks.

These are public facts only (the card pool and each trap's windows are public card data; a
face-down card's declared window is never consulted), so who is asked gives nothing away. A
window opens only when some trap of the pool names it and could act in it now. turns.py opens
windows with them, events.py binds a recorded window's responders to them, legal.py and
view.py show them.
"""

from __future__ import annotations

from domain.ruleset import check_game_running, check_seat_in_match, check_seat_to_act

from .cards import CARDS, SEATS, TRAP_IDS, energy_value
from .effects import combine, keywords
from .shapes import TcgState, on_turn, opponent


def awaited(state: TcgState) -> list[str]:
    """Seats the match waits for (legal.to_act): a window's next responder, else whoever the step waits for."""
    if state["result"] is not None:
        return []
    if state["window"] is not None:
        return state["window"]["responders"][:1]
    step = state["step"]
    if step == "free_set":
        return [SEATS[1]]
    if step in ("main", "attack"):
        return [on_turn(state)]
    if step == "blocks":
        return [opponent(state["active"])]
    return []


def check_may_resign(state: TcgState, seat: str) -> None:
    """A seat gives up only while the match waits for it (no seat ever acts unasked), before the end."""
    check_game_running(state["result"] is not None)
    check_seat_in_match(state["seats"], seat)
    check_seat_to_act(seat, awaited(state))


def attack_candidates(state: TcgState, seat: str) -> list[str]:
    """Units of `seat` that may attack now: no Summoning Weakness, or Rush."""
    return [
        u["card"]
        for u in state["players"][seat]["units"]
        if u["entered_turn"] < state["turn"] or "rush" in keywords(state, u)
    ]


def available_payment(state: TcgState, seat: str) -> int:
    """Energy still ready plus cards in hand: the most `seat` could pay now."""
    player = state["players"][seat]
    return sum(energy_value(state["cards"][e["card"]]) for e in player["energy"] if e["ready"]) + len(player["hand"])


def usable_traps(state: TcgState, seat: str, window: str) -> list[str]:
    """Trap ids of the pool that name `window` in their card data and would have a legal choice for `seat` now."""
    return [
        t for t in TRAP_IDS if window in CARDS[t].get("windows", ()) and combine(state, seat, None, CARDS[t]["effects"])
    ]


def may_respond(state: TcgState, seat: str, window: str) -> bool:
    """Whether `seat` gets a say in the trap window `window` — decided on public facts only.

    Some trap of the pool must name the window and have a legal choice for `seat` now (an attack
    trap never answers its own seat's attack); `seat` must be able to pay the cheapest such trap,
    and hold a set card past its one-turn wait that could be one: face down, or a revealed trap
    whose (then public) window is this one. Face-down cards' windows are never consulted, so who
    is asked gives nothing away.
    """
    usable = usable_traps(state, seat, window)
    if not usable or available_payment(state, seat) < min(CARDS[t]["cost"] for t in usable):
        return False
    return any(
        e["ready_turn"] <= state["turn"]
        and (not e["revealed"] or (CARDS[state["cards"][e["card"]]]["type"] == "trap" and e["window"] == window))
        for e in state["players"][seat]["set"]
    )


def window_live(state: TcgState, window: str) -> bool:
    """Whether any trap of the pool that names `window` would have a legal choice now (public: the pool is public)."""
    return any(usable_traps(state, seat, window) for seat in state["seats"])


def window_responders(state: TcgState, window: str) -> list[str]:
    """The seats the trap window `window` opened now asks, in order: the seat not on turn first."""
    active = on_turn(state)
    order = [opponent(active), active]
    return [s for s in order if may_respond(state, s, window)]
