"""Serving one store from several worker processes behind one port (`serve --workers N`).

Why processes: one Python process serves its requests behind one interpreter lock, so a second core
only helps a second process. The parent owns the store's backend (it starts the embedded server, whose
files one process at a time may own, or checks that Neo4j answers), refuses a store it cannot serve
before any worker starts, and then runs uvicorn's supervisor: it binds the port once, starts the
workers, restarts one that dies and stops them all on SIGINT or SIGTERM. Each worker connects to the
same store (`GraphPort.connection()`, passed in the spawn pipe, never the environment, as it can hold
Neo4j's password), opens the service in the background as a single process does, and writes through
the journal's compare-and-set, so two workers' writes never collide and each reads what the other
wrote (a read catches up first). While workers run, the parent restarts an embedded server that
died; workers' requests fail meanwhile and their /healthz says the backend is down.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
from collections.abc import Iterator
from typing import Any

from graph_service.config import Settings
from graph_service.errors import UserError
from graph_service.logs import log_config
from graph_service.processes import die_with_parent
from graph_service.storage.open import open_graph
from graph_service.storage.port import GraphPort

log = logging.getLogger(__name__)

MAX_WORKERS = 64
WATCH_SECONDS = 1.0


class WorkerFailed(RuntimeError):
    """A worker could not open the service (its log says why); the parent stopped the others."""


def check_workers(workers: int) -> int:
    """`workers` if it is a sensible number of processes, else UserError naming it."""
    if not 1 <= workers <= MAX_WORKERS:
        raise UserError(f"workers must be 1 to {MAX_WORKERS}, not {workers}", field="workers")
    return workers


def worker_app(settings: Settings, connection: dict[str, str]) -> Any:
    """The ASGI app of one worker (uvicorn calls it in the worker process): the service on `connection`,
    opened in the background. A worker that cannot open it exits with uvicorn's start-up failure code,
    which stops the parent, rather than being restarted to fail the same way forever."""
    from uvicorn.config import STARTUP_FAILURE

    from graph_service.api.app import create_app

    _die_with_parent()

    def failed(exc: BaseException) -> None:
        log.error("worker %s could not open the service: %s: %s", os.getpid(), type(exc).__name__, exc)
        logging.shutdown()
        os._exit(STARTUP_FAILURE)

    return create_app(settings, connection=connection, on_start_failure=failed)


def _die_with_parent() -> None:
    # A worker outliving a parent killed with -9 would keep serving a store nobody supervises.
    die_with_parent()
    if os.getppid() == 1:  # the parent died before the call
        os._exit(1)


def serve_in_workers(settings: Settings, workers: int) -> int:
    """Serve the API from `workers` processes until SIGINT or SIGTERM; 0, or WorkerFailed when a worker
    could not open the service. StoreLocked or StoreFormatError (before any worker starts) as `serve`."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    from graph_service.journal.store import Journal

    graph = open_graph(settings)
    try:
        Journal(graph, []).prepare()  # a store in an old format is refused here, once, not by each worker
        config = uvicorn.Config(functools.partial(worker_app, settings, graph.connection()), factory=True,
                                host=settings.host, port=settings.port, workers=workers, log_config=log_config())
        supervisor = Multiprocess(config, sockets=[config.bind_socket()])
        with _watching(graph):
            supervisor.run()
    finally:
        graph.close()
    if any(p.process.exitcode == STARTUP_FAILURE for p in supervisor.processes):
        raise WorkerFailed("a worker could not open the service (its log above says why); every worker was stopped")
    return 0


@contextlib.contextmanager
def _watching(graph: GraphPort) -> Iterator[None]:
    """While the workers run: restart the embedded server this process owns if it dies (its health check
    does; Neo4j's is a no-op), so the workers' next requests find it again."""
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(WATCH_SECONDS):
            try:
                graph.health()
            except Exception:  # a backend down is the workers' /healthz to say; keep watching
                log.warning("the store does not answer the parent's health check", exc_info=True)

    watcher = threading.Thread(target=watch, name="backend-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join(WATCH_SECONDS * 5)
