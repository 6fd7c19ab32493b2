"""The equivocation suite's world: a service with two witnesses on its store, the seats that keep what it gives them,
and what an attacker holding the service's database and signing key can do to its matches and its log.

Everything is the real code: the service app (its sequencer and its collection of cosignatures), `gambit witness`
apps over HTTP, `gambit monitor` and `gambit verify`. The attacker adds nothing but database statements: it deletes
a match's rows back to a version (a fork starts there: the service takes another write at the next version), and
moves the log's state back (so the next integration reads those rows again, or builds another tree under the same
name), or stores a checkpoint as the one to serve. Its signing key it uses through the service's own sequencer.
"""

from __future__ import annotations

import io
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from domain.tlog_note import parse_checkpoint, parse_note
from projections.tlog_log import LOG_NAME, TransparencyLog
from service.app import create_app
from service.keeper import build_sequencer, build_witnessing
from service.monitor import run_monitor
from service.settings import Settings
from service.verify_cli import run_verify
from service.witness import Witness, WitnessRefusal
from service.witnessing import parse_witnesses
from tests.hardening.play import ENDERS, new_match
from tests.support.api import auth, legal_options
from tests.support.tamper import StoreAccess
from tests.tlog.served_witness import ServedWitness, witness_key_files

MERGE_DELAY = 60
QUORUM = 2
# The tile levels above 0 whose stored nodes a rewound log drops (a tree of 2**63 leaves has no more).
NODE_LEVELS = range(8, 64, 8)


class SeededSecrets:
    """`secrets` for domain.application, drawn from a seeded generator: a seed replays the same matches."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def token_bytes(self, n: int) -> bytes:
        """n seeded bytes."""
        return self.rng.randbytes(n)

    def token_urlsafe(self, n: int) -> str:
        """A seeded token."""
        return self.rng.randbytes(n).hex()

    def uuid4(self) -> uuid.UUID:
        """A seeded random UUID."""
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)


class RecordingWitness(Witness):
    """A `gambit witness` that also remembers the code of every request it refused."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.refusals: list[str] = []

    def add_checkpoint(self, body: str, retirement: str | None = None) -> str:
        """The witness's own answer; a refusal is remembered."""
        try:
            return super().add_checkpoint(body, retirement)
        except WitnessRefusal as refusal:
            self.refusals.append(refusal.code)
            raise

    def refused_other_than_size(self) -> list[str]:
        """The refusals that are not the size handshake (a 409 telling a client that did not know the witness's size)."""
        return [code for code in self.refusals if code != "old_size_mismatch"]


