"""The tournament service: tournaments, their organizer key, their entrants and invites, and the trail of the
organizer's reads of secrets."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from domain.errors import ConcurrentWrite, EntrantNotFound, TournamentNotFound
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

    @staticmethod
    def entrant_by_invite(tournament: Tournament, invite: str) -> dict | None:
        """The entrant whose current invite this is, compared in constant time; None otherwise."""
        presented = token_hash(invite)
        found = None
        for entrant in tournament.entrants.values():
            if hmac.compare_digest(presented, entrant["invite_hash"]):
                found = entrant
        return found

    @staticmethod
    def entrant(tournament: Tournament, entrant_id: str) -> dict:
        """One entrant of the tournament; EntrantNotFound when it has none of that id."""
        entrant = tournament.entrants.get(entrant_id)
        if entrant is None:
            raise EntrantNotFound(f"tournament {tournament.tournament_id} has no entrant {entrant_id!r}")
        return entrant

    def register_entrant(self, tournament_id: str, name: str, contact: str | None) -> tuple[dict, str]:
        """Register an entrant; returns its entry and its invite (shown once, only its hash kept)."""
        invite = secrets.token_urlsafe(32)
        registered: list[str] = []  # the id the successful attempt gave
        tournament = self._changed(
            tournament_id, lambda t: registered.append(t.register_entrant(name, contact, token_hash(invite)))
        )
        return tournament.entrants[registered[-1]], invite

    def reissue_invite(self, tournament_id: str, entrant_id: str) -> str:
        """Give an entrant a new invite (the one before stops working); returns it (shown once)."""
        invite = secrets.token_urlsafe(32)

        def reissue(tournament: Tournament) -> None:
            self.entrant(tournament, entrant_id)
            tournament.reissue_invite(entrant_id, token_hash(invite))

        self._changed(tournament_id, reissue)
        return invite

    def record_secret_read(
        self, tournament_id: str, organizer: str, match_id: str, resource: str, match_version: int
    ) -> None:
        """Add an entry to the tournament's access trail (retried on a concurrent write)."""
        self._changed(tournament_id, lambda t: t.record_read(organizer, match_id, resource, match_version))

    def _changed(self, tournament_id: str, change: Callable[[Tournament], Any]) -> Tournament:
        """Load the tournament, apply `change`, save; again on a concurrent write; returns the tournament saved."""
        for _ in range(UPDATE_ATTEMPTS):
            tournament = self.tournament(tournament_id)
            change(tournament)
            try:
                self.store.save(tournament)
                return tournament
            except IntegrityError:
                continue
        raise ConcurrentWrite("the tournament kept changing; try again")

    def access_trail(self, tournament_id: str, after: int = 0, limit: int = 100) -> list[Any]:
        """The tournament's organizer reads after entry `after` (an entry is its event's version - 1), oldest first,
        at most `limit` of them; the entrants' events between them are passed over."""
        tournament = self.tournament(tournament_id)
        newest = tournament.last_read_version
        reads: list[Any] = []
        cursor = after + 1  # the version of entry `after`
        # Nothing past the newest entry (and no `cursor` beyond what a store's integers hold).
        while newest is not None and cursor < newest and len(reads) < limit:
            events = list(self.store.repository.event_store.get(tournament.id, gt=cursor, lte=newest, limit=limit))
            if not events:
                break
            reads += [e for e in events if isinstance(e, Tournament.SecretsRead)]
            cursor = events[-1].originator_version
        return reads[:limit]
