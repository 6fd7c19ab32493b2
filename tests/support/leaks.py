"""Leak hunting: fetch every endpoint as one viewer and look for what it must not see."""

from __future__ import annotations

from tests.support.api import auth


def endpoint_bodies(client, match_id: str, token: str | None, version: int) -> dict[str, str]:
    """Every readable response for this viewer, as text, keyed by endpoint."""
    headers = auth(token) if token else {}
    paths = {
        "summary": f"/matches/{match_id}",
        "list": "/matches?limit=200",
        "view": f"/matches/{match_id}/view",
        "view_at": f"/matches/{match_id}/view?at={max(1, version - 1)}",
        "events": f"/matches/{match_id}/events?after=0&limit=500",
        "replay": f"/matches/{match_id}/replay?from={max(1, version - 20)}",
        "audit": f"/matches/{match_id}/audit/bluffs",
        "bluff_calls": f"/bluff-calls?match_id={match_id}",
        "export": f"/matches/{match_id}/export",
        "legal": f"/matches/{match_id}/legal-commands",
        "error": f"/matches/{match_id}/commands",
    }
    out = {}
    for name, path in paths.items():
        if name == "error":
            response = client.post(path, json={"type": "no-such-command"}, headers=headers)
        else:
            response = client.get(path, headers=headers)
        out[name] = response.get_data(as_text=True)
    return out


def read_stream(client, match_id: str, headers: dict, version: int):
    """The live event stream, read up to `version` (or to its end); the response with that text as its body."""
    response = client.get(f"/matches/{match_id}/events", headers={**headers, "Accept": "text/event-stream"},
                          buffered=False)
    if response.status_code != 200:
        return response
    chunks = []
    for chunk in response.response:
        chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
        text = "".join(chunks)
        if f"id: {version}\n" in text or "event: end" in text:
            break
    response.close()
    response.set_data("".join(chunks).encode())
    return response


def revealed_versions(records) -> set[int]:
    """Versions some record has revealed to everyone (its public `opens`, docs/verification.md)."""
    return {v for record in records for v in record.public.get("opens", [])}


def hidden_from(matches, match_id: str, seat: str | None) -> list[tuple[int, str]]:
    """(version, salt) of every record whose secret this viewer may not see while the match runs.

    A record a reveal has opened is everyone's from then on (the reveal checks what it may open:
    tests/conformance/test_reveals.py and the per-game reveal tests).
    """
    records = matches.records(match_id)
    revealed = revealed_versions(records)
    hidden = []
    for record in records:
        if record.secret is None or record.originator_version in revealed:
            continue
        if seat is not None and seat in (record.audience or []):
            continue
        hidden.append((record.originator_version, record.salt))
    return hidden
