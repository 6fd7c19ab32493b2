"""Settings from the environment (every one documented in the README's configuration table)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from service.ratelimit import DEFAULT_STORAGE_TIMEOUT, Limit, Limits

DEFAULT_DATA_DIR = "./var"
DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_ADDRESS_LIMIT = "100/400"
DEFAULT_TOKEN_LIMIT = "50/200"
DEFAULT_MATCH_CREATION_LIMIT = "0.5/120"
DEFAULT_MAX_DISPUTES_PER_FILER = 20
DEFAULT_RECENT_MATCHES = 256
DEFAULT_MAX_STREAMS = 2000
DEFAULT_MAX_STREAMS_PER_CLIENT = 16
NO_LIMIT = Limit(0, 0)
DEFAULT_SCRUB_RATE = 10.0
DEFAULT_SCRUB_INTERVAL = 3600.0
DEFAULT_LOG_MERGE_DELAY = 60
DEFAULT_LOG_INTERVAL = 0.5
DEFAULT_KEY_RETIREMENT_DELAY = 300.0


@dataclass(frozen=True)
class Settings:
    """How one service process is configured."""

    database_url: str
    data_dir: str
    # The event stores matches are partitioned over (domain/partitions.py), in order; empty: the one store of
    # `database_url`. With them, `database_url` keeps the read models, tournaments and the access trail.
    partition_urls: tuple[str, ...] = ()
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    signing_key: str | None = None
    # Public keys of earlier signing keys (base64, comma-separated): receipts they signed stay valid.
    previous_signing_keys: tuple[str, ...] = ()
    # Programmatic Settings() (tests, embedding) have no rate limits; the environment-configured
    # service (`gambit serve`) has them on by default (see from_env).
    rate_limit_per_address: Limit = NO_LIMIT
    rate_limit_per_token: Limit = NO_LIMIT
    match_creation_limit: Limit = NO_LIMIT
    # Where limits count: memory:// (per worker process) or a shared store such as redis://host:6379.
    rate_limit_storage: str = "memory://"
    # Seconds a connect to, or an answer from, a shared rate-limit store may take (then: not limited).
    rate_limit_storage_timeout: float = DEFAULT_STORAGE_TIMEOUT
    # Disputes one filer (a seat, or the organizer) may file in one match.
    max_disputes_per_filer: int = DEFAULT_MAX_DISPUTES_PER_FILER
    # Matches a worker keeps in memory to bring up to date rather than rebuild on each request (0: none).
    recent_matches: int = DEFAULT_RECENT_MATCHES
    # Open SSE streams per process, and per client address within it (0: no cap).
    max_streams: int = DEFAULT_MAX_STREAMS
    max_streams_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT
    # How the stream watcher learns of new records: "poll" (one query per 0.25 s per process, any
    # store) or "listen" (PostgreSQL: LISTEN for the wake each append sends after its commit, polling
    # every 2 s as well: a read at once, but a query per write per process).
    stream_watch: str = "poll"
    # How many reverse proxies in front of the service set X-Forwarded-For; 0 trusts none.
    trusted_proxies: int = 0
    # Whether `gambit serve` keeps the clocks itself (in its leader); off: run `gambit clock`.
    keep_clocks: bool = True
    # Whether `gambit serve` runs its leader's duties in a process of their own (`gambit lead`, started by the
    # master), the workers leading only while it is down; off: one worker leads. Programmatic Settings(): off.
    lead_process: bool = False
    # The background scrub: matches re-checked a second (0: off), and seconds from one pass's start to the next's.
    scrub_rate: float = DEFAULT_SCRUB_RATE
    scrub_interval: float = DEFAULT_SCRUB_INTERVAL
    # The transparency log's name (its checkpoints' origin line); None: named on first start, then kept.
    log_origin: str | None = None
    # The seconds within which a v2 receipt promises its write a leaf of the log.
    log_merge_delay: int = DEFAULT_LOG_MERGE_DELAY
    # Seconds between the leader's integrations of new writes into the log (each signs a checkpoint); 0: off.
    log_interval: float = DEFAULT_LOG_INTERVAL
    # The witnesses the log asks to cosign its checkpoints (service/witnessing.py) and how many must.
    witnesses: tuple = ()
    witness_quorum: int = 0
    # Seconds after the leader first finds a previous signing key not yet retired in the log before it retires it
    # (processes still signing with it finish a rolling restart first). Programmatic Settings() retire at once.
    key_retirement_delay: float = 0.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read GAMBIT_* variables; SQLite under GAMBIT_DATA_DIR (default ./var) unless a URL is given."""
        env = os.environ if env is None else env
        data_dir = env.get("GAMBIT_DATA_DIR", DEFAULT_DATA_DIR)
        url = env.get("GAMBIT_DATABASE_URL") or f"sqlite:///{os.path.join(data_dir, 'gambit.sqlite3')}"
        return cls(
            database_url=url,
            data_dir=data_dir,
            partition_urls=_partition_urls(env.get("GAMBIT_PARTITION_URLS", "")),
            max_body_bytes=int(env.get("GAMBIT_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)),
            signing_key=env.get("GAMBIT_SIGNING_KEY") or None,
            previous_signing_keys=tuple(
                k.strip() for k in env.get("GAMBIT_PREVIOUS_SIGNING_KEYS", "").split(",") if k.strip()
            ),
            rate_limit_per_address=Limit.parse(env.get("GAMBIT_RATE_LIMIT_PER_ADDRESS", DEFAULT_ADDRESS_LIMIT)),
            rate_limit_per_token=Limit.parse(env.get("GAMBIT_RATE_LIMIT_PER_TOKEN", DEFAULT_TOKEN_LIMIT)),
            match_creation_limit=Limit.parse(env.get("GAMBIT_MATCH_CREATION_LIMIT", DEFAULT_MATCH_CREATION_LIMIT)),
            rate_limit_storage=env.get("GAMBIT_RATE_LIMIT_STORAGE") or "memory://",
            rate_limit_storage_timeout=_positive_seconds(
                env, "GAMBIT_RATE_LIMIT_STORAGE_TIMEOUT", DEFAULT_STORAGE_TIMEOUT
            ),
            max_disputes_per_filer=int(env.get("GAMBIT_MAX_DISPUTES_PER_FILER", DEFAULT_MAX_DISPUTES_PER_FILER)),
            recent_matches=int(env.get("GAMBIT_RECENT_MATCHES", DEFAULT_RECENT_MATCHES)),
            max_streams=int(env.get("GAMBIT_MAX_STREAMS", DEFAULT_MAX_STREAMS)),
            max_streams_per_client=int(env.get("GAMBIT_MAX_STREAMS_PER_CLIENT", DEFAULT_MAX_STREAMS_PER_CLIENT)),
            stream_watch=_one_of(env, "GAMBIT_STREAM_WATCH", ("poll", "listen"), "poll"),
            trusted_proxies=int(env.get("GAMBIT_TRUSTED_PROXIES", "0")),
            keep_clocks=_one_of(env, "GAMBIT_SERVE_KEEPS_CLOCKS", ("on", "off"), "on") == "on",
            lead_process=_one_of(env, "GAMBIT_LEAD_PROCESS", ("on", "off"), "on") == "on",
            scrub_rate=_non_negative(env, "GAMBIT_SCRUB_RATE", DEFAULT_SCRUB_RATE),
            scrub_interval=_non_negative(env, "GAMBIT_SCRUB_INTERVAL", DEFAULT_SCRUB_INTERVAL),
            log_origin=_origin(env.get("GAMBIT_LOG_ORIGIN", "")),
            log_merge_delay=int(_non_negative(env, "GAMBIT_LOG_MERGE_DELAY", DEFAULT_LOG_MERGE_DELAY)),
            log_interval=_non_negative(env, "GAMBIT_LOG_INTERVAL", DEFAULT_LOG_INTERVAL),
            key_retirement_delay=_non_negative(env, "GAMBIT_KEY_RETIREMENT_DELAY", DEFAULT_KEY_RETIREMENT_DELAY),
            **_witnessing(env),
        )

    @property
    def limits(self) -> Limits:
        """The rate limits, with the store they count in."""
        return Limits(
            self.rate_limit_per_address,
            self.rate_limit_per_token,
            self.match_creation_limit,
            self.rate_limit_storage,
            self.rate_limit_storage_timeout,
        )


def _partition_urls(text: str) -> tuple[str, ...]:
    """GAMBIT_PARTITION_URLS: store URLs separated by commas (a schema as `?schema=`); a bad one fails at start."""
    from domain.store import storage_env

    urls = tuple(part.strip() for part in text.split(",") if part.strip())
    for url in urls:
        try:
            storage_env(url)
        except ValueError as exc:
            raise ValueError(f"GAMBIT_PARTITION_URLS: {exc}") from None
    if len(set(urls)) != len(urls):
        raise ValueError("GAMBIT_PARTITION_URLS names one store twice")
    return urls


def _one_of(env: Mapping[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    """An environment setting that must be one of a few words (a typo fails at start, not silently)."""
    value = env.get(name, default).strip().lower() or default
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _witnessing(env: Mapping[str, str]) -> dict:
    """`witnesses` and `witness_quorum` from GAMBIT_WITNESSES and GAMBIT_WITNESS_QUORUM (default: a majority)."""
    from service.witnessing import parse_witnesses

    witnesses = parse_witnesses(env.get("GAMBIT_WITNESSES", ""))
    text = env.get("GAMBIT_WITNESS_QUORUM", "").strip()
    if not witnesses:
        if text:
            raise ValueError("GAMBIT_WITNESS_QUORUM is set but GAMBIT_WITNESSES names no witness")
        return {}
    quorum = len(witnesses) // 2 + 1
    if text:
        if not text.isdigit() or not 1 <= int(text) <= len(witnesses):
            raise ValueError(f"GAMBIT_WITNESS_QUORUM must be a whole number from 1 to {len(witnesses)}, not {text!r}")
        quorum = int(text)
    return {"witnesses": witnesses, "witness_quorum": quorum}


def _origin(text: str) -> str | None:
    """A log origin: one line of printable text without spaces or `+` (signed-note key names); None when unset."""
    value = text.strip()
    if not value:
        return None
    if any(ch.isspace() or ch == "+" or not ch.isprintable() for ch in value):
        raise ValueError(f"GAMBIT_LOG_ORIGIN must be printable text without spaces or '+', not {value!r}")
    return value


def _non_negative(env: Mapping[str, str], name: str, default: float) -> float:
    """An environment setting that must be a finite number, zero or more (a typo fails at start)."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value >= 0 or math.isinf(value):
        raise ValueError(f"{name} must be a number, zero or more, not {text!r}")
    return value


def _positive_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """An environment setting in seconds that must be a positive number (a typo fails at start)."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not seconds > 0 or math.isinf(seconds):
        raise ValueError(f"{name} must be a positive number of seconds, not {text!r}")
    return seconds
