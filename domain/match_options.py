"""Options every match has whatever its ruleset: they live in the match config beside the ruleset's keys.

- `spectator_delay`: how many records spectators are held behind while the match runs (0: none).
  Seats and the organizer are never delayed; once the match has finished nobody is.
- `time_control`: how long seats may take — `{"kind": "none"}` (the default: untimed), a Fischer
  clock per seat `{"kind": "fischer", "initial_s": 300, "increment_s": 5}`, or a limit per decision
  `{"kind": "per_decision", "per_decision_s": 30}`. `kind` may be left out when the other keys say it.

The stored config (MatchCreated's `config`) holds each option a match was given (a delay other than
0, a clock), so a verifier reads the time control a match was played under from its first record;
an option left out is at its default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.config_fields import INTEGER, OBJECT, Domain, declared, declared_fields, is_int, setting
from domain.ruleset import ConfigError

SPECTATOR_DELAY = "spectator_delay"
TIME_CONTROL = "time_control"
MATCH_OPTION_KEYS = (SPECTATOR_DELAY, TIME_CONTROL)
NO_CLOCK, FISCHER, PER_DECISION = "none", "fischer", "per_decision"
TIME_CONTROL_KINDS = (NO_CLOCK, FISCHER, PER_DECISION)
# A week bounds every duration: long enough for correspondence play, short enough that an operator
# typo (milliseconds for seconds) is refused.
MAX_SECONDS = 7 * 24 * 3600
MAX_SPECTATOR_DELAY = 10_000

SPECTATOR_DELAY_DOC = (
    "while the match runs, spectators see it as of its *delayed version*: the last record of the newest write "
    "at or before version `max(1, latest − spectator_delay)` (the record carrying that write's receipt: "
    "spectators move on a whole write at a time, and their export ends on a receipt, so it verifies). That "
    "holds on every resource a spectator reads — summary and match list (`version`, ETag, status, `to_act`), "
    "view (`?at=` past the delayed version → 400 `invalid_parameter`), events and the live stream (records "
    "past it are released as later writes arrive), replay, bluff audit, export and the `/bluff-calls` index "
    "(a ruling appears once the delayed version reaches it). Held-back responses carry "
    '`Gambit-Spectator-Delay: N`; views and summaries also `"delay": {"records": N, "as_of": V}`. Seats and '
    "the organizer are never held back, and nobody is once the match has finished"
)
TIME_CONTROL_DOC = (
    '`{"kind": "none"}` (untimed); `{"kind": "fischer", "initial_s", "increment_s"}` — a clock per seat '
    "starting at `initial_s` (> 0) that gains `increment_s` (≥ 0, default 0) after each of the seat's "
    'commands; `{"kind": "per_decision", "per_decision_s"}` — every decision must come within '
    "`per_decision_s` (> 0). Seconds are whole numbers, at most 604800 (a week). `kind` may be left out "
    "when the other keys say which it is"
)


@dataclass(frozen=True)
class TimeControl:
    """A match's time control: no clock, a Fischer clock per seat, or a limit per decision."""

    kind: str = NO_CLOCK
    initial_s: int = 0
    increment_s: int = 0
    per_decision_s: int = 0

    @property
    def timed(self) -> bool:
        """Whether seats have clocks at all."""
        return self.kind != NO_CLOCK

    def to_dict(self) -> dict:
        """The JSON form stored in the config (only the keys of its kind)."""
        if self.kind == FISCHER:
            return {"kind": FISCHER, "initial_s": self.initial_s, "increment_s": self.increment_s}
        if self.kind == PER_DECISION:
            return {"kind": PER_DECISION, "per_decision_s": self.per_decision_s}
        return {"kind": NO_CLOCK}


def time_control_problem(options: object, value: Any) -> str | None:
    """What is wrong with a requested time control, or None (the refusal's detail, without the field)."""
    try:
        _time_control(value)
    except ConfigError as exc:
        return exc.detail
    return None


_SECONDS = {"type": "integer", "minimum": 1, "maximum": MAX_SECONDS}
TIME_CONTROL_SCHEMA = {
    "type": "object",
    "description": "no clock, a Fischer clock per seat, or a limit per decision; whole seconds",
    "oneOf": [
        {"properties": {"kind": {"const": NO_CLOCK}}, "required": ["kind"], "additionalProperties": False},
        {
            "properties": {
                "kind": {"const": FISCHER},
                "initial_s": _SECONDS,
                "increment_s": {**_SECONDS, "minimum": 0, "default": 0},
            },
            "required": ["initial_s"],
            "additionalProperties": False,
        },
        {
            "properties": {"kind": {"const": PER_DECISION}, "per_decision_s": _SECONDS},
            "required": ["per_decision_s"],
            "additionalProperties": False,
        },
    ],
}


