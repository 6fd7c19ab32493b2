"""The log's sequencer runs in a serving worker (the leader's background work), so the work of one pass must not wait
on that worker's requests while it holds the log's lock: it tells a match's leaves sealed or open from the match's
creation when the batch holds it, loads a match only when its creation came before (and never inside the log's
transaction), and writes a batch's rows in a few multi-row statements, not a statement a row."""

from __future__ import annotations

from service.keeper import build_sequencer
from tests.support.api import create_match, join_all


def _sequencer_telling(app, asked: list[tuple[str, bool]]):
    """The service's sequencer, its `is_sealed` noting each match it is asked about and whether the log's
    transaction was open then."""
    gambit = app.extensions["gambit"]
    sequencer = build_sequencer(gambit)
    store = sequencer.log.store
    opened = []
    transaction = store.transaction

    def watched_transaction(*args, **kwargs):
        manager = transaction(*args, **kwargs)

        class Watched:
            def __enter__(self):
                opened.append(True)
                return manager.__enter__()

            def __exit__(self, *exc):
                opened.pop()
                return manager.__exit__(*exc)

        return Watched()

    store.transaction = watched_transaction
    telling = sequencer.is_sealed

    def is_sealed(match_id: str) -> bool:
        asked.append((match_id, bool(opened)))
        return telling(match_id)

    sequencer.is_sealed = is_sealed
    return sequencer


def _leaf_match_ids(app) -> list[str]:
    rows = app.extensions["gambit"].log.store.query("SELECT match_id FROM gambit_log_entries ORDER BY idx")
    return [row[0] for row in rows]


def _sealed(app, match_id: str) -> set[bool]:
    """Whether each of a match's leaves is sealed (carries a salt)."""
    rows = app.extensions["gambit"].log.store.query(
        "SELECT salt FROM gambit_log_entries WHERE match_id = ?", (match_id,)
    )
    return {row[0] is not None for row in rows}


def test_matches_created_in_the_batch_are_logged_without_loading_them(app, client):
    open_match = create_match(client, "gambitz", {"players": 2})
    join_all(client, open_match)
    delayed = create_match(client, "gambitz", {"players": 2, "spectator_delay": 3})
    join_all(client, delayed)
    asked: list[tuple[str, bool]] = []
    sequencer = _sequencer_telling(app, asked)
    assert sequencer.integrate() > 0
    assert asked == [], "both creations were in the batch: nothing to load"
    assert _sealed(app, open_match["match_id"]) == {False}
    assert _sealed(app, delayed["match_id"]) == {True}, "the delayed match's leaves are sealed, told from its creation"


def test_a_match_created_before_the_batch_is_loaded_once_and_outside_the_logs_transaction(app, client):
    delayed = create_match(client, "gambitz", {"players": 2, "spectator_delay": 3})
    build_sequencer(app.extensions["gambit"]).integrate()  # another process took the creation in
    tokens = join_all(client, delayed)
    assert tokens
    asked: list[tuple[str, bool]] = []
    sequencer = _sequencer_telling(app, asked)
    assert sequencer.integrate() > 0
    assert asked == [(delayed["match_id"], False)], "asked once, with the log's transaction closed"
    assert _sealed(app, delayed["match_id"]) == {True}, "and its later leaves are sealed too"


class CountingCursor:
    """A database cursor noting every statement it is sent (a statement per row for `executemany`)."""

    def __init__(self, inner, statements: list[str]) -> None:
        self.inner, self.statements = inner, statements

    def execute(self, statement, params=()):
        self.statements.append(statement)
        return self.inner.execute(statement, params)

    def executemany(self, statement, rows):
        rows = list(rows)
        self.statements.extend([statement] * len(rows))
        return self.inner.executemany(statement, rows)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_batch_of_leaves_is_written_in_few_statements(app, client):
    for _ in range(6):
        join_all(client, create_match(client, "gambitz", {"players": 2}))
    sequencer = build_sequencer(app.extensions["gambit"])
    store = sequencer.log.store
    statements: list[str] = []
    transaction = store.transaction

    def counted_transaction(*args, **kwargs):
        manager = transaction(*args, **kwargs)

        class Counted:
            def __enter__(self):
                cursor = manager.__enter__()
                cursor._cursor = CountingCursor(cursor._cursor, statements)
                return cursor

            def __exit__(self, *exc):
                return manager.__exit__(*exc)

        return Counted()

    store.transaction = counted_transaction
    added = sequencer.integrate()
    assert added >= 18
    inserts = [s for s in statements if s.startswith("INSERT INTO gambit_log_entries")]
    assert len(inserts) == 1, "one statement for every leaf of the batch"
    assert len(_leaf_match_ids(app)) == added
