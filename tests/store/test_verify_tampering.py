"""A record that proves itself: every attack on a match's record fails `gambit verify`, on both stores.

Two attackers. A *dealer with the key* edits an export and re-signs it: forged deals and
verdicts must fail on the rules, since the signature proves nothing about honesty. A *database
writer without the key* drops the triggers and rewrites, truncates or edits rows: the service
must notice (readiness, refused writes, the export's trailer) and never sign what it did not
write, and the export must fail.
"""

from __future__ import annotations

import io
import json
import logging
import random

import pytest

from domain.records import chain_link, commitment, new_salt
from service.app import create_app
from service.cli import build_parser
from service.settings import Settings
from service.signing import Signer
from service.verify_cli import EXIT_FAILED, EXIT_UNSIGNED, EXIT_USAGE, EXIT_VERIFIED, run_verify
from tests.stores import BACKENDS, partitioned_urls_for
from tests.support.api import auth, going_on, join_all, play_to_end
from tests.support.tamper import SNAPSHOTS, StoreAccess


class Played:
    """A match played on a store, with what each attacker and the verifier need."""

    def __init__(self, settings: Settings, tmp_path, ruleset: str, config: dict, seed: int,
                 finish: bool = True, upto: int | None = None, options: dict | None = None) -> None:
        self.settings, self.tmp_path = settings, tmp_path
        self.app = create_app(settings)
        self.client = self.app.test_client()
        tournament = self.client.post("/tournaments", json={"name": "t"}).get_json()
        self.organizer = tournament["organizer_key"]
        match = self.client.post("/matches", json={"ruleset": ruleset, "config": config,
                                                   "tournament_id": tournament["tournament_id"]},
                                 headers=auth(self.organizer)).get_json()
        self.match_id = match["match_id"]
        self.tokens = join_all(self.client, match, options=options)
        rng = random.Random(seed)
        if finish:
            play_to_end(self.client, self.match_id, self.tokens, rng)
        else:
            play_until(self.client, self.match_id, self.tokens, rng, upto)
        self.key = self.client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
        self.store = StoreAccess(settings.database_url)

    def fresh(self):
        """A new process's client on the (maybe tampered) store."""
        return create_app(self.settings).test_client()

    def export_lines(self) -> list[dict]:
        """The organizer's export as parsed lines, read by a fresh process."""
        text = self.fresh().get(f"/matches/{self.match_id}/export", headers=auth(self.organizer)).get_data(as_text=True)
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def verify(self, lines: list[dict] | list[str], key: str | None = "service") -> tuple[int, dict]:
        """Write the lines to a file and run `gambit verify` on it; (exit code, JSON report)."""
        path = self.tmp_path / "export.ndjson"
        path.write_text("".join(line if isinstance(line, str) else json.dumps(line) + "\n" for line in lines))
        out = io.StringIO()
        code = run_verify(str(path), self.key if key == "service" else key, as_json=True, out=out, err=io.StringIO())
        return code, json.loads(out.getvalue())

    def signer(self) -> Signer:
        """The service's own signing key: what a dishonest dealer holds."""
        return Signer.load(self.settings.data_dir, self.settings.signing_key)


def play_until(client, match_id: str, tokens: dict, rng: random.Random, version: int) -> None:
    """Play random legal commands until the match reaches a version (and is still running)."""
    while True:
        summary = client.get(f"/matches/{match_id}").get_json()
        assert summary["status"] == "active", "the match ended before the version wanted"
        if summary["version"] >= version:
            return
        seat = rng.choice(sorted(summary["to_act"]))
        legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens[seat])).get_json()
        response = client.post(f"/matches/{match_id}/commands", json=rng.choice(going_on(legal["commands"])),
                               headers=auth(tokens[seat]))
        assert response.status_code == 201, response.get_json()


def failed(report: dict) -> dict:
    """Check name → detail of every failed check of the first report."""
    return {c["check"]: c["detail"] for c in report["reports"][0]["checks"] if c["status"] == "fail"}


def rechain_and_resign(lines: list[dict], signer: Signer) -> list[dict]:
    """Rebuild every chain link and sign the new head: what a dealer holding the key can do."""
    header, records, trailer = lines[0], lines[1:-1], lines[-1]
    previous = None
    from domain.records import genesis

    previous = genesis(header["match_id"])
    for record in records:
        record["chain"] = chain_link(previous, record["version"], record["kind"], record["timestamp"],
                                     record["public"], record["commitment"])
        previous = record["chain"]
    receipt = signer.receipt(header["match_id"], records[-1]["version"], previous)
    return [dict(header, version=records[-1]["version"]), *records, {"trailer": trailer["trailer"], **receipt}]


