"""The clock keeper runs in a serving worker: it tells which matches of a batch of records are timed with one query
for the batch, not one per match (under load each round trip waits behind the worker's requests), and still notes
the deadline of every timed match among many untimed ones."""

from __future__ import annotations

from projections.clocks import ClockKeeper
from tests.support.api import create_match, join_all
from tests.support.clocks import fischer, timed_match


def test_the_keeper_asks_about_a_batchs_matches_at_once_and_notes_every_timed_deadline(app, client):
    untimed = [create_match(client, "gambitz", {"players": 2}) for _ in range(5)]
    for match in untimed:
        join_all(client, match)
    timed = [timed_match(client, "gambitz", fischer(60), config={"players": 2})[0] for _ in range(2)]
    gambit = app.extensions["gambit"]
    keeper = ClockKeeper(gambit.matches.clocks, gambit.index.store)
    asked: list[str] = []
    query = keeper.store.query

    def counted(statement, params=()):
        if "FROM gambit_clock_deadlines WHERE match_id" in statement:
            asked.append(statement)
        return query(statement, params)

    keeper.store.query = counted
    keeper.catch_up()
    assert len(asked) == 1, "one question for the whole batch"
    rows = dict(keeper.store.query("SELECT match_id, deadline FROM gambit_clock_deadlines"))
    assert set(rows) == set(timed)
    assert all(rows[match_id] is not None for match_id in timed), "each timed match's running deadline is noted"
