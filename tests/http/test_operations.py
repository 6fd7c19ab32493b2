"""Operations: health, readiness, metrics, the signing key, limits and rate limits."""

from __future__ import annotations

import math
import os
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.app import create_app
from service.ratelimit import Limit, Limiter, Limits
from service.settings import Settings
from tests.support.api import auth, create_match, join_all

# The machine's Redis (CI's too): the shared store production configures for rate limits.
REDIS = os.environ.get("GAMBIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def test_health_and_readiness_report_the_store_and_the_projection_lag(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    create_match(client, "gambitz")
    ready = client.get("/readyz").get_json()
    assert ready["status"] == "ready" and ready["projection_lag"] >= 0


def test_readiness_reports_the_one_partition_its_notifications_and_each_followers_lag(client, app):
    create_match(client, "gambitz")
    ready = client.get("/readyz").get_json()
    assert ready["status"] == "ready" and "unavailable_partitions" not in ready
    [partition] = ready["partitions"]
    assert partition["partition"] == 0 and partition["answers"] is True
    assert partition["notifications"] == app.extensions["gambit"].index.app.recorder.max_notification_id()
    assert partition["projection_lag"] == ready["projection_lag"]
    assert partition["log_lag"] is not None and 0 <= partition["log_lag"] <= partition["notifications"]


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of a Prometheus text exposition: (name, labels) → value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_count_requests_by_route_template_and_commands_by_outcome(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    body = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["p1"])).get_json()["commands"][0]
    client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens["p1"]))
    client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens["p1"]))  # now not its turn
    client.post(f"/matches/{mid}/commands", json=body, headers={**auth(tokens["p2"]), "If-Match": '"1"'})
    text = client.get("/metrics").get_data(as_text=True)
    found = samples(text)
    commands_route = {("route", "/matches/<match_id>/commands"), ("method", "POST")}
    assert found[("gambit_http_requests_total", frozenset(commands_route | {("status", "201")}))] == 1
    assert found[("gambit_http_requests_total", frozenset(commands_route | {("status", "422")}))] == 1
    assert found[("gambit_http_request_duration_seconds_count", frozenset(commands_route))] == 3
    assert mid not in text, "routes are counted by template, never by raw path"
    outcomes = {
        dict(labels)["outcome"]: value
        for (name, labels), value in found.items()
        if name == "gambit_commands_total" and dict(labels)["ruleset"] == "gambitz"
    }
    assert outcomes == {"accepted": 1, "illegal_command": 1, "version_mismatch": 1}
    assert ("gambit_projection_lag", frozenset({("partition", "0"), ("projection", "cross-match-index")})) in found
    assert tokens["p1"] not in text


def test_the_projection_lag_metric_is_what_readiness_reports(client):
    create_match(client, "gambitz")
    lag = client.get("/readyz").get_json()["projection_lag"]
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert found[("gambit_projection_lag", frozenset({("partition", "0"), ("projection", "cross-match-index")}))] == lag


def test_every_partition_gauge_is_what_readiness_reports_for_partition_0(client):
    create_match(client, "gambitz")
    [ready] = client.get("/readyz").get_json()["partitions"]
    found = samples(client.get("/metrics").get_data(as_text=True))
    zero = frozenset({("partition", "0")})
    assert found[("gambit_partition_up", zero)] == 1
    assert found[("gambit_partition_notifications", zero)] == ready["notifications"]
    assert found[("gambit_log_lag", zero)] == ready["log_lag"]
    clock_lag = found[("gambit_clock_lag", zero)]
    assert math.isnan(clock_lag) if ready["clock_lag"] is None else clock_lag == ready["clock_lag"]


def test_an_unreachable_store_shows_the_lag_as_unknown_and_keeps_the_other_metrics(client, app, monkeypatch):
    def broken(partition: int = 0) -> int:
        raise ConnectionError("store down")

    client.get("/rulesets")
    monkeypatch.setattr(app.extensions["gambit"].index, "position", broken)
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert math.isnan(found[("gambit_projection_lag", frozenset({("partition", "0"), ("projection", "cross-match-index")}))])
    rulesets = frozenset({("route", "/rulesets"), ("method", "GET"), ("status", "200")})
    assert found[("gambit_http_requests_total", rulesets)] == 1


