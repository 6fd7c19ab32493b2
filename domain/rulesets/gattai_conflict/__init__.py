"""Gattaibushido: FUSION! conflicts — the Gambit and the Throwdown (ruleset `gattai-conflict`).

Rules: /work/shared/rules/gattai-conflict.md over the seed 002. The contract surface lives here;
the parts are split by topic:
- `cards`: the two 54-card decks, Trash, reshuffles, Omens (Jokers set out at the top).
- `team`: Harmony, charges, buffers, stats and the +Trigger vocabulary with its queue.
- `gambit` / `throwdown` (+ `throwdown_events`): the two modes (each lists its decisions where
  the rules are silent).
- `flow`: setup, decide, legal_commands, to_act, outcome, the trigger drain and the discard/draw.
- `view`: what each viewer sees.

Decisions common to both modes:
- One match is one conflict: deal, the conflict, then every seat draws or discards to its max.
- Sealed plays (Threshold, Initiative) are recorded with the card and its claimed source in a
  secret for the sealing seat; the reveal carries a `bluff_call` opening that record. A reveal
  is always a later command than its sealing (the record can open only stored commitments):
  the pilot's play reveals the Threshold, `reveal_initiative` turns both Initiative cards.
- The Coach's Bonus Draws (seed): `threat_stacks` cards are dealt face down onto his Threats at
  the start and join his hand at the Draws step.
- `spend_omen` and `record_trigger` may be sent any time (see flow), so `to_act` lists only the
  seats the flow waits for. Story triggers change nothing but +Tarry, which mills the Coach Deck.
- Every conflict terminates: each Drive but Concede and each Assist spends a hand card, and
  hands are refilled only at the very end (plus one free card after an out-of-Strike Coach
  Initiative), so a side runs out of cards and must Concede.
"""

from __future__ import annotations

from .cards import ALL_CARDS, catalogue, deck_cards
from .commands import (
    COACH, COMMANDS, RULESET_ID, AnswerQuestion, Assist, Block, ChooseOutcome, Concede, Config, Counter,
    DiscardToMax, Escalate, FlipCard, GiveCards, NameComplication, PickBoon, PlayCard, PlayThreshold, RecordTrigger,
    ResolveTrigger, ReturnCards, RevealInitiative, Rumble, SealInitiative, SpendOmen, ThreatAssist, seat_names,
)
from .flow import decide, legal_choices, legal_commands, outcome, readjudicate, setup, to_act
from .hidden import derived_public, derived_secret
from .state import evolve, initial_state
from .view import view

__all__ = [
    "ALL_CARDS", "COACH", "COMMANDS", "RULESET_ID", "AnswerQuestion", "Assist", "Block", "ChooseOutcome", "Concede",
    "Config", "Counter", "DiscardToMax", "Escalate", "FlipCard", "GiveCards", "NameComplication", "PickBoon",
    "PlayCard", "PlayThreshold", "RecordTrigger", "ResolveTrigger", "ReturnCards", "RevealInitiative", "Rumble",
    "SealInitiative", "SpendOmen", "ThreatAssist", "catalogue", "decide", "deck_cards", "derived_public", "derived_secret", "evolve",
    "initial_state", "legal_choices", "legal_commands", "outcome", "readjudicate", "seat_names", "setup", "to_act", "view",
]
