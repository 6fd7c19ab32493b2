"""Leak hunt: random complete matches of every ruleset, every viewer, every endpoint.

For each ruleset a tournament match is played to its end at random speed (mostly through the
domain, as the commands resource would), and at random moments while it runs every endpoint is
read over HTTP as every viewer: each seat, a spectator, and the organizer of ANOTHER tournament
(who must get 401 wherever secrets could be served). Every response body — JSON, problem+json,
NDJSON export lines, SSE frames — is searched for what that viewer has not legitimately been
shown at that moment:

- the salt of any record whose secret is outside the viewer's audience (unless that very salt
  was opened to the viewer by a record it may see), and the server seed;
- secret-only VALUES, collected from the store: every string in a hidden secret (card ids,
  deck names, power names, threshold cards …) that appears nowhere in what the viewer knows
  (every public part, the secrets it may see, the summary and the ruleset listing); every list
  or object in a hidden secret (a deck order, a hand, a power assignment) whose exact JSON is not
  part of what the viewer knows; and every (key → value) pair of a hidden secret (piece → its
  powers, card instance → its card) that the viewer's knowledge never pairs that way.

Values legitimately public elsewhere are therefore never needles: only what exists in hidden
secrets alone. A finished match shows everything to everyone (checked at the end).
The number of responses checked is printed in the terminal summary and recorded per test
(`record_property("responses_checked", n)`).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field

import pytest

from tests.hardening.play import RULESETS, advance, finish, new_match
from tests.support.api import auth
from tests.support.leaks import read_stream, revealed_versions

# Moments at which every endpoint is read by every viewer while the match runs.
SNAPSHOTS = 4
# Random legal steps between two moments (through the domain).
STEPS_BETWEEN = (3, 30)
# Earlier versions read with `view?at=` at each moment.
VIEW_AT_SAMPLES = 3
# Matches played at most to reach SNAPSHOTS moments (random play can end a match early).
MAX_MATCHES = 6
# Replay frames read at each moment (all of them while the match is young).
REPLAY_WINDOW = 25

# Totals for the terminal summary (tests/hardening/conftest.py prints them).
RESPONSES_CHECKED: Counter = Counter()


def canon(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Facts:
    """Every string, every compound value and every (ancestor key, sub-value) of some JSON documents."""

    strings: set = field(default_factory=set)
    values: set = field(default_factory=set)
    compounds: set = field(default_factory=set)
    keyed: set = field(default_factory=set)
    # Direct (key, value) entries with the value's canonical JSON (needles come from these).
    pairs: set = field(default_factory=set)
    # (key, canonical value) → ids of the objects holding that entry, to tell whether an object
    # is only part of a larger one already known.
    items: dict = field(default_factory=dict)
    objects: int = 0
    # Pairs of strings held by one object (a card instance with its card, a piece with its power).
    together: set = field(default_factory=set)

    # What to collect besides strings, values and compounds (responses need less than knowledge).
    keyed_wanted: bool = True
    entries_wanted: bool = True

    def add(self, value, ancestors: tuple = ()) -> str:
        """Walk a JSON value; returns its canonical JSON (built bottom-up, each node serialised once)."""
        if isinstance(value, dict):
            self.objects += 1
            number = self.objects
            texts = sorted({v for v in value.values() if isinstance(v, str) and len(v) >= 2})
            self.together.update((a, b) for i, a in enumerate(texts) for b in texts[i + 1:])
            parts = []
            for key in sorted(value):
                item = value[key]
                self.strings.add(key)
                child = self.add(item, ancestors + (key,))
                if self.entries_wanted:
                    self.pairs.add((key, child, informative(item)))
                    self.items.setdefault((key, child), set()).add(number)
                parts.append(json.dumps(key, ensure_ascii=False) + ":" + child)
            text = "{" + ",".join(parts) + "}"
            self.compounds.add(text)
        elif isinstance(value, list):
            text = "[" + ",".join(self.add(item, ancestors) for item in value) + "]"
            self.compounds.add(text)
        else:
            text = json.dumps(value, ensure_ascii=False)
            if isinstance(value, str):
                self.strings.add(value)
                self.values.add(value)
            else:
                return text
        if self.keyed_wanted:
            for key in ancestors:
                self.keyed.add((key, text))
        return text


def informative(value) -> bool:
    """Whether a value says something (a real string, or a long list of numbers like a deck order)."""
    if isinstance(value, str):
        return len(value) >= 2
    if isinstance(value, list) and len(value) >= 6 and all(isinstance(v, int) for v in value):
        return True
    if isinstance(value, dict):
        return any(informative(v) for v in value.values())
    if isinstance(value, list):
        return any(informative(v) for v in value)
    return False


@dataclass
class Needles:
    """What one viewer must not receive at one version."""

    salts: set
    tokens: set
    compounds: set
    pairs: set
    associations: set
    seed: str

    def __len__(self) -> int:
        return len(self.salts) + len(self.tokens) + len(self.compounds) + len(self.pairs) + len(self.associations)


def _visible(record, seat: str | None, revealed: set[int] = frozenset()) -> bool:
    # A record a reveal has opened is everyone's (what a reveal may open is checked by the reveal
    # tests: tests/conformance/test_reveals.py and the per-game ones).
    return (record.secret is None or record.originator_version in revealed
            or (seat is not None and seat in (record.audience or [])))


def needles_for(matches, match_id: str, seat: str | None, static_docs: list) -> Needles:
    """Secret-only values of the match that `seat` (None: spectator) has not been shown yet."""
    records = matches.records(match_id)
    match = matches.match(match_id)
    revealed = revealed_versions(records)
    known = Facts()
    for doc in static_docs:
        known.add(doc)
    if seat is not None:
        # What the seat may do is derived from its own view: its vocabulary is legitimately its own.
        known.add([command.body() for command in match.ruleset.legal_commands(match.state, seat)])
        known.add([choice.body() for choice in match.ruleset.legal_choices(match.state, seat)])
    for record in records:
        # The record as the viewer receives it (docs/verification.md, "The event record").
        form = {"version": record.originator_version, "kind": record.kind, "public": record.public,
                "commitment": record.commitment, "audience": record.audience, "chain": record.chain}
        if _visible(record, seat, revealed) and record.secret is not None:
            form.update(secret=record.secret, salt=record.salt)
        known.add(form)
    hidden = Facts()
    salts = set()
    compound_values: dict = {}
    for record in records:
        if _visible(record, seat, revealed):
            continue
        hidden.add(record.secret)
        _collect_compounds(record.secret, compound_values)
        if record.salt not in known.strings:
            salts.add(record.salt)
    return Needles(
        salts=salts,
        tokens={s for s in hidden.values if len(s) >= 2 and s not in known.strings},
        compounds={c for c, v in compound_values.items()
                   if significant(v) and c not in known.compounds and not explained(v, known)},
        # Pairings under an identifier (a piece, a card instance, a seat — a key the viewer knows as
        # a value), not under a field name such as "cards" or "salt".
        pairs={(k, v) for k, v, useful in hidden.pairs
               if useful and k in known.values and (k, v) not in known.keyed},
        # Two strings the viewer knows, held together by a hidden object only (card instance "p2-06"
        # with card "B5"; powers "ghost" and "moat" of one piece).
        associations={(a, b) for a, b in hidden.together
                      if a in known.strings and b in known.strings and (a, b) not in known.together},
        seed=match.server_seed,
    )


def significant(value) -> bool:
    """A compound whose exact form is itself secret: a deck order (a long list of numbers), or an
    object of at least two entries that says something (a peeked slot with its card and face …).

    Lists of strings are left to the string needles: a hidden list of known cards equal to a list
    the viewer legitimately holds (its hand) is a coincidence, not a leak."""
    if isinstance(value, list):
        return len(value) >= 6 and all(isinstance(v, int) for v in value)
    return isinstance(value, dict) and len(value) >= 2 and informative(value)


def explained(value, known: Facts) -> bool:
    """Whether every entry of an object is held, together, by one object the viewer knows."""
    if not isinstance(value, dict):
        return False
    holders = None
    for key, item in value.items():
        found = known.items.get((key, canon(item)), set())
        holders = found if holders is None else holders & found
        if not holders:
            return False
    return True


def _collect_compounds(value, out: dict) -> None:
    if isinstance(value, dict):
        out[canon(value)] = value
        for item in value.values():
            _collect_compounds(item, out)
    elif isinstance(value, list):
        out[canon(value)] = value
        for item in value:
            _collect_compounds(item, out)


def documents(response) -> list:
    """The JSON documents of a response: the body, each NDJSON line or each SSE frame's data."""
    text = response.get_data(as_text=True)
    mimetype = response.mimetype
    if mimetype in ("application/json", "application/problem+json"):
        return [json.loads(text)]
    if mimetype == "application/x-ndjson":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if mimetype == "text/event-stream":
        return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]
    return []


