"""`graph_service serve` answers its probes while it starts, and a start that fails ends the process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from graph_service.api.startup import StartingGate
from graph_service.journal.notes import NoteDomain, plan_note
from graph_service.journal.store import Journal
from tests.backends import Backend
from tests.integration.test_explorer import free_port

ENTRIES = 40_000  # enough that the replay at start takes seconds on any machine this runs on (10^4 notes took
# about one second by now, and a loaded CI machine once answered no probe within it)


def probe(url: str) -> tuple[int, dict[str, Any]] | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())
    except OSError:
        return None  # not listening yet


def start_serving(backend: Backend, folder: Path, *serve_args: str,
                  env_extra: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """`graph_service serve [serve_args]` on this backend on a free port (with `env_extra` in its environment),
    its log in folder/serve.log."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPH_SERVICE_"))}
    env.update(backend.env(), GRAPH_SERVICE_PORT=str(port), **(env_extra or {}))
    log = open(folder / "serve.log", "wb")  # noqa: SIM115 - the process writes it until it ends
    proc = subprocess.Popen([sys.executable, "-m", "graph_service", "serve", *serve_args], cwd=folder, env=env,
                            stdout=subprocess.DEVNULL, stderr=log)
    return proc, f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("backend", ["falkordb"], indirect=True)
def test_probes_answer_while_the_journal_replays(backend: Backend, tmp_path: Path) -> None:
    graph = backend.open_graph()
    try:
        journal = Journal(graph, [NoteDomain()]).open()
        journal.write_batch("loader", (lambda i=i: plan_note(f"n{i}") for i in range(ENTRIES)), batch_size=2_000)
    finally:
        graph.close()
    proc, base = start_serving(backend, tmp_path, env_extra=backend.whole_state_env())  # one that replays
    seen: list[tuple[str, int, dict[str, Any]]] = []
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            health, ready = probe(f"{base}/healthz"), probe(f"{base}/readyz")
            if health is not None and ready is not None:
                seen += [("healthz", *health), ("readyz", *ready)]
                if ready[0] == 200:
                    break
            time.sleep(0.05)
        starting = [body for probe_name, status, body in seen if probe_name == "readyz" and status == 503]
        assert starting, "the port only answered once the service was ready"
        replaying = [b for b in starting if b.get("phase") == "replaying"]
        assert replaying and all(b["of"] == ENTRIES and 0 <= b["replayed"] <= ENTRIES for b in replaying), starting
        assert all(status == 200 for name, status, _ in seen if name == "healthz"), seen
        # The port answers before the API's imports are done (graph_service.api.early), not after them.
        phases = [body.get("service", {}).get("phase") for name, _, body in seen if name == "healthz"]
        assert phases[0] == "loading", phases[:5]
        graphql = urllib.request.Request(f"{base}/graphql", data=b'{"query": "{ head { seq } }"}',
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(graphql, timeout=30) as answer:
            assert json.loads(answer.read())["data"]["head"]["seq"] == ENTRIES
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert proc.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it shut down on


def test_graphql_answers_503_while_starting() -> None:
    async def never(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the gate let a request through before the service was ready")

    app = Starlette(routes=[Route("/graphql", StartingGate(never, {}), methods=["POST"])])
    with TestClient(app) as client:
        answer = client.post("/graphql", json={"query": "{ head { seq } }"})
    assert answer.status_code == 503 and answer.headers["retry-after"]
    assert answer.json()["errors"][0]["extensions"]["code"] == "STARTING"


@pytest.mark.parametrize("backend", ["falkordb"], indirect=True)
@pytest.mark.parametrize("workers", ["1", "2"])  # with 2, refused by the parent before any worker starts
def test_a_start_that_fails_ends_the_process_with_its_reason(backend: Backend, tmp_path: Path, workers: str) -> None:
    holder = backend.open_graph()  # holds the data folder: the service cannot have it
    try:
        proc, _ = start_serving(backend, tmp_path, "--workers", workers)
        assert proc.wait(timeout=120) == 2
    finally:
        holder.close()
    assert "in use by another graph_service process" in (tmp_path / "serve.log").read_text()
