"""Start and stop the servers under test: `gambit serve` and the baseline, both under gunicorn."""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    """A TCP port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/healthz")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


def create_tables(kind: str, database_url: str, data_dir: str) -> None:
    """Create the store's tables once, before the workers start.

    On a fresh PostgreSQL schema, workers that boot together race to create the same tables
    and one can fail with a duplicate `pg_type` key ("Worker failed to boot"); a deployment
    migrates first, and so does the benchmark.
    """
    if kind == "gambit":
        from service.app import build_gambit
        from service.settings import Settings

        build_gambit(Settings(database_url=database_url, data_dir=data_dir)).close()
    else:
        from bench.baseline_app import open_store

        open_store(database_url, kind == "baseline-snap").close()


def gunicorn_settings() -> dict:
    """The settings both servers run with (deploy/gunicorn.conf.py under this environment)."""
    import runpy

    # The file names a metrics directory in the environment of the process that reads it (a server's
    # master); reading it here must leave the benchmark's own environment, and its servers', alone.
    before = dict(os.environ)
    try:
        conf = runpy.run_path(os.path.join(ROOT, "deploy", "gunicorn.conf.py"))
    finally:
        made = os.environ.get("GAMBIT_OWN_METRICS_DIR")
        os.environ.clear()
        os.environ.update(before)
        if made and made != before.get("PROMETHEUS_MULTIPROC_DIR"):
            shutil.rmtree(made, ignore_errors=True)
    return {key: conf.get(key) for key in ("worker_class", "workers", "threads", "worker_connections", "keepalive")}


def server_pid(base: str) -> int | None:
    """The pid of the gunicorn master (service or baseline) listening at `base`: the process started with that
    `--port` whose parent was not (gunicorn forks its workers with the same command line)."""
    port = base.rsplit(":", 1)[1]
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                words = handle.read().decode(errors="replace").split("\0")
            with open(f"/proc/{entry}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if "--port" in words and port in words and ("service.cli" in words or "bench.baseline_app" in words):
            found[int(entry)] = parent
    masters = [pid for pid, parent in found.items() if parent not in found]
    return masters[0] if len(masters) == 1 else None


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=40)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def serve(kind: str, database_url: str, data_dir: str, optimize: bool = False,
          workers: int | None = None, extra_env: dict[str, str] | None = None,
          root: str | None = None) -> Iterator[str]:
    """Run `gambit serve` (kind "gambit"), the baseline (kind "baseline") or the baseline with
    snapshots (kind "baseline-snap"); yields the base URL.

    Both use deploy/gunicorn.conf.py as deployed; the access log goes to a file in data_dir
    for both. `optimize` runs the workers with PYTHONOPTIMIZE=1 (`python -O`); `extra_env` is set in
    the server's environment last (a variant's settings, e.g. `GAMBIT_LOG_INTERVAL`). `root` serves another
    source tree of the project (an earlier commit, for an A/B in one run); its tables are created by it too.
    """
    os.makedirs(data_dir, exist_ok=True)
    if root is None:
        create_tables(kind, database_url, data_dir)
    else:
        subprocess.run([sys.executable, "-c", "import sys; from bench.servers import create_tables; create_tables(*sys.argv[1:])",
                        kind, database_url, data_dir], cwd=root, env={**os.environ, "PYTHONPATH": root}, check=True)
    env = {**os.environ, "GAMBIT_DATA_DIR": data_dir, "GAMBIT_DATABASE_URL": database_url,
           "BENCH_DATABASE_URL": database_url, "GAMBIT_ACCESS_LOG": os.path.join(data_dir, f"{kind}-access.log")}
    # The bots all come from 127.0.0.1, where real players come from many addresses: the
    # per-address rate limit (GAMBIT_RATE_LIMIT_PER_ADDRESS, per worker) is off unless set here;
    # the per-token limit stays as deployed (each bot seat has its own token).
    env.setdefault("GAMBIT_RATE_LIMIT_PER_ADDRESS", os.environ.get("BENCH_RATE_LIMIT_PER_ADDRESS", "0"))
    # The bench creates hundreds of matches from that one address too.
    env.setdefault("GAMBIT_MATCH_CREATION_LIMIT", "0")
    env.pop("PYTHONOPTIMIZE", None)
    env["BENCH_BASELINE_SNAPSHOTS"] = "1" if kind == "baseline-snap" else "0"
    if optimize:
        env["PYTHONOPTIMIZE"] = "1"
    env.update(extra_env or {})
    if root is not None:
        env["PYTHONPATH"] = root
    module = "service.cli" if kind == "gambit" else "bench.baseline_app"
    with open(os.path.join(data_dir, f"{kind}-server.log"), "a") as log:
        process = None
        # A server that fails to come up (a port taken between free_port() and bind, a store
        # briefly refusing connections on a shared machine) is retried on a new port.
        for attempt in range(3):
            port = free_port()
            command = [sys.executable, "-m", module] + (["serve"] if kind == "gambit" else []) + ["--port", str(port)]
            if workers is not None:
                command += ["--workers", str(workers)]
            process = subprocess.Popen(command, cwd=root or ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 60
            while not _healthy(port) and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(1.0)  # every worker booted (one that fails to boot takes the master down)
            if process.poll() is None and _healthy(port):
                break
            _stop(process)
            log.flush()
            with open(log.name) as handle:
                tail = handle.read()[-600:]
            print(f"[bench] {kind} server attempt {attempt + 1} failed to start:\n{tail}", file=sys.stderr, flush=True)
        else:
            raise RuntimeError(f"{kind} server did not come up after 3 attempts; see {log.name}")
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            _stop(process)
