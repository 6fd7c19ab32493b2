"""The Flask app factory: one MatchApp and one cross-match index per process."""

from __future__ import annotations

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from domain.application import MatchApp, storage_env
from projections.index import CrossMatchIndex
from projections.integrity import IntegrityAlerts
from projections.sqlstore import SqlStore
from service import (audit, commands, disputes, events, export, matches, meta, metrics, problems, ratelimit,
                     tournaments, views, watch)
from service.context import Gambit
from service.settings import Settings
from service.signing import Signer


def build_gambit(settings: Settings) -> Gambit:
    """The store, read models and signing key of one process (also used by the CLI)."""
    signer = Signer.load(settings.data_dir, settings.signing_key, settings.previous_signing_keys)
    store = SqlStore(settings.database_url)
    alerts = IntegrityAlerts(store)
    match_app = MatchApp(env=storage_env(settings.database_url), signer=signer,
                         seal_key=signer.derived_key("snapshot-seal"), on_integrity_problem=alerts.raise_alert)
    return Gambit(settings, match_app, CrossMatchIndex(match_app, store), alerts, signer)


def create_app(settings: Settings | None = None) -> Flask:
    """Build the app; call it in each gunicorn worker (the store's pool opens here)."""
    settings = settings or Settings.from_env()
    # The viewer's assets are served by its blueprint at /watch-assets; no second /static route.
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    if settings.trusted_proxies:
        # Only as many X-Forwarded-For hops as there are proxies we run: a client cannot forge its address.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies, x_proto=settings.trusted_proxies)
    app.json.sort_keys = False
    app.extensions["gambit"] = build_gambit(settings)
    problems.install(app)
    ratelimit.install(app, settings.rate_limit_per_address, settings.rate_limit_per_token)
    metrics.install(app, app.extensions["gambit"].metrics)
    for blueprint in (meta.bp, tournaments.bp, matches.bp, commands.bp, views.bp, events.bp, audit.bp, disputes.bp,
                      export.bp, watch.bp):
        app.register_blueprint(blueprint)
    return app
