"""What the parts of a Match (its base classes in domain/match_*.py) read of it, declared for the type checker.

Match (domain/match.py) defines every one of these; the parts hold no state of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

if TYPE_CHECKING:
    from domain.chance import Chance
    from domain.ruleset import Event, Ruleset

    _Aggregate = Aggregate
else:
    # At run time a part is a plain class: only Match itself is the library's Aggregate.
    _Aggregate = object


class MatchShape(_Aggregate):
    """The attributes and record methods of a Match that its parts use."""

    if TYPE_CHECKING:
        seat_order: list[str]
        seats: dict[str, dict]
        status: str
        outcome: dict | None
        head: str
        disputes: dict[str, dict]
        receipt: dict | None
        integrity_problem: str | None
        state: Any
        clock: dict | None

        @property
        def match_id(self) -> str: ...

        @property
        def ruleset(self) -> Ruleset[Any, Any]: ...

        def chance(self) -> Chance: ...

        def _record(
            self, event: Event, meta: dict | None = None, evidence: Callable[[int], dict] | None = None
        ) -> None: ...

        def _with_pending(self, evidence: Callable[[int], dict] | None) -> Callable[[int], dict] | None: ...

        def _finish_if_over(self, meta: dict | None = None) -> None: ...
