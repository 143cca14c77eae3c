"""The explorer page in a real browser (Debian's Chromium driven by playwright-core), against a real
uvicorn on a loopback port, on each backend: a belief is found, expanded to its evidence, families and
roots, and a click on its root item expands that item to its premise. The screenshot is kept in
test-artifacts/."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.backends import Backend

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TOKENS = {"t-reader": "reader", "t-writer": "writer"}


@contextlib.contextmanager
def serve(backend: Backend, folder: Path, tokens: dict[str, str] | None = None) -> Iterator[str]:
    """The service under uvicorn on a free loopback port, as `make serve` runs it."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPH_SERVICE_TOKENS"))}
    env.update(backend.env(), GRAPH_SERVICE_PORT=str(port))
    if tokens:
        env["GRAPH_SERVICE_TOKENS_JSON"] = json.dumps(tokens)
    # The log goes to a file: a pipe nobody reads fills up (64 KiB of access log) and blocks the service.
    log_path = folder / "serve.log"
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen([sys.executable, "-m", "graph_service", "serve"], cwd=folder, env=env,
                                stdout=subprocess.DEVNULL, stderr=log_file)
    (folder / "serve.pid").write_text(str(proc.pid))  # for a test that kills it
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{base}/readyz", timeout=2) as answer:
                    if json.loads(answer.read())["status"] == "ready":
                        break
            except OSError:
                pass
            assert proc.poll() is None, log_path.read_text()[-3000:]
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=60)


@pytest.fixture
def served(backend: Backend, tmp_path: Path) -> Iterator[str]:
    with serve(backend, tmp_path) as base:
        yield base


TOKEN: dict[str, str] = {}  # the bearer token `gql` sends, when the service under test has tokens


def gql(base: str, query: str, variables: dict | None = None) -> dict:
    headers = {"content-type": "application/json"}
    if TOKEN.get(base):
        headers["authorization"] = f"Bearer {TOKEN[base]}"
    request = urllib.request.Request(f"{base}/graphql", data=json.dumps({"query": query, "variables": variables})
                                     .encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=120) as answer:
        body = json.loads(answer.read())
    assert "errors" not in body, body
    return body["data"]


def seed(base: str) -> dict[str, str]:
    """A premise, an item derived from it, an observation, and a belief resting on both roots."""
    premise = gql(base, 'mutation { addItem(item: {kind: fact, body: {s: "pump", r: "state", o: "worn"}, '
                        'source: person}) { id } }')["addItem"]["id"]
    derived = gql(base, 'mutation($p: String!) { addItem(item: {kind: fact, body: {s: "pump", r: "risk", '
                        'o: "high"}, source: outcome, derivedFrom: [$p]}) { id } }', {"p": premise})["addItem"]["id"]
    gql(base, 'mutation { declareObserver(observer: "cam") { id } }')
    seen = gql(base, 'mutation { observe(observer: "cam", tick: 1, kind: "seen", subject: "pump") '
                     '{ rows { id } } }')["observe"]["rows"][0]["id"]
    made = gql(base, """mutation($i: String!, $o: String!) { createBelief(proposition: "the pump will fail",
      epistemicKind: claim, evidence: [
        {weight: 0.7, family: "ann", rootKind: item, rootIds: [$i]},
        {weight: 0.5, family: "camera:cam", rootKind: observation, rootIds: [$o]}]) { belief { id } } }""",
               {"i": derived, "o": seen})["createBelief"]["belief"]["id"]
    return {"premise": premise, "derived": derived, "observation": seen, "belief": made}


@pytest.mark.skipif(shutil.which("node") is None or not Path(CHROMIUM).exists(),
                    reason="the browser test needs node and Debian's chromium (make test installs it)")
def test_a_belief_is_expanded_down_to_its_roots_in_a_real_browser(served: str, backend: Backend) -> None:
    ids = seed(served)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"explorer-{backend.name}.png"
    run = subprocess.run(["node", "tests/browser/explore.mjs", served, ids["belief"], ids["derived"], str(shot)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert report["errors"] == []
    found = {n["id"]: n for n in report["afterFind"]}
    assert found[ids["belief"]]["kind"] == "Belief" and found[ids["belief"]]["status"] in {"likely", "tentative",
                                                                                           "accepted"}
    assert found[ids["derived"]]["kind"] == "Item" and found[ids["observation"]]["kind"] == "Observation"
    assert {"family:ann", "family:camera:cam"} <= set(found)
    assert sum(1 for n in report["afterFind"] if n["kind"] == "Evidence") == 2
    assert ids["premise"] not in found  # not yet: the click brings it
    clicked = {n["id"]: n for n in report["afterClick"]}
    assert clicked[ids["premise"]] == {"id": ids["premise"], "kind": "Item", "status": "active"}
    assert clicked[ids["derived"]]["status"] == "active"
    assert {"BEARS_ON", "FROM", "ROOTED_IN", "DERIVED_FROM"} <= set(report["edges"])
    assert ids["derived"] in report["details"]  # the clicked node's properties are shown
    # The click asked for one level each way, not the whole closure of the item.
    assert report["walks"] and all(w.count("maxDepth: 1") == 2 for w in report["walks"]), report["walks"]
    assert shot.stat().st_size > 10_000  # a drawn page, kept as the test's artefact


@pytest.mark.skipif(shutil.which("node") is None or not Path(CHROMIUM).exists(),
                    reason="the browser test needs node and Debian's chromium (make test installs it)")
def test_the_explorer_works_with_tokens(tmp_path: Path) -> None:
    with serve(Backend("falkordb", tmp_path / "data"), tmp_path, TOKENS) as base:
        TOKEN[base] = "t-writer"
        ids = seed(base)
        run = subprocess.run(["node", "tests/browser/explore.mjs", base, ids["belief"], ids["derived"],
                              str(tmp_path / "shot.png"), "t-reader"], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert "bearer token is required" in report["withoutToken"]  # refused without it, and said so
    assert {ids["belief"], ids["derived"], ids["observation"]} <= {n["id"] for n in report["afterFind"]}
    assert ids["premise"] in {n["id"] for n in report["afterClick"]}


def test_the_vendored_drawing_library_is_the_one_package_json_pins() -> None:
    vendored = ROOT / "graph_service/api/explorer_static/vendor/cytoscape.min.js"
    installed = ROOT / "node_modules/cytoscape/dist/cytoscape.min.js"
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["cytoscape"]
    assert json.loads((ROOT / "node_modules/cytoscape/package.json").read_text())["version"] == pinned
    assert vendored.read_bytes() == installed.read_bytes()
