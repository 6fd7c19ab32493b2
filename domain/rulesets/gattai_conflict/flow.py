"""The contract's flow functions: setup, decide, legal_commands, legal_choices, to_act, outcome.

`decide` validates and simulates on a `Sim`; after every command the trigger queue is drained
(stopping at a trigger that waits for a pilot's answer), what follows an emptied queue runs
(the Gambit's or the Throwdown's end, then the discard/draw), and both decks are settled (a
Joker on top is set out as an Omen, an empty deck takes its reshuffled Trash).

Any-time commands: `spend_omen` (while the match runs) and `record_trigger` (while the conflict
itself runs and no trigger waits for an answer) are legal for their seats whether or not the
flow waits for them, so `to_act` lists only the seats the flow waits for.
"""

from __future__ import annotations

from domain.choices import Choice, collapse, subset_of, text
from domain.ruleset import Event, RuleViolation

from . import cards as C
from . import gambit, throwdown
from .commands import (
    COACH, COMMANDS, Config, DiscardToMax, RecordTrigger, ResolveTrigger, SpendOmen,
)
from .state import FIGHTING, Sim, initial_state
from .team import (
    COACH_FIRES, MAX_TARGET, PILOT_FIRES, PILOT_TARGETED, STORY, decider, max_hand, may_fire, resolve_options, trigger,
    valid_target,
)

RUNNING = {"gambit": ("threshold", "play", "choice", "boon", "complication"), "throwdown": FIGHTING}
PILOT_OMEN_EFFECTS = ("self_full", "all_2")
COACH_OMEN_EFFECTS = ("crisis",)
_TYPES = {cls.type: cls for cls in COMMANDS}


def _deck_for(seat: str) -> str:
    return C.deck_for(seat)


def setup(config: Config, seats: list[str], chance) -> list[Event]:
    """Shuffle both decks, deal every hand to max (Omens set out on the way), start the conflict."""
    sim = Sim(initial_state(config, seats), chance)
    for deck in C.DECKS:
        C.shuffle(sim, deck, "start")
        C.settle(sim, deck)
    for seat in [*sim.state["pilots"], COACH]:
        C.draw_cards(sim, seat, _deck_for(seat), max_hand(sim.state, seat), "deal")
    if config.mode == "throwdown":
        for threat, count in config.threat_stacks.items():
            C.draw_cards(sim, COACH, "coach", count, "threat_stack", threat=threat)
    sim.emit("ConflictStarted", started_public(sim.state))
    return sim.events


def started_public(state: dict) -> dict:
    """The public part of the conflict's start: its mode and the Team's Harmony, as configured."""
    return {"mode": state["config"]["mode"], "harmony": state["config"]["harmony"]}


# ----- who acts ---------------------------------------------------------------------------------

def pending(state: dict) -> str | None:
    """The pilot whose answer the front trigger waits for, if any."""
    return decider(state, state["queue"][0]) if state["queue"] else None


def _mode(state: dict):
    return gambit if state["mode"] == "gambit" else throwdown


def to_act(state: dict) -> list[str]:
    """The seats the flow waits for (empty once the match is over)."""
    if state["phase"] in ("over", "setup"):
        return []
    waiting = pending(state)
    if waiting is not None:
        return [waiting]
    if state["phase"] == "cleanup":
        return sorted(state["discards_due"])
    return _mode(state).awaited(state)


def outcome(state: dict) -> dict | None:
    """None while the match runs; then winners, reason, the mode's result and the Team's gauges."""
    if state["phase"] != "over":
        return None
    out = dict(state["result"])
    out["winners"] = list(out["winners"])
    out["harmony"] = state["harmony"]
    out["team"] = {p: dict(g) for p, g in state["team"].items()}
    return out


# ----- decide -----------------------------------------------------------------------------------

def decide(state: dict, seat: str, command, chance) -> list[Event]:
    """The events of a command; RuleViolation when the rules do not allow it."""
    if seat not in state["seats"]:
        raise RuleViolation("unknown_seat", f"no seat {seat!r} in this match")
    if _TYPES.get(getattr(command, "type", None)) is not type(command):
        raise RuleViolation("unknown_command", "not a command of this ruleset")
    if state["phase"] in ("over", "setup"):
        raise RuleViolation("match_over", "the match is not running")
    sim = Sim(state, chance)
    if isinstance(command, SpendOmen):
        spend_omen(sim, seat, command)
    elif isinstance(command, RecordTrigger):
        record_trigger(sim, seat, command)
    elif isinstance(command, ResolveTrigger):
        resolve_trigger(sim, seat, command)
    else:
        if pending(state) is not None:
            raise RuleViolation("trigger_pending", f"{pending(state)} must first answer a trigger")
        if state["phase"] == "cleanup" and isinstance(command, DiscardToMax):
            discard_to_max(sim, seat, command)
        else:
            handler = _mode(state).HANDLERS.get((state["phase"], command.type))
            if handler is None:
                raise RuleViolation("not_now", f"{command.type} is not possible in the {state['phase']} phase")
            # An Assist is judged by its own rule (a pilot who may not assist is not waited for).
            if seat not in to_act(state) and command.type != "assist":
                raise RuleViolation("not_your_turn", f"{seat} is not to act")
            handler(sim, seat, command)
    drain(sim)
    for deck in C.DECKS:
        C.settle(sim, deck)
    return sim.events