def test_the_followers_gauge_follows_open_streams(client, app):
    match = create_match(client, "gambitz")
    hub = app.extensions["gambit"].streams

    def followers() -> float:
        return samples(client.get("/metrics").get_data(as_text=True))[("gambit_sse_followers", frozenset())]

    assert followers() == 0
    first, second = hub.reserve(match["match_id"], "203.0.113.1"), hub.reserve(match["match_id"], "203.0.113.2")
    assert followers() == 2
    hub.release(first)
    hub.release(first)  # releasing twice gives back one slot only
    assert followers() == 1
    hub.release(second)
    assert followers() == 0


def test_requests_nobody_routed_are_counted_under_one_label(client):
    for path in ("/nowhere", "/matches/x/y/z", "/another/path"):
        client.get(path)
    found = samples(client.get("/metrics").get_data(as_text=True))
    unmatched = frozenset({("route", "unmatched"), ("method", "GET"), ("status", "404")})
    assert found[("gambit_http_requests_total", unmatched)] == 3


def test_the_signing_key_is_published_as_ed25519(client):
    key = client.get("/.well-known/gambit-signing-key").get_json()
    assert key["algorithm"] == "Ed25519" and len(key["key_id"]) == 16


def test_the_signing_key_survives_a_restart_and_is_kept_private(settings):
    keys = []
    for _ in range(2):  # two starts of the service on the same data directory
        app = create_app(settings)
        keys.append(app.test_client().get("/.well-known/gambit-signing-key").get_json())
        app.extensions["gambit"].close()
    assert keys[0] == keys[1]
    import os
    import stat

    mode = os.stat(os.path.join(settings.data_dir, "signing-key.pem")).st_mode
    assert stat.S_IMODE(mode) == 0o600


def test_a_window_refuses_past_its_budget_and_says_when_to_retry():
    limiter = Limiter(Limits(Limit(rate=2, burst=2), Limit(0, 0), Limit(0, 0)))
    budget = limiter.config.per_address
    assert limiter.wait(budget, "address", "a") == 0 and limiter.wait(budget, "address", "a") == 0
    assert 0 < limiter.wait(budget, "address", "a") <= 2
    assert limiter.wait(budget, "address", "b") == 0, "budgets are per caller"


def _redis_app(tmp_path, name: str, **limits) -> object:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / name}.sqlite3",
        data_dir=str(tmp_path / name),
        rate_limit_storage=REDIS,
        **limits,
    )
    return create_app(settings).test_client()


def test_workers_sharing_a_redis_store_spend_one_budget(tmp_path):
    # Two apps stand for two gunicorn workers (or two hosts): alone, each would allow 3.
    first, second = (_redis_app(tmp_path, n, rate_limit_per_address=Limit(1, 3)) for n in ("w1", "w2"))
    address = {"REMOTE_ADDR": f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.7"}
    codes = [client.get("/rulesets", environ_base=address).status_code for client in (first, second, first, second)]
    assert codes == [200, 200, 200, 429]


def test_match_creation_has_its_own_budget_per_address(tmp_path):
    client = _redis_app(tmp_path, "m", match_creation_limit=Limit(0.01, 2))
    address = {"REMOTE_ADDR": f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.9"}
    created = [client.post("/matches", json={"ruleset": "gambitz"}, environ_base=address).status_code for _ in range(3)]
    assert created == [201, 201, 429]
    assert client.get("/rulesets", environ_base=address).status_code == 200, "only creation is capped so tightly"


def test_an_unreachable_limit_store_lets_requests_through(tmp_path):
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 's.sqlite3'}",
        data_dir=str(tmp_path),
        rate_limit_per_address=Limit(1, 1),
        rate_limit_storage="redis://127.0.0.1:1",
    )
    client = create_app(settings).test_client()
    assert [client.get("/rulesets").status_code for _ in range(3)] == [200, 200, 200]


