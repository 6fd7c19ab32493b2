"""The Throwdown: sealed Initiative, draws and swaps, then Drives through stages 1-7 until a Concede.

Phases: `initiative` (both commanders seal) -> `reveal` (either commander turns both face up)
-> `question` (the Coach records the table's answer; the draws) -> `swap` (other pilots give,
the commander gives back as many) -> `turns` (Assists, then one Drive per turn) -> `resolving` (Payloads resolve) -> cleanup. This module
decides and lists commands; throwdown_events.py folds the events into the state.

`throwdown` bookkeeping: `commander`, `stage`, `scores` {pilots, coach}, `turn` (side), `piles`
(the current Pile last; each {stage, cards [{card, side, how}], escalation {scorer, points} |
None}), `strike_base` {pilots, coach}, `bonus` (Assists this turn), `assisted`,
`threat_assists`, `initiative` {side: sealed version}, `to_give`, `returns_due`, `payloads`
{side: triggers it delivers}, `conceded_by`, `winner`, `called_off`.

Decisions where the seed and the rules page are silent:
- Every pilot of the match is involved; only the commander draws, plays Initiative and Drives.
- `threat_stacks` (the cards invested on the Coach's Threats) are his Bonus Draws, as the seed
  says; they are dealt face down from the Coach Deck at the start.
- The pilots' Strike is fixed when the Throwdown starts (the commander's Steel or Flesh); from
  the Rumble on (stages 4-7, the Rumble card included) it is the Team's Harmony, as the seed's
  "Final Forms have Strike Ranges based on Team Harmony" says. Assists add +1 each for the turn.
- The reveal of the Initiative is its own step (`reveal_initiative`, by either commander, who is
  then the bluff call's caller): a ruling can open only a commitment already in the record, and
  the second sealing is recorded by the same command that would otherwise reveal it.
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
"""

from __future__ import annotations

from domain.choices import Choice, subset_of
from domain.ruleset import RuleViolation

from . import cards as C
from .commands import (
    COACH, AnswerQuestion, Assist, Block, Concede, Counter, Escalate, GiveCards, ReturnCards, RevealInitiative, Rumble,
    SealInitiative, ThreatAssist,
)
from .hidden import INITIATIVE_SOURCE, sealed_secret, stacks_secret
from .state import other_side, sealed_verdict, side_of
from .team import trigger

def new_throwdown(state: dict) -> dict:
    """The Throwdown's bookkeeping at its start, with the Strikes fixed."""
    cfg = state["config"]
    commander = cfg["commander"]
    stat = "steel" if cfg["started_by"] == "pilots" else "flesh"
    ratings = sorted(state["threats"].values(), reverse=True)
    return {
        "commander": commander, "started_by": cfg["started_by"], "stage": 1, "scores": {"pilots": 0, "coach": 0},
        "turn": None, "turns_taken": 0, "piles": [],
        "strike_base": {"pilots": state["team"][commander][stat], "coach": ratings[0] + len(ratings) - 1},
        "bonus": 0, "assisted": [], "threat_assists": {}, "initiative": {"pilots": None, "coach": None},
        "initiative_rounds": 0, "for_team": None, "to_give": [], "returns_due": {},
        "payloads": {"pilots": [], "coach": []}, "conceded_by": None, "winner": None, "called_off": False,
    }


def driver(state: dict, side: str) -> str:
    """The seat that plays a side's Initiative and Drives."""
    return COACH if side == "coach" else state["throwdown"]["commander"]


def strike(state: dict, side: str, stage: int | None = None) -> int:
    """A side's Strike for a card entering `stage` (default the current one), Assists included."""
    td = state["throwdown"]
    stage = td["stage"] if stage is None else stage
    if side == "coach":
        return td["strike_base"]["coach"]
    base = state["harmony"] if stage >= 4 else td["strike_base"]["pilots"]
    return base + td["bonus"]


def top(state: dict) -> dict:
    """The winning card: the top entry of the current Pile."""
    return state["throwdown"]["piles"][-1]["cards"][-1]


