"""What a process of a running `gambit serve` is, read from /proc (Linux): its workers and its leader process."""

from __future__ import annotations


def command_of(pid: int) -> list[str]:
    """The process's command line, word by word."""
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        return handle.read().decode().split("\0")


def is_lead_process(pid: int) -> bool:
    """Whether the process is `gambit serve`'s leader process (`gambit lead`), not a worker."""
    try:
        words = command_of(pid)
    except OSError:  # it has exited
        return False
    return "service.cli" in words and "lead" in words
