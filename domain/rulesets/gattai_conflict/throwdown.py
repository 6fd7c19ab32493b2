"""The Throwdown: sealed Initiative, draws and swaps, then Drives through stages 1-7 until a Concede.

Phases: `initiative` (both commanders seal) -> `reveal` (either commander turns both face up)
-> `question` (the Coach records the table's answer; the draws) -> `swap` (other pilots give,
the commander gives back as many) -> `turns` (Assists, then one Drive per turn) -> `resolving`
(Payloads resolve) -> cleanup. This module holds the sides, the Strikes and who the Throwdown
waits for; throwdown_rules.py decides its commands, throwdown_events.py declares their events,
event_parts.py builds their parts and state.py folds them.

`throwdown` bookkeeping: `commander`, `stage`, `scores` {pilots, coach}, `turn` (side), `piles`
(the current Pile last; each {stage, cards [{card, side, how}], escalation {scorer, points} |
None}), `strike_base` {pilots, coach}, `bonus` (Assists this turn), `assisted`,
`threat_assists`, `initiative` {side: sealed version}, `to_give`, `returns_due`, `payloads`
{side: triggers it delivers, each kept without the fields every trigger fired at will shares
(`payload_entry`; `delivered_payload` restores the whole records)}, `conceded_by`, `winner`, `called_off`.

Decisions where the seed and the rules page are silent:
- Every pilot of the match is involved; only the commander draws, plays Initiative and Drives.
- `threat_stacks` (the cards invested on the Coach's Threats) are his Bonus Draws, as the seed
  says; they are dealt face down from the Coach Deck at the start.
- The pilots' Strike is fixed when the Throwdown starts (the commander's Steel or Flesh); from
  the Rumble on (stages 4-7, the Rumble card included) it is the Team's Harmony, as the seed's
  "Final Forms have Strike Ranges based on Team Harmony" says. Assists add +1 each for the turn.
- The reveal of the Initiative is its own step (`reveal_initiative`, by either commander, who is
  then the bluff call's caller): a ruling can open only a commitment already in the record, and
  the second sealing is recorded by the same command that would otherwise reveal it. The match
  waits for the Coach to reveal (`to_act`); the pilot commander may reveal instead (`may_act`).
- Initiative compares rank, then suit, with no Ace/Two exception (there is no Pile yet).
  Identical cards go to their Trash and both seal again; if either hand is then empty the
  Throwdown is called off (the seed's other option): no winner, Payloads still resolve.
- An Escalate or Rumble card need not beat the old top; it only may not exceed it by more than
  the Coach's Strike, and a pilot's excess over her Strike is Dissonance, as for a Counter.
- A Dissonance Schism is aimed at (and may be buffered by) the commander; with both the Coach
  Deck and its Trash empty there is no flip and no Schism.
- A Payload is what a side delivers: damage triggers fired by that side's seats during the
  Throwdown. At the end the loser's Payload resolves first; when called off, the Coach's first.
- Coach Threat Assists (seed, marked TBD): discard a face card for a Wave, an Ace for a Storm,
  once per Threat per turn; each is recorded as that +Trigger.
- An Assist is optional: on the pilots' turn the match waits for the commander's Drive only, and
  the pilots who may still Assist are in `may_act`.
"""

from __future__ import annotations

from typing import Literal, cast

from .cards import ACE, is_face, rank
from .commands import THROWDOWN_PHASES
from .config import COACH
from .shapes import FiredTrigger, GattaiState, PayloadEntry, PileCard, Side, Stat, ThrowdownState, throwdown_of

# Phases in which a Throwdown's damage waits in a Payload instead of resolving at once (the
# Throwdown itself runs: story triggers may be fired): those its commands are declared in.
FIGHTING = tuple(THROWDOWN_PHASES)
# House bound (the seed sets none): a side's Payload holds at most this many triggers its seats
# fired with `record_trigger`, so the pending Payload — state every command loads — cannot be grown
# without limit by firing story triggers at will. Triggers a card's outcome imposes still go in.
PAYLOAD_LIMIT = 12
# What every trigger fired with `record_trigger` records besides its name, target and firing
# seat: a Payload entry leaves these out, and the firing seat when it is the side's commander
# (`payload_entry`).
FIRED_AT_WILL = {"amount": 1, "full": False, "source": "story", "immediate": False}


def payload_entry(state: GattaiState, fired: FiredTrigger, side: Side) -> PayloadEntry:
    """A fired trigger as its side's Payload keeps it: only what `delivered_payload` cannot restore.

    Every trigger a seat fires at will has the same amount, `full`, source and `immediate`, and
    most come from the side's commander; the Payload is state every command loads, so an entry
    keeps the trigger, its target and only what differs from those (the event keeps the whole record).
    """
    implied = _implied(state, side)
    # The trigger and its target are never implied, so the entry has the keys PayloadEntry requires.
    return cast(
        PayloadEntry, {key: value for key, value in fired.items() if key not in implied or implied[key] != value}
    )