def may_assist(state: dict, seat: str) -> bool:
    """Whether another involved pilot may still Assist this turn (a card to discard, a charge to spend)."""
    td = state["throwdown"]
    return (state["phase"] == "turns" and td["turn"] == "pilots" and seat in state["pilots"]
            and seat != td["commander"] and seat not in td["assisted"] and bool(state["hands"][seat])
            and state["team"][seat]["charges"] > 0)


def threat_assist_kind(card: str) -> str | None:
    """What a discarded card lets a Threat activate: a face card a Wave, an Ace a Storm."""
    if C.is_face(card):
        return "wave"
    if C.rank(card) == C.ACE:
        return "storm"
    return None


def awaited(state: dict) -> list[str]:
    """Who the Throwdown waits for in its current phase."""
    td, phase = state["throwdown"], state["phase"]
    if phase == "initiative":
        return [driver(state, s) for s in ("coach", "pilots") if td["initiative"][s] is None]
    if phase == "question":
        return [COACH]
    if phase == "reveal":
        return [COACH, td["commander"]]
    if phase == "swap":
        return sorted(set(td["to_give"]) | ({td["commander"]} if td["returns_due"] else set()))
    if phase == "turns":
        seats = [driver(state, td["turn"])]
        if td["turn"] == "pilots":
            seats += [p for p in state["pilots"] if may_assist(state, p)]
        return seats
    return []


# ----- shared predicates (decide and legal_commands) --------------------------------------------

def counter_ok(state: dict, side: str, card: str) -> bool:
    """Whether `card` is a legal Counter now: beats the top, and within Strike for the Coach."""
    over = top(state)["card"]
    if not C.counters(card, over):
        return False
    return side != "coach" or C.excess(card, over) <= strike(state, side)


def block_ok(state: dict, card: str) -> bool:
    """Whether `card` may Block the winning card (never the Initiative card or a Rumble card)."""
    entry = top(state)
    return entry["how"] not in ("initiative", "rumble") and C.blocks(card, entry["card"])


def escalation_ok(state: dict, side: str, card: str, into: int) -> bool:
    """Whether `card` may start stage `into`: the Coach stays within Strike of the old top."""
    return side != "coach" or C.excess(card, top(state)["card"]) <= strike(state, side, into)


def _check_turn(state: dict, seat: str) -> str:
    side = side_of(seat)
    if state["throwdown"]["turn"] != side or driver(state, side) != seat:
        raise RuleViolation("not_your_turn", "only the side's commander drives, on her side's turn")
    return side


def _check_in_hand(state: dict, seat: str, card: str) -> None:
    if card not in state["hands"][seat]:
        raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand")


# ----- decide: initiative, question, swap -------------------------------------------------------

def seal_initiative(sim, seat: str, cmd: SealInitiative) -> None:
    """Seal an Initiative card face down; the other commander's commitment may already be recorded."""
    state = sim.state
    side = side_of(seat)
    if driver(state, side) != seat:
        raise RuleViolation("not_commander", "only the commanders play Initiative")
    if state["throwdown"]["initiative"][side] is not None:
        raise RuleViolation("already_sealed", "your Initiative card is already sealed")
    _check_in_hand(state, seat, cmd.card)
    sim.emit("InitiativeSealed", {"seat": seat, "sealed_play": "initiative"},
             sealed_secret(cmd.card, INITIATIVE_SOURCE), (seat,))


def initiative_entries(state: dict) -> list[dict]:
    """The two sealed plays of this Initiative round, in the order they were sealed."""
    sealed = state["throwdown"]["initiative"].values()
    return sorted((e for e in state["sealed"] if e["version"] in sealed), key=lambda e: e["version"])


def initiative_contest(state: dict) -> tuple[dict, str | None, bool]:
    """(cards by side, winning side or None, identical) of the sealed Initiative cards: rank, then suit."""
    cards = {side_of(e["seat"]): e["card"] for e in initiative_entries(state)}
    pc, cc = cards["pilots"], cards["coach"]
    identical = C.rank_then_suit(pc) == C.rank_then_suit(cc)
    winner = None if identical else ("pilots" if C.rank_then_suit(pc) > C.rank_then_suit(cc) else "coach")
    return cards, winner, identical


