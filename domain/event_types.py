"""Typed event payloads: each event kind of a game is a frozen dataclass, and `evolve` dispatches on it.

A record stays what it always was (`Event`: a kind, a public part, an optional secret), so every
stored match and export reads as before. What a game adds is the declaration of each kind:

    @dataclass(frozen=True, kw_only=True)
    class QueenMoved(Payload):
        seat: str
        queen: str
        source: str = keyed("from")      # the record's key, where it is not a Python name
        target: str = keyed("to")

    @dataclass(frozen=True, kw_only=True)
    class CardsReturned(Payload):
        seat: str
        count: int
        cards: list[str] = hidden()      # a field of the secret part
        kept: bool = optional(False)     # written only when it differs from the default

    EVENTS = EventTypes(QueenMoved, CardsReturned, ...)   # events.py: every kind the game records

and its fold (state.py) registers one function per type:

    FOLDS = Folds(EVENTS)

    @FOLDS.on(QueenMoved)
    def _queen_moved(state: GambitzState, moved: QueenMoved, event: Event) -> None: ...

    def evolve(state, event):
        return FOLDS.fold(state, event)

mypy checks each fold against its payload's fields; the conformance kit checks that every event
`setup`, `decide` and `time_out` emit has exactly the declared parts with the declared types, and
that every declared kind is folded (or declared as changing nothing with `Folds.unchanged`). The
spec generator turns the declarations into the contract's event payload schemas.

A field with a default may be missing from a record (records written before the field existed);
a record missing a required field fails the fold with KeyError, which the verifier reports as a
finding. The kind is the class name, or `KIND` where a class sets it.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterator
from dataclasses import MISSING
from typing import Any, ClassVar, Generic, TypeVar

from domain.json_types import schema_of
from domain.vocabulary import Event

S = TypeVar("S")
P = TypeVar("P", bound="Payload")


def keyed(key: str, default: Any = MISSING) -> Any:
    """A public field stored under `key` in the record (a name Python reserves, such as `from`)."""
    return dataclasses.field(default=default, metadata={"key": key})


def hidden(default: Any = MISSING, key: str | None = None) -> Any:
    """A field of the event's secret part (seen only by its audience while the match runs)."""
    metadata: dict[str, Any] = {"secret": True}
    if key is not None:
        metadata["key"] = key
    return dataclasses.field(default=default, metadata=metadata)


def optional(default: Any = None, key: str | None = None, secret: bool = False) -> Any:
    """A field the record holds only when it differs from `default` (a key written only when true)."""
    metadata: dict[str, Any] = {"secret": secret, "omitted_at_default": True}
    if key is not None:
        metadata["key"] = key
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Payload:
    """Base of every typed event payload: its fields are the record's public and secret keys."""

    KIND: ClassVar[str | None] = None

    @classmethod
    def kind(cls) -> str:
        """The record kind this payload type reads and writes."""
        return cls.KIND or cls.__name__

    def parts(self) -> tuple[dict, dict | None]:
        """The public part and the secret part (None when the kind has no secret fields) as records hold them."""
        public: dict[str, Any] = {}
        secret: dict[str, Any] | None = None
        for f, key, is_secret in _layout(type(self)):
            value = getattr(self, f.name)
            if f.metadata.get("omitted_at_default") and value == f.default:
                continue
            if is_secret:
                secret = {} if secret is None else secret
                secret[key] = value
            else:
                public[key] = value
        return public, secret

    def event(
        self,
        audience: tuple[str, ...] | None = None,
        opens: tuple[int, ...] = (),
        evidence: tuple[int, ...] = (),
    ) -> Event:
        """The event recording this payload (a kind with secret fields needs its audience: `()` is organizers only)."""
        public, secret = self.parts()
        if secret is not None and audience is None:
            audience = ()
        return Event(self.kind(), public, secret, audience if secret is not None else None, opens, evidence=evidence)


_LAYOUTS: dict[type, tuple[tuple[dataclasses.Field, str, bool], ...]] = {}


