"""The Flask app factory: one MatchApp and one cross-match index per process."""

from __future__ import annotations

from flask import Flask

from domain.application import MatchApp, storage_env
from projections.index import CrossMatchIndex
from service import audit, commands, events, export, matches, meta, problems, views
from service.context import Gambit
from service.settings import Settings


def create_app(settings: Settings | None = None) -> Flask:
    """Build the app; call it in each gunicorn worker (the store's pool opens here)."""
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.json.sort_keys = False
    match_app = MatchApp(env=storage_env(settings.database_url))
    app.extensions["gambit"] = Gambit(settings, match_app, CrossMatchIndex(match_app, settings.database_url))
    problems.install(app)
    for blueprint in (meta.bp, matches.bp, commands.bp, views.bp, events.bp, audit.bp, export.bp):
        app.register_blueprint(blueprint)
    return app
