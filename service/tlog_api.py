"""The transparency log over HTTP (C2SP tlog-checkpoint, tlog-tiles, tlog-proof): the checkpoint, the tiles, the
list of logs, and the proof that a write of a match is in the log.

One log per event store: with several partitions (issue 34) each partition's log is served under
`/log/{partition}/…` and `/log/` lists them all; `/log/checkpoint` and `/log/tile/…` stay the first
partition's (the one log there was before partitions).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from flask import Blueprint, Response, jsonify

from domain.tlog import parse_tile_path
from domain.tlog_note import ED25519_NOTE, Note, parse_checkpoint, vkey
from projections.tlog_log import TransparencyLog, b64
from service.auth import caller
from service.context import Gambit, gambit, int_arg
from service.delay import delay_for, newest_shown
from service.keeper import build_sequencer
from service.log_keys import NoteKey
from service.problems import Problem
from service.receipts import shown_receipt

bp = Blueprint("tlog", __name__)

TEXT = "text/plain; charset=utf-8"
# A tile's bytes never change once served (the log only grows): any cache may keep it forever.
IMMUTABLE = "public, max-age=31536000, immutable"
RETRY_SECONDS = "1"


def _log(g: Gambit, partition: int = 0) -> TransparencyLog:
    logs = g.partition_logs()
    if not logs:
        raise Problem(404, "no_log", "this service keeps no transparency log")
    if partition >= len(logs):
        raise Problem(404, "no_log", f"this service keeps no log of a partition {partition} (it has {len(logs)})")
    return logs[partition]


def served_checkpoint(log: TransparencyLog, partition: int = 0) -> Note:
    """The checkpoint the log serves: the newest its witnesses cosigned when it has witnesses, else the newest signed.

    Before the leading worker's first integration this worker integrates what is stored (the integration is one
    transaction under the log's lock, so two processes doing it take turns) and so a log always has a checkpoint.
    """
    note = log.cosigned_note() or log.checkpoint_note()
    if note is None:
        build_sequencer(gambit(), partition).integrate()
        note = log.cosigned_note() or log.checkpoint_note()
    if note is None:
        raise Problem(503, "log_starting", "the log has signed no checkpoint yet", "Log starting")
    return note


def list_logs() -> Response:
    """/log/: the logs this service keeps (one per event store), each with where its checkpoint is."""
    g = gambit()
    logs = g.partition_logs()
    if not logs:
        raise Problem(404, "no_log", "this service keeps no transparency log")
    key = base64.b64decode(g.signer.public_key_b64)
    witnesses = [{"name": w.name, "vkey": _witness_vkey(w.key)} for w in g.settings.witnesses]
    listed = []
    for number, log in enumerate(logs):
        where = "/log/" if len(logs) == 1 else f"/log/{number}/"
        entry: dict[str, Any] = {"origin": log.origin, "checkpoint": f"{where}checkpoint", "tiles": f"{where}tile/"}
        if len(logs) > 1:
            entry["partition"] = number
        entry["vkey"] = vkey(log.origin, ED25519_NOTE, key)
        entry["consistency"] = f"{where}consistency"
        entry.update({"witnesses": witnesses, "quorum": g.settings.witness_quorum})
        listed.append(entry)
    return jsonify({"logs": listed})


def _witness_vkey(key: NoteKey) -> str:
    return vkey(key.name, key.kind, key.public_key)


def checkpoint() -> Response:
    """/log/checkpoint: the newest checkpoint, a signed note (with cosignatures, when there are witnesses)."""
    return partition_checkpoint(0)


def partition_checkpoint(partition: int) -> Response:
    """/log/{partition}/checkpoint: the newest checkpoint of a partition's log."""
    note = served_checkpoint(_log(gambit(), partition), partition)
    return Response(note.render(), content_type=TEXT, headers={"Cache-Control": "no-cache"})


def tile(tile_path: str) -> Response:
    """/log/tile/<L>/<N>[.p/<W>] and /log/tile/entries/<N>[.p/<W>]: hash and entry tiles of the served tree."""
    return partition_tile(0, tile_path)


def partition_tile(partition: int, tile_path: str) -> Response:
    """/log/{partition}/tile/…: hash and entry tiles of a partition's served tree."""
    log = _log(gambit(), partition)
    parsed = parse_tile_path(tile_path)
    if parsed is None:
        raise Problem(
            404, "no_tile", f"{tile_path!r} is not a tile path (<L>/<N>[.p/<W>] or entries/<N>[.p/<W>], N as x001/234)"
        )
    level, index, width = parsed
    size = parse_checkpoint(served_checkpoint(log, partition).text).size
    data = log.entries(index, width, size) if level == "entries" else log.tile(level, index, width, size)
    if data is None:
        kind = "entries tile" if level == "entries" else f"tile at level {level}"
        raise Problem(404, "no_tile", f"the log's tree of {size} leaves holds no {kind} {index} of width {width}")
    # A partial tile is immutable too: its width fixes its bytes; the full one replaces it in a client's path.
    return Response(data, content_type="application/octet-stream", headers={"Cache-Control": IMMUTABLE})