def delivered_payload(state: GattaiState, side: Side) -> list[FiredTrigger]:
    """A side's Payload as whole trigger records, in the order they resolve (an entry kept whole,
    as a snapshot taken before entries were trimmed holds it, passes unchanged)."""
    implied = _implied(state, side)
    # An entry and what it left out are a whole trigger record again.
    return [cast(FiredTrigger, {**implied, **entry}) for entry in throwdown_of(state)["payloads"][side]]


def deliver_payloads(state: GattaiState, order: list[Side]) -> None:
    """The Throwdown's end (or a resignation during it): each side's Payload joins the trigger queue, in `order`."""
    td = throwdown_of(state)
    for side in order:
        state["queue"].extend(delivered_payload(state, side))
        td["payloads"][side] = []


def _implied(state: GattaiState, side: Side) -> dict[str, object]:
    """What a Payload entry of this side leaves out: the shared fields and the side's commander."""
    return {**FIRED_AT_WILL, "by": driver(state, side)}


def side_of(seat: str) -> Side:
    """The Throwdown side a seat fights on."""
    return "coach" if seat == COACH else "pilots"


def payload_full(state: GattaiState, seat: str) -> bool:
    """Whether the Payload of `seat`'s side holds the most triggers `record_trigger` may add to it."""
    td = state["throwdown"]
    return td is not None and state["phase"] in FIGHTING and len(td["payloads"][side_of(seat)]) >= PAYLOAD_LIMIT


def other_side(side: str | None) -> Side:
    """The opposing side."""
    return "pilots" if side == "coach" else "coach"


def new_throwdown(state: GattaiState) -> ThrowdownState:
    """The Throwdown's bookkeeping at its start, with the Strikes fixed."""
    cfg = state["config"]
    commander = cfg["commander"]
    stat: Stat = "steel" if cfg["started_by"] == "pilots" else "flesh"
    ratings = sorted(state["threats"].values(), reverse=True)
    return {
        "commander": commander,
        "started_by": cfg["started_by"],
        "stage": 1,
        "scores": {"pilots": 0, "coach": 0},
        "turn": None,
        "turns_taken": 0,
        "piles": [],
        "strike_base": {"pilots": state["team"][commander][stat], "coach": ratings[0] + len(ratings) - 1},
        "bonus": 0,
        "assisted": [],
        "threat_assists": {},
        "initiative": {"pilots": None, "coach": None},
        "initiative_rounds": 0,
        "for_team": None,
        "to_give": [],
        "returns_due": {},
        "payloads": {"pilots": [], "coach": []},
        "conceded_by": None,
        "winner": None,
        "called_off": False,
    }


def driver(state: GattaiState, side: str | None) -> str:
    """The seat that plays a side's Initiative and Drives."""
    return COACH if side == "coach" else throwdown_of(state)["commander"]


def strike(state: GattaiState, side: str, stage: int | None = None) -> int:
    """A side's Strike for a card entering `stage` (default the current one), Assists included."""
    td = throwdown_of(state)
    stage = td["stage"] if stage is None else stage
    if side == "coach":
        return td["strike_base"]["coach"]
    base = state["harmony"] if stage >= 4 else td["strike_base"]["pilots"]
    return base + td["bonus"]


def top(state: GattaiState) -> PileCard:
    """The winning card: the top entry of the current Pile."""
    return throwdown_of(state)["piles"][-1]["cards"][-1]


def may_assist(state: GattaiState, seat: str) -> bool:
    """Whether another involved pilot may still Assist this turn (a card to discard, a charge to spend)."""
    td = throwdown_of(state)
    return (
        state["phase"] == "turns"
        and td["turn"] == "pilots"
        and seat in state["pilots"]
        and seat != td["commander"]
        and seat not in td["assisted"]
        and bool(state["hands"][seat])
        and state["team"][seat]["charges"] > 0
    )


def threat_assist_kind(card: str) -> Literal["wave", "storm"] | None:
    """What a discarded card lets a Threat activate: a face card a Wave, an Ace a Storm."""
    if is_face(card):
        return "wave"
    if rank(card) == ACE:
        return "storm"
    return None


def awaited(state: GattaiState) -> list[str]:
    """Who the Throwdown waits for in its current phase (never a seat whose action is optional)."""
    td, phase = throwdown_of(state), state["phase"]
    if phase == "initiative":
        return [driver(state, s) for s in ("coach", "pilots") if td["initiative"][s] is None]
    if phase in ("question", "reveal"):
        return [COACH]
    if phase == "swap":
        return sorted(set(td["to_give"]) | ({td["commander"]} if td["returns_due"] else set()))
    if phase == "turns":
        return [driver(state, td["turn"])]
    return []


def actors(state: GattaiState) -> list[str]:
    """Who may send the Throwdown's commands now: the seats it waits for, then the optional ones
    (the pilot commander's reveal, the Assists)."""
    td, phase = throwdown_of(state), state["phase"]
    if phase == "reveal":
        return [COACH, td["commander"]]
    if phase == "turns" and td["turn"] == "pilots":
        return [*awaited(state), *(p for p in state["pilots"] if may_assist(state, p))]
    return awaited(state)
