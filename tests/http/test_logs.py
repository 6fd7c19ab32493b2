"""Structured logs: JSON lines, one request id per request (header, problem body, every line), no secrets."""

from __future__ import annotations

import json
import logging

import pytest

from service import logs
from tests.support.api import auth, create_match, join_all


@pytest.fixture
def log_lines(caplog):
    """Every record logged during the test, as the JSON lines the service writes."""
    caplog.set_level(logging.DEBUG)
    formatter = logs.JsonFormatter()
    return lambda: [formatter.format(record) for record in caplog.records]


def test_every_response_carries_a_request_id_and_every_problem_body_the_same(client):
    ok = client.get("/rulesets")
    problem = client.get("/matches/not-a-match")
    assert len(ok.headers["X-Request-Id"]) >= 16
    assert problem.get_json()["request_id"] == problem.headers["X-Request-Id"] != ok.headers["X-Request-Id"]


def test_a_sane_inbound_request_id_is_kept_and_anything_else_is_replaced(client):
    kept = client.get("/matches/missing", headers={"X-Request-Id": "lb-7f3a:42"})
    assert kept.headers["X-Request-Id"] == "lb-7f3a:42" and kept.get_json()["request_id"] == "lb-7f3a:42"
    for hostile in ("x" * 200, "two words", '"quoted"', "line\tbreak", "-leading-dash"):
        replaced = client.get("/rulesets", headers={"X-Request-Id": hostile}).headers["X-Request-Id"]
        assert replaced != hostile and replaced.isalnum()


def test_a_client_error_is_logged_at_info_with_its_code_route_and_request_id(client, caplog):
    caplog.set_level(logging.INFO)
    response = client.get("/matches/not-a-match", headers={"X-Request-Id": "trace-1"})
    [record] = [r for r in caplog.records if r.name == "gambit.problems"]
    assert record.levelno == logging.INFO and record.exc_info is None
    assert (record.status, record.code, record.route, record.request_id) == (
        404,
        "match_not_found",
        "/matches/<match_id>",
        "trace-1",
    )
    assert response.get_json()["request_id"] == "trace-1"


def test_a_server_failure_is_logged_at_error_with_its_traceback_and_the_body_says_nothing_more(
    client, app, caplog, monkeypatch
):
    def failing() -> None:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setitem(app.view_functions, "meta.rulesets", failing)
    caplog.set_level(logging.INFO)
    response = client.get("/rulesets")
    assert response.status_code == 500 and response.get_json()["code"] == "internal_error"
    assert "fire" not in response.get_data(as_text=True)
    [record] = [r for r in caplog.records if r.name == "gambit.problems"]
    assert record.levelno == logging.ERROR and record.request_id == response.headers["X-Request-Id"]
    line = json.loads(logs.JsonFormatter().format(record))
    assert "RuntimeError: the disk is on fire" in line["exception"]
    assert line["request_id"] == response.headers["X-Request-Id"] and line["level"] == "ERROR"


def test_every_line_logged_during_a_request_carries_its_id_whichever_logger_wrote_it(client, app, caplog, monkeypatch):
    def chatty():
        logging.getLogger("some.library").warning("a library speaks")
        return {"ok": True}

    monkeypatch.setitem(app.view_functions, "meta.healthz", chatty)
    caplog.set_level(logging.INFO)
    response = client.get("/healthz", headers={"X-Request-Id": "trace-2"})
    [record] = [r for r in caplog.records if r.name == "some.library"]
    assert json.loads(logs.JsonFormatter().format(record))["request_id"] == "trace-2"
    assert response.headers["X-Request-Id"] == "trace-2"


def test_tokens_and_organizer_keys_appear_in_no_log_line(client, log_lines):
    tournament = client.post("/tournaments", json={"name": "cup"}).get_json()
    organizer_key = tournament["organizer_key"]
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    secrets = [organizer_key, *tokens.values()]
    for token in tokens.values():
        client.get(f"/matches/{mid}/legal-commands", headers=auth(token))
        client.post(f"/matches/{mid}/commands", json={"type": "no_such_command"}, headers=auth(token))
        client.post(f"/matches/{mid}/commands", json={"type": "pass"}, headers={**auth(token), "If-Match": '"x"'})
        client.get(f"/matches/{mid + 'x'}/view", headers=auth(token))
    client.get(f"/tournaments/{tournament['tournament_id']}/access-log", headers=auth(organizer_key))
    client.get(f"/tournaments/{tournament['tournament_id']}/access-log", headers=auth(organizer_key + "x"))
    client.get(f"/matches/{mid}/view", headers=auth(tokens["p1"] + "-forged"))
    lines = log_lines()
    assert len([line for line in lines if '"problem' in line]) >= 8, "the refused requests were logged"
    for line in lines:
        json.loads(line)
        for secret in secrets:
            assert secret not in line


def test_the_access_log_line_is_json_with_chosen_fields_only():
    atoms = {
        "h": "203.0.113.9",
        "m": "POST",
        "U": "/matches/m-1/commands",
        "q": "",
        "H": "HTTP/1.1",
        "s": "201",
        "B": 512,
        "D": 12345,
        "a": "curl/8",
        "f": "-",
        "{authorization}i": "Bearer s3cret-token",
        "{x-organizer-key}i": "org-s3cret",
        "{x-request-id}o": "trace-3",
        "{http_authorization}e": "Bearer s3cret-token",
    }
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, "%(h)s", None, None)
    record.args = atoms  # as gunicorn's access logger passes them: one mapping
    line = logs.AccessJsonFormatter().format(record)
    assert "s3cret" not in line
    parsed = json.loads(line)
    assert parsed["request_id"] == "trace-3" and parsed["status"] == 201 and parsed["duration_ms"] == 12.345
    assert parsed["path"] == "/matches/m-1/commands" and "query" not in parsed and "referer" not in parsed


def test_the_format_and_level_come_from_the_environment():
    assert isinstance(logs.formatter({}), logs.JsonFormatter)
    assert isinstance(logs.formatter({"GAMBIT_LOG_FORMAT": "text"}), logs.TextFormatter)
    assert logs.log_level({}) == "INFO" and logs.log_level({"GAMBIT_LOG_LEVEL": "debug"}) == "DEBUG"
    assert logs.log_level({"GAMBIT_LOG_LEVEL": "chatty"}) == "INFO"
    config = logs.gunicorn_logconfig("/var/log/gambit/access.log", {"GAMBIT_LOG_LEVEL": "WARNING"})
    assert config["root"]["level"] == "WARNING"
    assert config["handlers"]["access"]["filename"] == "/var/log/gambit/access.log"
    assert config["loggers"]["gunicorn.access"]["propagate"] is False
    text = logs.TextFormatter().format(logging.LogRecord("gambit", logging.INFO, __file__, 1, "hello", None, None))
    assert text.endswith("INFO gambit [-] hello")
