"""Atomic, recoverable appends: concurrent writer processes, and kill -9 at random moments."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from graph_service.journal.notes import NoteDomain
from graph_service.journal.store import Journal
from graph_service.storage.falkordb_adapter import FalkorDBGraph
from graph_service.storage.falkordb_server import EmbeddedFalkorDB
from graph_service.storage.port import GraphPort
from tests.backends import Backend

ROOT = Path(__file__).resolve().parents[2]
WRITER = [sys.executable, "-m", "tests.integration.journal_writer"]


def writer(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*WRITER, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_writer_processes_make_one_chain(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path / "data") as server:
        Journal(FalkorDBGraph(socket_path=server.socket_path), [NoteDomain()]).open()
        procs = [writer("socket", str(server.socket_path), name, "1000") for name in ("alpha", "beta")]
        outputs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outputs]
        graph = FalkorDBGraph(socket_path=server.socket_path)
        journal = Journal(graph, [NoteDomain()]).open()
        entries = list(journal.entries_after(0))
        texts = [e.payload["text"] for e in entries]
        assert [e.seq for e in entries] == list(range(1, 2001))  # no gap, no duplicate position
        assert sorted(texts) == sorted([f"alpha-{i}" for i in range(1000)] + [f"beta-{i}" for i in range(1000)])
        report = journal.verify()
        assert report.ok and report.checked == 2000
        acknowledged = {line.split()[1]: int(line.split()[0]) for out, _ in outputs for line in out.splitlines()}
        assert {e.payload["text"]: e.seq for e in entries} == acknowledged
        graph.close()


def read_acknowledged(proc: subprocess.Popen[str], sink: list[str]) -> threading.Thread:
    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            sink.append(line.strip())

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def assert_round_kept(graph: GraphPort, acknowledged: dict[str, int], round_no: int) -> None:
    """After a kill round: the journal verifies, every acknowledged write is stored where it was
    acknowledged, and the graph holds the projection of every entry. Closes the graph."""
    try:
        journal = Journal(graph, [NoteDomain()]).open()
        report = journal.verify()
        assert report.ok, (round_no, report)
        stored = {e.payload["text"]: e.seq for e in journal.entries_after(0)}
        missing = {t: s for t, s in acknowledged.items() if stored.get(t) != s}
        assert not missing, f"round {round_no}: acknowledged writes lost or moved: {missing}"
        # Every stored entry projected. Compared with the head as stored, not with the position `open` read: on
        # Neo4j a write whose statement reached the server before its writer was killed can commit after that read
        # (CI of 34e334e: projected 377, opened at 376), and a note's append moves both in one statement.
        head = journal.stored_head()
        assert head["projected"] == head["seq"] >= journal.seq
    finally:
        graph.close()


def server_pid(data: Path) -> int | None:
    pidfile = data / "falkordb.pid"
    return int(pidfile.read_text().strip()) if pidfile.exists() and pidfile.read_text().strip() else None


def test_kill_9_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    data = tmp_path / "data"
    rng = random.Random(20261129)
    acknowledged: dict[str, int] = {}
    kills = {"service": 0, "database": 0}
    for round_no in range(25):
        lines: list[str] = []
        proc = writer("owner", str(data), f"r{round_no}")
        pump = read_acknowledged(proc, lines)
        deadline = time.monotonic() + 30
        while "ready" not in lines and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        assert "ready" in lines, proc.stderr.read() if proc.stderr else ""
        time.sleep(rng.uniform(0.02, 0.6))
        # Mostly the service, every fifth round the database server itself.
        target = "database" if round_no % 5 == 4 else "service"
        pid = server_pid(data) if target == "database" else proc.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        kills[target] += 1
        if target == "database":
            # The writer restarts the server it owns and goes on: wait for a write acknowledged after
            # the kill, then kill the writer too.
            acked = len(lines)
            deadline = time.monotonic() + 60
            while len(lines) <= acked and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.01)
            if len(lines) <= acked:
                proc.kill()
                _, err = proc.communicate(timeout=30)
                raise AssertionError(f"round {round_no}: no write after the database was killed:\n{err[-3000:]}")
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        pump.join(timeout=10)
        for line in lines[1:]:
            seq, text = line.split()
            acknowledged[text] = int(seq)
        assert_round_kept(FalkorDBGraph.embedded(data), acknowledged, round_no)
    assert kills["service"] >= 20 and kills["database"] >= 5
    assert len(acknowledged) > 100  # the kills landed while writes were flowing


@pytest.mark.neo4j
def test_two_writer_processes_make_one_chain_on_neo4j(neo4j_backend: Backend) -> None:
    backend = neo4j_backend
    assert backend.neo4j is not None
    procs = [writer("neo4j", backend.neo4j.uri, name, "1000") for name in ("alpha", "beta")]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outputs]
    graph = backend.open_graph()
    try:
        journal = Journal(graph, [NoteDomain()]).open()
        entries = list(journal.entries_after(0))
        assert [e.seq for e in entries] == list(range(1, 2001))  # no gap, no duplicate position
        report = journal.verify()
        assert report.ok and report.checked == 2000
        acknowledged = {line.split()[1]: int(line.split()[0]) for out, _ in outputs for line in out.splitlines()
                        if line != "ready"}
        assert {e.payload["text"]: e.seq for e in entries} == acknowledged
        assert journal.stored_head()["projected"] == 2000
    finally:
        graph.close()


@pytest.mark.neo4j
def test_kill_9_at_random_moments_loses_nothing_acknowledged_on_neo4j(neo4j_backend: Backend) -> None:
    """Writer processes killed at random moments, and (when the suite runs the server itself) the
    Neo4j server killed twice: every acknowledged write is stored where it was acknowledged."""
    backend = neo4j_backend
    assert backend.neo4j is not None
    server = backend.neo4j.server
    rng = random.Random(20261201)
    acknowledged: dict[str, int] = {}
    kills = {"service": 0, "database": 0}
    rounds = 10
    for round_no in range(rounds):
        lines: list[str] = []
        proc = writer("neo4j", backend.neo4j.uri, f"r{round_no}")
        pump = read_acknowledged(proc, lines)
        deadline = time.monotonic() + 60
        while "ready" not in lines and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        assert "ready" in lines, proc.stderr.read() if proc.stderr else ""
        time.sleep(rng.uniform(0.05, 0.8))
        target = "database" if server is not None and round_no in (4, 9) else "service"
        if target == "database":
            server.kill()
            proc.wait(timeout=120)  # the writer fails on its next write
            server.start()  # recovery from the transaction log
        else:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        kills[target] += 1
        pump.join(timeout=10)
        for line in lines[1:]:
            seq, text = line.split()
            acknowledged[text] = int(seq)
        assert_round_kept(backend.open_graph(), acknowledged, round_no)
    assert kills["service"] >= 8 and (server is None or kills["database"] == 2)
    assert len(acknowledged) > 50  # the kills landed while writes were flowing
