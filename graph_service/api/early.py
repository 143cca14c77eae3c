"""The port and the probes from a process's first moments: the GraphQL app loads behind them.

Importing the app (strawberry's types for the whole schema) takes about a second, and uvicorn binds its
port only once the app it serves has started. `EarlyProbes` is that app from the start: it binds at once,
answers /healthz (alive, phase `loading`) and /readyz (503, with Retry-After) while the real app is built
in a thread, then runs the real app's lifespan and hands it every request. A container's health check
sees a live process within its first second, not after the imports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = "2"  # what a request refused while the service starts is told to wait (api/startup.py too)


class AppFailed(RuntimeError):
    """The real app could not be built, or its start-up said it failed."""


class EarlyProbes:
    """An ASGI app that answers the probes until the app `build` returns (built in a worker thread) has
    started, and is that app afterwards. `on_failure` gets what a failed build or start-up raised (the serve
    command stops the server with it)."""

    def __init__(self, build: Callable[[], ASGIApp], on_failure: Callable[[BaseException], None]) -> None:
        self._build = build
        self._on_failure = on_failure
        self._app: ASGIApp | None = None
        self._settled: anyio.Event | None = None  # set once the app has started, or failed to
        self.phase = "loading"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        app = self._app
        if app is not None:
            await app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1013, "reason": "the service is starting"})
            return
        if scope["type"] != "http":
            return
        if scope.get("path") == "/healthz":
            answer = JSONResponse({"status": "ok", "service": {"status": "starting", "phase": self.phase}})
        else:
            answer = JSONResponse({"status": "starting", "phase": self.phase}, status_code=503,
                                  headers={"retry-after": RETRY_AFTER_SECONDS})
        await answer(scope, receive, send)

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Our start-up completes at once (so uvicorn binds the port); the real app's lifespan runs once it is
        built, and our shutdown waits for its shutdown."""
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        await send({"type": "lifespan.startup.complete"})
        self._settled = anyio.Event()
        to_app, app_receives = anyio.create_memory_object_stream[Message](4)
        app_sends, from_app = anyio.create_memory_object_stream[Message](4)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._start, tasks, scope, to_app, app_receives, app_sends, from_app)
            await receive()  # lifespan.shutdown
            await self._settled.wait()  # a start on its way is let finish, so what it opened is closed
            if self._app is not None:
                await to_app.send({"type": "lifespan.shutdown"})
                reply = await from_app.receive()
                if reply["type"] == "lifespan.shutdown.failed":
                    log.error("the app's shutdown failed: %s", reply.get("message"))
            tasks.cancel_scope.cancel()
        await send({"type": "lifespan.shutdown.complete"})

    async def _start(self, tasks: TaskGroup, scope: Scope, to_app: MemoryObjectSendStream[Message],
                     app_receives: MemoryObjectReceiveStream[Message], app_sends: MemoryObjectSendStream[Message],
                     from_app: MemoryObjectReceiveStream[Message]) -> None:
        try:
            try:
                app = await anyio.to_thread.run_sync(self._build)
            except Exception as exc:  # reported to the process, which ends with it
                self._failed(exc)
                return
            self.phase = "starting"
            tasks.start_soon(_run_lifespan, app, scope, app_receives, app_sends)
            await to_app.send({"type": "lifespan.startup"})
            reply = await from_app.receive()
            if reply["type"] != "lifespan.startup.complete":
                self._failed(AppFailed(reply.get("message") or "the app's start-up failed"))
                return
            self._app = app
            self.phase = "started"
        finally:
            assert self._settled is not None
            self._settled.set()

    def _failed(self, exc: BaseException) -> None:
        self.phase = "failed"
        log.error("graph_service could not start: %s: %s", type(exc).__name__, exc)
        self._on_failure(exc)


async def _run_lifespan(app: ASGIApp, scope: Scope, receive: MemoryObjectReceiveStream[Message],
                        send: MemoryObjectSendStream[Message]) -> None:
    # An app without a lifespan raises on its scope: then it has nothing to start, and says so.
    try:
        await app(scope, receive.receive, send.send)
    except Exception as exc:
        await send.send({"type": "lifespan.startup.failed", "message": f"{type(exc).__name__}: {exc}"})

