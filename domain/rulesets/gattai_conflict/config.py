"""The match config of a Gattaibushido conflict, its seats, and the join options (none)."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.ruleset import ConfigError, no_join_options

RULESET_ID = "gattai-conflict"

COACH = "coach"
PILOT_SEATS = ("p1", "p2", "p3", "p4")
MODES = ("gambit", "throwdown")
SHEET_DEFAULTS = {"steel": 2, "flesh": 2, "synch": 2, "solo": 2, "charges_max": 3, "buffers": 1, "charges": 0}
# A house cap on sheet values keeps Throwdown draws within the 52 cards of the Pilot Deck.
SHEET_MAX = 10
MAX_THREATS = 6
MAX_STACK = 5


def _default_pilots() -> dict[str, dict[str, int]]:
    return {"p1": {k: v for k, v in SHEET_DEFAULTS.items() if k != "charges"}}


@dataclass(frozen=True)
class Config:
    """The conflict: its mode, the pilots' sheets, Harmony, and the mode's own settings.

    `pilots` maps p1..pN (1-4 pilots) to sheets; a sheet's missing keys take the house defaults
    (steel 2, flesh 2, synch 2, solo 2, charges_max 3, buffers 1) and the optional `charges`
    (the charges she starts with, default 0). `mode` defaults to `gambit`, the most common
    conflict. Throwdown: `threats` (name -> rating), `threat_stacks` (name -> cards invested on
    that Threat, dealt face down from the Coach Deck at the start and drawn by the Coach at the
    Draws step, as the seed's Coach Bonus Draws say; default none), `started_by`, `commander`.
    Gambit: `pilot`, `specialty`. `crisis_tier` sets how many cards a +Tarry sends to the Coach's Trash.
    """

    mode: str = "gambit"
    pilots: dict[str, dict[str, int]] = field(default_factory=_default_pilots)
    harmony: int = 4
    crisis_tier: int = 1
    threats: dict[str, int] = field(default_factory=lambda: {"threat": 3})
    threat_stacks: dict[str, int] = field(default_factory=dict)
    started_by: str = "pilots"
    commander: str = "p1"
    pilot: str = "p1"
    specialty: bool = False

    def validate(self) -> None:
        """Raise ConfigError for a config the conflict cannot be played with."""
        if self.mode not in MODES:
            raise ConfigError("mode", "must be 'gambit' or 'throwdown'")
        names = list(self.pilots)
        if not 1 <= len(names) <= 4 or names != list(PILOT_SEATS[:len(names)]):
            raise ConfigError("pilots", "must name one to four pilots p1..pN, in order")
        for seat, sheet in self.pilots.items():
            for key, value in sheet.items():
                if key not in SHEET_DEFAULTS:
                    raise ConfigError("pilots", f"{seat}: unknown sheet key {key!r}")
                if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= SHEET_MAX:
                    raise ConfigError("pilots", f"{seat}.{key} must be an integer 0..{SHEET_MAX}")
            full = sheet_of(self, seat)
            if full["charges"] > full["charges_max"]:
                raise ConfigError("pilots", f"{seat}.charges exceeds charges_max")
        if not 1 <= self.harmony <= 7:
            raise ConfigError("harmony", "must be an integer from 1 (Red) to 7 (Violet)")
        if not 1 <= self.crisis_tier <= 5:
            raise ConfigError("crisis_tier", "must be an integer from 1 to 5")
        if not 1 <= len(self.threats) <= MAX_THREATS:
            raise ConfigError("threats", f"must list 1..{MAX_THREATS} threats")
        for name, rating in self.threats.items():
            if not 1 <= len(name) <= 40:
                raise ConfigError("threats", "a threat's name must be 1..40 characters")
            if not 1 <= rating <= 10:
                raise ConfigError("threats", f"{name}: rating must be an integer from 1 to 10")
        for name, count in self.threat_stacks.items():
            if name not in self.threats:
                raise ConfigError("threat_stacks", f"{name!r} is not one of the threats")
            if not 0 <= count <= MAX_STACK:
                raise ConfigError("threat_stacks", f"{name}: must be an integer from 0 to {MAX_STACK} (cards)")
        if self.started_by not in ("pilots", "coach"):
            raise ConfigError("started_by", "must be 'pilots' or 'coach'")
        if self.commander not in self.pilots:
            raise ConfigError("commander", "must be one of the pilots")
        if self.pilot not in self.pilots:
            raise ConfigError("pilot", "must be one of the pilots")


def sheet_of(config: Config, seat: str) -> dict[str, int]:
    """A pilot's sheet with the house defaults filled in."""
    return {**SHEET_DEFAULTS, **config.pilots[seat]}


def seat_names(config: Config) -> list[str]:
    """The seats: the Coach, then the pilots p1..pN."""
    return [COACH, *config.pilots]


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """A seat joins with no options: everything a conflict needs is in the match config."""
    return no_join_options(raw)
