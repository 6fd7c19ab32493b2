"""The Dragon's Gambit: a memory and bluffing card game (ruleset `dragons-gambit`).

Rules: docs/rules/dragons-gambit.md, over the game's seed. Decisions where both are silent:
- A round ends only through a Final Gambit call, as in the seed; there is no round limit (the
  draw pile is refilled from the discard pile forever, and at least 27 cards always come back).
- The seat that opens a round rotates: `first_seat` opens round 1, the next seat round 2, ...
- The 0 has no ability. Tokens may go on any seat's card, your own included, and may stack.
- A card taken from the discard pile was face up, so every seat knows it while it stays in a grid.
- With `memory_aid: false` the card in your hand (just drawn) still shows: you are holding it.
- The round end is one public `RoundEnded` event: hands, totals, penalties, scores and the Final
  Gambit ruling (`bluff_call`). It opens to everyone the round's deal and reshuffles (the ruling's
  evidence, which hide nothing once the next round is dealt afresh) and the round's card records
  shown to one seat (peeks, draws), so every viewer can verify the ruling at once.
- In the `choose` peek, seats peek simultaneously; the discard pile is started after the last peek.
  While they peek nobody is on turn: the view's `current` is null and `to_act` lists every seat
  still to peek (`may_act` stays empty); the round's first seat becomes `current` when the
  discard pile is started.
- No seat ever acts out of turn, so `may_act` is always empty.
- A timed match (docs/clocks.md): a seat whose time runs out forfeits. `SeatTimedOut` ends the match at
  once (reason `time`, the outcome names it `forfeited`); the other seats are ranked by their match scores
  as they stand (the round in play does not count), and the forfeiting seat is never among the winners.
- Giving up (rules page, rulings after the third audit): the seed has no resignation, so `resign`
  has exactly a time-out's consequence. A seat may resign while the match waits for it (it is in
  `to_act`: on its turn, or while it has still to peek in a `choose` peek); no seat acts unasked, so
  `resigners` is `to_act` (another seat is refused `not_your_turn`, a finished match `game_over`).
  `SeatResigned` ends the match at once like `SeatTimedOut`, with reason `resignation`; the outcome
  names the seat `forfeited` and never counts it among the winners.

Files: config (Config, seats) · cards (deck, faces, deals) · commands · events (EVENTS: every
event kind as a typed payload; their parts, derived_*) · state (DragonsState, initial_state,
FOLDS: one fold per payload type, evolve) · rules (setup, decide, checks, outcome) · legal
(to_act, may_act, legal moves) · view (VIEWS: each viewer's shape; view, catalogue) · readjudicate.
"""

from __future__ import annotations

from .cards import ABILITIES, CARD_IDS, FACE
from .commands import (
    COMMANDS,
    PHASES,
    SECRET_COMMANDS,
    AddToken,
    BlindSwap,
    CallFinalGambit,
    DiscardDrawnCard,
    DrawCard,
    PeekCards,
    PeekOtherCard,
    PeekOwnCard,
    Resign,
    SkipAbility,
    SwapDrawnCard,
    TakeDiscard,
)
from .config import RULESET_ID, Config, join_options, seat_names
from .events import EVENT_KINDS, EVENTS, derived_public, derived_secret
from .legal import legal_choices, legal_commands, may_act, resigners, to_act
from .readjudicate import readjudicate
from .rules import decide, outcome, setup, time_out
from .state import FOLDS, evolve, initial_state
from .view import CATALOGUE, VIEWS, catalogue, view

__all__ = [
    "ABILITIES",
    "CARD_IDS",
    "CATALOGUE",
    "COMMANDS",
    "EVENTS",
    "EVENT_KINDS",
    "FACE",
    "FOLDS",
    "PHASES",
    "RULESET_ID",
    "SECRET_COMMANDS",
    "VIEWS",
    "AddToken",
    "BlindSwap",
    "CallFinalGambit",
    "Config",
    "DiscardDrawnCard",
    "DrawCard",
    "PeekCards",
    "PeekOtherCard",
    "PeekOwnCard",
    "Resign",
    "SkipAbility",
    "SwapDrawnCard",
    "TakeDiscard",
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
