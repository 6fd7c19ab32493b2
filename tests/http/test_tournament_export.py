"""A tournament's export: a zip of every match's export (in the caller's form) and the signing key, which
`gambit verify <dir> --key signing-key.json` checks, paired seats and invite joins included."""

from __future__ import annotations

import io
import json
import zipfile

from tests.support.api import auth
from tests.support.entrants import NORTH, SOUTH, join, new_desk, play_entrants
from tests.support.independent_verifier import verify_export
from tests.support.verify_process import verify_in_a_fresh_process


def _unzip(response, into) -> list[str]:
    assert response.status_code == 200 and response.mimetype == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.get_data())) as archive:
        archive.extractall(into)
        return sorted(archive.namelist())


def _without_export_time(text: str) -> list:
    """An export's lines, parsed, its header without `exported_at` (the one field that says when it was made)."""
    lines = [json.loads(line) for line in text.splitlines()]
    lines[0].pop("exported_at", None)
    return lines


def _verify(directory) -> tuple[int, list[dict]]:
    """`gambit verify --json --key DIR/signing-key.json DIR` as a user runs it: its exit code and its reports."""
    ran = verify_in_a_fresh_process(directory, key=str(directory / "signing-key.json"))
    return ran["code"], ran["report"]["reports"]


def test_the_tournament_export_verifies_with_gambit_verify_and_the_independent_verifier(client, tmp_path):
    desk = new_desk(client)
    ann, bob = desk.register("Ann"), desk.register("Bob")
    finished = play_entrants(desk, ann, bob)  # paired, joined with invites, finished
    running = desk.match({SOUTH: "e2"})["match_id"]  # paired, one entrant joined, one walk-in waiting
    join(client, running, invite=bob["invite"])
    unpaired = desk.match()["match_id"]
    join(client, unpaired, invite=ann["invite"], seat=NORTH)
    for caller, headers in (("public", {}), ("organizer", desk.organizer)):
        directory = tmp_path / caller
        names = _unzip(client.get(f"/tournaments/{desk.tournament_id}/export", headers=headers), directory)
        assert names == sorted([f"{m}.ndjson" for m in (finished, running, unpaired)] + ["signing-key.json"])
        code, reports = _verify(directory)
        assert code == 0 and {r["verdict"] for r in reports} == {"VERIFIED"}, reports
        for match_id in (finished, running, unpaired):
            text = (directory / f"{match_id}.ndjson").read_text(encoding="utf-8")
            alone = client.get(f"/matches/{match_id}/export", headers=headers).get_data(as_text=True)
            assert _without_export_time(text) == _without_export_time(alone), "each file is the match's own export"
            verify_export(text)
        header = json.loads((directory / f"{running}.ndjson").read_text().splitlines()[0])
        assert header["viewer"] == ("organizer" if caller == "organizer" else "spectator")
    records = [json.loads(line) for line in (tmp_path / "public" / f"{finished}.ndjson").read_text().splitlines()]
    assert records[1]["public"]["entrants"] == {SOUTH: "e1", NORTH: "e2"}
    assert [r["public"]["entrant_id"] for r in records if r.get("kind") == "SeatJoined"] == ["e1", "e2"]


def test_a_tampered_pairing_fails_verification(client, tmp_path):
    desk = new_desk(client)
    ann, bob = desk.register("Ann"), desk.register("Bob")
    match_id = play_entrants(desk, ann, bob)
    _unzip(client.get(f"/tournaments/{desk.tournament_id}/export"), tmp_path)
    path = tmp_path / f"{match_id}.ndjson"
    path.write_text(path.read_text().replace('"entrant_id": "e2"', '"entrant_id": "e1"'), encoding="utf-8")
    code, reports = _verify(tmp_path)
    assert code == 1 and reports[0]["verdict"] != "VERIFIED"


def test_the_organizers_tournament_export_of_a_running_match_is_in_the_access_log(client):
    desk = new_desk(client)
    match = desk.match()
    join(client, match["match_id"], name="a"), join(client, match["match_id"], name="b")
    client.get(f"/tournaments/{desk.tournament_id}/export", headers=desk.organizer)
    log = client.get(f"/tournaments/{desk.tournament_id}/access-log", headers=desk.organizer).get_json()["entries"]
    assert [(e["match_id"], e["resource"]) for e in log] == [(match["match_id"], "export")]


def test_a_tournament_export_with_a_token_that_is_not_the_organizer_key_is_refused(client):
    desk = new_desk(client)
    ann = desk.register("Ann")
    refused = client.get(f"/tournaments/{desk.tournament_id}/export", headers=auth(ann["invite"]))
    assert refused.status_code == 403 and refused.get_json()["code"] == "not_organizer"
    assert client.get("/tournaments/00000000-0000-0000-0000-000000000000/export").status_code == 404
