"""The `gambit` console script: `gambit serve` runs the API under gunicorn.

Each subcommand imports what it needs inside its handler: `gambit verify` must start in a
fraction of the time the Flask app, the stores and the read models take to import, so the
parser itself imports nothing beyond the standard library.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

# The read models `gambit project --rebuild` knows (projections.runner.PROJECTIONS, which a test
# keeps equal to this): named here so building the parser imports no store code.
REBUILDABLE = ("cross-match-index",)
# `gambit export --as`: whose form of the records to write (service.verify_cli.ROLES).
EXPORT_ROLES = ("organizer", "spectator")
# `gambit scrub`: the exit code when a match fails its integrity checks.
EXIT_SCRUB_FOUND = 1
# `gambit scrub`: the exit code when no match failed but a partition did not answer (its matches were not all checked).
EXIT_SCRUB_UNFINISHED = 2


def _serve(args: argparse.Namespace) -> int:
    import runpy

    from gunicorn.app.base import BaseApplication

    from service.settings import Settings

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
    from service.settings import Settings

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
        clocks = threading.Thread(target=_keep_clocks, args=(gambit, stop, "gambit project"), daemon=True)
        clocks.start()  # the clock process runs beside the read models (docs/clocks.md)
        follow(gambit.index, stop, on_batch=lambda n: print(f"gambit project: folded {n} records", flush=True))
        clocks.join(timeout=5)
        return 0
    finally:
        gambit.close()


def _keep_clocks(gambit: Any, stop: Any, name: str) -> None:
    from projections.clocks import ClockKeeper, keep_clocks

    keeper = ClockKeeper(gambit.matches.clocks, gambit.index.store)
    keep_clocks(
        keeper, stop, on_expired=lambda ids: print(f"{name}: recorded expiries in {', '.join(ids)}", flush=True)
    )


def _clock(args: argparse.Namespace) -> int:
    import signal
    import threading

    from projections.clocks import ClockKeeper
    from service.app import build_gambit
    from service.settings import Settings

    gambit = build_gambit(Settings.from_env())
    try:
        if args.once:
            touched = ClockKeeper(gambit.matches.clocks, gambit.index.store).tick()
            print(f"gambit clock: recorded the expiries due in {len(touched)} matches", flush=True)
            return 0
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        print(f"gambit clock: keeping the clocks of {gambit.settings.database_url}", flush=True)
        _keep_clocks(gambit, stop, "gambit clock")
        return 0
    finally:
        gambit.close()


def _lead(args: argparse.Namespace) -> int:
    import contextlib
    import signal
    import threading

    from service import logs
    from service.keeper import run_lead_process
    from service.settings import Settings

    logs.configure()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    def orphaned() -> None:
        # Started by `gambit serve`'s master: when the master dies (even killed), so does this process, as its
        # workers do; the leadership frees with it and a server started again brings its own.
        while not stop.wait(1.0):
            if os.getppid() != args.parent:
                stop.set()

    if args.parent is not None:
        threading.Thread(target=orphaned, daemon=True).start()

    def ready() -> None:
        if args.ready_fd is not None:
            with contextlib.suppress(OSError):  # a master that stopped waiting closed its end
                os.write(args.ready_fd, b"1")
            os.close(args.ready_fd)

    print(f"gambit lead: pid {os.getpid()} leads the processes serving the store when it can", flush=True)
    run_lead_process(Settings.from_env(), stop, on_ready=ready)
    return 0


def _scrub(args: argparse.Namespace) -> int:
    from service.app import build_gambit
    from service.keeper import scrub_once
    from service.settings import Settings

    gambit = build_gambit(Settings.from_env())
    try:
        report = scrub_once(gambit)
    finally:
        gambit.close()
    for match_id, problem in report.problems.items():
        print(f"gambit scrub: match {match_id}: FAILED: {problem} (integrity alert raised)", flush=True)
    for partition, why in sorted(report.unavailable.items()):
        print(f"gambit scrub: partition {partition} NOT SCRUBBED to the end: {why}", flush=True)
    print(
        f"gambit scrub: {report.checked} matches checked, {len(report.problems)} failing their integrity checks",
        flush=True,
    )
    if report.problems:
        return EXIT_SCRUB_FOUND
    return EXIT_SCRUB_UNFINISHED if report.unavailable else 0


def _verify(args: argparse.Namespace) -> int:
    from service.verify_cli import run_verify

    return run_verify(
        args.path,
        args.key,
        args.json,
        receipts=args.receipt,
        jobs=args.jobs,
        checkpoint=args.checkpoint,
        witness_keys=args.witness_key,
        quorum=args.quorum,
    )


def _seat_commands(args: argparse.Namespace) -> int:
    from service.seat_commands_cli import run_seat_commands

    return run_seat_commands(args.path, args.seat, args.public_key, args.json)


def _vkey_text(value: str) -> str:
    """A verifier key given on the command line: the key itself, or a file holding it."""
    if not os.path.isfile(value):
        return value
    with open(value, encoding="utf-8") as handle:
        return handle.read().strip()


def _witness(args: argparse.Namespace) -> int:
    from gunicorn.app.base import BaseApplication

    from service.witness import Witness, create_witness_app

    try:
        keys = [_vkey_text(value) for value in args.log]
        witness = Witness(args.state, args.name, keys)
    except (ValueError, OSError) as exc:
        print(f"gambit witness: {exc}", file=sys.stderr)
        return 2
    app = create_witness_app(witness)

    class _Server(BaseApplication):
        """gunicorn with one worker: the witness's state on disk has one writer."""

        def load_config(self) -> None:
            self.cfg.set("bind", f"{args.host}:{args.port}")
            self.cfg.set("workers", 1)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("threads", 4)

        def load(self) -> Any:
            return app

    print(f"gambit witness: {witness.vkey} on http://{args.host}:{args.port}/ for {sorted(witness.logs)}", flush=True)
    _Server().run()
    return 0


