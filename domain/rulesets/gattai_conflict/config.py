"""The match config of a Gattaibushido conflict, its seats, and the join options (none)."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.config_fields import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    OBJECT,
    STRING,
    DeclaredConfig,
    Domain,
    declared,
    setting,
)
from domain.ruleset import no_join_options

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


def pilots_problem(config: object, pilots: dict[str, dict[str, int]]) -> str | None:
    """Beyond the sheets' shape (PILOTS_SCHEMA): the pilots are p1..pN in order, no charges over the maximum."""
    if list(pilots) != list(PILOT_SEATS[: len(pilots)]):
        return "must name one to four pilots p1..pN, in order"
    for seat, sheet in pilots.items():
        if sheet["charges"] > sheet["charges_max"]:
            return f"{seat}.charges exceeds charges_max"
    return None


def threats_problem(config: object, threats: tuple[dict, ...]) -> str | None:
    """Beyond the list's shape (THREATS_SCHEMA): no two threats share a name."""
    names = [threat["name"] for threat in threats]
    twice = sorted({name for name in names if names.count(name) > 1})
    return f"{twice[0]!r} is named twice" if twice else None


def threat_stacks_problem(config: Config, stacks: dict[str, int]) -> str | None:
    """Beyond the counts' range (THREAT_STACKS_SCHEMA): every stack is on one of the threats."""
    ratings = threat_ratings(config)
    strays = [name for name in stacks if name not in ratings]
    return f"{strays[0]!r} is not one of the threats" if strays else None


def pilots_of(config: Config) -> list[str]:
    """The pilots' seats the config names."""
    return list(config.pilots)


SHEET_SCHEMA = {
    "type": "object",
    "properties": {
        key: {"type": "integer", "minimum": 0, "maximum": SHEET_MAX, "default": value}
        for key, value in SHEET_DEFAULTS.items()
    },
    "additionalProperties": False,
}
PILOTS_SCHEMA = {
    "type": "object",
    "description": "p1..pN (1 to 4, in order) -> sheet; charges at most charges_max",
    "properties": {seat: SHEET_SCHEMA for seat in PILOT_SEATS},
    "additionalProperties": False,
    "minProperties": 1,
}
THREATS_SCHEMA = {
    "type": "array",
    "description": "the Coach's threats, names distinct",
    "minItems": 1,
    "maxItems": MAX_THREATS,
    "items": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": MAX_THREAT_NAME},
            "rating": {"type": "integer", "minimum": 1, "maximum": 10, "default": THREAT_DEFAULT_RATING},
        },
        "additionalProperties": False,
    },
}
THREAT_STACKS_SCHEMA = {
    "type": "object",
    "description": "threat name (one of threats) -> cards invested on it",
    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": MAX_STACK},
}


@dataclass(frozen=True)
class Config(DeclaredConfig):
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
    through untyped: its check judges the shape.)
    """

    mode: str = setting("gambit", Domain(STRING, choices=MODES, doc="the conflict played"))
    pilots: dict[str, dict[str, int]] = field(
        default_factory=_default_pilots,
        metadata=declared(
            Domain(
                OBJECT,
                schema=PILOTS_SCHEMA,
                check=pilots_problem,
                type_doc="object: `p1`…`pN` → sheet",
                default_doc="one pilot, `p1`, with the house sheet",
                doc="1 to 4 pilots, in order; sheet keys `steel`, `flesh`, `synch`, `solo` (default 2), "
                f"`charges_max` (3), `buffers` (1), `charges` (0), each 0 to {SHEET_MAX}; `charges` ≤ `charges_max`; "
                "echoed with every default filled in",
            )
        ),
    )
    harmony: int = setting(4, Domain(INTEGER, 1, 7, labels=((1, "Red"), (7, "Violet")), doc="the team's Harmony"))
    crisis_tier: int = setting(1, Domain(INTEGER, 1, 5, doc="how many cards a +Tarry sends to the Coach's Trash"))
    threats: tuple[dict, ...] | dict[str, int] = field(
        default_factory=_default_threats,
        metadata=declared(
            Domain(
                ARRAY,
                schema=THREATS_SCHEMA,
                check=threats_problem,
                type_doc='list of `{"name", "rating"}` (the earlier object name → rating is still taken)',
                doc=f"1 to {MAX_THREATS} threats; names distinct, 1 to {MAX_THREAT_NAME} characters; "
                f"ratings 1 to 10, default {THREAT_DEFAULT_RATING}",
            )
        ),
    )
    threat_stacks: dict[str, int] = field(
        default_factory=dict,
        metadata=declared(
            Domain(
                OBJECT,
                schema=THREAT_STACKS_SCHEMA,
                check=threat_stacks_problem,
                type_doc="object: threat name → cards",
                doc=f"names among `threats`; 0 to {MAX_STACK} cards each",
            )
        ),
    )
    started_by: str = setting("pilots", Domain(STRING, choices=("pilots", "coach"), doc="who starts a Throwdown"))
    commander: str = setting(
        "p1",
        Domain(
            STRING,
            choices=PILOT_SEATS,
            within=pilots_of,
            within_doc="one of the pilots",
            doc="the pilot who leads the Team in a Throwdown",
        ),
    )
    pilot: str = setting(
        "p1",
        Domain(
            STRING,
            choices=PILOT_SEATS,
            within=pilots_of,
            within_doc="one of the pilots",
            doc="the pilot who faces a Gambit",
        ),
    )
    specialty: bool = setting(
        False,
        Domain(BOOLEAN, doc="the Gambit is in the pilot's specialty: the chosen boon or complication happens twice"),
    )

    def __post_init__(self) -> None:
        """Fill in each sheet's defaults and put the threats in list form (shapes are the checks' to judge)."""
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


def _threat_entry(threat: object) -> object:
    """A threat entry with its default rating filled in, name and rating first (anything else is the check's)."""
    if not isinstance(threat, dict):
        return threat
    entry = {key: threat[key] for key in THREAT_KEYS if key in threat}
    entry.setdefault("rating", THREAT_DEFAULT_RATING)
    return {**entry, **threat}


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
