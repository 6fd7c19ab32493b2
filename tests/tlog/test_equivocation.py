"""The equivocation suite: a server, two witnesses, two seats and a monitor, across many random seeds and both stores.

A dishonest server (an attacker holding its database and its signing key, tests/tlog/dishonest.py) forks a match:
the seat to act has sent one command (fork A, which seat A keeps), and the attacker takes it back and has the
service take another in its place (fork B, which seat B is shown). Then the server

1. logs both forks: the monitor reports the match and the version with two heads;
2. logs only seat B's fork: seat A's receipt is never included, so its check is PENDING within the merge delay and
   FAILED after it, naming the version;
3. keeps a second tree under the one log name: both witnesses refuse it as inconsistent, the quorum is not met and
   the log goes on serving the tree they cosigned;
4. rewrites its log after it was cosigned, and serves the rewritten tree: the consistency check against the
   checkpoint each seat kept fails for both seats, and the monitor says the log forked.

An honest run of the same world raises nothing: every seat's check is VERIFIED, the monitor stays quiet and no
witness refuses anything. Each seed fixes the game, the matches (their server seeds), the moves and the attack.
"""

from __future__ import annotations

import random
import time

import pytest

import domain.application
import domain.partitions
import domain.store
from domain.rulesets import available
from service.verify_cli import EXIT_FAILED, EXIT_PENDING, EXIT_VERIFIED
from tests.tlog.dishonest import MERGE_DELAY, Fork, Match, Seat, SeededSecrets, Server

# Twelve seeds on each store: every game forked at least twice (the seed picks it in turn), ~1 s a run.
SEEDS = range(12)
RULESETS = sorted(available())


@pytest.fixture(params=SEEDS, ids=lambda seed: f"seed{seed}")
def seed(request) -> int:
    """One seed of the suite."""
    return request.param


@pytest.fixture
def rng(seed, monkeypatch) -> random.Random:
    """The seed's generator; the service's matches (ids, server seeds, tokens) are drawn from it too."""
    secrets = SeededSecrets(random.Random(f"service-{seed}"))
    monkeypatch.setattr(domain.application, "secrets", secrets)
    monkeypatch.setattr(domain.store, "uuid4", secrets.uuid4)  # match ids: one store, or partitioned
    monkeypatch.setattr(domain.partitions, "uuid4", secrets.uuid4)
    return random.Random(seed)


@pytest.fixture
def server(database_url, tmp_path):
    """The service on a fresh store with its two witnesses."""
    world = Server(database_url, tmp_path)
    yield world
    world.close()


class World:
    """A match of the seed's game (and another beside it, writing too), two of its seats and a monitor's state."""

    def __init__(self, server: Server, rng: random.Random, ruleset: str, tmp_path) -> None:
        self.server, self.rng = server, rng
        self.match = Match.start(server, rng, ruleset)
        self.other = Match.start(server, rng, rng.choice(RULESETS))
        self.match.play(rng.randint(0, 6))
        self.other.play(rng.randint(0, 3))
        assert server.sequence(), "both witnesses cosign an honest log"
        self.seats = [Seat(name, token, tmp_path) for name, token in list(self.match.tokens.items())[:2]]
        for seat in self.seats:
            seat.keep_checkpoint(server)
        self.monitor_state = tmp_path / "monitor.json"
        code, out = server.run_monitor(self.monitor_state)
        assert code == 0, out

    @property
    def match_id(self) -> str:
        """The forked match."""
        return self.match.match_id

    def fork(self) -> tuple[Fork, tuple[int, int]]:
        """The fork point, everything before it in a cosigned checkpoint; (fork, the log's state there)."""
        fork = self.match.find_fork()
        assert self.server.sequence()
        return fork, self.server.log.state()

    def write_a(self, fork: Fork) -> None:
        """Fork A: the seat to act sends its first command, and seat A keeps the receipt."""
        assert self.match.send(fork.seat, fork.first)["version"] == fork.version
        self.seats[0].keep(self.server, self.match_id, fork.version)

    def cosigned_fork_a(self) -> tuple[Fork, tuple[int, int]]:
        """Fork A written, logged and cosigned, and the cosigned checkpoint kept by both seats; (fork, the log's
        state before fork A)."""
        fork, before = self.fork()
        self.write_a(fork)
        assert self.server.sequence()
        for seat in self.seats:
            seat.keep_checkpoint(self.server)
        return fork, before

    def write_b(self, fork: Fork) -> dict:
        """Fork B: the attacker takes fork A back and has the service take the second command in its place."""
        self.server.rewind_match(self.match_id, fork.base)
        receipt = self.match.send(fork.seat, fork.second)
        assert receipt["version"] == fork.version
        assert receipt["head"] != self.seats[0].receipts[fork.version]["head"], "two heads for one version"
        return receipt

    def more_writes(self) -> None:
        """Writes of the other match, a random few."""
        self.other.play(self.rng.randint(0, 2))


