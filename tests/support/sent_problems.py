"""Every error status and problem code the service can answer, read from its source, per route.

Static, so a refusal added anywhere (a `Problem` raised in a helper, an error the match application
or the match raises, a rate limit) is found without a test that provokes it. From each route's
view the calls are followed through the `service` package, into the match service
(`….matches.<method>`, domain/application.py), the clock and tournament services and the match
store they share (`….clocks.<method>`, `….tournaments.<method>`, `….store.<method>`), the match
(domain/match.py and its parts, domain/match_*.py) and the stream hub (`….streams.<method>`). A function
contributes:

- `Problem(<status>, "<code>", …)` with literal status and code;
- an error class of domain/errors.py or domain/clock.py it constructs, at the status the
  service's handlers give it (service/problems.py `_MATCH_ERROR_STATUS`, the clock error's own
  `status` or its `status=` argument), and `RuleViolation` as 422 `illegal_command`;
- 413 `body_too_large` where it reads the request body (werkzeug refuses a body over
  `MAX_CONTENT_LENGTH` as it reads it), and `abort(<status>)`;

minus the errors a surrounding `try` catches. Over the views come what applies to every route:
429 `rate_limited` (service/ratelimit.py, but for its EXEMPT paths), 500 `internal_error` (the
last handler of service/problems.py), and 404 `not_found` where a path part has a converter
(`<int:number>`: another spelling matches no route).
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from flask import Flask

from domain import clock, errors
from domain.ruleset import RuleViolation
from service import problems, ratelimit

ROOT = Path(__file__).resolve().parents[2]
MATCH_SERVICE = "domain.application.MatchService"
# The classes whose methods make up a Match: the aggregate and its parts.
MATCH_CLASSES = (
    "domain.match.Match",
    "domain.match_disputes.MatchDisputes",
    "domain.match_clock.MatchClock",
    "domain.match_integrity.MatchIntegrity",
    "domain.kept_match.MatchKeeping",
    "domain.match_seat_keys.MatchSeatKeys",
)
# Modules whose functions are followed: the service, and the domain services and match classes it calls.
DOMAIN_MODULES = (
    "domain.application",
    "domain.clock_service",
    "domain.tournament_service",
    "domain.store",
    "domain.partitions",
    "domain.partition_health",
    "domain.seat_keys",
    *(name.rsplit(".", 1)[0] for name in MATCH_CLASSES),
)
# What the per-process objects' and the services' attributes are (service/context.py `Gambit`, domain/application.py
# `MatchService`), for calls like `g.streams.reserve(…)` or `self.clocks.write(…)`.
# The store is a `MatchStore`, or with several partitions a `PartitionedStore` (domain/partitions.py), whose calls
# to a partition that does not answer are 503 `partition_unavailable`: both are followed.
RECEIVERS = {
    "matches": (MATCH_SERVICE,),
    "clocks": ("domain.clock_service.ClockService",),
    "tournaments": ("domain.tournament_service.TournamentService",),
    "store": ("domain.store.MatchStore", "domain.partitions.PartitionedStore"),
    "streams": ("service.streams.StreamHub",),
    "signer": ("service.signing.Signer",),
}
# Names of a `try`'s handlers that catch every error (nothing raised under them gets out).
CATCH_ALL = {"Exception", "BaseException"}


@dataclass(frozen=True)
class Sent:
    """One error answer: its status and problem code (None: not problem+json), and the error class behind it."""

    status: int
    code: str | None
    origin: type | None = field(default=None, compare=False)  # what a `try` may catch; not part of the answer


def _error_class(name: str) -> type | None:
    """The domain error class of that name, if there is one."""
    for module in (errors, clock):
        found = getattr(module, name, None)
        if isinstance(found, type) and issubclass(found, errors.MatchError):
            return found
    return RuleViolation if name == "RuleViolation" else None


def _sent_for_error(cls: type, call: ast.Call) -> Sent:
    """The answer the service's handlers give an error of class `cls` constructed by `call`."""
    if cls is RuleViolation:
        return Sent(422, "illegal_command", cls)
    if issubclass(cls, clock.ClockError):
        status = next(
            (k.value.value for k in call.keywords if k.arg == "status" and isinstance(k.value, ast.Constant)),
            cls.status,
        )
        return Sent(status, cls.code, cls)
    return Sent(problems._MATCH_ERROR_STATUS.get(cls, 422), cls.code, cls)


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class Source:
    """The parsed functions of the service package and of the domain services and the match."""

    def __init__(self) -> None:
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.names: dict[str, dict[str, str]] = {}  # module → local name → qualified target
        modules = [f"service.{path.stem}" for path in sorted((ROOT / "service").glob("*.py"))]
        for module in [*modules, *DOMAIN_MODULES]:
            self._read(module)
        self.match_service_methods = {
            name.rsplit(".", 1)[1] for name in self.functions if name.startswith(MATCH_SERVICE + ".")
        }
        # Method name → the match class (or part) that defines it.
        self.match_methods: dict[str, list[str]] = {}
        for name in self.functions:
            owner, _, method = name.rpartition(".")
            if owner in MATCH_CLASSES:
                self.match_methods.setdefault(method, []).append(name)

    def _read(self, module: str) -> None:
        path = ROOT / (module.replace(".", "/") + ".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[f"{module}.{node.name}"] = node
                names[node.name] = f"{module}.{node.name}"
            elif isinstance(node, ast.ClassDef):
                names[node.name] = f"{module}.{node.name}"
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.functions[f"{module}.{node.name}.{item.name}"] = item
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        self.names[module] = names

    def callees(self, qualified: str, call: ast.Call) -> list[str]:
        """The functions of this source a call in function `qualified` may reach."""
        module, owner = self._module_and_class(qualified)
        func = call.func
        found: list[str] = []
        if isinstance(func, ast.Name):
            target = self.names[module].get(func.id)
            if target is not None:
                found += [target] if target in self.functions else []
        elif isinstance(func, ast.Attribute):
            value = func.value
            if isinstance(value, ast.Name) and value.id == "self" and owner is not None:
                found.append(f"{owner}.{func.attr}")
            elif isinstance(value, ast.Name) and self.names[module].get(value.id, "").startswith("service."):
                found.append(f"{self.names[module][value.id]}.{func.attr}")  # `problems.problem_response(…)`
            if isinstance(value, ast.Name) and value.id == "MatchService":
                found.append(f"{MATCH_SERVICE}.{func.attr}")
            if isinstance(value, ast.Attribute) and value.attr in RECEIVERS:
                found += [f"{receiver}.{func.attr}" for receiver in RECEIVERS[value.attr]]
            if module in DOMAIN_MODULES:
                # Inside the domain classes a call by name reaches any method of that name (over-approximate).
                if func.attr in self.match_service_methods and module == "domain.application":
                    found.append(f"{MATCH_SERVICE}.{func.attr}")
                found += self.match_methods.get(func.attr, [])
        return [name for name in found if name in self.functions]

    def _module_and_class(self, qualified: str) -> tuple[str, str | None]:
        for module in self.names:
            prefix = module + "."
            if qualified.startswith(prefix):
                rest = qualified[len(prefix) :]
                return module, (prefix + rest.split(".")[0]) if "." in rest else None
        raise KeyError(qualified)

    @cache  # noqa: B019 - one Source per test session
    def sent_by(self, qualified: str) -> frozenset[Sent]:
        """Every error answer a call of function `qualified` may end in (itself and what it calls)."""
        self._visiting: set[str] = getattr(self, "_visiting", set())
        if qualified in self._visiting:  # recursion: its answers are counted where the cycle began
            return frozenset()
        self._visiting.add(qualified)
        try:
            return frozenset(self._sent_in(qualified, self.functions[qualified].body, frozenset()))
        finally:
            self._visiting.discard(qualified)

    def _sent_in(self, qualified: str, body: list[ast.stmt], caught: frozenset[str]) -> set[Sent]:
        sent: set[Sent] = set()
        for statement in body:
            sent |= self._sent_under(qualified, statement)
        return {s for s in sent if not _is_caught(s, caught)}

    def _sent_under(self, qualified: str, node: ast.AST) -> set[Sent]:
        """What `node` and everything in it may send; a `try` keeps what its handlers catch."""
        if isinstance(node, ast.Try):
            names = frozenset(_handler_name(h) for h in node.handlers)
            sent = self._sent_in(qualified, node.body, names)
            for part in (*[h.body for h in node.handlers], node.orelse, node.finalbody):
                sent |= self._sent_in(qualified, part, frozenset())
            return sent
        sent = set()
        if isinstance(node, ast.Call):
            sent |= self._sent_by_call(qualified, node)
        elif _reads_the_body(node):
            sent.add(Sent(413, "body_too_large"))
        for child in ast.iter_child_nodes(node):
            sent |= self._sent_under(qualified, child)
        return sent

    def _sent_by_call(self, qualified: str, call: ast.Call) -> set[Sent]:
        name = _called_name(call)
        args = call.args
        if name == "Problem" and len(args) >= 2 and all(isinstance(a, ast.Constant) for a in args[:2]):
            return {Sent(args[0].value, args[1].value)}  # type: ignore[attr-defined]
        if name == "abort" and args and isinstance(args[0], ast.Constant):
            return {Sent(args[0].value, problems._HTTP_CODES.get(args[0].value))}
        cls = _error_class(name) if name else None
        if cls is not None:
            return {_sent_for_error(cls, call)}
        return {sent for callee in self.callees(qualified, call) for sent in self.sent_by(callee)}


def _reads_the_body(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ("get_data", "get_json", "data", "json", "form", "stream")
        and isinstance(node.value, ast.Name)
        and node.value.id == "request"
    )


def _handler_name(handler: ast.ExceptHandler) -> str:
    kind = handler.type
    if kind is None:
        return "BaseException"
    if isinstance(kind, ast.Tuple):
        return "|".join(_handler_name(ast.ExceptHandler(type=e)) for e in kind.elts)
    return kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "")


