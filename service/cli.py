"""The `gambit` console script: `gambit serve` runs the API under gunicorn."""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from typing import Any

from projections.runner import PROJECTIONS
from service.settings import Settings
from service.verify_cli import ROLES, run_export, run_verify


def _serve(args: argparse.Namespace) -> int:
    from gunicorn.app.base import BaseApplication

    settings = Settings.from_env()

    class _Server(BaseApplication):
        """gunicorn with the app built per worker, after fork."""

        def load_config(self) -> None:
            conf_file = os.environ.get("GAMBIT_GUNICORN_CONFIG") or os.path.join(
                os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "deploy", "gunicorn.conf.py"
            )
            if os.path.exists(conf_file):
                for key, value in runpy.run_path(conf_file).items():
                    if key in self.cfg.settings and value is not None:
                        self.cfg.set(key, value)
            self.cfg.set("bind", f"{args.host}:{args.port}")
            if args.workers is not None:
                self.cfg.set("workers", args.workers)

        def load(self) -> Any:
            from service.app import create_app

            return create_app(settings)

    where = settings.database_url
    print(f"gambit: serving http://{args.host}:{args.port}/ (store: {where})", flush=True)
    _Server().run()
    return 0


def _project(args: argparse.Namespace) -> int:
    import signal
    import threading

    from projections.runner import follow, rebuild
    from service.app import build_gambit

    gambit = build_gambit(Settings.from_env())
    try:
        if args.rebuild:
            print(
                f"gambit project: rebuilt {args.rebuild} from {rebuild(gambit.index, args.rebuild)} records", flush=True
            )
            return 0
        if args.once:
            print(f"gambit project: folded {gambit.index.catch_up()} records", flush=True)
            return 0
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        print(
            f"gambit project: following {gambit.settings.database_url} from position {gambit.index.position()}",
            flush=True,
        )
        follow(gambit.index, stop, on_batch=lambda n: print(f"gambit project: folded {n} records", flush=True))
        return 0
    finally:
        gambit.close()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `gambit` command."""
    parser = argparse.ArgumentParser(prog="gambit", description="Gambit Match Service")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP API under gunicorn")
    serve.add_argument("--host", default=os.environ.get("GAMBIT_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("GAMBIT_PORT", "8000")))
    serve.add_argument("--workers", type=int, default=None)
    serve.set_defaults(func=_serve)
    project = sub.add_parser("project", help="run the cross-match read models as their own process")
    project.add_argument(
        "--rebuild", metavar="NAME", choices=PROJECTIONS, help="rebuild this read model from the whole store, then exit"
    )
    project.add_argument("--once", action="store_true", help="catch up once and exit")
    project.set_defaults(func=_project)
    verify = sub.add_parser("verify", help="verify a match export (or a directory of them) offline")
    verify.add_argument("path", help="an export .ndjson file, or a directory of them (a tournament)")
    verify.add_argument("--key", help="the service public key: base64, a file, or a saved /.well-known document")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument(
        "--receipt",
        action="append",
        default=[],
        metavar="FILE",
        help="receipts a seat kept from write responses (repeatable): the export must hold each",
    )
    verify.set_defaults(func=lambda a: run_verify(a.path, a.key, a.json, receipts=a.receipt))
    export = sub.add_parser("export", help="export a match (or a tournament's matches) from the store")
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument("match_id", nargs="?", help="the match to export")
    target.add_argument("--tournament", help="export every match of this tournament into a directory")
    export.add_argument("-o", "--output", help="the file (or, with --tournament, the directory) to write")
    export.add_argument(
        "--as",
        dest="role",
        choices=sorted(ROLES),
        default="organizer",
        help="whose form of the records to write (default: organizer, every secret)",
    )
    export.set_defaults(func=lambda a: run_export(a.match_id, a.tournament, a.output, ROLES[a.role]))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # The reader went away (`gambit verify … | head`): nothing left to tell it, and Python's
        # own flush at exit must not fail on the closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
