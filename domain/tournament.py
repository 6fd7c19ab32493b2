"""The Tournament aggregate: its organizer key (hash only), its entrants (invite hashes only) and the trail of
organizer reads."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

from eventsourcing.domain import Aggregate


class Tournament(Aggregate):
    """A tournament: matches belong to it; its organizer may see them in full, and every such read is kept."""

    TOPIC = "gambit:Tournament"
    # Version 2 has entrants: a snapshot of an older version is brought up to it as it is read.
    class_version = 2

    @staticmethod
    def upcast_v1_v2(state: dict) -> None:
        """A snapshot stored before tournaments had entrants: none registered, and the trail's newest read
        is its newest event (every event after the creation was a read then)."""
        state.setdefault("entrants", {})
        state.setdefault("last_read_version", state.get("reads", 0) + 1 if state.get("reads") else None)

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
            aggregate.last_read_version = self.originator_version

    class EntrantRegistered(Aggregate.Event):
        """The organizer registered an entrant: a display name, a contact only the organizer reads, an invite's hash."""

        TOPIC = "gambit:Tournament.EntrantRegistered"
        entrant_id: str
        name: str
        contact: str | None
        invite_hash: str

        def apply(self, aggregate: Tournament) -> None:
            """Add the entrant."""
            aggregate.entrants[self.entrant_id] = {
                "entrant_id": self.entrant_id,
                "name": self.name,
                "contact": self.contact,
                "invite_hash": self.invite_hash,
                "created_at": self.timestamp.astimezone(UTC).isoformat(),
            }

    class InviteReissued(Aggregate.Event):
        """The organizer gave an entrant a new invite; the one before stops working."""

        TOPIC = "gambit:Tournament.InviteReissued"
        entrant_id: str
        invite_hash: str

        def apply(self, aggregate: Tournament) -> None:
            """Keep only the new invite's hash."""
            aggregate.entrants[self.entrant_id]["invite_hash"] = self.invite_hash

    def __init__(self, name: str, organizer_key_hash: str) -> None:
        self.name = name
        self.organizer_key_hash = organizer_key_hash
        self.reads = 0
        # The version of the trail's newest read (None before the first): other events come between reads.
        self.last_read_version: int | None = None
        # Entrant id → its entry (name, contact, invite hash, when registered), in the order registered.
        self.entrants: dict[str, dict] = {}

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

    def register_entrant(self, name: str, contact: str | None, invite_hash: str) -> str:
        """Register an entrant under the next id (`e1`, `e2`, …); returns the id."""
        entrant_id = f"e{len(self.entrants) + 1}"
        self.trigger_event(
            self.EntrantRegistered,
            entrant_id=entrant_id,
            name=name,
            contact=contact,
            invite_hash=invite_hash,
            timestamp=datetime.now(UTC),
        )
        return entrant_id

    def reissue_invite(self, entrant_id: str, invite_hash: str) -> None:
        """Replace an entrant's invite (its id must be one of this tournament's entrants)."""
        self.trigger_event(
            self.InviteReissued, entrant_id=entrant_id, invite_hash=invite_hash, timestamp=datetime.now(UTC)
        )