def drain(sim) -> None:
    """Resolve queued triggers until one waits for an answer; then run what follows an empty queue."""
    while True:
        queue = sim.state["queue"]
        if queue:
            t = queue[0]
            if decider(sim.state, t) is not None:
                return
            _resolved(sim, t, False, None)
            continue
        after = sim.state["after_queue"]
        if after is None:
            return
        (gambit if after == "gambit_end" else throwdown).finish(sim)
        begin_cleanup(sim)
        return


def _resolved(sim, t: dict, prevented: bool, stat: str | None) -> None:
    sim.emit("TriggerResolved", {**resolving_public(t), "prevented": prevented, "stat": stat})
    if t["trigger"] == "tarry" and not prevented:
        C.mill(sim, "coach", sim.state["config"]["crisis_tier"], "tarry")


def resolving_public(t: dict) -> dict:
    """The trigger a TriggerResolved resolves (the front of the queue), as its record names it."""
    return {"trigger": t["trigger"], "target": t["target"], "by": t["by"], "source": t["source"]}


def resolve_trigger(sim, seat: str, cmd: ResolveTrigger) -> None:
    """The aimed-at pilot spends a buffer to prevent the front trigger, or takes it."""
    state = sim.state
    waiting = pending(state)
    if waiting is None:
        raise RuleViolation("no_trigger_pending", "no trigger waits for an answer")
    if waiting != seat:
        raise RuleViolation("not_your_turn", f"the trigger waits for {waiting}")
    t = state["queue"][0]
    if cmd.use_buffer and state["team"][seat]["buffers"] < 1:
        raise RuleViolation("no_buffer", "you have no buffer left")
    if (cmd.use_buffer, cmd.stat) not in resolve_options(state, t):
        raise RuleViolation("invalid_answer", "take a +Trauma by naming a stat above 0; name no stat otherwise")
    _resolved(sim, t, cmd.use_buffer, cmd.stat)


def spend_omen(sim, seat: str, cmd: SpendOmen) -> None:
    """Spend an active Omen of your side's deck; when both of a deck's Jokers are spent, they go back in."""
    state = sim.state
    deck = _deck_for(seat)
    omen = next((o for o in state["decks"][deck]["omens"] if o["card"] == cmd.omen), None)
    if omen is None:
        raise RuleViolation("unknown_omen", f"{cmd.omen!r} is not an Omen beside your deck")
    if omen["spent"]:
        raise RuleViolation("omen_spent", "that Omen is already spent")
    effects = COACH_OMEN_EFFECTS if seat == COACH else PILOT_OMEN_EFFECTS
    if cmd.effect not in effects:
        raise RuleViolation("unknown_effect", f"effect must be one of {', '.join(effects)}")
    sim.emit("OmenSpent", {"seat": seat, "deck": deck, "omen": cmd.omen, "effect": cmd.effect})
    if cmd.effect == "self_full":
        sim.emit("TriggerFired", {"fired": trigger("chargeup", seat, seat, "omen", full=True)})
    elif cmd.effect == "all_2":
        for p in state["pilots"]:
            sim.emit("TriggerFired", {"fired": trigger("chargeup", p, seat, "omen", amount=2)})
    omens = state["decks"][deck]["omens"]
    if len(omens) == 2 and all(o["spent"] for o in omens):
        C.shuffle(sim, deck, "omens_returned")
        C.settle(sim, deck)


def record_trigger(sim, seat: str, cmd: RecordTrigger) -> None:
    """Fire a +Trigger the story grants; in a Throwdown its damage waits in the firing side's Payload."""
    state = sim.state
    if pending(state) is not None:
        raise RuleViolation("trigger_pending", f"{pending(state)} must first answer a trigger")
    if state["phase"] not in RUNNING[state["mode"]]:
        raise RuleViolation("not_now", "triggers are fired while the conflict runs")
    if cmd.trigger not in COACH_FIRES + PILOT_FIRES:
        raise RuleViolation("unknown_trigger", f"no trigger {cmd.trigger!r}")
    if not may_fire(seat, cmd.trigger):
        raise RuleViolation("not_your_trigger", f"{seat} does not fire +{cmd.trigger}")
    if not valid_target(state, seat, cmd.trigger, cmd.target):
        raise RuleViolation("invalid_target", f"+{cmd.trigger} cannot target {cmd.target!r}")
    sim.emit("TriggerFired", {"fired": trigger(cmd.trigger, cmd.target, seat, "story")})


