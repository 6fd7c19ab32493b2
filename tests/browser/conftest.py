"""Browser tests of the spectator viewer: a live server on SQLite and the distribution's Chromium.

Playwright drives /usr/bin/chromium (never a downloaded browser). Without Chromium or the
playwright package the tests skip with the reason — except in CI (CI=true), where that fails.
"""

from __future__ import annotations

import os
import random
import re
import sys
import threading
import traceback
import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wsgi import ClosingIterator

from service import watch
from service.app import create_app
from service.settings import Settings
from tests.support.api import auth, create_match, join_all, legal_options, play_to_end

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_configure(config):
    """Register the `browser` marker (harmless when pyproject registers it too)."""
    config.addinivalue_line("markers", "browser: drives a real browser (Chromium via Playwright) against a live server")


def _unavailable(reason: str):
    """Skip with the reason, or fail in CI where the browser must be there."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


class QuietHandler(WSGIRequestHandler):
    """Werkzeug's handler without the per-request access log."""

    def log_request(self, *args, **kwargs) -> None:
        """Keep test output quiet."""


class InFlight:
    """WSGI middleware that tracks the requests being served (a streamed one until its response is closed)."""

    def __init__(self, app) -> None:
        self.app = app
        self.serving: dict[int, tuple[str, int]] = {}  # per request: its method and path, and its thread's id
        self._changed = threading.Condition()
        self._next = 0
        self.stopped = False

    @property
    def count(self) -> int:
        """How many requests are being served now."""
        return len(self.serving)

    def __call__(self, environ, start_response):
        """Serve the request, tracking it until its response is closed (503 once the server has stopped)."""
        if self.stopped:
            # A kept-alive connection outlives the server's shutdown: its next request must not reach the store.
            start_response("503 Service Unavailable", [("Connection", "close"), ("Content-Length", "0")])
            return [b""]
        with self._changed:
            self._next += 1
            number = self._next
            self.serving[number] = (f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO', '')}", threading.get_ident())
        try:
            return ClosingIterator(self.app(environ, start_response), [lambda: self._done(number)])
        except BaseException:
            self._done(number)
            raise

    def _done(self, number: int) -> None:
        with self._changed:
            self.serving.pop(number, None)
            self._changed.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is being served; False when `timeout` seconds pass first."""
        with self._changed:
            return self._changed.wait_for(lambda: not self.serving, timeout=timeout)

    def describe(self) -> str:
        """The requests still being served, each with where its thread is."""
        frames = sys._current_frames()
        with self._changed:
            serving = list(self.serving.values())
        return "\n".join(
            f"{request}:\n{''.join(traceback.format_stack(frames[thread])) if thread in frames else '(thread gone)'}"
            for request, thread in serving
        )


class LiveServer:
    """The app served by werkzeug in a thread on 127.0.0.1, plus a test client on the same store.

    `stop()` and `start()` kill the server under its pages and bring it back on the same port and
    the same SQLite store (a restart, as a deploy or a crash would do it).
    """

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.port = 0
        self.start()

    def settings(self) -> Settings:
        """The app's settings: its SQLite store and data directory."""
        return Settings(database_url=f"sqlite:///{self.tmp}/s.sqlite3", data_dir=str(self.tmp))

    def start(self) -> None:
        """Serve a fresh app on the store (on the port it had, once it had one)."""
        self.app = create_app(self.settings())
        if "watch" not in self.app.blueprints:
            self.app.register_blueprint(watch.bp)
        self.client = self.app.test_client()
        self.in_flight = InFlight(self.app)
        self.server = make_server("127.0.0.1", self.port, self.in_flight, threaded=True, request_handler=QuietHandler)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, name="live-server", daemon=True)
        self.thread.start()

    @property
    def matches(self):
        """The match application (the store the server writes)."""
        return self.app.extensions["gambit"].matches

    def stop(self) -> None:
        """Stop serving, end open event streams, release the store (the port is free until `start`).

        The store is released only once no request is being served: a request thread inside a query on a closed
        SQLite connection crashes the whole test process."""
        self.in_flight.stopped = True
        self.server.shutdown()
        self.thread.join(timeout=10)
        self.server.server_close()
        gambit = self.app.extensions["gambit"]
        gambit.streams.close()  # wakes every open stream, which then ends
        if not self.in_flight.wait_idle(timeout=30):
            # Closing the store now could crash the process; the store is left open (to the end of the run) and
            # what was still being served is reported.
            warnings.warn(f"a request still served 30 s after the server stopped:\n{self.in_flight.describe()}",
                          stacklevel=1)
            return
        gambit.close()

    def close(self) -> None:
        """Stop for good."""
        self.stop()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """One live server per test module, on its own SQLite store."""
    server = LiveServer(tmp_path_factory.mktemp("live"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from the distribution, launched once per session."""
    if not os.path.exists(CHROMIUM):
        _unavailable(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install playwright; no browser download)")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class Recorder:
    """The requests a page made and the script errors it met."""

    def __init__(self, page) -> None:
        self.requests = []
        self.errors: list[str] = []
        page.on("request", lambda request: self.requests.append(request))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        # Every console error counts, a failed request's included: the log keeper asks for no proof the log does not
        # hold yet (GET /matches/{id}/logged first), so a 404 `not_in_log_yet` is a page error too.
        page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)


def relay_api(tab) -> list[tuple[str, str]]:
    """Pass every API response through the test on its way to the page; returns the (url, body) list.

    Chromium does not keep the body of a streamed fetch, so the event stream is relayed whole
    (set a short `service.events.STREAM_SECONDS`): the list then holds every byte the page got.
    """
    from playwright.sync_api import Error as PlaywrightError

    received: list[tuple[str, str]] = []

    def relay(route) -> None:
        try:
            response = route.fetch(timeout=60000)
            received.append((route.request.url, response.text()))
            route.fulfill(response=response)
        except PlaywrightError as exc:
            # A request still in flight when the test closes its page (the live stream, a poll)
            # cannot be relayed any more: Playwright disposes of its response; anything else is
            # the test's failure.
            if not (tab.is_closed() or "has been disposed" in str(exc)):
                raise

    tab.route(re.compile(r"^https?://[^/]+/matches(?:[/?]|$)"), relay)
    return received


@pytest.fixture
def page(browser):
    """A fresh browser context and page, with its responses recorded on `page.recorder`."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(15000)
    tab.recorder = Recorder(tab)
    yield tab
    context.close()


def screenshot(tab, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    tab.screenshot(path=str(path), full_page=True)
    return path


# ----- match builders (over HTTP, through legal-commands only) -------------------------------

# The configs of the games not played with their defaults (any registered game may be asked for).
CONFIGS = {
    "gambitz": {"players": 3},
    "dragons-gambit": {"players": 3, "target_score": 30},
}


def _prefer(rng: random.Random):
    """Favour long, eventful games: no resigning, bluff calls now and then, late Final Gambits."""
    def prefer(command: dict) -> bool:
        kind = command["type"]
        if kind == "resign":
            return False
        if kind == "call_bluff":
            return rng.random() < 0.5
        if kind == "call_final_gambit":
            return rng.random() < 0.2
        return True
    return prefer


def finished_match(server: LiveServer, ruleset: str, seed: int = 5) -> tuple[str, dict]:
    """A finished match of `ruleset`; returns (match id, seat tokens)."""
    client = server.client
    match = create_match(client, ruleset, CONFIGS.get(ruleset, {}))
    tokens = join_all(client, match)
    rng = random.Random(seed)
    play_to_end(client, match["match_id"], tokens, rng, prefer=_prefer(rng))
    return match["match_id"], tokens


def active_match(server: LiveServer, ruleset: str, moves: int, seed: int = 7, tournament_id: str | None = None,
                 organizer_key: str | None = None):
    """An active match after `moves` random legal commands (in a tournament: created by its organizer);
    returns (match id, tokens, rng)."""
    client = server.client
    body = {"ruleset": ruleset, "config": CONFIGS.get(ruleset, {})}
    if tournament_id:
        body["tournament_id"] = tournament_id
    response = client.post("/matches", json=body, headers=auth(organizer_key) if organizer_key else {})
    assert response.status_code == 201, response.get_json()
    match = response.get_json()
    tokens = join_all(client, match)
    rng = random.Random(seed)
    for _ in range(moves):
        assert play_one(server, match["match_id"], tokens, rng), "the match ended too early for this test"
    return match["match_id"], tokens, rng


def play_one(server: LiveServer, match_id: str, tokens: dict, rng: random.Random, finish: bool = False) -> bool:
    """Play one random legal command that does not end the match (unless `finish`); False when none."""
    client = server.client
    summary = client.get(f"/matches/{match_id}").get_json()
    if summary["status"] != "active":
        return False
    prefer = _prefer(rng)
    seat = rng.choice(sorted(summary["to_act"]))
    commands = legal_options(client, match_id, tokens[seat], rng)
    calm = [c for c in commands if finish or (c["type"] not in ("resign", "call_final_gambit") and prefer(c))]
    body = rng.choice(calm or commands)
    response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
    assert response.status_code == 201, (body, response.get_json())
    return True


@contextmanager
def pages_in_own_contexts(browser, count: int, timeout_ms: int):
    """`count` pages at 1,400 px, each in its own browser context (its own storage, as separate people have),
    collecting page errors in `tab.errors`; the contexts close afterwards."""
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(count)]
    pages = []
    for context in contexts:
        tab = context.new_page()
        tab.set_default_timeout(timeout_ms)
        tab.errors = []
        tab.on("pageerror", lambda exc, tab=tab: tab.errors.append(str(exc)))
        pages.append(tab)
    try:
        yield pages
    finally:
        for context in contexts:
            context.close()