def _monitor(args: argparse.Namespace) -> int:
    from service.monitor import run_monitor

    key = _vkey_text(args.log_key) if args.log_key else None
    try:
        return run_monitor(args.log_url, args.state, key, args.once, args.interval, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        return 0


def _export(args: argparse.Namespace) -> int:
    from service.verify_cli import ROLES, run_export

    return run_export(args.match_id, args.tournament, args.output, ROLES[args.role])


def _spec(args: argparse.Namespace) -> int:
    from service.spec import SPEC_PATH, render

    current = SPEC_PATH.read_text(encoding="utf-8")
    wanted = render(current)
    if args.write:
        if wanted != current:
            SPEC_PATH.write_text(wanted, encoding="utf-8")
            print(f"gambit spec: wrote {SPEC_PATH}", flush=True)
        return 0
    if args.check:
        if wanted != current:
            print(f"gambit spec: {SPEC_PATH} differs from the games' declarations; run `gambit spec --write`")
            return 1
        return 0
    sys.stdout.write(wanted)
    return 0


def _version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gambit-match-service")
    except PackageNotFoundError:  # a checkout that was never installed
        return "0+unknown"


class _PrintVersion(argparse.Action):
    """`--version`: the version is looked up only when asked for (importlib.metadata would cost
    every command, `gambit verify` included, a large share of its start-up)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option_string: Any = None) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The `gambit` argument parser: one subparser per command, its handler in `func`."""
    parser = argparse.ArgumentParser(prog="gambit", description="Gambit Match Service")
    parser.add_argument("--version", action=_PrintVersion, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP API under gunicorn")
    serve.add_argument("--host", default=os.environ.get("GAMBIT_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("GAMBIT_PORT", "8000")))
    serve.add_argument("--workers", type=int, default=None)
    serve.set_defaults(func=_serve)
    project = sub.add_parser("project", help="run the cross-match read models as their own process")
    project.add_argument(
        "--rebuild", metavar="NAME", choices=REBUILDABLE, help="rebuild this read model from the whole store, then exit"
    )
    project.add_argument("--once", action="store_true", help="catch up once and exit")
    project.set_defaults(func=_project)
    clock = sub.add_parser("clock", help="record clock expiries as deadlines pass, across every timed match")
    clock.add_argument("--once", action="store_true", help="record the expiries due now and exit")
    clock.set_defaults(func=_clock)
    lead = sub.add_parser(
        "lead",
        help="keep the clocks, scrub the chains and keep the log as the servers' leader, in a process of its own "
        "(`gambit serve` starts one)",
    )
    # Given by `gambit serve`'s master: a pipe to tell it the lock was tried, and its pid (to end with it).
    lead.add_argument("--ready-fd", type=int, default=None, help=argparse.SUPPRESS)
    lead.add_argument("--parent", type=int, default=None, help=argparse.SUPPRESS)
    lead.set_defaults(func=_lead)
    scrub = sub.add_parser(
        "scrub", help="re-check every match's whole chain now; exit 1 (and raise the integrity alert) on a mismatch"
    )
    scrub.set_defaults(func=_scrub)
    verify = sub.add_parser("verify", help="verify a match export (or a directory of them) offline")
    verify.add_argument("path", help="an export .ndjson file, or a directory of them (a tournament)")
    verify.add_argument(
        "--key",
        action="append",
        default=[],
        help="a service public key (repeatable, for receipts made before a key rotation): base64, a file, "
        "or a saved /.well-known document (which also names the service's previous keys)",
    )
    verify.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="a checkpoint of the log you kept earlier (or a tlog-proof): the export's log proof must extend it",
    )
    verify.add_argument(
        "--witness-key",
        action="append",
        default=[],
        metavar="FILE",
        help="a witness's verifier key (a file holding its vkey, or the vkey; repeatable): the export's write must "
        "be in a checkpoint cosigned by --quorum of them",
    )
    verify.add_argument(
        "--quorum",
        type=int,
        default=None,
        metavar="K",
        help="how many of the --witness-key witnesses must have cosigned (more than half; default: a majority)",
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument(
        "--receipt",
        action="append",
        default=[],
        metavar="FILE",
        help="receipts a seat kept from write responses (repeatable): the export must hold each",
    )
    verify.add_argument(
        "--jobs",
        type=int,
        choices=(1, 2),
        default=None,
        help="processes per export: 2 checks the record in one while the other replays it "
        "(default: 2 for an export of 2,000 lines or more, where a second core is free)",
    )
    verify.set_defaults(func=_verify)
    seat_commands = sub.add_parser(
        "seat-commands",
        help="list every command an export attributes to a seat, and whether the seat's key signed each; "
        "exit 1 when one is not signed by it",
    )
    seat_commands.add_argument("path", help="an export .ndjson file")
    seat_commands.add_argument("seat", help="the seat, as the match names it (p1, south, …)")
    seat_commands.add_argument(
        "--public-key",
        metavar="FILE",
        help='the key you kept as the seat\'s own (JSON {"alg", "key"}, as your join sent it): only its '
        "signatures prove a command yours, whatever key the export says the seat registered",
    )
    seat_commands.add_argument("--json", action="store_true", help="print the listing as JSON")
    seat_commands.set_defaults(func=_seat_commands)
    witness = sub.add_parser("witness", help="run a witness that cosigns a log's checkpoints (C2SP tlog-witness)")
    witness.add_argument(
        "--state", default=os.environ.get("GAMBIT_WITNESS_STATE", "witness-state"), help="its key and state directory"
    )
    witness.add_argument("--name", default=os.environ.get("GAMBIT_WITNESS_NAME", "gambit-witness"), help="its key name")
    witness.add_argument(
        "--log",
        action="append",
        default=[],
        required=True,
        metavar="VKEY",
        help="a log to witness: its verifier key (as /log/ lists it) or a file holding it (repeatable)",
    )
    witness.add_argument("--host", default=os.environ.get("GAMBIT_HOST", "127.0.0.1"))
    witness.add_argument("--port", type=int, default=int(os.environ.get("GAMBIT_WITNESS_PORT", "8100")))
    witness.set_defaults(func=_witness)
    monitor = sub.add_parser(
        "monitor", help="follow a log: check each checkpoint extends the last; exit 1 naming any match with two heads"
    )
    monitor.add_argument("log_url", metavar="LOG_URL", help="the log's URL (the service's /log, e.g. https://host/log)")
    monitor.add_argument("--log-key", metavar="VKEY", help="the log's verifier key (as /log/ lists it) or a file")
    monitor.add_argument("--state", metavar="FILE", help="where to keep what it checked between runs (JSON)")
    monitor.add_argument("--once", action="store_true", help="one round, then exit (0 clean, 1 alarm)")
    monitor.add_argument("--interval", type=float, default=10.0, help="seconds between rounds (default 10)")
    monitor.set_defaults(func=_monitor)
    export = sub.add_parser("export", help="export a match (or a tournament's matches) from the store")
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument("match_id", nargs="?", help="the match to export")
    target.add_argument("--tournament", help="export every match of this tournament into a directory")
    export.add_argument("-o", "--output", help="the file (or, with --tournament, the directory) to write")
    export.add_argument(
        "--as",
        dest="role",
        choices=EXPORT_ROLES,
        default="organizer",
        help="whose form of the records to write (default: organizer, every secret)",
    )
    export.set_defaults(func=_export)
    spec = sub.add_parser("spec", help="print api-spec/openapi.yaml as the games' declarations make it")
    spec_mode = spec.add_mutually_exclusive_group()
    spec_mode.add_argument("--write", action="store_true", help="write the generated part into the file")
    spec_mode.add_argument("--check", action="store_true", help="exit 1 when the file differs from what it should be")
    spec.set_defaults(func=_spec)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `gambit` command."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # The reader went away (`gambit verify … | head`): nothing left to tell it, and Python's
        # own flush at exit must not fail on the closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
