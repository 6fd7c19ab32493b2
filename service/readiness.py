"""What `/readyz` and `/metrics` report per partition (issue 34): whether its store answers, and how far each
follower of it (the read models, the clock keeper, its transparency log and the log's witnesses) is behind.

A partition that does not answer makes the host `degraded`, not unready: every host shares the same
partitions, so taking hosts out of a load balancer for it would turn one partition's outage into all of
them. Only the shared store (read models, tournaments), which every request needs, makes a host unready.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from projections.clocks import tracking_name as clock_tracking_name
from service.context import Gambit


@dataclass
class PartitionReport:
    """One partition as a probe found it: its head and each follower's lag (None: unknown, or it does not answer)."""

    partition: int
    answers: bool
    cause: str | None = None
    head: int | None = None
    projection_lag: int | None = None
    clock_lag: int | None = None
    log_lag: int | None = None
    witnessing: dict | None = None

    def as_json(self) -> dict[str, Any]:
        """The partition's entry of `/readyz`."""
        body: dict[str, Any] = {"partition": self.partition, "answers": self.answers}
        if not self.answers:
            body["cause"] = self.cause
            return body
        body.update(
            {
                "notifications": self.head,
                "projection_lag": self.projection_lag,
                "clock_lag": self.clock_lag,
                "log_lag": self.log_lag,
            }
        )
        if self.witnessing is not None:
            body["witnessing"] = self.witnessing
        return body


def _clock_positions(g: Gambit) -> dict[str, int] | None:
    """The clock keeper's position in each partition's log (by tracking name), or None before any keeper ran."""
    try:
        rows = g.index.store.query("SELECT name, position FROM gambit_clock_tracking")
    except Exception:  # noqa: BLE001 - no keeper has made its table yet (the shared store was just found answering)
        return None
    return {str(name): int(position) for name, position in rows}


def partition_reports(g: Gambit) -> list[PartitionReport]:
    """Each partition's report, in order; the shared store must answer (the caller has checked it)."""
    clocks = _clock_positions(g)
    logs = g.partition_logs()
    reports = []
    health = g.matches.store.health
    for number, partition in enumerate(g.index.app.partitions):
        why = health.unanswered(number) if health is not None else None
        if why is not None:
            reports.append(PartitionReport(number, False, cause=why))  # not asked again so soon: a probe waits no more
            continue
        try:
            head = partition.recorder.max_notification_id() or 0
            log = logs[number] if number < len(logs) else None
            log_position = log.state()[1] if log is not None else None
            witnessing = None
            if log is not None and g.settings.witnesses:
                from service.witnessing import witnessing_status

                witnessing = witnessing_status(log, g.settings.witnesses, time.time())
        except Exception as exc:  # noqa: BLE001 - whatever the driver raised, this partition does not answer
            if health is not None:
                health.failed(number, exc)
            reports.append(PartitionReport(number, False, cause=f"{type(exc).__name__}: {str(exc)[:200]}"))
            continue
        if health is not None:
            health.answered(number)
        clock_position = None if clocks is None else clocks.get(clock_tracking_name(number), 0)
        reports.append(
            PartitionReport(
                number,
                True,
                head=head,
                projection_lag=max(0, head - g.index.position(number)),
                clock_lag=None if clock_position is None else max(0, head - clock_position),
                log_lag=None if log_position is None else max(0, head - log_position),
                witnessing=witnessing,
            )
        )
    return reports
