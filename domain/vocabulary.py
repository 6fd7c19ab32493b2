"""The plain values every layer trades in: an event a ruleset decided, and who is looking.

They live apart from the ruleset contract (domain/ruleset.py re-exports them) so the typed
declarations the contract names (domain/event_types.py, domain/view_types.py) can use them
without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

SPECTATOR = "spectator"
ORGANIZER = "organizer"


@dataclass(frozen=True)
class Event:
    """A fact a ruleset decided: past-tense `kind`, a public part, an optional secret.

    `audience` lists the seats that may see the secret while the match runs (`()` when only
    organizers may); it is None exactly when there is no secret. `opens` names earlier
    versions this event reveals to everyone (a sealed card turned face up, a lost piece's
    powers shown): their whole secret must be public from now on. `evidence` names earlier
    versions a ruling rests on that stay sealed (a seat's hidden powers behind a false claim):
    they are copied into this event's own secret, for its audience, organizers, and everyone
    once the match ends. `version` is set by the match when the event is recorded.
    """

    kind: str
    public: dict
    secret: dict | None = None
    audience: tuple[str, ...] | None = None
    opens: tuple[int, ...] = ()
    version: int | None = None
    evidence: tuple[int, ...] = ()


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a seat, a spectator or an organizer; `sees_all` once the match ended."""

    role: str
    seat: str | None = None
    sees_all: bool = False

    @property
    def label(self) -> str:
        """The `viewer` value of a view: the seat name, `spectator` or `organizer`."""
        return self.seat if self.seat is not None else self.role

    def may_see(self, audience: tuple[str, ...] | list[str] | None) -> bool:
        """Whether a secret with this audience is visible to this viewer."""
        if audience is None:
            return True
        return self.sees_all or (self.seat is not None and self.seat in audience)
