"""The baseline: a minimal Flask app that appends one event per request with the bare eventsourcing library.

No rules, no chain, no commitments, no auth, no receipts. It runs under gunicorn with the
service's own settings (deploy/gunicorn.conf.py: the same worker class — gevent unless
GAMBIT_WORKER_CLASS says otherwise — workers and connections), on the same kind of store
(`BENCH_DATABASE_URL`, mapped to the library's persistence settings exactly as the service maps
GAMBIT_DATABASE_URL).

Two variants: the bare library (no snapshots), and, with `BENCH_BASELINE_SNAPSHOTS=1`, the
library snapshotting every `SNAPSHOT_INTERVAL` (50) versions as the service configures it for
its matches (domain/application.py: `snapshotting_intervals`), so every load reads the latest
snapshot and the events after it, and every 50th append also writes a snapshot. Each variant
has its own tables (`baseline_*`, `baselinesnap_*`).

    POST /aggregates               create an aggregate (one event)      -> {"id", "version"}
    GET  /aggregates/<id>          load it                               -> {"id", "version"}
    POST /aggregates/<id>/events   load it, trigger one event, save it   -> {"version"}  (201)

`python -m bench.baseline_app --port P` serves it.
"""

from __future__ import annotations

import argparse
import os
import runpy
from typing import Any, ClassVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError
from flask import Flask, jsonify, request

from domain.match import SNAPSHOT_INTERVAL
from domain.store import storage_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Counter(Aggregate):
    """One aggregate; every request appends one `Appended` event carrying the request body."""

    @event("Created")
    def __init__(self) -> None:
        self.count = 0

    @event("Appended")
    def append(self, body: dict) -> None:
        self.count += 1


class Store(Application):
    """The bare library application."""

    name = "baseline"


class SnapshottingStore(Store):
    """The library application snapshotting every SNAPSHOT_INTERVAL versions, as the service does."""

    name = "baselinesnap"
    snapshotting_intervals: ClassVar[dict[type, int]] = {Counter: SNAPSHOT_INTERVAL}


def store_class(snapshots: bool | None = None) -> type[Store]:
    """The variant to run: `BENCH_BASELINE_SNAPSHOTS=1` (or snapshots=True) for the snapshotting one."""
    if snapshots is None:
        snapshots = os.environ.get("BENCH_BASELINE_SNAPSHOTS", "") == "1"
    return SnapshottingStore if snapshots else Store


def open_store(database_url: str, snapshots: bool | None = None) -> Store:
    """The store, its tables created if need be — on PostgreSQL one process at a time.

    The library's table creation is not safe against itself: processes that run it at once on
    PostgreSQL fail with "tuple concurrently updated" (its `CREATE OR REPLACE FUNCTION` runs on
    every start, even when the tables exist). So, as the service does (domain/application.py),
    the library is told not to create them, and they are created under a PostgreSQL advisory
    lock (domain.store_guard.one_process_at_a_time).
    """
    env = storage_env(database_url)
    # The bare library appends with its own recorder, not the service's one-round-trip append.
    env.pop("APPLICATION_RECORDER_TOPIC", None)
    cls = store_class(snapshots)
    if env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
        return cls(env=env)
    from domain.store_guard import one_process_at_a_time

    store = cls(env={**env, "CREATE_TABLE": "false"})
    with one_process_at_a_time(store.recorder.datastore):
        store.recorder.create_table()
        if store.snapshots is not None:
            store.snapshots.recorder.create_table()
    return store


def create_app() -> Flask:
    """The baseline app (built per worker, after fork, like the service)."""
    app = Flask(__name__)
    store = open_store(os.environ["BENCH_DATABASE_URL"])

    @app.get("/healthz")
    def healthz() -> Any:
        return jsonify({"status": "ok"})

    @app.post("/aggregates")
    def create() -> Any:
        counter = Counter()
        store.save(counter)
        return jsonify({"id": str(counter.id), "version": counter.version}), 201

    @app.get("/aggregates/<aggregate_id>")
    def read(aggregate_id: str) -> Any:
        try:
            counter = store.repository.get(UUID(aggregate_id))
        except AggregateNotFoundError:
            return jsonify({"error": "not found"}), 404
        return jsonify({"id": aggregate_id, "version": counter.version})

    @app.post("/aggregates/<aggregate_id>/events")
    def append(aggregate_id: str) -> Any:
        try:
            counter = store.repository.get(UUID(aggregate_id))
        except AggregateNotFoundError:
            return jsonify({"error": "not found"}), 404
        counter.append(request.get_json(silent=True) or {})
        try:
            store.save(counter)
        except IntegrityError:
            return jsonify({"error": "conflict"}), 409
        return jsonify({"version": counter.version}), 201

    return app


def main(argv: list[str] | None = None) -> int:
    from gunicorn.app.base import BaseApplication

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)

    class _Server(BaseApplication):
        def load_config(self) -> None:
            for key, value in runpy.run_path(os.path.join(ROOT, "deploy", "gunicorn.conf.py")).items():
                if key in self.cfg.settings and value is not None:
                    self.cfg.set(key, value)
            self.cfg.set("bind", f"{args.host}:{args.port}")
            if args.workers is not None:
                self.cfg.set("workers", args.workers)

        def load(self) -> Any:
            return create_app()

    _Server().run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