@pytest.fixture
def limited(tmp_path):
    """An app with tight limits: 1 request/s with bursts of 3 per address and per token."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 's.sqlite3'}",
        data_dir=str(tmp_path),
        rate_limit_per_address=Limit(1, 3),
        rate_limit_per_token=Limit(1, 3),
    )
    return create_app(settings).test_client()


def test_too_many_requests_from_one_address_get_429_with_retry_after(limited):
    statuses = [limited.get("/rulesets").status_code for _ in range(5)]
    assert statuses[:3] == [200, 200, 200] and statuses[3] == 429
    refused = limited.get("/rulesets")
    assert refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1


def test_a_token_is_limited_wherever_it_comes_from(limited):
    headers = auth("some-token")
    codes = [
        limited.get("/rulesets", headers=headers, environ_base={"REMOTE_ADDR": f"10.0.0.{i}"}).status_code
        for i in range(5)
    ]
    assert codes[3] == 429


def test_health_checks_are_never_rate_limited(limited):
    assert {limited.get("/healthz").status_code for _ in range(10)} == {200}


def test_the_environment_turns_rate_limits_on_by_default_and_zero_turns_them_off():
    assert Settings.from_env({}).rate_limit_per_address.enabled
    assert not Settings.from_env({"GAMBIT_RATE_LIMIT_PER_ADDRESS": "0"}).rate_limit_per_address.enabled
    assert Settings.from_env({"GAMBIT_RATE_LIMIT_PER_TOKEN": "5/10"}).rate_limit_per_token == Limit(5, 10)
    assert Settings.from_env({}).match_creation_limit.enabled
    assert Settings.from_env({}).rate_limit_storage == "memory://"
    assert Settings.from_env({"GAMBIT_RATE_LIMIT_STORAGE": REDIS}).limits.storage_uri == REDIS


def test_the_default_store_is_sqlite_under_the_data_directory():
    assert Settings.from_env({}).database_url == "sqlite:///./var/gambit.sqlite3"
    assert Settings.from_env({"GAMBIT_DATA_DIR": "/srv/g"}).database_url == "sqlite:////srv/g/gambit.sqlite3"


def test_a_configured_signing_key_is_used_as_a_file_or_inline_pem(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from service.signing import Signer

    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (tmp_path / "key.pem").write_bytes(pem)
    from_file = Signer.load(str(tmp_path / "data"), str(tmp_path / "key.pem"))
    inline = Signer.load(str(tmp_path / "data"), pem.decode())
    assert from_file.key_id == inline.key_id
    assert not (tmp_path / "data" / "signing-key.pem").exists(), "a configured key is never replaced by a generated one"


def test_behind_a_trusted_proxy_the_rate_limit_keys_on_the_forwarded_client(tmp_path):
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 's.sqlite3'}",
        data_dir=str(tmp_path),
        rate_limit_per_address=Limit(1, 2),
        trusted_proxies=1,
    )
    client = create_app(settings).test_client()
    first = [client.get("/rulesets", headers={"X-Forwarded-For": "203.0.113.1"}).status_code for _ in range(3)]
    other = client.get("/rulesets", headers={"X-Forwarded-For": "203.0.113.2"}).status_code
    assert first == [200, 200, 429] and other == 200


def test_without_a_trusted_proxy_a_forged_forwarded_header_changes_nothing(limited):
    codes = [limited.get("/rulesets", headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code for i in range(5)]
    assert codes[3] == 429


def test_readiness_failure_is_a_problem_document(client, app, monkeypatch):
    def broken(partition: int = 0) -> int:
        raise ConnectionError("store down")

    monkeypatch.setattr(app.extensions["gambit"].index, "position", broken)
    response = client.get("/readyz")
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "not_ready"


def _load_key_together(args) -> str:
    data_dir, barrier = args
    from service.signing import Signer

    barrier.wait()  # every worker reaches the key at the same moment, as gunicorn's do at boot
    return Signer.load(data_dir).key_id


def test_workers_starting_together_all_sign_with_one_complete_key(tmp_path):
    import multiprocessing

    context = multiprocessing.get_context("fork")
    workers = 8
    with context.Manager() as manager, context.Pool(workers) as pool:
        for attempt in range(25):
            data_dir = tmp_path / f"boot-{attempt}"
            barrier = manager.Barrier(workers)
            key_ids = pool.map(_load_key_together, [(str(data_dir), barrier)] * workers)
            assert len(set(key_ids)) == 1
            assert sorted(p.name for p in data_dir.iterdir()) == ["signing-key.pem"], "no draft is left behind"


def test_metrics_keep_their_own_registry_when_the_multiprocess_directory_is_gone(monkeypatch, tmp_path):
    from service.metrics import MULTIPROCESS_DIR_VARIABLE, Metrics

    monkeypatch.setenv(MULTIPROCESS_DIR_VARIABLE, str(tmp_path / "removed-by-its-server"))
    metrics = Metrics()
    assert metrics.multiprocess is False
    monkeypatch.setenv(MULTIPROCESS_DIR_VARIABLE, str(tmp_path))
    assert Metrics().multiprocess is True
