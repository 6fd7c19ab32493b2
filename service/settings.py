"""Settings from the environment (every one documented in the README's configuration table)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

DEFAULT_DATA_DIR = "./var"
DEFAULT_MAX_BODY_BYTES = 64 * 1024


@dataclass(frozen=True)
class Settings:
    """How one service process is configured."""

    database_url: str
    data_dir: str
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    signing_key: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read GAMBIT_* variables; SQLite under GAMBIT_DATA_DIR (default ./var) unless a URL is given."""
        env = os.environ if env is None else env
        data_dir = env.get("GAMBIT_DATA_DIR", DEFAULT_DATA_DIR)
        url = env.get("GAMBIT_DATABASE_URL") or f"sqlite:///{os.path.join(data_dir, 'gambit.sqlite3')}"
        return cls(database_url=url, data_dir=data_dir,
                   max_body_bytes=int(env.get("GAMBIT_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)),
                   signing_key=env.get("GAMBIT_SIGNING_KEY") or None)
