"""Standings: a row per entrant (or per seat of no entrant), points with shared wins split, the Buchholz tie-break,
amended outcomes counted and marked; the same table as CSV, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
import random

import pytest

from tests.support.api import auth, play_to_end
from tests.support.entrants import NORTH, SOUTH, join, new_desk, play_entrants, resign

DRAGONS = {"players": 3, "target_score": 30}


@pytest.fixture
def desk(client):
    """A tournament as its organizer holds it."""
    return new_desk(client)


def _table(desk) -> list[tuple]:
    return [(row["rank"], row["name"], row["points"], row["buchholz"]) for row in desk.standings()]


def _finished_dragons_match(client, desk, entrants: list[dict]) -> tuple[str, int]:
    """A 3-seat dragons-gambit match of these entrants played to its end; returns its id and a bluff call's version."""
    match = desk.match({f"p{n}": e["entrant_id"] for n, e in enumerate(entrants, start=1)}, "dragons-gambit", DRAGONS)
    tokens = {f"p{n}": join(client, match["match_id"], invite=e["invite"])["token"] for n, e in enumerate(entrants, 1)}
    play_to_end(client, match["match_id"], tokens, random.Random(3))
    calls = client.get(f"/matches/{match['match_id']}/audit/bluffs").get_json()["calls"]
    client.post(f"/matches/{match['match_id']}/disputes", json={"call_version": calls[0]["call_version"], "reason": "x"},
                headers=auth(tokens["p2"]))
    return match["match_id"], calls[0]["call_version"]


def _amend(client, desk, match_id: str, winners: list[str]) -> None:
    ruled = client.post(f"/matches/{match_id}/disputes/1/ruling", headers=desk.organizer,
                        json={"decision": "overturned", "note": "recount", "amended_outcome": {"winners": winners}})
    assert ruled.status_code == 201, ruled.get_json()


def test_every_registered_entrant_has_a_row_even_before_playing(desk):
    desk.register("Ann")
    assert desk.standings() == [
        {"rank": 1, "entrant_id": "e1", "name": "Ann", "played": 0, "wins": 0, "shared_wins": 0, "losses": 0,
         "amended": 0, "points": 0, "buchholz": 0}
    ]


def test_two_entrants_sharing_a_display_name_stay_two_rows(client, desk):
    first, second = desk.register("Sam"), desk.register("Sam")
    play_entrants(desk, first, second)
    rows = desk.standings()
    assert [(r["entrant_id"], r["name"], r["points"]) for r in rows] == [("e1", "Sam", 1), ("e2", "Sam", 0)]


def test_seats_of_no_entrant_are_each_their_own_row_whatever_their_names(client, desk):
    for _ in range(2):
        match = desk.match()
        join(client, match["match_id"], name="guest", seat=SOUTH)
        lost = join(client, match["match_id"], name="guest", seat=NORTH)
        resign(client, match["match_id"], lost["token"])
    rows = desk.standings()
    assert len(rows) == 4 and {r["name"] for r in rows} == {"guest"}
    assert all(r["entrant_id"] is None and r["played"] == 1 and r["match_id"] and r["seat"] for r in rows)
    assert sorted((r["seat"], r["points"]) for r in rows) == [(NORTH, 0), (NORTH, 0), (SOUTH, 1), (SOUTH, 1)]


def test_an_entrant_joining_an_unpaired_seat_counts_in_its_own_row(client, desk):
    ann = desk.register("Ann")
    match = desk.match()
    join(client, match["match_id"], invite=ann["invite"], seat=SOUTH, name="A.")
    lost = join(client, match["match_id"], name="walk-in")
    resign(client, match["match_id"], lost["token"])
    rows = {r["name"]: r for r in desk.standings()}
    assert rows["Ann"]["entrant_id"] == "e1" and rows["Ann"]["wins"] == 1, "the row keeps the registered name"
    assert rows["walk-in"]["entrant_id"] is None and rows["walk-in"]["losses"] == 1


