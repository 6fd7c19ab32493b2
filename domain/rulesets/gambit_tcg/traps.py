"""Setting cards face down, and traps: the secretly declared window, the wait, the activation.

A trap is set for one of the windows its card data names (`windows` in cards.json), so every
set trap can fire; which of them is the owner's secret.

Setting commits the card's identity (and, for a trap, its trigger window) in the `CardSet`
secret, audience the owner. Activating a trap opens that commitment (`opens=(set_version,)`),
so the record proves the window was declared when the trap was set. An activation is not a
bluff call (nobody called anything), so it carries no `bluff_call` entry. The card and its
window go public in the event; the opened commitment (secret and salt of the CardSet record)
sits in the event's secret for organizers (audience `()`) until the match ends, so the salt of a
record a seat could not read never reaches that seat mid-match.
"""

from __future__ import annotations

from domain.ruleset import RuleViolation

from .cards import CARDS, SET_CAP, WINDOWS, trap_windows
from .effects import check_choices, check_opposing_target, play_cost
from .parts import activated_public, opened_secret, set_public, set_secret
from .resolution import resolve
from .responses import after_response
from .scratch import TcgDecision
from .shapes import SetEntry, TcgState, commitment_version, find_set


def check_set(state: TcgState, seat: str, card: str, window: str | None) -> None:
    """Raise RuleViolation unless `seat` may set `card` face down now (a trap needs a window)."""
    player = state["players"][seat]
    if card not in player["hand"]:
        raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand")
    if len(player["set"]) >= SET_CAP:
        raise RuleViolation("set_zone_full", f"the Set Zone holds {SET_CAP} cards")
    if window is not None and window not in WINDOWS:
        raise RuleViolation("unknown_window", f"windows are {list(WINDOWS)}")
    if window is None and CARDS[state["cards"][card]]["type"] == "trap":
        raise RuleViolation("window_required", "declare the trap's trigger window when setting it")
    # Only a trap has windows; a window on another card would be a secret its reveal does not
    # show, so opening the set commitment at the reveal would publish it.
    if window is not None and CARDS[state["cards"][card]]["type"] != "trap":
        raise RuleViolation("window_not_allowed", "only a trap is set with a trigger window")
    own = trap_windows(state["cards"][card])
    if window is not None and window not in own:
        # Trap windows are card data: a trap may be set only for a window its effect can apply in.
        raise RuleViolation("window_not_on_card", f"{CARDS[state['cards'][card]]['name']} answers only {own}")


def set_card(decision: TcgDecision, seat: str, card: str, window: str | None, free: bool = False) -> None:
    """Set a card face down: public that a card was set, secret what it is and its window."""
    state = decision.state
    decision.emit(
        "CardSet", set_public(state, seat, card, free), secret=set_secret(state, card, window), audience=(seat,)
    )


def check_activation(state: TcgState, seat: str, card: str, choices: dict, acting: list[str]) -> tuple[SetEntry, int]:
    """Raise RuleViolation unless `seat` may activate the set trap `card` now; return (set entry, cost)."""
    window = state["window"]
    if window is None:
        raise RuleViolation("no_open_window", "traps are activated only in a trap window")
    owner, entry = find_set(state, card)
    if entry is None or owner != seat:
        raise RuleViolation("card_not_set", f"{card!r} is not in your Set Zone")
    if CARDS[state["cards"][card]]["type"] != "trap":
        raise RuleViolation("not_a_trap", "only traps are activated in a window")
    if entry["ready_turn"] > state["turn"]:
        raise RuleViolation("trap_not_ready", "a trap waits one full turn: not before its owner's next turn")
    if entry["window"] != window["name"]:
        raise RuleViolation("wrong_window", "a trap fires only in the window declared when it was set")
    check_opposing_target(state, seat, card, choices)
    if seat not in acting:
        raise RuleViolation("not_your_turn", "another seat answers this window first")
    check_choices(state, seat, card, choices)
    return entry, play_cost(state, card, entry["revealed"])


def activate_trap(
    decision: TcgDecision,
    seat: str,
    card: str,
    choices: dict,
    energy: tuple,
    discard: tuple,
    entry: SetEntry,
    cost: int,
) -> None:
    """Pay, open the set commitment, resolve the trap; the seat keeps the window while it may respond."""
    state = decision.state
    public = activated_public(state, card, choices, energy, discard)
    version = decision.emit(
        "TrapActivated", public, secret=opened_secret(state, card), audience=(), opens=(commitment_version(entry),)
    )
    resolve(decision, seat, card, choices, play_version=version)
    decision.settle()
    after_response(decision, seat)
