"""Prometheus metrics that add up over every gunicorn worker: requests, latencies, commands, followers, lag.

Under `gambit serve`, deploy/gunicorn.conf.py points `PROMETHEUS_MULTIPROC_DIR` at a fresh
directory per server start before any worker starts; each worker writes its samples there
(prometheus_client's multiprocess mode), a scrape of any worker reads them all, and the master
marks an exited worker dead so its live gauges drop out. Counters of a recycled worker stay in
the sum, so counts only ever grow for the life of the server. Without the variable (tests,
`flask run`) the metrics of the one process are exposed.

Requests are counted by route template (the Flask rule, `/matches/<match_id>`), never by raw
path, so match ids neither leak nor explode the series count.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from service.streams import Follower, StreamHub

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
MULTIPROCESS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
UNMATCHED_ROUTE = "unmatched"
# Series whose label lookups one process remembers (far more than the service has).
MAX_REMEMBERED_SERIES = 4096

# `_created` series double every counter and histogram for a timestamp Prometheus does not need.
disable_created_metrics()


class Metrics:
    """The metrics of this server: shared by its workers in multiprocess mode, else this process's own."""

    def __init__(self) -> None:
        # Multiprocess mode only where a server made the directory (deploy/gunicorn.conf.py): a tool
        # run in a shell that inherited the variable after that server removed it keeps its own.
        directory = os.environ.get(MULTIPROCESS_DIR_VARIABLE)
        self.multiprocess = bool(directory) and os.path.isdir(directory or "")
        self.registry = CollectorRegistry()
        if self.multiprocess:
            # Samples live in the directory's files; the scrape reads every worker's from there.
            MultiProcessCollector(self.registry)
        own = None if self.multiprocess else self.registry
        # Label names in alphabetical order: both modes then print the labels alike.
        self.requests = Counter(
            "gambit_http_requests",
            "HTTP requests by route template, method and status.",
            ("method", "route", "status"),
            registry=own,
        )
        self.latency = Histogram(
            "gambit_http_request_duration_seconds",
            "Request latency by route template and method (to the response's first byte for streams).",
            ("method", "route"),
            buckets=BUCKETS,
            registry=own,
        )
        self.commands = Counter(
            "gambit_commands",
            "Commands by ruleset and outcome: accepted, or the problem code that refused them.",
            ("outcome", "ruleset"),
            registry=own,
        )
        self.followers = Gauge(
            "gambit_sse_followers",
            "Open Server-Sent Event streams (live followers), over all live workers.",
            multiprocess_mode="livesum",
            registry=own,
        )
        self.log_leaves = Counter(
            "gambit_log_leaves",
            "Writes integrated into the transparency log as leaves.",
            registry=own,
        )
        # Per partition (issue 34): one series each, labelled with its number (0 alone without partitions).
        self.witness_behind_leaves = Gauge(
            "gambit_log_witness_behind_leaves",
            "Leaves of a partition's log not yet in a checkpoint a quorum of witnesses cosigned, as /readyz reports.",
            ("partition",),
            multiprocess_mode="mostrecent",
            registry=own,
        )
        self.witness_behind_seconds = Gauge(
            "gambit_log_witness_behind_seconds",
            "Seconds since a partition's newest quorum checkpoint was cosigned while leaves wait for the next (0: none "
            "wait; NaN: none cosigned yet, or the partition did not answer).",
            ("partition",),
            multiprocess_mode="mostrecent",
            registry=own,
        )
        self.projection_lag = Gauge(
            "gambit_projection_lag",
            "A partition's notifications the read model has not folded yet, as /readyz reports (NaN: the store did "
            "not answer).",
            ("partition", "projection"),
            multiprocess_mode="mostrecent",
            registry=own,
        )
        self.clock_lag = Gauge(
            "gambit_clock_lag",
            "A partition's notifications the clock keeper has not followed yet (NaN: unknown, or no keeper has run).",
            ("partition",),
            multiprocess_mode="mostrecent",
            registry=own,
        )
        self.log_lag = Gauge(
            "gambit_log_lag",
            "A partition's notifications not yet integrated into its transparency log (NaN: unknown).",
            ("partition",),
            multiprocess_mode="mostrecent",
            registry=own,
        )
        self.partition_up = Gauge(
            "gambit_partition_up",
            "1 while a partition's event store answers, 0 while it does not (NaN: the shared store did not answer).",
            ("partition",),
            multiprocess_mode="mostrecent",
            registry=own,
        )
        self.partition_notifications = Gauge(
            "gambit_partition_notifications",
            "A partition's newest notification id: the appends it has taken (its rate over pg_stat_wal's wal_sync "
            "rate is appends per WAL flush).",
            ("partition",),
            multiprocess_mode="mostrecent",
            registry=own,
        )
        self.rate_limit_store_failures = Counter(
            "gambit_rate_limit_store_failures",
            "Calls to the rate-limit store that failed or timed out (each let its request through unlimited).",
            registry=own,
        )
        self.leader = Gauge(
            "gambit_leader",
            "1 in the process that keeps the clocks, scrubs the chains and keeps the log (projections/leadership.py), else 0.",
            multiprocess_mode="livesum",
            registry=own,
        )
        self.clock_expiries = Counter(
            "gambit_clock_expiries",
            "Matches whose due expiries the clock keeper recorded.",
            registry=own,
        )
        self.scrubbed = Counter(
            "gambit_scrub_matches_checked",
            "Matches whose whole chain the scrub re-checked, by outcome: clean, or mismatch (an integrity alert).",
            ("outcome",),
            registry=own,
        )
        self.scrub_passes = Counter(
            "gambit_scrub_passes",
            "Passes of the scrub over every match completed.",
            registry=own,
        )
        self._followers_lock = threading.Lock()
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        """Count one finished request."""
        self._child(self.requests, method, route, str(status)).inc()
        self._child(self.latency, method, route).observe(seconds)

    def count_command(self, ruleset: str, outcome: str) -> None:
        """Count one command by its ruleset and outcome."""
        self._child(self.commands, outcome, ruleset).inc()

    def count_rate_limit_store_failure(self) -> None:
        """Count one failed call to the rate-limit store."""
        self.rate_limit_store_failures.inc()

    def leading(self, leads: bool) -> None:
        """This process now leads (keeps the clocks, scrubs), or no longer does."""
        self.leader.set(1 if leads else 0)

    def count_expiries(self, matches: int) -> None:
        """Count matches whose due expiries the clock keeper recorded."""
        self.clock_expiries.inc(matches)

    def count_scrubbed(self, problem: str | None) -> None:
        """Count one match the scrub re-checked (a problem: its chain failed the checks)."""
        self._child(self.scrubbed, "clean" if problem is None else "mismatch").inc()

    def count_scrub_pass(self) -> None:
        """Count one completed pass of the scrub over every match."""
        self.scrub_passes.inc()

    def count_log_leaves(self, added: int) -> None:
        """Count writes the sequencer integrated into the log."""
        self.log_leaves.inc(added)

    def _child(self, metric: Any, *values: str) -> Any:
        """`metric.labels(*values)` (label values in the metric's label-name order), looked up once per series.

        The library checks and builds the series key on every `labels` call; a request needs the same
        few series again and again. Series are bounded (route templates, methods, statuses, rulesets,
        problem codes), and so is this map.
        """
        key = (id(metric), values)
        child = self._children.get(key)
        if child is None:
            child = metric.labels(*values)
            if len(self._children) > MAX_REMEMBERED_SERIES:
                self._children.clear()
            self._children[key] = child
        return child

    def open_streams(self, count: int) -> None:
        """This process now holds `count` open streams."""
        self.followers.set(count)

    def render(self, reports: list[Any] | None, partitions: int = 1) -> str:
        """The Prometheus text exposition, with each partition's report just made (service/readiness.py; None: the
        shared store did not answer, so nothing is known of the `partitions` partitions)."""
        nan = float("nan")

        def known(value: float | None) -> float:
            return nan if value is None else value

        for report in reports or []:
            number = str(report.partition)
            self.partition_up.labels(partition=number).set(1 if report.answers else 0)
            self.projection_lag.labels(partition=number, projection="cross-match-index").set(
                known(report.projection_lag)
            )
            self.clock_lag.labels(partition=number).set(known(report.clock_lag))
            self.log_lag.labels(partition=number).set(known(report.log_lag))
            if report.head is not None:
                self.partition_notifications.labels(partition=number).set(report.head)
            if report.witnessing is not None:
                self.witness_behind_leaves.labels(partition=number).set(report.witnessing["behind_leaves"])
                self.witness_behind_seconds.labels(partition=number).set(known(report.witnessing["behind_seconds"]))
        if reports is None:
            for number in map(str, range(partitions)):
                self.partition_up.labels(partition=number).set(nan)
                self.projection_lag.labels(partition=number, projection="cross-match-index").set(nan)
        return generate_latest(self.registry).decode()


