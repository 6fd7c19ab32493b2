"""The conformance kit: one suite every ruleset in the registry must pass.

A game added to `domain.rulesets` is played here with its default config and no code of its
own: it must implement the whole contract, play to the end over HTTP with bluff calls,
disputes and rulings, replay to the same state, keep `legal_commands` and `decide` in step,
and leave a record that `gambit verify --key` confirms on both stores — in the organizer's
export and in the spectator's once the match has finished, and `gambit verify --key` run as a
user runs it (a fresh process) passes too, importing that game alone. Game-specific invariants live
beside each game's own tests; the leak hunt (tests/hardening/test_leak_hunt.py) and the
mutation property (tests/store/test_verify_mutations.py) run over the registry too.
"""

from __future__ import annotations

import io
import json
import random
import re

import pytest

from domain import rulesets
from domain.ruleset import Ruleset
from service.verify_cli import EXIT_VERIFIED, run_verify
from tests.hardening.play import ENDERS, join_options
from tests.support.api import auth, legal_options
from tests.support.harness import random_playout
from tests.support.verify_process import games_imported, verify_in_a_fresh_process

RULESET_IDS = rulesets.available()
# Commands that raise a bluff call, a Final Gambit or a reveal: random play prefers them, so
# rulings (and so disputes) happen in every game that has them.
CALLS = re.compile(r"call|challenge|bluff|gambit|reveal|declare|threshold")


