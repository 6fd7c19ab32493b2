"""A game's config declared once: each field carries its type, domain and default as data.

A ruleset's `Config` is a frozen dataclass deriving from `DeclaredConfig` whose fields are
made with `setting(default, Domain(...))`. From those declarations come:

- validation (`DeclaredConfig.validate`, called by `config_from_dict`): a value outside its
  field's domain raises `ConfigError(field, detail)`, the service's 422 `invalid_config`;
- the field list `GET /rulesets/{id}` serves (`describe_fields`): type, range or choices,
  default and a JSON Schema per field, so a client builds its forms from it;
- `docs/config.md` (`domain.config_docs`), regenerated and compared by a test.

A scalar field's domain is all data: an integer range, a list of choices, a boolean. A
choice that depends on the rest of the config (a seat among the seats the config has) adds
`within`, a function of the config giving the allowed values, described by `within_doc`.
A structured field (an object or a list) gives the JSON Schema of its shape as data, judged by
domain.json_shape, and may add a `check` of the rules a schema cannot say (a charge count at
most its sheet's maximum, names that must differ).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.json_shape import is_int, shape_problem, unjudged_keywords
from domain.ruleset import ConfigError

INTEGER, STRING, BOOLEAN, OBJECT, ARRAY = "integer", "string", "boolean", "object", "array"
FIELD_TYPES = (INTEGER, STRING, BOOLEAN, OBJECT, ARRAY)
# The dataclass field metadata key the declaration is kept under.
DOMAIN_KEY = "config_domain"


@dataclass(frozen=True)
class Domain:
    """The values one config field takes, and how they are described to people.

    `minimum`/`maximum` bound an integer; `choices` list every value a string may take (a
    superset when `within` narrows them by the rest of the config); `why` is added to a refusal
    (the reason a range is what it is); `labels` name integer bounds in messages (1 → "Red");
    `schema` is the JSON Schema of a structured value and `check` returns what else is wrong
    with one the schema takes (None when fine); `doc` says what the value means, `type_doc` and `default_doc` how the docs
    show a structured field's type and default; `unit` is what an integer counts; `to_json` turns
    a default that is not plain JSON data (a parsed time control) into the form a client sends.
    """

    type: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Any, ...] | None = None
    within: Callable[[Any], Sequence[Any]] | None = None
    within_doc: str = ""
    why: str = ""
    labels: tuple[tuple[int, str], ...] = ()
    schema: dict | None = None
    check: Callable[[Any, Any], str | None] | None = None
    doc: str = ""
    type_doc: str = ""
    default_doc: str = ""
    unit: str = ""
    to_json: Callable[[Any], Any] | None = None

    def __post_init__(self) -> None:
        """A domain that does not say what it allows is a programming error, caught at import."""
        if self.type not in FIELD_TYPES:
            raise ValueError(f"unknown config field type {self.type!r}")
        if self.type == INTEGER and (self.minimum is None or self.maximum is None):
            raise ValueError("an integer config field needs a minimum and a maximum")
        if self.type == STRING and not self.choices:
            raise ValueError("a string config field needs its choices")
        if self.type in (OBJECT, ARRAY) and self.schema is None:
            raise ValueError("a structured config field needs the JSON Schema of its shape")
        if self.schema is not None and unjudged_keywords(self.schema) and self.check is None:
            raise ValueError(f"nothing judges {sorted(unjudged_keywords(self.schema))}: give the field a check")

    def json_schema(self) -> dict:
        """The JSON Schema of one value of this field."""
        if self.type == INTEGER:
            return {"type": INTEGER, "minimum": self.minimum, "maximum": self.maximum}
        if self.type == STRING:
            return {"type": STRING, "enum": list(self.choices or ())}
        if self.type == BOOLEAN:
            return {"type": BOOLEAN}
        return copy.deepcopy(self.schema or {})

    def refusal(self) -> str:
        """What a refused scalar value is told: the field's whole domain (a structured one names its fault)."""
        if self.type == INTEGER:
            low, high = self._label(self.minimum), self._label(self.maximum)
            unit = f" ({self.unit})" if self.unit else ""
            said = (
                f"must be {low}" if self.minimum == self.maximum else f"must be an integer{unit} from {low} to {high}"
            )
        elif self.type == STRING:
            said = f"must be one of {', '.join(map(str, self.choices or ()))}"
        else:
            said = "must be true or false"
        return f"{said}: {self.why}" if self.why else said

    def problem(self, config: Any, value: Any) -> str | None:
        """Why this value is refused in this config, or None when it is allowed."""
        if self.type in (OBJECT, ARRAY):
            problem = shape_problem(self.schema or {}, value)
            if problem is not None:
                return problem
        elif not self._in_static_domain(value):
            return self.refusal()
        if self.check is not None:
            return self.check(config, value)
        if self.within is not None:
            allowed = list(self.within(config))
            if value not in allowed:
                return f"must be one of {', '.join(map(str, allowed))}"
        return None

    def _in_static_domain(self, value: Any) -> bool:
        if self.type == INTEGER:
            return (
                is_int(value)
                and self.minimum is not None
                and self.maximum is not None
                and (self.minimum <= value <= self.maximum)
            )
        if self.type == STRING:
            return isinstance(value, str) and value in (self.choices or ())
        return isinstance(value, bool)

    def _label(self, bound: int | None) -> str:
        name = dict(self.labels).get(bound) if bound is not None else None
        return f"{bound} ({name})" if name else str(bound)


