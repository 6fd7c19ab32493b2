"""Player Powers (`player_powers: true`, rules page "Player Powers"): earning them, and their use.

- **Earning.** When a turn closes, `end_turn` notes every piece that now stands on its seat's far
  row (sat on or not) and did not when the turn began (`earnings_owed`); decide follows the
  closing event with one public `PlayerPowerEarned` per piece. In roll mode it carries a public
  d6 (1 Sensei, 2 Magician, 3 Juggernaut, 4 Witch Doctor); in select mode, or on a wild 5–6, the
  power is `null` and the seat owes a `choose_player_power` step before play goes on.
- **Sensei** (a whole turn): `SenseiClaimed` is a claim answered like a move (accept or
  `call_bluff` on `sensei`); its ruling is a `bluff_call` like every other (bluffs.py). Accepted,
  the powers the source really holds of those named move (a bluffed power is not created); true,
  all move; false, nothing moves. Each moved type's slots of both pieces are committed anew.
- **Magician** (a whole turn): `MagicianSwapped` exchanges two unsat pieces' squares, in public;
  no claim, no window, and the arriving piece neither sits nor triggers a kamikaze or a moat.
- **Juggernaut**: decide offers it (`JuggernautOffered`) when a turn closes on a far-row win whose
  loser holds one and the winner has not also won on captures; the holder's next turn is one
  move only (or `decline_juggernaut`), after which the win holds or is void.
- **Witch Doctor** (instead of an answer to a move with claims): `WitchDoctorSwapped`; the
  responder's piece gives every power it holds and receives the claimed ones; the mover loses
  what it claimed and really held, and takes what it receives (same type replaces). The swap's
  secret holds only what both seats know: the powers given (the responder gave them, the mover's
  piece received them). Each piece's new powers are its owner's alone: the slot records that
  follow (both types of both pieces, whatever was really held) are each for that piece's seat,
  so the responder never learns the mover's other powers nor whether the claim was true.
Held Player Powers are public (the seed: "powers received must be announced"); each is spent
when used (a Juggernaut when offered: declining ends the match anyway).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from domain.decision import Decision
from domain.ruleset import Event, RuleViolation, chance_event

from .board import locate
from .commitments import owe, owed_after_swap, owed_after_transfer
from .flow import (
    SEATS,
    advance,
    captured_enough,
    check_opposing_piece,
    check_own_piece,
    end_turn,
    opponent,
    pending_of,
    start_turn,
    turn_of,
    winner,
)
from .payloads import (
    JuggernautOffered,
    MagicianSwapped,
    PlayerPowerChosen,
    PlayerPowerEarned,
    SenseiClaimed,
    WitchDoctorSwapped,
)
from .powers import (
    DIE_SIDES,
    PLAYER_POWERS,
    POWER_TYPES,
    SENSEI,
    TYPES,
    check_named_powers,
    held,
    no_powers,
    player_power_face,
)

if TYPE_CHECKING:
    from .shapes import BoardState, Pending, PowerSlots, Step

MAGICIAN, JUGGERNAUT, WITCH_DOCTOR = "magician", "juggernaut", "witch_doctor"


def enabled(state: BoardState) -> bool:
    """Whether the match plays the Player Powers variant."""
    return bool(state["config"].get("player_powers"))


def holdings(state: BoardState, seat: str) -> list[str]:
    """The seat's unspent Player Powers, in the order earned (public)."""
    return list(state.get("player_powers", {}).get(seat, []))


def _gain(state: BoardState, seat: str, power: str) -> None:
    state.setdefault("player_powers", {s: [] for s in SEATS})[seat].append(power)


def _spend(state: BoardState, seat: str, power: str) -> None:
    owned = state.setdefault("player_powers", {s: [] for s in SEATS})[seat]
    if power in owned:
        owned.remove(power)


# ---- checks shared by decide and legal_commands -------------------------------------------


