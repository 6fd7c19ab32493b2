"""Decide's scratch pad, shared by every ruleset: a copy of the state that each decided event is folded into at once.

A decision often emits several events, and a later one depends on what an earlier one did (a
draw that empties the deck, a reveal that names the record it opens, a loss that ends the game).
`Decision` copies the state once, folds every emitted event into the copy with the version it
will be recorded at, and keeps the events for the record. Versions come from the chance source
(`Chance.version`: the match knows where the decision's records start, its own records such as
disputes may lie between ruleset events); the state's own count is only a fallback for callers
that decide without a match.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from domain.event_types import Payload
from domain.records import json_copy
from domain.ruleset import Event

S = TypeVar("S")


class GameEnded(Exception):
    """Raised by `Decision.emit` once an event ends the game: no further event of the decision may follow."""


def fast_copy(state: S) -> S:
    """An independent copy of a plain-JSON state (several times cheaper than `copy.deepcopy` for this shape)."""
    copied: S = json_copy(state)
    return copied


class Decision(Generic[S]):
    """The state as it stands after the events decided so far, and those events in order (over a game's own state type).

    `evolve` is the ruleset's fold. With `ended`, a predicate on the state, `emit` raises
    `GameEnded` as soon as an event ends the game, so rules deep in a resolution need not check;
    `decide` catches it and returns `events`.
    """

    def __init__(
        self,
        state: S,
        chance: Any,
        evolve: Callable[[S, Event], S],
        ended: Callable[[S], bool] | None = None,
    ) -> None:
        self.state = fast_copy(state)
        self.chance = chance
        self.events: list[Event] = []
        self._evolve = evolve
        self._ended = ended
        self._purposes = 0
        known = None if chance is None else chance.version
        self._first_version: int | None = known if known is not None else _fallback_version(state)

    @property
    def next_version(self) -> int | None:
        """The version the next emitted event will be recorded at (None when nothing tells it)."""
        if self._first_version is None:
            return None
        return self._first_version + len(self.events)

    def purpose(self, name: str) -> str:
        """A chance purpose unique within this decision (`name-1`, `name-2`, ...)."""
        self._purposes += 1
        return f"{name}-{self._purposes}"

    def emit(
        self,
        kind: str,
        public: dict,
        secret: dict | None = None,
        audience: tuple[str, ...] | None = None,
        opens: tuple[int, ...] = (),
        evidence: tuple[int, ...] = (),
    ) -> int | None:
        """Record an event of this decision and fold it; returns the version it will be recorded at."""
        audience = None if secret is None else tuple(audience or ())
        return self.add(Event(kind, public, secret, audience, tuple(opens), None, tuple(evidence)))

    def emit_chance(self, kind: str, drawn: Any, public: dict) -> int | None:
        """Record a chance result only organizers see while the match runs (a hidden roll or shuffle)."""
        return self.add(Event(kind, {**public, "chance": drawn.descriptor}, {"chance_result": drawn.result}, ()))

    def record(
        self, payload: Payload, audience: tuple[str, ...] | None = None, opens: tuple[int, ...] = ()
    ) -> int | None:
        """Emit the event recording a typed payload (its audience when it has a secret)."""
        return self.add(payload.event(audience, opens))

    def add(self, event: Event) -> int | None:
        """Fold an event (a JSON copy, so later folds never alias it) and keep it for the record."""
        version = self.next_version
        data = json_copy({"p": event.public, "s": event.secret})
        self._evolve(
            self.state, Event(event.kind, data["p"], data["s"], event.audience, event.opens, version, event.evidence)
        )
        self.events.append(event)
        if self._ended is not None and self._ended(self.state):
            raise GameEnded
        return version


def _fallback_version(state: object) -> int | None:
    version = state.get("version") if isinstance(state, dict) else None
    return version + 1 if isinstance(version, int) else None
