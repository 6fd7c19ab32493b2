"""Shared set-ups for the gambit-board rule tests: games with known powers and the positions they reach.

`walk` and `settle` reach positions by legal commands only (moves written `"S3>c3"` or, with
claims, `"S1>a6+sitting"`; windows answered with accept, earned Player Powers named). The older
`arrange` crafts positions by folding hand-built `PieceMoved` events (no claims, no response)
through evolve; behaviour is then asserted through decide, legal_commands and view.
"""

from __future__ import annotations

from domain.ruleset import Event, Viewer
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board import board as geo
from domain.rulesets.gambit_board.commands import Accept, AssignPowers, ChoosePlayerPower, MovePiece
from domain.rulesets.gambit_board.flow import seat_of
from tests.support.harness import Game, start

SOUTH = {"S1": ("diagonal", "sitting"), "S2": ("bulldozer", "moat")}
NORTH = {"N1": ("ghost", "kamikaze"), "N2": ("sidewinder", "detective")}
ORGANIZER = Viewer("organizer", None, sees_all=True)


def new_game(config: dict | None = None, south: dict | None = None, north: dict | None = None,
             base_version: int = 0) -> Game:
    """A select-mode game with both assignments made (defaults SOUTH / NORTH); south to move.

    `base_version` 3 numbers the records as a match does after its creation and two joins (an export).
    """
    game = start(gb, config, base_version=base_version)
    game.act("south", AssignPowers(powers=south or SOUTH))
    game.act("north", AssignPowers(powers=north or NORTH))
    return game


def settle(game: Game, earn: str | dict = "magician") -> Game:
    """Accept every open window and name every earned Player Power (`earn`: one power, or one per seat)."""
    while game.ruleset.outcome(game.state) is None:
        step = game.state["step"]
        if step["kind"] in ("respond", "counter"):
            game.act(step["seat"], Accept())
        elif step["kind"] == "earn":
            game.act(step["seat"], ChoosePlayerPower(power=earn if isinstance(earn, str) else earn[step["seat"]]))
        else:
            break
    return game


def walk(game: Game, *moves: str, earn: str | dict = "magician") -> Game:
    """Make legal moves in turn (`"S3>c3"`, `"S1>a6+sitting"`), settling before each; the last window stays open."""
    for move in moves:
        settle(game, earn)
        piece, rest = move.split(">")
        to, *claims = rest.split("+")
        game.act(seat_of(piece), MovePiece(piece=piece, to=to, claims=tuple(claims)))
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
