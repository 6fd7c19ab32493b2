"""A fake time source for clock tests (no test sleeps), and helpers to run timed matches over HTTP."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from domain import clock
from service.verify_cli import run_verify
from tests.support.api import auth

START = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


class FakeTime:
    """The time every record and deadline check reads; it moves only when a test advances it."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        """Move time forward; returns the new instant."""
        self.now += timedelta(seconds=seconds)
        return self.now

    def iso(self) -> str:
        """The current instant as records write it."""
        return self.now.isoformat()


@contextmanager
def fake_time_source(start: datetime = START) -> Iterator[FakeTime]:
    """Install a FakeTime as the clock's time source (the system clock again afterwards)."""
    fake = FakeTime(start)
    clock.set_time_source(fake)
    try:
        yield fake
    finally:
        clock.set_time_source(None)


def fischer(initial_s: int, increment_s: int = 0) -> dict:
    """A Fischer time control."""
    return {"kind": "fischer", "initial_s": initial_s, "increment_s": increment_s}


def per_decision(seconds: int) -> dict:
    """A per-decision time control."""
    return {"kind": "per_decision", "per_decision_s": seconds}


def tournament(client) -> tuple[str, str]:
    """A new tournament: (id, organizer key)."""
    body = client.post("/tournaments", json={"name": "Clock Cup"}).get_json()
    return body["tournament_id"], body["organizer_key"]


def timed_match(
    client,
    ruleset: str,
    control: dict,
    tournament_id: str | None = None,
    organizer: str | None = None,
    config: dict | None = None,
    options: dict | None = None,
) -> tuple[str, dict]:
    """Create a timed match (in a tournament, as its organizer, when given) and join every seat: (id, tokens)."""
    body = {"ruleset": ruleset, "config": {**(config or {}), "time_control": control}}
    if tournament_id is not None:
        body["tournament_id"] = tournament_id
    created = client.post("/matches", json=body, headers=auth(organizer) if organizer else {})
    assert created.status_code == 201, created.get_json()
    match = created.get_json()
    tokens = {}
    for seat in [s["seat"] for s in match["seats"]]:
        join = {"name": f"player-{seat}", "seat": seat, **({"options": options[seat]} if options else {})}
        joined = client.post(f"/matches/{match['match_id']}/seats", json=join)
        assert joined.status_code == 201, joined.get_json()
        tokens[seat] = joined.get_json()["token"]
    return match["match_id"], tokens


def kinds_after(client, match_id: str, after: int, headers: dict | None = None) -> list[str]:
    """The kinds of the records after a version."""
    events = client.get(f"/matches/{match_id}/events?after={after}&limit=500", headers=headers or {}).get_json()
    return [e["kind"] for e in events["events"]]


def first_legal(client, match_id: str, token: str) -> dict:
    """The first command body the seat may post now."""
    legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(token)).get_json()
    assert legal["commands"], legal
    return legal["commands"][0]


def verify_text(tmp_path, text: str, key: str | None, name: str = "export") -> tuple[int, dict]:
    """Run `gambit verify --json` on an export's text: (exit code, report)."""
    path = tmp_path / f"{name}.ndjson"
    path.write_text(text)
    out = io.StringIO()
    code = run_verify(str(path), key, as_json=True, out=out, err=io.StringIO())
    return code, json.loads(out.getvalue())


def checks(report: dict) -> dict[str, tuple[str, str]]:
    """Check name → (status, detail) of the first report."""
    return {c["check"]: (c["status"], c["detail"]) for c in report["reports"][0]["checks"]}
