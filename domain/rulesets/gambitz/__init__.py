"""Gambitz: build one stack per rank, score the Nth card played on it, lock stacks with Queens.

The rules as played are docs/rules/gambitz.md (seed: Gambitz, (c) 2014 Tod Teeple). Decisions
taken where the seed and the rules page are silent, so that replays and clients can rely on them:

- Cards are named `<rank>-<suit>` ("7-blue", "queen-red"). The deck is a list, top first; a
  Knight's returned cards go to the end (the bottom) in the order the command lists them.
- Setup is one hidden shuffle (organizers only), then each seat in order takes the top 3 cards
  (one secret per seat): a uniform shuffle makes this the same as dealing round-robin.
- A Queen names the stack it locks (`stack`); other cards go to their own rank's stack. Each
  move has one body: naming a card's own stack, or sending an empty `knight_return`, is the same
  command as leaving the field out.
- Bishop power: the command names `move_queen_from` (a locked stack) and `move_queen_to` (a
  non-Castle, unlocked stack holding exactly 3 cards once the Bishop lies on its stack, so a
  3rd Bishop may attract the Queen onto the Bishop stack itself).
- Knight power: `knight_return` lists one or both of the cards the seat held *besides* the
  Knight when it played it (never the card drawn this turn). The events run play, score, put
  to bottom, draw 1 + k: since the normal draw takes the top card and the returned cards go
  under the whole deck, this hands out exactly the cards that "draw 1, put k under, draw k"
  would, even when the deck is short or empty (then the returned cards come straight back).
  The order of two returned cards is part of the move (it fixes which comes back first).
- Redraw: forced when the seat cannot play, holds exactly three cards that are three Queens or
  two Queens and a card of a locked stack, and the deck is not empty. It is a `redraw` command
  (the only legal one then): the hand is shown and returned, the deck is reshuffled (hidden),
  the seat draws 3 and its turn goes on. At most one redraw per turn: a
  seat that still cannot play afterwards passes. This always terminates: at most 4 cards
  can ever be unplayable (each locked stack kills one card and takes one Queen), so while the
  deck is non-empty the 3 x seats >= 6 cards in hand include a playable one and some seat
  plays within every round; each play lays a card down for good and shrinks the deck by one.
- A stuck hand with an empty deck (rules page, rulings after the first audit): it cannot be
  redrawn (the reshuffle would hand back the same three cards), so `pass` is the seat's only
  command and its record is preceded by a public `HandShown` with `kept: true` that opens the
  hand's deal and draw records, as a redraw's does; the hand stays with the seat, face up (in
  `shown_hands` with `kept: true`), and nothing is drawn. It is shown once, at the first pass
  with it: nothing can change that hand while it stays stuck (the deck is empty), and once one of
  its cards is played the seat never holds three cards again, so a later pass has nothing new to
  show. `redraw` stays refused (`redraw_not_allowed`).
- The view says `redraw_due` (true when the seat on turn must redraw now; public, since the
  redraw is forced, nobody else can act first, and it shows the hand anyway) and `scores`, each
  seat's running score: the points scored so far while the game runs (cards left in hand are
  secret, so no penalty is counted yet), and the final score (points - penalties) once it is
  over, equal to the outcome's `scores`. `points` stays: what each seat scored by plays.
- Every action is taken on the seat's own turn: nobody may act out of turn (`may_act` is empty).
- A timed match (docs/clocks.md): a seat whose time runs out forfeits. `SeatTimedOut` ends the game at once
  (reason `time`, the outcome names it `forfeited`); the other seats are ranked by their scores as they
  stand (hands in hand count as at any end), and the forfeiting seat is never among the winners.
- Giving up (rules page, rulings after the third audit): the seed has no resignation, so `resign`
  has exactly a time-out's consequence. It is taken when the seat could act, which in Gambitz is
  only on its own turn (`resigners` is the seat on turn; another seat is refused `not_your_turn`,
  a finished game `game_over`). `SeatResigned` ends the game at once like `SeatTimedOut`, with
  reason `resignation`; the outcome names the seat `forfeited` and never counts it among the winners.
- End: after a pass, when the deck is empty and every seat holding cards has passed since the
  last card was played; after a play, when every hand is empty (kept for the rules page's sake:
  each Queen either stays in a hand or strands the last card of the stack it locks, so at least
  4 cards always stay in hands). Seats with empty hands are skipped. The scoring table's "hand"
  entries are signed score changes per card left in hand (-1 by default); the outcome reports
  `penalties` as positive amounts and `scores` = points - penalties.

Files: cards (deck, ranks, scoring data), config, commands, table (where a card may go, powers,
a stuck hand), events (every event kind as a typed payload, EVENTS; their builders,
derived_secret/public), state (GambitzState, initial_state, one fold per payload type in FOLDS,
evolve), rules (setup, decide and its checks, outcome), legal, view (view per viewer, VIEWS;
catalogue), readjudicate.
"""

from __future__ import annotations

from .cards import CARDS, DEFAULT_SCORING, STACK_RANKS
from .commands import COMMANDS, PHASES, SECRET_COMMANDS, PassTurn, PlayCard, RedrawHand, Resign
from .config import Config, join_options, seat_names
from .events import EVENTS, derived_public, derived_secret
from .legal import legal_choices, legal_commands, may_act, resigners, to_act
from .readjudicate import readjudicate
from .rules import decide, outcome, setup, time_out
from .shapes import GambitzState
from .state import FOLDS, evolve, initial_state
from .view import CATALOGUE, VIEWS, catalogue, view

RULESET_ID = "gambitz"

__all__ = [
    "CARDS",
    "CATALOGUE",
    "COMMANDS",
    "DEFAULT_SCORING",
    "EVENTS",
    "FOLDS",
    "PHASES",
    "RULESET_ID",
    "SECRET_COMMANDS",
    "STACK_RANKS",
    "VIEWS",
    "Config",
    "GambitzState",
    "PassTurn",
    "PlayCard",
    "RedrawHand",
    "Resign",
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
