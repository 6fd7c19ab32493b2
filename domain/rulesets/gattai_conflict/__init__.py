"""Gattaibushido: FUSION! conflicts — the Gambit and the Throwdown (ruleset `gattai-conflict`).

Rules: docs/rules/gattai-conflict.md, over the game's seed. One match is one conflict
between the Coach and one to four pilots: the deal, the Gambit or the Throwdown, then every
seat draws or discards to its max hand.

Our rulings where the seed is silent (each mode's own are in gambit.py and throwdown.py):
- Sealed plays (Threshold, Initiative) are recorded with the card and its claimed source in a
  secret for the sealing seat; the reveal carries a `bluff_call` opening that record. A reveal
  is always a later command than its sealing (the record can open only stored commitments):
  the pilot's play reveals the Threshold, `reveal_initiative` turns both Initiative cards.
- The Coach's Bonus Draws (seed): `threat_stacks` cards are dealt face down onto his Threats at
  the start and join his hand at the Draws step.
- `to_act` lists only the seats the match waits for; `may_act` the seats that may act at will:
  `spend_omen` (any time), `record_trigger` (while the conflict runs), an Assist, and the pilot
  commander's reveal of the Initiative (the Coach is the one waited for). Story triggers change
  nothing but +Tarry, which mills the Coach Deck.
- A side's Payload takes at most 12 triggers its seats fire with `record_trigger` (a house bound;
  the seed sets none): past it such a damage trigger is refused `payload_full` and not offered, so
  firing story triggers at will cannot grow the state every command loads. Triggers a card's
  outcome imposes always go in. The state keeps each Payload entry without the fields every
  trigger fired at will shares, and without its seat when that is the side's commander
  (throwdown.payload_entry); views and records show every entry whole.
- Config: `threats` is the page's list `[{"name", "rating"}]` (names distinct, 1..40 characters;
  rating 1..10, default 3; 1..6 threats); the earlier map form `{name: rating}` is still taken so
  stored matches replay. The summary echoes the config normalized: every pilot's sheet with its
  defaults filled in (`charges`, the charges she starts with, included) and the threats as a list.
- The view always shows the Strikes the next card is judged against (`strikes` in the current
  stage, `escalation_strikes` for a card opening the next one); see throwdown.py for Strike from
  stage 4 on, Escalate/Rumble cards (they need not beat the old top) and the Payload order.
- A timed match (docs/clocks.md): a seat whose time runs out concedes when it may (the commander
  on her side's Drive); otherwise its awaited decision is taken for it, the first of these the rules
  accept (`rules.default_commands`): an answer to the trigger aimed at it (its first option), a
  discard of its first cards, a blind Threshold (else its first card), a flip (else its first
  card), the first outcome / boon / complication, its first card as Initiative, the reveal, "no"
  to the question, giving nothing, returning its first cards. At-will actions are never taken for
  it. A conflict ends whatever is decided (below), so expiries cannot go on forever.
- Giving up (rules page, rulings after the third audit): besides Concede in a Throwdown, the Coach
  or the pilots' commander (the Throwdown's `commander`; in a Gambit, the pilot facing it) may
  `resign` the match for its side, once, at any time it could act: the match waits for it or it has
  another action now (it is in `to_act` or `may_act`; `legal.check_may_resign`, which decide asks).
  Another pilot is refused `cannot_resign`, a seat that could not act `not_your_turn`, a second
  resignation `already_resigned`, a finished match `match_over`. `SeatResigned` makes the other side
  the match's winner (reason `resignation`, the result naming `resigned_by` and the `resigned` seat),
  whatever the conflict stood at, a Throwdown's or Gambit's result already decided included. A
  Throwdown still being fought ends there and delivers its Payloads as on a Concede (the resigning
  side's, the loser's, first), then its Piles go to their Trash; a Gambit not yet resolved records no
  result of its own (its cards stay where they lie; a sealed Threshold stays sealed). What is queued
  then resolves as usual (a pilot answering a trigger aimed at her), and the cleanup follows, as
  after every conflict; a resignation during the cleanup leaves the discards due.
- Every conflict terminates: each Drive but Concede and each Assist spends a hand card, and
  hands are refilled only at the very end (plus one free card after an out-of-Strike Coach
  Initiative), so a side runs out of cards and must Concede.

Files: config (Config, seats) · commands · events (EVENTS: every kind's typed payload, the
Throwdown's in throwdown_events; derived_*) · event_parts (the parts decide and the verifier
build alike) · shapes (GattaiState and the vocabularies, below every module that reads the state)
· state (initial_state, FOLDS, evolve) · rules (setup, decide, outcome) · legal (to_act, may_act,
legal moves) · view (view, catalogue, VIEWS) · readjudicate · cards (decks, Omens) · team (Harmony,
+Triggers) · gambit / throwdown (each mode's bookkeeping) · gambit_rules / throwdown_rules (each
mode's commands).
"""

from __future__ import annotations

from .cards import ALL_CARDS
from .commands import (
    COMMANDS,
    PHASES,
    SECRET_COMMANDS,
    AnswerQuestion,
    Assist,
    Block,
    ChooseOutcome,
    Concede,
    Counter,
    DiscardToMax,
    Escalate,
    FlipCard,
    GiveCards,
    NameComplication,
    PickBoon,
    PlayCard,
    PlayThreshold,
    RecordTrigger,
    Resign,
    ResolveTrigger,
    ReturnCards,
    RevealInitiative,
    Rumble,
    SealInitiative,
    SpendOmen,
    ThreatAssist,
)
from .config import RULESET_ID, Config, join_options, seat_names
from .events import EVENTS, derived_public, derived_secret
from .legal import legal_choices, legal_commands, may_act, resigners, to_act
from .readjudicate import readjudicate
from .rules import decide, outcome, setup, time_out
from .state import FOLDS, evolve, initial_state
from .view import CATALOGUE, VIEWS, catalogue, view

__all__ = [
    "ALL_CARDS",
    "CATALOGUE",
    "COMMANDS",
    "EVENTS",
    "FOLDS",
    "PHASES",
    "RULESET_ID",
    "SECRET_COMMANDS",
    "VIEWS",
    "AnswerQuestion",
    "Assist",
    "Block",
    "ChooseOutcome",
    "Concede",
    "Config",
    "Counter",
    "DiscardToMax",
    "Escalate",
    "FlipCard",
    "GiveCards",
    "NameComplication",
    "PickBoon",
    "PlayCard",
    "PlayThreshold",
    "RecordTrigger",
    "Resign",
    "ResolveTrigger",
    "ReturnCards",
    "RevealInitiative",
    "Rumble",
    "SealInitiative",
    "SpendOmen",
    "ThreatAssist",
    "catalogue",
    "decide",
    "derived_public",
    "derived_secret",
    "evolve",
    "initial_state",
    "join_options",
    "legal_choices",
    "legal_commands",
    "may_act",
    "outcome",
    "readjudicate",
    "resigners",
    "seat_names",
    "setup",
    "time_out",
    "to_act",
    "view",
]
