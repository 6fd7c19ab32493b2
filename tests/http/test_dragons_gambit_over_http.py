"""A 4-seat Dragon's Gambit match over HTTP to its target score, and nobody learns a value it should not."""

from __future__ import annotations

import random

from domain.rulesets.dragons_gambit import FACE
from tests.support.api import auth, create_match, join_all
from tests.support.independent_verifier import verify_export


def _card_ids_in(text: str) -> set[str]:
    return {card for card in FACE if f'"{card}"' in text}


def _legitimately_known(matches, match_id: str, seat: str | None) -> set[str]:
    """Card ids this viewer was ever shown: public parts, and secrets of its own audience."""
    known: set[str] = set()
    for record in matches.records(match_id):
        known |= _card_ids_in(repr(record.public).replace("'", '"'))
        if record.secret is not None and seat is not None and seat in (record.audience or []):
            known |= _card_ids_in(repr(record.secret).replace("'", '"'))
    return known


def test_a_four_seat_match_is_played_to_the_target_score_over_http_with_no_leaked_card(client, app):
    matches = app.extensions["gambit"].matches
    rng = random.Random(40)
    match = create_match(client, "dragons-gambit", {"players": 4, "target_score": 60})
    tokens = join_all(client, match)
    mid = match["match_id"]
    checked = 0
    for step in range(3000):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] == "finished":
            break
        if step % 11 == 0:
            for seat, token in [(None, None), *tokens.items()]:
                headers = auth(token) if token else {}
                known = _legitimately_known(matches, mid, seat)
                for path in ("view", "events?limit=500", f"replay?from={max(1, summary['version'] - 15)}", "audit/bluffs"):
                    text = client.get(f"/matches/{mid}/{path}", headers=headers).get_data(as_text=True)
                    leaked = _card_ids_in(text) - known
                    assert not leaked, f"{seat or 'spectator'} received {sorted(leaked)} from {path}"
                    checked += 1
        seat = rng.choice(summary["to_act"])
        commands = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens[seat])).get_json()["commands"]
        commands = [c for c in commands if c["type"] != "resign"]  # played to the target score
        # Calling now and then keeps rounds short; every command still comes from legal-commands.
        calls = [c for c in commands if c["type"] == "call_final_gambit"]
        body = calls[0] if calls and rng.random() < 0.15 else rng.choice(commands)
        assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    summary = client.get(f"/matches/{mid}").get_json()
    assert summary["status"] == "finished"
    assert max(summary["outcome"]["scores"].values()) >= 60
    assert checked > 50
    audit = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
    assert audit and all(call["verified"] is True for call in audit)
    assert len(audit) == summary["outcome"]["rounds"]
    verify_export(client.get(f"/matches/{mid}/export").get_data(as_text=True))


def test_every_viewer_can_verify_a_final_gambit_ruling_as_soon_as_the_round_ends(client, app):
    matches = app.extensions["gambit"].matches
    rng = random.Random(7)
    match = create_match(client, "dragons-gambit", {"players": 3, "target_score": 1000})
    tokens = join_all(client, match)
    mid = match["match_id"]
    ended = []
    while not ended:
        summary = client.get(f"/matches/{mid}").get_json()
        seat = rng.choice(summary["to_act"])
        commands = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens[seat])).get_json()["commands"]
        commands = [c for c in commands if c["type"] != "resign"]  # played to the target score
        calls = [c for c in commands if c["type"] == "call_final_gambit"]
        body = calls[0] if calls else rng.choice(commands)
        assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
        ended = [r for r in matches.records(mid) if r.kind == "RoundEnded"]
    assert client.get(f"/matches/{mid}").get_json()["status"] == "active"
    [ruling] = ended
    shuffles = ("RoundDealt", "DrawPileReshuffled")
    deals = [r.originator_version for r in matches.records(mid)
             if r.kind in shuffles and r.originator_version < ruling.originator_version]
    # The round's deal (and any reshuffle) is opened, not sealed: nothing waits for the match's end.
    assert set(deals) <= set(ruling.public["opens"]) and "sealed_evidence" not in ruling.public
    for seat, token in [(None, None), *tokens.items()]:
        headers = auth(token) if token else {}
        calls = client.get(f"/matches/{mid}/audit/bluffs", headers=headers).get_json()["calls"]
        entry = next(c for c in calls if c["ruling_version"] == ruling.originator_version)
        assert entry["verified"] is True, (seat, entry)
        assert {o["version"] for o in entry["opened"]} == set(ruling.public["opens"])
        events = client.get(f"/matches/{mid}/events?after=0&limit=500", headers=headers).get_json()["events"]
        dealt = next(e for e in events if e["version"] == deals[0])
        assert dealt["secret"]["grids"] and dealt["salt"]


def test_while_seats_peek_at_once_nobody_is_current_and_every_seat_still_to_peek_is_waited_for(client):
    match = create_match(client, "dragons-gambit", {"players": 3, "initial_peek": "choose"})
    tokens = join_all(client, match)
    mid = match["match_id"]

    def looks(token=None) -> dict:
        return client.get(f"/matches/{mid}/view", headers=auth(token) if token else {}).get_json()

    for waiting, peeker in ((["p1", "p2", "p3"], "p2"), (["p1", "p3"], "p3"), (["p1"], "p1")):
        assert client.get(f"/matches/{mid}").get_json()["to_act"] == waiting
        for token in (None, *tokens.values()):
            board = looks(token)
            assert board["state"]["current"] is None and board["state"]["phase"] == "peek"
            assert board["to_act"] == waiting and board["may_act"] == []
        body = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens[peeker])).get_json()["commands"][0]
        assert body["type"] == "peek"
        assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[peeker])).status_code == 201
    # The last peek starts the discard pile: the round's first seat is on turn, alone.
    board = looks()
    assert board["state"]["current"] == "p1" and board["to_act"] == ["p1"] and board["state"]["phase"] == "turn"