def initiative_call(state: dict, seat: str, caller: str, call_version: int) -> dict:
    """The bluff call the reveal of `seat`'s sealed Initiative card makes (either commander may call)."""
    version = state["throwdown"]["initiative"][side_of(seat)]
    entry = next(e for e in state["sealed"] if e["version"] == version)
    _, winner, identical = initiative_contest(state)
    return {"claim_version": entry["version"], "claimant": entry["seat"], "caller": caller,
            "call_version": call_version, "verdict": sealed_verdict(entry), "kind": "initiative",
            "card": entry["card"], "source": entry["source"],
            "consequences": {"initiative_winner": winner, "identical": identical}}


def initiative_resolved_public(state: dict) -> dict:
    """The public part of resolving the revealed Initiative cards: who wins, by how much, and against which Strike."""
    cards, winner, identical = initiative_contest(state)
    both = {"pilots": cards["pilots"], "coach": cards["coach"]}
    if identical:
        return {"winner": None, "identical": True, "cards": both}
    over = C.excess(cards[winner], cards[other_side(winner)])
    limit = strike(state, winner)
    return {"winner": winner, "identical": False, "cards": both, "winning_card": cards[winner], "excess": over,
            "strike": limit, "outside_strike": over > limit}


def reveal_initiative(sim, seat: str, cmd: RevealInitiative) -> None:
    """Both Initiative cards turn face up (each reveal opens its sealing); rank, then suit, wins."""
    state = sim.state
    td = state["throwdown"]
    for e in initiative_entries(state):
        call = initiative_call(sim.state, e["seat"], seat, sim.next_version)
        sim.emit("InitiativeRevealed", {"seat": e["seat"], "card": e["card"], "bluff_call": call},
                 opens=(e["version"],))
    public = initiative_resolved_public(state)
    sim.emit("InitiativeResolved", public)
    if public["identical"]:
        if not state["hands"][COACH] or not state["hands"][td["commander"]]:
            sim.emit("ThrowdownCalledOff", {"reason": "identical_initiative_and_empty_hand"})
            end_throwdown(sim)
        return
    over, limit = public["excess"], public["strike"]
    if over > limit and public["winner"] == "pilots":
        dissonance_check(sim, over - limit)
    elif over > limit:
        C.draw_cards(sim, td["commander"], "pilot", 1, "free_card")


def flip_public(state: dict, dissonance: int) -> dict:
    """The public part of a Dissonance flip: the Coach Deck's top card, its value, and whether it is a Schism."""
    card = C.top_card(state, "coach")
    schism = card is not None and C.flip_value(card) <= dissonance
    return {"card": card, "value": None if card is None else C.flip_value(card), "dissonance": dissonance,
            "schism": schism, "pilot": state["throwdown"]["commander"]}


def dissonance_check(sim, dissonance: int) -> None:
    """The Coach flips the top Coach card: a value (Ace 1) at most the Dissonance is an immediate +Schism."""
    C.settle(sim, "coach")
    public = flip_public(sim.state, dissonance)
    sim.emit("DissonanceFlipped", public)
    C.settle(sim, "coach")
    if public["schism"]:
        commander = public["pilot"]
        sim.emit("TriggerFired", {"fired": trigger("schism", commander, commander, "dissonance", immediate=True)})


def answer_question(sim, seat: str, cmd: AnswerQuestion) -> None:
    """The Coach records the table's answer; the commander draws Synch (for her Team) or Solo cards,
    and the Coach draws the cards invested on his Threats."""
    public = question_public(sim.state, cmd.for_team)
    sim.emit("QuestionAnswered", public)
    C.draw_cards(sim, public["commander"], "pilot", public["draws"], "bonus_draw")
    if any(sim.state["stacks"].values()):
        sim.emit("ThreatStacksDrawn", stacks_public(sim.state), stacks_secret(sim.state), (COACH,))