def recommit(record: dict) -> None:
    """A fresh salt and commitment for an edited secret."""
    record["salt"] = new_salt()
    record["commitment"] = commitment(record["secret"], record["salt"])


@pytest.fixture
def gambitz(settings_for, tmp_path):
    """A finished 3-seat gambitz match (deals and draws)."""
    return Played(settings_for, tmp_path, "gambitz", {"players": 3}, seed=3)


@pytest.fixture
def dragons(settings_for, tmp_path):
    """A finished 3-seat dragons-gambit match (Final Gambit calls with opened evidence)."""
    return Played(settings_for, tmp_path, "dragons-gambit", {"players": 3, "target_score": 40}, seed=8)


# --- honest exports ---------------------------------------------------------------------------

def test_an_untouched_match_verifies_with_every_check_passing(dragons):
    code, report = dragons.verify(dragons.export_lines())
    assert code == EXIT_VERIFIED and report["verdict"] == "VERIFIED"
    statuses = {c["check"]: c["status"] for c in report["reports"][0]["checks"]}
    for check in ("header", "chain", "commitments", "chance", "evidence", "signature", "receipt", "replay",
                  "dealt secrets", "verdicts", "outcome"):
        assert statuses[check] == "pass", (check, report)


def test_without_a_key_an_untouched_export_is_unsigned_never_verified(dragons):
    code, report = dragons.verify(dragons.export_lines(), key=None)
    assert code == EXIT_UNSIGNED and report["verdict"] == "UNSIGNED" and not report["ok"]


def test_a_truncated_export_without_a_key_is_not_verified(dragons):
    lines = dragons.export_lines()
    code, report = dragons.verify(lines[:-4], key=None)
    assert code == EXIT_FAILED and "receipt" in failed(report)


# --- a dealer holding the key ----------------------------------------------------------------

def test_a_dealer_who_swaps_a_dealt_card_with_a_later_draw_and_resigns_is_caught(gambitz):
    lines = gambitz.export_lines()
    records = lines[1:-1]
    dealt = next(r for r in records if r["kind"] == "CardsDealt")
    later = next((r for r in records if r["kind"] == "CardsDrawn"), None) or [
        r for r in records if r["kind"] == "CardsDealt"][1]
    dealt["secret"]["cards"][0], later["secret"]["cards"][0] = later["secret"]["cards"][0], dealt["secret"]["cards"][0]
    recommit(dealt)
    recommit(later)
    code, report = gambitz.verify(rechain_and_resign(lines, gambitz.signer()))
    assert code == EXIT_FAILED
    assert f"version {dealt['version']}" in failed(report)["dealt secrets"]
    assert {"chain", "commitments", "receipt", "signature"}.isdisjoint(failed(report)), "only the rules catch it"


def test_leaving_one_secret_out_of_a_finished_export_fails_and_a_forged_verdict_with_it(dragons):
    lines = dragons.export_lines()
    records = lines[1:-1]
    ruling = next(r for r in records if "bluff_call" in r["public"])
    call = ruling["public"]["bluff_call"]
    call["verdict"] = "false" if call["verdict"] == "true" else "true"
    hidden = next(r for r in records if r.get("secret") and r["version"] not in ruling["public"].get("opens", []))
    del hidden["secret"], hidden["salt"]
    code, report = dragons.verify(rechain_and_resign(lines, dragons.signer()))
    assert code == EXIT_FAILED
    assert f"version {hidden['version']} is not opened" in failed(report)["commitments"]


def test_a_forged_verdict_with_a_rebuilt_chain_and_a_new_signature_is_caught_by_the_rules(dragons):
    lines = dragons.export_lines()
    ruling = next(r for r in lines[1:-1] if "bluff_call" in r["public"])
    call = ruling["public"]["bluff_call"]
    call["verdict"] = "false" if call["verdict"] == "true" else "true"
    code, report = dragons.verify(rechain_and_resign(lines, dragons.signer()))
    found = failed(report)
    # Caught by re-adjudication, or earlier where the ruleset fixes the verdict in the public part.
    assert code == EXIT_FAILED and ("differs from the rules" in found.get("verdicts", "")
                                    or "verdict" in found.get("public parts", "")), found


