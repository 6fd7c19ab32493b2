"""The replay check of an export: its records folded through the rules of its game.

Every secret that chance and the replayed state fix (a deal, a draw) must be what they give, every
public part the rules fix must be what they give, every bluff ruling is re-adjudicated from the
replayed hidden state, and the final outcome must be the one the rules give.
"""

from __future__ import annotations

from domain.clock import CLOCK_KINDS
from domain.match_options import ruleset_part
from domain.records import COMMAND_RECEIVED, EVIDENCE_COPIES, EVIDENCE_FIELDS, MATCH_FINISHED, json_copy
from domain.records import MATCH_KINDS as RECORD_KINDS
from domain.redecide import CHECK, CommandReplay, Contradiction
from domain.ruleset import ConfigError, Event, config_from_dict
from domain.verification_report import Report

# Every kind of record the match writes itself, whatever the ruleset (domain.match.MATCH_KINDS,
# named without importing the aggregate and its store library): none is the rules' to fold.
MATCH_KINDS = RECORD_KINDS | CLOCK_KINDS


def _first_difference(expected: object, recorded: object, path: str = "") -> str | None:
    """The path of the first key whose recorded value differs from the expected (objects key by key)."""
    if isinstance(expected, dict):
        if not isinstance(recorded, dict):
            return path or "(public)"
        for key, value in expected.items():
            found = _first_difference(value, recorded.get(key, _MISSING), f"{path}.{key}" if path else key)
            if found is not None:
                return found
        return None
    return None if expected == recorded else (path or "(public)")


_MISSING = object()


def _holds(recorded: dict, expected: object) -> bool:
    """Whether a record holds every key of what the rules give, equal as it is: the common case, at C speed.

    The rules give JSON-typed values, so a value equal to the record's as it is stays equal as JSON;
    only when one differs is the JSON copy needed (a tuple differs from a list until copied), and
    `_first_difference` names it.
    """
    return isinstance(expected, dict) and expected.items() <= recorded.items()


class _NotRedecided:
    """Stands in for the re-decider when a benchmark sizes the replay without the `commands` check."""

    recorded = False
    records_causes = False
    setup_redecided = False
    redecided = 0

    def reach(self, index: int, state: object) -> None:
        """Nothing: no command is re-decided."""

    def finish(self) -> None:
        """Nothing: no command is re-decided."""


def check_replay(report: Report, header: dict, records: list[dict], *, redecide: bool = True) -> None:
    """The replay checks (replay, dealt secrets, public parts, verdicts, outcome, commands), when every secret is
    visible; skipped, with the reason, when some are not.

    `redecide=False` is for benchmarks only (bench/verify_cost.py sizes what the `commands` check costs): the
    commands are then not re-decided and the check is reported as skipped. No command-line option sets it."""
    if any(r.get("commitment") is not None and "secret" not in r for r in records):
        report.add(
            "replay",
            None,
            "some secrets are not visible in this export (an organizer's export, or one "
            "taken after the end, has them all)",
        )
        unchecked = sum(1 for r in records if r["kind"] == COMMAND_RECEIVED)
        report.add(
            CHECK,
            None,
            f"{unchecked} recorded commands not re-decided: the rules need every secret, which this export "
            "holds once the match has finished (or in the organizer's form)",
        )
        return
    # Imported here, not with the module: only a replay needs the games' rules.
    from domain import rulesets

    try:
        ruleset = rulesets.get(header["ruleset"])
        config = config_from_dict(ruleset.Config, ruleset_part(header["config"]))
    except (KeyError, ConfigError, TypeError) as exc:
        report.add("replay", False, f"cannot load ruleset {header['ruleset']!r} with this config: {exc}")
        return
    rulings = derived_count = 0
    outcome = None
    version = 0
    commands = CommandReplay(ruleset, header, records, config) if redecide else _NotRedecided()
    try:
        state = ruleset.initial_state(config, list(header["seats"]))
        for index, record in enumerate(records):
            version = record["version"]
            if record["kind"] in MATCH_KINDS:
                commands.reach(index, state)  # a ruleset event is held to its command after the checks below
            if record["kind"] == MATCH_FINISHED:
                outcome = record["public"].get("outcome")
                if json_copy(ruleset.outcome(state)) != outcome:
                    report.add("outcome", False, "the recorded outcome is not the one the rules give")
                    return
                continue
            if record["kind"] in MATCH_KINDS:
                continue
            secret = record.get("secret")
            if secret is not None and not EVIDENCE_COPIES.isdisjoint(secret):
                secret = dict(secret)  # the rules fold the secret without the evidence copies it carries
                for _, copies in EVIDENCE_FIELDS:
                    secret.pop(copies, None)
            event = Event(
                record["kind"],
                record["public"],
                secret,
                None if record.get("audience") is None else tuple(record["audience"]),
                (),
                version,
            )
            derived = ruleset.derived_secret(state, event)
            if derived is not None:
                given = {k: (secret or {}).get(k) for k in derived}
                if derived != given and json_copy(derived) != given:  # the JSON copy only when needed (_holds)
                    report.add(
                        "dealt secrets",
                        False,
                        f"version {version}: the secret is not what chance and the "
                        f"replayed state give (a deal or draw off the shuffle)",
                    )
                    return
                derived_count += 1
            fixed = ruleset.derived_public(state, event)
            if fixed is not None and not _holds(record["public"], fixed):
                # Key by key first (a nested object may hold more than the rules fix); the JSON copy
                # only when a value still differs, as a tuple does from its list.
                mismatch = _first_difference(fixed, record["public"]) and _first_difference(
                    json_copy(fixed), record["public"]
                )
                if mismatch is not None:
                    report.add(
                        "public parts",
                        False,
                        f"version {version}: public {mismatch} is not what the replayed state gives",
                    )
                    return
            call = record["public"].get("bluff_call")
            if call is not None:
                expected = ruleset.readjudicate(state, event)  # never modifies the state (the contract)
                differs = (
                    {}
                    if isinstance(call, dict) and _holds(call, expected)
                    else {k: (call.get(k), v) for k, v in json_copy(expected).items() if call.get(k) != v}
                )
                if differs:
                    report.add("verdicts", False, f"ruling {version} differs from the rules: {differs}")
                    return
                rulings += 1
            commands.reach(index, state)
            state = ruleset.evolve(state, event)
        commands.finish()
    except Contradiction as finding:
        report.add(CHECK, False, str(finding))
        return
    except Exception as exc:  # noqa: BLE001 - a tampered record can break any fold: a finding, not a crash
        report.add("replay", False, f"the events do not replay at version {version}: {type(exc).__name__}: {exc}")
        return
    report.add("replay", True, f"{len(records)} records replayed through {header['ruleset']}")
    report.add("dealt secrets", True, f"{derived_count} secrets re-derived from chance and the replayed state")
    report.add(
        "verdicts", True if rulings else None, f"{rulings} rulings re-adjudicated from the replayed hidden state"
    )
    if outcome is not None:
        report.add("outcome", True, "the recorded outcome is the one the rules give")
    if not redecide:
        report.add(CHECK, None, "recorded commands not re-decided (a benchmark's measurement without this check)")
    elif commands.recorded or commands.records_causes:
        setup = " and the setup" if commands.setup_redecided else ""
        report.add(
            CHECK, True, f"{commands.redecided} recorded commands{setup} re-decided: each write is what the rules give"
        )
    else:
        report.add(
            CHECK,
            None,
            "no command is recorded (a match recorded before commands were): its moves are replayed, not re-decided",
        )
