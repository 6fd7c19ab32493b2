"""Who the match waits for, and every command a seat may send now.

The legal moves reuse decide's named checks (check_set, check_play, check_activation and the
option lists of effects.py, play.py and combat.py), so what they offer is exactly what decide
accepts (resign: `phases.check_may_resign`). Every action of gambit-tcg is one the match waits for: a trap window asks its
responders one at a time and only the seat it is asking may activate a trap, so no seat ever
acts unasked and `may_act` is always empty.
"""

from __future__ import annotations

from domain.choices import Choice, collapse, one_of, subset_of
from domain.ruleset import RuleViolation, passes

from .cards import CARDS, ENERGY_CAP, WINDOWS
from .combat import block_choices
from .commands import ActivateTrap, DeclareAttack, EndPhase, Energize, Pass, PlayCard, Resign, SetCard
from .effects import CHOICE_FIELDS, choice_options
from .phases import attack_candidates, awaited, check_may_resign
from .play import check_play, item_hosts, payment_domains
from .shapes import TcgState, opponent
from .traps import check_activation, check_set


def to_act(state: TcgState) -> list[str]:
    """Seats the match waits for: a window's next responder, else whoever the step waits for."""
    return awaited(state)


def may_act(state: TcgState) -> list[str]:
    """Seats not waited for that may act now: none, every action of gambit-tcg is awaited (see above)."""
    return []


def resigners(state: TcgState) -> list[str]:
    """The seats that may give up now: exactly the seat the match waits for (`check_may_resign`)."""
    return [seat for seat in state["seats"] if passes(check_may_resign, state, seat)]


def legal_commands(state: TcgState, seat: str) -> list:
    """Every whole command `seat` may send now; the families too large to list are legal_choices."""
    return collapse(_legal_options(state, seat))[0]


def legal_choices(state: TcgState, seat: str) -> list[Choice]:
    """The families of `seat`'s legal commands: payments, block assignments, attacks, set windows."""
    return collapse(_legal_options(state, seat))[1]


def _legal_options(state: TcgState, seat: str) -> list:
    """Every legal command of `seat` now, as whole commands and choices (see domain/choices.py)."""
    if seat not in to_act(state):
        return []
    resign = [Resign()] if passes(check_may_resign, state, seat) else []
    return _moves(state, seat) + resign


def _moves(state: TcgState, seat: str) -> list:
    """The moves of the game itself that `seat`, whom the match waits for, may make now."""
    if state["window"] is not None:
        return [Pass()] + _trap_activations(state, seat)
    step = state["step"]
    hand = state["players"][seat]["hand"]
    if step == "free_set":
        return [Pass()] + _sets(state, seat)
    if step == "attack":
        attackers = attack_candidates(state, seat)
        return [
            Choice(
                DeclareAttack,
                {},
                {"attackers": subset_of(attackers, 0, len(attackers)), "target_player": one_of([None, opponent(seat)])},
            )
        ]
    if step == "blocks":
        return list(block_choices(state, seat))
    if step != "main":
        return []
    out: list = [EndPhase()]
    player = state["players"][seat]
    if not player["energized"] and len(player["energy"]) < ENERGY_CAP:
        out += [Energize(c) for c in hand]
    out += _sets(state, seat)
    out += _plays(state, seat)
    return out


def _sets(state: TcgState, seat: str) -> list[Choice]:
    """Each settable hand card with the windows check_set lets it declare (none for a card that is no trap)."""
    out = []
    for card in state["players"][seat]["hand"]:
        windows = [w for w in (None, *WINDOWS) if passes(check_set, state, seat, card, w)]
        if windows:
            out.append(Choice(SetCard, {"card": card}, {"window": one_of(windows)}))
    return out


def _paid(
    command_cls: type[PlayCard | ActivateTrap], state: TcgState, seat: str, card: str, cost: int, options: list[dict]
) -> list[Choice]:
    """Each choice of effects with each family of minimal payments."""
    return [
        Choice(command_cls, {"card": card, **choice}, payment)
        for choice in options
        for payment in payment_domains(state, seat, cost, card)
    ]


def _plays(state: TcgState, seat: str) -> list[Choice]:
    """Each card `seat` may play from hand or Set Zone, with its legal choices and payments."""
    player = state["players"][seat]
    candidates = list(player["hand"]) + [e["card"] for e in player["set"]]
    out = []
    for card in candidates:
        kind = CARDS[state["cards"][card]]["type"]
        if kind == "trap":
            continue
        if kind == "item":
            options = [{**dict.fromkeys(CHOICE_FIELDS), "target": h} for h in item_hosts(state, seat, card)]
        elif kind == "field":
            options = [dict.fromkeys(CHOICE_FIELDS)]
        else:
            options = choice_options(state, seat, card)
        if not options:
            continue
        try:
            _, _, cost = check_play(state, seat, card, options[0])
        except RuleViolation:
            continue
        out += _paid(PlayCard, state, seat, card, cost, options)
    return out


def _trap_activations(state: TcgState, seat: str) -> list[Choice]:
    """Each set trap `seat` may activate in the open window, with its legal choices and payments."""
    out = []
    for entry in state["players"][seat]["set"]:
        card = entry["card"]
        if CARDS[state["cards"][card]]["type"] != "trap":
            continue
        options = choice_options(state, seat, card)
        if not options:
            continue
        try:
            _, cost = check_activation(state, seat, card, options[0], to_act(state))
        except RuleViolation:
            continue
        out += _paid(ActivateTrap, state, seat, card, cost, options)
    return out