def check_player_power(state: BoardState, seat: str, power: str) -> None:
    """The variant is on and the seat holds an unspent Player Power of this name."""
    if not enabled(state):
        raise RuleViolation("player_powers_off", "this match is played without Player Powers")
    if power not in holdings(state, seat):
        raise RuleViolation("player_power_not_held", f"you hold no unspent {power} Player Power")


def check_whole_turn(state: BoardState) -> None:
    """A detect, Sensei or Magician takes a whole turn; a Juggernaut turn is one more move and nothing else."""
    if turn_of(state).get("juggernaut"):
        raise RuleViolation("juggernaut_move_only", "a Juggernaut turn is one move (or decline_juggernaut)")


def check_transfer_powers(powers: tuple[str, ...]) -> None:
    """The powers a Sensei names: at least one, real, none twice, at most one of each type."""
    if not powers:
        raise RuleViolation("no_powers_named", "name at least one power to move")
    check_named_powers(powers, "named")


def check_sensei(state: BoardState, seat: str, source: str, target: str, powers: tuple[str, ...]) -> None:
    """Sensei: your Player Power, in a whole turn, from one of your pieces to another, naming powers to move."""
    check_player_power(state, seat, SENSEI)
    check_whole_turn(state)
    check_own_piece(state, seat, source)
    check_own_piece(state, seat, target)
    if source == target:
        raise RuleViolation("same_piece", "a Sensei moves powers to another piece")
    check_transfer_powers(powers)


def _on_top(state: BoardState, piece: str) -> bool:
    square, index = locate(state["board"])[piece]
    return index == len(state["board"][square]) - 1


def check_magician(state: BoardState, seat: str, piece: str, target: str) -> None:
    """Magician: your Player Power, in a whole turn, on your piece and an opposing piece, neither sat on."""
    check_player_power(state, seat, MAGICIAN)
    check_whole_turn(state)
    check_own_piece(state, seat, piece)
    check_opposing_piece(state, seat, target)
    if not _on_top(state, piece):
        raise RuleViolation("piece_is_sat_on", f"{piece} has a piece on top of it")
    if not _on_top(state, target):
        raise RuleViolation("target_is_sat_on", f"{target} has a piece on top of it")


def check_witch_doctor(state: BoardState, seat: str, piece: str) -> None:
    """Witch Doctor: your Player Power, answering a move that claimed powers, with your piece that holds some."""
    check_player_power(state, seat, WITCH_DOCTOR)
    pending = pending_of(state)
    if pending["kind"] != "move":
        raise RuleViolation("not_a_move", "a Witch Doctor answers a move")
    if not pending["claims"]:
        raise RuleViolation("nothing_claimed", "the move claimed no powers to swap with")
    check_own_piece(state, seat, piece)
    if not held(state["powers"][piece]):
        raise RuleViolation("nothing_to_swap", f"{piece} holds no power to give")


def check_decline(state: BoardState) -> None:
    """Declining is the Juggernaut holder's alternative to its one more move."""
    if not turn_of(state).get("juggernaut") or winner(state) is None:
        raise RuleViolation("no_juggernaut_pending", "no Juggernaut move is awaited")


def check_player_power_choice(power: str) -> None:
    """An earned Player Power is named among the four."""
    if power not in PLAYER_POWERS:
        raise RuleViolation("unknown_player_power", f"choose one of {list(PLAYER_POWERS)}")


# ---- event parts (decide builds them; derived_public and derived_secret restate them) -------


def earned_public(state: BoardState, roll: int | None) -> dict:
    """The public part of the next owed earning: whose piece, where it arrived, and the power (None: to choose)."""
    seat, piece = state["earnings_owed"][0]
    return {
        "seat": seat,
        "piece": piece,
        "square": locate(state["board"])[piece][0],
        "power": None if roll is None else player_power_face(roll),
    }


def sensei_public(seat: str, source: str, target: str, powers: Iterable[str]) -> dict:
    """The public part of a Sensei claim: the seat, both pieces and the powers it names."""
    return {"seat": seat, "source": source, "target": target, "powers": list(powers)}


