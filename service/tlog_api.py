"""The transparency log over HTTP (C2SP tlog-checkpoint, tlog-tiles, tlog-proof): the checkpoint, the tiles, the
list of logs, and the proof that a write of a match is in the log."""

from __future__ import annotations

import base64

from flask import Blueprint, Response, jsonify

from domain.tlog import parse_tile_path
from domain.tlog_note import ED25519_NOTE, Note, parse_checkpoint, vkey
from projections.tlog_log import TransparencyLog
from service.context import Gambit, gambit
from service.keeper import build_sequencer
from service.problems import Problem
from service.receipts import shown_receipt

bp = Blueprint("tlog", __name__)

TEXT = "text/plain; charset=utf-8"
# A tile's bytes never change once served (the log only grows): any cache may keep it forever.
IMMUTABLE = "public, max-age=31536000, immutable"
RETRY_SECONDS = "1"


def _log(g: Gambit) -> TransparencyLog:
    if g.log is None:
        raise Problem(404, "no_log", "this service keeps no transparency log")
    return g.log


def served_checkpoint(log: TransparencyLog) -> Note:
    """The checkpoint the log serves: the newest its witnesses cosigned when it has witnesses, else the newest signed.

    Before the leading worker's first integration this worker integrates what is stored (the integration is one
    transaction under the log's lock, so two processes doing it take turns) and so a log always has a checkpoint.
    """
    note = log.cosigned_note() or log.checkpoint_note()
    if note is None:
        build_sequencer(gambit()).integrate()
        note = log.cosigned_note() or log.checkpoint_note()
    if note is None:
        raise Problem(503, "log_starting", "the log has signed no checkpoint yet", "Log starting")
    return note


def list_logs() -> Response:
    """/log/: the logs this service keeps (one per event store), each with where its checkpoint is."""
    g = gambit()
    log = _log(g)
    key = vkey(log.origin, ED25519_NOTE, base64.b64decode(g.signer.public_key_b64))
    return jsonify(
        {"logs": [{"origin": log.origin, "checkpoint": "/log/checkpoint", "tiles": "/log/tile/", "vkey": key}]}
    )


def checkpoint() -> Response:
    """/log/checkpoint: the newest checkpoint, a signed note (with cosignatures, when there are witnesses)."""
    note = served_checkpoint(_log(gambit()))
    return Response(note.render(), content_type=TEXT, headers={"Cache-Control": "no-cache"})


def tile(tile_path: str) -> Response:
    """/log/tile/<L>/<N>[.p/<W>] and /log/tile/entries/<N>[.p/<W>]: hash and entry tiles of the served tree."""
    log = _log(gambit())
    parsed = parse_tile_path(tile_path)
    if parsed is None:
        raise Problem(
            404, "no_tile", f"{tile_path!r} is not a tile path (<L>/<N>[.p/<W>] or entries/<N>[.p/<W>], N as x001/234)"
        )
    level, index, width = parsed
    size = parse_checkpoint(served_checkpoint(log).text).size
    data = log.entries(index, width, size) if level == "entries" else log.tile(level, index, width, size)
    if data is None:
        kind = "entries tile" if level == "entries" else f"tile at level {level}"
        raise Problem(404, "no_tile", f"the log's tree of {size} leaves holds no {kind} {index} of width {width}")
    # A partial tile is immutable too: its width fixes its bytes; the full one replaces it in a client's path.
    return Response(data, content_type="application/octet-stream", headers={"Cache-Control": IMMUTABLE})


def log_proof(match_id: str, version: str) -> Response:
    """/matches/{id}/log-proof/{version}: the tlog-proof that the write ending at `version` is in the log.

    Public as a receipt is, and never for a version the caller may not see yet (a spectator delay).
    """
    g = gambit()
    log = _log(g)
    latest, receipt = shown_receipt(match_id, version)
    number = int(receipt["version"])
    note = served_checkpoint(log)
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
bp.add_url_rule("/matches/<match_id>/log-proof/<version>", view_func=log_proof)