def consistency() -> Response:
    """/log/consistency?first=N&second=M: the RFC 6962 consistency proof from the log's tree of N leaves to its tree of
    M, for a client that kept a checkpoint of N (a seat's page) and is shown one of M; M at most the served tree's."""
    return partition_consistency(0)


def partition_consistency(partition: int) -> Response:
    """/log/{partition}/consistency?first=N&second=M: the same proof in a partition's log (a seat page of a match in
    that partition keeps that log's checkpoint)."""
    log = _log(gambit(), partition)
    first, second = int_arg("first"), int_arg("second")
    if first is None or second is None:
        raise Problem(400, "invalid_parameter", "give both tree sizes: ?first=N&second=M", parameter="first")
    if first > second:
        raise Problem(
            400, "invalid_parameter", f"'first' ({first}) must not be larger than 'second'", parameter="first"
        )
    size = parse_checkpoint(served_checkpoint(log, partition).text).size
    if second > size:
        raise Problem(
            404,
            "no_tree",
            f"the log's served tree has {size} leaves, not {second} (ask again after a newer checkpoint)",
            "No such tree",
        )
    proof = log.consistency(first, second)
    body = {"first": first, "second": second, "proof": [b64(h) for h in proof]}
    # The served tree only grows, so the proof between two of its sizes never changes.
    return Response(json.dumps(body), content_type="application/json", headers={"Cache-Control": IMMUTABLE})


def logged(match_id: str) -> Response:
    """/matches/{id}/logged: how far the match is in its log's served checkpoint — the log, the tree's size and the
    newest version a write of the match ended at whose leaf that tree holds (null before its first).

    A page asks for a write's proof only once this covers it, never for one it knows is not in the log yet. Never
    beyond the version the caller may see (a spectator delay), as the receipts are not.
    """
    g = gambit()
    latest = g.matches.match(match_id)
    shown = newest_shown(latest, delay_for(latest, caller(latest)))
    partition = g.matches.store.partition_number(latest.match_id)
    log = _log(g, partition)
    size = parse_checkpoint(served_checkpoint(log, partition).text).size
    version = log.newest_logged_version(latest.match_id, size, shown) if shown > 0 else None
    body = {"match_id": latest.match_id, "log": log.origin, "size": size, "version": version}
    return Response(json.dumps(body), content_type="application/json", headers={"Cache-Control": "no-cache"})


def log_proof(match_id: str, version: str) -> Response:
    """/matches/{id}/log-proof/{version}: the tlog-proof that the write ending at `version` is in the log.

    Public as a receipt is, and never for a version the caller may not see yet (a spectator delay).
    """
    g = gambit()
    latest, receipt = shown_receipt(match_id, version)
    partition = g.matches.store.partition_number(latest.match_id)
    log = _log(g, partition)
    number = int(receipt["version"])
    note = served_checkpoint(log, partition)
    checkpoint = parse_checkpoint(note.text)
    index = log.leaf_index(latest.match_id, number, receipt["head"])
    if index is None or index >= checkpoint.size:
        raise Problem(
            404,
            "not_in_log_yet",
            f"the write ending at version {number} is not in the log's served checkpoint yet "
            f"(its receipt promises it within {receipt.get('merge_delay', 'the merge delay of')} seconds)",
            "Not in the log yet",
            retry_after=int(RETRY_SECONDS),
        )
    proof = log.proof(index, note, checkpoint)
    return Response(proof.render(), content_type=TEXT, headers={"Cache-Control": "no-cache"})


bp.add_url_rule("/log/", view_func=list_logs)
bp.add_url_rule("/log/checkpoint", view_func=checkpoint)
bp.add_url_rule("/log/tile/<path:tile_path>", view_func=tile)
bp.add_url_rule("/log/consistency", view_func=consistency)
bp.add_url_rule("/log/<int:partition>/checkpoint", view_func=partition_checkpoint)
bp.add_url_rule("/log/<int:partition>/tile/<path:tile_path>", view_func=partition_tile)
bp.add_url_rule("/log/<int:partition>/consistency", view_func=partition_consistency)
bp.add_url_rule("/matches/<match_id>/log-proof/<version>", view_func=log_proof)
bp.add_url_rule("/matches/<match_id>/logged", view_func=logged)
