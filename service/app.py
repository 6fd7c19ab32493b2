"""The Flask app factory: one match service (domain/application.py) and one cross-match index per process."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.middleware.proxy_fix import ProxyFix

from domain.application import open_matches
from domain.store import storage_env
from projections.index import CrossMatchIndex
from projections.integrity import IntegrityAlerts
from projections.sqlstore import SqlStore
from projections.tlog_log import TransparencyLog
from service import (
    audit,
    clocks,
    commands,
    disputes,
    entrants,
    events,
    export,
    logs,
    matches,
    meta,
    metrics,
    pages,
    problems,
    ratelimit,
    receipts,
    tlog_api,
    tournaments,
    views,
    watch,
)
from service.context import Gambit
from service.seat_signatures import seat_signature_holds
from service.settings import Settings
from service.signing import Signer


def build_gambit(settings: Settings) -> Gambit:
    """The store, read models and signing key of one process (also used by the CLI)."""
    signer = Signer.load(settings.data_dir, settings.signing_key, settings.previous_signing_keys)
    store = SqlStore(settings.database_url)
    log = TransparencyLog(store, settings.log_origin, lambda: f"gambit-log/{signer.key_id}")
    # Every receipt from now on names the log and promises its write a leaf within the merge delay.
    signer.promise_inclusion(log.origin, settings.log_merge_delay)
    # A key the log retired signs nothing after its retirement: not a stored receipt, not a leaf (section 12).
    signer.heed_retirements(log.allows)
    logs = partition_logs(settings, store, log)
    partition_signers = [signer.promising(each.origin, settings.log_merge_delay) for each in logs]
    for each_signer, each_log in zip(partition_signers, logs, strict=True):
        each_signer.heed_retirements(each_log.allows)  # a partition's writes are logged, and retired, in its own log
    alerts = IntegrityAlerts(store)
    env = storage_env(settings.database_url)
    matches = open_matches(
        env,
        signer=signer,
        seal_key=signer.derived_key("snapshot-seal"),
        on_integrity_problem=alerts.raise_alert,
        standing_problem=alerts.problem_of,
        max_disputes_per_filer=settings.max_disputes_per_filer,
        recent_matches=settings.recent_matches,
        seat_signatures=seat_signature_holds,
        partition_envs=[storage_env(url) for url in settings.partition_urls] if settings.partition_urls else None,
        partition_signers=partition_signers if settings.partition_urls else None,
    )
    # The stream watcher polls the notification logs (both stores), or on PostgreSQL may LISTEN for the appends' wakes.
    listen = settings.stream_watch == "listen" and env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres"
    server_metrics = metrics.Metrics()
    streams = metrics.MeteredStreamHub(
        server_metrics,
        [partition.recorder for partition in matches.store.partitions],
        total=settings.max_streams,
        per_client=settings.max_streams_per_client,
        listen=listen,
    )
    return Gambit(
        settings, matches, CrossMatchIndex(matches.store, store), alerts, signer, streams, server_metrics, log, logs
    )


def partition_logs(settings: Settings, store: SqlStore, first: TransparencyLog) -> list[TransparencyLog]:
    """One transparency log per partition, each beside its partition's events (the first partition's is `first`,
    the service's log as it was before partitions, when that partition is the shared store): partition k's log
    is named after the first's, `<origin>/p<k>`."""
    if len(settings.partition_urls) <= 1:
        return [first]
    logs = []
    for number, url in enumerate(settings.partition_urls):
        if number == 0 and url == settings.database_url:
            logs.append(first)
            continue
        suffix = "" if number == 0 else f"/p{number}"
        origin = f"{settings.log_origin}{suffix}" if settings.log_origin else None
        where = store if url == settings.database_url else SqlStore(url)
        logs.append(TransparencyLog(where, origin, _named_after(first, suffix)))
    return logs


def _named_after(first: TransparencyLog, suffix: str) -> Callable[[], str]:
    """A partition log's default name: the first log's, with the partition's suffix."""
    return lambda: f"{first.origin}{suffix}"


class GambitFlask(Flask):
    """Flask, telling a coroutine function from a plain one once per function rather than on every call.

    Flask asks (`ensure_sync`) for every hook and view of every request; the answer never changes
    for a function, and `inspect.iscoroutinefunction` is a visible share of a small request.
    """

    # Functions told apart (bounded: per-request callbacks are new functions each time).
    REMEMBERED_FUNCTIONS = 1024

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._plain_functions: set[Any] = set()

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """The function itself when it is not a coroutine function; Flask's wrapper otherwise."""
        key = func.__func__ if inspect.ismethod(func) else func  # a bound method is as async as its function
        try:
            if key in self._plain_functions:
                return func
        except TypeError:  # an unhashable callable: asked every time, as Flask does
            return super().ensure_sync(func)
        synced = super().ensure_sync(func)
        if synced is func:
            if len(self._plain_functions) >= self.REMEMBERED_FUNCTIONS:
                self._plain_functions.clear()
            self._plain_functions.add(key)
        return synced


def create_app(settings: Settings | None = None) -> Flask:
    """Build the app; call it in each gunicorn worker (the store's pool opens here)."""
    settings = settings or Settings.from_env()
    logs.configure()
    # The viewer's assets are served by its blueprint at /watch-assets; no second /static route.
    app = GambitFlask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    if settings.trusted_proxies:
        # Only as many X-Forwarded-For hops as there are proxies we run: a client cannot forge its address.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]  # Flask's documented way to wrap the WSGI app
            app.wsgi_app, x_for=settings.trusted_proxies, x_proto=settings.trusted_proxies
        )
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False
    app.extensions["gambit"] = build_gambit(settings)
    # Hooks run in this order: the request id first (every later line and problem carries it),
    # then timing (so rate-limited requests are counted too), then the limits.
    logs.install(app)
    metrics.install(app, app.extensions["gambit"].metrics)
    problems.install(app)
    ratelimit.install(app, settings.limits, app.extensions["gambit"].metrics.count_rate_limit_store_failure)
    for blueprint in (
        meta.bp,
        tournaments.bp,
        entrants.bp,
        matches.bp,
        commands.bp,
        views.bp,
        events.bp,
        audit.bp,
        disputes.bp,
        clocks.bp,
        export.bp,
        receipts.bp,
        tlog_api.bp,
        watch.bp,
        pages.bp,
    ):
        app.register_blueprint(blueprint)
    app.after_request(_caching_by_caller)
    return app


# Match and tournament resources answer each caller with what that caller may see: a shared cache
# must never hand one caller's answer (a seat's hand, an organizer's secrets) to another.
_PER_CALLER = ("/matches", "/tournaments")


def _caching_by_caller(response: Response) -> Response:
    """`Vary: Authorization` on every per-caller resource; `Cache-Control: no-store` wherever a secret may be in it."""
    if request.path.startswith(_PER_CALLER):
        response.vary.add("Authorization")
        if "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "no-store"
    return response
