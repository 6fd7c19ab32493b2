"""The background work of `gambit serve`: one leading worker keeps the clocks and scrubs the chains.

Every worker (on every host serving the store) starts a contender after the app is built
(deploy/gunicorn.conf.py); the one that holds the leadership (projections/leadership.py) runs
the clock keeper (projections/clocks.py) and the scrub (projections/scrub.py) until it exits,
then another worker takes over. Under gevent workers the contender and its duties are
greenlets (gunicorn has patched `threading`), so they yield to requests at every store call
and between matches.
"""

from __future__ import annotations

import logging
import threading

from projections.clocks import ClockKeeper, keep_clocks
from projections.leadership import Duty, Leadership, lead_while
from projections.scrub import Scrub, ScrubReport
from projections.tlog_log import Sequencer
from service.context import Gambit
from service.witnessing import Witnessing

log = logging.getLogger("gambit.keeper")

# How long a stopping worker waits for its duties to end (the clock keeper and the scrub stop at once).
STOP_SECONDS = 10.0
# How long the scrub waits after a failure before going on.
RESUME_SECONDS = 5.0


def build_scrub(gambit: Gambit) -> Scrub:
    """The scrub of this process's store, counting what it checks in the metrics."""

    def checked(match_id: str, problem: str | None) -> None:
        gambit.metrics.count_scrubbed(problem)
        if problem is not None:
            log.error("scrub: match %s fails its integrity checks: %s", match_id, problem)

    return Scrub(
        gambit.matches.store,
        gambit.index.store,
        gambit.alerts,
        on_checked=checked,
        on_pass=lambda _: gambit.metrics.count_scrub_pass(),
    )


def build_sequencer(gambit: Gambit) -> Sequencer:
    """The sequencer of this process's log: it integrates the receipts this service's keys signed."""
    if gambit.log is None:
        raise RuntimeError("this process has no transparency log")
    return Sequencer(
        gambit.log,
        gambit.matches.store,
        gambit.signer.verify,
        gambit.signer.note_signature,
        lambda match_id: _sealed(gambit, match_id),
    )


def _sealed(gambit: Gambit, match_id: str) -> bool:
    """Whether a match's leaves are sealed: it has a spectator delay (docs/verification.md, section 12).

    A match that cannot be loaded (its integrity alert is raised elsewhere) is sealed: hiding is the side that
    cannot leak, the seal binds the leaf all the same, and the log does not stall on it."""
    try:
        return gambit.matches.match(match_id, version=1).options.spectator_delay > 0
    except Exception:
        log.exception("log: match %s cannot be loaded to tell whether it is delayed; its leaf is sealed", match_id)
        return True


def build_witnessing(gambit: Gambit) -> Witnessing | None:
    """The collector of cosignatures for this process's log, or None when no witness is configured."""
    settings = gambit.settings
    if gambit.log is None or not settings.witnesses:
        return None
    return Witnessing(gambit.log, settings.witnesses, settings.witness_quorum)


def keep_log(gambit: Gambit, ended: threading.Event) -> None:
    """Integrate new writes into the log and sign a checkpoint every `log_interval` seconds until `ended`."""
    sequencer = build_sequencer(gambit)
    witnessing = build_witnessing(gambit)
    try:
        while not ended.is_set():
            try:
                added = sequencer.integrate()
                if added:
                    gambit.metrics.count_log_leaves(added)
                if witnessing is not None:
                    # After the integration, in this duty but on its own thread: a witness that is down or slow
                    # delays only the cosigned checkpoint, never a write or the next integration.
                    witnessing.collect_soon()
            except Exception:
                log.exception("log: a failure integrating writes (the store?); trying again shortly")
                ended.wait(RESUME_SECONDS)
                continue
            ended.wait(gambit.settings.log_interval)
    finally:
        if witnessing is not None:
            witnessing.close()


def scrub_once(gambit: Gambit) -> ScrubReport:
    """One pass over every match now, as fast as it goes (`gambit scrub`)."""
    return build_scrub(gambit).run_pass()


class Background:
    """This worker's contender for the leadership, and the duties it runs while it leads."""

    def __init__(self, gambit: Gambit) -> None:
        self.gambit = gambit
        self.leadership = Leadership(gambit.settings.database_url)
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def duties(self) -> list[Duty]:
        """What the leader runs, as configured: the clock keeper, the scrub, both or neither."""
        settings = self.gambit.settings
        found: list[Duty] = []
        if settings.keep_clocks:
            found.append(self._keep_clocks)
        if settings.scrub_rate > 0:
            found.append(self._scrub)
        if settings.log_interval > 0 and self.gambit.log is not None:
            found.append(self._keep_log)
        return found

    def start(self) -> None:
        """Contend for the leadership in the background (nothing to do: no contender)."""
        duties = self.duties()
        if not duties:
            return
        self._thread = threading.Thread(
            target=lead_while,
            args=(self.leadership, self.stopping, duties),
            kwargs={"on_change": self.gambit.metrics.leading},
            daemon=True,
            name="gambit-contender",
        )
        self._thread.start()

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """Stop contending; a leader ends its duties and gives the leadership back."""
        self.stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.leadership.release()

    def _keep_clocks(self, ended: threading.Event) -> None:
        keeper = ClockKeeper(self.gambit.matches.clocks, self.gambit.index.store)

        def expired(match_ids: list[str]) -> None:
            self.gambit.metrics.count_expiries(len(match_ids))
            log.info("clock: recorded the expiries due in %s", ", ".join(match_ids))

        # Polling, not LISTEN: the keeper learns of a new deadline within half a second, and a
        # deadline is at least a second after the record that starts it.
        keep_clocks(keeper, ended, on_expired=expired, listen=False)

    def _keep_log(self, ended: threading.Event) -> None:
        keep_log(self.gambit, ended)

    def _scrub(self, ended: threading.Event) -> None:
        settings = self.gambit.settings
        scrub = build_scrub(self.gambit)
        while not ended.is_set():
            try:
                scrub.keep_scrubbing(ended, settings.scrub_rate, settings.scrub_interval)
            except Exception:
                log.exception("scrub: a failure (the store?); going on from the saved place shortly")
                ended.wait(RESUME_SECONDS)
