"""The Dragon's Gambit: a memory and bluffing card game (ruleset `dragons-gambit`).

Rules: /work/shared/rules/dragons-gambit.md over the seed 003. Decisions where both are silent:
- A round ends only through a Final Gambit call, as in the seed; there is no round limit (the
  draw pile is refilled from the discard pile forever, and at least 27 cards always come back).
- The seat that opens a round rotates: `first_seat` opens round 1, the next seat round 2, ...
- The 0 has no ability. Tokens may go on any seat's card, your own included, and may stack.
- A card taken from the discard pile was face up, so every seat knows it while it stays in a grid.
- With `memory_aid: false` the card in your hand (just drawn) still shows: you are holding it.
- The round end is one public `RoundEnded` event: hands, totals, penalties, scores and the Final
  Gambit ruling (`bluff_call`), resting on the round's deal and reshuffles as sealed evidence and
  revealing to everyone the round's card records shown to one seat (peeks, draws).
- In the `choose` peek, seats peek simultaneously; the discard pile is started after the last peek.
"""

from __future__ import annotations

from .cards import (
    ABILITIES, CARD_IDS, COMMANDS, FACE, RULESET_ID, AddToken, BlindSwap, CallFinalGambit, Config,
    DiscardDrawnCard, DrawCard, PeekCards, PeekOtherCard, PeekOwnCard, SkipAbility, SwapDrawnCard, TakeDiscard,
    catalogue, seat_names,
)
from .rules import (
    check_command, decide, derived_public, derived_secret, final_gambit_blocker, legal_choices, legal_commands, outcome,
    readjudicate, setup, to_act,
)
from .state import EVENT_KINDS, card_value, evolve, initial_state
from .views import view

__all__ = [
    "ABILITIES", "CARD_IDS", "COMMANDS", "EVENT_KINDS", "FACE", "RULESET_ID", "AddToken", "BlindSwap",
    "CallFinalGambit", "Config", "DiscardDrawnCard", "DrawCard", "PeekCards", "PeekOtherCard", "PeekOwnCard",
    "SkipAbility", "SwapDrawnCard", "TakeDiscard", "card_value", "catalogue", "check_command", "decide", "derived_public",
    "derived_secret", "evolve", "final_gambit_blocker", "initial_state", "legal_choices", "legal_commands", "outcome",
    "readjudicate", "seat_names", "setup", "to_act", "view",
]
