"""The tournament service: tournaments, their organizer key, and the trail of the organizer's reads of secrets."""

from __future__ import annotations

import hmac
import secrets
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from domain.errors import ConcurrentWrite, TournamentNotFound
from domain.store import UPDATE_ATTEMPTS, MatchStore, token_hash
from domain.tournament import Tournament


class TournamentService:
    """Tournaments in the shared match store: create, read, check the organizer, keep the access trail."""

    def __init__(self, store: MatchStore) -> None:
        """The tournaments of `store`."""
        self.store = store

    def create_tournament(self, name: str) -> tuple[Tournament, str]:
        """Create a tournament; returns it and its organizer key (shown once, only its hash kept)."""
        key = secrets.token_urlsafe(32)
        tournament = Tournament.create(uuid4(), name, token_hash(key))
        self.store.save(tournament)
        return tournament, key

    def tournament(self, tournament_id: str) -> Tournament:
        """A tournament by id."""
        try:
            tournament: Tournament = self.store.repository.get(UUID(str(tournament_id)))
        except (ValueError, AggregateNotFoundError):
            raise TournamentNotFound(f"no tournament {tournament_id!r}") from None
        if not isinstance(tournament, Tournament):
            raise TournamentNotFound(f"no tournament {tournament_id!r}")
        return tournament

    @staticmethod
    def is_organizer(tournament: Tournament, key: str) -> bool:
        """Whether a bearer token is this tournament's organizer key (constant-time)."""
        return hmac.compare_digest(token_hash(key), tournament.organizer_key_hash)

    def record_secret_read(
        self, tournament_id: str, organizer: str, match_id: str, resource: str, match_version: int
    ) -> None:
        """Add an entry to the tournament's access trail (retried on a concurrent write)."""
        for _ in range(UPDATE_ATTEMPTS):
            tournament = self.tournament(tournament_id)
            tournament.record_read(organizer, match_id, resource, match_version)
            try:
                self.store.save(tournament)
                return
            except IntegrityError:
                continue
        raise ConcurrentWrite("the access trail kept changing; try again")

    def access_trail(self, tournament_id: str, after: int = 0, limit: int = 100) -> list[Any]:
        """The tournament's organizer reads, oldest first."""
        tournament = self.tournament(tournament_id)
        if after >= tournament.reads:
            return []  # nothing past the newest entry (and no `after + 1` beyond what a store's integers hold)
        events = self.store.repository.event_store.get(tournament.id, gt=after + 1, limit=limit)
        return [e for e in events if isinstance(e, Tournament.SecretsRead)]
