"""Rate limits per client address, per bearer token and on match creation, on a store every worker shares.

Counting is the `limits` library's sliding-window counter. Its storage is a URI: `memory://`
(the embedded default: counts live in one worker process, so N workers allow up to N times the
rate) or a shared backend such as `redis://host:6379` for production, where every worker on every
host spends from the same budget. Past a limit a request gets 429 with Retry-After. Tokens are
keyed by a digest, so no raw credential is kept. When the shared store cannot be reached the
request is let through and the failure logged once per minute: a limiter outage must not become
a service outage.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

import limits
from flask import Flask, Response, request
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter

from service.problems import Problem, problem_response

EXEMPT = ("/healthz", "/readyz", "/metrics")
log = logging.getLogger("gambit.ratelimit")
# How often the embedded store drops its expired counters (memory only: every count is checked
# against its expiry when read, whether or not the sweep has run).
SWEEP_SECONDS = 1.0


class SweptMemoryStorage(MemoryStorage):
    """The `limits` library's `memory://` store, with its expired counters dropped in line.

    The library's store starts a timer thread, 10 ms long, on every hit that finds none running:
    under load, nearly one thread per request, a large share of a request's cost (bench/). Its
    counts and their expiries are the library's own; only the clean-up of expired keys, which frees
    memory and changes no count (a read drops an expired key itself), runs on a hit at most once
    per SWEEP_SECONDS instead.
    """

    def __init__(self, uri: str | None = None) -> None:
        super().__init__(uri)
        self._next_sweep = time.monotonic() + SWEEP_SECONDS

    # The library's private hook, by its mangled name: the store calls it on every hit.
    def _MemoryStorage__schedule_expiry(self) -> None:
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_SECONDS
            getattr(self, "_MemoryStorage__expire_events")()  # noqa: B009 - a private name mypy cannot see


def limit_storage(uri: str) -> Storage | Any:
    """The store limits count in: the swept in-memory one for `memory://`, else the library's for the URI."""
    if uri.split("://", 1)[0] == "memory":
        return SweptMemoryStorage(uri)
    return storage_from_string(uri)


@dataclass(frozen=True)
class Limit:
    """A sustained rate (requests per second) and a burst; rate 0 disables the limit.

    The burst is the budget of one window of `burst / rate` seconds (`20/100`: 100 per 5 s).
    """

    rate: float
    burst: int

    @classmethod
    def parse(cls, text: str) -> Limit:
        """`RATE/BURST` (e.g. `20/100`) or `0` to disable."""
        rate, _, burst = text.partition("/")
        return cls(float(rate), int(burst or max(1, int(float(rate) * 2))))

    @property
    def enabled(self) -> bool:
        """Whether this limit applies at all."""
        return self.rate > 0 and self.burst > 0

    def item(self) -> limits.RateLimitItem:
        """The `limits` item: `burst` requests per window of burst/rate seconds."""
        return limits.RateLimitItemPerSecond(self.burst, max(1, round(self.burst / self.rate)))


@dataclass(frozen=True)
class Limits:
    """Every limit the service applies, and the store they count in."""

    per_address: Limit
    per_token: Limit
    # Match creations per client address: a cap on growth, far below the request rate.
    matches_per_address: Limit
    storage_uri: str = "memory://"


class Limiter:
    """Counts requests against the configured limits; `wait` says how long a caller must wait (0: go)."""

    def __init__(self, config: Limits) -> None:
        self.config = config
        self._strategy = SlidingWindowCounterRateLimiter(limit_storage(config.storage_uri))
        self._last_failure = 0.0

    def wait(self, limit: Limit, scope: str, key: str) -> float:
        """Spend one request of `limit` for `key`; 0 when allowed, else seconds until the window frees one."""
        if not limit.enabled:
            return 0.0
        item = limit.item()
        try:
            if self._strategy.hit(item, "gambit", scope, key):
                return 0.0
            reset = self._strategy.get_window_stats(item, "gambit", scope, key).reset_time
        except Exception as exc:  # noqa: BLE001 - any backend failure: let the request through, say so
            now = time.monotonic()
            if now - self._last_failure > 60:
                self._last_failure = now
                log.warning("rate-limit store %s unavailable, not limiting: %s", self.config.storage_uri, exc)
            return 0.0
        return max(1.0, reset - time.time())


def install(app: Flask, config: Limits) -> None:
    """Refuse requests beyond any limit with 429 `rate_limited` and a Retry-After header."""
    if not (config.per_address.enabled or config.per_token.enabled or config.matches_per_address.enabled):
        return
    limiter = Limiter(config)

    @app.before_request
    def _limit() -> Response | None:
        if request.path in EXEMPT:
            return None
        address = request.remote_addr or "unknown"
        waits = [limiter.wait(config.per_address, "address", address)]
        header = request.headers.get("Authorization", "")
        if header:
            waits.append(limiter.wait(config.per_token, "token", hashlib.sha256(header.encode()).hexdigest()[:32]))
        if request.method == "POST" and request.path == "/matches":
            waits.append(limiter.wait(config.matches_per_address, "matches", address))
        wait = max(waits)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            return problem_response(
                Problem(
                    429,
                    "rate_limited",
                    f"too many requests; retry in {seconds} s",
                    "Too many requests",
                    retry_after=seconds,
                ),
                headers={"Retry-After": str(seconds)},
            )
        return None