def question_public(state: dict, for_team: bool) -> dict:
    """The public part of the table's answer: the commander draws her Synch (for her Team) or her Solo."""
    commander = state["throwdown"]["commander"]
    gauge = state["team"][commander]
    return {"for_team": for_team, "commander": commander, "draws": gauge["synch"] if for_team else gauge["solo"]}


def stacks_public(state: dict) -> dict:
    """The public part of the Coach drawing his Threats' stacks: how many cards each held."""
    return {"counts": {t: len(c) for t, c in state["stacks"].items()}}


def _distinct_in_hand(state: dict, seat: str, cards: tuple[str, ...]) -> None:
    if len(set(cards)) != len(cards):
        raise RuleViolation("duplicate_card", "a card is named twice")
    for card in cards:
        _check_in_hand(state, seat, card)


def give_cards(sim, seat: str, cmd: GiveCards) -> None:
    """Another pilot gives the commander any number of cards (none passes)."""
    state = sim.state
    if seat not in state["throwdown"]["to_give"]:
        raise RuleViolation("not_your_turn", "you have no cards to give now")
    _distinct_in_hand(state, seat, cmd.cards)
    commander = state["throwdown"]["commander"]
    sim.emit("CardsGiven", {"seat": seat, "to": commander, "count": len(cmd.cards)},
             {"cards": list(cmd.cards)}, (seat, commander))


def return_cards(sim, seat: str, cmd: ReturnCards) -> None:
    """The commander gives a pilot back as many cards as that pilot gave her."""
    state = sim.state
    td = state["throwdown"]
    if seat != td["commander"]:
        raise RuleViolation("not_commander", "only the commander gives cards back")
    if cmd.to not in td["returns_due"]:
        raise RuleViolation("nothing_due", f"no cards are due back to {cmd.to!r}")
    if len(cmd.cards) != td["returns_due"][cmd.to]:
        raise RuleViolation("wrong_count", f"give back exactly {td['returns_due'][cmd.to]} cards")
    _distinct_in_hand(state, seat, cmd.cards)
    sim.emit("CardsReturned", {"seat": seat, "to": cmd.to, "count": len(cmd.cards)},
             {"cards": list(cmd.cards)}, (seat, cmd.to))


# ----- decide: turns ----------------------------------------------------------------------------

def assist(sim, seat: str, cmd: Assist) -> None:
    """Another pilot discards a card and spends a charge: +1 to the commander's Strike this turn."""
    state = sim.state
    _check_in_hand(state, seat, cmd.card)
    if not may_assist(state, seat):
        raise RuleViolation("cannot_assist", "assist on your side's turn, once, with a charge to spend")
    sim.emit("Assisted", {"seat": seat, "card": cmd.card})


def threat_assist(sim, seat: str, cmd: ThreatAssist) -> None:
    """A Threat activates a Wave (face card discarded) or a Storm (Ace discarded), once per turn."""
    state = sim.state
    td = state["throwdown"]
    if td["turn"] != "coach":
        raise RuleViolation("not_your_turn", "Threats assist on the Coach's turn")
    if cmd.threat not in state["threats"]:
        raise RuleViolation("unknown_threat", f"no Threat named {cmd.threat!r}")
    if cmd.threat in td["threat_assists"]:
        raise RuleViolation("threat_already_assisted", "each Threat assists once per turn")
    _check_in_hand(state, seat, cmd.card)
    kind = threat_assist_kind(cmd.card)
    if kind is None:
        raise RuleViolation("not_face_or_ace", "discard a face card (Wave) or an Ace (Storm)")
    sim.emit("ThreatAssisted", {"threat": cmd.threat, "card": cmd.card, "kind": kind})
    sim.emit("TriggerFired", {"fired": trigger(kind, cmd.threat, COACH, "threat_assist")})


