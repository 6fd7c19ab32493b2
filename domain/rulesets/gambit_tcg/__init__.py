"""Ruleset `gambit-tcg`: the set-and-bluff trading card game (the rules as played: docs/rules/gambit-tcg.md).

Two seats `p1`, `p2` with 30-card decks (the preconstructed `dawn`/`dusk` or a custom list
given at join time) play units, spells, items and field cards, set cards face down and spring
traps in secretly declared windows. Join options: `{"deck": "dawn"|"dusk"}` or
`{"deck_list": [30 card ids]}`; without options p1 plays `dawn` and p2 plays `dusk`. A deck
list is secret to its seat (DeckRegistered secret).

Config: `players` (must be 2, the format is 1v1) and `turn_limit`.

Our rulings: a seat whose time runs out in a timed match (docs/clocks.md) loses at once, like a deck-out
(`SeatLost`, reason `time`); giving up (rules page, rulings after the third audit: the seed has no
resignation, so it has a time-out's consequence) is `resign`, taken while the match waits for the seat
(`resigners` is `to_act`: another seat is refused `not_your_turn`, a finished game `game_over`), and the
seat loses at once (`SeatLost`, reason `resignation`, the outcome's `losers` naming it); a turn limit
(config, default 100) ends every game, the seat with more life winning; one blocker per attacker, and a
Guard unit able to block must block first; who a trap window asks is decided on public facts only, one
responder at a time.
- Your own units (rules page): damage and destroy effects target opposing units only — Judgment
  Ward and Ambush Pit never hit their own seat's attacker (refused as `own_unit`, never offered);
  we rule Snare Vines the same (muting one's own attacker could only hurt its controller), so an
  attack trap answers the opponent's attack. Sacrifice stays the only way to bin your own unit.
- Trap windows are card data (rules page): each trap names in cards.json the windows its effect
  can apply in (Judgment Ward, Ambush Pit, Snare Vines: `attack_declared`; Null Snare:
  `spell_activated`); a trap is set only for one of them (`window_not_on_card`). A window opens
  only when a trap of the pool naming it could act now, and asks a seat only if such a trap
  could act for it and it could pay the cheapest (a revealed trap counts only for its own
  declared window). The other vocabulary windows (phase starts, `unit_played`) stay available to
  card data but open for no starter card. When a card leaves no choice of window (a non-trap, a
  one-window trap) the verifier binds the set commitment's window.

Files: config.py (Config, seats, deck choice) · commands.py · events.py (EVENTS, every kind
declared; derived_secret/public) · payloads.py (each kind's typed payload) · parts.py (the
event parts decide and the verifier share) · shapes.py (TcgState, the lookups) · state.py
(initial_state, FOLDS, evolve) · rules.py (setup, decide, outcome) · legal.py (legal moves,
to_act, may_act) · view.py (VIEWS, view, catalogue) · readjudicate.py (type calls) · cards.py +
cards.json (card data) · effects.py (effect choices, statics) · resolution.py (effects into
events) · scratch.py (decide's scratch pad) · phases.py (who may attack, who a window asks) ·
turns.py (turn flow, windows open) · responses.py (windows answered) · play.py (payment,
playing cards) · traps.py (set, activate) · combat.py.
"""

from __future__ import annotations

from .commands import (
    COMMANDS,
    PHASES,
    SECRET_COMMANDS,
    ActivateTrap,
    AssignBlockers,
    DeclareAttack,
    EndPhase,
    Energize,
    Pass,
    PlayCard,
    Resign,
    SetCard,
)
from .config import Config, join_options, seat_names
from .events import EVENTS, derived_public, derived_secret
from .legal import legal_choices, legal_commands, may_act, resigners, to_act
from .readjudicate import readjudicate
from .rules import decide, outcome, setup, time_out
from .state import FOLDS, evolve, initial_state
from .view import CATALOGUE, VIEWS, catalogue, view

RULESET_ID = "gambit-tcg"

__all__ = [
    "CATALOGUE",
    "COMMANDS",
    "EVENTS",
    "FOLDS",
    "PHASES",
    "RULESET_ID",
    "SECRET_COMMANDS",
    "VIEWS",
    "ActivateTrap",
    "AssignBlockers",
    "Config",
    "DeclareAttack",
    "EndPhase",
    "Energize",
    "Pass",
    "PlayCard",
    "Resign",
    "SetCard",
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
