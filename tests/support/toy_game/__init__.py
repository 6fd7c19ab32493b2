"""Toy Swap: the smallest game with the whole ruleset contract, kept in the tests as docs/adding-a-game.md's example.

Two seats are each dealt one hidden card from a shuffled deck of six (1–6). On its turn a seat
keeps its card (`hold`) or trades it, unseen, for the top of the deck (`swap`); once both have
acted the cards are shown and the higher card wins. A seat whose time runs out forfeits; a seat
may give up (`resign`) on its turn, with the same consequence, recorded as a resignation.

It is registered only by tests (tests/conformance/test_adding_a_game.py), to show that a game
added to the registry is picked up everywhere with no list to edit: the conformance kit, the
leak hunt, both fuzzers, the spec generator and the viewer's generic board.

Files: config, shapes (the state type), commands, events (payload types, derived_secret/public),
state (initial_state, the folds), rules (setup, decide and its checks, outcome, time_out), legal, view
(view types, view, catalogue), readjudicate.
"""

from __future__ import annotations

from .commands import COMMANDS, PHASES, SECRET_COMMANDS, HoldCard, Resign, SwapCard
from .config import Config, join_options, seat_names
from .events import EVENTS, derived_public, derived_secret
from .legal import legal_choices, legal_commands, may_act, resigners, to_act
from .readjudicate import readjudicate
from .rules import decide, outcome, setup, time_out
from .state import FOLDS, evolve, initial_state
from .view import CATALOGUE, VIEWS, catalogue, view

RULESET_ID = "toy-game"

__all__ = [
    "CATALOGUE",
    "COMMANDS",
    "EVENTS",
    "FOLDS",
    "PHASES",
    "RULESET_ID",
    "SECRET_COMMANDS",
    "VIEWS",
    "Config",
    "HoldCard",
    "Resign",
    "SwapCard",
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