class Server:
    """The service on its store, configured with two witnesses (quorum 2), restarted as a new process would be."""

    def __init__(self, database_url: str, tmp_path: Path) -> None:
        self.database_url = database_url
        first = create_app(Settings(database_url=database_url, data_dir=str(tmp_path)))
        self.log_vkey = first.test_client().get("/log/").get_json()["logs"][0]["vkey"]
        first.extensions["gambit"].close()
        self.witnesses = [RecordingWitness(str(tmp_path / f"w{i}"), f"witness-{i}", [self.log_vkey]) for i in (1, 2)]
        self.served = [ServedWitness(w) for w in self.witnesses]
        entries = " ".join(f"{w.witness.name}={w.url}={w.witness.vkey}" for w in self.served)
        self.settings = Settings(
            database_url=database_url,
            data_dir=str(tmp_path),
            log_merge_delay=MERGE_DELAY,
            witnesses=parse_witnesses(entries),
            witness_quorum=QUORUM,
        )
        self.key_files = witness_key_files(tmp_path, self.witnesses)
        self._start()

    def _start(self) -> None:
        self.app = create_app(self.settings)
        self.client = self.app.test_client()
        self.public_key = self.client.get("/.well-known/gambit-signing-key").get_json()["public_key"]

    def close(self) -> None:
        """Stop the service and its witnesses."""
        self.app.extensions["gambit"].close()
        for one in self.served:
            one.close()

    @property
    def log(self) -> TransparencyLog:
        """The service's log, read from its store."""
        log = self.app.extensions["gambit"].log
        assert log is not None
        return log

    def sequence(self) -> bool:
        """One round of the sequencer's duty: integrate, then collect cosignatures; whether a quorum cosigned."""
        gambit = self.app.extensions["gambit"]
        build_sequencer(gambit).integrate()
        witnessing = build_witnessing(gambit)
        assert witnessing is not None
        try:
            return witnessing.collect()
        finally:
            witnessing.close()

    def fetch(self, path: str) -> bytes:
        """What the service serves under /log/ (for the monitor): OSError for anything but a 200."""
        response = self.client.get(f"/log/{path}")
        if response.status_code != 200:
            raise OSError(f"HTTP {response.status_code} for {path}")
        return response.get_data()

    def served_checkpoint(self) -> str:
        """The text of GET /log/checkpoint."""
        return self.client.get("/log/checkpoint").get_data(as_text=True)

    # ----- the attacker: its database and its signing key --------------------------------------------------------
    def rewind_match(self, match_id: str, version: int) -> None:
        """Delete a match's rows after `version` (the append-only triggers dropped first); the running service reads
        the match from its store at the next request (it keeps no copy), so it takes the next write at `version + 1`."""
        store = StoreAccess(self.database_url)
        store.drop_guards()
        store.rewind(match_id, version)

    def rewind_log(self, state: tuple[int, int], drop_leaves: bool) -> None:
        """Set the log back to (size, position): the next integration reads the store from that position again.
        With `drop_leaves`, the leaves past that size go (the next integration builds another tree under the same
        name); without, they stay and whatever is read again is appended after them."""
        size, position = state
        with self.log.store.transaction(lock_table="gambit_log_state") as cur:
            if drop_leaves:
                cur.execute("DELETE FROM gambit_log_entries WHERE idx >= ?", (size,))
                for level in NODE_LEVELS:
                    cur.execute("DELETE FROM gambit_log_nodes WHERE level = ? AND idx >= ?", (level, size >> level))
                cur.execute("UPDATE gambit_log_state SET size = ? WHERE name = ?", (size, LOG_NAME))
            cur.execute("UPDATE gambit_log_state SET position = ? WHERE name = ?", (position, LOG_NAME))

    def serve_signed_checkpoint(self) -> None:
        """Store the newest checkpoint the log key signed as the one to serve, cosigned or not."""
        note = self.log.checkpoint_note()
        assert note is not None
        with self.log.store.transaction(lock_table="gambit_log_state") as cur:
            cur.execute("UPDATE gambit_log_state SET cosigned = ? WHERE name = ?", (note.render(), LOG_NAME))

    def run_monitor(self, state_file: Path) -> tuple[int, str]:
        """`gambit monitor --once --state FILE --log-key …` against the service: (exit status, its output)."""
        out = io.StringIO()
        code = run_monitor("", str(state_file), self.log_vkey, True, 0, out, io.StringIO(), fetch=self.fetch)
        return code, out.getvalue()


@dataclass
class Seat:
    """A party to a match: its token, the receipts it kept (with their proofs once the log has them), the newest
    cosigned checkpoint it has seen, and the export it took of its match."""

    name: str
    token: str
    folder: Path
    receipts: dict[int, dict] = field(default_factory=dict)
    checkpoint: str | None = None
    export: Path | None = None

    def keep(self, server: Server, match_id: str, version: int) -> None:
        """Keep the receipt of a write, with its log proof when the served checkpoint holds it."""
        receipt = server.client.get(f"/matches/{match_id}/receipts/{version}", headers=auth(self.token)).get_json()
        self.receipts[version] = receipt
        self.prove(server, match_id)

    def prove(self, server: Server, match_id: str) -> None:
        """Ask for the proofs of kept receipts that have none yet; keep only a proof of the very receipt kept."""
        for version, receipt in self.receipts.items():
            if "log_proof" in receipt:
                continue
            response = server.client.get(f"/matches/{match_id}/log-proof/{version}", headers=auth(self.token))
            head = server.client.get(f"/matches/{match_id}/receipts/{version}").get_json().get("head")
            if response.status_code == 200 and head == receipt["head"]:
                receipt["log_proof"] = response.get_data(as_text=True)

    def keep_checkpoint(self, server: Server) -> None:
        """Keep the served checkpoint when it is newer (larger) than the one kept."""
        text = server.served_checkpoint()
        if self.checkpoint is None or _size(text) > _size(self.checkpoint):
            self.checkpoint = text

    def take_export(self, server: Server, match_id: str) -> None:
        """Export the match as the service shows it now (with the consistency proof from the kept checkpoint)."""
        since = f"?log_since={_size(self.checkpoint)}" if self.checkpoint else ""
        path = self.folder / f"{self.name}.ndjson"
        path.write_text(server.client.get(f"/matches/{match_id}/export{since}").get_data(as_text=True))
        self.export = path

    def verify(self, server: Server, now: float) -> tuple[int, dict]:
        """`gambit verify EXPORT --key K --receipt … --checkpoint … --witness-key … --quorum 2` at time `now`:
        (exit code, the report's checks by name, with the verdict under "verdict")."""
        assert self.export is not None
        receipts = []
        for version, receipt in self.receipts.items():
            path = self.folder / f"{self.name}-receipt-{version}.json"
            path.write_text(json.dumps(receipt))
            receipts.append(str(path))
        checkpoint = None
        if self.checkpoint is not None:
            checkpoint = self.folder / f"{self.name}.checkpoint"
            checkpoint.write_text(self.checkpoint)
        out, err = io.StringIO(), io.StringIO()
        code = run_verify(
            str(self.export),
            [server.public_key],
            True,
            out=out,
            err=err,
            receipts=receipts,
            checkpoint=str(checkpoint) if checkpoint else None,
            witness_keys=server.key_files,
            quorum=QUORUM,
            now=lambda: now,
        )
        assert out.getvalue(), err.getvalue()
        report = json.loads(out.getvalue())["reports"][0]
        checks = {c["check"]: c for c in report["checks"]}
        checks["verdict"] = report["verdict"]
        return code, checks

    def written_at(self, version: int) -> float:
        """The time the export's record of `version` says it was written."""
        assert self.export is not None
        for line in self.export.read_text().splitlines():
            record = json.loads(line)
            if record.get("version") == version and "timestamp" in record:
                return datetime.fromisoformat(record["timestamp"]).timestamp()
        raise AssertionError(f"the export has no record of version {version}")