def _layout(cls: type) -> tuple[tuple[dataclasses.Field, str, bool], ...]:
    found = _LAYOUTS.get(cls)
    if found is None:
        found = _LAYOUTS[cls] = tuple(
            (f, f.metadata.get("key", f.name), bool(f.metadata.get("secret"))) for f in dataclasses.fields(cls)
        )
    return found


class EventTypes:
    """Every event kind a game records, by kind: parses a record into its typed payload."""

    def __init__(self, *types: type[Payload]) -> None:
        self.by_kind: dict[str, type[Payload]] = {}
        for cls in types:
            if cls.kind() in self.by_kind:
                raise ValueError(f"event kind {cls.kind()!r} is declared twice")
            self.by_kind[cls.kind()] = cls

    def __iter__(self) -> Iterator[type[Payload]]:
        return iter(self.by_kind.values())

    def kinds(self) -> list[str]:
        """The declared kinds, in declaration order."""
        return list(self.by_kind)

    def parse(self, event: Event) -> Payload | None:
        """The typed payload of a record, or None for a kind the game does not declare (the match's own)."""
        cls = self.by_kind.get(event.kind)
        if cls is None:
            return None
        public, secret = event.public, event.secret or {}
        values = {}
        for f, key, is_secret in _layout(cls):
            source = secret if is_secret else public
            if key in source:
                values[f.name] = source[key]
            elif f.default is MISSING and f.default_factory is MISSING:
                raise KeyError(f"{event.kind} record lacks {key!r}")
        return cls(**values)

    def schemas(self, cls: type[Payload]) -> tuple[dict, dict | None]:
        """The JSON Schemas of one kind's public part and secret part (None when it has no secret fields)."""
        hints = typing.get_type_hints(cls)
        parts: dict[bool, tuple[dict, list[str]]] = {False: ({}, []), True: ({}, [])}
        for f, key, is_secret in _layout(cls):
            properties, required = parts[is_secret]
            properties[key] = schema_of(hints[f.name])
            if f.default is MISSING and f.default_factory is MISSING:
                required.append(key)

        def obj(properties: dict, required: list[str]) -> dict:
            out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
            if required:
                out["required"] = required
            return out

        public = obj(*parts[False])
        secret = obj(*parts[True]) if parts[True][0] else None
        if secret is not None and not parts[True][1]:
            # Every secret field is optional: a record whose secret fields are all at their defaults has no secret.
            secret["type"] = ["object", "null"]
        return public, secret


class Folds(Generic[S]):
    """A game's fold: one function per payload type, applied by `fold` (unknown kinds change nothing)."""

    def __init__(self, events: EventTypes) -> None:
        self.events = events
        self._folds: dict[type[Payload], Callable[[S, Any, Event], None]] = {}
        self._unchanged: set[type[Payload]] = set()

    def on(self, payload_type: type[P]) -> Callable[[Callable[[S, P, Event], None]], Callable[[S, P, Event], None]]:
        """Register the fold of one payload type (a decorator)."""

        def register(fold: Callable[[S, P, Event], None]) -> Callable[[S, P, Event], None]:
            if payload_type in self._folds:
                raise ValueError(f"{payload_type.kind()} is folded twice")
            self._folds[payload_type] = fold
            return fold

        return register

    def unchanged(self, *payload_types: type[Payload]) -> None:
        """Declare kinds the state does not follow (a record for the log alone)."""
        self._unchanged.update(payload_types)

    def unaccounted(self) -> list[str]:
        """Declared kinds with neither a fold nor an `unchanged` declaration (the conformance kit wants none)."""
        return [cls.kind() for cls in self.events if cls not in self._folds and cls not in self._unchanged]

    def fold(self, state: S, event: Event) -> S:
        """Fold one recorded event into the state and return it (never validates)."""
        payload = self.events.parse(event)
        if payload is not None:
            fold = self._folds.get(type(payload))
            if fold is not None:
                fold(state, payload, event)
        return state