def counter(sim, seat: str, cmd: Counter) -> None:
    """Play a card higher than the top of the Pile (a pilot beyond Strike risks Dissonance)."""
    state = sim.state
    side = _check_turn(state, seat)
    _check_in_hand(state, seat, cmd.card)
    over = top(state)["card"]
    if not C.counters(cmd.card, over):
        raise RuleViolation("does_not_beat", f"{cmd.card} does not beat {over} (an Ace yields only to a Two)")
    if not counter_ok(state, side, cmd.card):
        raise RuleViolation("beyond_strike", "the Coach may never exceed his Strike")
    _play(sim, "Countered", seat, cmd.card)


def drive_public(state: dict, kind: str, seat: str, card: str) -> dict:
    """The public part of a Counter, Escalate or Rumble: the card it goes over, the excess, Strike and Dissonance."""
    side = side_of(seat)
    over = top(state)["card"]
    stage = state["throwdown"]["stage"]
    if kind == "Countered":
        limit, extra = strike(state, side), {}
    else:
        limit = strike(state, side, stage + 1)
        extra = {"points": stage, "scorer": other_side(side), "new_stage": stage + 1}
    ex = C.excess(card, over)
    return {"seat": seat, "side": side, "card": card, "over": over, "excess": ex, "strike": limit,
            "dissonance": max(0, ex - limit) if side == "pilots" else 0, **extra}


def _play(sim, kind: str, seat: str, card: str) -> None:
    public = drive_public(sim.state, kind, seat, card)
    sim.emit(kind, public)
    if public["dissonance"]:
        dissonance_check(sim, public["dissonance"])


def block(sim, seat: str, cmd: Block) -> None:
    """Equal rank, equal or higher suit: both cards are discarded; against an Escalate, de-escalate."""
    state = sim.state
    side = _check_turn(state, seat)
    _check_in_hand(state, seat, cmd.card)
    entry = top(state)
    if entry["how"] in ("initiative", "rumble"):
        raise RuleViolation("unblockable", f"the {entry['how']} card cannot be Blocked")
    if not C.blocks(cmd.card, entry["card"]):
        raise RuleViolation("does_not_block", "a Block needs equal rank and equal or higher suit")
    sim.emit("Blocked", blocked_public(state, seat, cmd.card))


def blocked_public(state: dict, seat: str, card: str) -> dict:
    """The public part of a Block: the card blocked, what it was, and against an Escalate what is taken back."""
    td = state["throwdown"]
    entry = top(state)
    public = {"seat": seat, "side": side_of(seat), "card": card, "blocked": entry["card"], "against": entry["how"]}
    if entry["how"] == "escalate":
        esc = td["piles"][-1]["escalation"]
        public.update(stage_back_to=td["stage"] - 1, points_back=esc["points"], scorer=esc["scorer"])
    return public


def escalate(sim, seat: str, cmd: Escalate) -> None:
    """The opponent scores the stage; this card starts the next stage's Pile (not in stage 3 or 7)."""
    state = sim.state
    side = _check_turn(state, seat)
    stage = state["throwdown"]["stage"]
    if stage in (3, 7):
        raise RuleViolation("cannot_escalate", "no Escalate in stage 3 (Rumble instead) or stage 7")
    _escalation(sim, seat, side, cmd.card, "Escalated")


def rumble(sim, seat: str, cmd: Rumble) -> None:
    """Stage 3 only: as Escalate into stage 4, every Pile discarded, the card unblockable."""
    state = sim.state
    side = _check_turn(state, seat)
    if state["throwdown"]["stage"] != 3:
        raise RuleViolation("rumble_only_in_stage_3", "the Rumble starts from the third stage")
    _escalation(sim, seat, side, cmd.card, "Rumbled")


def _escalation(sim, seat: str, side: str, card: str, kind: str) -> None:
    state = sim.state
    _check_in_hand(state, seat, card)
    stage = state["throwdown"]["stage"]
    if not escalation_ok(state, side, card, stage + 1):
        raise RuleViolation("beyond_strike", "the Coach may never exceed his Strike")
    _play(sim, kind, seat, card)


def concede(sim, seat: str, cmd: Concede) -> None:
    """The opponent scores the stage and the Throwdown ends."""
    _check_turn(sim.state, seat)
    sim.emit("Conceded", conceded_public(sim.state, seat))
    end_throwdown(sim)