def _size(checkpoint_text: str) -> int:
    return parse_checkpoint(parse_note(checkpoint_text).text).size


@dataclass
class Match:
    """A match on the server with every seat joined, played at random by a seeded generator."""

    server: Server
    rng: random.Random
    match_id: str = ""
    tokens: dict[str, str] = field(default_factory=dict)

    @classmethod
    def start(cls, server: Server, rng: random.Random, ruleset: str) -> Match:
        """Create a match of the ruleset and join all its seats."""
        match_id, tokens = new_match(server.client, ruleset, rng)
        return cls(server, rng, match_id, tokens)

    def summary(self) -> dict:
        """The match as its first seat sees it."""
        return self.server.client.get(
            f"/matches/{self.match_id}", headers=auth(next(iter(self.tokens.values())))
        ).get_json()

    def choices(self) -> tuple[str, list[dict]] | None:
        """A seat to act and the commands it may send that keep the match going; None once it has ended."""
        summary = self.summary()
        if summary["status"] != "active" or not summary["to_act"]:
            return None
        seat = self.rng.choice(sorted(summary["to_act"]))
        bodies = [b for b in legal_options(self.server.client, self.match_id, self.tokens[seat], self.rng)]
        going = [b for b in bodies if b["type"] not in ENDERS]
        return seat, going

    def send(self, seat: str, body: dict) -> dict:
        """Post a command as a seat; its receipt."""
        response = self.server.client.post(
            f"/matches/{self.match_id}/commands", json=body, headers=auth(self.tokens[seat])
        )
        assert response.status_code == 201, (body, response.get_json())
        return response.get_json()["receipt"]

    def play(self, moves: int) -> None:
        """Play up to `moves` random commands that keep the match going."""
        for _ in range(moves):
            found = self.choices()
            if found is None or not found[1]:
                return
            seat, bodies = found
            self.send(seat, self.rng.choice(bodies))

    def find_fork(self) -> Fork:
        """Play on to a point where the seat to act has two commands whose writes end at one version with two heads:
        the fork an equivocating server shows two parties. Each candidate is tried and taken back (the attacker's
        rewind), so the match is left at the fork point."""
        for _ in range(100):
            found = self.choices()
            assert found is not None, "the match ended before a fork point"
            seat, bodies = found
            distinct = list({json.dumps(b, sort_keys=True): b for b in bodies}.values())
            self.rng.shuffle(distinct)
            base = self.summary()["version"]
            if len(distinct) >= 2:
                first = distinct[0]
                ends = self.send(seat, first)["version"]
                self.server.rewind_match(self.match_id, base)
                for second in distinct[1:5]:
                    version = self.send(seat, second)["version"]
                    self.server.rewind_match(self.match_id, base)
                    if version == ends:
                        return Fork(base, seat, first, second, ends)
            self.send(seat, distinct[0])
        raise AssertionError("no point of the match had two writes ending at one version")


@dataclass(frozen=True)
class Fork:
    """Where a match forks: the version before, the seat to act, its two commands, the version both writes end at."""

    base: int
    seat: str
    first: dict
    second: dict
    version: int
