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
MAX_THREAT_NAME = 40
# A threat entry of the page's form `{"name", "rating"}`; a missing rating is the page's default 3.
THREAT_DEFAULT_RATING = 3
THREAT_KEYS = ("name", "rating")


def _default_pilots() -> dict[str, dict[str, int]]:
    return {"p1": dict(SHEET_DEFAULTS)}


def _default_threats() -> tuple[dict, ...]:
    return ({"name": "threat", "rating": THREAT_DEFAULT_RATING},)


@dataclass(frozen=True)
class Config:
    """The conflict: its mode, the pilots' sheets, Harmony, and the mode's own settings.

    `pilots` maps p1..pN (1-4 pilots) to sheets; a sheet's missing keys take the house defaults
    (steel 2, flesh 2, synch 2, solo 2, charges_max 3, buffers 1) and the optional `charges`
    (the charges she starts with, default 0). `mode` defaults to `gambit`, the most common
    conflict. Throwdown: `threats` (the page's list `[{"name", "rating"}]`, rating default 3),
    `threat_stacks` (name -> cards invested on that Threat, dealt face down from the Coach Deck
    at the start and drawn by the Coach at the Draws step, as the seed's Coach Bonus Draws say;
    default none), `started_by`, `commander`. Gambit: `pilot`, `specialty`. `crisis_tier` sets
    how many cards a +Tarry sends to the Coach's Trash.

    The config is normalized when it is built, so the match summary (config_to_dict) echoes
    every sheet with its defaults filled in and the threats in the page's list form. `threats`
    is also taken in the earlier map form `{name: rating}`, so matches stored with it still
    replay; it is echoed as the list. (Its type is a union, which config_from_dict passes
    through untyped: validate() checks the shape.)
    """

    mode: str = "gambit"
    pilots: dict[str, dict[str, int]] = field(default_factory=_default_pilots)
    harmony: int = 4
    crisis_tier: int = 1
    threats: tuple[dict, ...] | dict[str, int] = field(default_factory=_default_threats)
    threat_stacks: dict[str, int] = field(default_factory=dict)
    started_by: str = "pilots"
    commander: str = "p1"
    pilot: str = "p1"
    specialty: bool = False

    def __post_init__(self) -> None:
        """Fill in each sheet's defaults and put the threats in list form (shapes are validate()'s to judge)."""
        if isinstance(self.pilots, dict):
            sheets = {
                seat: ({**SHEET_DEFAULTS, **sheet} if isinstance(sheet, dict) else sheet)
                for seat, sheet in self.pilots.items()
            }
            object.__setattr__(self, "pilots", sheets)
        threats: object = self.threats
        if isinstance(threats, dict):
            threats = [{"name": name, "rating": rating} for name, rating in threats.items()]
        if isinstance(threats, (list, tuple)):
            object.__setattr__(self, "threats", tuple(_threat_entry(t) for t in threats))

    def validate(self) -> None:
        """Raise ConfigError for a config the conflict cannot be played with."""
        if self.mode not in MODES:
            raise ConfigError("mode", "must be 'gambit' or 'throwdown'")
        names = list(self.pilots)
        if not 1 <= len(names) <= 4 or names != list(PILOT_SEATS[: len(names)]):
            raise ConfigError("pilots", "must name one to four pilots p1..pN, in order")
        for seat, sheet in self.pilots.items():
            if not isinstance(sheet, dict):
                raise ConfigError("pilots", f"{seat}: a sheet must be an object")
            for key, value in sheet.items():
                if key not in SHEET_DEFAULTS:
                    raise ConfigError("pilots", f"{seat}: unknown sheet key {key!r}")
                if not _is_int(value) or not 0 <= value <= SHEET_MAX:
                    raise ConfigError("pilots", f"{seat}.{key} must be an integer 0..{SHEET_MAX}")
            full = sheet_of(self, seat)
            if full["charges"] > full["charges_max"]:
                raise ConfigError("pilots", f"{seat}.charges exceeds charges_max")
        if not 1 <= self.harmony <= 7:
            raise ConfigError("harmony", "must be an integer from 1 (Red) to 7 (Violet)")
        if not 1 <= self.crisis_tier <= 5:
            raise ConfigError("crisis_tier", "must be an integer from 1 to 5")
        _validate_threats(self.threats)
        ratings = threat_ratings(self)
        for name, count in self.threat_stacks.items():
            if name not in ratings:
                raise ConfigError("threat_stacks", f"{name!r} is not one of the threats")
            if not 0 <= count <= MAX_STACK:
                raise ConfigError("threat_stacks", f"{name}: must be an integer from 0 to {MAX_STACK} (cards)")
        if self.started_by not in ("pilots", "coach"):
            raise ConfigError("started_by", "must be 'pilots' or 'coach'")
        if self.commander not in self.pilots:
            raise ConfigError("commander", "must be one of the pilots")
        if self.pilot not in self.pilots:
            raise ConfigError("pilot", "must be one of the pilots")


def _threat_entry(threat: object) -> object:
    """A threat entry with its default rating filled in, name and rating first (anything else is validate()'s)."""
    if not isinstance(threat, dict):
        return threat
    entry = {key: threat[key] for key in THREAT_KEYS if key in threat}
    entry.setdefault("rating", THREAT_DEFAULT_RATING)
    return {**entry, **threat}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _validate_threats(threats: object) -> None:
    """The threats are a list of 1..MAX_THREATS objects `{"name", "rating"}` with distinct names."""
    if not isinstance(threats, tuple) or not 1 <= len(threats) <= MAX_THREATS:
        raise ConfigError("threats", f'must list 1..{MAX_THREATS} threats, each {{"name", "rating"}}')
    seen: set[str] = set()
    for threat in threats:
        if not isinstance(threat, dict):
            raise ConfigError("threats", 'each threat must be an object {"name", "rating"}')
        unknown = sorted(set(threat) - set(THREAT_KEYS))
        if unknown:
            raise ConfigError("threats", f"unknown threat key {unknown[0]!r} (a threat has a name and a rating)")
        name, rating = threat.get("name"), threat["rating"]
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_THREAT_NAME:
            raise ConfigError("threats", f"a threat's name must be 1..{MAX_THREAT_NAME} characters")
        if name in seen:
            raise ConfigError("threats", f"{name!r} is named twice")
        seen.add(name)
        if not _is_int(rating) or not 1 <= rating <= 10:
            raise ConfigError("threats", f"{name}: rating must be an integer from 1 to 10")


def threat_ratings(config: Config) -> dict[str, int]:
    """The Coach's Threats by name, each with its rating, in config order."""
    if isinstance(config.threats, dict):
        return dict(config.threats)
    return {t["name"]: t["rating"] for t in config.threats}


def sheet_of(config: Config, seat: str) -> dict[str, int]:
    """A pilot's sheet with the house defaults filled in."""
    return {**SHEET_DEFAULTS, **config.pilots[seat]}


def seat_names(config: Config) -> list[str]:
    """The seats: the Coach, then the pilots p1..pN."""
    return [COACH, *config.pilots]


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """A seat joins with no options: everything a conflict needs is in the match config."""
    return no_join_options(raw)