def magician_public(state: BoardState, seat: str | None, piece: str, target: str) -> dict:
    """The public part of a Magician swap: both pieces and the squares they leave."""
    where = locate(state["board"])
    return {
        "seat": seat,
        "piece": piece,
        "target": target,
        "piece_square": where[piece][0],
        "target_square": where[target][0],
    }


def witch_doctor_public(state: BoardState, seat: str | None, piece: str) -> dict:
    """The public part of a Witch Doctor swap: the responder's piece, the mover and the claimed powers it receives."""
    pending = pending_of(state)
    return {
        "seat": seat,
        "piece": piece,
        "mover": pending["piece"],
        "received": list(pending["claims"]),
        "against_version": pending["version"],
    }


def witch_doctor_secret(state: BoardState, piece: str) -> dict:
    """The secret of a Witch Doctor swap, for both seats: the powers the responder's piece gives (and the mover's receives)."""
    # Nothing of the mover's piece beyond the public claims: what it keeps, and whether it
    # really held what it claimed, are its owner's (its slot records say it, to its seat alone).
    return {"given": held(state["powers"][piece])}


def witch_doctor_swap(state: BoardState, piece: str, pending: Pending) -> tuple[PowerSlots, PowerSlots]:
    """What a Witch Doctor swap makes of both pieces, the responder's and the mover's (the organizers' truth)."""
    mover, claims = pending["piece"], pending["claims"]
    given = held(state["powers"][piece])
    piece_powers = no_powers()
    mover_powers = dict(state["powers"][mover])
    for claim in claims:
        piece_powers[POWER_TYPES[claim]] = claim  # received, real even when it was a bluff
        if mover_powers[POWER_TYPES[claim]] == claim:
            mover_powers[POWER_TYPES[claim]] = None  # a really held claimed power leaves the mover
    for power in given:
        mover_powers[POWER_TYPES[power]] = power
    return piece_powers, mover_powers


def juggernaut_holder(state: BoardState, won: tuple[str, str] | None) -> str | None:
    """The seat that may answer this win with a Juggernaut move: the loser of a far-row win that holds one."""
    if won is None or not enabled(state):
        return None
    seat, reason = won
    holder = opponent(seat)
    if reason != "far_row" or captured_enough(state, seat) or JUGGERNAUT not in holdings(state, holder):
        return None
    return holder


def juggernaut_public(state: BoardState) -> dict:
    """The public part of a Juggernaut offer: the holder and the seat whose far-row win it answers."""
    won = winner(state)
    seat = won[0] if won is not None else None
    return {"seat": None if seat is None else opponent(seat), "winner": seat}


def record_owed_earnings(play: Decision[BoardState]) -> None:
    """Emit one `PlayerPowerEarned` per piece newly on its far row as the turn closed (decide side)."""
    while play.state.get("earnings_owed"):
        if play.state["config"]["power_mode"] == "roll":
            drawn = play.chance.roll(play.purpose("player-power"), DIE_SIDES)
            play.add(chance_event("PlayerPowerEarned", drawn, earned_public(play.state, drawn.result)))
        else:
            play.emit("PlayerPowerEarned", earned_public(play.state, None))


# ---- evolve side ------------------------------------------------------------------------------


def _interpose(state: BoardState, step: Step) -> None:
    """Put an owed choice before the turn that just began (after any choice already owed)."""
    if state["step"] is not None and state["step"]["kind"] == "turn":
        state["queue"].insert(0, {"kind": "retry"})
        state["step"] = step
    else:
        state["queue"].insert(max(len(state["queue"]) - 1, 0), step)


def fold_earned(state: BoardState, earned: PlayerPowerEarned, event: Event) -> None:
    """An earning: the power is held at once, or the seat owes its choice before play goes on."""
    owed = state.get("earnings_owed") or []
    if owed:
        owed.pop(0)
    if earned.power is not None:
        _gain(state, earned.seat, earned.power)
    else:
        _interpose(state, {"kind": "earn", "seat": earned.seat, "piece": earned.piece, "earned_version": event.version})


