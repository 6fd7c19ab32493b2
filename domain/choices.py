"""Choices: families of command bodies too large to list, in the form `legal-commands` serves.

A ruleset's `legal_commands(state, seat)` lists whole commands; its `legal_choices(state, seat)`
describes the rest as `Choice`s. Together they are exactly what `decide` accepts: every body
listed or formed from a choice is accepted, and every accepted body is listed or can be formed
from a choice. Commands are compared as commands: a field left out of a body takes its default.

A choice's JSON form (`Choice.body()`):

    {"type": "<command type>", "fixed": {field: value, ...}, "free": {field: domain, ...}}

Fields in neither `fixed` nor `free` are left out (they take their defaults). A domain is one of:

    {"one_of": [v, ...]}                          one of these values; null means "leave the field out"
    {"subset_of": [v, ...], "min": m, "max": n}   a list of m..n distinct members, in any order
    {"sequence_of": [v, ...], "min": m, "max": n} a list of m..n distinct members; the order is part of the move
    {"union_of": [{"subset_of": ...}, ...]}       a list of what each part picks (parts are disjoint), in any order
    {"text": {"min_length": m, "max_length": n}}  any string of m..n characters (Unicode code points)
    {"pairs": [{"keys": K, "values": V}, ...], "lists": bool, "empty_keys": [k, ...]}
        an object: each part pairs its i-th key with its i-th value, one of K and V being a fixed
        list and the other a `sequence_of` domain of the same length. Without `lists` every key
        appears once and maps to its value; with `lists` each key maps to the list of all values
        paired with it, in any order, and a key of `empty_keys` paired with nothing may also
        appear with an empty list.

The domains are data only (JSON), so a client needs nothing but this page to form a body;
`random_body` forms one at random and `admits` decides membership, for tests and playouts.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import random
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from domain.records import json_copy

# The characters random text is drawn from: letters and digits, a space, and a non-ASCII letter so
# a client's length count in code points is exercised too.
_TEXT_ALPHABET = string.ascii_letters + string.digits + " é"


# ----- building domains -------------------------------------------------------------------------


def one_of(values: Iterable[Any]) -> dict:
    """The domain of a field that takes one of `values` (None: the field is left out)."""
    return {"one_of": [_jsonable(v) for v in values]}


def subset_of(values: Iterable[Any], low: int, high: int) -> dict:
    """The domain of a list of `low`..`high` distinct members of `values`, in any order."""
    return {"subset_of": [_jsonable(v) for v in values], "min": low, "max": high}


def sequence_of(values: Iterable[Any], low: int, high: int) -> dict:
    """The domain of a list of `low`..`high` distinct members of `values`, the order significant."""
    return {"sequence_of": [_jsonable(v) for v in values], "min": low, "max": high}


def union_of(parts: list[dict]) -> dict:
    """The domain of a list made of what each `subset_of` part picks (the parts' members disjoint)."""
    return {"union_of": list(parts)}


def text(min_length: int, max_length: int) -> dict:
    """The domain of any string of `min_length`..`max_length` characters."""
    return {"text": {"min_length": min_length, "max_length": max_length}}


def pairs(parts: list[dict], *, lists: bool = False, empty_keys: Iterable[str] = ()) -> dict:
    """The domain of an object pairing keys with values part by part (see the module docstring)."""
    return {"pairs": list(parts), "lists": lists, "empty_keys": list(empty_keys)}


def pair_part(keys: Any, values: Any) -> dict:
    """One part of a `pairs` domain: a fixed list on one side, a `sequence_of` domain on the other."""
    return {"keys": _jsonable(keys), "values": _jsonable(values)}


# ----- the choice -------------------------------------------------------------------------------


class CommandLike(Protocol):
    """What a choice needs of a command (domain.ruleset.Command, which imports this module)."""

    type: ClassVar[str]

    def body(self) -> dict:
        """The command as its JSON body."""
        ...


@dataclass(frozen=True)
class Choice:
    """A family of bodies of one command type: fixed fields plus a domain per free field."""

    command: type[CommandLike]
    fixed: dict
    free: dict

    @property
    def type(self) -> str:
        """The command type of every body in the family."""
        return self.command.type

    def body(self) -> dict:
        """The JSON form served by legal-commands."""
        return json_copy(self._json)

    @functools.cached_property
    def _json(self) -> dict:
        fixed = {k: _jsonable(v) for k, v in self.fixed.items() if v is not None}
        return {"type": self.type, "fixed": fixed, "free": {k: v for k, v in self.free.items()}}

    @functools.cached_property
    def _checkers(self) -> dict:
        return {name: _checker(domain) for name, domain in self.free.items()}

    def admits(self, command: Any) -> bool:
        """Whether `command` is one of the family's bodies."""
        return type(command) is self.command and self.admits_body(command.body())

    def admits_body(self, body: dict) -> bool:
        """Whether a JSON body (as Command.body() gives it) is one of the family's bodies."""
        return _admits_with(self._json, self._checkers, body, self.command)

    def random_command(self, rng: random.Random) -> Any:
        """A member of the family, drawn at random (every member can come up)."""
        return command_from_body(self.command, random_body(self._json, rng))

    def size(self) -> float:
        """How many distinct commands the family holds: 0, 1, or more (math.inf for free text)."""
        return math.prod(_count(domain) for domain in self.free.values())

    def single(self) -> Any | None:
        """The only member when the family has exactly one, else None."""
        if self.size() != 1:
            return None
        return self.random_command(random.Random(0))


def command_from_body(command_cls: type, body: dict) -> Any:
    """The command a JSON body stands for (lists become tuples, as the service parses them)."""
    return command_cls(**{k: command_value(v) for k, v in body.items() if k != "type"})


def collapse(options: list) -> tuple[list, list[Choice]]:
    """Split commands and choices: a choice with one member becomes a listed command, an empty one goes."""
    commands, choices = [], []
    for option in options:
        if not isinstance(option, Choice):
            commands.append(option)
        elif option.size() == 1:
            commands.append(option.single())
        elif option.size() > 1:
            choices.append(option)
    return commands, choices


def random_legal_command(
    ruleset: Any, state: dict, seat: str, rng: random.Random, prefer: Callable[[str], bool] | None = None
) -> Any | None:
    """A random legal command of `seat`: a listed one or a random member of a choice (None if none).

    Each listed command and each choice is one option; `prefer(type)` narrows the options to the
    command types it accepts when any are left.
    """
    options = list(ruleset.legal_commands(state, seat)) + list(ruleset.legal_choices(state, seat))
    if prefer is not None:
        options = [o for o in options if prefer(o.type)] or options
    if not options:
        return None
    picked = rng.choice(options)
    return picked.random_command(rng) if isinstance(picked, Choice) else picked


# ----- forming and checking bodies (JSON in, JSON out) ------------------------------------------


def random_body(choice: dict, rng: random.Random) -> dict:
    """A body formed from a choice's JSON form, every free field drawn at random from its domain."""
    body = {"type": choice["type"], **choice["fixed"]}
    for name, domain in choice["free"].items():
        value = _random_value(domain, rng)
        if value is not None:
            body[name] = value
    return body


def admits_body(choice: dict, body: dict, command_cls: type | None = None) -> bool:
    """Whether a body can be formed from a choice's JSON form (defaults from `command_cls` fill gaps)."""
    return _admits_with(choice, {name: _checker(d) for name, d in choice["free"].items()}, body, command_cls)


def _admits_with(choice: dict, checkers: dict, body: dict, command_cls: type | None) -> bool:
    if body.get("type") != choice["type"]:
        return False
    defaults = _defaults(command_cls) if command_cls is not None else {}
    fixed = choice["fixed"]
    for name in (set(body) - {"type"}) | set(fixed) | set(checkers) | set(defaults):
        value = body.get(name, defaults.get(name))
        if name in fixed:
            if _canon(value) != _canon(fixed[name]):
                return False
        elif name in checkers:
            if not checkers[name](value):
                return False
        elif _canon(value) != _canon(defaults.get(name)):
            return False
    return True


@functools.cache
def _defaults(command_cls: type) -> dict:
    out = {}
    for f in dataclasses.fields(command_cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = _jsonable(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = _jsonable(f.default_factory())
    return out


def _members(domain: dict) -> list:
    """The pool of a `subset_of` or `sequence_of` domain."""
    return domain["subset_of"] if "subset_of" in domain else domain["sequence_of"]


def _random_value(domain: dict, rng: random.Random) -> Any:
    if "one_of" in domain:
        return rng.choice(domain["one_of"])
    if "subset_of" in domain or "sequence_of" in domain:
        return rng.sample(_members(domain), rng.randint(domain["min"], domain["max"]))
    if "union_of" in domain:
        picked = [v for part in domain["union_of"] for v in _random_value(part, rng)]
        rng.shuffle(picked)
        return picked
    if "text" in domain:
        low, high = domain["text"]["min_length"], domain["text"]["max_length"]
        length = rng.choice([low, high, rng.randint(low, high)])
        return "".join(rng.choice(_TEXT_ALPHABET) for _ in range(length))
    return _random_pairs(domain, rng)


def _random_pairs(domain: dict, rng: random.Random) -> dict:
    entries: list[tuple[str, Any]] = []
    for part in domain["pairs"]:
        keys, values = (
            _random_value(side, rng) if isinstance(side, dict) else side for side in (part["keys"], part["values"])
        )
        entries += list(zip(keys, values))
    if not domain["lists"]:
        return dict(entries)
    out: dict[str, list] = {}
    for key, value in entries:
        out.setdefault(key, []).append(value)
    for values in out.values():
        rng.shuffle(values)
    for key in domain["empty_keys"]:
        if key not in out and rng.random() < 0.25:
            out[key] = []
    return out


def _checker(domain: dict) -> Callable[[Any], bool]:
    """A membership test for one domain, with its pools worked out once."""
    if "one_of" in domain:
        allowed = {_canon(v) for v in domain["one_of"]}
        return lambda value: _canon(value) in allowed
    if "subset_of" in domain or "sequence_of" in domain:
        pool = {_canon(v) for v in _members(domain)}
        low, high = domain["min"], domain["max"]

        def distinct_members(value: Any) -> bool:
            if not isinstance(value, list) or not low <= len(value) <= high:
                return False
            members = [_canon(v) for v in value]
            return len(set(members)) == len(members) and all(m in pool for m in members)

        return distinct_members
    if "union_of" in domain:
        return functools.partial(
            _admits_union,
            [({_canon(v) for v in part["subset_of"]}, part["min"], part["max"]) for part in domain["union_of"]],
        )
    if "text" in domain:
        low, high = domain["text"]["min_length"], domain["text"]["max_length"]
        return lambda value: isinstance(value, str) and low <= len(value) <= high
    return functools.partial(_admits_pairs, domain, _pair_slots(domain))


def _admits_union(parts: list[tuple[set, int, int]], value: Any) -> bool:
    if not isinstance(value, list):
        return False
    members = [_canon(v) for v in value]
    if len(set(members)) != len(members):
        return False
    counts = [0] * len(parts)
    for member in members:
        owners = [i for i, (pool, _, _) in enumerate(parts) if member in pool]
        if not owners:
            return False
        counts[owners[0]] += 1
    return all(low <= n <= high for (_, low, high), n in zip(parts, counts))


def _pair_slots(domain: dict) -> list[tuple[int, bool, Any, set]]:
    """Each part as a row of slots (part, keys free?, fixed item, pool of the free side)."""
    slots = []
    for index, part in enumerate(domain["pairs"]):
        free_keys = isinstance(part["keys"], dict)
        fixed = part["values"] if free_keys else part["keys"]
        pool = {_canon(v) for v in (part["keys"] if free_keys else part["values"])["sequence_of"]}
        slots += [(index, free_keys, _canon(item), pool) for item in fixed]
    return slots


def _admits_pairs(domain: dict, slots: list, value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    entries: list[tuple[str, Any]] = []
    for key, held in value.items():
        if domain["lists"]:
            if not isinstance(held, list):
                return False
            if not held and key not in domain["empty_keys"]:
                return False
            entries += [(key, _canon(v)) for v in held]
        else:
            entries.append((key, _canon(held)))
    if len(entries) != len(slots):
        return False
    # When every slot frees the same side, the entries' other sides must be exactly the fixed items.
    sides = {free_keys for _, free_keys, _, _ in slots}
    if len(sides) == 1:
        free_keys = sides.pop()
        fixed_items = Counter(fixed for _, _, fixed, _ in slots)
        if Counter(v if free_keys else _canon(k) for k, v in entries) != fixed_items:
            return False
    return _fill(entries, slots, [False] * len(slots), {})


def _fill(entries: list, slots: list, used: list[bool], taken: dict) -> bool:
    """Backtracking: give each entry a slot whose fixed side matches, the free side unused in its part."""
    if not entries:
        return True
    (key, value), rest = entries[0], entries[1:]
    for i, (part, free_keys, fixed, pool) in enumerate(slots):
        free, anchor = (_canon(key), value) if free_keys else (value, _canon(key))
        if used[i] or anchor != fixed or free not in pool or free in taken.setdefault(part, set()):
            continue
        used[i] = True
        taken[part].add(free)
        if _fill(rest, slots, used, taken):
            return True
        used[i] = False
        taken[part].discard(free)
    return False


def _count(domain: dict) -> float:
    """How many distinct values a domain allows (lists in different orders count apart)."""
    if "one_of" in domain:
        return len({_canon(v) for v in domain["one_of"]})
    if "subset_of" in domain or "sequence_of" in domain:
        size = len(_members(domain))
        return sum(math.perm(size, k) for k in range(domain["min"], min(domain["max"], size) + 1))
    if "union_of" in domain:
        sizes = [len(part["subset_of"]) for part in domain["union_of"]]
        ranges = [range(part["min"], min(part["max"], n) + 1) for part, n in zip(domain["union_of"], sizes)]
        arrangements = 0
        for picks in _product(ranges):
            arrangements += math.prod(math.comb(n, k) for n, k in zip(sizes, picks)) * math.factorial(sum(picks))
        return arrangements
    if "text" in domain:
        return math.inf
    total: float = 1
    for part in domain["pairs"]:
        free = part["keys"] if isinstance(part["keys"], dict) else part["values"]
        total *= _count(free)
    if not domain["lists"] or total == 0:
        return total
    # With lists a key may hold several values in any order and empty keys may be added: only
    # "more than one" matters to the callers, so any such freedom counts as a second member.
    slots = sum(len(part["values"] if isinstance(part["keys"], dict) else part["keys"]) for part in domain["pairs"])
    return total if slots <= 1 and not domain["empty_keys"] else max(total, 2)


def _product(ranges: list[range]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for r in ranges:
        out = [p + (k,) for p in out for k in r]
    return out


def _canon(value: Any) -> Any:
    """A hashable stand-in comparing equal exactly when the JSON values are equal (strings as themselves)."""
    if isinstance(value, str):
        return value
    return (json.dumps(_jsonable(value), sort_keys=True),)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def command_value(value: Any) -> Any:
    """A JSON value as a command field holds it (lists become tuples, at any depth)."""
    if isinstance(value, list):
        return tuple(command_value(v) for v in value)
    if isinstance(value, dict):
        return {k: command_value(v) for k, v in value.items()}
    return value


__all__ = [
    "Choice",
    "admits_body",
    "collapse",
    "command_from_body",
    "one_of",
    "pair_part",
    "pairs",
    "random_body",
    "random_legal_command",
    "sequence_of",
    "subset_of",
    "text",
    "union_of",
]
