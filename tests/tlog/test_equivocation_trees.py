"""The equivocation suite on trees of every shape, in memory, across many seeds: a log (tests/tlog/memory_log.py,
up to three tiles wide, so forks fall below, across and above tile boundaries), two `gambit witness` witnesses, two
seats that keep the cosigned checkpoint and a `gambit monitor`, the same code the service suite drives over HTTP
(tests/tlog/test_equivocation.py does it with the service, its stores and `gambit verify`).

A key holder who logs two heads for one version is reported by the monitor; one who keeps a second tree under the
log's name gets no cosignature from either witness; one who rewrites the tree after it was cosigned fails both
seats' consistency check and the monitor's. An honest log that only grows raises nothing.
"""

from __future__ import annotations

import random

import pytest

from domain.tlog import consistent
from domain.tlog_note import parse_signature_lines
from service.log_keys import NoteKey
from service.monitor import Monitor, MonitorAlarm, MonitorState
from service.witness import Witness, WitnessRefusal
from tests.tlog.memory_log import MemoryLog
from tests.tlog.test_monitor import _entry

SEEDS = range(24)
MAX_LEAVES = 700
QUORUM = 2


class World:
    """A log of a random size with random writes, cosigned by two witnesses, kept by two seats, seen by a monitor."""

    def __init__(self, seed: int, tmp_path) -> None:
        self.rng = random.Random(seed)
        self.log = MemoryLog()
        self.versions: dict[str, int] = {}
        self.write(self.rng.randint(1, MAX_LEAVES))
        self.witnesses = [Witness(str(tmp_path / f"w{i}"), f"witness-{i}", [self.log.vkey]) for i in (1, 2)]
        self.refusals: list[str] = []  # the code of every refusal, in order
        assert self.cosign() == QUORUM
        self.seats = [self.checkpoint(), self.checkpoint()]  # (size, root) each seat kept
        self.monitor = Monitor(self.log.fetch, MonitorState(), NoteKey.parse(self.log.vkey))
        self.monitor.round()

    def write(self, count: int, log: MemoryLog | None = None) -> None:
        """`count` writes of a few matches, each the next version of its match, with a random head."""
        for _ in range(count):
            match = f"m{self.rng.randrange(12)}"
            self.versions[match] = self.versions.get(match, 0) + 1
            (log or self.log).add(_entry(match, self.versions[match], self.rng.randbytes(32).hex()))

    def checkpoint(self, log: MemoryLog | None = None) -> tuple[int, bytes]:
        """(size, root) of a log's tree."""
        log = log or self.log
        return len(log.leaves), log.hashes().root(len(log.leaves))

    def cosign(self, log: MemoryLog | None = None) -> int:
        """Ask both witnesses to cosign the log's tree (each from the size it last cosigned); how many did."""
        log = log or self.log
        cosigned = 0
        for witness in self.witnesses:
            seen = witness.seen(log.origin)
            old = seen.size if seen and seen.size <= len(log.leaves) else 0
            try:
                line = witness.add_checkpoint(log.add_checkpoint(old))
            except WitnessRefusal as refusal:
                self.refusals.append(refusal.code)
                continue
            note = log.note().with_signatures(parse_signature_lines(line))
            assert NoteKey.parse(witness.vkey).cosigned_at(note) is not None
            cosigned += 1
        return cosigned

    def seat_check(self, kept: tuple[int, bytes], log: MemoryLog) -> bool:
        """A seat's check of a served tree against the checkpoint it kept, with the proof the log serves."""
        size, root = kept
        new_size, new_root = self.checkpoint(log)
        return new_size >= size and consistent(
            size, new_size, root, new_root, log.hashes().consistency_proof(size, new_size)
        )

    def forked_copy(self, at: int) -> MemoryLog:
        """The same log's name and key over another tree: the first `at` leaves, then other writes."""
        other = MemoryLog(key=self.log.key)
        other.add(*self.log.entries[:at])
        return other


@pytest.fixture(params=SEEDS, ids=lambda seed: f"seed{seed}")
def world(request, tmp_path) -> World:
    """One seed's world."""
    return World(request.param, tmp_path)


def test_an_honest_log_that_only_grows_raises_nothing(world):
    for _ in range(world.rng.randint(1, 4)):
        world.write(world.rng.randint(1, 300))
        assert world.cosign() == QUORUM
        assert all(world.seat_check(kept, world.log) for kept in world.seats)
        world.seats = [world.checkpoint(), world.checkpoint()]
        world.monitor.round()
    assert world.refusals == []


def test_two_heads_logged_for_one_version_are_reported_by_the_monitor(world):
    match = world.rng.choice(sorted(world.versions))
    version = world.rng.randint(1, world.versions[match])
    world.write(world.rng.randint(0, 40))
    world.log.add(_entry(match, version, "f" * 64))  # the other fork's head for a version already logged
    world.write(world.rng.randint(0, 40))
    assert world.cosign() == QUORUM, "an append is consistent: witnesses cannot see what leaves mean"
    with pytest.raises(MonitorAlarm, match=f"match {match} version {version} has two heads in the log"):
        world.monitor.round()


def test_a_second_tree_under_the_log_name_gets_no_cosignature_from_either_witness(world):
    size, _ = world.checkpoint()
    other = world.forked_copy(world.rng.randrange(size))
    world.write(size - len(other.leaves) + world.rng.randint(0, 60), log=other)
    assert world.cosign(other) == 0 and world.refusals == ["inconsistent", "inconsistent"], world.refusals
    assert all(w.seen(world.log.origin).size == size for w in world.witnesses), "a refusal changes nothing"
    assert world.cosign() == QUORUM, "the first tree is still the one they cosign"


def test_a_tree_rewritten_after_it_was_cosigned_fails_both_seats_and_the_monitor(world):
    size, _ = world.checkpoint()
    rewritten = world.forked_copy(world.rng.randrange(size))
    world.write(size - len(rewritten.leaves) + world.rng.randint(0, 60), log=rewritten)
    assert not any(world.seat_check(kept, rewritten) for kept in world.seats)
    world.monitor.fetch = rewritten.fetch
    with pytest.raises(MonitorAlarm, match="forked"):
        world.monitor.round()
