"""gambit-board's Witch Doctor over HTTP, as each viewer reads it (rules page, "Rulings added after the
third audit"): seat south (who uses it), seat north (whose move it answers) and a spectator.

The same swap is played three times — N2 really holding the `diagonal` it claims, bluffing it, and
bluffing it with other powers behind. Everything south or a spectator can read (view, events, the
live stream, replay, audit, export, legal commands) is the same in all three, once what differs
between any two matches (ids, times, salts, commitments, chains) is set aside. No response carries
the salt of a secret outside its reader's audience. Later calls on either piece rest on the
swap's commitments, the audit verifies them, and `gambit verify` passes the finished match.
"""

from __future__ import annotations

import json

from domain.rulesets.gambit_board.flow import seat_of
from service.verify_cli import EXIT_VERIFIED
from tests.support.api import auth, create_match, join_all
from tests.support.leaks import endpoint_bodies, hidden_from, read_stream
from tests.support.verify_process import verify_in_a_fresh_process

PP = {"player_powers": True}
# As in tests/rules/test_gambit_board_witch_doctor.py: S3 holds moat alone; N2 claims diagonal.
SOUTH = {"S1": ["diagonal", "sitting"], "S2": ["bulldozer"], "S3": ["moat"]}
HELD = {"N1": ["ghost", "kamikaze"], "N2": ["diagonal", "detective"]}
BLUFFED = {"N1": ["ghost", "kamikaze"], "N2": ["sidewinder", "detective"]}
OTHER_POWERS_BEHIND = {"N1": ["ghost", "detective"], "N2": ["bulldozer", "kamikaze"]}
TO_THE_FAR_ROW = ("S1>a3", "N2>b4", "S1>a5", "N1>b6", "S1>a6")
# What differs between any two matches whatever their secrets: ids, times, tokens, randomness.
PER_MATCH = {"match_id", "commitment", "salt", "chain", "timestamp", "created_at", "server_seed_commitment",
             "updated_at", "receipt", "signature", "etag", "as_of_time", "deadline", "last_event_at", "exported_at", "head", "request_id"}


def _post(client, mid: str, token: str, body: dict) -> list[dict]:
    """Post a command the rules accept; the records its events wrote (after the record of the command itself)."""
    response = client.post(f"/matches/{mid}/commands", json=body, headers=auth(token))
    assert response.status_code == 201, (body, response.get_json())
    command, *events = response.get_json()["events"]
    assert command["kind"] == "CommandReceived" and command["public"]["type"] == body["type"], command
    return events


def _settle(client, mid: str, tokens: dict) -> None:
    """Accept every open window and name every earned Player Power (a Witch Doctor)."""
    while True:
        step = client.get(f"/matches/{mid}/view").get_json()["state"]["step"]
        if step["kind"] in ("respond", "counter"):
            _post(client, mid, tokens[step["seat"]], {"type": "accept"})
        elif step["kind"] == "earn":
            _post(client, mid, tokens[step["seat"]], {"type": "choose_player_power", "power": "witch_doctor"})
        else:
            return


def _move(client, mid: str, tokens: dict, move: str, claims: tuple = ()) -> list[dict]:
    """Settle what is open, then make the move (`"S3>d4"`) with these claims."""
    _settle(client, mid, tokens)
    piece, to = move.split(">")
    return _post(client, mid, tokens[seat_of(piece)], {"type": "move", "piece": piece, "to": to,
                                                         "claims": list(claims)})


def _swapped(client, north: dict) -> tuple[str, dict, list[dict]]:
    """A match in which S3 (moat alone) answers N2's move to c5 claiming diagonal with a Witch Doctor."""
    match = create_match(client, "gambit-board", PP)
    tokens = join_all(client, match)
    mid = match["match_id"]
    _post(client, mid, tokens["south"], {"type": "assign", "powers": SOUTH})
    _post(client, mid, tokens["north"], {"type": "assign", "powers": north})
    for move in TO_THE_FAR_ROW:
        _move(client, mid, tokens, move)
    _move(client, mid, tokens, "N2>c5", ("diagonal",))
    return mid, tokens, _post(client, mid, tokens["south"], {"type": "use_witch_doctor", "piece": "S3"})


def _stream(client, mid: str, headers: dict) -> str:
    """The live event stream read up to the match's current version."""
    version = client.get(f"/matches/{mid}").get_json()["version"]
    response = read_stream(client, mid, headers, version)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def _readable(client, mid: str, token: str | None) -> dict[str, str]:
    """Every response this reader may get of the match, as text (the stream included)."""
    version = client.get(f"/matches/{mid}").get_json()["version"]
    bodies = endpoint_bodies(client, mid, token, version)
    bodies["stream"] = _stream(client, mid, auth(token) if token else {})
    bodies.pop("list")  # every match on the store: the other plays of this test among them
    return bodies


def _documents(text: str) -> list:
    """The JSON documents of a response body: the body itself, each NDJSON line or each SSE frame's data."""
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        lines = [line.removeprefix("data: ") for line in text.splitlines()]
        return [json.loads(line) for line in lines if line.startswith(("{", "["))]


