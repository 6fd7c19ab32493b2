"""The background work of `gambit serve`: one leader keeps the clocks, scrubs the chains and keeps the log.

`gambit serve`'s master starts a dedicated leader process (`gambit lead`, deploy/gunicorn.conf.py)
and starts it again when it dies; every worker (on every host serving the store) starts a
contender too, after the app is built. The one that holds the leadership (projections/leadership.py)
runs the clock keeper (projections/clocks.py), the scrub (projections/scrub.py) and the log's
sequencer until it exits, then another takes over. The workers defer to a leader process while
one lives, so they lead only while it is down (or with `GAMBIT_LEAD_PROCESS=off`): the leader
process's duties are threads of their own, where a worker's are greenlets (gunicorn has patched
`threading`) that wait behind its requests at every store call and between matches.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from domain.errors import PartitionUnavailable
from projections.clocks import ClockKeeper, keep_clocks
from projections.leadership import LEAD_PROCESS, Duty, Leadership, lead_while
from projections.scrub import Scrub, ScrubReport
from projections.tlog_log import Sequencer
from service.context import Gambit
from service.settings import Settings
from service.witnessing import Witnessing

log = logging.getLogger("gambit.keeper")

# How long a stopping worker waits for its duties to end (the clock keeper and the scrub stop at once).
STOP_SECONDS = 10.0
# How long the scrub waits after a failure before going on.
RESUME_SECONDS = 5.0
# The least pause between two of the log's passes, as a share of its interval: a pass longer than the interval
# leaves the store a moment before the next. A leading worker (the fallback) pauses the whole interval after each
# pass, as before the leader process: there the passes share one loop with its requests and its clock keeper, and
# back to back they would take more of it.
LEAST_PAUSE = 0.1
WORKER_LEAST_PAUSE = 1.0


def build_scrubs(gambit: Gambit) -> list[Scrub]:
    """The scrub of each partition of this process's store (one without partitions), counting what it checks."""

    def checked(match_id: str, problem: str | None) -> None:
        gambit.metrics.count_scrubbed(problem)
        if problem is not None:
            log.error("scrub: match %s fails its integrity checks: %s", match_id, problem)

    return [
        Scrub(
            partition,
            gambit.index.store,
            gambit.alerts,
            on_checked=checked,
            on_pass=lambda _: gambit.metrics.count_scrub_pass(),
            partition=number,
            health=gambit.matches.store.health,
        )
        for number, partition in enumerate(gambit.matches.store.partitions)
    ]


