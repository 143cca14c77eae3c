"""The command line on the embedded backend: verify, fingerprint, rebuild, export, load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from graph_service.config import Settings
from graph_service.knowledge import planning
from graph_service.service import Service

ROOT = Path(__file__).resolve().parents[2]


def cli(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRAPH_SERVICE_DATA": str(data)}
    return subprocess.run([sys.executable, "-m", "graph_service", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def seed(data: Path) -> str:
    service = Service.open(Settings(data_dir=data))
    try:
        k = service.state.knowledge
        write = service.journal.write
        a = write("ann", lambda: planning.plan_add(k, {"kind": "fact", "body": {"s": "a", "r": "b", "o": 1},
                                                       "source": "person"}, by="ann")).result["id"]
        write("ann", lambda: planning.plan_add(k, {"kind": "fact", "body": {"s": "a", "r": "c", "o": 2},
                                                   "source": "person", "derived_from": [a]}, by="ann"))
        return a
    finally:
        service.close()


def test_export_then_load_gives_the_same_store(tmp_path: Path) -> None:
    a = seed(tmp_path / "one")
    verify = cli(tmp_path / "one", "verify")
    assert verify.returncode == 0 and json.loads(verify.stdout)["ok"] is True
    exported = tmp_path / "journal.jsonl"
    assert cli(tmp_path / "one", "export", "--output", str(exported)).returncode == 0
    assert len(exported.read_text().splitlines()) == 2
    loaded = cli(tmp_path / "two", "load", str(exported))
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout) == {"loaded": 2, "head": 2}
    first = json.loads(cli(tmp_path / "one", "fingerprint").stdout)
    second = json.loads(cli(tmp_path / "two", "fingerprint").stdout)
    assert first == second
    assert json.loads(cli(tmp_path / "two", "verify").stdout)["projection_ok"] is True
    again = cli(tmp_path / "two", "load", str(exported))
    assert again.returncode == 2 and "does not continue the journal at position 3" in again.stderr
    skipped = json.loads(cli(tmp_path / "one", "rebuild", "--skip", a).stdout)
    assert skipped["knowledge"] != first["knowledge"] and skipped["position"] == 2
    assert json.loads(cli(tmp_path / "one", "rebuild", "--upto", "2").stdout) == first


def test_a_tampered_export_is_refused_and_loads_nothing(tmp_path: Path) -> None:
    seed(tmp_path / "one")
    exported = tmp_path / "journal.jsonl"
    cli(tmp_path / "one", "export", "--output", str(exported))
    lines = exported.read_text().splitlines()
    row = json.loads(lines[0])
    row["payload"]["body"]["o"] = 99
    exported.write_text(json.dumps(row) + "\n" + lines[1] + "\n")
    done = cli(tmp_path / "two", "load", str(exported))
    assert done.returncode == 2 and "entry 1: content does not match its hash" in done.stderr
    assert json.loads(cli(tmp_path / "two", "verify").stdout)["head_seq"] == 0