def test_the_buchholz_score_breaks_a_tie_on_points_before_any_name(client, desk):
    zed, yan, aaron, dee, eve = (desk.register(n) for n in ("Zed", "Yan", "Aaron", "Dee", "Eve"))
    play_entrants(desk, zed, yan)  # Zed 1
    play_entrants(desk, aaron, dee)  # Aaron 1
    play_entrants(desk, yan, eve)  # Yan 1
    # Zed met Yan (1), Yan met Zed and Eve (1 + 0), Aaron met Dee (0); Dee met Aaron (1), Eve met Yan (1).
    assert _table(desk) == [(1, "Yan", 1, 1), (1, "Zed", 1, 1), (3, "Aaron", 1, 0), (4, "Dee", 0, 1), (4, "Eve", 0, 1)]


def test_a_win_shared_by_k_winners_is_worth_1_over_k_to_each(client, desk):
    entrants = [desk.register(n) for n in ("Ann", "Bob", "Cid")]
    match_id, _ = _finished_dragons_match(client, desk, entrants)
    _amend(client, desk, match_id, ["p1", "p2", "p3"])
    rows = desk.standings()
    assert {r["points"] for r in rows} == {0.3333} and {r["buchholz"] for r in rows} == {0.6667}
    assert all((r["rank"], r["wins"], r["shared_wins"], r["losses"]) == (1, 1, 1, 0) for r in rows)


def test_an_amended_outcome_changes_the_standings_and_is_marked(client, desk):
    entrants = [desk.register(n) for n in ("Ann", "Bob", "Cid")]
    match_id, _ = _finished_dragons_match(client, desk, entrants)
    before = {r["entrant_id"]: r for r in desk.standings()}
    assert all(r["amended"] == 0 for r in before.values())
    _amend(client, desk, match_id, ["p2", "p3"])
    after = {r["entrant_id"]: r for r in desk.standings()}
    assert [(e, after[e]["points"], after[e]["shared_wins"], after[e]["losses"]) for e in ("e1", "e2", "e3")] == [
        ("e1", 0, 0, 1), ("e2", 0.5, 1, 0), ("e3", 0.5, 1, 0)]
    assert all(r["amended"] == 1 and r["played"] == 1 for r in after.values())
    assert [r["entrant_id"] for r in desk.standings()][:2] == ["e2", "e3"]


def test_an_amendment_naming_no_winner_leaves_everyone_without_points_or_losses(client, desk):
    entrants = [desk.register(n) for n in ("Ann", "Bob", "Cid")]
    match_id, _ = _finished_dragons_match(client, desk, entrants)
    _amend(client, desk, match_id, [])
    assert {(r["points"], r["wins"], r["losses"], r["amended"]) for r in desk.standings()} == {(0, 0, 0, 1)}


# ----- the CSV --------------------------------------------------------------------------------------


def test_the_standings_csv_has_its_header_and_one_row_per_standings_row(client, desk):
    ann, bob = desk.register("Ann"), desk.register("Bob, Jr.")
    play_entrants(desk, bob, ann)
    response = client.get(f"/tournaments/{desk.tournament_id}/standings.csv")
    assert response.status_code == 200 and response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="standings-{desk.tournament_id}.csv"'
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows == [
        ["rank", "entrant_id", "name", "points", "played", "wins", "shared_wins", "losses", "buchholz", "amended"],
        ["1", "e2", "Bob, Jr.", "1", "1", "1", "0", "0", "0", "0"],
        ["2", "e1", "Ann", "0", "1", "0", "0", "1", "1", "0"],
    ]


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://evil\")", "+1+1", "-2+3", "@SUM(A1)", "\tTab"])
def test_a_standings_cell_a_spreadsheet_would_run_as_a_formula_is_escaped(client, desk, name):
    desk.register(name)
    text = client.get(f"/tournaments/{desk.tournament_id}/standings.csv").get_data(as_text=True)
    row = list(csv.reader(io.StringIO(text)))[1]
    assert row[2] == "'" + name


def test_the_standings_csv_of_an_unknown_tournament_is_404(client):
    response = client.get("/tournaments/00000000-0000-0000-0000-000000000000/standings.csv")
    assert response.status_code == 404 and response.get_json()["code"] == "tournament_not_found"
