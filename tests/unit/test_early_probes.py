"""EarlyProbes: the probes answer while the app is built, then the app answers everything, and its lifespan
runs inside ours (started once built, shut down before ours completes)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from graph_service.api.early import AppFailed, EarlyProbes


def inner_app(events: list[str]) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        events.append("inner started")
        yield
        events.append("inner stopped")

    async def ready(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ready", "from": "inner"})

    return Starlette(routes=[Route("/readyz", ready), Route("/healthz", ready)], lifespan=lifespan)


def wait_for(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_probes_answer_while_the_app_is_built_then_the_app_answers() -> None:
    events: list[str] = []
    release = threading.Event()
    failures: list[BaseException] = []

    def build() -> Starlette:
        assert release.wait(10), "the test never let the build finish"
        return inner_app(events)

    app = EarlyProbes(build, on_failure=failures.append)
    with TestClient(app) as client:  # our start-up completed while the build still waits
        health = client.get("/healthz")
        assert (health.status_code, health.json()) == (200, {"status": "ok", "service": {"status": "starting",
                                                                                         "phase": "loading"}})
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.headers["retry-after"] and ready.json()["phase"] == "loading"
        assert client.post("/graphql", json={"query": "{ __typename }"}).status_code == 503
        assert events == []
        release.set()
        wait_for(lambda: client.get("/readyz").status_code == 200)
        assert client.get("/readyz").json() == {"status": "ready", "from": "inner"}
        assert events == ["inner started"] and app.phase == "started"
    assert events == ["inner started", "inner stopped"] and failures == []


def test_a_shutdown_while_the_app_is_built_lets_it_start_and_stops_it() -> None:
    events: list[str] = []
    building = threading.Event()

    def build() -> Starlette:
        building.set()
        time.sleep(0.3)
        return inner_app(events)

    with TestClient(EarlyProbes(build, on_failure=lambda exc: None)):
        assert building.wait(10)
    # What the app's start opened (the service, in the serve command) is closed, not left behind.
    assert events == ["inner started", "inner stopped"]


def test_a_build_that_fails_is_reported_and_the_probes_say_so() -> None:
    failures: list[BaseException] = []

    def build() -> Starlette:
        raise RuntimeError("no such module")

    app = EarlyProbes(build, on_failure=failures.append)
    with TestClient(app) as client:
        wait_for(lambda: failures)
        assert client.get("/readyz").json() == {"status": "starting", "phase": "failed"}
    assert [str(f) for f in failures] == ["no such module"]


def test_an_app_whose_start_up_fails_is_reported() -> None:
    failures: list[BaseException] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        raise OSError("port of the database refused")
        yield  # pragma: no cover

    app = EarlyProbes(lambda: Starlette(lifespan=lifespan), on_failure=failures.append)
    with TestClient(app) as client:
        wait_for(lambda: failures)
        assert client.get("/healthz").json()["service"]["phase"] == "failed"
    assert len(failures) == 1 and isinstance(failures[0], AppFailed)
    assert "port of the database refused" in str(failures[0])
