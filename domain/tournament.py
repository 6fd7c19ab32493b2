"""The Tournament aggregate: its organizer key (hash only) and the trail of organizer reads."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

from eventsourcing.domain import Aggregate


class Tournament(Aggregate):
    """A tournament: matches belong to it; its organizer may see them in full, and every such read is kept."""

    TOPIC = "gambit:Tournament"

    class Created(Aggregate.Created):
        """The tournament was created with an organizer key."""

        TOPIC = "gambit:Tournament.Created"
        name: str
        organizer_key_hash: str

    class SecretsRead(Aggregate.Event):
        """The organizer read unrevealed secrets of a match (the access trail)."""

        TOPIC = "gambit:Tournament.SecretsRead"
        organizer: str
        match_id: str
        resource: str
        match_version: int

        def apply(self, aggregate: Tournament) -> None:
            """Count the read; the entries themselves are the events."""
            aggregate.reads += 1

    def __init__(self, name: str, organizer_key_hash: str) -> None:
        self.name = name
        self.organizer_key_hash = organizer_key_hash
        self.reads = 0

    @classmethod
    def create(cls, tournament_id: UUID, name: str, organizer_key_hash: str) -> Tournament:
        """A new tournament."""
        return cls._create(cls.Created, id=tournament_id, name=name, organizer_key_hash=organizer_key_hash)

    @property
    def tournament_id(self) -> str:
        """The id as a string."""
        return str(self.id)

    @property
    def created_at(self) -> str:
        """When it was created (UTC, ISO 8601)."""
        return self.created_on.astimezone(UTC).isoformat()

    def record_read(self, organizer: str, match_id: str, resource: str, match_version: int) -> None:
        """Keep one organizer read of unrevealed secrets."""
        self.trigger_event(
            self.SecretsRead,
            organizer=organizer,
            match_id=match_id,
            resource=resource,
            match_version=match_version,
            timestamp=datetime.now(UTC),
        )
