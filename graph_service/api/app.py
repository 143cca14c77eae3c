"""The ASGI app: GraphQL at /graphql, liveness at /healthz, readiness at /readyz."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute

from graph_service.api.access import BearerAuth, TokenTable
from graph_service.api.explorer import explorer_routes
from graph_service.api.graphiql import graphiql_routes
from graph_service.api.idempotency import IdempotencyKeys
from graph_service.api.limits import BodySizeLimit
from graph_service.api.over_http import ServiceGraphQL, is_graphiql_page
from graph_service.api.schema import build_schema
from graph_service.api.startup import BackgroundStart, StartingGate
from graph_service.config import Settings
from graph_service.service import Service

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, service: Service | None = None, *,
               on_start_failure: Callable[[BaseException], None] | None = None,
               connection: dict[str, str] | None = None, starting: BackgroundStart | None = None) -> Starlette:
    """The app; it opens the service on start-up (unless one is given) and closes what it opened.

    With `on_start_failure` the service opens in the background (see api/startup.py): the probes
    answer at once, and a failed start is handed to it; without, the start-up waits for the service.
    `connection`: the store another process serves (`GraphPort.connection()`), instead of the configured one.
    `starting`: a background start the caller began already (so the service opens while this app is built),
    which the app then serves and stops, as its own."""
    settings = settings or Settings.from_env()
    holder: dict[str, Any] = starting.holder if starting is not None else {}
    if service is not None:
        holder["service"] = service

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if service is not None:
            yield
            return
        if starting is not None or on_start_failure is not None:
            begun = starting
            if begun is None:
                assert on_start_failure is not None
                begun = BackgroundStart(settings, holder, on_start_failure, connection)
                begun.begin()
            holder["starting"] = begun
            try:
                yield
            finally:
                await anyio.to_thread.run_sync(begun.stop)
            return
        holder["service"] = Service.connect(settings, connection)
        holder["service"].start()
        log.info("graph_service ready on %s", holder["service"].graph.backend)
        try:
            yield
        finally:
            holder.pop("service").close()

    async def healthz(request: Request) -> JSONResponse:
        current = holder.get("service")
        if current is None:
            starting = holder.get("starting")
            return JSONResponse({"status": "ok", "service": starting.status() if starting else "starting"})
        try:
            backend = await anyio.to_thread.run_sync(current.graph.health)
        except Exception as exc:  # any failure to reach the backend is reported, not raised
            return JSONResponse({"status": "backend down", "reason": f"{type(exc).__name__}: {exc}"[:300]},
                                status_code=503)
        # The process that answered: with `serve --workers N`, one of several behind the port.
        return JSONResponse({"status": "ok", "pid": os.getpid(), **backend})

    async def readyz(request: Request) -> JSONResponse:
        current = holder.get("service")
        if current is None:
            starting = holder.get("starting")
            return JSONResponse(starting.status() if starting else {"status": "starting"}, status_code=503)
        try:
            head = current.journal.stored_head()
        except Exception:  # readiness reports any backend failure as not ready
            log.exception("readiness probe failed")
            return JSONResponse({"status": "unavailable"}, status_code=503)
        broken = current.journal.broken
        if broken is not None:
            return JSONResponse({"status": "journal broken", "backend": current.graph.backend, "head": head["seq"],
                                 "first_bad": broken.position, "reason": broken.reason}, status_code=503)
        ready = {"status": "ready", "backend": current.graph.backend, "head": head["seq"]}
        if current.journal.audit is not None:  # a start that replayed nothing checks the chain meanwhile
            ready["chain_check"] = current.journal.audit.status()
        return JSONResponse(ready)

    graphql = ServiceGraphQL(
        holder,
        schema=build_schema(introspection=settings.introspection),
        graphql_ide="graphiql" if settings.graphiql else None,
        allow_queries_via_get=True,
    )
    routes = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/graphql", StartingGate(graphql, holder), methods=["GET", "POST"]),
        WebSocketRoute("/graphql", StartingGate(graphql, holder)),
        *explorer_routes(),
        *graphiql_routes(),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(IdempotencyKeys, holder=holder)  # innermost: sees a body already held to its cap
    app.add_middleware(BodySizeLimit)  # inner: only requests that passed the gate are read
    # The GraphiQL page is static and needs no token (its requests to /graphql do).
    app.add_middleware(BearerAuth, tokens=TokenTable.load(settings), public=is_graphiql_page)
    return app
