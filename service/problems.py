"""application/problem+json errors (RFC 9457) with a stable `code`, and `rule` for rule violations."""

from __future__ import annotations

import logging
import sys
from typing import Any

from flask import Flask, Response, g, json, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from domain import errors
from domain.ruleset import RuleViolation
from service.logs import request_id

log = logging.getLogger("gambit.problems")

# A detail may quote what a caller sent (a field name, a value); the log keeps only its start.
_LOGGED_DETAIL_LENGTH = 300

PROBLEM_TYPE = "https://gambit.example/problems/"

_MATCH_ERROR_STATUS = {
    errors.MatchNotFound: 404,
    errors.UnknownRuleset: 422,
    errors.InvalidConfig: 422,
    errors.InvalidJoinOptions: 422,
    errors.SeatUnavailable: 409,
    errors.VersionMismatch: 412,
    errors.ConcurrentWrite: 409,
    errors.IdempotencyKeyReused: 422,
    errors.DisputeRejected: 422,
    errors.TournamentNotFound: 404,
    errors.UnknownTournament: 422,
    errors.IntegrityAlert: 503,
    errors.PartitionUnavailable: 503,
    errors.EntrantNotFound: 404,
    errors.InvalidInvite: 403,
    errors.SeatReserved: 403,
    errors.SignatureRequired: 401,
    errors.InvalidSignature: 403,
    errors.InvalidSeatKey: 422,
    errors.RekeyRefused: 409,
}

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_body",
    429: "too_many_requests",
}


class Problem(Exception):
    """An error response to send as problem+json."""

    def __init__(self, status: int, code: str, detail: str, title: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title or code.replace("_", " ").capitalize()
        self.extra = extra


def problem_response(problem: Problem, headers: dict | None = None) -> Response:
    """Render a problem as an application/problem+json response carrying the request id, and log it."""
    body = {
        "type": PROBLEM_TYPE + problem.code,
        "title": problem.title,
        "status": problem.status,
        "detail": problem.detail,
        "code": problem.code,
        **problem.extra,
    }
    rid = request_id()
    if rid is not None:
        body["request_id"] = rid
        g.problem_code = problem.code  # the outcome metrics count a refused command under
        _log_problem(problem)
    return Response(json.dumps(body), status=problem.status, mimetype="application/problem+json", headers=headers)


def _log_problem(problem: Problem) -> None:
    """A client's mistake at info; a server failure at error, with the traceback when an exception caused it."""
    fields = {
        "status": problem.status,
        "code": problem.code,
        "method": request.method,
        "route": request.url_rule.rule if request.url_rule is not None else None,
        "detail": problem.detail[:_LOGGED_DETAIL_LENGTH],
    }
    if "rule" in problem.extra:
        fields["rule"] = problem.extra["rule"]
    if problem.status >= 500:
        failure = sys.exc_info()
        log.error("problem %s %s", problem.status, problem.code, extra=fields, exc_info=failure if failure[0] else None)
    else:
        log.info("problem %s %s", problem.status, problem.code, extra=fields)


def install(app: Flask) -> None:
    """Map every error the app can meet to problem+json; nothing escapes as an HTML page or a bare 500."""

    @app.errorhandler(Problem)
    def _problem(exc: Problem) -> Response:
        retry_after = exc.extra.get("retry_after")
        return problem_response(exc, {"Retry-After": str(retry_after)} if retry_after is not None else None)

    @app.errorhandler(RuleViolation)
    def _rule(exc: RuleViolation) -> Response:
        return problem_response(Problem(422, "illegal_command", exc.detail, "Illegal command", rule=exc.rule))

    @app.errorhandler(errors.MatchError)
    def _match_error(exc: errors.MatchError) -> Response:
        status = _MATCH_ERROR_STATUS.get(type(exc), 422)
        return problem_response(Problem(status, exc.code, exc.detail, None, **exc.extra))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        allowed = exc.valid_methods if isinstance(exc, MethodNotAllowed) else None
        headers = {"Allow": ", ".join(allowed)} if allowed else None
        return problem_response(
            Problem(status, _HTTP_CODES.get(status, "http_error"), exc.description or exc.name, exc.name), headers
        )

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        # problem_response logs it at error with the traceback (the exception is being handled).
        return problem_response(Problem(500, "internal_error", "the server failed to handle this request"))