def _without_per_match(value, mid: str):
    """A JSON value without what differs between any two matches (ids, times, salts, commitments)."""
    if isinstance(value, dict):
        return {k: _without_per_match(v, mid) for k, v in value.items() if k not in PER_MATCH}
    if isinstance(value, list):
        return [_without_per_match(v, mid) for v in value]
    return value.replace(mid, "<match>") if isinstance(value, str) else value


def _as_read_by(client, mid: str, token: str | None) -> dict:
    """Every response this reader may get, as JSON without what differs between any two matches."""
    return {name: _without_per_match(_documents(text), mid) for name, text in _readable(client, mid, token).items()}


def test_the_responder_and_a_spectator_read_the_same_whether_the_claim_was_true_and_whatever_else_n2_holds(client):
    plays = [_swapped(client, north) for north in (HELD, BLUFFED, OTHER_POWERS_BEHIND)]
    for reader in ("south", None):
        read = [_as_read_by(client, mid, tokens[reader] if reader else None) for mid, tokens, _ in plays]
        for name in read[0]:
            assert read[0][name] == read[1][name] == read[2][name], (reader, name)


def test_no_reader_gets_a_secret_outside_its_audience_and_each_seat_gets_its_own_pieces_new_powers(client, app):
    matches = app.extensions["gambit"].matches
    mid, tokens, written = _swapped(client, BLUFFED)
    swap, *slots = written
    assert swap["kind"] == "WitchDoctorSwapped" and [e["kind"] for e in slots] == ["PowerCommitted"] * 4
    for reader in ("south", "north", None):
        token = tokens[reader] if reader else None
        bodies = _readable(client, mid, token)
        for version, salt in hidden_from(matches, mid, reader):
            assert not [name for name, text in bodies.items() if salt in text], (reader, version)
        events = client.get(f"/matches/{mid}/events?after=0&limit=500", headers=auth(token) if token else {})
        records = {r["version"]: r for r in events.get_json()["events"]}
        seen_swap = records[swap["version"]]
        assert seen_swap["public"] == {"seat": "south", "piece": "S3", "mover": "N2", "received": ["diagonal"],
                                       "against_version": records[swap["version"] - 1]["public"]["decided_on"]}
        assert seen_swap.get("secret") == (None if reader is None else {"given": ["moat"]})
        mine = {(r["public"]["piece"], r["public"]["power_type"]): r["secret"]["power"]
                for r in (records[s["version"]] for s in slots) if "secret" in r}
        assert mine == {"south": {("S3", "movement"): "diagonal", ("S3", "action"): None},
                        "north": {("N2", "movement"): "sidewinder", ("N2", "action"): "moat"}, None: {}}[reader]
        pieces = client.get(f"/matches/{mid}/view", headers=auth(token) if token else {}).get_json()["state"]["pieces"]
        assert {p for p in ("S3", "N2") if "powers" in pieces[p]} == {"south": {"S3"}, "north": {"N2"}, None: set()}[reader]


def test_calls_on_both_swapped_pieces_rest_on_the_swap_and_the_finished_match_passes_gambit_verify(client, tmp_path):
    mid, tokens, (_, *slots) = _swapped(client, HELD)
    swap_slots = {(e["public"]["piece"], e["public"]["power_type"]): e["version"] for e in slots}
    _move(client, mid, tokens, "S3>d2", ("diagonal",))  # the diagonal S3 received, now real
    s3_call = _post(client, mid, tokens["north"], {"type": "call_bluff", "claim": "diagonal"})[0]
    _post(client, mid, tokens["north"], {"type": "choose_loss", "piece": "N6"})
    _post(client, mid, tokens["south"], {"type": "reassign", "power": "ghost", "piece": "S4"})
    _move(client, mid, tokens, "N5>e5")
    _move(client, mid, tokens, "S3>d4")  # next to N2 on c5, which holds the moat S3 gave
    _post(client, mid, tokens["north"], {"type": "claim_moat", "piece": "N2"})
    n2_call = _post(client, mid, tokens["south"], {"type": "call_bluff", "claim": "moat"})[0]
    for ruled, slot in ((s3_call, ("S3", "movement")), (n2_call, ("N2", "action"))):
        call = ruled["public"]["bluff_call"]
        assert call["verdict"] == "true" and call["evidence_version"] == swap_slots[slot]
    # A true claim opens its evidence to everyone: every reader's audit verifies both rulings.
    for reader in ("south", "north", None):
        headers = auth(tokens[reader]) if reader else {}
        audit = client.get(f"/matches/{mid}/audit/bluffs", headers=headers).get_json()["calls"]
        assert [(c["ruling_version"], c["verified"]) for c in audit] == [(s3_call["version"], True),
                                                                        (n2_call["version"], True)], reader
    _post(client, mid, tokens["north"], {"type": "resign"})
    path = tmp_path / "witch-doctor.ndjson"
    path.write_text(client.get(f"/matches/{mid}/export").get_data(as_text=True))
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    ran = verify_in_a_fresh_process(path, key)
    assert ran["code"] == EXIT_VERIFIED, ran["report"]
