"""The embedded FalkorDB: one service per data folder; a killed service leaves no orphan server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graph_service.errors import StoreLocked
from graph_service.storage.falkordb_server import EmbeddedFalkorDB

ROOT = Path(__file__).resolve().parents[2]


def test_a_second_server_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    with (EmbeddedFalkorDB(tmp_path / "data"),
          pytest.raises(StoreLocked, match="in use by another graph_service process")):
        EmbeddedFalkorDB(tmp_path / "data").start()


def test_the_folder_is_free_again_after_a_clean_stop(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path / "data"):
        pass
    with EmbeddedFalkorDB(tmp_path / "data") as again:
        assert again.pid is not None


def test_a_second_service_process_gets_a_clear_error(tmp_path: Path) -> None:
    env = {**os.environ, "GRAPH_SERVICE_DATA": str(tmp_path / "data")}
    with EmbeddedFalkorDB(tmp_path / "data"):
        done = subprocess.run([sys.executable, "-m", "graph_service", "verify"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "in use by another graph_service process" in done.stderr


def test_the_server_dies_with_a_killed_service(tmp_path: Path) -> None:
    data = tmp_path / "data"
    code = (
        "from graph_service.storage.falkordb_server import EmbeddedFalkorDB as E; import time; "
        f"E({str(data)!r}).start(); print('up', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
    server = int((data / "falkordb.pid").read_text())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{server}").exists():
        time.sleep(0.05)
    assert not Path(f"/proc/{server}").exists() or "zombie" in Path(f"/proc/{server}/status").read_text().lower()