@pytest.fixture
def world(server, seed, rng, tmp_path) -> World:
    """The world of one seed on one store."""
    return World(server, rng, RULESETS[seed % len(RULESETS)], tmp_path)


def test_an_honest_run_raises_nothing(world):
    server, rng, match = world.server, world.rng, world.match
    for _ in range(rng.randint(3, 8)):
        found = match.choices()
        if found is None or not found[1]:
            break
        seat, bodies = found
        receipt = match.send(seat, rng.choice(bodies))
        for kept in world.seats:
            if kept.name == seat:
                kept.keep(server, world.match_id, receipt["version"])
        world.more_writes()
        if rng.random() < 0.5:
            assert server.sequence()
            for kept in world.seats:
                kept.prove(server, world.match_id)
                kept.keep_checkpoint(server)
            assert server.run_monitor(world.monitor_state)[0] == 0
    assert server.sequence()
    for seat in world.seats:
        seat.prove(server, world.match_id)
        seat.take_export(server, world.match_id)
        code, checks = seat.verify(server, now=time.time())
        assert code == EXIT_VERIFIED, checks
        assert checks["log"]["status"] == checks["witnessed"]["status"] == checks["kept checkpoint"]["status"] == "pass"
        if seat.receipts:
            assert checks["kept receipts in the log"]["status"] == "pass"
    code, out = server.run_monitor(world.monitor_state)
    assert code == 0 and out.startswith("ok "), out
    for witness in server.witnesses:
        assert witness.refused_other_than_size() == [], witness.refusals


def test_a_server_that_logs_both_forks_is_reported_by_the_monitor(world):
    server, rng = world.server, world.rng
    fork, before = world.fork()
    world.write_a(fork)
    assert server.sequence(), "fork A is logged and cosigned"
    seat_a, seat_b = world.seats
    seat_a.keep_checkpoint(server)
    seat_a.take_export(server, world.match_id)
    if rng.random() < 0.5:
        assert server.run_monitor(world.monitor_state)[0] == 0, "one head so far"
    receipt = world.write_b(fork)
    server.rewind_log(before, drop_leaves=False)  # the log reads the store again from the fork: fork B is logged too
    world.more_writes()
    assert server.sequence(), "an append is consistent: the witnesses cosign it"
    seat_b.keep(server, world.match_id, receipt["version"])
    seat_b.take_export(server, world.match_id)
    for seat in world.seats:
        code, checks = seat.verify(server, now=time.time())
        assert code == EXIT_VERIFIED, ("each fork alone is a good history in the log", checks)
    code, out = server.run_monitor(world.monitor_state)
    heads = {seat_a.receipts[fork.version]["head"], receipt["head"]}
    assert code == 1 and f"ALARM match {world.match_id} version {fork.version} has two heads in the log" in out, out
    assert all(head in out for head in heads), out


