"""Structured logs: one JSON object per line, each carrying the request id of the request it belongs to.

Every request gets an id: a sane inbound `X-Request-Id` (a load balancer's, a client's) or a fresh
one. It is echoed in the `X-Request-Id` response header, in every problem+json body
(`request_id`), in every application log line written while the request runs, and in gunicorn's
access log line (read from the response header), so one id ties a client's error report to the
server's lines.

What is logged is chosen field by field: never a header, a body or a query value a caller sent,
so bearer tokens and organizer keys (which travel in headers) cannot reach a log line.

`GAMBIT_LOG_FORMAT` is `json` (the default) or `text` (one readable line, for a terminal);
`GAMBIT_LOG_LEVEL` is a `logging` level name (`INFO` by default).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import traceback
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Response, g, has_request_context, request

REQUEST_ID_HEADER = "X-Request-Id"
# What an inbound id may look like: short, visible ASCII without quotes or separators that could
# break a log line or a header; anything else is replaced by an id of our own.
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+=/-]{0,127}")

# The attributes every LogRecord has; anything else on a record came in through `extra=`.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def request_id() -> str | None:
    """The id of the request being handled (made on first use), or None outside a request."""
    if not has_request_context():
        return None
    current = g.get("request_id")
    if current is None:
        inbound = request.headers.get(REQUEST_ID_HEADER, "")
        current = inbound if _SANE_REQUEST_ID.fullmatch(inbound) else uuid.uuid4().hex
        g.request_id = current
    return current


def install(app: Flask) -> None:
    """Give every request its id before anything else runs, and echo it in the response."""

    @app.before_request
    def _assign_request_id() -> None:
        request_id()

    @app.after_request
    def _echo_request_id(response: Response) -> Response:
        response.headers[REQUEST_ID_HEADER] = request_id() or ""
        return response

    _stamp_records_with_request_id()


class _StampingFactory:
    """A log-record factory that stamps `request_id` on each record the wrapped factory makes."""

    def __init__(self, factory: Callable[..., logging.LogRecord]) -> None:
        self._factory = factory

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        """A record from the wrapped factory, with the current request's id unless it has one."""
        record = self._factory(*args, **kwargs)
        if "request_id" not in record.__dict__:
            record.request_id = request_id()
        return record


def _stamp_records_with_request_id() -> None:
    """Make every log record created during a request carry `request_id` (whichever logger wrote it)."""
    factory = logging.getLogRecordFactory()
    if isinstance(factory, _StampingFactory):
        return
    logging.setLogRecordFactory(_StampingFactory(factory))


def _request_id_of(record: logging.LogRecord) -> str | None:
    """The request id stamped on a record, if any (logging keeps such extra fields in the record's own dict)."""
    return vars(record).get("request_id")


def _timestamp(record: logging.LogRecord) -> str:
    """The record's time in UTC, ISO 8601 with milliseconds."""
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, pid, request id, `extra` fields, traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        line: dict[str, Any] = {
            "time": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        rid = _request_id_of(record) or request_id()
        if rid:
            line["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRIBUTES and key != "request_id" and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["exception"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """A readable line for a terminal: time, level, logger, [request id], message, traceback."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        """The record as text, with `-` where there is no request."""
        if _request_id_of(record) is None:
            record.request_id = request_id() or "-"
        return super().format(record)


# gunicorn hands its access logger a dict of "atoms" holding every request header and the whole
# WSGI environ; only these, by name, may reach the line (never `{authorization}i`).
_ACCESS_FIELDS = {
    "remote": "h",
    "method": "m",
    "path": "U",
    "query": "q",
    "protocol": "H",
    "status": "s",
    "bytes": "B",
    "duration_ms": "D",
    "user_agent": "a",
    "referer": "f",
}


class AccessJsonFormatter(logging.Formatter):
    """gunicorn's access log line as JSON, with the request id the app echoed in its response."""

    def format(self, record: logging.LogRecord) -> str:
        """One request as a line of JSON; any other record as JsonFormatter writes it."""
        atoms = record.args
        if not isinstance(atoms, Mapping):
            return JsonFormatter().format(record)
        line: dict[str, Any] = {
            "time": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "message": "request",
            "pid": record.process,
        }
        rid = atoms.get("{x-request-id}o")
        if rid and rid != "-":
            line["request_id"] = rid
        for field, atom in _ACCESS_FIELDS.items():
            value = atoms.get(atom)
            if value in (None, "-", ""):
                continue
            if field == "status":
                value = int(str(value)) if str(value).isdigit() else value
            elif field == "duration_ms":
                value = round(int(str(value)) / 1000, 3)
            line[field] = value
        return json.dumps(line, default=str, ensure_ascii=False)


def log_level(env: Mapping[str, str] | None = None) -> str:
    """The configured level name (GAMBIT_LOG_LEVEL, default INFO); an unknown name falls back to INFO."""
    env = os.environ if env is None else env
    name = env.get("GAMBIT_LOG_LEVEL", "INFO").strip().upper()
    return name if isinstance(logging.getLevelName(name), int) else "INFO"


def log_format(env: Mapping[str, str] | None = None) -> str:
    """The configured line format, `json` (default) or `text`."""
    env = os.environ if env is None else env
    return "text" if env.get("GAMBIT_LOG_FORMAT", "json").strip().lower() == "text" else "json"


def formatter(env: Mapping[str, str] | None = None) -> logging.Formatter:
    """The formatter GAMBIT_LOG_FORMAT asks for."""
    return TextFormatter() if log_format(env) == "text" else JsonFormatter()


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever `sys.stderr` is at the time (test runners and servers swap it)."""

    @property
    def stream(self) -> Any:
        """The current standard error."""
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        """Ignored: the stream is always the current standard error."""


def configure(env: Mapping[str, str] | None = None) -> None:
    """Send log records to standard error in the configured format, unless logging is already set up.

    Under gunicorn the logging is configured by `gunicorn_logconfig` (deploy/gunicorn.conf.py)
    before any worker builds the app, and a host application or a test runner may have its own
    handlers: then the records reach those, and nothing is added here.
    """
    root = logging.getLogger()
    if root.handlers:
        return
    handler = _StderrHandler()
    handler.setFormatter(formatter(env))
    root.addHandler(handler)
    root.setLevel(log_level(env))


def gunicorn_logconfig(access_log: str = "-", env: Mapping[str, str] | None = None) -> dict:
    """gunicorn's `logconfig_dict`: its error log and the app's records as JSON on stderr, the access log as JSON.

    `access_log` is `-` for standard output or a file path.
    """
    formatter_class = "service.logs.TextFormatter" if log_format(env) == "text" else "service.logs.JsonFormatter"
    access_handler: dict[str, Any] = {"formatter": "access", "level": "INFO"}
    if access_log == "-":
        access_handler.update({"class": "logging.StreamHandler", "stream": "ext://sys.stdout"})
    else:
        # Reopens the file when logrotate moves it.
        access_handler.update({"class": "logging.handlers.WatchedFileHandler", "filename": access_log})
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "app": {"()": formatter_class},
            "access": {"()": "service.logs.AccessJsonFormatter"},
        },
        "handlers": {
            "app": {"class": "logging.StreamHandler", "formatter": "app", "stream": "ext://sys.stderr"},
            "access": access_handler,
        },
        "root": {"level": log_level(env), "handlers": ["app"]},
        "loggers": {
            "gunicorn.error": {"level": log_level(env), "handlers": ["app"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False},
        },
    }
