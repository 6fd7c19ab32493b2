"""Shared set-ups for the gambit-board rule tests: games with known powers and crafted positions.

Positions are crafted by folding hand-built `PieceMoved` events (no claims, no response) through
evolve, exactly as recorded history would; behaviour is then asserted through decide,
legal_commands and view.
"""

from __future__ import annotations

from domain.ruleset import Event, Viewer
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board import board as geo
from domain.rulesets.gambit_board.commands import AssignPowers
from domain.rulesets.gambit_board.flow import seat_of
from tests.support.harness import Game, start

SOUTH = {"S1": ("diagonal", "sitting"), "S2": ("bulldozer", "moat")}
NORTH = {"N1": ("ghost", "kamikaze"), "N2": ("sidewinder", "detective")}
ORGANIZER = Viewer("organizer", None, sees_all=True)


def new_game(config: dict | None = None, south: dict | None = None, north: dict | None = None) -> Game:
    """A select-mode game with both assignments made (defaults SOUTH / NORTH); south to move."""
    game = start(gb, config)
    game.act("south", AssignPowers(powers=south or SOUTH))
    game.act("north", AssignPowers(powers=north or NORTH))
    return game


def relocate(game: Game, piece: str, to: str) -> None:
    """Fold a hand-built, unanswered move of `piece` to `to` (onto a stack if occupied); the turn passes."""
    board = game.state["board"]
    frm = geo.locate(board)[piece][0]
    sat_on = board[to][-1] if to in board and to != frm else None
    plan = {"piece": piece, "from": frm, "to": to, "claims": [], "push": None, "sat_on": sat_on}
    game.record([Event("PieceMoved", {"seat": seat_of(piece), "plan": plan, "needs_response": False})])


def arrange(game: Game, moves: list[tuple[str, str]], to_move: str = "south") -> Game:
    """Relocate pieces in order, then hand the turn to `to_move`."""
    for piece, square in moves:
        relocate(game, piece, square)
    if game.state["turn"]["seat"] != to_move:
        idle = next(stack[-1] for stack in game.state["board"].values() if seat_of(stack[-1]) != to_move)
        relocate(game, idle, geo.locate(game.state["board"])[idle][0])
    assert game.state["turn"]["seat"] == to_move
    return game


def square_of(game: Game, piece: str) -> str | None:
    """Where a piece stands, read from the organizer's view."""
    return gb.view(game.state, ORGANIZER)["pieces"][piece]["square"]


def slot_record(game: Game, piece: str, kind: str) -> Event:
    """The newest commitment of one power slot (a piece's movement or action power) recorded so far."""
    return [e for e in game.events if e.kind == "PowerCommitted"
            and (e.public["piece"], e.public["power_type"]) == (piece, kind)][-1]


def state_before(game: Game, version: int) -> dict:
    """The state replayed from the record up to (not including) the event recorded at `version`."""
    state = gb.initial_state(game.config, list(game.seats))
    for event in game.events:
        if event.version == version:
            return state
        state = gb.evolve(state, event)
    raise AssertionError(f"no event at version {version}")


def kinds(events) -> list[str]:
    """The kinds of some recorded events."""
    return [e.kind for e in events]
