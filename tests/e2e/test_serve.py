"""`gambit serve` runs the API under gunicorn, on the embedded SQLite default and on PostgreSQL."""

from __future__ import annotations

from tests.e2e.conftest import call


def test_gambit_serve_plays_a_match_and_keeps_it_under_the_data_directory(server):
    base, process, data_dir = server
    status, match = call(base, "POST", "/matches", {"ruleset": "gambitz", "config": {"players": 2}})
    assert status == 201
    tokens = {}
    for name in ("ann", "bob"):
        status, joined = call(base, "POST", f"/matches/{match['match_id']}/seats", {"name": name})
        assert status == 201
        tokens[joined["seat"]] = joined["token"]
    for _ in range(10):
        summary = call(base, "GET", f"/matches/{match['match_id']}")[1]
        seat = summary["to_act"][0]
        legal = call(base, "GET", f"/matches/{match['match_id']}/legal-commands", token=tokens[seat])[1]
        status, _ = call(base, "POST", f"/matches/{match['match_id']}/commands", legal["commands"][0], tokens[seat])
        assert status == 201
    assert call(base, "GET", f"/matches/{match['match_id']}")[1]["version"] > 10
    assert (data_dir / "signing-key.pem").exists()
    process.terminate()
    process.wait(timeout=30)
    output = process.log_path.read_text()
    assert f"serving {base}/" in output
    for token in tokens.values():
        assert token not in output