def declared(domain: Domain) -> dict[str, Domain]:
    """The metadata of a config dataclass field with this domain: `field(default_factory=..., metadata=declared(...))`."""
    return {DOMAIN_KEY: domain}


def setting(default: Any, domain: Domain) -> Any:
    """A config dataclass field with an immutable default and its domain kept as data."""
    return dataclasses.field(default=default, metadata=declared(domain))


@dataclass(frozen=True)
class DeclaredField:
    """One declared config field: its name, domain and default value."""

    name: str
    domain: Domain
    default: Any

    def default_json(self) -> Any:
        """The default as a client would send it."""
        if self.domain.to_json is not None:
            return self.domain.to_json(self.default)
        return _jsonable(self.default)


def declared_fields(config_cls: type) -> list[DeclaredField]:
    """Every field of a config class with its domain, in declaration order (ValueError if one has none)."""
    out = []
    for f in dataclasses.fields(config_cls):
        domain = f.metadata.get(DOMAIN_KEY)
        if domain is None:
            raise ValueError(f"{config_cls.__qualname__}.{f.name} declares no domain")
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        out.append(DeclaredField(f.name, domain, default))
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def describe_fields(config_cls: type) -> list[dict]:
    """The fields as a client reads them: name, type, default, range or choices, JSON Schema, meaning."""
    described = []
    for declared in declared_fields(config_cls):
        domain = declared.domain
        entry: dict[str, Any] = {
            "name": declared.name,
            "type": domain.type,
            "default": declared.default_json(),
        }
        if domain.type == INTEGER:
            entry["minimum"], entry["maximum"] = domain.minimum, domain.maximum
        if domain.choices is not None:
            entry["choices"] = list(domain.choices)
        if domain.within_doc:
            entry["constraint"] = domain.within_doc
        entry["schema"] = domain.json_schema()
        entry["description"] = domain.doc
        described.append(entry)
    return described


def validate_declared(config: Any) -> None:
    """Refuse (ConfigError) the first field, in declaration order, whose value is outside its domain."""
    for declared in declared_fields(type(config)):
        problem = declared.domain.problem(config, getattr(config, declared.name))
        if problem is not None:
            raise ConfigError(declared.name, problem)


class DeclaredConfig:
    """Base of a ruleset's frozen Config dataclass: validation comes from the fields' domains."""

    def validate(self) -> None:
        """Raise ConfigError for the first value outside its field's declared domain."""
        validate_declared(self)


__all__ = [
    "ARRAY",
    "BOOLEAN",
    "FIELD_TYPES",
    "INTEGER",
    "OBJECT",
    "STRING",
    "DeclaredConfig",
    "DeclaredField",
    "Domain",
    "declared",
    "declared_fields",
    "describe_fields",
    "is_int",
    "setting",
    "validate_declared",
]