@pytest.mark.parametrize("field, value", [("config", {"players": 4, "target_score": 40}), ("seats", ["p1", "p2"]),
                                          ("ruleset", "gambitz"), ("match_id", "another")])
def test_the_export_header_is_bound_to_the_chained_records(dragons, field, value):
    lines = dragons.export_lines()
    lines[0][field] = value
    code, report = dragons.verify(lines)
    assert code == EXIT_FAILED, report


def test_a_trailer_for_another_match_or_another_key_fails(dragons, tmp_path):
    lines = dragons.export_lines()
    moved = [*lines[:-1], dict(lines[-1], match_id="00000000-0000-0000-0000-000000000000")]
    assert dragons.verify(moved)[0] == EXIT_FAILED
    rekeyed = [*lines[:-1], dict(lines[-1], key_id="0000000000000000")]
    code, report = dragons.verify(rekeyed)
    assert code == EXIT_FAILED and "signature" in failed(report)
    other = Signer.load(str(tmp_path / "other-key"))
    code, report = dragons.verify(lines, key=other.public_key_b64)
    assert code == EXIT_FAILED and "signature" in failed(report)


# --- malformed exports: a report, never a traceback --------------------------------------------

def _malformed_variants(lines: list[dict], signer: Signer) -> dict[str, list]:
    finished = next(i for i, line in enumerate(lines) if line.get("kind") == "MatchFinished")
    non_hex = json.loads(json.dumps(lines))
    non_hex[finished]["public"]["server_seed"] = "zz" * 32
    no_public = json.loads(json.dumps(lines))
    del no_public[3]["public"]
    no_kind = json.loads(json.dumps(lines))
    del no_kind[3]["kind"]
    return {
        "a non-hex server seed": rechain_and_resign(non_hex, signer),
        "a record without public": no_public,
        "a record without kind": no_kind,
        "a line after the trailer": [*lines, {"kind": "Extra"}],
        "a line that is not JSON": [*lines[:3], "{not json\n", *lines[3:]],
        "NaN in a record": [*lines[:3], json.dumps(lines[3]).replace('"version": 3', '"version": NaN') + "\n",
                            *lines[4:]],
        "a list for a line": [*lines[:3], "[1, 2]\n", *lines[3:]],
        "a header only": lines[:1],
        "an empty file": [],
        "a number for a secret": [*lines[:4], dict(lines[4], secret=5, salt="00"), *lines[5:]],
        "a huge permutation": _huge_permutation(lines),
    }


def _huge_permutation(lines: list[dict]) -> list[dict]:
    changed = json.loads(json.dumps(lines))
    record = next(line for line in changed if "chance" in line.get("public", {}))
    record["public"]["chance"]["n"] = 10**9
    return changed


def test_malformed_exports_give_a_failed_report_not_a_traceback(dragons):
    lines = dragons.export_lines()
    for name, variant in _malformed_variants(lines, dragons.signer()).items():
        code, report = dragons.verify(variant)
        assert code == EXIT_FAILED, name
        assert failed(report), name


def test_a_redrawn_or_unscoped_chance_purpose_fails_even_when_resigned(gambitz):
    lines = gambitz.export_lines()
    shuffle = next(r for r in lines[1:-1] if "chance" in r["public"])
    for purpose in ("shuffle", f"v{shuffle['version'] + 1}/shuffle"):
        forged = json.loads(json.dumps(lines))
        record = next(r for r in forged[1:-1] if r["version"] == shuffle["version"])
        record["public"]["chance"]["purpose"] = purpose
        code, report = gambitz.verify(rechain_and_resign(forged, gambitz.signer()))
        assert code == EXIT_FAILED and "purpose" in failed(report)["chance"], purpose


def test_a_repeated_key_in_a_line_fails(dragons):
    lines = dragons.export_lines()
    text = json.dumps(lines[2])
    doubled = text[:-1] + ', "kind": "Forged"}'
    code, report = dragons.verify([*lines[:2], doubled + "\n", *lines[3:]])
    assert code == EXIT_FAILED and "repeats a key" in failed(report)["format"]


