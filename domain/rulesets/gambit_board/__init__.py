"""Ruleset `gambit-board`: the bluffing board game (seed 004, rules page rules/gambit-board.md).

Two seats on a 6×6 board move pieces whose powers are secret; every claimed power may be called
as a bluff, and each power slot is committed on its own so a reveal opens only what it shows.

Our rulings:
- A seat may resign at any time, so the seat the match is not waiting for always `may_act`.
- The match is won with three unsat pieces on the far row or four captures, checked when a turn
  closes or a piece is lost (a move still awaiting its answer does not win yet); both seats at
  once → the seat that just moved. Decide records the win as `MatchWon` {winner, reason}.

Files: config (Config, seats) · commands · events (event parts, derived_*) · state (initial_state,
evolve) · rules (setup, decide, checks, outcome) · legal (to_act, may_act, legal moves) · view
(view, catalogue) · readjudicate · board (geometry) · powers · flow (turns, steps, winning
conditions) · bluffs (adjudicating calls) · commitments (power slot records).
"""

from __future__ import annotations

from .commands import (COMMANDS, Accept, AssignPowers, CallBluff, ChooseLoss, ClaimKamikaze, ClaimMoat, Detect,
                       MovePiece, Reassign, Resign)
from .config import Config, join_options, seat_names
from .events import derived_public, derived_secret
from .legal import legal_choices, legal_commands, may_act, to_act
from .readjudicate import readjudicate
from .rules import decide, outcome, setup
from .state import evolve, initial_state
from .view import catalogue, view

RULESET_ID = "gambit-board"

__all__ = [
    "RULESET_ID", "Config", "COMMANDS", "seat_names", "join_options", "initial_state", "setup", "decide", "evolve",
    "legal_commands", "legal_choices", "to_act", "may_act", "outcome", "view", "catalogue", "derived_secret",
    "derived_public", "readjudicate",
    "AssignPowers", "MovePiece", "Detect", "Accept", "CallBluff", "ClaimMoat", "ClaimKamikaze", "ChooseLoss",
    "Reassign", "Resign",
]
