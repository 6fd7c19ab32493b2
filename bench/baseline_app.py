"""The baseline: a minimal Flask app that appends one event per request with the bare eventsourcing library.

No rules, no chain, no commitments, no auth, no receipts, no snapshots. It runs under gunicorn
with the service's own settings (deploy/gunicorn.conf.py: gthread, same workers and threads),
on the same kind of store (`BENCH_DATABASE_URL`, mapped to the library's persistence settings
exactly as the service maps GAMBIT_DATABASE_URL).

    POST /aggregates               create an aggregate (one event)      -> {"id", "version"}
    GET  /aggregates/<id>          load it                               -> {"id", "version"}
    POST /aggregates/<id>/events   load it, trigger one event, save it   -> {"version"}  (201)

`python -m bench.baseline_app --port P` serves it.
"""

from __future__ import annotations

import argparse
import os
import runpy
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError
from flask import Flask, jsonify, request

from domain.application import storage_env

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


def create_app() -> Flask:
    """The baseline app (built per worker, after fork, like the service)."""
    app = Flask(__name__)
    store = Store(env=storage_env(os.environ["BENCH_DATABASE_URL"]))

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
