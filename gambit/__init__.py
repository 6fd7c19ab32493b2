"""The `gambit` command as a package, so `python -m gambit` runs what the `gambit` console script runs.

An entry point only: the service lives in `service` (and below it `projections` and `domain`).
"""

from __future__ import annotations

DISTRIBUTION = "gambit-match-service"


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed distribution only when asked (it costs every command ~25 ms)."""
    if name != "__version__":
        raise AttributeError(name)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"
