"""`gambit monitor LOG_URL`: follow a log's checkpoints and tiles, check that each checkpoint extends the last, and
report any match with two different heads for one version (docs/verification.md, section 12).

A round reads the checkpoint, checks its signature (with `--log-key`), rebuilds from the tiles both the root of the
tree it saw last and the new root (one set of tiles holding both trees is the consistency proof), then reads every
new entry, checks it against its leaf hash, and remembers each open entry's head by (match id, version). Sealed
entries (matches with a spectator delay) are counted, not read: their heads are hidden until the match is exported.
The state (last size and root, heads seen) is kept in a JSON file between runs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from domain.tlog import TILE_HEIGHT, TILE_WIDTH, Hashes, leaf_hash, read_entry_bundle, tile_path
from domain.tlog_note import Checkpoint, NoteError, parse_checkpoint, parse_note
from domain.tlog_rotation import is_retirement, parse_retirement
from service.log_keys import NoteKey

# Fetches a path under the log's URL (`checkpoint`, `tile/…`): its bytes; OSError when it cannot.
Fetch = Callable[[str], bytes]


class MonitorAlarm(Exception):
    """What a monitor found wrong with the log: one line each."""

    def __init__(self, findings: list[str]) -> None:
        super().__init__("; ".join(findings))
        self.findings = findings


@dataclass
class MonitorState:
    """What a monitor remembers of a log: the last checkpoint it checked, and each open entry's head."""

    origin: str | None = None
    size: int = 0
    root: str = ""
    heads: dict[str, str] = field(default_factory=dict)  # "match_id version" → head
    sealed: int = 0
    retired: dict[str, int] = field(default_factory=dict)  # retired signing key id → the log size it was retired at

    @classmethod
    def load(cls, path: Path) -> MonitorState:
        """The state kept in a file (a fresh one when the file does not exist)."""
        if not path.exists():
            return cls()
        return cls(**json.loads(path.read_text(encoding="utf-8")))

    def save(self, path: Path) -> None:
        """Keep the state (written aside, then renamed)."""
        aside = path.with_suffix(path.suffix + ".tmp")
        aside.write_text(json.dumps(self.__dict__), encoding="utf-8")
        os.replace(aside, path)


