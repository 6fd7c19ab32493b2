"""The transparency log's proofs at a million leaves: their size and the time to build and to check them.

`python -m bench.costs --only proofs` runs it. The tree is built in the store as the service builds it:
a fresh store's log tables (projections/tlog_log.py, `TransparencyLog`), filled by the sequencer's own
append (`Sequencer._append`: each leaf hashed and inserted with the tile-level subtree hashes it completes)
in transactions of the sequencer's batch size, then one checkpoint signed with a service key. The leaves
are synthetic writes (a match id, version, chain head and the key id), 50 writes per match.

Then, for leaves and old sizes picked at random (seeded):
- inclusion: `TransparencyLog.proof` (what `GET /matches/{id}/log-proof` and an export's trailer serve: the
  hashes read from the store, fresh for each proof as for each request) rendered as a tlog-proof text;
  checked as `gambit verify` checks a receipt's proof (service/verify_log.py: parse, the checkpoint's
  signature, the root the hashes lead to);
- consistency: `TransparencyLog.consistency` from a random older size to the checkpoint's, checked with
  `domain.tlog.consistent` against both roots (the old root computed beforehand, untimed).
Each figure: hashes and bytes (min / median / max) and milliseconds (median / p95).
"""

from __future__ import annotations

import hashlib
import os
import random
import statistics
import tempfile
import time
import uuid

from bench.stores import store_url

WRITES_PER_MATCH = 50


def _leaf(index: int, key_id: str) -> tuple[str, int, str, str]:
    """A synthetic write: (match id, version, chain head, key id)."""
    match_id = str(uuid.UUID(int=index // WRITES_PER_MATCH + 1))
    head = hashlib.sha256(index.to_bytes(8, "big")).hexdigest()
    return match_id, index % WRITES_PER_MATCH + 1, head, key_id


def _ms_figures(seconds: list[float]) -> dict:
    ordered = sorted(seconds)
    return {"median_ms": round(statistics.median(ordered) * 1000, 3),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 3)}


def _spread(values: list[int]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def build_log(log, signer, leaves: int) -> float:
    """Fill an empty log with `leaves` synthetic writes through the sequencer's append; sign a checkpoint; seconds."""
    from domain.tlog import Frontier
    from domain.tlog_note import Checkpoint, Note
    from projections.tlog_log import BATCH, LOG_NAME, Sequencer

    sequencer = Sequencer(log, None, lambda receipt: True, signer.note_signature, lambda match_id: False)
    frontier = Frontier()
    started = time.perf_counter()
    for first in range(0, leaves, BATCH):
        batch = [_leaf(i, signer.key_id) for i in range(first, min(leaves, first + BATCH))]
        with log.store.transaction(lock_table="gambit_log_state") as cur:
            sequencer._append(cur, frontier, batch)
            cur.execute("UPDATE gambit_log_state SET size = ? WHERE name = ?", (frontier.size, LOG_NAME))
    body = Checkpoint(log.origin, frontier.size, frontier.root()).body()
    note = Note(body, (signer.note_signature(body, log.origin),))
    with log.store.transaction(lock_table="gambit_log_state") as cur:
        cur.execute("UPDATE gambit_log_state SET checkpoint = ? WHERE name = ?", (note.render(), LOG_NAME))
    return time.perf_counter() - started


def proof_costs(backend: str, leaves: int, samples: int, seed: int = 33) -> dict:
    """Build a log of `leaves` leaves in a fresh store of `backend` and measure `samples` proofs of each kind."""
    from domain.tlog import consistent
    from domain.tlog_note import parse_checkpoint, parse_proof
    from projections.sqlstore import SqlStore
    from projections.tlog_log import TransparencyLog
    from service.signing import Signer
    from service.verify_log import _included

    rng = random.Random(seed)
    out: dict = {"backend": backend, "leaves": leaves, "samples": samples, "load": [round(os.getloadavg()[0], 2)]}
    with tempfile.TemporaryDirectory(prefix=f"gambit-proofs-{backend}-") as tmp, store_url(backend, tmp) as url:
        signer = Signer.load(os.path.join(tmp, "data"))
        store = SqlStore(url)
        try:
            log = TransparencyLog(store, None, lambda: f"gambit-log/{signer.key_id}")
            build_s = build_log(log, signer, leaves)
            out["build_s"], out["build_leaves_per_s"] = round(build_s, 1), round(leaves / build_s)
            out["load_after_build"] = round(os.getloadavg()[0], 2)
            note = log.checkpoint_note()
            checkpoint = parse_checkpoint(note.text)
            keys = [signer.public_key_b64]
            picked = [0, leaves - 1] + [rng.randrange(leaves) for _ in range(max(0, samples - 2))]
            built, checked, sizes, counts = [], [], [], []
            for index in picked:
                started = time.perf_counter()
                text = log.proof(index, note, checkpoint).render()
                built.append(time.perf_counter() - started)
                match_id, version, head, key_id = _leaf(index, signer.key_id)
                receipt = {"match_id": match_id, "version": version, "head": head, "key_id": key_id, "log": log.origin}
                started = time.perf_counter()
                ok, detail, _ = _included(receipt, text, keys)
                checked.append(time.perf_counter() - started)
                if not ok:
                    raise AssertionError(f"the proof of leaf {index} does not check: {detail}")
                sizes.append(len(text.encode()))
                counts.append(len(parse_proof(text).hashes))
            out["inclusion"] = {"hashes": _spread(counts), "bytes": _spread(sizes), "build": _ms_figures(built),
                                "verify": _ms_figures(checked)}
            new_root = checkpoint.root
            built, checked, counts = [], [], []
            for old in [1, leaves // 2] + [rng.randrange(1, leaves) for _ in range(max(0, samples - 2))]:
                old_root = log.hashes().root(old)
                started = time.perf_counter()
                proof = log.consistency(old, leaves)
                built.append(time.perf_counter() - started)
                started = time.perf_counter()
                ok = consistent(old, leaves, old_root, new_root, proof)
                checked.append(time.perf_counter() - started)
                if not ok:
                    raise AssertionError(f"the consistency proof from {old} to {leaves} does not check")
                counts.append(len(proof))
            out["consistency"] = {"hashes": _spread(counts), "bytes": _spread([32 * n for n in counts]),
                                  "build": _ms_figures(built), "verify": _ms_figures(checked)}
        finally:
            store.close()
    out["load"].append(round(os.getloadavg()[0], 2))
    return out
