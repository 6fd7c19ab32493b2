"""The `gambit` command as a package, so `python -m gambit` runs what the `gambit` console script runs.

An entry point only: the service lives in `service` (and below it `projections` and `domain`).
"""

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "gambit-match-service"

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"
