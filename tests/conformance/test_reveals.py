"""Reveals open at once (docs/verification.md, "Reveals and evidence"), for every ruleset in the registry.

When a secret becomes public during play, the record that reveals it names what it opens in
`public.opens`, and from that version on every viewer — the other seats and spectators alike —
receives the opened records' secret and salt: in the event log, the export of the running match,
the replay frame of the reveal (and no frame before it), the live stream, and the audit's
`verified` of a ruling whose evidence the reveal made public. Nothing is opened before its reveal.

And what is opened must be public already: every value an opened secret holds appears in the
public parts of the record that opens it or of an earlier one, so a reveal never publishes more
than the rules show (the per-game leak tests sharpen this: tests/http/test_gambit_board_reveals.py).

Matches here are played with a stacked deck — every shuffle leaves the cards in order — so each
game reaches its first reveal in a few commands (a Gambitz hand stuck with three Queens is the
first thing that happens). Random play prefers the commands that reveal something.
"""

from __future__ import annotations

import json
import random

import pytest

from domain import rulesets
from domain.chance import Chance, Drawn
from domain.ruleset import RuleViolation
from tests.hardening.play import new_match
from tests.support.api import auth
from tests.support.harness import start
from tests.support.independent_verifier import verify_export

RULESET_IDS = rulesets.available()
ENDERS = ("resign", "concede")
MAX_STEPS = 400


def _in_order(self: Chance, purpose: str, n: int) -> Drawn:
    """A stacked shuffle: the cards stay in order (the purpose is still used once, as the match requires)."""
    return Drawn("permutation", self._purpose(purpose), n, list(range(n)))


@pytest.fixture
def stacked_deck(monkeypatch):
    """Every shuffle of the test leaves the deck in order."""
    monkeypatch.setattr(Chance, "permutation", _in_order)


def options(ruleset, state: dict, seat: str, rng: random.Random) -> list:
    """Commands `seat` may send now: the listed ones and one random member of each choice; enders last resort."""
    listed = list(ruleset.legal_commands(state, seat))
    for choice in getattr(ruleset, "legal_choices", lambda *_: [])(state, seat):
        listed.append(choice.random_command(rng))
    return [c for c in listed if c.type not in ENDERS] or listed


def reveals(ruleset, state: dict, seat: str, command, chance) -> bool:
    """Whether deciding `command` now records a reveal (deciding changes nothing; nothing is recorded)."""
    try:
        return any(event.opens for event in ruleset.decide(state, seat, command, chance))
    except RuleViolation:
        return False


def next_move(ruleset, state: dict, rng: random.Random, chance) -> tuple[str, object, bool]:
    """A seat to act and its command, preferring one that reveals something; and whether it does.

    `chance()` gives a fresh chance source for each decision tried (a purpose is used once each).
    """
    seat = rng.choice(sorted(ruleset.to_act(state)))
    candidates = options(ruleset, state, seat, rng)
    revealing = [c for c in candidates if reveals(ruleset, state, seat, c, chance())]
    if revealing:
        return seat, rng.choice(revealing), True
    return seat, rng.choice(candidates), False


# ----- over HTTP: who receives what, and when ---------------------------------------------------

def _reach_a_reveal(client, matches, ruleset_id: str) -> tuple[str, dict, dict[str, dict]]:
    """A running match whose newest command revealed something; (match id, tokens, reads just before)."""
    for attempt in range(5):
        rng = random.Random(f"{ruleset_id}/{attempt}")
        match_id, tokens = new_match(client, ruleset_id, rng)
        for _ in range(MAX_STEPS):
            match = matches.match(match_id)
            if match.status != "active":
                break
            seat, command, revealing = next_move(match.ruleset, match.state, rng, match.chance)
            before = _reads(client, match_id, tokens) if revealing else None
            matches.act(match_id, seat, command)
            if revealing and matches.match(match_id).status == "active":
                return match_id, tokens, before
    raise AssertionError(f"{ruleset_id}: no reveal while the match ran")


def _reads(client, match_id: str, tokens: dict) -> dict[str, dict]:
    """The event log and the export as each seat and a spectator read them now."""
    out = {}
    for who, headers in [("spectator", {}), *((seat, auth(token)) for seat, token in tokens.items())]:
        events = client.get(f"/matches/{match_id}/events?after=0&limit=500", headers=headers).get_json()["events"]
        export = client.get(f"/matches/{match_id}/export", headers=headers).get_data(as_text=True)
        out[who] = {"events": {e["version"]: e for e in events}, "export": export}
    return out


def _export_records(text: str) -> dict[int, dict]:
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return {line["version"]: line for line in lines if "kind" in line}


