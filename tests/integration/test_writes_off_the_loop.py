"""A write waiting on the graph does not hold up the service's other requests.

A write's round trips to the graph run in a worker thread (api/context.journal_write); before, they ran
on the event loop, so every other request, /healthz included, waited for the slowest write."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.config import Settings
from graph_service.service import Service

NOTE = {"query": 'mutation { note(text: "while frozen") { seq } }'}


def test_a_request_is_answered_while_a_write_waits_on_a_frozen_server(tmp_path: Path) -> None:
    service = Service.open(Settings(data_dir=tmp_path / "data"))
    pid = service.graph._server.pid  # type: ignore[attr-defined]
    thaw = threading.Timer(15.0, os.kill, (pid, signal.SIGCONT))  # never leave it frozen, whatever happens
    try:
        with TestClient(create_app(service=service)) as client:
            assert client.post("/graphql", json=NOTE).json()["data"]["note"]["seq"] == 1
            written: dict[str, Any] = {}
            os.kill(pid, signal.SIGSTOP)
            thaw.start()
            writer = threading.Thread(target=lambda: written.update(client.post("/graphql", json=NOTE).json()))
            writer.start()
            time.sleep(0.5)  # the write is on its way to the frozen server
            assert writer.is_alive() and not written
            started = time.monotonic()
            answer = client.post("/graphql", json={"query": "{ __typename }"})
            health = client.get("/healthz")
            waited = time.monotonic() - started
            still_waiting = writer.is_alive()
            os.kill(pid, signal.SIGCONT)
            writer.join(30)
        assert waited < 10, f"the other requests waited {waited:.1f} s for the write"
        assert answer.json() == {"data": {"__typename": "Query"}}
        assert health.status_code == 503  # it says the frozen server does not answer (HEALTH_TIMEOUT)
        assert still_waiting, "the write was expected to wait until the server was thawed"
        assert written == {"data": {"note": {"seq": 2}}}
        assert [e.seq for e in service.journal.entries_after(0)] == [1, 2]
    finally:
        thaw.cancel()
        os.kill(pid, signal.SIGCONT)
        service.close()
