"""Rate limits per client address, per bearer token and on match creation, on a store every worker shares.

Counting is the `limits` library's sliding-window counter. Its storage is a URI: `memory://`
(the embedded default: counts live in one worker process, so N workers allow up to N times the
rate) or a shared backend such as `redis://host:6379` for production, where every worker on every
host spends from the same budget. Past a limit a request gets 429 with Retry-After. Tokens are
keyed by a digest, so no raw credential is kept. When the shared store cannot be reached, or
accepts connections but does not answer, each call gives up after a bounded connect/read timeout
(`GAMBIT_RATE_LIMIT_STORAGE_TIMEOUT`), the request is let through, the store is left alone for
FAILURE_PAUSE_SECONDS, the failure is counted (`gambit_rate_limit_store_failures`) and logged at
most once per minute: a limiter outage must not become a service outage.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
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
# Seconds a connect, or a read of one answer, from a shared store may take before the request goes on unlimited.
DEFAULT_STORAGE_TIMEOUT = 0.25
# After a store failure, requests skip the store this long: during an outage a request pays no
# timeout at all, and each worker still probes the store about once a second.
FAILURE_PAUSE_SECONDS = 1.0
# Failures are logged at most once per this many seconds (with the count since the last line).
FAILURE_LOG_SECONDS = 60.0
# URI schemes of the redis client, which takes socket timeouts (other backends have their own options).
REDIS_SCHEMES = ("redis", "rediss", "redis+unix", "valkey", "valkeys", "valkey+unix")


class SweptMemoryStorage(MemoryStorage):
    """The `limits` library's `memory://` store, with its expired counters dropped in line.

    The library's store starts a timer thread, 10 ms long, on every hit that finds none running:
    under load, nearly one thread per request, a large share of a request's cost (bench/). Its
    counts and their expiries are the library's own; only the clean-up of expired keys, which frees
    memory and changes no count (a read drops an expired key itself), runs on a hit at most once
    per SWEEP_SECONDS instead. `monotonic` times the sweeps (tests pass a clock they move).
    """

    def __init__(self, uri: str | None = None, monotonic: Callable[[], float] = time.monotonic) -> None:
        super().__init__(uri)
        self._monotonic = monotonic
        self._next_sweep = monotonic() + SWEEP_SECONDS

    # The library's private hook, by its mangled name: the store calls it on every hit.
    def _MemoryStorage__schedule_expiry(self) -> None:
        now = self._monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_SECONDS
            getattr(self, "_MemoryStorage__expire_events")()  # noqa: B009 - a private name mypy cannot see


def limit_storage(uri: str, timeout: float = DEFAULT_STORAGE_TIMEOUT) -> Storage | Any:
    """The store limits count in: the swept in-memory one for `memory://`, else the library's for the URI.

    A redis store gets `timeout` as its connect and read timeouts (the client's default waits for
    ever on a server that accepts but never answers); options in the URI's query win.
    """
    scheme = uri.split("://", 1)[0]
    if scheme == "memory":
        return SweptMemoryStorage(uri)
    if scheme in REDIS_SCHEMES:
        return storage_from_string(uri, socket_timeout=timeout, socket_connect_timeout=timeout)
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
    # Connect and read timeout, in seconds, of a shared store (see limit_storage).
    storage_timeout: float = DEFAULT_STORAGE_TIMEOUT


class Limiter:
    """Counts requests against the configured limits; `wait` says how long a caller must wait (0: go).

    `monotonic` times the pause after a store failure and the log's once-a-minute (tests pass a
    clock they move); the windows themselves are the library's, on its store's clock.
    """

    def __init__(
        self,
        config: Limits,
        on_failure: Callable[[], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self._strategy = SlidingWindowCounterRateLimiter(limit_storage(config.storage_uri, config.storage_timeout))
        self._on_failure = on_failure
        self._monotonic = monotonic
        self._paused_until = 0.0
        self._last_logged = -math.inf
        self._unlogged_failures = 0

    def wait(self, limit: Limit, scope: str, key: str) -> float:
        """Spend one request of `limit` for `key`; 0 when allowed, else seconds until the window frees one."""
        if not limit.enabled or self._monotonic() < self._paused_until:
            return 0.0
        item = limit.item()
        try:
            if self._strategy.hit(item, "gambit", scope, key):
                return 0.0
            reset = self._strategy.get_window_stats(item, "gambit", scope, key).reset_time
        except Exception as exc:  # noqa: BLE001 - any backend failure: let the request through, say so
            self._failed(exc)
            return 0.0
        return max(1.0, reset - time.time())

    def _failed(self, exc: Exception) -> None:
        """Pause the store, count the failure, and log it unless a line went out in the last FAILURE_LOG_SECONDS."""
        now = self._monotonic()
        self._paused_until = now + FAILURE_PAUSE_SECONDS
        self._unlogged_failures += 1
        if self._on_failure is not None:
            self._on_failure()
        if now - self._last_logged >= FAILURE_LOG_SECONDS:
            log.warning(
                "rate-limit store %s failed (%d failure(s) since the last line), not limiting: %s",
                _without_password(self.config.storage_uri),
                self._unlogged_failures,
                exc,
                extra={"failures": self._unlogged_failures},
            )
            self._last_logged = now
            self._unlogged_failures = 0


def _without_password(uri: str) -> str:
    """The store's URI with any password masked, fit for a log line."""
    scheme, sep, rest = uri.partition("://")
    credentials, at, location = rest.rpartition("@")
    if not at or ":" not in credentials:
        return uri
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{location}"


def install(app: Flask, config: Limits, on_failure: Callable[[], None] | None = None) -> None:
    """Refuse requests beyond any limit with 429 `rate_limited` and a Retry-After header.

    `on_failure` is called once per failed call to the store (the request then goes on unlimited).
    """
    if not (config.per_address.enabled or config.per_token.enabled or config.matches_per_address.enabled):
        return
    limiter = Limiter(config, on_failure)

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