def test_a_receipt_a_seat_kept_proves_an_export_was_cut_back(dragons, tmp_path):
    lines = dragons.export_lines()
    signer = dragons.signer()
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps({"version": lines[-1]["version"], "receipt": lines[-1]}))
    honest = dragons.tmp_path / "export.ndjson"
    honest.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run_verify(str(honest), dragons.key, True, out=io.StringIO(), err=io.StringIO(),
                      receipts=[str(kept)]) == EXIT_VERIFIED
    # The dealer drops the last write and signs the shorter history: alone it verifies ...
    cut = rechain_and_resign([*lines[:-2], lines[-1]], signer)
    assert dragons.verify(cut)[0] == EXIT_VERIFIED
    # ... but not against the receipt the seat kept for the write it made.
    path = dragons.tmp_path / "cut.ndjson"
    path.write_text("".join(json.dumps(line) + "\n" for line in cut))
    out = io.StringIO()
    assert run_verify(str(path), dragons.key, True, out=out, err=io.StringIO(), receipts=[str(kept)]) == EXIT_FAILED
    assert "records were removed" in failed(json.loads(out.getvalue()))["kept receipts"]


def test_a_missing_export_or_key_is_a_one_line_error_with_exit_code_2(tmp_path, dragons):
    err = io.StringIO()
    assert run_verify(str(tmp_path / "nope.ndjson"), None, False, out=io.StringIO(), err=err) == EXIT_USAGE
    assert err.getvalue().count("\n") == 1 and "no export" in err.getvalue()
    path = tmp_path / "export.ndjson"
    path.write_text("".join(json.dumps(line) + "\n" for line in dragons.export_lines()))
    for key in (str(tmp_path / "missing-key.json"), "not-a-key", "AAAA"):
        err = io.StringIO()
        assert run_verify(str(path), key, False, out=io.StringIO(), err=err) == EXIT_USAGE, key
        assert err.getvalue().count("\n") == 1, err.getvalue()


# --- a database writer without the key ----------------------------------------------------------

def _assert_the_service_says_so(played: Played, problem_part: str) -> None:
    """Readiness fails with the problem; writes are refused and change nothing; the export fails."""
    fresh = played.fresh()
    before = fresh.get(f"/matches/{played.match_id}").get_json()
    ready = fresh.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["code"] == "integrity_alert", ready.get_json()
    assert any(a["match_id"] == played.match_id and problem_part in a["problem"] for a in ready.get_json()["alerts"])
    dispute = fresh.post(f"/matches/{played.match_id}/disputes", json={"call_version": 1, "reason": "x"},
                         headers=auth(played.organizer))
    assert dispute.status_code == 503 and dispute.get_json()["code"] == "integrity_alert", dispute.get_json()
    after = fresh.get(f"/matches/{played.match_id}").get_json()
    assert after["version"] == before["version"], "a tampered match took a write"
    lines = played.export_lines()
    code, report = played.verify(lines)
    assert code == EXIT_FAILED, report


def test_rewriting_history_and_rebuilding_the_chain_in_the_database_is_never_signed(dragons):
    dragons.store.drop_guards()
    rows = dragons.store.rows(dragons.match_id)
    ruling = next(v for v, r in sorted(rows.items()) if "bluff_call" in r["public"])

    def forge(rows: dict) -> None:
        call = rows[ruling]["public"]["bluff_call"]
        call["verdict"] = "false" if call["verdict"] == "true" else "true"

    dragons.store.rewrite_from(dragons.match_id, ruling, forge)
    _assert_the_service_says_so(dragons, "receipt")
    trailer = dragons.export_lines()[-1]
    assert trailer["version"] < ruling or trailer.get("integrity_problem"), "no receipt covers the forged records"


def test_truncating_a_write_in_the_database_leaves_records_past_the_newest_receipt(dragons):
    dragons.store.drop_guards()
    last = max(dragons.store.rows(dragons.match_id))
    dragons.store.truncate_after(dragons.match_id, last - 1)  # MatchFinished was written with the last command
    _assert_the_service_says_so(dragons, "carry no receipt")
    trailer = dragons.export_lines()[-1]
    assert "unreceipted" in trailer or trailer["version"] < last - 1


