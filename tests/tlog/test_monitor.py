"""`gambit monitor` follows a log: an honest log passes round after round; a log with two heads for one version of a
match, or one that no longer extends what the monitor saw, raises the alarm (exit 1, naming the match and version)."""

from __future__ import annotations

import io

import pytest

from domain.records import canonical
from service.keeper import build_sequencer
from service.log_keys import NoteKey
from service.monitor import Monitor, MonitorAlarm, MonitorState, run_monitor
from tests.support.api import create_match, join_all
from tests.tlog.memory_log import MemoryLog


def _entry(match_id: str, version: int, head: str) -> bytes:
    return canonical({"match_id": match_id, "version": version, "head": head, "key_id": "k"})


def _app_fetch(client):
    def fetch(path: str) -> bytes:
        response = client.get(f"/log/{path}")
        if response.status_code != 200:
            raise OSError(f"HTTP {response.status_code}")
        return response.get_data()

    return fetch


def test_an_honest_log_passes_round_after_round(app, client, tmp_path):
    gambit = app.extensions["gambit"]
    key = NoteKey.parse(client.get("/log/").get_json()["logs"][0]["vkey"])
    monitor = Monitor(_app_fetch(client), MonitorState(), key)
    match = create_match(client, "gambitz", {"players": 2})
    build_sequencer(gambit).integrate()
    assert monitor.round()[1] > 0
    join_all(client, match)
    create_match(client, "gambitz", {"players": 2, "spectator_delay": 2})
    build_sequencer(gambit).integrate()
    old, new = monitor.round()
    assert new > old and monitor.state.sealed == 1 and len(monitor.state.heads) == new - 1
    state_file = tmp_path / "monitor.json"
    out = io.StringIO()
    code = run_monitor("", str(state_file), None, True, 0, out, io.StringIO(), fetch=_app_fetch(client))
    assert code == 0 and out.getvalue().startswith("ok ")
    again = run_monitor("", str(state_file), None, True, 0, io.StringIO(), io.StringIO(), fetch=_app_fetch(client))
    assert again == 0, "a restarted monitor goes on from its state"


def test_a_log_with_two_heads_for_one_version_of_a_match_raises_the_alarm():
    log = MemoryLog().add(_entry("m", 1, "a" * 64), _entry("n", 1, "b" * 64))
    out = io.StringIO()
    assert run_monitor("", None, log.vkey, True, 0, io.StringIO(), io.StringIO(), fetch=log.fetch) == 0
    log.add(_entry("m", 2, "c" * 64), _entry("m", 1, "d" * 64))
    code = run_monitor("", None, log.vkey, True, 0, out, io.StringIO(), fetch=log.fetch)
    assert code == 1 and "match m version 1 has two heads" in out.getvalue()


def test_the_alarm_goes_off_across_rounds_too(tmp_path):
    log = MemoryLog().add(_entry("m", 1, "a" * 64))
    state = tmp_path / "state.json"
    assert run_monitor("", str(state), log.vkey, True, 0, io.StringIO(), io.StringIO(), fetch=log.fetch) == 0
    log.add(_entry("m", 1, "e" * 64))
    out = io.StringIO()
    assert run_monitor("", str(state), log.vkey, True, 0, out, io.StringIO(), fetch=log.fetch) == 1
    assert "match m version 1 has two heads" in out.getvalue()


def test_a_log_rewritten_after_the_monitor_saw_it_is_a_fork():
    log = MemoryLog().add(_entry("m", 1, "a" * 64), _entry("m", 2, "b" * 64), _entry("m", 3, "c" * 64))
    monitor = Monitor(log.fetch, MonitorState(), NoteKey.parse(log.vkey))
    monitor.round()
    rewritten = MemoryLog(key=log.key).add(_entry("m", 1, "a" * 64), _entry("m", 2, "X" * 64), _entry("m", 3, "c" * 64))
    rewritten.add(_entry("m", 4, "d" * 64))
    monitor.fetch = rewritten.fetch
    out = io.StringIO()
    code = run_monitor("", None, log.vkey, True, 0, out, io.StringIO(), fetch=rewritten.fetch)
    assert code == 0, "a monitor that never saw the old tree cannot tell"
    with pytest.raises(MonitorAlarm, match="forked"):
        monitor.round()
    assert monitor.state.size == 3, "an alarm does not move the monitor on"
    impostor = MemoryLog().add(_entry("m", 1, "a" * 64))
    out = io.StringIO()
    assert run_monitor("", None, log.vkey, True, 0, out, io.StringIO(), fetch=impostor.fetch) == 1
    assert "not signed by the log's key" in out.getvalue()


def test_a_log_of_several_tiles_is_followed_through_its_higher_levels():
    log = MemoryLog().add(*(_entry(f"m{i}", 1, f"{i:064x}") for i in range(300)))
    monitor = Monitor(log.fetch, MonitorState(), NoteKey.parse(log.vkey))
    assert monitor.round() == (0, 300)
    log.add(*(_entry(f"m{i}", 2, f"{i:064x}") for i in range(300)))
    assert monitor.round() == (300, 600) and len(monitor.state.heads) == 600
    log.add(_entry("m7", 2, "f" * 64))
    with pytest.raises(MonitorAlarm, match="match m7 version 2 has two heads"):
        monitor.round()