def leaks(text: str, docs: list, needles: Needles) -> list[str]:
    """Everything of the needles found in a response."""
    found = [f"salt {s}" for s in needles.salts if s in text]
    if needles.seed in text:
        found.append("the server seed")
    facts = Facts(keyed_wanted=bool(needles.pairs), entries_wanted=False)
    for doc in docs:
        facts.add(doc)
    found += [f"secret value {t!r}" for t in needles.tokens & facts.values]
    found += [f"secret structure {c[:120]}" for c in needles.compounds & facts.compounds]
    found += [f"secret pairing {k!r} -> {v[:120]}" for k, v in needles.pairs & facts.keyed]
    found += [f"secret association {a!r} with {b!r}" for a, b in needles.associations & facts.together]
    return found


class Hunt:
    """Reads every endpoint as one viewer and checks every response against the needles of the moment."""

    def __init__(self, client, matches, match_id: str, tournament_id: str, static_docs: list) -> None:
        self.client = client
        self.matches = matches
        self.match_id = match_id
        self.tournament_id = tournament_id
        self.static_docs = static_docs
        self.checked = 0
        self._cache: dict = {}
        self.stale_commands: dict[str, list] = {}
        self.command_type: str | None = None
        # How many needles the moments had (a hunt with nothing to find would prove nothing).
        self.needles_seen = 0
        self.version, self.status = 0, "open"

    def refresh(self) -> None:
        """Re-read the match's version and status (after anything that may have written)."""
        match = self.matches.match(self.match_id)
        self.version, self.status = match.version, match.status

    def needles(self, seat: str | None) -> Needles | None:
        if self.status == "finished":
            return None
        key = (seat, self.version)
        if key not in self._cache:
            self._cache[key] = needles_for(self.matches, self.match_id, seat, self.static_docs)
            self.needles_seen += len(self._cache[key])
        return self._cache[key]

    def check(self, who: str, seat: str | None, name: str, response) -> None:
        """No needle of the current moment in this response (the moment after it: knowledge only grows)."""
        assert response.status_code < 500, f"{name} as {who}: {response.status_code} {response.get_data(as_text=True)[:300]}"
        needles = self.needles(seat)
        self.checked += 1
        RESPONSES_CHECKED[who.split(":")[0]] += 1
        if needles is None:
            return
        text = response.get_data(as_text=True)
        found = leaks(text, documents(response), needles)
        assert not found, f"{name} as {who} at version {self.version} leaks: {found[:5]}"

    def sse(self, headers: dict):
        """The SSE stream read up to the current version (or to its end when the match has finished)."""
        return read_stream(self.client, self.match_id, headers, self.version)

    def read_everything(self, who: str, seat: str | None, token: str | None, rng: random.Random,
                        expect_401: bool = False) -> None:
        base = f"/matches/{self.match_id}"
        headers = auth(token) if token else {}
        self.refresh()
        version = self.version
        secret_bearing = {
            "view": f"{base}/view",
            "events": f"{base}/events?after=0&limit=500",
            # A window of the latest frames (each frame carries a whole view).
            "replay": f"{base}/replay?from={max(1, version - REPLAY_WINDOW)}",
            "audit": f"{base}/audit/bluffs",
            "export": f"{base}/export",
            "legal-commands": f"{base}/legal-commands",
        }
        for at in sorted({rng.randint(1, version) for _ in range(VIEW_AT_SAMPLES)}):
            secret_bearing[f"view?at={at}"] = f"{base}/view?at={at}"
        for name, path in secret_bearing.items():
            response = self.client.get(path, headers=headers)
            if expect_401:
                assert response.status_code == 401, f"{name} as {who}: {response.status_code}"
            elif name == "legal-commands" and seat is None:
                assert response.status_code == 401
            else:
                assert response.status_code == 200, f"{name} as {who}: {response.get_json()}"
            self.check(who, seat, name, response)
            if name == "legal-commands" and response.status_code == 200 and seat is not None:
                self.stale_commands.setdefault(seat, []).extend(response.get_json()["commands"])
            if name == "replay" and response.status_code == 200:
                next_from = response.get_json()["next_from"]
                while next_from is not None:
                    page = self.client.get(f"{base}/replay?from={next_from}", headers=headers)
                    self.check(who, seat, f"replay from {next_from}", page)
                    next_from = page.get_json()["next_from"]
        stream = self.sse(headers)
        if expect_401:
            assert stream.status_code == 401
        else:
            assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
        self.check(who, seat, "events (SSE)", stream)
        # Public resources, with the viewer's credentials.
        for name, path in {"summary": base, "list": f"/matches?tournament_id={self.tournament_id}&limit=200",
                           "list-active": "/matches?status=active&limit=200",
                           "bluff-calls": f"/bluff-calls?match_id={self.match_id}",
                           "tournament": f"/tournaments/{self.tournament_id}", "disputes": f"{base}/disputes"}.items():
            response = self.client.get(path, headers=headers)
            assert response.status_code == 200, (name, response.status_code)
            self.check(who, seat, name, response)
        self.errors(who, seat, headers, version, rng)

    def errors(self, who: str, seat: str | None, headers: dict, version: int, rng: random.Random) -> None:
        """Error responses: malformed, unknown, mistyped, stale and illegal commands, bad parameters."""
        base = f"/matches/{self.match_id}"
        probes = [
            ("unknown command", {"type": "no-such-command"}, {}),
            ("not an object", [1, 2, 3], {}),
            ("mistyped field", {"type": self._some_type(), "card": 7, "piece": [1], "flourish": True}, {}),
        ]
        stale = self.stale_commands.get(seat or "", [])
        if stale:
            body = rng.choice(stale)
            probes.append(("stale If-Match", body, {"If-Match": f'"{max(1, version - 1)}"'}))
            # A command that was legal earlier, sent again: the rules' answer must not reveal the state.
            probes.append(("stale command", rng.choice(stale), {}))
        for name, body, extra in probes:
            response = self.client.post(f"{base}/commands", json=body, headers={**headers, **extra})
            assert response.status_code == 201 or 400 <= response.status_code < 500, (name, response.status_code)
            if response.status_code == 201:
                self.refresh()  # a stale command that is legal again was taken: check at the new version
            self.check(who, seat, f"error: {name}", response)
        version = self.version
        for name, path in {"view beyond the end": f"{base}/view?at={version + 5}",
                           "events bad limit": f"{base}/events?limit=0",
                           "replay bad range": f"{base}/replay?from={version + 1}",
                           "access log": f"/tournaments/{self.tournament_id}/access-log"}.items():
            response = self.client.get(path, headers=headers)
            assert 400 <= response.status_code < 500, (name, response.status_code)
            self.check(who, seat, f"error: {name}", response)
        posts = [("dispute unknown call", f"{base}/disputes", {"call_version": 1, "reason": "why"})]
        if self.status != "open":
            posts.append(("join a full match", f"{base}/seats", {"name": "late"}))
        for name, path, body in posts:
            response = self.client.post(path, json=body, headers=headers)
            assert 400 <= response.status_code < 500, (name, response.status_code)
            self.check(who, seat, f"error: {name}", response)

    def _some_type(self) -> str:
        if self.command_type is None:
            self.command_type = min(cls.type for cls in self.matches.match(self.match_id).ruleset.COMMANDS)
        return self.command_type


