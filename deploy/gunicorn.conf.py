"""gunicorn settings for the Gambit Match Service (used by `gambit serve`)."""

import glob
import multiprocessing
import os
import shutil
import tempfile

from service.logs import gunicorn_logconfig

# Metrics add up over workers (prometheus_client's multiprocess mode, service/metrics.py): every
# worker writes its samples under one directory, named here in the master before any worker
# starts, and fresh for each server start (an operator's own directory is emptied at start).
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="gambit-metrics-")
    # Remembered in the environment: a configuration reload runs this file again.
    os.environ["GAMBIT_OWN_METRICS_DIR"] = os.environ["PROMETHEUS_MULTIPROC_DIR"]

# gevent workers: an idle Server-Sent Event follower is a parked greenlet, not a held thread, so
# a thousand followers leave commands and health checks their full speed (service/streams.py).
# psycopg and the standard library cooperate once gevent has patched them (gunicorn does it at
# worker start). GAMBIT_WORKER_CLASS=gthread restores one thread per request (GAMBIT_THREADS).
worker_class = os.environ.get("GAMBIT_WORKER_CLASS", "gevent")
workers = int(os.environ.get("GAMBIT_WORKERS", str(min(4, multiprocessing.cpu_count() * 2))))
threads = int(os.environ.get("GAMBIT_THREADS", "8"))
# Concurrent connections per gevent worker (streams included).
worker_connections = int(os.environ.get("GAMBIT_WORKER_CONNECTIONS", "2000"))
timeout = 60
graceful_timeout = 30
keepalive = 5
# The app is built in each worker after fork: the store's connection pool must not be shared.
preload_app = False
# Logs are JSON lines (service/logs.py): gunicorn's own, the app's (each with its request id) on
# stderr, and the access log on GAMBIT_ACCESS_LOG (`-`: stdout). Only chosen fields of a request
# are logged, never its headers, so tokens and organizer keys stay out of every line.
logconfig_dict = gunicorn_logconfig(os.environ.get("GAMBIT_ACCESS_LOG", "-"))
accesslog = None  # the access logger is configured by logconfig_dict alone
errorlog = "-"
# gunicorn's control socket lives at one path per user: two servers on a host would fight over it.
control_socket_disable = True
max_requests = 10000
max_requests_jitter = 500


def on_starting(server):
    """Start the metrics from zero: samples of an earlier server in the same directory must not count."""
    for path in glob.glob(os.path.join(os.environ["PROMETHEUS_MULTIPROC_DIR"], "*.db")):
        os.remove(path)


def child_exit(server, worker):
    """Drop an exited worker's live gauges (its open streams); its counters stay in the sums."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    """Stop the leader process; remove the metrics directory this configuration made."""
    _stop_lead_process(server)
    made = os.environ.get("GAMBIT_OWN_METRICS_DIR")
    if made and made == os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        shutil.rmtree(made, ignore_errors=True)


# The leader's duties (the clock keeper, the scrub, the log's sequencer) run in a process of their own, `gambit lead`,
# started by the master before the workers and started again LEAD_STAND_IN_SECONDS after it dies; the workers
# contend too and lead while it is down (service/keeper.py). Off: one worker leads, its duties greenlets of its loop.
lead_process = os.environ.get("GAMBIT_LEAD_PROCESS", "on").strip().lower() != "off"
# A new leader process starts no sooner than this after the last one started (one that keeps dying is not looped)...
LEAD_RESTART_SECONDS = 2.0
# ...and no sooner than this after it was found dead: a worker (they try every second) has stood in by then, so the new
# leader process takes over from a worker that leads, never races the workers for a lock nobody holds.
LEAD_STAND_IN_SECONDS = 3.0
# How long the master waits for a new leader process to have tried its lock before it starts the workers.
LEAD_READY_SECONDS = 30.0
LEAD_STOP_SECONDS = 15.0


def when_ready(server):
    """Start the leader process, and have the master's loop start it again whenever it has died."""
    if not lead_process:
        return
    server.gambit_lead = None
    server.gambit_lead_started = 0.0
    server.gambit_lead_died = 0.0
    _start_lead_process(server, wait=True)
    manage_workers = server.manage_workers

    def manage_workers_and_the_leader():
        manage_workers()
        _keep_lead_process(server)

    # The master's loop calls this about once a second and after every signal (a child's exit among them).
    server.manage_workers = manage_workers_and_the_leader


