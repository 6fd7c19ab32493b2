"""The transparency log of one event store: its tables, the sequencer that integrates writes, and reads for the API.

Writes do not touch the log. Every acknowledged write already stored its signed receipt with its
newest record, in the write's own transaction, and the store numbers records in commit order (its
notification log). The sequencer follows that order, as the read models do, and makes each receipt
a leaf: the event store is the durable queue of leaves not yet integrated, so an acknowledged write
can be late in the log (at most the merge delay its receipt promises) but never missing from it,
and the hot path of a command pays nothing. Integrating is deterministic (notification order,
receipts this service's keys signed), so the same store always makes the same tree.

The tables live beside the read models: the same PostgreSQL database, or SQLite's sibling file.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from domain.match import MATCH_CREATED, match_record
from domain.match_options import options_of
from domain.records import canonical
from domain.tlog import TILE_HEIGHT, TILE_WIDTH, Frontier, Hashes, entry_bundle, entry_bytes, leaf_hash
from domain.tlog_note import Checkpoint, Note, Proof, Signature, parse_checkpoint, parse_note
from domain.tlog_rotation import key_id_of, parse_retirement
from projections.sqlstore import Cursor, SqlStore
from projections.turns import in_turns

BATCH = 2000
LOG_NAME = "default"

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS gambit_log_state (name TEXT PRIMARY KEY, origin TEXT NOT NULL,
       size BIGINT NOT NULL, position BIGINT NOT NULL, checkpoint TEXT, cosigned TEXT, secret TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS gambit_log_entries (idx BIGINT PRIMARY KEY, match_id TEXT NOT NULL,
       version BIGINT NOT NULL, head TEXT NOT NULL, key_id TEXT NOT NULL, hash TEXT NOT NULL, salt TEXT)""",
    """CREATE INDEX IF NOT EXISTS gambit_log_entries_write ON gambit_log_entries (match_id, version)""",
    """CREATE TABLE IF NOT EXISTS gambit_log_nodes (level INTEGER NOT NULL, idx BIGINT NOT NULL,
       hash TEXT NOT NULL, PRIMARY KEY (level, idx))""",
    # A key retirement's leaf (domain/tlog_rotation.py): its entry, by the retired key's id. Its row in
    # gambit_log_entries (match_id '') holds its hash like any leaf's.
    """CREATE TABLE IF NOT EXISTS gambit_log_retirements (retired_key_id TEXT PRIMARY KEY, idx BIGINT NOT NULL,
       entry TEXT NOT NULL)""",
]

# Signs a checkpoint body as the log: (note text, key name) → the signature line.
SignNote = Callable[[str, str], Signature]
# Whether a match's leaves are sealed (it has a spectator delay): by match id.
IsSealed = Callable[[str], bool]
# Matches whose sealing the sequencer remembers before it forgets them all and looks again.
REMEMBERED_MATCHES = 100_000


class RetiredKeyError(RuntimeError):
    """The sequencer's own signing key is one the log retired."""


class KeyRetirer(Protocol):
    """The signing key that retires the keys it replaced, in the log (service/signing.py's Signer)."""

    key_id: str
    previous_keys: tuple[str, ...]

    def retirement_entry(self, log: str, retired_key: str, size: int) -> bytes:
        """The leaf entry retiring `retired_key` at this log size, signed by this key."""
        ...


