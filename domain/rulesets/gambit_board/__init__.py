"""Ruleset `gambit-board`: the bluffing board game (the rules as played: docs/rules/gambit-board.md).

Two seats on a 6×6 board move pieces whose powers are secret; every claimed power may be called
as a bluff, and each power slot is committed on its own so a reveal opens only what it shows.

Our rulings:
- A seat may resign at any time, so the seat the match is not waiting for always `may_act`.
- A timed match (docs/clocks.md): a seat whose time runs out resigns (`time_out`); its opponent wins.
- The match is won with three unsat pieces on the far row or four captures, checked when a turn
  closes or a piece is lost (a move still awaiting its answer does not win yet); both seats at
  once → the seat that just moved. Decide records the win as `MatchWon` {winner, reason}.
- What a false claim undoes is judged on the move as it was made (bluffs.py): `bulldozer` was
  needed when it pushed, `sitting` when it sat, `diagonal` when it went diagonally, `sidewinder`
  when it wrapped an edge, `ghost` when it passed a piece or ended next to an opposing piece that
  held `moat` then.
- One effect per move: a `bulldozer` claim onto a piece is a push (blocked → `push_blocked`; two
  squares onto a piece with `sitting` → `bulldozer_means_push`); to sit, claim `sitting` alone.
- After a moat sends a move back, that piece's zone and the rejected move itself (same piece,
  destination and effect) are barred for the rest of the turn (`move_sent_back`), so a pushed
  moat piece cannot be pushed the same way again and again.
- A sat-on piece may detect (detecting is not moving).
- Every change of a piece's hidden powers (a spent kamikaze, a reassignment, a Sensei transfer, a
  Witch Doctor swap) is committed anew, slot by slot (commitments.py).
- Player Powers (player_powers.py has the details): a piece counts as arriving on its far row
  whether or not it ends sat on, and any seat's piece counts (a push or a Magician may bring
  it); held Player Powers are public; a Juggernaut turn is one `move` or `decline_juggernaut`
  (no detect or other Player Power); an accepted Sensei moves only the named powers the source
  really holds; a Magician swap opens no window, sits nothing and triggers no kamikaze; a Witch
  Doctor needs a piece that holds a power, answers only a move that claimed some, and takes the
  mover's claimed powers off it only where it really held them.
- Once the match is over the view shows nobody to move (`turn`, `step`, `pending` null).

Files: config (Config, seats) · commands · payloads (each event kind's declared fields) · events
(EVENTS, event parts, derived_*) · state (BoardState, initial_state, FOLDS, evolve) · rules (setup,
decide, checks, outcome) · legal (to_act, may_act, legal moves) · view (the view per viewer,
VIEWS, catalogue) · readjudicate · board (geometry) · powers · flow (turns, steps, winning
conditions) · bluffs (adjudicating calls) · commitments (power slot records) · player_powers
(the Player Powers variant).
"""

from __future__ import annotations

from .commands import (
    COMMANDS,
    PHASES,
    SECRET_COMMANDS,
    Accept,
    AssignPowers,
    CallBluff,
    ChooseLoss,
    ChoosePlayerPower,
    ClaimKamikaze,
    ClaimMoat,
    DeclineJuggernaut,
    Detect,
    MovePiece,
    Reassign,
    Resign,
    UseMagician,
    UseSensei,
    UseWitchDoctor,
)
from .config import Config, join_options, seat_names
from .events import EVENTS, derived_public, derived_secret
from .legal import legal_choices, legal_commands, may_act, resigners, to_act
from .readjudicate import readjudicate
from .rules import decide, outcome, setup, time_out
from .state import FOLDS, evolve, initial_state
from .view import CATALOGUE, VIEWS, catalogue, view

RULESET_ID = "gambit-board"

__all__ = [
    "CATALOGUE",
    "COMMANDS",
    "EVENTS",
    "FOLDS",
    "PHASES",
    "RULESET_ID",
    "SECRET_COMMANDS",
    "VIEWS",
    "Accept",
    "AssignPowers",
    "CallBluff",
    "ChooseLoss",
    "ChoosePlayerPower",
    "ClaimKamikaze",
    "ClaimMoat",
    "Config",
    "DeclineJuggernaut",
    "Detect",
    "MovePiece",
    "Reassign",
    "Resign",
    "UseMagician",
    "UseSensei",
    "UseWitchDoctor",
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
