"""The command line on each backend: verify, fingerprint, rebuild, export, load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from graph_service.service import Service
from tests.backends import Backend
from tests.integration.in_graph import add_item

ROOT = Path(__file__).resolve().parents[2]


def cli(store: Backend, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    return subprocess.run([sys.executable, "-m", "graph_service", *args], cwd=ROOT,
                          env={**inherited, **store.env(), **(env or {})}, capture_output=True, text=True, timeout=180)


def seed(store: Backend) -> str:
    service = Service.open(store.settings())
    try:
        a = add_item(service, {"kind": "fact", "body": {"s": "a", "r": "b", "o": 1}, "source": "person"})
        add_item(service, {"kind": "fact", "body": {"s": "a", "r": "c", "o": 2}, "source": "person",
                           "derived_from": [a]})
        return a
    finally:
        service.close()


def test_export_then_load_gives_the_same_store(backend: Backend, tmp_path: Path) -> None:
    one = backend
    two = Backend("falkordb", tmp_path / "two")  # on Neo4j: exported from Neo4j, loaded into the embedded store
    a = seed(one)
    verify = cli(one, "verify")
    assert verify.returncode == 0 and json.loads(verify.stdout)["ok"] is True
    exported = tmp_path / "journal.jsonl"
    assert cli(one, "export", "--output", str(exported)).returncode == 0
    assert len(exported.read_text().splitlines()) == 2
    loaded = cli(two, "load", str(exported))
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout) == {"loaded": 2, "head": 2}
    first = json.loads(cli(one, "fingerprint").stdout)
    second = json.loads(cli(two, "fingerprint").stdout)
    assert first == second
    assert json.loads(cli(two, "verify").stdout)["projection_ok"] is True
    again = cli(two, "load", str(exported))
    assert again.returncode == 2 and "does not continue the journal at position 3" in again.stderr
    skipped = json.loads(cli(one, "rebuild", "--skip", a).stdout)
    assert skipped["knowledge"] != first["knowledge"] and skipped["position"] == 2
    assert json.loads(cli(one, "rebuild", "--upto", "2").stdout) == first
    if one.neo4j is not None:  # and back: loaded into an empty Neo4j, the same store again
        one.wipe()
        assert json.loads(cli(one, "load", str(exported)).stdout) == {"loaded": 2, "head": 2}
        assert json.loads(cli(one, "fingerprint").stdout) == first
        assert json.loads(cli(one, "verify").stdout)["ok"] is True


def test_a_load_into_a_service_holding_no_knowledge_state_gives_the_same_store(backend: Backend,
                                                                               tmp_path: Path) -> None:
    seed(backend)
    exported = tmp_path / "journal.jsonl"
    assert cli(backend, "export", "--output", str(exported)).returncode == 0
    first = json.loads(cli(backend, "fingerprint").stdout)
    target = backend.fresh_store(tmp_path / "two")
    loaded = cli(target, "load", str(exported), env={"GRAPH_SERVICE_KNOWLEDGE": "graph"})
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout) == {"loaded": 2, "head": 2}
    assert json.loads(cli(target, "fingerprint").stdout) == first
    assert json.loads(cli(target, "verify", env={"GRAPH_SERVICE_KNOWLEDGE": "graph"}).stdout)["ok"] is True


def test_a_tampered_export_is_refused_and_loads_nothing(backend: Backend, tmp_path: Path) -> None:
    seed(backend)
    exported = tmp_path / "journal.jsonl"
    cli(backend, "export", "--output", str(exported))
    lines = exported.read_text().splitlines()
    row = json.loads(lines[0])
    row["payload"]["body"]["o"] = 99
    exported.write_text(json.dumps(row) + "\n" + lines[1] + "\n")
    target = backend.fresh_store(tmp_path / "two")  # Neo4j Community holds one store: the load goes into it, emptied
    done = cli(target, "load", str(exported))
    assert done.returncode == 2 and "entry 1: content does not match its hash" in done.stderr
    assert json.loads(cli(target, "verify").stdout)["head_seq"] == 0
