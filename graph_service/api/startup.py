"""Opening the service behind a port that already answers: probes report the start while it runs.

Connecting can mean starting the embedded server and waiting while it loads its files, and opening
replays the journal; both take time that grows with the store. Served in the background, /healthz
answers at once (the process is alive and says how far it has come), /readyz and GraphQL answer
503 with the progress until the service is ready, and a start that fails ends the process with the
failure, as a start in the foreground would.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from graph_service.api.early import RETRY_AFTER_SECONDS
from graph_service.config import Settings
from graph_service.service import Service

log = logging.getLogger(__name__)

STOP_WAIT_SECONDS = 60.0


class BackgroundStart:
    """One opening of the service in a thread of its own; `holder["service"]` is set once it is ready.

    `on_failure` gets the exception a failed start raised (the serve command stops the server with it)."""

    def __init__(self, settings: Settings, holder: dict[str, Any],
                 on_failure: Callable[[BaseException], None], connection: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.connection = connection
        self.holder = holder
        self.on_failure = on_failure
        self.phase = "connecting"
        self.started = time.monotonic()
        self.total: int | None = None
        self.failure: BaseException | None = None
        self._service: Service | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._open, name="service-start", daemon=True)

    def begin(self) -> None:
        self._thread.start()

    def status(self) -> dict[str, Any]:
        """Where the start is: the phase, seconds since it began and, while replaying, how far."""
        shown: dict[str, Any] = {"status": "starting", "phase": self.phase,
                                 "seconds": round(time.monotonic() - self.started, 1)}
        service = self._service
        if self.phase == "replaying" and service is not None:
            shown.update(replayed=service.journal.seq, of=self.total)
        if self.failure is not None:
            shown.update(status="failed", reason=f"{type(self.failure).__name__}: {self.failure}"[:300])
        return shown

    def _open(self) -> None:
        try:
            service = Service.connect(self.settings, self.connection)
            self._service = service
            if self._stopping.is_set():
                service.close()
                return
            self.total = service.stored_total()
            self.phase = "replaying"
            service.start()
            # The replayed state lives as long as the process: kept out of the collector's reach, a
            # full collection no longer walks it (81 ms at 10^4 entries, 207 ms at 3·10^4, landing on
            # whichever request is running); what is written later is collected as before.
            gc.freeze()
        except BaseException as exc:  # reported to the process, which ends with it
            if self._stopping.is_set():
                return  # the server is shutting down and closed the connection under the replay
            self.failure = exc
            self.phase = "failed"
            log.error("graph_service could not start: %s: %s", type(exc).__name__, exc)
            self.on_failure(exc)
            return
        self.phase = "ready"
        self.holder["service"] = service
        log.info("graph_service ready on %s after %.1f s", service.graph.backend, time.monotonic() - self.started)

    def stop(self) -> None:
        """At shutdown: close what was opened; a replay still running ends on the closed connection."""
        self._stopping.set()
        service = self.holder.pop("service", None) or self._service
        if service is not None:
            service.close()
        self._thread.join(STOP_WAIT_SECONDS)


class StartingGate:
    """ASGI wrapper of the GraphQL route: 503 with the start's progress until the service is ready."""

    def __init__(self, app: ASGIApp, holder: dict[str, Any]) -> None:
        self.app = app
        self.holder = holder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if "service" in self.holder or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        starting: BackgroundStart | None = self.holder.get("starting")
        status = starting.status() if starting is not None else {"status": "starting"}
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1013, "reason": "the service is starting"})
            return
        body = {"errors": [{"message": "the service is starting; retry shortly",
                            "extensions": {"code": "STARTING", **status}}]}
        await JSONResponse(body, status_code=503, headers={"retry-after": RETRY_AFTER_SECONDS})(scope, receive, send)
