"""A match-export verifier written only from the specification in docs/verification.md.

It deliberately imports nothing from the product: it is the check a tournament organizer's
own tool would make, so a product bug in the record formulas cannot hide itself here.
"""

from __future__ import annotations

import hashlib
import hmac
import json


def _canonical(x):
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _draw(seed: bytes, match_id: str, client_seeds: list, purpose: str, n: int) -> int:
    counter = 0
    while True:
        msg = _canonical({"match": match_id, "client_seeds": client_seeds, "purpose": purpose, "counter": counter})
        x = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest()[:8], "big")
        if x < 2**64 - (2**64 % n):
            return x % n
        counter += 1


def _rederive(seed: bytes, match_id: str, client_seeds: list, chance: dict):
    kind, purpose, n = chance["draw"], chance["purpose"], chance["n"]
    if kind == "draw":
        return _draw(seed, match_id, client_seeds, purpose, n)
    if kind == "roll":
        return _draw(seed, match_id, client_seeds, purpose, n) + 1
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _draw(seed, match_id, client_seeds, f"{purpose}/{i}", i + 1)
        order[i], order[j] = order[j], order[i]
    return order


class VerificationError(AssertionError):
    """The export does not verify."""


def verify_export(text: str) -> dict:
    """Check an NDJSON export; returns counts of what was checked, raises VerificationError on failure."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    header, records = lines[0], lines[1:]
    trailer = records.pop() if records and "trailer" in records[-1] else None
    if header.get("format") != "gambit-match-export/1":
        raise VerificationError("unknown export format")
    match_id = header["match_id"]
    previous = _sha(("gambit:" + match_id).encode())
    checked = {"records": 0, "commitments_opened": 0, "chance_rederived": 0}
    seat_seeds: dict = {}
    for expected_version, rec in enumerate(records, start=1):
        if rec["version"] != expected_version:
            raise VerificationError(f"version {rec['version']} where {expected_version} was expected")
        body = {k: rec[k] for k in ("version", "kind", "timestamp", "public", "commitment")}
        chain = _sha(bytes.fromhex(previous) + _canonical(body))
        if chain != rec["chain"]:
            raise VerificationError(f"chain breaks at version {rec['version']}")
        previous = chain
        if "secret" in rec:
            if _sha(_canonical({"salt": rec["salt"], "secret": rec["secret"]})) != rec["commitment"]:
                raise VerificationError(f"commitment of version {rec['version']} does not open")
            checked["commitments_opened"] += 1
        if (rec["commitment"] is None) != (rec["audience"] is None):
            raise VerificationError(f"audience and commitment disagree at version {rec['version']}")
        if rec["kind"] == "SeatJoined":
            seat_seeds[rec["public"]["seat"]] = rec["public"]["client_seed"]
        checked["records"] += 1
    if not records or records[0]["kind"] != "MatchCreated":
        raise VerificationError("the first record is not MatchCreated")
    finished = [r for r in records if r["kind"] == "MatchFinished"]
    if finished:
        seed_hex = finished[-1]["public"]["server_seed"]
        if _sha(bytes.fromhex(seed_hex)) != records[0]["public"]["server_seed_commitment"]:
            raise VerificationError("the revealed server seed does not match its commitment")
        seed = bytes.fromhex(seed_hex)
        client_seeds = [seat_seeds.get(seat, "") for seat in header["seats"]]
        for rec in records:
            chance = rec["public"].get("chance")
            if chance is None:
                continue
            recorded = rec["public"]["chance_result"] if "chance_result" in rec["public"] else rec.get("secret", {}).get("chance_result")
            if recorded is None:
                raise VerificationError(f"chance result of version {rec['version']} is not visible")
            if _rederive(seed, match_id, client_seeds, chance) != recorded:
                raise VerificationError(f"chance result of version {rec['version']} does not re-derive")
            checked["chance_rederived"] += 1
    checked["head"] = previous
    if trailer is not None:
        # The signed trailer (issue 5) must name exactly the head and version the records end with.
        if (trailer["version"], trailer["head"]) != (len(records), previous):
            raise VerificationError(f"the trailer signs version {trailer['version']}, the records end at {len(records)}")
        checked["trailer"] = True
    return checked