def test_editing_a_stored_secret_under_an_intact_chain_is_noticed(settings_for, tmp_path):
    played = Played(settings_for, tmp_path, "gambitz", {"players": 2}, seed=5, finish=False, upto=12)
    seat = played.client.get(f"/matches/{played.match_id}").get_json()["to_act"][0]
    command = played.client.get(f"/matches/{played.match_id}/legal-commands",
                                headers=auth(played.tokens[seat])).get_json()["commands"][0]
    played.store.drop_guards()
    rows = played.store.rows(played.match_id)
    dealt = next(v for v, r in sorted(rows.items()) if r["kind"] == "CardsDealt")
    rows[dealt]["secret"]["cards"][0] = "Q♠" if rows[dealt]["secret"]["cards"][0] != "Q♠" else "K♠"
    played.store.write(played.match_id, dealt, rows[dealt])
    _assert_the_service_says_so(played, f"version {dealt}: the secret does not open")
    refused = played.fresh().post(f"/matches/{played.match_id}/commands", json=command,
                                  headers=auth(played.tokens[seat]))
    assert refused.status_code == 503 and refused.get_json()["code"] == "integrity_alert"


def test_an_edited_snapshot_changes_nothing_a_player_sees(settings_for, tmp_path, caplog):
    played = Played(settings_for, tmp_path, "gambitz", {"players": 2}, seed=11, finish=False, upto=60)
    match_id = played.match_id
    snapshots = played.store.raw(match_id, SNAPSHOTS)
    assert snapshots, "a snapshot was taken at version 50"
    version = max(snapshots)
    seat = min(played.tokens)
    view_before = played.fresh().get(f"/matches/{match_id}/view", headers=auth(played.tokens[seat])).get_json()
    with caplog.at_level(logging.ERROR, logger="gambit.integrity"):
        played.fresh().get(f"/matches/{match_id}")
    assert "INTEGRITY" not in caplog.text, "an untouched sealed snapshot is used as it is"
    # The attacker puts its own token's hash in the snapshot and reorders the deck.
    from domain.store import token_hash

    data = snapshots[version]
    body_start = data.index(b"{")
    snapshot = json.loads(data[body_start:])
    snapshot["state"]["seats"][seat]["token_hash"] = token_hash("mallory")
    snapshot["state"]["state"]["deck"].reverse()
    for forged in (data[:body_start] + json.dumps(snapshot).encode(), json.dumps(snapshot).encode()):
        played.store.write(match_id, version, forged, table=SNAPSHOTS)
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="gambit.integrity"):
            fresh = played.fresh()
            assert fresh.get(f"/matches/{match_id}/view", headers=auth("mallory")).status_code == 401
            view_after = fresh.get(f"/matches/{match_id}/view", headers=auth(played.tokens[seat])).get_json()
        assert view_after == view_before
        assert "INTEGRITY" in caplog.text and "snapshot" in caplog.text


def test_receipts_are_stored_with_the_write_and_returned_to_the_seat(settings_for, tmp_path):
    played = Played(settings_for, tmp_path, "gambitz", {"players": 2}, seed=2, finish=False, upto=8)
    summary = played.client.get(f"/matches/{played.match_id}").get_json()
    seat = summary["to_act"][0]
    legal = played.client.get(f"/matches/{played.match_id}/legal-commands", headers=auth(played.tokens[seat])).get_json()
    body = played.client.post(f"/matches/{played.match_id}/commands", json=legal["commands"][0],
                              headers=auth(played.tokens[seat])).get_json()
    receipt = body["receipt"]
    assert receipt["version"] == body["version"] and receipt["head"] == body["events"][-1]["chain"]
    assert played.signer().verify(receipt)
    stored = played.store.rows(played.match_id)[body["version"]]
    assert stored["meta"]["receipt"] == receipt, "the receipt is in the same row as the record it covers"


def test_after_a_key_rotation_receipts_of_the_previous_key_stay_valid_only_when_it_is_named(dragons, tmp_path):
    old_key = dragons.key
    new_dir = tmp_path / "rotated"
    new_dir.mkdir()
    rotated = Settings(database_url=dragons.settings.database_url, data_dir=str(new_dir))
    forgetful = create_app(rotated).test_client()
    assert forgetful.get("/readyz").status_code == 200
    assert forgetful.get(f"/matches/{dragons.match_id}").status_code == 200
    ready = forgetful.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["code"] == "integrity_alert", "an unknown key is not ours"
    remembering = create_app(Settings(database_url=dragons.settings.database_url, data_dir=str(new_dir),
                                      previous_signing_keys=(old_key,))).test_client()
    assert remembering.get(f"/matches/{dragons.match_id}").status_code == 200
    assert remembering.get("/readyz").status_code == 200, "naming the previous key clears the alert"


