"""The matches resource: create, list, read one; and the seats sub-resource (joining)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from flask import Blueprint, Response, jsonify, url_for
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.errors import PartitionUnavailable, TournamentNotFound, UnknownTournament
from domain.match import Match
from domain.record_bounds import MAX_NAME, MAX_NOTE
from domain.ruleset import ORGANIZER
from domain.seat_keys import InvalidPublicKey, canonical_public_key
from projections.delay import SpectatorDelay
from projections.records import viewer_for
from projections.views import summary
from service.auth import bearer_token, organizer_of
from service.bodies import StrictString, load
from service.commands import recorded
from service.context import choice_arg, gambit, int_arg, text_arg
from service.delay import mark, public_delay, shown_match
from service.problems import Problem
from service.seat_signatures import usable_key

bp = Blueprint("matches", __name__)

MAX_PAGE = 200

T = TypeVar("T")


class CreateMatchBody(Schema):
    """POST /matches."""

    ruleset = StrictString(required=True, validate=validate.Length(min=1, max=64))
    config = fields.Dict(keys=fields.String(), load_default=dict)
    tournament_id = StrictString(allow_none=True, load_default=None, validate=validate.Length(max=64))
    entrants = fields.Dict(
        keys=StrictString(validate=validate.Length(min=1, max=32)),
        values=StrictString(validate=validate.Length(min=1, max=32)),
        load_default=dict,
    )


class JoinBody(Schema):
    """POST /matches/{id}/seats."""

    name = StrictString(load_default=None, validate=validate.Length(min=1, max=MAX_NAME))
    seat = StrictString(allow_none=True, load_default=None, validate=validate.Length(max=32))
    client_seed = StrictString(
        load_default="", validate=validate.Regexp(r"^(?:[0-9a-fA-F]{2}){0,64}$", error="must be hex, at most 64 bytes")
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    invite = StrictString(load_default=None, validate=validate.Length(min=1, max=128))
    # The seat's key (domain/seat_keys.py checks it: a bad one is 422 invalid_public_key); its commands then need
    # a Gambit-Signature.
    public_key = fields.Dict(keys=fields.String(), load_default=None, allow_none=True)

    @validates_schema
    def _named_or_invited(self, data: dict, **_: object) -> None:
        """A join names its player, unless a tournament entrant's invite names them."""
        if data.get("name") is None and data.get("invite") is None:
            raise ValidationError("a name is required (it may be left out only with an invite)", "name")


def full_summary(match: Match) -> dict:
    """The summary as the caller may see it: held back for a spectator of a delayed running match
    (with `delay`), and with the signed receipt once the match has finished."""
    return shown_summary(match)[0]


def shown_summary(match: Match) -> tuple[dict, SpectatorDelay | None]:
    """The summary the caller may see, and how far it is held back (None: not at all)."""
    delay = public_delay(match)
    body = _summary(shown_match(match, delay))
    if delay is not None:
        body["delay"] = delay.body()
    return body, delay


def _summary(match: Match) -> dict:
    """The summary of the match as loaded, with its receipt once it has finished."""
    body = summary(match)
    if match.status == "finished":
        body["receipt"] = match.receipt
    return body


def each_readable(match_ids: Iterable[str], shown: Callable[[Match], T]) -> tuple[list[T], list[str]]:
    """Each match (its latest version) as `shown` makes it, in order, and apart the ids of those whose partition
    does not answer: a list across partitions is served all the same (the `unavailable` of GET /matches)."""
    g = gambit()
    found: list[T] = []
    unavailable: list[str] = []
    for match_id in match_ids:
        try:
            found.append(shown(g.matches.match(match_id)))
        except PartitionUnavailable:
            unavailable.append(match_id)
    return found, unavailable


def summary_response(body: dict, status: int = 200, headers: dict | None = None) -> Response:
    """A match summary with its version as the ETag."""
    response = jsonify(body)
    response.status_code = status
    response.set_etag(str(body["version"]))
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


