"""gunicorn settings for the Gambit Match Service (used by `gambit serve`)."""

import multiprocessing
import os

# gevent workers: an idle Server-Sent Event follower is a parked greenlet, not a held thread, so
# a thousand followers leave commands and health checks their full speed (service/streams.py).
# psycopg and the standard library cooperate once gevent has patched them (gunicorn does it at
# worker start). GAMBIT_WORKER_CLASS=gthread restores one thread per request (GAMBIT_THREADS).
worker_class = os.environ.get("GAMBIT_WORKER_CLASS", "gevent")
workers = int(os.environ.get("GAMBIT_WORKERS", min(4, multiprocessing.cpu_count() * 2)))
threads = int(os.environ.get("GAMBIT_THREADS", 8))
# Concurrent connections per gevent worker (streams included).
worker_connections = int(os.environ.get("GAMBIT_WORKER_CONNECTIONS", 2000))
timeout = 60
graceful_timeout = 30
keepalive = 5
# The app is built in each worker after fork: the store's connection pool must not be shared.
preload_app = False
accesslog = os.environ.get("GAMBIT_ACCESS_LOG", "-")
errorlog = "-"
# gunicorn's control socket lives at one path per user: two servers on a host would fight over it.
control_socket_disable = True
max_requests = 10000
max_requests_jitter = 500


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
    for name in ("SIGTERM", "SIGQUIT", "SIGINT"):
        number = getattr(signal, name)
        previous = signal.getsignal(number)

        def ending(sig, frame, previous=previous):
            # Not in the handler itself: closing takes the hub's lock, which the interrupted code may hold.
            threading.Thread(target=gambit.streams.close, daemon=True).start()
            if callable(previous):
                previous(sig, frame)

        signal.signal(number, ending)


def worker_exit(server, worker):
    """Close the worker's store connections on a graceful exit (SIGTERM drains requests first)."""
    app = getattr(worker, "wsgi", None)
    gambit = getattr(app, "extensions", {}).get("gambit") if app is not None else None
    if gambit is not None:
        gambit.close()
