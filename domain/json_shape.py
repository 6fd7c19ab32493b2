"""The part of JSON Schema a config's structured values are declared with, checked without a library.

The domain layer imports only the standard library, so this judges a value against the subset
the declarations use: `type` (integer, string, boolean, object, array), `enum`, `minimum`,
`maximum`, `minLength`, `maxLength`, `properties`, `required`, `additionalProperties` (false or
a schema), `minProperties`, `maxProperties`, `items`, `minItems`, `maxItems`. A schema with
`oneOf` is not judged here: its field's own check must (Domain refuses one without). The same
schema is served to clients (`GET /rulesets/{id}`), so what a form allows is what is accepted.
"""

from __future__ import annotations

from typing import Any

JUDGED_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
        "maxProperties",
        "items",
        "minItems",
        "maxItems",
    }
)
# Keywords that only describe (a client may show them): they never refuse a value.
DESCRIBING_KEYWORDS = frozenset({"description", "default", "title"})


def is_int(value: Any) -> bool:
    """Whether a JSON value is an integer (a bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _between(low: Any, high: Any, noun: str) -> str:
    if low is not None and high is not None:
        return f"{low} to {high} {noun}" if noun else f"from {low} to {high}"
    if low is not None:
        return f"at least {low} {noun}".rstrip()
    return f"at most {high} {noun}".rstrip()


def shape_problem(schema: dict, value: Any, path: str = "") -> str | None:
    """Why a value does not fit the schema (naming where inside it), or None when it fits."""
    where = f"{path} " if path else ""
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        in_range = is_int(value) and (low is None or value >= low) and (high is None or value <= high)
        if not in_range:
            bounds = "" if low is None and high is None else " " + _between(low, high, "")
            return f"{where}must be an integer{bounds}"
    elif kind == "boolean" and not isinstance(value, bool):
        return f"{where}must be true or false"
    elif kind == "string":
        return _string_problem(schema, value, where)
    elif kind == "object":
        return _object_problem(schema, value, path, where)
    elif kind == "array":
        return _array_problem(schema, value, path, where)
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}must be one of {', '.join(map(str, schema['enum']))}"
    return None


def _string_problem(schema: dict, value: Any, where: str) -> str | None:
    if not isinstance(value, str):
        return f"{where}must be a string"
    low, high = schema.get("minLength"), schema.get("maxLength")
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        return f"{where}must be {_between(low, high, 'characters')}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}must be one of {', '.join(map(str, schema['enum']))}"
    return None


def _object_problem(schema: dict, value: Any, path: str, where: str) -> str | None:
    if not isinstance(value, dict):
        return f"{where}must be an object"
    properties: dict = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key in value:
        if key not in properties and extra is False:
            return f"{where}has an unknown key {key!r} (known: {', '.join(properties)})"
    low, high = schema.get("minProperties"), schema.get("maxProperties")
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        return f"{where}must have {_between(low, high, 'keys')}"
    for key in schema.get("required", ()):
        if key not in value:
            return f"{where}needs {key!r}"
    for key, item in value.items():
        inner = properties.get(key, extra if isinstance(extra, dict) else None)
        problem = None if inner is None else shape_problem(inner, item, f"{path}.{key}" if path else str(key))
        if problem is not None:
            return problem
    return None


def _array_problem(schema: dict, value: Any, path: str, where: str) -> str | None:
    if not isinstance(value, (list, tuple)):
        return f"{where}must be a list"
    low, high = schema.get("minItems"), schema.get("maxItems")
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        return f"{where}must list {_between(low, high, 'items')}"
    items = schema.get("items")
    for index, item in enumerate(value):
        problem = None if items is None else shape_problem(items, item, f"{path}[{index}]")
        if problem is not None:
            return problem
    return None


def unjudged_keywords(schema: Any) -> set[str]:
    """Keywords anywhere in a schema that shape_problem would not judge (so they must not be relied on)."""
    if not isinstance(schema, dict):
        return set()
    found = set(schema) - JUDGED_KEYWORDS - DESCRIBING_KEYWORDS
    for key in ("properties",):
        for inner in schema.get(key, {}).values():
            found |= unjudged_keywords(inner)
    for key in ("items", "additionalProperties"):
        found |= unjudged_keywords(schema.get(key))
    return found
