"""HTTP helpers for tournament entrants: a tournament with its organizer, entrants with invites, paired matches
that end at once (a gambit-board seat resigns), and seats joined with an invite."""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.api import auth

# gambit-board's two seats; either may resign at any time, which ends the match with the other the winner.
SOUTH, NORTH = "south", "north"


@dataclass
class Desk:
    """A tournament as its organizer holds it."""

    client: object
    tournament_id: str
    key: str

    @property
    def organizer(self) -> dict:
        """The organizer's Authorization header."""
        return auth(self.key)

    def register(self, name: str, contact: str | None = None) -> dict:
        """Register an entrant; returns the creation response's body (with its invite)."""
        body = {"name": name} if contact is None else {"name": name, "contact": contact}
        response = self.client.post(f"/tournaments/{self.tournament_id}/entrants", json=body, headers=self.organizer)
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def match(self, pairing: dict | None = None, ruleset: str = "gambit-board", config: dict | None = None) -> dict:
        """A match of the tournament, its seats paired as given; returns its summary."""
        body = {"ruleset": ruleset, "config": config or {}, "tournament_id": self.tournament_id}
        if pairing is not None:
            body["entrants"] = pairing
        response = self.client.post("/matches", json=body, headers=self.organizer)
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def standings(self) -> list[dict]:
        """The tournament's standings."""
        return self.client.get(f"/tournaments/{self.tournament_id}").get_json()["standings"]


def new_desk(client, name: str = "Winter Cup") -> Desk:
    """A new tournament and its organizer key."""
    created = client.post("/tournaments", json={"name": name}).get_json()
    return Desk(client, created["tournament_id"], created["organizer_key"])


def join(client, match_id: str, **body) -> dict:
    """Join a seat (with an invite, a name, a seat, as given); returns the join response's body."""
    response = client.post(f"/matches/{match_id}/seats", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def resign(client, match_id: str, token: str) -> None:
    """The seat of this token resigns its gambit-board match (the other seat wins)."""
    response = client.post(f"/matches/{match_id}/commands", json={"type": "resign"}, headers=auth(token))
    assert response.status_code == 201, response.get_json()


def play_entrants(desk: Desk, winner: dict, loser: dict) -> str:
    """A gambit-board match between two entrants (creation bodies) that `winner` wins; returns its id."""
    match = desk.match({SOUTH: winner["entrant_id"], NORTH: loser["entrant_id"]})
    join(desk.client, match["match_id"], invite=winner["invite"])
    lost = join(desk.client, match["match_id"], invite=loser["invite"])
    resign(desk.client, match["match_id"], lost["token"])
    return match["match_id"]
