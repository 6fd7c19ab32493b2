"""gunicorn settings for the Gambit Match Service (used by `gambit serve`)."""

import multiprocessing
import os

# Threads let one worker hold Server-Sent Event streams while still serving commands.
worker_class = "gthread"
workers = int(os.environ.get("GAMBIT_WORKERS", min(4, multiprocessing.cpu_count() * 2)))
threads = int(os.environ.get("GAMBIT_THREADS", 8))
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


def worker_exit(server, worker):
    """Close the worker's store connections on a graceful exit (SIGTERM drains requests first)."""
    app = getattr(worker, "wsgi", None)
    gambit = getattr(app, "extensions", {}).get("gambit") if app is not None else None
    if gambit is not None:
        gambit.close()
