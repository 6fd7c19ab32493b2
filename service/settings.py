"""Settings from the environment (every one documented in the README's configuration table)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from service.ratelimit import Limit

DEFAULT_DATA_DIR = "./var"
DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_ADDRESS_LIMIT = "100/400"
DEFAULT_TOKEN_LIMIT = "50/200"


@dataclass(frozen=True)
class Settings:
    """How one service process is configured."""

    database_url: str
    data_dir: str
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    signing_key: str | None = None
    # Public keys of earlier signing keys (base64, comma-separated): receipts they signed stay valid.
    previous_signing_keys: tuple[str, ...] = ()
    # Programmatic Settings() (tests, embedding) have no rate limits; the environment-configured
    # service (`gambit serve`) has them on by default (see from_env).
    rate_limit_per_address: Limit = Limit(0, 0)
    rate_limit_per_token: Limit = Limit(0, 0)
    # How many reverse proxies in front of the service set X-Forwarded-For; 0 trusts none.
    trusted_proxies: int = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read GAMBIT_* variables; SQLite under GAMBIT_DATA_DIR (default ./var) unless a URL is given."""
        env = os.environ if env is None else env
        data_dir = env.get("GAMBIT_DATA_DIR", DEFAULT_DATA_DIR)
        url = env.get("GAMBIT_DATABASE_URL") or f"sqlite:///{os.path.join(data_dir, 'gambit.sqlite3')}"
        return cls(database_url=url, data_dir=data_dir,
                   max_body_bytes=int(env.get("GAMBIT_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)),
                   signing_key=env.get("GAMBIT_SIGNING_KEY") or None,
                   previous_signing_keys=tuple(k.strip() for k in env.get("GAMBIT_PREVIOUS_SIGNING_KEYS", "").split(",")
                                               if k.strip()),
                   rate_limit_per_address=Limit.parse(env.get("GAMBIT_RATE_LIMIT_PER_ADDRESS", DEFAULT_ADDRESS_LIMIT)),
                   rate_limit_per_token=Limit.parse(env.get("GAMBIT_RATE_LIMIT_PER_TOKEN", DEFAULT_TOKEN_LIMIT)),
                   trusted_proxies=int(env.get("GAMBIT_TRUSTED_PROXIES", "0")))