class Monitor:
    """Follows one log through `fetch`; `round()` checks everything new since the last round."""

    def __init__(self, fetch: Fetch, state: MonitorState, log_key: NoteKey | None = None) -> None:
        self.fetch = fetch
        self.state = state
        self.log_key = log_key
        self._tiles: dict[tuple[int, int, int], list[bytes]] = {}

    def round(self) -> tuple[int, int]:
        """Check the newest checkpoint and every entry since the last; (old size, new size). MonitorAlarm on a fork,
        a rewrite, a bad signature or a match with two heads for one version; the state moves on only when clean."""
        self._tiles.clear()
        try:
            note = parse_note(self.fetch("checkpoint").decode("utf-8"))
            checkpoint = parse_checkpoint(note.text)
        except (NoteError, UnicodeDecodeError) as exc:
            raise MonitorAlarm([f"the log's checkpoint cannot be read: {exc}"]) from None
        if self.log_key is not None and self.log_key.signed(note) is None:
            raise MonitorAlarm([f"the checkpoint of {checkpoint.size} leaves is not signed by the log's key"])
        state = self.state
        if state.origin is not None and checkpoint.origin != state.origin:
            raise MonitorAlarm([f"the log is now named {checkpoint.origin!r}, not {state.origin!r}"])
        old = state.size
        if checkpoint.size < old:
            raise MonitorAlarm([f"the log shrank from {old} leaves to {checkpoint.size}: history was rewritten"])
        hashes = Hashes(lambda level, start, end: self._level(level, start, end, checkpoint.size))
        try:
            self._check_roots(hashes, checkpoint, old)
            findings = self._read_entries(hashes, old, checkpoint.size)
        except (LookupError, ValueError) as exc:
            raise MonitorAlarm([f"the log's tiles do not hold its tree of {checkpoint.size} leaves: {exc}"]) from None
        if findings:
            raise MonitorAlarm(findings)
        state.origin, state.size, state.root = checkpoint.origin, checkpoint.size, checkpoint.root.hex()
        return old, checkpoint.size

    def _check_roots(self, hashes: Hashes, checkpoint: Checkpoint, old: int) -> None:
        if hashes.root(checkpoint.size) != checkpoint.root:
            raise MonitorAlarm([f"the tiles' tree of {checkpoint.size} leaves does not have the checkpoint's root"])
        if old and hashes.root(old).hex() != self.state.root:
            raise MonitorAlarm(
                [f"the log of {checkpoint.size} leaves does not extend the one of {old} seen before: it forked"]
            )

    def _read_entries(self, hashes: Hashes, start: int, end: int) -> list[str]:
        findings = []
        for tile_start in range(start - start % TILE_WIDTH, end, TILE_WIDTH):
            width = min(TILE_WIDTH, end - tile_start)
            entries = read_entry_bundle(self._get(tile_path("entries", tile_start // TILE_WIDTH, width)))
            if len(entries) != width:
                raise ValueError(f"the entries tile at {tile_start} holds {len(entries)} entries, not {width}")
            level = self._level(0, tile_start, tile_start + width, end)
            for offset, entry in enumerate(entries):
                index = tile_start + offset
                if index < start:
                    continue
                if leaf_hash(entry) != level[offset]:
                    findings.append(f"entry {index} does not hash to its leaf")
                    continue
                findings.extend(self._remember(index, entry))
        return findings

    def _remember(self, index: int, entry: bytes) -> list[str]:
        try:
            value = json.loads(entry)
        except ValueError:
            return [f"entry {index} is not JSON"]
        if isinstance(value, dict) and set(value) == {"sealed"}:
            self.state.sealed += 1
            return []
        retirement = parse_retirement(entry) if is_retirement(entry) else None
        if retirement is not None:
            if retirement.size != index:
                return [f"entry {index} retires key {retirement.retired_key_id} at size {retirement.size}, not its own"]
            self.state.retired.setdefault(retirement.retired_key_id, index)
            return []
        if not isinstance(value, dict) or not {"match_id", "version", "head"} <= set(value):
            return [f"entry {index} is neither a write, a sealed one nor a key retirement"]
        retired_at = self.state.retired.get(str(value.get("key_id")))
        if retired_at is not None:
            # A retired key signs nothing after its retirement: such a leaf is a leaked key's write, logged.
            return [f"entry {index} is a write by key {value.get('key_id')}, retired at log size {retired_at}"]
        key = f"{value['match_id']} {value['version']}"
        seen = self.state.heads.get(key)
        if seen is not None and seen != value["head"]:
            twice = f"match {value['match_id']} version {value['version']} has two heads in the log"
            return [f"{twice}: {seen} and {value['head']} (entry {index})"]
        self.state.heads[key] = value["head"]
        return []

    def _level(self, height: int, start: int, end: int, size: int) -> list[bytes]:
        """Hashes at a tile level (a tree height, multiple of 8) with indices in [start, end), from the tiles of the
        tree of `size` leaves."""
        level = height // TILE_HEIGHT
        available = size >> height
        found: list[bytes] = []
        for index in range(start // TILE_WIDTH, (end - 1) // TILE_WIDTH + 1 if end > start else 0):
            width = min(TILE_WIDTH, available - index * TILE_WIDTH)
            if width <= 0:
                raise LookupError(f"no tile {index} at level {level} in a tree of {size}")
            key = (level, index, width)
            if key not in self._tiles:
                data = self._get(tile_path(level, index, width))
                if len(data) != 32 * width:
                    raise ValueError(f"tile {level}/{index} of width {width} holds {len(data)} bytes")
                self._tiles[key] = [data[i : i + 32] for i in range(0, len(data), 32)]
            tile = self._tiles[key]
            lo, hi = max(start, index * TILE_WIDTH), min(end, index * TILE_WIDTH + width)
            found.extend(tile[lo - index * TILE_WIDTH : hi - index * TILE_WIDTH])
        return found

    def _get(self, path: str) -> bytes:
        try:
            return self.fetch(f"tile/{path}")
        except OSError as exc:
            raise LookupError(f"tile/{path}: {exc}") from None


def http_fetch(log_url: str) -> Fetch:
    """A fetch over HTTP under a log's URL (the service's `/log` path, e.g. `https://host/log`)."""
    import urllib.error
    import urllib.request

    base = log_url.rstrip("/")

    def fetch(path: str) -> bytes:
        try:
            with urllib.request.urlopen(f"{base}/{path}", timeout=10) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            raise OSError(f"HTTP {exc.code}") from None

    return fetch


def run_monitor(
    log_url: str,
    state_file: str | None,
    log_key: str | None,
    once: bool,
    interval: float,
    out: TextIO,
    err: TextIO,
    fetch: Fetch | None = None,
    wait: Callable[[float], bool] | None = None,
) -> int:
    """`gambit monitor`: rounds until an alarm (exit 1, each finding on a line) or, with `once`, one clean round
    (exit 0); 2 for a usage error. `wait(seconds)` returns True to stop (an interrupt)."""
    try:
        key = NoteKey.parse(log_key) if log_key else None
    except NoteError as exc:
        err.write(f"gambit monitor: --log-key is not a log's verifier key: {exc}\n")
        return 2
    path = Path(state_file) if state_file else None
    try:
        state = MonitorState.load(path) if path else MonitorState()
    except (OSError, ValueError, TypeError) as exc:
        err.write(f"gambit monitor: cannot read the state file {state_file}: {exc}\n")
        return 2
    monitor = Monitor(fetch or http_fetch(log_url), state, key)
    while True:
        try:
            old, new = monitor.round()
        except MonitorAlarm as alarm:
            out.writelines(f"ALARM {finding}\n" for finding in alarm.findings)
            out.flush()
            return 1
        except OSError as exc:
            err.write(f"gambit monitor: the log does not answer ({exc}); trying again\n")
            if once:
                return 2
        else:
            if path:
                state.save(path)
            out.write(f"ok {new} leaves (checked {new - old} new; {len(state.heads)} writes, {state.sealed} sealed)\n")
            out.flush()
            if once:
                return 0
        if (wait or _sleep)(interval):
            return 0


def _sleep(seconds: float) -> bool:
    """Wait between rounds; never asks to stop (an interrupt does)."""
    import time

    time.sleep(seconds)
    return False
