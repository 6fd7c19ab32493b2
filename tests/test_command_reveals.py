"""Which secret command bodies a record opens (domain/command_reveals.py), as the match and the verifier follow it."""

from __future__ import annotations

from domain.command_reveals import MAX_SEALED_COMMANDS, follow, no_sealed_commands, opened_commands


def _command_write(sealed: dict, version: int, secret_records: int) -> list[int]:
    """A command with a secret body at `version`, then its write's records, each sealed; their versions."""
    follow(sealed, version, True, True, True, [])
    versions = list(range(version + 1, version + 1 + secret_records))
    for v in versions:
        follow(sealed, v, False, False, True, [])
    return versions


def test_a_command_opens_only_with_the_last_sealed_record_of_its_write():
    sealed = no_sealed_commands()
    first, second = _command_write(sealed, 5, 2)
    follow(sealed, 9, True, False, False, [])  # the next write begins
    assert opened_commands(sealed, [first]) == []
    follow(sealed, 10, False, False, True, [first])
    assert opened_commands(sealed, [second]) == [5]
    follow(sealed, 11, False, False, True, [second, 5])
    assert sealed["waiting"] == {}


def test_a_public_record_of_the_write_is_not_waited_for_and_a_write_sealing_nothing_waits_for_nothing():
    sealed = no_sealed_commands()
    follow(sealed, 3, True, True, True, [])
    follow(sealed, 4, False, False, False, [])
    follow(sealed, 5, True, False, False, [])
    assert sealed["waiting"] == {}


def test_at_most_the_newest_commands_wait_and_the_oldest_is_forgotten_first():
    sealed = no_sealed_commands()
    version = 1
    for _ in range(MAX_SEALED_COMMANDS + 3):
        _command_write(sealed, version, 1)
        version += 2
    assert len(sealed["waiting"]) == MAX_SEALED_COMMANDS
    assert min(map(int, sealed["waiting"])) == 7
    assert opened_commands(sealed, [2]) == []  # the first command's record: forgotten, it opens at the end
