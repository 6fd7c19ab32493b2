"""Reading request bodies: JSON only, validated by marshmallow, errors as precise 4xx problems."""

from __future__ import annotations

import json
import math
import typing
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from functools import cache
from types import UnionType
from typing import Any

from flask import request
from marshmallow import RAISE, Schema, ValidationError, fields, validate

from domain.choices import command_value
from domain.ruleset import Command, Ruleset
from service.problems import Problem

MAX_JSON_DEPTH = 32
# The integers an IEEE double holds exactly: JavaScript's Number.MAX_SAFE_INTEGER (RFC 8259 §6).
MAX_JSON_INT = 2**53 - 1


class StrictBoolean(fields.Boolean):
    """A boolean that accepts only JSON true/false (not "yes", 1 or "on")."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class StrictString(fields.String):
    """A string that refuses numbers and other JSON types."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, str):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


class _Refused:
    """A parsed number no JSON reader elsewhere can hold; found again, with its path, after parsing."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


_NOT_FINITE = "NaN, Infinity and -Infinity are not JSON numbers"
_FRACTION = "numbers must be integers (no field of this API takes a fraction or an exponent)"
_OUT_OF_RANGE = (
    f"integers must be within -{MAX_JSON_INT}..{MAX_JSON_INT} (|n| <= 2**53 - 1), "
    "the range every JSON reader keeps exact"
)
_SURROGATE = "a lone UTF-16 surrogate (\\ud800-\\udfff not in a pair) is not text"
_SURROGATE_KEY = "the key holds a lone UTF-16 surrogate (\\ud800-\\udfff not in a pair), which is not text"
# A longer run of digits is always out of range; refusing it before int() also keeps Python's
# int/str digit limit (4,300) from ever being reached.
_MAX_INT_DIGITS = len(str(MAX_JSON_INT))


def _parse_int(text: str) -> int | _Refused:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        return _Refused(_OUT_OF_RANGE)
    value = int(text)
    return value if -MAX_JSON_INT <= value <= MAX_JSON_INT else _Refused(_OUT_OF_RANGE)


def _parse_float(text: str) -> _Refused:
    # No field of the API is fractional, and a fraction would reach the chain in Python's own
    # spelling (1e+16, 1.0) that other languages' canonical JSON does not reproduce.
    value = float(text)
    return _Refused(_NOT_FINITE if not math.isfinite(value) else _FRACTION)


def _parse_constant(name: str) -> _Refused:
    return _Refused(_NOT_FINITE)


def _has_lone_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _path_step(path: str, key: str) -> str:
    if key.isascii() and key.isidentifier():
        return f"{path}.{key}" if path else key
    # Any other key is quoted as a JSON string; ensure_ascii spells a lone surrogate as an
    # escape, so the path in the problem can be sent as UTF-8 itself.
    return f"{path}[{json.dumps(key)}]"


def _refused_value(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first (path, reason) of a value a strict JSON body may not hold, in document order."""
    if isinstance(value, str):
        return (path, _SURROGATE) if _has_lone_surrogate(value) else None
    if isinstance(value, _Refused):
        return path, value.reason
    if isinstance(value, dict):
        for key, item in value.items():
            step = _path_step(path, key)
            if _has_lone_surrogate(key):
                return step, _SURROGATE_KEY
            found = _refused_value(item, step)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _refused_value(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def json_body() -> Any:
    """The request's JSON body; 415 when not JSON, 400 when it does not parse, 422 for values JSON cannot carry."""
    # NaN/Infinity, integers beyond 2**53 - 1 and lone surrogates parse in Python but not in every
    # other reader of the chained records they would reach, so they are refused here, at the door.
    if not request.is_json:
        raise Problem(415, "unsupported_media_type", "send the body as application/json")
    raw = request.get_data(cache=True)
    try:
        body = json.loads(
            raw or b"null", parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except RecursionError:
        raise Problem(400, "json_too_deep", f"the body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        raise Problem(400, "invalid_json", "the body is not valid JSON") from None
    if _depth(body) > MAX_JSON_DEPTH:
        raise Problem(400, "json_too_deep", f"the body nests deeper than {MAX_JSON_DEPTH} levels")
    found = _refused_value(body)
    if found is not None:
        path, reason = found
        raise Problem(422, "invalid_json_value", f"{path or 'the body'}: {reason}", field=path or "(body)")
    return body


def load(schema: Schema, body: Any = None) -> dict:
    """Validate a body against a schema; 422 with the field errors when it does not fit."""
    body = json_body() if body is None else body
    if not isinstance(body, dict):
        raise Problem(422, "invalid_body", "the body must be a JSON object")
    try:
        return schema.load(body)
    except ValidationError as exc:
        raise Problem(422, "invalid_body", "the body does not match the schema", errors=exc.messages) from None


def _field_for(annotation: Any, required: bool) -> fields.Field:
    optional = False
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        annotation = args[0]
    kwargs: dict[str, Any] = {"required": required and not optional, "allow_none": optional}
    origin = typing.get_origin(annotation)
    if annotation is str:
        return StrictString(validate=validate.Length(max=200), **kwargs)
    if annotation is int:
        return fields.Integer(strict=True, **kwargs)
    if annotation is bool:
        return StrictBoolean(**kwargs)
    if origin is tuple:
        return fields.List(StrictString(validate=validate.Length(max=200)), validate=validate.Length(max=64), **kwargs)
    if origin is dict:
        _, value_type = typing.get_args(annotation)
        if typing.get_origin(value_type) is tuple:
            values: fields.Field = fields.List(
                StrictString(validate=validate.Length(max=200)), validate=validate.Length(max=64)
            )
        else:
            values = StrictString(validate=validate.Length(max=200))
        return fields.Dict(
            keys=StrictString(validate=validate.Length(max=200)),
            values=values,
            validate=validate.Length(max=64),
            **kwargs,
        )
    raise TypeError(f"unsupported command field type {annotation!r}")


@cache
def command_schema(command_cls: type[Command]) -> Schema:
    """The body schema of one command class, derived from its dataclass fields."""
    hints = typing.get_type_hints(command_cls)
    spec: dict[str, fields.Field] = {"type": StrictString(required=True)}
    for f in dataclass_fields(command_cls):
        required = f.default is MISSING and f.default_factory is MISSING
        spec[f.name] = _field_for(hints[f.name], required)
    return Schema.from_dict(spec, name=f"{command_cls.__name__}Body")(unknown=RAISE)


def _json_schema_for(annotation: Any) -> tuple[dict, str, bool]:
    """(JSON Schema, short type name, nullable) of one command field type, as `_field_for` reads it."""
    nullable = False
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(args) < len(typing.get_args(annotation))
        annotation = args[0]
    text = {"type": "string", "maxLength": 200}
    strings = {"type": "array", "items": text, "maxItems": 64}
    origin = typing.get_origin(annotation)
    if annotation is str:
        schema, name = dict(text), "string"
    elif annotation is int:
        schema, name = {"type": "integer", "minimum": -MAX_JSON_INT, "maximum": MAX_JSON_INT}, "integer"
    elif annotation is bool:
        schema, name = {"type": "boolean"}, "boolean"
    elif origin is tuple:
        schema, name = strings, "array<string>"
    elif origin is dict:
        _, value_type = typing.get_args(annotation)
        listed = typing.get_origin(value_type) is tuple
        schema = {"type": "object", "additionalProperties": strings if listed else text, "maxProperties": 64}
        name = "object<array<string>>" if listed else "object<string>"
    else:
        raise TypeError(f"unsupported command field type {annotation!r}")
    if nullable:
        schema = {**schema, "type": [schema["type"], "null"]}
    return schema, name, nullable


@cache
def command_fields(command_cls: type[Command]) -> tuple[dict, ...]:
    """Each field of a command body: name, type, whether it is required or nullable, its default."""
    hints = typing.get_type_hints(command_cls)
    out = []
    for f in dataclass_fields(command_cls):
        _, name, nullable = _json_schema_for(hints[f.name])
        entry: dict[str, Any] = {
            "name": f.name,
            "type": name,
            "required": f.default is MISSING and f.default_factory is MISSING,
            "nullable": nullable,
        }
        if not entry["required"]:
            if f.default is not MISSING:
                default = f.default
            elif f.default_factory is not MISSING:
                default = f.default_factory()
            entry["default"] = list(default) if isinstance(default, tuple) else default
        out.append(entry)
    return tuple(out)


@cache
def command_json_schema(command_cls: type[Command]) -> dict:
    """The JSON Schema of one command's body, derived from its dataclass as `command_schema` is."""
    hints = typing.get_type_hints(command_cls)
    properties: dict[str, Any] = {"type": {"const": command_cls.type}}
    required = ["type"]
    for f in dataclass_fields(command_cls):
        properties[f.name] = _json_schema_for(hints[f.name])[0]
        if f.default is MISSING and f.default_factory is MISSING:
            required.append(f.name)
    return {"type": "object", "required": required, "properties": properties, "additionalProperties": False}


def parse_command(ruleset: Ruleset[Any, Any], body: Any) -> Command:
    """Turn a command body into the ruleset's Command; 422 for unknown types and bad fields."""
    if not isinstance(body, dict):
        raise Problem(422, "invalid_body", "the body must be a JSON object")
    by_type = {cls.type: cls for cls in ruleset.COMMANDS}
    kind = body.get("type")
    if not isinstance(kind, str) or kind not in by_type:
        raise Problem(
            422,
            "unknown_command",
            f"'type' must be one of: {', '.join(sorted(by_type))}",
            rule="unknown_command",
            types=sorted(by_type),
        )
    command_cls = by_type[kind]
    # Classes are hashable; mypy does not see it for a cached function's argument (python/mypy#11470).
    loaded = load(command_schema(command_cls), body)  # type: ignore[arg-type]
    loaded.pop("type")
    return command_cls(**{k: command_value(v) for k, v in loaded.items()})
