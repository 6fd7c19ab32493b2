"""Service-level resources: health, readiness, the rulesets on offer and each ruleset's commands and catalogue."""

from __future__ import annotations

import time

from flask import Blueprint, Response, jsonify
from flask.views import MethodView

from domain import rulesets
from domain.config_fields import describe_fields
from domain.errors import MatchNotFound, PartitionUnavailable
from domain.match_options import MatchOptions
from domain.partition_health import reaching
from domain.ruleset import config_to_dict
from projections.scrub import whole_chain_problem
from projections.tlog_log import retirement_evidence
from service.bodies import command_fields, command_json_schema
from service.context import Gambit, gambit
from service.problems import Problem, problem_response
from service.readiness import partition_reports
from service.spec import class_summary, event_types, view_types

bp = Blueprint("meta", __name__)


class Health(MethodView):
    """/healthz"""

    def get(self) -> Response:
        """The process is up."""
        return jsonify({"status": "ok"})


class Ready(MethodView):
    """/readyz"""

    def get(self) -> Response:
        """The shared store answers; reports each partition: whether it answers and how far its followers lag.

        A partition that does not answer leaves the host ready but `degraded` (service/readiness.py says why);
        the host is unready while the shared store, or every partition, does not answer.
        """
        g = gambit()
        try:
            g.index.position(0)  # the shared store: the read models every request reads
            reports = partition_reports(g)
        except Exception as exc:  # noqa: BLE001 - any store failure means not ready, whatever the driver raised
            return problem_response(
                Problem(503, "not_ready", f"the store does not answer ({type(exc).__name__})", "Not ready")
            )
        down = [r.partition for r in reports if not r.answers]
        if len(down) == len(reports):
            return problem_response(
                Problem(
                    503,
                    "not_ready",
                    f"no partition answers ({reports[0].cause})",
                    "Not ready",
                    partitions=[r.as_json() for r in reports],
                )
            )
        alerts = _standing_alerts(g)
        if alerts:
            return problem_response(
                Problem(
                    503,
                    "integrity_alert",
                    f"{len(alerts)} match(es) hold records this service did not write or "
                    "sign; see `alerts` and the application log",
                    "Integrity alert",
                    alerts=alerts,
                )
            )
        body: dict = {
            "status": "degraded" if down else "ready",
            "projection_lag": sum(r.projection_lag or 0 for r in reports),
            "partitions": [r.as_json() for r in reports],
        }
        if down:
            body["unavailable_partitions"] = down
        witnessing = _witnessing(g)
        if witnessing is not None:
            # Writes go on while witnesses are down: the service stays ready and says how far behind they are.
            body["witnessing"] = witnessing
        return jsonify(body)


def _standing_alerts(g: Gambit) -> list[dict]:
    """Integrity alerts that still hold: each alerted match's whole chain is checked again, and cleared if clean.

    The whole chain, not a load from the newest snapshot: the scrub's alerts are for records below it. An
    alert of a match whose partition does not answer stands until it can be checked.
    """
    standing = []
    store = g.matches.store
    for alert in g.alerts.standing():
        try:
            with reaching(store.partition_number(alert["match_id"]), store.health):
                problem = whole_chain_problem(store.store_of(alert["match_id"]), alert["match_id"])
        except (MatchNotFound, PartitionUnavailable):
            standing.append(alert)  # the whole match is gone from the store, or cannot be read now: that stands
            continue
        if problem is None:
            g.alerts.clear(alert["match_id"])
        else:
            standing.append(alert)
    return standing


def _witnessing(g: Gambit) -> dict | None:
    """How far witnessing is behind the first partition's log (service/witnessing.py), or None without witnesses."""
    if g.log is None or not g.settings.witnesses:
        return None
    from service.witnessing import witnessing_status

    return witnessing_status(g.log, g.settings.witnesses, time.time())


class MetricsView(MethodView):
    """/metrics"""

    def get(self) -> Response:
        """Prometheus text format: requests, latencies, commands, and per partition its lags and whether it answers."""
        g = gambit()
        try:
            g.index.position(0)
            reports = partition_reports(g)
        except Exception:  # noqa: BLE001 - an unreachable store must not hide the other metrics
            reports = None
        return Response(
            g.metrics.render(reports, partitions=len(g.index.app.partitions)), mimetype="text/plain; version=0.0.4"
        )


class Rulesets(MethodView):
    """/rulesets"""

    def get(self) -> Response:
        """Every ruleset this service plays: its default config and seats, its command types and event kinds."""
        out = []
        for ruleset_id in rulesets.available():
            module = rulesets.get(ruleset_id)
            out.append(
                {
                    "ruleset": ruleset_id,
                    "default_config": config_to_dict(module.Config()),
                    "commands": sorted(cls.type for cls in module.COMMANDS),
                    "seats": module.seat_names(module.Config()),
                    "events": module.EVENTS.kinds(),
                }
            )
        return jsonify({"rulesets": out})


class RulesetItem(MethodView):
    """/rulesets/{ruleset_id}"""

    def get(self, ruleset_id: str) -> Response:
        """One ruleset: its defaults and config fields, every command type with its fields, its phases and catalogue.

        `config_fields` and `match_options` come from the config declarations: each key's type,
        default, range or choices and JSON Schema, so a client can build its forms from them;
        `phases` from PHASES (each phase of the state with the command types it owns), `events` and `views`
        from the event and view declarations (the spec's schemas are the same).
        """
        if ruleset_id not in rulesets.available():
            raise Problem(
                404,
                "ruleset_not_found",
                f"no ruleset {ruleset_id!r} is played here",
                "Ruleset not found",
                rulesets=rulesets.available(),
            )
        module = rulesets.get(ruleset_id)
        commands = [
            {
                "type": cls.type,
                "summary": class_summary(cls) or "",
                # Classes are hashable; mypy does not see it for a cached function's argument (python/mypy#11470).
                "fields": list(command_fields(cls)),  # type: ignore[arg-type]
                "schema": command_json_schema(cls),  # type: ignore[arg-type]
            }
            for cls in sorted(module.COMMANDS, key=lambda c: c.type)
        ]
        return jsonify(
            {
                "ruleset": ruleset_id,
                "default_config": config_to_dict(module.Config()),
                "commands": commands,
                "phases": module.PHASES.types(),
                "catalogue": module.catalogue(),
                "config_fields": describe_fields(module.Config),
                "match_options": describe_fields(MatchOptions),
                "events": event_types(ruleset_id),
                "views": view_types(ruleset_id),
            }
        )


class SigningKey(MethodView):
    """/.well-known/gambit-signing-key"""

    def get(self) -> Response:
        """The public half of the key that signs receipts and export trailers."""
        g = gambit()
        # Only a service that names previous keys can have retired one: no look-up otherwise.
        retirements = retirement_evidence(g.log) if g.log is not None and g.signer.previous_keys else None
        return jsonify(g.signer.public_key_document(retirements))


bp.add_url_rule("/.well-known/gambit-signing-key", view_func=SigningKey.as_view("signing_key"))
bp.add_url_rule("/healthz", view_func=Health.as_view("healthz"))
bp.add_url_rule("/readyz", view_func=Ready.as_view("readyz"))
bp.add_url_rule("/rulesets", view_func=Rulesets.as_view("rulesets"))
bp.add_url_rule("/rulesets/<ruleset_id>", view_func=RulesetItem.as_view("ruleset"))
bp.add_url_rule("/metrics", view_func=MetricsView.as_view("metrics"))