class MeteredStreamHub(StreamHub):
    """A stream hub that keeps the followers gauge in step with its open streams."""

    def __init__(self, metrics: Metrics, recorders: Any, **caps: Any) -> None:
        super().__init__(recorders, **caps)
        self._metrics = metrics
        self._publish_lock = threading.Lock()

    def reserve(self, match_id: str, client: str) -> Follower:
        """Take a stream slot (see StreamHub.reserve) and publish the new count."""
        follower = super().reserve(match_id, client)
        self._publish()
        return follower

    def release(self, follower: Follower) -> None:
        """Give a stream slot back (see StreamHub.release) and publish the new count."""
        super().release(follower)
        self._publish()

    def _publish(self) -> None:
        # Read and written under one lock, so the last write is the count after the last change.
        with self._publish_lock:
            self._metrics.open_streams(self.open_streams)


def count_as_command(ruleset: str) -> None:
    """Count this request as a command of `ruleset`, under the outcome its response ends with (accepted or refused).

    Told as soon as the match is loaded, so a command refused later (a bad body, a late seat) is
    counted under its ruleset too; the count is made once the response, error or not, is ready.
    """
    g.gambit_command_ruleset = ruleset


def _outcome(status: int) -> str:
    """How a command ended: accepted, or the problem code the response carried."""
    if status < 400:
        return "accepted"
    return g.get("problem_code") or f"http_{status}"


def install(app: Flask, metrics: Metrics) -> None:
    """Time every request and count it by its route template; count commands by ruleset and outcome."""

    @app.before_request
    def _start() -> None:
        g.gambit_started = time.perf_counter()

    @app.after_request
    def _count(response: Response) -> Response:
        started = g.get("gambit_started")
        if started is not None:
            route = request.url_rule.rule if request.url_rule is not None else UNMATCHED_ROUTE
            metrics.observe(route, request.method, response.status_code, time.perf_counter() - started)
            ruleset = g.get("gambit_command_ruleset")
            if ruleset is not None:
                metrics.count_command(ruleset, _outcome(response.status_code))
        return response