def build_sequencer(gambit: Gambit, partition: int = 0) -> Sequencer:
    """The sequencer of a partition's log (the one log without partitions): it integrates the receipts this
    service's keys signed, from that partition's store."""
    logs = gambit.partition_logs()
    if not logs:
        raise RuntimeError("this process has no transparency log")
    return Sequencer(
        logs[partition],
        gambit.matches.store.partitions[partition],
        gambit.signer.verify,
        gambit.signer.note_signature,
        lambda match_id: _sealed(gambit, match_id),
        retirer=gambit.signer,
        retire_after=gambit.settings.key_retirement_delay,
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


def build_witnessing(gambit: Gambit, partition: int = 0) -> Witnessing | None:
    """The collector of cosignatures for a partition's log, or None when no witness is configured."""
    settings = gambit.settings
    logs = gambit.partition_logs()
    if not logs or not settings.witnesses:
        return None
    return Witnessing(logs[partition], settings.witnesses, settings.witness_quorum)


def keep_log(gambit: Gambit, ended: threading.Event, least_pause: float = LEAST_PAUSE) -> None:
    """Integrate new writes into each partition's log and sign a checkpoint every `log_interval` seconds (start to
    start, pausing at least `least_pause` of it after a pass) until `ended`; a partition that fails waits its turn
    again, the others go on."""
    numbers = range(len(gambit.partition_logs()))
    sequencers = [build_sequencer(gambit, number) for number in numbers]
    witnessings = [build_witnessing(gambit, number) for number in numbers]
    try:
        while not ended.is_set():
            started = time.monotonic()
            failed = False
            for sequencer, witnessing in zip(sequencers, witnessings, strict=True):
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
                    failed = True
            # Every `log_interval` from one pass's start to the next's: the pass's own time (under load, a few
            # tenths of a second) is not added to the wait, so passes shorter than the interval keep its pace.
            interval = gambit.settings.log_interval
            ended.wait(
                RESUME_SECONDS if failed else max(interval * least_pause, interval - (time.monotonic() - started))
            )
    finally:
        for witnessing in witnessings:
            if witnessing is not None:
                witnessing.close()


def scrub_once(gambit: Gambit) -> ScrubReport:
    """One pass over every match of every partition now, as fast as it goes (`gambit scrub`)."""
    report = ScrubReport()
    for scrub in build_scrubs(gambit):
        part = scrub.run_pass()
        report.checked += part.checked
        report.problems.update(part.problems)
        report.unavailable.update(part.unavailable)
    return report


class Background:
    """This process's contender for the leadership, and the duties it runs while it leads.

    `lead_process` is the lock of a dedicated leader process (`gambit lead`): given, this is that process, which
    contends only while it holds it; otherwise (a worker) it defers to whichever process holds it, when
    `settings.lead_process` says `gambit serve` runs one."""

    def __init__(self, gambit: Gambit, lead_process: Leadership | None = None) -> None:
        self.gambit = gambit
        self.leadership = Leadership(gambit.settings.database_url)
        self.dedicated = lead_process is not None
        self.lead_process = lead_process or Leadership(gambit.settings.database_url, role=LEAD_PROCESS)
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def defer(self) -> bool:
        """Whether this contender leaves the leadership to another now: a worker while a leader process lives, the
        leader process while another (on another host) holds the leader process's lock."""
        if self.dedicated:
            return not (self.lead_process.try_acquire() and self.lead_process.holds())
        return self.lead_process.held_elsewhere()

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
            kwargs={
                "on_change": self.gambit.metrics.leading,
                "defer": self.defer if self.dedicated or self.gambit.settings.lead_process else None,
            },
            daemon=True,
            name="gambit-contender",
        )
        self._thread.start()

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """Stop contending; a leader ends its duties and gives the leadership back (a leader process, its lock too)."""
        self.stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.leadership.release()
        if self.dedicated:
            self.lead_process.release()

    def _keep_clocks(self, ended: threading.Event) -> None:
        keeper = ClockKeeper(self.gambit.matches.clocks, self.gambit.index.store)

        def expired(match_ids: list[str]) -> None:
            self.gambit.metrics.count_expiries(len(match_ids))
            log.info("clock: recorded the expiries due in %s", ", ".join(match_ids))

        # Polling, not LISTEN: the keeper learns of a new deadline within half a second, and a
        # deadline is at least a second after the record that starts it.
        keep_clocks(keeper, ended, on_expired=expired, listen=False)

    def _keep_log(self, ended: threading.Event) -> None:
        keep_log(self.gambit, ended, LEAST_PAUSE if self.dedicated else WORKER_LEAST_PAUSE)

    def _scrub(self, ended: threading.Event) -> None:
        scrubs = build_scrubs(self.gambit)
        if len(scrubs) == 1:
            self._keep_scrubbing(scrubs[0], ended, 1)
            return
        # One scrub per partition, each at its share of the rate: a partition that is down stalls only its own.
        threads = [
            threading.Thread(target=self._keep_scrubbing, args=(scrub, ended, len(scrubs)), daemon=True)
            for scrub in scrubs
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _keep_scrubbing(self, scrub: Scrub, ended: threading.Event, shares: int) -> None:
        settings = self.gambit.settings
        while not ended.is_set():
            try:
                scrub.keep_scrubbing(ended, settings.scrub_rate / shares, settings.scrub_interval)
            except PartitionUnavailable as exc:
                log.warning("scrub: %s; going on from the saved place when it answers", exc)
                ended.wait(RESUME_SECONDS)
            except Exception:
                log.exception("scrub: a failure (the store?); going on from the saved place shortly")
                ended.wait(RESUME_SECONDS)


def run_lead_process(settings: Settings, stop: threading.Event, on_ready: Callable[[], None] | None = None) -> None:
    """`gambit lead`: hold the leader process's lock, and lead with real threads, until `stop`.

    The lock is tried once before the app is built and `on_ready` is called then, so a master that waits for it starts
    its workers only once they will find it held (none takes the lead first, to hand it over seconds later). Another
    host's leader process may hold it: this one then waits its turn (`Background.defer`)."""
    from service.app import build_gambit  # here: the app module is the keeper's user, not its dependency

    lead_process = Leadership(settings.database_url, role=LEAD_PROCESS)
    try:
        lead_process.try_acquire()
        if on_ready is not None:
            on_ready()
        gambit = build_gambit(settings)
        background = Background(gambit, lead_process=lead_process)
        try:
            background.start()
            stop.wait()
        finally:
            background.stop()
            gambit.close()
    finally:
        lead_process.release()
