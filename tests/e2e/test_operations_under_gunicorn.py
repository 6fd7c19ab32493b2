"""A real `gambit serve` with 3 workers: /metrics adds up every worker's counts; logs are JSON lines with ids."""

from __future__ import annotations

import json
import shutil
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.conftest import call, start_server

WORKERS = 3
BATCH = 24
MAX_REQUESTS = 24 * 25


def _get(base: str, path: str, request_id: str) -> int:
    """GET on a fresh connection (so the workers' accept loops share the load); returns the status."""
    request = urllib.request.Request(base + path, headers={"X-Request-Id": request_id})
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
        return response.status


def _json_lines(log_text: str) -> list[dict]:
    """The log's JSON lines (the CLI's own `gambit: serving …` banner is plain text)."""
    return [json.loads(line) for line in log_text.splitlines() if line.startswith("{")]


def _rulesets_requests(text: str) -> float:
    """The total of gambit_http_requests_total for GET /rulesets 200 in one scrape."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            wanted = {"route": "/rulesets", "method": "GET", "status": "200"}
            if sample.name == "gambit_http_requests_total" and wanted.items() <= sample.labels.items():
                return sample.value
    return 0.0


def test_metrics_are_the_sum_over_workers_and_logs_tie_each_request_to_its_id(tmp_path):
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    # A previous server's samples in the same directory must not count.
    shutil.copyfile(__file__, metrics_dir / "counter_1.db")
    base, process = start_server(
        tmp_path, None, workers=WORKERS, extra_env={"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}
    )
    try:
        sent = 0
        served_by: set[int] = set()
        with ThreadPoolExecutor(max_workers=12) as pool:
            while len(served_by) < WORKERS and sent < MAX_REQUESTS:
                ids = [f"spread-{sent + i}" for i in range(BATCH)]
                assert set(pool.map(lambda rid: _get(base, "/rulesets", rid), ids)) == {200}
                sent += BATCH
                lines = _json_lines(process.log_path.read_text())
                served_by = {
                    line["pid"]
                    for line in lines
                    if line.get("logger") == "gunicorn.access" and line.get("path") == "/rulesets"
                }
        assert len(served_by) >= 2, f"{sent} requests all went to one worker"
        # Whichever worker answers the scrape, it reports the server's total.
        scrapes = [urllib.request.urlopen(base + "/metrics", timeout=60).read().decode() for _ in range(6)]
        assert {_rulesets_requests(text) for text in scrapes} == {sent}
        followers = [s for f in text_string_to_metric_families(scrapes[-1]) for s in f.samples]
        assert [s.value for s in followers if s.name == "gambit_sse_followers"] == [0.0]

        status, problem = call(base, "GET", "/matches/not-a-match", headers={"X-Request-Id": "trace-e2e"})
        assert status == 404 and problem["request_id"] == "trace-e2e"
    finally:
        process.terminate()
        process.wait(timeout=30)

    lines = _json_lines(process.log_path.read_text())
    access = [line for line in lines if line.get("logger") == "gunicorn.access"]
    assert {line["request_id"] for line in access if line["path"] == "/rulesets"} >= {
        f"spread-{i}" for i in range(sent)
    }
    traced = [line for line in lines if line.get("request_id") == "trace-e2e"]
    assert {line["logger"] for line in traced} == {"gambit.problems", "gunicorn.access"}
    assert all(line["level"] == "INFO" for line in traced)
    assert any(line.get("message") == "Shutting down: Master" for line in lines), "gunicorn's own log is JSON too"
    assert not any(line["level"] == "ERROR" for line in lines), "every worker started and stopped cleanly"
    assert metrics_dir.is_dir() and not (metrics_dir / "counter_1.db").exists()