def test_a_match_played_across_a_key_rotation_verifies_with_both_keys_and_fails_clearly_with_the_new_one_alone(
        settings_for, tmp_path):
    played = Played(settings_for, tmp_path, "gambitz", {"players": 2}, seed=2, finish=False, upto=6)
    seat = played.client.get(f"/matches/{played.match_id}").get_json()["to_act"][0]
    legal = played.client.get(f"/matches/{played.match_id}/legal-commands",
                              headers=auth(played.tokens[seat])).get_json()
    kept_before = played.client.post(f"/matches/{played.match_id}/commands", json=legal["commands"][0],
                                     headers=auth(played.tokens[seat])).get_json()["receipt"]
    old_key = played.key
    # The operator rotates the key: a new one signs, the old one is named as previous (deploy/runbook.md).
    rotated_dir = tmp_path / "rotated"
    rotated_dir.mkdir()
    rotated = create_app(Settings(database_url=played.settings.database_url, data_dir=str(rotated_dir),
                                  previous_signing_keys=(old_key,))).test_client()
    play_to_end(rotated, played.match_id, played.tokens, random.Random(2))
    document = rotated.get("/.well-known/gambit-signing-key").get_json()
    new_key = document["public_key"]
    assert new_key != old_key
    assert document["previous_keys"] == [{"public_key": old_key, "key_id": kept_before["key_id"]}]
    export = tmp_path / "export.ndjson"
    export.write_text(rotated.get(f"/matches/{played.match_id}/export",
                                  headers=auth(played.organizer)).get_data(as_text=True))
    assert json.loads(export.read_text().splitlines()[-1])["key_id"] == document["key_id"]
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps(kept_before))
    key_document = tmp_path / "key.json"
    key_document.write_text(json.dumps(document))

    def verify(*keys: str) -> tuple[int, dict]:
        arguments = build_parser().parse_args(
            ["verify", "--json", "--receipt", str(kept), *(f"--key={key}" for key in keys), str(export)])
        out = io.StringIO()
        code = run_verify(arguments.path, arguments.key, arguments.json, out=out, err=io.StringIO(),
                          receipts=arguments.receipt)
        return code, json.loads(out.getvalue())

    for keys in ((new_key, old_key), (old_key, new_key), (str(key_document),)):
        code, report = verify(*keys)
        assert code == EXIT_VERIFIED, (keys, report)
    code, report = verify(new_key)
    assert code == EXIT_FAILED
    problem = failed(report)["kept receipts"]
    assert f"version {kept_before['version']}" in problem and kept_before["key_id"] in problem
    assert "not signed by any given key" in problem
    code, report = verify(old_key)
    assert code == EXIT_FAILED and document["key_id"] in failed(report)["signature"]


def _disputed_and_amended(played: Played) -> list[dict]:
    """The organizer disputes a ruling and rules it with an amended outcome; the export of it all."""
    lines = played.export_lines()
    ruling = next(r for r in lines[1:-1] if "bluff_call" in r["public"])
    filed = played.client.post(f"/matches/{played.match_id}/disputes",
                               json={"call_version": ruling["version"], "reason": "the count looked wrong"},
                               headers=auth(played.organizer))
    assert filed.status_code == 201, filed.get_json()
    ruled = played.client.post(f"/matches/{played.match_id}/disputes/1/ruling",
                               json={"decision": "overturned", "note": "recounted",
                                     "amended_outcome": {"winners": [lines[0]["seats"][0]], "reason": "recount"}},
                               headers=auth(played.organizer))
    assert ruled.status_code == 201, ruled.get_json()
    return played.export_lines()


def _edited(lines: list[dict], kind: str, **public) -> list[dict]:
    """A copy of the export with the first record of a kind given these public values."""
    changed = json.loads(json.dumps(lines))
    next(r for r in changed[1:] if r["kind"] == kind)["public"].update(public)
    return changed


