"""Background duties that share a serving worker (the log's sequencer, the clock keeper) fold a batch of records in
turns: every item comes through in order, and the worker's other work gets a turn between every few records."""

from __future__ import annotations

from projections import turns


def test_a_batch_is_folded_in_order_giving_way_every_few_records(monkeypatch):
    given: list[int] = []
    seen: list[int] = []
    monkeypatch.setattr(turns, "give_way", lambda: given.append(len(seen)))
    for item in turns.in_turns(range(20), turn=8):
        seen.append(item)  # noqa: PERF402 - the turn given reads how many came through
    assert seen == list(range(20))
    assert given == [8, 16], "a turn after the 8th and the 16th record"


def test_the_sequencer_and_the_clock_keeper_give_way_while_they_decode(app, client, monkeypatch):
    from service.keeper import build_sequencer
    from tests.support.api import create_match, join_all

    for _ in range(3):
        join_all(client, create_match(client, "gambitz", {"players": 2}))
    given: list[float] = []
    monkeypatch.setattr(turns, "give_way", lambda: given.append(0))
    build_sequencer(app.extensions["gambit"]).integrate()
    assert given and set(given) == {0}, "the sequencer gave way"
    given.clear()
    from projections.clocks import ClockKeeper

    gambit = app.extensions["gambit"]
    ClockKeeper(gambit.matches.clocks, gambit.index.store).catch_up()
    assert given and set(given) == {0}, "so did the clock keeper"