class TransparencyLog:
    """One event store's log: its origin, leaves, tile-level hashes and newest signed checkpoint."""

    def __init__(self, store: SqlStore, origin: str | None, default_origin: Callable[[], str]) -> None:
        """The log in `store`, created on first use under `origin` (or `default_origin()` when none is configured);
        ValueError when the store's log has another name than the one configured (a log's name never changes)."""
        self.store = store
        with store.schema_transaction() as cur:
            for statement in _SCHEMA:
                cur.execute(statement)
            cur.execute("SELECT origin FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
            row = cur.fetchone()
            if row is None:
                # The secret each sealed leaf's salt derives from: the log's own, so a key rotation keeps it.
                cur.execute(
                    "INSERT INTO gambit_log_state (name, origin, size, position, secret) VALUES (?, ?, 0, 0, ?)",
                    (LOG_NAME, origin or default_origin(), secrets.token_hex(32)),
                )
                cur.execute("SELECT origin FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
                row = cur.fetchone()
        self.origin: str = row[0]
        self._secret: bytes | None = None
        # Retired key id → the log size it was retired at (a retirement never ends, so it is kept once read).
        self._retired: dict[str, int] = {}
        if origin and origin != self.origin:
            raise ValueError(
                f"this store's log is named {self.origin!r}; GAMBIT_LOG_ORIGIN says {origin!r} (a log's name never changes)"
            )

    def salt(self, match_id: str, version: int) -> bytes:
        """The salt sealing the leaf of a write of a match with a spectator delay: HMAC-SHA256 under the log's
        secret of the match id and version, so revealing one write's salt reveals nothing of another's."""
        if self._secret is None:
            rows = self.store.query("SELECT secret FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
            self._secret = bytes.fromhex(rows[0][0])
        message = canonical({"match_id": match_id, "version": version})
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    # ----- reads --------------------------------------------------------------------------
    def state(self) -> tuple[int, int]:
        """(tree size, last notification integrated)."""
        rows = self.store.query("SELECT size, position FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
        return int(rows[0][0]), int(rows[0][1])

    def checkpoint_note(self) -> Note | None:
        """The newest checkpoint the log signed, or None before the first."""
        rows = self.store.query("SELECT checkpoint FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
        return parse_note(rows[0][0]) if rows and rows[0][0] else None

    def cosigned_note(self) -> Note | None:
        """The newest checkpoint with its witnesses' cosignatures, or None before the first."""
        rows = self.store.query("SELECT cosigned FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
        return parse_note(rows[0][0]) if rows and rows[0][0] else None

    def read_level(self, level: int, start: int, end: int) -> list[bytes]:
        """The stored hashes at a tile level with indices in [start, end), in order."""
        if level == 0:
            rows = self.store.query(
                "SELECT hash FROM gambit_log_entries WHERE idx >= ? AND idx < ? ORDER BY idx", (start, end)
            )
        else:
            rows = self.store.query(
                "SELECT hash FROM gambit_log_nodes WHERE level = ? AND idx >= ? AND idx < ? ORDER BY idx",
                (level, start, end),
            )
        return [bytes.fromhex(row[0]) for row in rows]

    def hashes(self) -> Hashes:
        """The tree, read from the store."""
        return Hashes(self.read_level)

    def tile(self, level: int, index: int, width: int, size: int) -> bytes | None:
        """A hash tile (tlog-tiles) of the tree of `size` leaves; None when that tree does not hold it."""
        available = size >> (TILE_HEIGHT * level)
        start = index * TILE_WIDTH
        if start + width > available:
            return None
        return b"".join(self.read_level(TILE_HEIGHT * level, start, start + width))

    def entries(self, index: int, width: int, size: int) -> bytes | None:
        """An entries tile of the tree of `size` leaves; None when that tree does not hold it."""
        start = index * TILE_WIDTH
        if start + width > size:
            return None
        rows = self.store.query(
            "SELECT e.match_id, e.version, e.head, e.key_id, e.salt, r.entry FROM gambit_log_entries e"
            " LEFT JOIN gambit_log_retirements r ON r.idx = e.idx WHERE e.idx >= ? AND e.idx < ? ORDER BY e.idx",
            (start, start + width),
        )
        return entry_bundle(
            [
                row[5].encode()
                if row[5] is not None
                else entry_bytes(row[0], int(row[1]), row[2], row[3], bytes.fromhex(row[4]) if row[4] else None)
                for row in rows
            ]
        )

    def retired_size(self, key_id: str) -> int | None:
        """The log size at which a signing key was retired, or None while it is not."""
        if key_id not in self._retired:
            rows = self.store.query("SELECT idx FROM gambit_log_retirements WHERE retired_key_id = ?", (key_id,))
            if not rows:
                return None
            self._retired[key_id] = int(rows[0][0])
        return self._retired[key_id]

    def retirements(self) -> list[tuple[int, bytes]]:
        """(leaf index, entry) of every key retirement in the log, oldest first."""
        rows = self.store.query("SELECT idx, entry FROM gambit_log_retirements ORDER BY idx")
        return [(int(row[0]), row[1].encode()) for row in rows]

    def allows(self, receipt: dict) -> bool:
        """Whether the log lets a receipt stand as this service's: its key is not retired, or its write is a leaf
        below the retirement (made before it). A retired key signs nothing after, even when it leaks."""
        key_id = receipt.get("key_id")
        size = self.retired_size(key_id) if isinstance(key_id, str) else None
        if size is None:
            return True
        version = receipt.get("version")
        if not isinstance(version, int):
            return False
        index = self.leaf_index(str(receipt.get("match_id")), version, str(receipt.get("head")))
        return index is not None and index < size

    def leaf_index(self, match_id: str, version: int, head: str) -> int | None:
        """The index of the leaf of a write (its match, version and head), or None while it is not in the log."""
        rows = self.store.query(
            "SELECT idx FROM gambit_log_entries WHERE match_id = ? AND version = ? AND head = ? ORDER BY idx LIMIT 1",
            (match_id, version, head),
        )
        return int(rows[0][0]) if rows else None

    def newest_logged_version(self, match_id: str, size: int, upto: int) -> int | None:
        """The newest version (at most `upto`) a write of a match ended at whose leaf is in the tree of `size` leaves,
        or None when none is: a match's writes enter the log in their order, so every earlier write is in it too."""
        rows = self.store.query(
            "SELECT MAX(version) FROM gambit_log_entries WHERE match_id = ? AND idx < ? AND version <= ?",
            (match_id, size, upto),
        )
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    def proof(self, index: int, note: Note, checkpoint: Checkpoint) -> Proof:
        """The tlog-proof of leaf `index` against a checkpoint of this log."""
        hashes = tuple(self.hashes().inclusion_proof(index, checkpoint.size))
        rows = self.store.query("SELECT salt FROM gambit_log_entries WHERE idx = ?", (index,))
        salt = bytes.fromhex(rows[0][0]) if rows and rows[0][0] else None
        # A sealed leaf's proof reveals its salt (the tlog-proof's extra data): who may see the write may open it.
        return Proof(index, hashes, note, checkpoint, salt)

    def consistency(self, old: int, new: int) -> list[bytes]:
        """The consistency proof from the tree of `old` leaves to that of `new`."""
        return self.hashes().consistency_proof(old, new)

    def set_cosigned(self, note: Note, size: int) -> None:
        """Keep a checkpoint with the cosignatures it gathered (only ever a larger or equal tree)."""
        with self.store.transaction(lock_table="gambit_log_state") as cur:
            cur.execute("SELECT cosigned FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
            row = cur.fetchone()
            if row and row[0] and parse_checkpoint(parse_note(row[0]).text).size > size:
                return
            cur.execute("UPDATE gambit_log_state SET cosigned = ? WHERE name = ?", (note.render(), LOG_NAME))


class Sequencer:
    """Integrates acknowledged writes into the log, in the store's commit order, and signs a checkpoint."""

    def __init__(
        self,
        log: TransparencyLog,
        app: Any,
        is_ours: Callable[[dict], bool],
        sign: SignNote,
        is_sealed: IsSealed,
        retirer: KeyRetirer | None = None,
        retire_after: float = 0.0,
    ) -> None:
        """`app` is the match store followed; `is_ours(receipt)` tells a receipt this service signed; `sign`
        signs the checkpoint body under the log's origin; `is_sealed(match_id)` tells a match whose leaves are
        sealed (one with a spectator delay: its progress must not show in the public log); `retirer` retires the keys
        it replaced, `retire_after` seconds after this sequencer first found one not yet retired (so processes still
        signing with it during a rolling restart finish first)."""
        self.log = log
        self.app = app
        self.is_ours = is_ours
        self.sign = sign
        self.is_sealed = is_sealed
        self.retirer = retirer
        self.retire_after = retire_after
        self._unretired_since: float | None = None
        self._sealed: dict[str, bool] = {}
        self._frontier: Frontier | None = None
        self._lock = threading.Lock()

    def integrate(self) -> int:
        """Take in every write stored since the last call and sign a checkpoint of the new tree; returns the leaves
        added. The first call signs the empty tree's checkpoint."""
        added = 0
        if self.retirer is not None and self.log.retired_size(self.retirer.key_id) is not None:
            # A process still running with a key the log retired (a restart that outlived the retirement delay):
            # whatever it signed now would be refused, so it signs no checkpoint and takes no write in.
            raise RetiredKeyError(
                f"this process signs with key {self.retirer.key_id}, which the log retired at size "
                f"{self.log.retired_size(self.retirer.key_id)}: restart it with the new key"
            )
        with self._lock:
            while True:
                size, position = self.log.state()
                notifications = self.app.recorder.select_notifications(position + 1, BATCH)
                leaves = self._leaves(notifications)
                # Whether each leaf is sealed is settled here, before the transaction: telling it may load a match,
                # and a load inside would hold the log's table lock and a read-model connection across the
                # round trips of every match new to the batch (under load, seconds each: the log fell behind).
                self._settle_sealed(leaves)
                last = notifications[-1].id if notifications else position
                final = len(notifications) < BATCH
                # A key is retired after every write stored before is a leaf, in the same transaction: below it.
                retiring = self._keys_to_retire() if final else []
                if not notifications and not retiring and self.log.checkpoint_note() is not None:
                    return added
                with self.log.store.transaction(lock_table="gambit_log_state") as cur:
                    cur.execute("SELECT size, position FROM gambit_log_state WHERE name = ?", (LOG_NAME,))
                    row = cur.fetchone()
                    if (int(row[0]), int(row[1])) != (size, position):
                        self._frontier = None
                        continue  # another process integrated meanwhile: read on from where it got
                    frontier = self._frontier_at(size)
                    # The frontier moves with the rows: a transaction that fails leaves it to be read again.
                    self._frontier = None
                    self._append(cur, frontier, leaves)
                    self._retire(cur, frontier, retiring)
                    checkpoint = Checkpoint(self.log.origin, frontier.size, frontier.root())
                    body = checkpoint.body()
                    note = Note(body, (self.sign(body, self.log.origin),))
                    cur.execute(
                        "UPDATE gambit_log_state SET size = ?, position = ?, checkpoint = ? WHERE name = ?",
                        (frontier.size, last, note.render(), LOG_NAME),
                    )
                self._frontier = frontier
                added += len(leaves) + len(retiring)
                if final:
                    return added

    def _keys_to_retire(self) -> list[str]:
        """The previous keys the retirer names that the log has not retired, once they are due."""
        if self.retirer is None:
            return []
        pending = [
            key
            for key in dict.fromkeys(self.retirer.previous_keys)
            if key_id_of(key) != self.retirer.key_id and self.log.retired_size(key_id_of(key)) is None
        ]
        if not pending:
            self._unretired_since = None
            return []
        now = time.monotonic()
        if self._unretired_since is None:
            self._unretired_since = now
        return pending if now - self._unretired_since >= self.retire_after else []

    def _retire(self, cur: Cursor, frontier: Frontier, keys: list[str]) -> None:
        if self.retirer is None:
            return
        for key in keys:
            size = frontier.size
            entry = self.retirer.retirement_entry(self.log.origin, key, size)
            hashed = leaf_hash(entry)
            cur.execute(
                "INSERT INTO gambit_log_entries (idx, match_id, version, head, key_id, hash, salt)"
                " VALUES (?, '', 0, '', ?, ?, NULL)",
                (size, self.retirer.key_id, hashed.hex()),
            )
            cur.execute(
                "INSERT INTO gambit_log_retirements (retired_key_id, idx, entry) VALUES (?, ?, ?)",
                (key_id_of(key), size, entry.decode()),
            )
            _grow(cur, frontier, hashed)

    def _frontier_at(self, size: int) -> Frontier:
        if self._frontier is None or self._frontier.size != size:
            self._frontier = Frontier.of(self.log.hashes(), size)
        return self._frontier

    def _leaves(self, notifications: list[Any]) -> list[tuple[str, int, str, str]]:
        """(match id, version, head, key id) of every write these records end: a record with this service's receipt.

        A match whose acknowledged creation is in these records is noted as sealed or not from its config on the
        way, so its leaves need no load of the match to tell."""
        found = []
        for notification in in_turns(notifications):
            record = match_record(self.app.mapper.to_domain_event(notification))
            if record is None:
                continue
            receipt = record.meta.get("receipt")
            if not isinstance(receipt, dict):
                continue
            # Only a receipt for this very record, signed by this service, is an acknowledged write.
            match_id = str(record.originator_id)
            if (
                receipt.get("match_id") != match_id
                or receipt.get("version") != record.originator_version
                or receipt.get("head") != record.chain
                or not self.is_ours(receipt)
            ):
                continue
            if record.kind == MATCH_CREATED:
                # Told only from a creation this service acknowledged (its receipt signs the head that binds the
                # config); any other is left to `is_sealed`, which loads the match and checks it.
                self._remember_sealed(match_id, options_of(record.public.get("config", {})).spectator_delay > 0)
            found.append((match_id, record.originator_version, record.chain, str(receipt["key_id"])))
        return found

    def _remember_sealed(self, match_id: str, sealed: bool) -> None:
        if match_id not in self._sealed and len(self._sealed) >= REMEMBERED_MATCHES:
            self._sealed.clear()
        self._sealed[match_id] = sealed

    def _settle_sealed(self, leaves: list[tuple[str, int, str, str]]) -> None:
        """Tell, for every match of these leaves not known yet (one created before the batch), whether it is sealed."""
        for match_id in dict.fromkeys(leaf[0] for leaf in leaves):
            if match_id not in self._sealed:
                self._remember_sealed(match_id, self.is_sealed(match_id))

    def _sealed_match(self, match_id: str) -> bool:
        if match_id not in self._sealed:
            self._remember_sealed(match_id, self.is_sealed(match_id))
        return self._sealed[match_id]

    def _append(self, cur: Cursor, frontier: Frontier, leaves: list[tuple[str, int, str, str]]) -> None:
        # One multi-row statement per table for the whole batch: on PostgreSQL a statement a leaf was a round trip a
        # leaf, and under gevent the leading worker's requests ran between them, so the log fell behind under load.
        entries: list[tuple] = []
        nodes: list[tuple] = []
        for match_id, version, head, key_id in leaves:
            index = frontier.size
            salt = self.log.salt(match_id, version) if self._sealed_match(match_id) else None
            hashed = leaf_hash(entry_bytes(match_id, version, head, key_id, salt))
            entries.append((index, match_id, version, head, key_id, hashed.hex(), salt.hex() if salt else None))
            nodes.extend((level, node_index, value.hex()) for level, node_index, value in frontier.append(hashed))
        if entries:
            cur.insert_rows("gambit_log_entries (idx, match_id, version, head, key_id, hash, salt)", entries)
        if nodes:
            cur.insert_rows("gambit_log_nodes (level, idx, hash)", nodes)


def _grow(cur: Cursor, frontier: Frontier, hashed: bytes) -> None:
    """Add a leaf hash to the frontier, storing the tile-level nodes it completes."""
    for level, node_index, value in frontier.append(hashed):
        cur.execute(
            "INSERT INTO gambit_log_nodes (level, idx, hash) VALUES (?, ?, ?)", (level, node_index, value.hex())
        )


def b64(value: bytes) -> str:
    """Standard base64 text."""
    return base64.b64encode(value).decode()


def log_evidence(log: TransparencyLog, match_id: str, receipt: dict, since: int | None = None) -> dict:
    """What an export's trailer carries of the log: the tlog-proof of its write against the newest checkpoint (once
    integrated), and with `since`, the consistency proof from the tree of that size to the checkpoint's."""
    note = log.cosigned_note() or log.checkpoint_note()
    if note is None:
        return {}
    checkpoint = parse_checkpoint(note.text)
    index = log.leaf_index(match_id, receipt["version"], receipt["head"])
    if index is None or index >= checkpoint.size:
        return {}
    found: dict = {"log_proof": log.proof(index, note, checkpoint).render()}
    if since is not None and 0 <= since <= checkpoint.size:
        proof = log.consistency(since, checkpoint.size)
        found["log_consistency"] = {"old": since, "proof": [b64(h) for h in proof]}
    return found


def retirement_evidence(log: TransparencyLog) -> dict[str, dict]:
    """Each key retirement in the served checkpoint, by the retired key's id: the log size it was retired at, its leaf
    entry and the tlog-proof of that leaf (what a verifier needs to hold the retired key to it, section 12)."""
    note = log.cosigned_note() or log.checkpoint_note()
    if note is None:
        return {}
    checkpoint = parse_checkpoint(note.text)
    found = {}
    for index, entry in log.retirements():
        if index < checkpoint.size:
            retired = parse_retirement(entry)
            if retired is None:
                continue
            found[retired.retired_key_id] = {
                "size": index,
                "entry": entry.decode(),
                "proof": log.proof(index, note, checkpoint).render(),
            }
    return found