def conceded_public(state: dict, seat: str) -> dict:
    """The public part of a Concede: the opposing side scores the current stage."""
    side = side_of(seat)
    return {"seat": seat, "side": side, "points": state["throwdown"]["stage"], "scorer": other_side(side)}


def ended_public(state: dict) -> dict:
    """The public part of the Throwdown's end: more points wins (a tie: the side that did not concede)."""
    td = state["throwdown"]
    scores = dict(td["scores"])
    if td["called_off"]:
        winner, order = None, ["coach", "pilots"]
    else:
        if scores["pilots"] != scores["coach"]:
            winner = "pilots" if scores["pilots"] > scores["coach"] else "coach"
        else:
            winner = other_side(td["conceded_by"])
        order = [other_side(winner), winner]
    winners = [] if winner is None else (list(state["pilots"]) if winner == "pilots" else [COACH])
    return {"winner": winner, "winners": winners, "scores": scores, "conceded_by": td["conceded_by"],
            "called_off": td["called_off"], "payload_order": order,
            "payloads": {s: [dict(t) for t in td["payloads"][s]] for s in order}}


def end_throwdown(sim) -> None:
    """More points wins, a tie goes to the side that did not concede; Payloads then resolve."""
    sim.emit("ThrowdownEnded", ended_public(sim.state))


def piles_public(state: dict) -> dict:
    """The public part of clearing the Piles: every card on them."""
    return {"cards": [e["card"] for p in state["throwdown"]["piles"] for e in p["cards"]]}


def finish(sim) -> None:
    """Every Pile goes to its Trash."""
    sim.emit("PilesCleared", piles_public(sim.state))


HANDLERS = {
    ("initiative", SealInitiative.type): seal_initiative, ("reveal", RevealInitiative.type): reveal_initiative,
    ("question", AnswerQuestion.type): answer_question,
    ("swap", GiveCards.type): give_cards, ("swap", ReturnCards.type): return_cards,
    ("turns", Assist.type): assist, ("turns", ThreatAssist.type): threat_assist, ("turns", Counter.type): counter,
    ("turns", Block.type): block, ("turns", Escalate.type): escalate, ("turns", Rumble.type): rumble,
    ("turns", Concede.type): concede,
}


# ----- legal commands ---------------------------------------------------------------------------

def legal(state: dict, seat: str) -> list:
    """The Throwdown commands `seat` may send now, whole or as choices: a giver gives any of her
    cards (none passes), the commander gives back exactly as many to each giver."""
    if seat not in awaited(state):
        return []
    td, phase = state["throwdown"], state["phase"]
    hand = state["hands"][seat]
    if phase == "initiative":
        return [SealInitiative(c) for c in hand]
    if phase == "reveal":
        return [RevealInitiative()]
    if phase == "question":
        return [AnswerQuestion(True), AnswerQuestion(False)]
    if phase == "swap":
        out: list = []
        if seat in td["to_give"]:
            out.append(Choice(GiveCards, {}, {"cards": subset_of(hand, 0, len(hand))}))
        if seat == td["commander"]:
            out += [Choice(ReturnCards, {"to": to}, {"cards": subset_of(hand, n, n)})
                    for to, n in sorted(td["returns_due"].items())]
        return out
    side = side_of(seat)
    out = []
    if seat == driver(state, td["turn"]):
        stage = td["stage"]
        for c in hand:
            if counter_ok(state, side, c):
                out.append(Counter(c))
            if block_ok(state, c):
                out.append(Block(c))
            if stage not in (3, 7) and escalation_ok(state, side, c, stage + 1):
                out.append(Escalate(c))
            if stage == 3 and escalation_ok(state, side, c, 4):
                out.append(Rumble(c))
        out.append(Concede())
        if side == "coach":
            for threat in state["threats"]:
                if threat not in td["threat_assists"]:
                    out += [ThreatAssist(threat, c) for c in hand if threat_assist_kind(c)]
    elif may_assist(state, seat):
        out += [Assist(c) for c in hand]
    return out