@dataclass(frozen=True)
class MatchOptions:
    """The ruleset-independent options of one match; each field's domain is the JSON value it is given as."""

    spectator_delay: int = setting(
        0,
        Domain(
            INTEGER,
            0,
            MAX_SPECTATOR_DELAY,
            unit="records",
            doc=SPECTATOR_DELAY_DOC,
        ),
    )
    time_control: TimeControl = field(
        default_factory=TimeControl,
        metadata=declared(
            Domain(
                OBJECT,
                schema=TIME_CONTROL_SCHEMA,
                check=time_control_problem,
                type_doc="object",
                default_doc='`{"kind": "none"}`',
                to_json=TimeControl.to_dict,
                doc=TIME_CONTROL_DOC,
            )
        ),
    )

    def to_dict(self) -> dict:
        """The JSON form stored in (and echoed with) the match config: only the options a match was given.

        A match created without options stores and echoes the config it always did (absent keys
        read as their defaults), so clients and verifiers that know only the ruleset's keys see
        nothing new.
        """
        given: dict = {}
        if self.spectator_delay:
            given[SPECTATOR_DELAY] = self.spectator_delay
        if self.time_control.timed:
            given[TIME_CONTROL] = self.time_control.to_dict()
        return given


def split_config(raw: dict | None) -> tuple[dict, MatchOptions]:
    """Separate a requested config into the ruleset's part and validated match options (ConfigError if bad)."""
    raw = dict(raw or {})
    delay = raw.pop(SPECTATOR_DELAY, 0)
    control = raw.pop(TIME_CONTROL, None)
    return raw, MatchOptions(_spectator_delay(delay), _time_control(control))


def ruleset_part(config: dict) -> dict:
    """A stored config without the match options: what the ruleset's Config is built from."""
    return {key: value for key, value in config.items() if key not in MATCH_OPTION_KEYS}


def options_of(config: dict) -> MatchOptions:
    """The match options of a stored config; a config from before options existed has the defaults."""
    try:
        return split_config({key: config[key] for key in MATCH_OPTION_KEYS if key in config})[1]
    except ConfigError:
        return MatchOptions()


def _spectator_delay(value: Any) -> int:
    problem = _DOMAINS[SPECTATOR_DELAY].problem(None, value)
    if problem is not None:
        raise ConfigError(SPECTATOR_DELAY, problem)
    return int(value)


def _time_control(value: Any) -> TimeControl:
    if value is None:
        return TimeControl()
    if not isinstance(value, dict):
        raise ConfigError(
            TIME_CONTROL, 'must be an object, e.g. {"kind": "fischer", "initial_s": 300, "increment_s": 5}'
        )
    kind = value.get("kind", _kind_from_keys(value))
    if kind not in TIME_CONTROL_KINDS:
        raise ConfigError(TIME_CONTROL, f"kind must be one of {', '.join(TIME_CONTROL_KINDS)}")
    allowed = {
        NO_CLOCK: {"kind"},
        FISCHER: {"kind", "initial_s", "increment_s"},
        PER_DECISION: {"kind", "per_decision_s"},
    }[kind]
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ConfigError(TIME_CONTROL, f"{unknown[0]!r} is not a key of a {kind!r} time control")
    if kind == FISCHER:
        return TimeControl(
            FISCHER,
            _seconds(value.get("initial_s"), "initial_s", positive=True),
            _seconds(value.get("increment_s", 0), "increment_s", positive=False),
        )
    if kind == PER_DECISION:
        return TimeControl(PER_DECISION, per_decision_s=_seconds(value.get("per_decision_s"), "per_decision_s", True))
    return TimeControl()


def _kind_from_keys(value: dict) -> str:
    if "per_decision_s" in value:
        return PER_DECISION
    if "initial_s" in value or "increment_s" in value:
        return FISCHER
    return NO_CLOCK


def _seconds(value: Any, name: str, positive: bool) -> int:
    # Whole seconds: the API takes no fractions anywhere (docs/config.md, "Strict JSON").
    low_ok = is_int(value) and (value > 0 if positive else value >= 0)
    if not low_ok or value > MAX_SECONDS:
        bound = "more than 0" if positive else "at least 0"
        raise ConfigError(TIME_CONTROL, f"{name} must be whole seconds, {bound} and at most {MAX_SECONDS}")
    return value


_DOMAINS = {declared.name: declared.domain for declared in declared_fields(MatchOptions)}