def fold_chosen(state: BoardState, chosen: PlayerPowerChosen, event: Event) -> None:
    """The earned power is named: it is held, and the next owed step (or the turn) follows."""
    _gain(state, chosen.seat, chosen.power)
    advance(state)


def fold_sensei_claimed(state: BoardState, claimed: SenseiClaimed, event: Event) -> None:
    """The Sensei is spent and its claim awaits the opponent's answer."""
    _spend(state, claimed.seat, SENSEI)
    state["claims"].append(
        {
            "version": event.version,
            "seat": claimed.seat,
            "kind": "sensei",
            "piece": claimed.source,
            "target": claimed.target,
            "powers": list(claimed.powers),
            "claims": [SENSEI],
        }
    )
    state["pending"] = {
        "version": event.version,
        "seat": claimed.seat,
        "kind": "sensei",
        "piece": claimed.source,
        "target": claimed.target,
        "powers": list(claimed.powers),
        "claims": [SENSEI],
        "plan": None,
        "counter": None,
    }
    state["step"] = {"kind": "respond", "seat": opponent(claimed.seat)}


def apply_transfer(state: BoardState) -> None:
    """A Sensei transfer that stands: each named power the source really holds moves, replacing the target's."""
    pending = pending_of(state)
    source, target = pending["piece"], pending["target"]
    for power in pending["powers"]:
        kind = POWER_TYPES[power]
        if state["powers"][source][kind] == power:
            state["powers"][target][kind] = power
            state["powers"][source][kind] = None
    # Committed anew either way, so the records never tell whether the claim was a bluff.
    kinds = tuple(kind for kind in TYPES if any(POWER_TYPES[p] == kind for p in pending["powers"]))
    owe(state, *owed_after_transfer(source, target, kinds))


def fold_magician(state: BoardState, swapped: MagicianSwapped, event: Event) -> None:
    """The Magician is spent, the two pieces trade places on their stacks, and the turn passes."""
    _spend(state, swapped.seat, MAGICIAN)
    board, where = state["board"], locate(state["board"])
    board[where[swapped.piece][0]][-1] = swapped.target
    board[where[swapped.target][0]][-1] = swapped.piece
    state["claims"].append(
        {
            "version": event.version,
            "seat": swapped.seat,
            "kind": "magician",
            "piece": swapped.piece,
            "target": swapped.target,
            "claims": [],
        }
    )
    end_turn(state)


def fold_witch_doctor(state: BoardState, swapped: WitchDoctorSwapped, event: Event) -> None:
    """The Witch Doctor is spent, both pieces take their new powers (committed anew), and the move stands."""
    pending = pending_of(state)
    if pending is None:  # a swap answers the pending move: never so in a recorded match
        return
    _spend(state, swapped.seat, WITCH_DOCTOR)
    mover = pending["piece"]
    state["powers"][swapped.piece], state["powers"][mover] = witch_doctor_swap(state, swapped.piece, pending)
    owe(state, *owed_after_swap(swapped.piece))
    owe(state, *owed_after_swap(mover))
    state["claims"].append(
        {
            "version": event.version,
            "seat": swapped.seat,
            "kind": "witch_doctor",
            "piece": swapped.piece,
            "mover": mover,
            "claims": [],
        }
    )
    end_turn(state)


def fold_juggernaut_offered(state: BoardState, offered: JuggernautOffered, event: Event) -> None:
    """The Juggernaut is spent and its holder's turn is one more move (after any earning still to be named)."""
    holder = offered.seat
    _spend(state, holder, JUGGERNAUT)
    step = state["step"]
    start_turn(state, holder, turn_of(state)["number"], juggernaut=True)
    if step is not None and step["kind"] != "turn":
        state["step"] = step  # an owed choice comes first; the queue then resumes this turn
