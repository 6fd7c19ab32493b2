"""The match's chance source: every shuffle, deal and die is derived from the committed seed.

`draw`, `permutation` and `roll` follow docs/verification.md exactly, so anyone holding a finished
match's export can re-derive every result from the revealed server seed.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from domain.records import canonical

_SPAN = 2**64


class ChanceDescriptor(TypedDict):
    """The public descriptor of a chance result (docs/verification.md): how to re-derive it."""

    draw: Literal["draw", "permutation", "roll"]
    purpose: str
    n: int


class ShuffleDescriptor(TypedDict):
    """The descriptor of a shuffle: a permutation of `n` cards drawn under `purpose`."""

    draw: Literal["permutation"]
    purpose: str
    n: int


@dataclass(frozen=True)
class Drawn:
    """One chance result and the public descriptor that lets anyone re-derive it."""

    draw: str
    purpose: str
    n: int
    result: Any

    @property
    def descriptor(self) -> dict:
        """The `chance` object a chance event puts in its public part."""
        return {"draw": self.draw, "purpose": self.purpose, "n": self.n}


def derive_draw(server_seed: bytes, match_id: str, client_seeds: list[str], purpose: str, n: int) -> int:
    """A uniform integer in [0, n) by HMAC-SHA256 with rejection sampling (no modulo bias)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    limit = _SPAN - (_SPAN % n)
    counter = 0
    while True:
        message = canonical(
            {"match": match_id, "client_seeds": list(client_seeds), "purpose": purpose, "counter": counter}
        )
        x = int.from_bytes(hmac.new(server_seed, message, hashlib.sha256).digest()[:8], "big")
        if x < limit:
            return x % n
        counter += 1


def derive_permutation(server_seed: bytes, match_id: str, client_seeds: list[str], purpose: str, n: int) -> list[int]:
    """Fisher–Yates over range(n), each swap index drawn under `purpose/i`."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = derive_draw(server_seed, match_id, client_seeds, f"{purpose}/{i}", i + 1)
        order[i], order[j] = order[j], order[i]
    return order


class Chance:
    """The chance source handed to `setup` and `decide`.

    Every purpose is prefixed with the scope the match gives (the version about to be written),
    so purposes stay unique within a match without rulesets keeping counters; a purpose used
    twice in one scope is a programming error.
    """

    def __init__(
        self, server_seed: bytes, match_id: str, client_seeds: list[str], scope: str = "", version: int | None = None
    ) -> None:
        self._seed = server_seed
        self._match_id = match_id
        self._client_seeds = list(client_seeds)
        self._scope = scope
        self._used: set[str] = set()
        self.version = version
        """The version the first event of this decision will be recorded at (a ruling names itself by it)."""

    def _purpose(self, purpose: str) -> str:
        full = f"{self._scope}/{purpose}" if self._scope else purpose
        if full in self._used:
            raise ValueError(f"chance purpose used twice: {full}")
        self._used.add(full)
        return full

    def draw(self, purpose: str, n: int) -> Drawn:
        """A uniform integer in [0, n)."""
        full = self._purpose(purpose)
        return Drawn("draw", full, n, derive_draw(self._seed, self._match_id, self._client_seeds, full, n))

    def permutation(self, purpose: str, n: int) -> Drawn:
        """A uniform permutation of range(n) (a shuffle)."""
        full = self._purpose(purpose)
        return Drawn(
            "permutation", full, n, derive_permutation(self._seed, self._match_id, self._client_seeds, full, n)
        )

    def roll(self, purpose: str, sides: int) -> Drawn:
        """A die roll in [1, sides]."""
        full = self._purpose(purpose)
        return Drawn("roll", full, sides, derive_draw(self._seed, self._match_id, self._client_seeds, full, sides) + 1)


class ChanceMismatch(Exception):
    """The rules draw what the record does not hold: another purpose, kind or size than the one recorded."""


class RecordedChance(Chance):
    """The chance source of a decision re-decided by the verifier: it hands back the results the record
    holds, by purpose, and refuses a draw whose purpose, kind or size the record does not hold.

    `recorded` maps each full purpose the decision's records draw under to its kind, size and result.
    The results themselves are re-derived from the seed by the chance check; this source binds the
    purpose names the rules use to the ones recorded.
    """

    def __init__(self, recorded: dict[str, tuple[str, int, Any]], scope: str, version: int) -> None:
        super().__init__(b"", "", [], scope=scope, version=version)
        self._recorded = recorded

    def _replayed(self, kind: str, purpose: str, n: int) -> Drawn:
        full = self._purpose(purpose)
        found = self._recorded.get(full)
        if found is None:
            held = ", ".join(sorted(self._recorded)) or "none"
            raise ChanceMismatch(f"the rules draw under {full!r}, which the record does not (it draws under: {held})")
        if found[:2] != (kind, n):
            raise ChanceMismatch(
                f"the rules draw a {kind} of {n} under {full!r}, the record a {found[0]} of {found[1]}"
            )
        return Drawn(kind, full, n, found[2])

    def draw(self, purpose: str, n: int) -> Drawn:
        """The recorded draw of this purpose."""
        return self._replayed("draw", purpose, n)

    def permutation(self, purpose: str, n: int) -> Drawn:
        """The recorded permutation of this purpose."""
        return self._replayed("permutation", purpose, n)

    def roll(self, purpose: str, sides: int) -> Drawn:
        """The recorded roll of this purpose."""
        return self._replayed("roll", purpose, sides)
