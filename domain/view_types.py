"""A game's view declared per viewer: the TypedDict of what each kind of viewer is shown.

`view(state, viewer)` returns one of four shapes, declared in each game's view.py as

    VIEWS = ViewTypes(seat=SeatView, spectator=TableView, organizer=FullView, ended=EndedView)

a seat's and a spectator's while the match runs, an organizer's (who sees every secret), and
anyone's once the match has ended (`Viewer.sees_all`: a seat then sees everything too). The
conformance kit validates every view of its random playouts against the schema of its viewer's
type, so a key the declaration lacks (or a secret a spectator's type has no room for) fails a
test; the spec generator serves the four as the game's view schemas.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.vocabulary import ORGANIZER, Viewer


@dataclass(frozen=True)
class ViewTypes:
    """The TypedDict of a game's view for each kind of viewer."""

    seat: type
    spectator: type
    organizer: type
    ended: type

    def for_viewer(self, viewer: Viewer) -> type:
        """The declared type of the view this viewer is shown."""
        if viewer.sees_all:
            return self.ended
        if viewer.role == ORGANIZER:
            return self.organizer
        return self.seat if viewer.seat is not None else self.spectator

    def by_audience(self) -> dict[str, type]:
        """The four types by the name the spec gives them."""
        return {"seat": self.seat, "spectator": self.spectator, "organizer": self.organizer, "ended": self.ended}
