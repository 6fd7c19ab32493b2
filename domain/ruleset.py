"""The ruleset contract: what every game module provides and the plain data it trades in.

A ruleset is a module (or small package) exposing:

    RULESET_ID: str
    Config: a frozen dataclass of the match config deriving from domain.config_fields.DeclaredConfig:
            every field declares its default and its domain (type, range or choices) as data, and
            `validate()` (generated from them) raises ConfigError; docs/config.md and the config
            fields `GET /rulesets/{id}` serves come from the same declarations
    COMMANDS: tuple of Command subclasses, one per command `type`
    SECRET_COMMANDS: frozenset[str]                 the command types whose body holds a secret (an assignment,
                                                    a sealed card): the match records their body as a committed
                                                    secret for the seat (the conformance kit checks the list)
    PHASES: Phases                                  every value of the state's `phase` with the command
                                                    classes that phase owns (see Phases): decide refuses
                                                    the others, and every legal command is one of them
    EVENTS: domain.event_types.EventTypes           every event kind, a frozen dataclass of its public
                                                    and secret fields (events.py)
    FOLDS: domain.event_types.Folds                 one fold per event type; `evolve` is FOLDS.fold (state.py)
    VIEWS: domain.view_types.ViewTypes              the TypedDict of the view per kind of viewer (view.py)
    seat_names(config) -> list[str]                 the seats, in order
    join_options(config, seat, raw) -> dict         a seat's choices on joining (a deck list), validated;
                                                    ConfigError when refused (`no_join_options` for games
                                                    that take none)
    initial_state(config, seats) -> State           the state before any ruleset event
    setup(config, seats, chance, seat_options) -> list[Event]
                                                    deal/shuffle/roll once every seat has joined; the
                                                    options are what join_options returned, per seat
    decide(state, seat, command, chance) -> list[Event]   raises RuleViolation when illegal
    evolve(state, event) -> State                   never validates, never raises
    legal_commands(state, seat) -> list[Command]    every one is accepted by decide
    legal_choices(state, seat) -> list[Choice]      families too large to list (domain/choices.py); with
                                                    legal_commands, exactly what decide accepts
    to_act(state) -> list[str]                      seats the match is waiting for
    may_act(state) -> list[str]                     seats not waited for that have an optional action now
    resigners(state) -> list[str]                   seats that may give up now (a `resign` command, type
                                                    "resign"): each one in to_act or may_act (see below)
    outcome(state) -> dict | None                   None while the game runs
    view(state, viewer) -> dict                     the state as that viewer may see it
    derived_secret(state, event) -> dict | None     what chance and the state fix of this event's secret
    derived_public(state, event) -> dict | None     what the state fixes of this event's public part
    readjudicate(state, event) -> dict              the verdict the rules give for a recorded ruling
    time_out(state, seat, chance) -> list[Event]    what a seat whose time ran out suffers (see below)
    CATALOGUE: type | None                          the TypedDict `catalogue()` returns (view.py), None for a
                                                    game without one; the spec's `<Game>Catalogue` comes from it
    catalogue() -> CATALOGUE | None                 static public game data (card pool, powers) for clients

`derived_secret` is how the verifier binds hidden state to chance: given the state just before
an event (as replayed), it returns the part of the event's secret that follows from the state
and the recorded chance results — the cards a deal or draw takes from the shuffled deck, a
hidden die — or None when the secret is a seat's free choice (an assignment, a set card) or
the event has no secret. The verifier compares every key it returns with the recorded secret
and fails the export at that version on any difference. `decide` and `setup` build those
secrets with the same function, so the two can never disagree.

`derived_public` does the same for the public part: the size a shuffle draws over (the deck's
size, so no card can be dropped by a smaller `n`), cards shown publicly as they come off the top
of a deck, counts the rules fix. The verifier requires every key it returns to match the
record's (nested objects key by key, so `{"chance": {"n": 40}}` checks only `n`).

`readjudicate` is called by the verifier, before the ruling is folded, for every record whose
public part carries a `bluff_call`; every key it returns must equal the recorded call's. It
never modifies the state it is given (the verifier passes the replayed state itself, so a
verify costs one pass however many rulings a match holds).

`time_out` is the consequence of a timed match's `ClockExpired` record (docs/clocks.md): the
events recorded right after it, decided on the state as it stands, never empty while the seat is
waited for. By default the seat resigns or is eliminated (each game's own resign path); a game may
rule otherwise (an automatic move) and says so in its package docstring. A consequence must end
the seat's wait or move the game towards its end, so expiries cannot repeat forever. Like
`decide`, it never modifies the state it is given; the verifier re-derives it and compares.

Giving up: every game has a `Resign` command (type `resign`). Which seats may send it, and when,
is the game's ruling (its rules page), but only ever a seat in `to_act` or `may_act`: `resigners`
names them, `legal_commands` lists `resign` for exactly those seats, and `decide` refuses it for any
other (`not_your_turn`, or the game's own rule) and once the game is over. Its consequence ends the
game (at once, or once what is already under way has resolved) with reason `resignation` and the
resigning seat, or its side, not among the winners.

Every ruleset lives in `domain/rulesets/<game>/` with one layout (tests/conformance/test_layout.py
keeps it): `config.py` (Config, seat_names, join_options), `shapes.py` (the state's TypedDict),
`commands.py` (COMMANDS, PHASES), `events.py` (EVENTS, the typed payload of each event kind; derived_secret,
derived_public), `state.py` (initial_state, FOLDS, evolve),
`rules.py` (setup, decide and its named checks, outcome, time_out), `legal.py` (legal_commands, legal_choices,
to_act, may_act), `view.py` (VIEWS, view, CATALOGUE, catalogue), `readjudicate.py` (readjudicate); a
large game splits further beside these. Decide's scratch pad and state copying are `domain.decision`.

The chance source also carries `version`: the version the first event of the decision will
be recorded at, for a ruling that must name its own record.

State is plain JSON data (dicts with str keys, lists, str, int, bool, None) so snapshots
store it as it is; each game declares its shape as a TypedDict in state.py and implements
`Ruleset[ItsState, ItsConfig]`. `evolve` may update the state it is given and returns it; code that
needs the state before an event (decide simulating a sequence) works on `copy_state`.
"""

