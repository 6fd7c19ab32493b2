"""A secret reaches only its audience, on every endpoint, for every ruleset; everything after the end."""

from __future__ import annotations

import random

import pytest

from domain import rulesets
from domain.choices import random_legal_command
from domain.rulesets.gambit_tcg.cards import DECKS
from tests.hardening.play import pick
from tests.support.api import auth, create_match, going_on, join_all, legal_options
from tests.support.independent_verifier import verify_export
from tests.support.leaks import endpoint_bodies, hidden_from, read_stream

# Every registered game is played; CONFIGS names only the games not played with their defaults.
CONFIGS = {
    "gambitz": {"players": 3},
    "dragons-gambit": {"players": 3, "target_score": 25},
    "gattai-conflict": {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}},
}
PLAYABLE = rulesets.available()
CHECK_EVERY = 7
MAX_STEPS = 400


def _assert_nothing_hidden_leaks(client, matches, match_id: str, tokens: dict) -> int:
    """Fetch every endpoint as each seat and as a spectator; returns how many responses were checked."""
    match = matches.match(match_id)
    checked = 0
    for seat, token in [(None, None), *tokens.items()]:
        hidden = hidden_from(matches, match_id, seat)
        for name, text in endpoint_bodies(client, match_id, token, match.version).items():
            checked += 1
            assert match.server_seed not in text, f"server seed leaked to {seat or 'spectator'} via {name}"
            for version, salt in hidden:
                assert salt not in text, f"record {version}'s secret leaked to {seat or 'spectator'} via {name}"
    return checked


@pytest.mark.parametrize("ruleset", PLAYABLE)
def test_no_endpoint_shows_a_viewer_a_secret_outside_its_audience_while_the_match_runs(client, app, ruleset):
    matches = app.extensions["gambit"].matches
    rng = random.Random(11)
    match = create_match(client, ruleset, CONFIGS.get(ruleset, {}))
    tokens = join_all(client, match)
    mid = match["match_id"]
    checked = 0
    for step in range(MAX_STEPS):
        current = matches.match(mid)
        if current.status != "active":
            break
        if step % CHECK_EVERY == 0:
            checked += _assert_nothing_hidden_leaks(client, matches, mid, tokens)
        seat = rng.choice(current.to_act())
        body = rng.choice(going_on(legal_options(client, mid, tokens[seat], rng)))
        response = client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat]))
        assert response.status_code == 201
        # The command's own response is in the actor's form: nothing outside the actor's audience.
        if matches.match(mid).status == "active":
            text = response.get_data(as_text=True)
            for version, salt in hidden_from(matches, mid, seat):
                assert salt not in text, f"record {version} leaked to {seat} in its command response"
    assert checked > 0


@pytest.mark.parametrize("ruleset", PLAYABLE)
def test_everything_is_public_once_the_match_has_finished(client, app, ruleset):
    matches = app.extensions["gambit"].matches
    rng = random.Random(5)
    match = create_match(client, ruleset, CONFIGS.get(ruleset, {}))
    tokens = join_all(client, match)
    mid = match["match_id"]
    for _ in range(20_000):
        current = matches.match(mid)
        if current.status != "active":
            break
        seat = rng.choice(current.to_act())
        matches.act(mid, seat, random_legal_command(current.ruleset, current.state, seat, rng))
    else:
        resign = client.post(f"/matches/{mid}/commands", json={"type": "resign"}, headers=auth(tokens[seat]))
        assert resign.status_code == 201
    assert matches.match(mid).status == "finished"
    export = client.get(f"/matches/{mid}/export").get_data(as_text=True)
    for record in matches.records(mid):
        if record.secret is not None:
            assert record.salt in export
    verify_export(export)


def _gambitz_cards_unknown_to(matches, match_id: str, seat: str | None) -> set[str]:
    """Card ids in other seats' hands and in the deck that this viewer has never legitimately seen."""
    match = matches.match(match_id)
    state = match.state
    hands = state["hands"]
    secret_cards = {c for s, cards in hands.items() if s != seat for c in cards} | set(state["deck"])
    known = set()
    for record in matches.records(match_id):
        parts = [record.public] + ([record.secret] if record.secret is not None and seat in (record.audience or []) else [])
        text = repr(parts)
        known |= {c for c in secret_cards if f"'{c}'" in text}
    return secret_cards - known


@pytest.mark.skipif("gambitz" not in PLAYABLE, reason="gambitz ruleset not present")
def test_no_gambitz_viewer_ever_receives_a_card_in_another_hand_or_the_deck(client, app):
    matches = app.extensions["gambit"].matches
    rng = random.Random(21)
    match = create_match(client, "gambitz", {"players": 3})
    tokens = join_all(client, match)
    mid = match["match_id"]
    for step in range(300):
        current = matches.match(mid)
        if current.status != "active":
            break
        if step % 9 == 0:
            for seat, token in [(None, None), *tokens.items()]:
                unknown = _gambitz_cards_unknown_to(matches, mid, seat)
                for name, text in endpoint_bodies(client, mid, token, current.version).items():
                    leaked = {c for c in unknown if f'"{c}"' in text}
                    assert not leaked, f"{seat or 'spectator'} saw {leaked} via {name}"
        seat = rng.choice(current.to_act())
        matches.act(mid, seat, pick(rng, current.ruleset.legal_commands(current.state, seat), enders_rate=0))


def test_a_seats_join_options_reach_only_that_seat_while_the_match_runs_and_everyone_after(client, app):
    # A deck list is hidden information: the join records it as a secret for its seat (so the verifier
    # re-decides the setup), which no other seat and no spectator sees before the match's secrets open.
    matches = app.extensions["gambit"].matches
    rng = random.Random(17)
    match = create_match(client, "gambit-tcg", {"turn_limit": 24})
    mid = match["match_id"]
    deck = list(DECKS["dusk"][:15] + DECKS["dawn"][:15])
    tokens = join_all(client, match, options={"p1": {"deck_list": deck}, "p2": {"deck": "dusk"}})
    joins = {r.public["seat"]: r for r in matches.records(mid) if r.kind == "SeatJoined"}
    assert joins["p1"].secret == {"options": {"deck_list": deck}} and list(joins["p1"].audience) == ["p1"]
    for step in range(60):
        current = matches.match(mid)
        if current.status != "active":
            break
        if step % 12 == 0:
            for seat, token in [(None, None), *tokens.items()]:
                bodies = endpoint_bodies(client, mid, token, current.version)
                headers = auth(token) if token else {}
                bodies["stream"] = read_stream(client, mid, headers, current.version).get_data(as_text=True)
                for name, text in bodies.items():
                    for owner in joins.keys() - {seat}:
                        assert joins[owner].salt not in text, f"{owner}'s join options reached {seat or 'spectator'} via {name}"
                if seat is not None:
                    assert joins[seat].salt in bodies["export"], "a seat sees its own join options"
        seat = rng.choice(current.to_act())
        matches.act(mid, seat, pick(rng, current.ruleset.legal_commands(current.state, seat), enders_rate=0))
    running = matches.match(mid)
    if running.status == "active":
        giver = running.ruleset.resigners(running.state)[0]  # gambit-tcg: only the seat the match waits for
        resigned = client.post(f"/matches/{mid}/commands", json={"type": "resign"}, headers=auth(tokens[giver]))
        assert resigned.status_code == 201, resigned.get_json()
    export = client.get(f"/matches/{mid}/export").get_data(as_text=True)
    assert joins["p1"].salt in export and joins["p2"].salt in export, "every secret opens when the match finishes"
