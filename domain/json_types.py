"""JSON Schema from Python type hints: how a game's typed declarations become the contract's schemas.

A game declares its event payloads as frozen dataclasses and its views as TypedDicts; the spec
generator and the conformance kit turn them into JSON Schema with `schema_of`. The subset is the
one plain JSON data needs: str, int, float, bool, None, Any, Literal, `X | Y`, list/tuple/
Sequence of one type, `dict[str, X]`, TypedDicts (required and NotRequired keys) and dataclasses
(a field with a default is optional). Objects declared this way allow no other keys.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def schema_of(hint: Any) -> dict:
    """The JSON Schema of values of this type (see the module docstring for the subset)."""
    if hint is Any or hint is object:
        return {}
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Literal:
        return _enum(list(args))
    if origin is typing.Union or isinstance(hint, types.UnionType):
        return _union(args)
    if origin in (typing.NotRequired, typing.Required):
        return schema_of(args[0])
    if origin in (list, tuple, Sequence) or hint in (list, tuple):
        item = args[0] if args else Any
        if origin is tuple and len(args) != 2 and args:
            return {
                "type": "array",
                "prefixItems": [schema_of(a) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
            }
        return {"type": "array", "items": schema_of(item)}
    if origin in (dict, Mapping) or hint is dict:
        value = args[1] if args else Any
        inner = schema_of(value)
        return {"type": "object", "additionalProperties": inner} if inner else {"type": "object"}
    if typing.is_typeddict(hint):
        return _typed_dict(hint)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass(hint)
    raise TypeError(f"no JSON Schema for {hint!r}")


def _enum(values: list) -> dict:
    """An enum with its JSON type named (one type, or a type and null): client generators want both."""
    kinds = sorted({_SCALARS[type(value)] for value in values}, key=lambda kind: kind == "null")
    if len(kinds) == 1:
        return {"type": kinds[0], "enum": values}
    if len(kinds) == 2 and kinds[1] == "null":
        return {"type": kinds, "enum": values}
    return {"enum": values}


def _union(args: tuple) -> dict:
    literal_values = [
        value
        for a in args
        for value in (
            typing.get_args(a) if typing.get_origin(a) is typing.Literal else (None,) if a is type(None) else ()
        )
    ]
    if all(typing.get_origin(a) is typing.Literal or a is type(None) for a in args):
        # Literals joined (and perhaps None): one enum of all their values, as one Literal would be.
        return _enum(list(dict.fromkeys(literal_values)))
    schemas = [schema_of(a) for a in args]
    simple = [s["type"] for s in schemas if set(s) == {"type"} and isinstance(s["type"], str)]
    if len(simple) == len(schemas):
        return {"type": simple}
    non_null = [s for s in schemas if s != {"type": "null"}]
    if len(non_null) == 1 and len(non_null) < len(schemas) and isinstance(non_null[0].get("type"), str):
        # One structured type or null: the generators read `type: [object, "null"]` as an optional model.
        return {**non_null[0], "type": [non_null[0]["type"], "null"]}
    return {"anyOf": schemas}


def _typed_dict(hint: type) -> dict:
    hints = typing.get_type_hints(hint)
    required = sorted(typing.cast(Any, hint).__required_keys__ - _written_not_required(hint))
    out: dict[str, Any] = {
        "type": "object",
        "properties": {key: schema_of(value) for key, value in hints.items()},
        "additionalProperties": False,
    }
    if required:
        out["required"] = required
    return out


def _written_not_required(hint: type) -> set[str]:
    """Keys annotated `NotRequired[...]` as text: Python 3.11 leaves them in `__required_keys__` when
    annotations are postponed (`from __future__ import annotations`), so they are read from the text."""
    found = set()
    for base in hint.__mro__:
        for key, annotation in vars(base).get("__annotations__", {}).items():
            text = annotation.__forward_arg__ if isinstance(annotation, typing.ForwardRef) else annotation
            if isinstance(text, str) and text.replace("typing.", "").startswith("NotRequired["):
                found.add(key)
    return found


def _dataclass(hint: type) -> dict:
    hints = typing.get_type_hints(hint)
    properties = {}
    required = []
    for f in dataclasses.fields(hint):
        key = f.metadata.get("key", f.name)
        properties[key] = schema_of(hints[f.name])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(key)
    out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = required
    return out