@pytest.mark.parametrize(
    "kind, public, finding",
    [
        ("DisputeFiled", {"reason": ""}, "reason must be 1 to 2000"),
        ("DisputeFiled", {"reason": "r" * 2001}, "reason must be 1 to 2000"),
        ("DisputeFiled", {"filed_by": "p9"}, "neither a seat nor the organizer"),
        ("DisputeFiled", {"dispute": 2}, "should be 1"),
        ("DisputeRuled", {"decision": "maybe"}, "decision"),
        ("DisputeRuled", {"dispute": 2}, "not filed before it"),
        ("DisputeRuled", {"note": "n" * 2001}, "note"),
        ("OutcomeAmended", {"outcome": {"winners": ["p9"]}}, "winners"),
        ("OutcomeAmended", {"outcome": {"winners": ["p1"], "reason": "r" * 201}}, "reason"),
        ("OutcomeAmended", {"previous_outcome": {"winners": ["p2"], "reason": "forged"}}, "previous_outcome"),
        ("MatchCreated", {"tournament_id": "t" * 5000}, "tournament_id"),
        ("MatchCreated", {"tournament_id": "6F9619FF-8B86-D011-B42D-00C04FC964FF"}, "tournament_id"),
    ],
    ids=["empty-reason", "long-reason", "no-filer", "numbering", "decision", "unfiled", "long-note", "winner",
         "long-outcome-reason", "previous-outcome", "long-tournament-id", "non-canonical-tournament-id"],
)
def test_a_dispute_the_service_would_refuse_fails_the_bounds_check_even_when_resigned(dragons, kind, public,
                                                                                      finding):
    lines = _disputed_and_amended(dragons)
    assert dragons.verify(lines)[0] == EXIT_VERIFIED
    code, report = dragons.verify(rechain_and_resign(_edited(lines, kind, **public), dragons.signer()))
    assert code == EXIT_FAILED and finding in failed(report).get("bounds", ""), failed(report)


# --- a match in a partition other than the first (issue 34) --------------------------------------


@pytest.fixture(params=BACKENDS)
def partitioned_settings(request, tmp_path):
    """Settings of a service whose matches live in two partitions (SQLite files or PostgreSQL schemas)."""
    shared, partitions, drop = partitioned_urls_for(request.param, tmp_path, 2)
    yield Settings(database_url=shared, data_dir=str(tmp_path), partition_urls=partitions)
    drop()


def test_a_match_in_a_later_partition_verifies_and_fails_once_tampered_by_a_dealer_or_a_database_writer(
    partitioned_settings, tmp_path
):
    app = create_app(partitioned_settings)
    client = app.test_client()
    store = app.extensions["gambit"].matches.store
    match = client.post("/matches", json={"ruleset": "gambitz", "config": {"players": 3}}).get_json()
    while store.partition_number(match["match_id"]) != 1:
        match = client.post("/matches", json={"ruleset": "gambitz", "config": {"players": 3}}).get_json()
    match_id = match["match_id"]
    play_to_end(client, match_id, join_all(client, match), random.Random(3))
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]

    def verify(lines: list[dict]) -> tuple[int, dict]:
        path = tmp_path / "export.ndjson"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        out = io.StringIO()
        code = run_verify(str(path), key, as_json=True, out=out, err=io.StringIO())
        return code, json.loads(out.getvalue())

    def export() -> list[dict]:
        text = create_app(partitioned_settings).test_client().get(f"/matches/{match_id}/export").get_data(as_text=True)
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    honest = export()
    code, report = verify(honest)
    assert code == EXIT_VERIFIED and report["verdict"] == "VERIFIED"
    assert honest[-1]["log"].endswith("/p1"), "the receipt names the partition's own log"

    # A dealer holding the key swaps a dealt card with a later draw and signs again.
    lines = export()
    records = lines[1:-1]
    dealt = next(r for r in records if r["kind"] == "CardsDealt")
    later = next((r for r in records if r["kind"] == "CardsDrawn"), None) or [
        r for r in records if r["kind"] == "CardsDealt"
    ][1]
    dealt["secret"]["cards"][0], later["secret"]["cards"][0] = later["secret"]["cards"][0], dealt["secret"]["cards"][0]
    recommit(dealt)
    recommit(later)
    code, report = verify(rechain_and_resign(lines, Signer.load(partitioned_settings.data_dir, None)))
    assert code == EXIT_FAILED and f"version {dealt['version']}" in failed(report)["dealt secrets"]

    # A database writer without the key cuts the last write from the partition's own store.
    access = StoreAccess(partitioned_settings.partition_urls[1])
    access.drop_guards()
    last = max(access.rows(match_id))
    access.truncate_after(match_id, last - 1)
    cut = export()
    assert "unreceipted" in cut[-1] or cut[-1]["version"] < last - 1
    code, report = verify(cut)
    assert code == EXIT_FAILED and report["verdict"] == "FAILED"
    app.extensions["gambit"].close()