def test_a_server_that_logs_only_one_seats_fork_fails_the_other_seats_check_after_the_merge_delay(world):
    server = world.server
    fork, _ = world.fork()
    seat_a, seat_b = world.seats
    world.write_a(fork)
    seat_a.take_export(server, world.match_id)
    receipt = world.write_b(fork)
    world.more_writes()
    assert server.sequence(), "fork B is logged and cosigned"
    seat_b.keep(server, world.match_id, receipt["version"])
    seat_b.keep_checkpoint(server)
    seat_b.take_export(server, world.match_id)
    assert seat_b.verify(server, now=time.time())[0] == EXIT_VERIFIED
    seat_a.prove(server, world.match_id)
    assert "log_proof" not in seat_a.receipts[fork.version], "the log proves only fork B's head at that version"
    written = seat_a.written_at(fork.version)
    code, checks = seat_a.verify(server, now=written + 1)
    assert code == EXIT_PENDING and checks["verdict"] == "PENDING", checks
    assert checks["witnessed"]["status"] == "skip" and f"version {fork.version} " in checks["witnessed"]["detail"]
    code, checks = seat_a.verify(server, now=written + MERGE_DELAY + 1)
    assert code == EXIT_FAILED and checks["verdict"] == "FAILED", checks
    witnessed = checks["witnessed"]
    assert witnessed["status"] == "fail" and f"version {fork.version} " in witnessed["detail"], witnessed
    assert "merge delay" in witnessed["detail"]
    assert server.run_monitor(world.monitor_state)[0] == 0, "what was never logged, no monitor sees"


def test_a_second_tree_under_the_log_name_is_refused_by_both_witnesses_and_the_quorum_is_not_met(world):
    server = world.server
    fork, before = world.cosigned_fork_a()
    cosigned = server.served_checkpoint()
    origin = cosigned.split("\n", 1)[0]
    seen = [witness.seen(origin) for witness in server.witnesses]
    receipt = world.write_b(fork)
    server.rewind_log(before, drop_leaves=True)  # the same name, the same key, another tree from the fork on
    world.more_writes()
    assert not server.sequence(), "no quorum for the second tree"
    for witness, kept in zip(server.witnesses, seen, strict=True):
        assert witness.refused_other_than_size() == ["inconsistent"], witness.refusals
        assert witness.seen(origin) == kept, "a refusal changes nothing the witness keeps"
    assert server.served_checkpoint() == cosigned, "the log goes on serving the tree its witnesses cosigned"
    witnessing = server.client.get("/readyz").get_json()["witnessing"]
    assert witnessing["witnessed_size"] == int(cosigned.split("\n")[1]), witnessing
    assert witnessing["behind_seconds"] > 0, ("readiness says a signed checkpoint waits, whatever its size", witnessing)
    seat_b = world.seats[1]
    seat_b.keep(server, world.match_id, receipt["version"])
    seat_b.take_export(server, world.match_id)
    code, checks = seat_b.verify(server, now=time.time())
    assert code == EXIT_FAILED and checks["log"]["status"] == "fail", ("fork B is in no tree a quorum cosigned", checks)


def test_a_log_rewritten_after_it_was_cosigned_fails_the_consistency_check_of_both_seats(world):
    server = world.server
    fork, before = world.cosigned_fork_a()
    kept_size = int(world.seats[0].checkpoint.split("\n")[1])
    assert server.run_monitor(world.monitor_state)[0] == 0
    world.write_b(fork)
    server.rewind_log(before, drop_leaves=True)
    world.more_writes()
    assert not server.sequence(), "the witnesses refuse the rewritten log"
    server.serve_signed_checkpoint()  # the attacker serves it anyway, signed by the log's key
    size = int(server.served_checkpoint().split("\n")[1])
    why = "the log forked" if size == kept_size else "history was rewritten"
    for seat in world.seats:
        seat.take_export(server, world.match_id)
        code, checks = seat.verify(server, now=time.time())
        assert code == EXIT_FAILED and checks["verdict"] == "FAILED", checks
        kept = checks["kept checkpoint"]
        assert kept["status"] == "fail" and why in kept["detail"], kept
    code, out = server.run_monitor(world.monitor_state)
    assert code == 1 and "forked" in out, out
