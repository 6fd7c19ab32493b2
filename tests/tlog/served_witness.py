"""Witnesses served over HTTP for the log tests: a `gambit witness` app in a werkzeug thread, and one that is down."""

from __future__ import annotations

import socket
import threading

from werkzeug.serving import make_server

from service.witness import Witness, create_witness_app
from tests.browser.conftest import QuietHandler


class ServedWitness:
    """A witness app served by werkzeug in a thread on 127.0.0.1."""

    def __init__(self, witness: Witness) -> None:
        self.witness = witness
        self.server = make_server(
            "127.0.0.1", 0, create_witness_app(witness), threaded=True, request_handler=QuietHandler
        )
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        # A short poll: shutting down waits for it, and the equivocation suite stops two witnesses per run.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def closed_port() -> int:
    """A port nothing listens on: a witness that is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def witness_key_files(directory, witnesses) -> list[str]:
    """Each witness's verifier key written to `<name>.vkey` in `directory`, as `gambit verify --witness-key` reads it."""
    paths = []
    for witness in witnesses:
        path = directory / f"{witness.name}.vkey"
        path.write_text(witness.vkey + "\n")
        paths.append(str(path))
    return paths