def _contract_members() -> list[str]:
    """Every name the Ruleset protocol requires."""
    names = set(getattr(Ruleset, "__annotations__", {}))
    names |= {name for name in vars(Ruleset) if not name.startswith("_") and callable(getattr(Ruleset, name))}
    return sorted(names)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_ruleset_implements_the_whole_contract(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    missing = [name for name in _contract_members() if not hasattr(ruleset, name)]
    assert not missing, f"{ruleset_id} lacks {missing}"
    assert ruleset.RULESET_ID == ruleset_id


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_replaying_the_recorded_events_rebuilds_the_same_state(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    for seed in range(3):
        game = random_playout(ruleset, None, random.Random(f"{ruleset_id}/{seed}"),
                              seat_options=_domain_options(ruleset_id, seed))
        assert game.replayed_state() == game.state


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_listed_command_is_accepted_and_deciding_changes_nothing(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    rng = random.Random(f"listed/{ruleset_id}")
    checked = 0

    def check(game) -> None:
        nonlocal checked
        if ruleset.outcome(game.state) is not None:
            return
        before = json.dumps(game.state, sort_keys=True)
        for seat in game.seats:
            listed = ruleset.legal_commands(game.state, seat)
            for command in rng.sample(listed, min(len(listed), 3)):
                ruleset.decide(game.state, seat, command, game.chance())  # raises if a listed command is refused
                checked += 1
        assert json.dumps(game.state, sort_keys=True) == before, "deciding changed the state"

    random_playout(ruleset, None, rng, check=check, seat_options=_domain_options(ruleset_id, 0))
    assert checked > 0


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_readjudicating_a_ruling_gives_its_verdict_and_leaves_the_state_untouched(ruleset_id):
    # The verifier re-adjudicates on the replayed state itself, with no copy per ruling, so a
    # verify costs one pass over the match however many calls it holds.
    ruleset = rulesets.get(ruleset_id)
    rulings = 0
    for seed in range(4):
        game = random_playout(ruleset, None, random.Random(f"rulings/{ruleset_id}/{seed}"),
                              seat_options=_domain_options(ruleset_id, seed))
        state = ruleset.initial_state(game.config, list(game.seats))
        for event in game.events:
            call = event.public.get("bluff_call")
            if call is not None:
                before = json.dumps(state, sort_keys=True)
                verdict = ruleset.readjudicate(state, event)
                assert json.dumps(state, sort_keys=True) == before, f"readjudicating {event.kind} changed the state"
                assert {k: call.get(k) for k in verdict} == json.loads(json.dumps(verdict))
                rulings += 1
            state = ruleset.evolve(state, event)
    if ruleset_id != "gambitz":  # gambitz records no rulings
        assert rulings > 0, "no ruling in four playouts"


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_to_act_names_who_the_match_waits_for_and_may_act_who_may_act_at_will(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    positions = 0

    def check(game) -> None:
        nonlocal positions
        waiting, optional = ruleset.to_act(game.state), ruleset.may_act(game.state)
        if ruleset.outcome(game.state) is not None:
            assert (waiting, optional) == ([], []), "a finished game waits for nobody"
            return
        assert waiting, "a running game must wait for some seat"
        assert not set(waiting) & set(optional), f"{sorted(set(waiting) & set(optional))} both must and may act"
        for seat in game.seats:
            has_moves = bool(ruleset.legal_commands(game.state, seat) or ruleset.legal_choices(game.state, seat))
            assert (seat in waiting or seat in optional) == has_moves, (
                f"{seat}: to_act={waiting} may_act={optional} but has legal moves={has_moves}")
        positions += 1

    for seed in range(2):
        random_playout(ruleset, None, random.Random(f"actors/{ruleset_id}/{seed}"), check=check,
                       seat_options=_domain_options(ruleset_id, seed))
    assert positions > 0


def _domain_options(ruleset_id: str, seed: int) -> dict | None:
    ruleset = rulesets.get(ruleset_id)
    config = ruleset.Config()
    return join_options(ruleset_id, list(ruleset.seat_names(config)), random.Random(seed))


def _play_over_http(client, organizer: str, tournament_id: str, ruleset_id: str, rng: random.Random) -> dict:
    match = client.post("/matches", json={"ruleset": ruleset_id, "config": {}, "tournament_id": tournament_id},
                        headers=auth(organizer)).get_json()
    match_id = match["match_id"]
    seats = [s["seat"] for s in match["seats"]]
    options = join_options(ruleset_id, seats, rng) or {}
    tokens = {}
    for seat in seats:
        body = {"name": f"player-{seat}", "seat": seat, "client_seed": rng.randbytes(4).hex(),
                **({"options": options[seat]} if seat in options else {})}
        joined = client.post(f"/matches/{match_id}/seats", json=body)
        assert joined.status_code == 201, joined.get_json()
        assert joined.get_json()["receipt"]["version"] == joined.get_json()["version"]
        tokens[seat] = joined.get_json()["token"]
    disputed = False
    for _ in range(5000):
        summary = client.get(f"/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            break
        seat = rng.choice(sorted(summary["to_act"]))
        # Listed bodies, and one formed from each choice (families too large to list).
        listed = legal_options(client, match_id, tokens[seat], rng)
        assert listed, f"{seat} is to act but has nothing listed or offered"
        # Giving up is offered at nearly every move; the match is played to the game's own end.
        listed = [b for b in listed if b["type"] not in ENDERS] or listed
        calls = [b for b in listed if CALLS.search(b["type"])]
        body = rng.choice(calls if calls and rng.random() < 0.5 else listed)
        response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
        assert response.status_code == 201, (body, response.get_json())
        written = response.get_json()
        assert written["receipt"]["version"] == written["version"]
        if not disputed:
            disputed = _dispute_a_call(client, match_id, tokens[seat], written["events"])
    else:
        raise AssertionError(f"{ruleset_id}: no end after 5000 commands")
    return {"match_id": match_id, "tokens": tokens, "disputed": disputed}


def _dispute_a_call(client, match_id: str, token: str, events: list[dict]) -> bool:
    ruling = next((e for e in events if "bluff_call" in e["public"]), None)
    if ruling is None:
        return False
    filed = client.post(f"/matches/{match_id}/disputes", json={"call_version": ruling["version"],
                                                                "reason": "I saw it differently"},
                        headers=auth(token))
    assert filed.status_code == 201, filed.get_json()
    return True


def _verify(tmp_path, text: str, key: str, name: str) -> tuple[int, str]:
    path = tmp_path / f"{name}.ndjson"
    path.write_text(text)
    out = io.StringIO()
    code = run_verify(str(path), key, as_json=False, out=out, err=io.StringIO())
    return code, out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_match_played_over_http_with_calls_and_disputes_verifies_on_every_store(client, tmp_path, ruleset_id):
    tournament = client.post("/tournaments", json={"name": "Conformance Cup"}).get_json()
    organizer = tournament["organizer_key"]
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    rng = random.Random(f"conformance/{ruleset_id}")
    played = _play_over_http(client, organizer, tournament["tournament_id"], ruleset_id, rng)
    match_id = played["match_id"]
    disputes = client.get(f"/matches/{match_id}/disputes").get_json()["disputes"]
    for dispute in disputes:
        ruled = client.post(f"/matches/{match_id}/disputes/{dispute['dispute']}/ruling",
                            json={"decision": "upheld", "note": "the record stands"}, headers=auth(organizer))
        assert ruled.status_code == 201, ruled.get_json()
    summary = client.get(f"/matches/{match_id}").get_json()
    assert summary["status"] == "finished" and summary["receipt"]["version"] == summary["version"]
    for viewer, headers in (("organizer", auth(organizer)), ("spectator", {})):
        text = client.get(f"/matches/{match_id}/export", headers=headers).get_data(as_text=True)
        code, report = _verify(tmp_path, text, key, viewer)
        assert code == EXIT_VERIFIED, report
        assert report.startswith("VERIFIED")
    # `gambit verify` as a user runs it, in a fresh process: it passes, loading this game alone;
    # in two processes (the record checked in a forked one while the other replays) it says the same.
    ran = verify_in_a_fresh_process(tmp_path / "organizer.ndjson", key, jobs=1)
    assert ran["code"] == EXIT_VERIFIED
    package = rulesets.get(ruleset_id).__name__.split(".")[2]
    assert games_imported(ran) == {package}
    split = verify_in_a_fresh_process(tmp_path / "organizer.ndjson", key, jobs=2)
    assert (split["code"], split["report"]) == (ran["code"], ran["report"])
    audit = client.get(f"/matches/{match_id}/audit/bluffs").get_json()
    for entry in audit["calls"]:
        assert entry.get("verified") is True, entry