@pytest.fixture
def database_url(tmp_path):
    """SQLite only: what a response may show is decided above the store (records, views,
    projections), and the rules fuzzing and crash tests already run every write path on both
    stores; this keeps the hunt's thousands of reads inside the CI budget."""
    return f"sqlite:///{tmp_path / 'store.sqlite3'}"


def public_catalogue(ruleset: str) -> list:
    """Static game data every player may know (the rules' card catalogue), part of every viewer's knowledge."""
    if ruleset == "gambit-tcg":
        from domain.rulesets.gambit_tcg.cards import CARDS
        return [CARDS]
    return []


def _tournament(client, name: str) -> tuple[str, str]:
    response = client.post("/tournaments", json={"name": name})
    assert response.status_code == 201
    body = response.get_json()
    return body["tournament_id"], body["organizer_key"]


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_viewer_receives_an_unrevealed_secret_on_any_endpoint(client, app, ruleset, record_property):
    matches = app.extensions["gambit"].matches
    rng = random.Random(f"leak-hunt/{ruleset}")
    _, foreign_key = _tournament(client, "Elsewhere Cup")
    static_docs = [client.get("/rulesets").get_json(), *public_catalogue(ruleset)]
    home, home_key = _tournament(client, "Early Open")

    # While the match is still open (one seat taken): only the seed commitment is public.
    response = client.post("/matches", json={"ruleset": ruleset, "config": {}, "tournament_id": home},
                           headers=auth(home_key))
    open_id = response.get_json()["match_id"]
    first_seat = response.get_json()["seats"][0]["seat"]
    joined = client.post(f"/matches/{open_id}/seats", json={"name": "early", "seat": first_seat,
                                                             **({"options": {"deck": "dawn"}} if ruleset == "gambit-tcg" else {})})
    early = Hunt(client, matches, open_id, home, static_docs + [client.get(f"/matches/{open_id}").get_json()])
    for who, seat, token in ((f"seat:{first_seat}", first_seat, joined.get_json()["token"]), ("spectator", None, None)):
        early.read_everything(who, seat, token, rng)
    early.read_everything("foreign-organizer", None, foreign_key, rng, expect_401=True)

    # Complete matches: every viewer at random moments while each runs; a match that ends early
    # is followed by another, until enough moments were checked.
    checked = early.checked
    moments = played = needles = 0
    while moments < SNAPSHOTS and played < MAX_MATCHES:
        played += 1
        # One tournament per match, so the tournament's lists hold this match only (the same card
        # ids of an earlier, finished match are public there, and legitimately so).
        home, home_key = _tournament(client, f"Open {played}")
        match_id, tokens = new_match(client, ruleset, rng, tournament_id=home, organizer_key=home_key)
        summary = client.get(f"/matches/{match_id}").get_json()
        hunt = Hunt(client, matches, match_id, home, static_docs + [summary])
        while moments < SNAPSHOTS and matches.match(match_id).status == "active":
            moments += 1
            for seat, token in tokens.items():
                hunt.read_everything(f"seat:{seat}", seat, token, rng)
            hunt.read_everything("spectator", None, None, rng)
            hunt.read_everything("foreign-organizer", None, foreign_key, rng, expect_401=True)
            advance(matches, match_id, rng, rng.randint(*STEPS_BETWEEN))

        # The end: everything is public to everyone; a foreign organizer key is still refused.
        finish(matches, match_id, rng, tokens, client)
        export = client.get(f"/matches/{match_id}/export").get_data(as_text=True)
        for record in matches.records(match_id):
            if record.secret is not None:
                assert record.salt in export
        assert matches.match(match_id).server_seed in export
        hunt.read_everything("foreign-organizer", None, foreign_key, rng, expect_401=True)
        checked += hunt.checked
        needles += hunt.needles_seen
    assert moments >= SNAPSHOTS, f"{played} {ruleset} matches gave only {moments} moments"
    assert needles > 0, "no viewer had anything hidden from it: the hunt proved nothing"
    record_property("responses_checked", checked)
    print(f"\n{ruleset}: {checked} responses checked against {needles} secret needles "
          f"at {moments} moments of {played} match(es)")