def readjudicate(state: dict, event: Event) -> dict:
    """The bluff call the rules give for a recorded reveal of a sealed play, from the hidden state in `state`."""
    if event.kind == "ThresholdRevealed":
        return gambit.threshold_call(state, event.version)
    if event.kind == "InitiativeRevealed":
        return throwdown.initiative_call(state, event.public["seat"], event.public["bluff_call"]["caller"],
                                         event.version)
    raise ValueError(f"a {event.kind} is not a ruling of this ruleset")


def begin_cleanup(sim) -> None:
    """Every seat draws up to its max hand; who holds more must discard down."""
    state = sim.state
    for seat in state["seats"]:
        short = max_hand(state, seat) - len(state["hands"][seat])
        if short > 0:
            C.draw_cards(sim, seat, _deck_for(seat), short, "refill")
    sim.emit("CleanupStarted", cleanup_public(state))


def cleanup_public(state: dict) -> dict:
    """The public part of the cleanup after the draws: every seat's max hand and who must discard how many."""
    due = {s: len(state["hands"][s]) - max_hand(state, s) for s in state["seats"]
           if len(state["hands"][s]) > max_hand(state, s)}
    return {"discards_due": due, "max_hands": {s: max_hand(state, s) for s in state["seats"]}}


def discard_to_max(sim, seat: str, cmd: DiscardToMax) -> None:
    """Discard exactly the cards over your max hand."""
    state = sim.state
    if seat not in state["discards_due"]:
        raise RuleViolation("not_your_turn", "you hold no more than your max hand")
    if len(cmd.cards) != state["discards_due"][seat]:
        raise RuleViolation("wrong_count", f"discard exactly {state['discards_due'][seat]} cards")
    if len(set(cmd.cards)) != len(cmd.cards):
        raise RuleViolation("duplicate_card", "a card is named twice")
    for card in cmd.cards:
        if card not in state["hands"][seat]:
            raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand")
    sim.emit("CardsDiscarded", {"seat": seat, "cards": list(cmd.cards)})


# ----- legal commands ---------------------------------------------------------------------------

def legal_commands(state: dict, seat: str) -> list:
    """Every whole command `seat` may send now; the families too large to list are legal_choices."""
    return collapse(_legal_options(state, seat))[0]


def legal_choices(state: dict, seat: str) -> list[Choice]:
    """The families of `seat`'s legal commands: gifts, returns, discards, story triggers' free targets."""
    return collapse(_legal_options(state, seat))[1]


def _legal_options(state: dict, seat: str) -> list:
    """Every legal command of `seat` now, as whole commands and choices (see domain/choices.py)."""
    if seat not in state["seats"] or state["phase"] in ("over", "setup"):
        return []
    out: list = []
    waiting = pending(state)
    if waiting is not None:
        if waiting == seat:
            out += [ResolveTrigger(b, s) for b, s in resolve_options(state, state["queue"][0])]
    elif state["phase"] == "cleanup":
        if seat in state["discards_due"]:
            due = state["discards_due"][seat]
            out.append(Choice(DiscardToMax, {}, {"cards": subset_of(state["hands"][seat], due, due)}))
    else:
        out += _mode(state).legal(state, seat)
        if state["phase"] in RUNNING[state["mode"]]:
            out += _trigger_options(state, seat)
    out += _omen_options(state, seat)
    return out


def _trigger_options(state: dict, seat: str) -> list:
    out: list = []
    for name in (COACH_FIRES if seat == COACH else PILOT_FIRES):
        if name == "trauma":
            out += [RecordTrigger(name, t) for t in (state["pilots"] if seat == COACH else state["threats"])]
        elif name in PILOT_TARGETED:
            out += [RecordTrigger(name, p) for p in state["pilots"]]
        elif name == "rally":
            out.append(RecordTrigger(name, "team"))
        elif name in STORY:
            # A story trigger names whatever its target is at the table: any text of 1..MAX_TARGET.
            out.append(Choice(RecordTrigger, {"trigger": name}, {"target": text(1, MAX_TARGET)}))
    return out


def _omen_options(state: dict, seat: str) -> list:
    deck = _deck_for(seat)
    effects = COACH_OMEN_EFFECTS if seat == COACH else PILOT_OMEN_EFFECTS
    return [SpendOmen(o["card"], e) for o in state["decks"][deck]["omens"] if not o["spent"] for e in effects]