def _is_caught(sent: Sent, caught: frozenset[str]) -> bool:
    names = {name for group in caught for name in group.split("|")}
    if names & CATCH_ALL:
        return True
    if sent.origin is None:
        return "Problem" in names
    return any(cls.__name__ in names for cls in inspect.getmro(sent.origin))


@cache
def source() -> Source:
    """The parsed source (read once per session)."""
    return Source()


def view_functions(app: Flask) -> dict[tuple[str, str], tuple[str, str]]:
    """(path rule, METHOD) → (qualified name of the function answering it, endpoint)."""
    out = {}
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            view_class = getattr(view, "view_class", None)
            if view_class is not None:
                name = f"{view_class.__module__}.{view_class.__qualname__}.{method.lower()}"
            else:
                name = f"{view.__module__}.{view.__qualname__}"
            out[(rule.rule, method)] = (name, rule.endpoint)
    return out


def sent_per_route(app: Flask) -> dict[tuple[str, str], set[Sent]]:
    """(path rule, METHOD) → every error answer that route may send."""
    found = {}
    for (rule, method), (name, _endpoint) in view_functions(app).items():
        sent = set(source().sent_by(name)) if name in source().functions else set()
        sent.add(Sent(500, "internal_error"))
        if rule not in ratelimit.EXEMPT:
            sent.add(Sent(429, "rate_limited"))
        if "<int:" in rule or "<path:" in rule:
            sent.add(Sent(404, "not_found"))
        found[(rule, method)] = sent
    return found
