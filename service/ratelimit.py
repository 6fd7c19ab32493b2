"""Per-address and per-token rate limits: token buckets, 429 with Retry-After when one runs dry.

Buckets live in each worker (share-nothing, like the metrics): with N workers behind one
address the effective ceiling is up to N times the configured rate, which the README says.
Tokens are bucketed by a digest, so no raw credential is kept in memory longer than a request.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from dataclasses import dataclass

from flask import Flask, request

from service.problems import Problem, problem_response

EXEMPT = ("/healthz", "/readyz", "/metrics")
MAX_KEYS = 50_000


@dataclass(frozen=True)
class Limit:
    """A sustained rate (requests per second) and a burst; rate 0 disables the limit."""

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
        return self.rate > 0


class Buckets:
    """Token buckets keyed by caller."""

    def __init__(self, limit: Limit) -> None:
        self.limit = limit
        self._state: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str, now: float | None = None) -> float:
        """Spend one token; returns 0 when allowed, else the seconds until one is available."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._state.get(key, (float(self.limit.burst), now))
            tokens = min(float(self.limit.burst), tokens + (now - last) * self.limit.rate)
            if tokens >= 1.0:
                self._state[key] = (tokens - 1.0, now)
                allowed = 0.0
            else:
                self._state[key] = (tokens, now)
                allowed = (1.0 - tokens) / self.limit.rate
            if len(self._state) > MAX_KEYS:
                # Full buckets carry no information: forget them first.
                idle = [k for k, (t, seen) in self._state.items() if t + (now - seen) * self.limit.rate >= self.limit.burst]
                for k in idle[: len(self._state) - MAX_KEYS // 2] or list(self._state)[: MAX_KEYS // 2]:
                    self._state.pop(k, None)
            return allowed


def install(app: Flask, per_address: Limit, per_token: Limit) -> None:
    """Refuse requests beyond either limit with 429 and a Retry-After header."""
    by_address = Buckets(per_address) if per_address.enabled else None
    by_token = Buckets(per_token) if per_token.enabled else None
    if by_address is None and by_token is None:
        return

    @app.before_request
    def _limit():
        if request.path in EXEMPT:
            return None
        waits = []
        if by_address is not None:
            waits.append(by_address.take(request.remote_addr or "unknown"))
        header = request.headers.get("Authorization", "")
        if by_token is not None and header:
            waits.append(by_token.take(hashlib.sha256(header.encode()).hexdigest()[:32]))
        wait = max(waits, default=0.0)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            return problem_response(Problem(429, "rate_limited", f"too many requests; retry in {seconds} s",
                                            "Too many requests", retry_after=seconds),
                                    headers={"Retry-After": str(seconds)})
        return None
