"""Prometheus metrics in text format: requests and latencies by route, commands by ruleset and outcome.

Counters live in each gunicorn worker and carry a `worker` label (its pid); Prometheus sums
over workers. This keeps workers share-nothing (no multiprocess directory to manage), at the
cost of a worker's counts restarting with it — `rate()` handles that as a counter reset.
"""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict

from flask import Flask, Response, g, request

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
COMMAND_OUTCOMES = {
    201: "accepted",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    412: "stale_version",
    422: "rejected",
}


class Metrics:
    """The counters and histograms of one process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple, int] = defaultdict(int)
        self.latency_buckets: dict[tuple, list[int]] = defaultdict(lambda: [0] * len(BUCKETS))
        self.latency_sum: dict[tuple, float] = defaultdict(float)
        self.latency_count: dict[tuple, int] = defaultdict(int)
        self.commands: dict[tuple, int] = defaultdict(int)

    def observe(self, route: str, method: str, status: int, seconds: float, ruleset: str | None) -> None:
        """Count one finished request."""
        with self._lock:
            self.requests[(route, method, str(status))] += 1
            key = (route, method)
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    self.latency_buckets[key][i] += 1
            self.latency_sum[key] += seconds
            self.latency_count[key] += 1
            if ruleset is not None:
                self.commands[(ruleset, COMMAND_OUTCOMES.get(status, "error" if status >= 500 else "other"))] += 1

    def render(self, projection_lag: int | None) -> str:
        """The Prometheus text exposition of everything counted so far."""
        worker = str(os.getpid())
        lines = [
            "# HELP gambit_http_requests_total HTTP requests by route, method and status.",
            "# TYPE gambit_http_requests_total counter",
        ]
        with self._lock:
            for (route, method, status), count in sorted(self.requests.items()):
                lines.append(
                    f'gambit_http_requests_total{{route="{route}",method="{method}",status="{status}",'
                    f'worker="{worker}"}} {count}'
                )
            lines += [
                "# HELP gambit_http_request_duration_seconds Request latency by route and method.",
                "# TYPE gambit_http_request_duration_seconds histogram",
            ]
            for (route, method), buckets in sorted(self.latency_buckets.items()):
                labels = f'route="{route}",method="{method}",worker="{worker}"'
                for bound, count in zip(BUCKETS, buckets):
                    lines.append(f'gambit_http_request_duration_seconds_bucket{{{labels},le="{bound}"}} {count}')
                total = self.latency_count[(route, method)]
                lines.append(f'gambit_http_request_duration_seconds_bucket{{{labels},le="+Inf"}} {total}')
                lines.append(
                    f"gambit_http_request_duration_seconds_sum{{{labels}}} {self.latency_sum[(route, method)]:.6f}"
                )
                lines.append(f"gambit_http_request_duration_seconds_count{{{labels}}} {total}")
            lines += [
                "# HELP gambit_commands_total Commands by ruleset and outcome.",
                "# TYPE gambit_commands_total counter",
            ]
            for (ruleset, outcome), count in sorted(self.commands.items()):
                lines.append(
                    f'gambit_commands_total{{ruleset="{ruleset}",outcome="{outcome}",worker="{worker}"}} {count}'
                )
        if projection_lag is not None:
            lines += [
                "# HELP gambit_projection_lag Store notifications the cross-match index has not folded yet.",
                "# TYPE gambit_projection_lag gauge",
                f'gambit_projection_lag{{projection="cross-match-index"}} {projection_lag}',
            ]
        return "\n".join(lines) + "\n"


def install(app: Flask, metrics: Metrics) -> None:
    """Time every request and count it by its route template (never by raw path)."""

    @app.before_request
    def _start() -> None:
        g.gambit_started = time.perf_counter()

    @app.after_request
    def _count(response: Response) -> Response:
        started = getattr(g, "gambit_started", None)
        if started is not None:
            route = request.url_rule.rule if request.url_rule is not None else "unmatched"
            metrics.observe(
                route,
                request.method,
                response.status_code,
                time.perf_counter() - started,
                getattr(g, "gambit_ruleset", None),
            )
        return response
