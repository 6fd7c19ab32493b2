"""A throwaway PostgreSQL server of the machine's own binaries, for tests that must stop a server for real.

Made like `.ci/run`'s second server: `initdb` and `pg_ctl` from the newest /usr/lib/postgresql/*/bin (or
PATH), a data directory in a fresh temporary directory, a free port on 127.0.0.1, trust authentication.
initdb refuses to run as root, so as root the server runs as the `postgres` user (`runuser -u postgres`).
Without the binaries (or, as root, without that user) a test skips and says why, except under CI=true,
where it fails: the machines CI runs on have them.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _bin_dir() -> Path | None:
    """The directory of the newest PostgreSQL server binaries on this machine, if any."""

    def version(path: str) -> list[int]:
        return [int(part) for part in Path(path).parent.name.split(".") if part.isdigit()]

    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True):
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb and shutil.which("pg_ctl") else None


def _run_as() -> list[str] | None:
    """The prefix that runs a server command as a user initdb accepts (None: there is none)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("runuser") is None:
        return None
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError:
        return None
    return ["runuser", "-u", "postgres", "--"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """A PostgreSQL server this test made: its URL, and stopping and starting it again."""

    def __init__(self, bin_dir: Path, run_as: list[str], directory: Path) -> None:
        self.bin_dir = bin_dir
        self.run_as = run_as
        self.directory = directory
        self.data = directory / "data"
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/test"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.run_as, *args], check=True, capture_output=True, timeout=120)

    def initialize(self) -> None:
        """Make the cluster, start it, and create the `test` database."""
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self.start()
        self._run(
            str(self.bin_dir / "psql"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-qc",
            "CREATE DATABASE test",
        )

    def start(self) -> None:
        """Start the server and wait until it takes connections (after a crash: once it has recovered)."""
        self._run(
            str(self.bin_dir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.directory / "server.log"),
            "-w",
            "-o",
            f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`immediate`: at once, as a crash or a pulled cable, with no shutdown checkpoint)."""
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        """Whether the server is up (pg_ctl status)."""
        done = subprocess.run(
            [*self.run_as, str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "status"],
            check=False,
            capture_output=True,
            timeout=30,
        )
        return done.returncode == 0


@contextmanager
def throwaway_postgres() -> Iterator[PostgresServer]:
    """A fresh PostgreSQL server for the length of the block, removed afterwards (stopped first if it runs)."""
    bin_dir, run_as = _bin_dir(), _run_as()
    if bin_dir is None or run_as is None:
        reason = (
            "no PostgreSQL server binaries (initdb, pg_ctl) on this machine"
            if bin_dir is None
            else "running as root without a `postgres` user (or runuser) to run initdb as"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test, but it cannot start a PostgreSQL server: {reason}")
        pytest.skip(f"cannot start a throwaway PostgreSQL server: {reason}")
    # Not under pytest's tmp_path: as root that lies in a directory the `postgres` user may not enter.
    directory = Path(tempfile.mkdtemp(prefix="gambit-test-pg."))
    if run_as:
        shutil.chown(directory, user="postgres")
    server = PostgresServer(bin_dir, run_as, directory)
    try:
        server.initialize()
        yield server
    finally:
        if server.data.exists() and server.running():
            server.stop("immediate")
        shutil.rmtree(directory, ignore_errors=True)