def on_reload(server):
    """On SIGHUP the workers restart with the new code and settings; so does the leader process."""
    _stop_lead_process(server)


def _start_lead_process(server, wait=False):
    import subprocess
    import sys
    import time

    server.gambit_lead_started = time.monotonic()
    command = [sys.executable, "-m", "service.cli", "lead", "--parent", str(os.getpid())]
    # A new interpreter (not a fork of the master): unpatched by gevent, its duties are real threads.
    if not wait:
        server.gambit_lead = subprocess.Popen(command)
    else:
        import select

        ready, ready_w = os.pipe()
        server.gambit_lead = subprocess.Popen([*command, "--ready-fd", str(ready_w)], pass_fds=(ready_w,))
        os.close(ready_w)
        # Until it has tried its lock (or died): workers started before would lead first, then hand over.
        select.select([ready], [], [], LEAD_READY_SECONDS)
        os.close(ready)
    server.log.info("Started the leader process (pid: %s)", server.gambit_lead.pid)


def _keep_lead_process(server):
    import time

    process = getattr(server, "gambit_lead", None)
    if process is not None:
        # gunicorn's reaper may have collected its exit already: poll() then tells it has ended all the same.
        if process.poll() is None:
            return
        server.log.warning("The leader process (pid: %s) exited (%s); the workers lead meanwhile", process.pid,
                           process.returncode)
        _forget_lead_process(process.pid)
        server.gambit_lead = None
        server.gambit_lead_died = time.monotonic()
    now = time.monotonic()
    if (now - server.gambit_lead_started >= LEAD_RESTART_SECONDS
            and now - getattr(server, "gambit_lead_died", 0.0) >= LEAD_STAND_IN_SECONDS):
        _start_lead_process(server)


def _stop_lead_process(server):
    import subprocess

    process = getattr(server, "gambit_lead", None)
    if process is None:
        return
    server.gambit_lead = None  # a reload's next loop starts a new one; an exit's none
    if process.poll() is None:
        process.terminate()  # it ends its duties and gives the leadership back
        try:
            process.wait(LEAD_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    _forget_lead_process(process.pid)


def _forget_lead_process(pid):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)


def post_worker_init(worker):
    """On SIGTERM/SIGQUIT/SIGINT, end the worker's open event streams too, so draining takes seconds.

    A stream parked between records would otherwise hold the graceful shutdown until its next
    heartbeat or its end; clients reconnect (`retry:`) to another worker.
    """
    import signal
    import threading

    gambit = getattr(worker.wsgi, "extensions", {}).get("gambit")
    if gambit is None:
        return
    _start_background(worker, gambit)
    if "ggevent" in type(worker).__module__:
        import gevent

        # A gevent worker runs signal handlers in its event loop, where starting a thread (a
        # greenlet waiting to start) is a blocking switch that kills the worker: spawn instead.
        def close_streams() -> None:
            gevent.spawn(gambit.streams.close)
    else:

        def close_streams() -> None:
            threading.Thread(target=gambit.streams.close, daemon=True).start()

    for name in ("SIGTERM", "SIGQUIT", "SIGINT"):
        number = getattr(signal, name)
        previous = signal.getsignal(number)

        def ending(sig, frame, previous=previous):
            # Not in the handler itself: closing takes the hub's lock, which the interrupted code may hold.
            close_streams()
            if callable(previous):
                previous(sig, frame)

        signal.signal(number, ending)


def _start_background(worker, gambit):
    """Every worker contends to keep the clocks and scrub the chains; one leads (service/keeper.py).

    In the worker, not the master: the leadership dies with the process that holds it, and the
    master opens no store connection. Under gevent, gunicorn has already patched `threading`, so
    the contender is a greenlet of the worker's loop.
    """
    from service.keeper import Background

    background = Background(gambit)
    worker.wsgi.extensions["gambit_background"] = background
    background.start()


def worker_exit(server, worker):
    """Close the worker's store connections on a graceful exit (SIGTERM drains requests first).

    A leading worker first ends its duties and gives the leadership back, so another takes over at once.
    """
    app = getattr(worker, "wsgi", None)
    background = getattr(app, "extensions", {}).get("gambit_background") if app is not None else None
    if background is not None:
        background.stop()
    gambit = getattr(app, "extensions", {}).get("gambit") if app is not None else None
    if gambit is not None:
        gambit.close()