def _sse_opened(client, match_id: str, headers: dict, after: int, version: int) -> dict | None:
    """The `opened` frame the live stream (from `after`) sends for `version`, or None when it ends without one."""
    response = client.get(f"/matches/{match_id}/events",
                          headers={**headers, "Accept": "text/event-stream", "Last-Event-ID": str(after)},
                          buffered=False)
    assert response.status_code == 200
    text, found = "", None
    for chunk in response.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        frames = [frame for frame in text.split("\n\n") if frame.startswith("event: opened\n")]
        opened = [json.loads(frame.split("data: ", 1)[1]) for frame in frames]
        found = next((o for o in opened if o["version"] == version), None)
        # Opened frames come right after their reveal's record: stop at the first record past it.
        if found is not None or f"id: {after + 2}\n" in text or "event: end" in text:
            break
    response.close()
    return found


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_reveal_opens_its_records_to_every_viewer_at_its_version_and_not_before(client, app, stacked_deck,
                                                                                 ruleset_id):
    matches = app.extensions["gambit"].matches
    match_id, tokens, before = _reach_a_reveal(client, matches, ruleset_id)
    match = matches.match(match_id)
    stored = {r.originator_version: r for r in matches.records(match_id)}
    revealing = [r for r in stored.values() if r.public.get("opens") and match.revealed_at(r.public["opens"][0])
                 == r.originator_version]
    reveal = revealing[-1]
    version = reveal.originator_version
    opened = [stored[v] for v in reveal.public["opens"]]
    assert all(r.secret is not None and r.originator_version < version for r in opened)
    after = _reads(client, match_id, tokens)
    outsiders = [who for who in after if who == "spectator" or not all(who in (r.audience or []) for r in opened)]
    assert "spectator" in outsiders
    for who in outsiders:
        headers = auth(tokens[who]) if who in tokens else {}
        for record in opened:
            v = record.originator_version
            hidden = who == "spectator" or who not in (record.audience or [])
            # Before the reveal: commitment only, in the log and in the export.
            if hidden:
                assert "secret" not in before[who]["events"][v] and "salt" not in before[who]["events"][v]
                assert "secret" not in _export_records(before[who]["export"])[v]
            # From the reveal on: secret and salt, for everyone.
            for form in (after[who]["events"][v], _export_records(after[who]["export"])[v]):
                assert form["secret"] == record.secret and form["salt"] == record.salt, (who, v)
            # Replay: the frame of the reveal carries the opened record; no earlier frame shows it.
            frames = client.get(f"/matches/{match_id}/replay?from={v}&to={version}", headers=headers).get_json()
            for frame in frames["frames"]:
                shown = [o for o in frame.get("opened", []) if o["version"] == v]
                if frame["version"] < version:
                    assert not shown
                    if frame["version"] == v and hidden:
                        assert "secret" not in frame["event"] and "salt" not in frame["event"]
                else:
                    assert shown and shown[0]["secret"] == record.secret and shown[0]["salt"] == record.salt
            # The live stream sends the opened record again, opened, right after the reveal.
            streamed = _sse_opened(client, match_id, headers, version - 1, v)
            assert streamed is not None and streamed["secret"] == record.secret and streamed["salt"] == record.salt
        # A running match's export with the reveal still verifies (the opened commitments open).
        verify_export(after[who]["export"])
    # A ruling whose evidence the reveal made public is verified for every viewer.
    if "bluff_call" in reveal.public and not reveal.public.get("sealed_evidence"):
        for who in outsiders:
            headers = auth(tokens[who]) if who in tokens else {}
            calls = client.get(f"/matches/{match_id}/audit/bluffs", headers=headers).get_json()["calls"]
            entry = next(c for c in calls if c["ruling_version"] == version)
            assert entry["verified"] is True, (who, entry)
            assert {o["version"] for o in entry["opened"]} == set(reveal.public["opens"])


# ----- in the domain: what a reveal opens is public already --------------------------------------

def _strings(value) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def _playout(ruleset_id: str, rng: random.Random, steps: int):
    """A game driven through the ruleset alone, preferring reveals; yields the game after each command."""
    from tests.hardening.play import join_options  # the decks a seat brings (gambit-tcg)
    ruleset = rulesets.get(ruleset_id)
    seats = list(ruleset.seat_names(ruleset.Config()))
    seat_options = join_options(ruleset_id, seats, rng)
    game = start(ruleset, None, server_seed=rng.randbytes(32),
                 **({"seat_options": seat_options} if seat_options else {}))
    for _ in range(steps):
        if ruleset.outcome(game.state) is not None or not ruleset.to_act(game.state):
            return
        seat, command, _ = next_move(ruleset, game.state, rng, game.chance)
        game.act(seat, command)
        yield game


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_value_a_reveal_opens_is_already_public(ruleset_id, monkeypatch):
    seen = 0
    for game_number in range(8):
        if game_number == 4:
            monkeypatch.setattr(Chance, "permutation", _in_order)  # half the games with a stacked deck
        rng = random.Random(f"leak/{ruleset_id}/{game_number}")
        checked = 0
        for game in _playout(ruleset_id, rng, 300):
            by_version = {e.version: e for e in game.events}
            for event in game.events[checked:]:
                for version in event.opens:
                    opened = by_version[version]
                    public = _strings([e.public for e in game.events if e.version <= event.version])
                    leaked = _strings(opened.secret) - public
                    assert not leaked, f"{ruleset_id}: v{event.version} {event.kind} opens v{version} " \
                                       f"{opened.kind} with {sorted(leaked)} not public"
                    assert version < event.version and opened.secret is not None
                    seen += 1
            checked = len(game.events)
    assert seen > 0, f"{ruleset_id}: no reveal in the playouts"
