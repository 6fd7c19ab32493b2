"""When a secret command body opens: with the last still-sealed secret its write caused.

A command whose body the game keeps secret (`SECRET_COMMANDS`) is recorded as a committed secret
for its seat (domain/command_records.py). What the body says is what the secret records of its write
hide (an assignment, a sealed card, a set card's window). So once every one of those records has
been opened to everyone (`public.opens`, docs/verification.md section 4), the body hides nothing
more: the record of a command's write that opens the last of them opens the command's record too,
by naming its version in the same `opens` list, after the versions the rules name.

The match (domain/match_sealed_commands.py) and the verifier (domain/redecide.py) follow the same
records with the functions below, so they name the same versions. The record the rules write in a
time-out (a seat's time running out) opens only what the rules name: the clock check compares it
with `time_out` as it is, and a command whose last sealed record it opens waits for the match's end.

At most `MAX_SEALED_COMMANDS` commands wait at once (the oldest is forgotten first: its body opens
when the match finishes), so the match's snapshot stays bounded however long the match runs.
"""

from __future__ import annotations

# Commands whose secret body waits for its write's secrets to open, remembered at once (oldest forgotten).
MAX_SEALED_COMMANDS = 256


def body_is_secret(secret_types: frozenset[str], command_type: str, events: list, records_causes: bool) -> bool:
    """Whether a command's body is recorded as a secret: a type the game keeps secret (`secret_types`) whose
    decided events hide something (a body whose every word is in public events hides nothing, so it is public
    at once); in a match that records no causes, every body of such a type."""
    if command_type not in secret_types:
        return False
    return not records_causes or any(event.secret is not None for event in events)


def no_sealed_commands() -> dict:
    """The state before any command: nothing waits, no write is being followed."""
    return {"following": None, "waiting": {}}


def opened_commands(sealed: dict, opens: list[int] | tuple[int, ...]) -> list[int]:
    """The versions of the commands whose every still-sealed record is among `opens`, oldest first."""
    named = set(opens)
    return sorted(
        int(command) for command, versions in sealed["waiting"].items() if versions and set(versions) <= named
    )


def follow(sealed: dict, version: int, kind_is_match: bool, secret_command: bool, committed: bool, opens: list) -> None:
    """Take in one record: a command with a secret body starts waiting, its write's secret records are what it
    waits for, and what a record opens is no longer sealed (a command with nothing left sealed stops waiting)."""
    opened = {v for v in opens if type(v) is int}
    waiting: dict[str, list[int]] = sealed["waiting"]
    for command in [c for c, versions in waiting.items() if int(c) in opened or (versions and set(versions) <= opened)]:
        del waiting[command]
    for versions in waiting.values():
        versions[:] = [v for v in versions if v not in opened]
    if kind_is_match:
        if sealed["following"] is not None and not waiting.get(str(sealed["following"]), True):
            del waiting[str(sealed["following"])]  # its write sealed nothing: nothing to wait for
        sealed["following"] = None
        if secret_command:
            sealed["following"] = version
            waiting[str(version)] = []
            while len(waiting) > MAX_SEALED_COMMANDS:
                del waiting[min(waiting, key=int)]
        return
    following = sealed["following"]
    if committed and following is not None and str(following) in waiting:
        waiting[str(following)].append(version)
