"""`gambit export` and `gambit verify` as an organizer would run them: from the shell, offline."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

from service.app import create_app
from service.settings import Settings
from tests.support.api import auth, join_all, play_to_end


def _gambit(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_a_whole_tournament_is_exported_disputed_and_verified_from_the_shell(tmp_path):
    data = tmp_path / "data"
    env = {**os.environ, "GAMBIT_DATA_DIR": str(data)}
    env.pop("GAMBIT_DATABASE_URL", None)
    app = create_app(Settings.from_env(env))
    client = app.test_client()
    tournament = client.post("/tournaments", json={"name": "Cup"}).get_json()
    tid, key = tournament["tournament_id"], tournament["organizer_key"]
    for seed in (1, 2):
        match = client.post("/matches", json={"ruleset": "dragons-gambit", "tournament_id": tid,
                                              "config": {"players": 3, "target_score": 30}},
                            headers=auth(key)).get_json()
        tokens = join_all(client, match)
        play_to_end(client, match["match_id"], tokens, random.Random(seed))
    call = client.get(f"/matches/{match['match_id']}/audit/bluffs").get_json()["calls"][0]
    assert client.post(f"/matches/{match['match_id']}/disputes", json={"call_version": call["call_version"],
                       "reason": "check it"}, headers=auth(tokens["p1"])).status_code == 201
    assert client.post(f"/matches/{match['match_id']}/disputes/1/ruling", json={"decision": "overturned",
                       "note": "the count stands"}, headers=auth(key)).status_code == 201
    (tmp_path / "key.json").write_text(json.dumps(client.get("/.well-known/gambit-signing-key").get_json()))
    app.extensions["gambit"].close()

    exported = _gambit("export", "--tournament", tid, "-o", str(tmp_path / "exports"), env=env)
    assert exported.returncode == 0, exported.stderr
    assert len(list((tmp_path / "exports").glob("*.ndjson"))) == 2

    verified = _gambit("verify", str(tmp_path / "exports"), "--key", str(tmp_path / "key.json"), env=env)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.count("VERIFIED") == 2
    assert "verdict" in verified.stdout and "DisputeRuled" in verified.stdout

    as_json = _gambit("verify", str(tmp_path / "exports"), "--json", "--key", str(tmp_path / "key.json"), env=env)
    assert json.loads(as_json.stdout)["ok"] is True and json.loads(as_json.stdout)["verdict"] == "VERIFIED"
    unsigned = _gambit("verify", str(tmp_path / "exports"), "--json", env=env)
    assert unsigned.returncode == 3 and json.loads(unsigned.stdout)["verdict"] == "UNSIGNED"

    victim = min((tmp_path / "exports").glob("*.ndjson"))
    lines = victim.read_text().splitlines()
    record = json.loads(lines[3])
    record["public"]["name"] = "mallory"
    lines[3] = json.dumps(record)
    victim.write_text("\n".join(lines) + "\n")
    broken = _gambit("verify", str(tmp_path / "exports"), "--key", str(tmp_path / "key.json"), env=env)
    assert broken.returncode == 1
    assert "FAILED" in broken.stdout and "chain breaks at version 3" in broken.stdout