class MatchCollection(MethodView):
    """/matches"""

    def post(self) -> Response:
        """Create a match of a ruleset; the config is validated and echoed with defaults."""
        body = load(CreateMatchBody())
        g = gambit()
        if body["tournament_id"] is not None:
            # Only the organizer adds matches to a tournament: its standings and dispute queue are theirs.
            try:
                tournament = g.matches.tournaments.tournament(body["tournament_id"])
            except TournamentNotFound:
                raise UnknownTournament(f"no tournament {body['tournament_id']!r}") from None
            organizer_of(tournament)
        match = g.matches.create_match(body["ruleset"], body["config"], body["tournament_id"], body["entrants"])
        # Its creator's answer: a match of one record holds nothing to hold back.
        return summary_response(_summary(match), 201, {"Location": url_for("matches.match", match_id=match.match_id)})

    def get(self) -> Response:
        """List matches, newest first, filtered by status, ruleset and tournament.

        Each summary is as its caller may see it. A held-back summary may show an earlier status
        than the one filtered on, and is then left out (so a page may hold fewer than `limit`
        matches; `next` still continues after the last one looked at).
        """
        g = gambit()
        status = choice_arg("status", ("open", "active", "finished"))
        ids, cursor = g.index.matches(
            status=status,
            ruleset=text_arg("ruleset"),
            tournament_id=text_arg("tournament_id"),
            after=int_arg("after", None, minimum=0),
            limit=int_arg("limit", 50, minimum=1, maximum=MAX_PAGE),
        )
        summaries, unavailable = each_readable(ids, full_summary)
        body: dict[str, Any] = {
            "matches": [s for s in summaries if status in (None, s["status"]) or "delay" not in s],
            "next": None if cursor is None else str(cursor),
        }
        if unavailable:
            body["unavailable"] = unavailable
        return jsonify(body)


class MatchItem(MethodView):
    """/matches/{id}"""

    def get(self, match_id: str) -> Response:
        """The match summary, as the caller may see it (held back for a spectator of a delayed running match)."""
        body, delay = shown_summary(gambit().matches.match(match_id))
        return mark(summary_response(body), delay)


class Seats(MethodView):
    """/matches/{id}/seats"""

    def post(self, match_id: str) -> Response:
        """Join a match (a tournament entrant with its invite); the bearer token is shown only in this response."""
        g = gambit()
        g.matches.match(match_id)  # an unknown match is a 404 whatever the body says
        body = load(JoinBody())
        if body["public_key"] is not None:
            usable_seat_key(body["public_key"])
        seat, token, written = g.matches.join(
            match_id,
            body["name"],
            body["seat"],
            body["client_seed"].lower(),
            body["options"],
            body["invite"],
            body["public_key"],
        )
        match = written.match
        response = jsonify(
            {
                "seat": seat,
                "token": token,
                "match_id": match.match_id,
                "version": match.version,
                "receipt": match.receipt,
            }
        )
        response.status_code = 201
        response.headers["Cache-Control"] = "no-store"
        return response


def usable_seat_key(public_key: dict) -> None:
    """422 `invalid_public_key` unless the key is an Ed25519 or P-256 key (raw or SPKI; a P-256 point on the curve)."""
    try:
        canonical = canonical_public_key(public_key)
    except InvalidPublicKey as exc:
        raise Problem(422, "invalid_public_key", str(exc)) from None
    if not usable_key(canonical):
        raise Problem(422, "invalid_public_key", f'"key" is no {canonical["alg"]} public key')


class RekeyBody(Schema):
    """POST /matches/{id}/seats/{seat}/key."""

    public_key = fields.Dict(keys=fields.String(), required=True)
    note = StrictString(load_default="", validate=validate.Length(max=MAX_NOTE))


class SeatKey(MethodView):
    """/matches/{id}/seats/{seat}/key"""

    def post(self, match_id: str, seat: str) -> Response:
        """The organizer gives a seat that lost its key a new one: a SeatKeyChanged record, in the export."""
        g = gambit()
        match = g.matches.match(match_id)
        if bearer_token() is None:
            raise Problem(401, "credentials_required", "re-keying a seat needs the organizer key")
        if match.tournament_id is None:
            raise Problem(
                403, "not_organizer", "only a tournament's organizer may re-key a seat, and this match has none"
            )
        organizer_of(g.matches.tournaments.tournament(match.tournament_id))
        if seat not in match.seat_order:
            raise Problem(404, "seat_not_found", f"this match has no seat {seat!r}")
        body = load(RekeyBody())
        usable_seat_key(body["public_key"])
        written = g.matches.rekey(match_id, seat, body["public_key"], body["note"])
        return recorded(written, viewer_for(written.match, ORGANIZER))


bp.add_url_rule("/matches", view_func=MatchCollection.as_view("matches"))
bp.add_url_rule("/matches/<match_id>", view_func=MatchItem.as_view("match"))
bp.add_url_rule("/matches/<match_id>/seats", view_func=Seats.as_view("seats"))
bp.add_url_rule("/matches/<match_id>/seats/<seat>/key", view_func=SeatKey.as_view("seat_key"))