from __future__ import annotations

import copy
import dataclasses
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from domain.choices import Choice
from domain.vocabulary import ORGANIZER, SPECTATOR, Event, Viewer

if TYPE_CHECKING:
    from domain.chance import Chance
    from domain.event_types import EventTypes, Folds
    from domain.view_types import ViewTypes


# The state of the framework's eye: plain JSON data. Each game types its own (a TypedDict in its
# state.py) and implements `Ruleset[ItsState]`; code that serves every game holds `Ruleset[Any]`.
State = dict
GameState = TypeVar("GameState")
GameConfig_contra = TypeVar("GameConfig_contra", contravariant=True)
Handler = TypeVar("Handler")


class RuleViolation(Exception):
    """A command the rules do not allow; `rule` is a stable identifier such as `not_your_turn`."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(detail)
        self.rule = rule
        self.detail = detail


class ConfigError(ValueError):
    """A match config the ruleset cannot play with; `field` names the offending key."""

    def __init__(self, field_name: str, detail: str) -> None:
        super().__init__(f"{field_name}: {detail}")
        self.field = field_name
        self.detail = detail


@dataclass(frozen=True)
class Command:
    """A request to act, named in the imperative; its `type` is the body's `type` field.

    Fields are str, int, bool, `tuple[str, ...]`, `dict[str, str]`, `dict[str, tuple[str, ...]]`
    or optional (`X | None = None`) versions of these, so the service can derive the JSON
    schema of the body from the class.
    """

    type: ClassVar[str]

    def body(self) -> dict:
        """The JSON body a client posts for this command (optional fields left out when unset)."""
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = _jsonable(value)
        return out


# ----- commands per phase -------------------------------------------------------------------------


class Phases(Mapping[str, tuple[type[Command], ...]]):
    """Each phase of a game's state with the command classes it owns, in the declared order.

    Each game declares in its commands.py, once,

        PHASES = Phases({"setup": (), "play": (PlayCard, PassTurn, RedrawHand), "over": ()})

    every value its state's `phase` takes (the `phase` Literal of shapes.py), each with the command
    classes the rules allow in that phase at some moment of it. A phase owns its commands the way a
    boardgame.io phase owns its moves: a command of a type its phase does not own is refused by
    `decide` (with the game's own rule code), and every command `legal_commands` lists or
    `legal_choices` offers is of a type the current phase owns. Which of them is open at a given
    moment of the phase (whose turn, what is pending) is still the game's checks. A phase in which
    nothing can be done (the deal, the end) owns no command.

    The conformance kit (tests/conformance/test_phases.py) holds every game to its declaration at
    every step of random playouts; `GET /rulesets/{id}` serves it as `phases` and the spec's
    `<Ruleset>Phases` schemas are generated from it.
    """

    def __init__(self, phases: Mapping[str, tuple[type[Command], ...]]) -> None:
        for phase, classes in phases.items():
            strays = [cls for cls in classes if not (isinstance(cls, type) and issubclass(cls, Command))]
            if strays:
                raise TypeError(f"phase {phase!r} owns what is no command class: {strays}")
            if len(set(classes)) != len(classes):
                raise ValueError(f"phase {phase!r} names a command twice")
        self._phases: Mapping[str, tuple[type[Command], ...]] = MappingProxyType(
            {phase: tuple(classes) for phase, classes in phases.items()}
        )

    def __getitem__(self, phase: str) -> tuple[type[Command], ...]:
        return self._phases[phase]

    def __iter__(self) -> Iterator[str]:
        return iter(self._phases)

    def __len__(self) -> int:
        return len(self._phases)

    def __repr__(self) -> str:
        return f"Phases({ {phase: [cls.__name__ for cls in classes] for phase, classes in self._phases.items()} })"

    def admits(self, phase: str, command: Command | type[Command]) -> bool:
        """Whether `phase` owns the command's type (False for a phase the game does not declare)."""
        cls = command if isinstance(command, type) else type(command)
        return cls in self._phases.get(phase, ())

    def check(self, phase: str, command: Command) -> None:
        """Refuse (`not_now`) a command whose type the phase does not own: for a game whose decide says so itself."""
        if not self.admits(phase, command):
            raise RuleViolation("not_now", f"{command.type} is not possible in the {phase} phase")

    def phases_of(self, cls: type[Command]) -> list[str]:
        """The phases that own a command class, in the declared order."""
        return [phase for phase, classes in self._phases.items() if cls in classes]

    def commands(self) -> list[type[Command]]:
        """Every command class some phase owns, each once, in the order first declared."""
        return list(dict.fromkeys(cls for classes in self._phases.values() for cls in classes))

    def types(self) -> dict[str, list[str]]:
        """Each phase with the `type`s of its commands, sorted: what `GET /rulesets/{id}` serves."""
        return {phase: sorted(cls.type for cls in classes) for phase, classes in self._phases.items()}

    def keyed(self, handlers: Mapping[type[Command], Handler]) -> dict[tuple[str, str], Handler]:
        """A table of (phase, command type) → the handler of the command's class, for a decide that dispatches
        on both; every owned class must have its handler and every handler's class a phase."""
        owned = self.commands()
        unowned = [cls.__name__ for cls in handlers if cls not in owned]
        unhandled = [cls.__name__ for cls in owned if cls not in handlers]
        if unowned or unhandled:
            raise ValueError(f"handlers without a phase: {unowned}; commands without a handler: {unhandled}")
        return {(phase, cls.type): handlers[cls] for phase, classes in self._phases.items() for cls in classes}


class Ruleset(Protocol[GameState, GameConfig_contra]):
    """The module surface every ruleset provides (see the module docstring), over its own state type."""

    # Read-only members: a module's own Config class and command tuple are narrower types, which
    # a read-only (covariant) member accepts.
    @property
    def RULESET_ID(self) -> str: ...
    @property
    def Config(self) -> type: ...
    @property
    def COMMANDS(self) -> tuple[type[Command], ...]: ...
    @property
    def SECRET_COMMANDS(self) -> frozenset[str]: ...
    @property
    def PHASES(self) -> Phases: ...
    @property
    def EVENTS(self) -> EventTypes: ...
    @property
    def FOLDS(self) -> Folds[GameState]: ...
    @property
    def VIEWS(self) -> ViewTypes: ...
    @property
    def CATALOGUE(self) -> type | None: ...

    def seat_names(self, config: GameConfig_contra) -> list[str]: ...
    def join_options(self, config: GameConfig_contra, seat: str, raw: dict) -> dict: ...
    def initial_state(self, config: GameConfig_contra, seats: list[str]) -> GameState: ...
    def setup(
        self, config: GameConfig_contra, seats: list[str], chance: Chance, seat_options: dict[str, dict] | None = None
    ) -> list[Event]: ...
    def decide(self, state: GameState, seat: str, command: Command, chance: Chance) -> list[Event]: ...
    def evolve(self, state: GameState, event: Event) -> GameState: ...
    def legal_commands(self, state: GameState, seat: str) -> list[Command]: ...
    def legal_choices(self, state: GameState, seat: str) -> list[Choice]: ...
    def to_act(self, state: GameState) -> list[str]: ...
    def may_act(self, state: GameState) -> list[str]: ...
    def resigners(self, state: GameState) -> list[str]: ...
    def outcome(self, state: GameState) -> dict | None: ...
    def view(self, state: GameState, viewer: Viewer) -> dict: ...
    def derived_secret(self, state: GameState, event: Event) -> dict | None: ...
    def derived_public(self, state: GameState, event: Event) -> dict | None: ...
    def readjudicate(self, state: GameState, event: Event) -> dict: ...
    def time_out(self, state: GameState, seat: str, chance: Chance) -> list[Event]: ...
    def catalogue(self) -> Mapping[str, object] | None: ...


def no_join_options(raw: dict) -> dict:
    """The join options of a game that takes none: any option is refused with ConfigError."""
    if raw:
        raise ConfigError(min(raw), "this game takes no join options")
    return {}


def check_seat_in_match(seats: list[str], seat: str) -> None:
    """A command from a seat that is not in the match is refused (`unknown_seat`)."""
    if seat not in seats:
        raise RuleViolation("unknown_seat", f"no seat {seat!r} in this match")


def check_game_running(over: bool, rule: str = "game_over") -> None:
    """No command is taken once the game has ended."""
    if over:
        raise RuleViolation(rule, "the game has ended")


def check_seat_to_act(seat: str, waiting: list[str]) -> None:
    """A seat the game is not waiting for may not act (`not_your_turn`)."""
    if seat not in waiting:
        raise RuleViolation("not_your_turn", f"waiting for {', '.join(waiting) or 'nobody'}")


def passes(check: Any, *args: Any) -> bool:
    """Whether a named check of `decide` accepts these arguments (legal moves reuse decide's checks)."""
    try:
        check(*args)
    except RuleViolation:
        return False
    return True


def copy_state(state: State) -> State:
    """An independent copy of a state, for deciding on what-ifs without touching the original."""
    return copy.deepcopy(state)


def chance_event(
    kind: str,
    drawn: Any,
    public: dict | None = None,
    *,
    hidden_from_all_but: tuple[str, ...] | None = None,
    secret: dict | None = None,
) -> Event:
    """An event recording one chance result, public or hidden, in the shape docs/verification.md fixes.

    With `hidden_from_all_but` the result goes in the secret part for that audience (`()` for
    organizers only); otherwise it is public.
    """
    pub = dict(public or {})
    pub["chance"] = drawn.descriptor
    if hidden_from_all_but is None:
        pub["chance_result"] = drawn.result
        return Event(kind, pub, secret, None if secret is None else ())
    sec = dict(secret or {})
    sec["chance_result"] = drawn.result
    return Event(kind, pub, sec, tuple(hidden_from_all_but))


class UnreadableCommand(ValueError):
    """A recorded command body that is no command of the ruleset (unknown type, unknown or missing fields)."""


def command_of_body(ruleset: Ruleset[Any, Any], body: Any) -> Command:
    """The ruleset's Command a recorded body stands for (lists become tuples, as the service parses them);
    UnreadableCommand when it stands for none. The verifier re-decides recorded commands with it."""
    if not isinstance(body, dict):
        raise UnreadableCommand("the command body is not an object")
    by_type = {cls.type: cls for cls in ruleset.COMMANDS}
    command_cls = by_type.get(body.get("type"))  # type: ignore[arg-type]  # a non-string finds nothing
    if command_cls is None:
        raise UnreadableCommand(f"{str(body.get('type'))[:40]!r} is no command type of this game")
    names = {f.name for f in dataclasses.fields(command_cls)}
    unknown = sorted(set(body) - names - {"type"})
    if unknown:
        raise UnreadableCommand(f"the command has fields its type does not: {unknown[:5]}")
    try:
        return command_cls(**{k: _command_value(v) for k, v in body.items() if k != "type"})
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise UnreadableCommand(f"the body is no {command_cls.type} command: {exc}") from None


def _command_value(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_command_value(v) for v in value)
    if isinstance(value, dict):
        return {k: _command_value(v) for k, v in value.items()}
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _scalar_ok(kind: Any, value: Any) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is str:
        return isinstance(value, str)
    return True


# Every config integer, at any depth, stays within the JSON-safe range (see domain/records.py),
# so even a field whose ruleset forgot a range can never put an unreadable number in a record.
MAX_CONFIG_INT = 2**53 - 1


def _has_unsafe_int(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_unsafe_int(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_unsafe_int(v) for v in value)
    is_int = isinstance(value, int) and not isinstance(value, bool)
    return is_int and not -MAX_CONFIG_INT <= value <= MAX_CONFIG_INT


def config_from_dict(config_cls: type, raw: dict | None) -> Any:
    """Build a ruleset's frozen Config from JSON: unknown keys, wrong types and unsafe ints raise ConfigError."""
    raw = dict(raw or {})
    names = {f.name: f for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise ConfigError(unknown[0], "unknown config key")
    hints = typing.get_type_hints(config_cls)
    values = {}
    for name, value in raw.items():
        if _has_unsafe_int(value):
            raise ConfigError(name, f"integers must be within -{MAX_CONFIG_INT}..{MAX_CONFIG_INT} (|n| <= 2**53 - 1)")
        hint = hints[name]
        origin = typing.get_origin(hint)
        if origin is dict:
            if not isinstance(value, dict):
                raise ConfigError(name, "must be an object")
            _, val_t = typing.get_args(hint)
            for k, v in value.items():
                inner_ok = isinstance(v, dict) if typing.get_origin(val_t) is dict else _scalar_ok(val_t, v)
                if not isinstance(k, str) or not inner_ok:
                    raise ConfigError(name, "has a value of the wrong type")
        elif origin in (tuple, list):
            if not isinstance(value, list):
                raise ConfigError(name, "must be a list")
            value = tuple(value)
        elif not _scalar_ok(hint, value):
            raise ConfigError(name, f"must be {hint.__name__ if isinstance(hint, type) else hint}")
        values[name] = value
    config = config_cls(**values)
    config.validate()
    return config


def config_to_dict(config: Any) -> dict:
    """The config as JSON, defaults filled in (the match summary echoes it)."""
    out = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        out[f.name] = copy.deepcopy(list(value) if isinstance(value, tuple) else value)
    return out


__all__ = [
    "ORGANIZER",
    "SPECTATOR",
    "Choice",
    "Command",
    "ConfigError",
    "Event",
    "GameConfig_contra",
    "GameState",
    "Phases",
    "RuleViolation",
    "Ruleset",
    "State",
    "UnreadableCommand",
    "Viewer",
    "chance_event",
    "check_game_running",
    "check_seat_in_match",
    "check_seat_to_act",
    "command_of_body",
    "config_from_dict",
    "config_to_dict",
    "copy_state",
    "field",
    "no_join_options",
    "passes",
]
