"""The embedded FalkorDB: one service per data folder; a killed service leaves no orphan server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from graph_service.errors import StoreLocked
from graph_service.storage.falkordb_server import EmbeddedFalkorDB
from graph_service.storage.port import ConstraintViolation

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


def test_a_server_started_from_a_thread_outlives_that_thread(tmp_path: Path) -> None:
    # Regression: Linux sends the death signal when the thread that forked the server ends; the service
    # opens its store in a start-up thread, so its server was sent SIGTERM right after the start (and
    # restarted by the next request; CI saw a second connection closed under it).
    import redis

    started: list[EmbeddedFalkorDB] = []
    opener = threading.Thread(target=lambda: started.append(EmbeddedFalkorDB(tmp_path / "data").start()))
    opener.start()
    opener.join()
    server = started[0]
    try:
        time.sleep(0.5)  # SIGTERM would have arrived at once; redis-server exits within milliseconds
        assert not server.exited(grace=0.0), server.exit_code
        conn = redis.Redis(unix_socket_path=str(server.socket_path), socket_timeout=5)
        assert conn.ping()
        conn.close()
    finally:
        server.stop()
    assert server.pid is None


def test_a_dead_embedded_server_is_restarted_and_health_says_so(tmp_path: Path) -> None:
    # Regression: after the embedded server died, /healthz stayed 200 while every write failed.
    import os
    import signal

    from starlette.testclient import TestClient

    from graph_service.api.app import create_app
    from graph_service.config import Settings
    from graph_service.service import Service
    from tests.integration.graphql_client import gql

    service = Service.open(Settings(data_dir=tmp_path / "data"))
    note = 'mutation($t: String!) { note(text: $t) { seq } }'
    try:
        with TestClient(create_app(service=service)) as client:
            assert gql(client, note, {"t": "before"}) == {"data": {"note": {"seq": 1}}}
            os.kill(service.graph._server.pid, signal.SIGKILL)  # type: ignore[attr-defined]
            service.graph._server._process.wait()  # type: ignore[attr-defined]
            health = client.get("/healthz").json()
            assert health["status"] == "ok" and health["restarted_now"] is True and health["restarts"] == 1
            assert gql(client, note, {"t": "after"}) == {"data": {"note": {"seq": 2}}}
            os.kill(service.graph._server.pid, signal.SIGKILL)  # type: ignore[attr-defined]
            service.graph._server._process.wait()  # type: ignore[attr-defined]
            # a write that finds the server dead restarts it itself, and nothing acknowledged is lost
            assert gql(client, note, {"t": "again"}) == {"data": {"note": {"seq": 3}}}
            texts = [e.payload["text"] for e in service.journal.entries_after(0)]
            assert texts == ["before", "after", "again"] and service.verify().ok
    finally:
        service.close()


def test_a_server_that_dies_before_the_schema_set_up_is_restarted_by_it(tmp_path: Path) -> None:
    # Regression (a CI run's kill -9 round): the set-up's own calls had no restart path, so a writer
    # whose database died while it opened the journal exited instead of restarting the server.
    from graph_service.journal.notes import NoteDomain, plan_note
    from graph_service.journal.store import Journal
    from graph_service.storage.falkordb_adapter import FalkorDBGraph

    graph = FalkorDBGraph.embedded(tmp_path / "data")
    try:
        os.kill(graph._server.pid, signal.SIGKILL)  # type: ignore[union-attr]
        graph._server._process.wait()  # type: ignore[union-attr]
        journal = Journal(graph, [NoteDomain()]).open()
        assert journal.write("ann", lambda: plan_note("after")).entry.seq == 1
        assert graph.restarts == 1 and journal.verify().ok
    finally:
        graph.close()


def _aof_files(data: Path) -> dict[str, int]:
    return {f.name: f.stat().st_size for f in (data / "appendonlydir").iterdir()}


def test_a_clean_stop_compacts_the_append_only_file(tmp_path: Path) -> None:
    """Every write is logged to the incremental file; a clean stop rewrites the log into one snapshot
    (the base file), so the next start loads a snapshot instead of replaying every command."""
    from graph_service.journal.notes import NoteDomain, plan_note
    from graph_service.journal.store import Journal
    from graph_service.storage.falkordb_adapter import FalkorDBGraph

    data = tmp_path / "data"
    graph = FalkorDBGraph.embedded(data)
    journal = Journal(graph, [NoteDomain()]).open()
    for i in range(300):
        journal.write("ann", lambda i=i: plan_note(f"note {i}"))
    logged = _aof_files(data)
    assert sum(size for name, size in logged.items() if ".incr." in name) > 100_000, logged
    graph.close()  # a clean stop
    compacted = _aof_files(data)
    assert all(size == 0 for name, size in compacted.items() if ".incr." in name), compacted
    assert sum(size for name, size in compacted.items() if ".base." in name) > 0, compacted
    again = FalkorDBGraph.embedded(data)
    try:
        reopened = Journal(again, [NoteDomain()]).open()
        assert reopened.seq == 300 and reopened.verify().ok
    finally:
        again.close()


class _StuckFirst(EmbeddedFalkorDB):
    """Its first server is frozen (SIGSTOP) as soon as it is spawned: to the watchdog it looks like the
    FalkorDB deadlock while loading (answers nothing, uses no processor time). `stuck_starts`: how
    many of the servers it spawns are frozen."""

    def __init__(self, data_dir: Path, stuck_starts: int) -> None:
        super().__init__(data_dir, stall_seconds=1.0)
        self.stuck_starts = stuck_starts
        self.spawned: list[int] = []

    def _spawn(self) -> None:
        super()._spawn()
        assert self._process is not None
        self.spawned.append(self._process.pid)
        if len(self.spawned) <= self.stuck_starts:
            os.kill(self._process.pid, signal.SIGSTOP)


def test_a_server_stuck_while_starting_is_killed_and_started_again(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    # Regression: FalkorDB 4.16.3 sometimes deadlocks while it loads its base file; the CLI's verify then
    # waited for PING until the suite's 300 s timeout (seen once in CI, then 4 times in about 680 starts here).
    import redis

    server = _StuckFirst(tmp_path / "data", stuck_starts=1)
    started = time.monotonic()
    server.start()
    try:
        assert time.monotonic() - started < 30
        assert server.stalls == 1 and len(server.spawned) == 2
        assert not Path(f"/proc/{server.spawned[0]}").exists()  # the stuck one is gone, not left behind
        conn = redis.Redis(unix_socket_path=str(server.socket_path), socket_timeout=5)
        assert conn.ping()
        conn.close()
        assert "was stuck while starting" in caplog.text and "attempt 2 of 4" in caplog.text
    finally:
        server.stop()


def test_a_server_stuck_at_every_start_is_a_clear_error_and_leaves_nothing_running(tmp_path: Path) -> None:
    server = _StuckFirst(tmp_path / "data", stuck_starts=100)
    with pytest.raises(RuntimeError, match="FalkorDB was stuck while starting 4 times"):
        server.start()
    assert len(server.spawned) == 4
    assert not any(Path(f"/proc/{pid}").exists() for pid in server.spawned)
    EmbeddedFalkorDB(tmp_path / "data").start().stop()  # the folder's lock was released


def test_readiness_opens_the_graph_it_will_serve(tmp_path: Path) -> None:
    # The broken-lock start (see falkordb_server.STALL_SECONDS) answers PING but hangs at the graph's
    # first opening; readiness opens it, so such a start is found there and not at the first query.
    import redis

    server = EmbeddedFalkorDB(tmp_path / "data", graph="served").start()
    try:
        conn = redis.Redis(unix_socket_path=str(server.socket_path), socket_timeout=5)
        assert conn.execute_command("GRAPH.LIST") == [b"served"]
        conn.close()
    finally:
        server.stop()


def test_health_says_so_when_the_server_runs_but_does_not_answer(tmp_path: Path) -> None:
    # A stuck server (see falkordb_server.STALL_SECONDS) is not dead, so it is not restarted; /healthz
    # used to answer 200 for it while every query waited for good.
    from starlette.testclient import TestClient

    from graph_service.api.app import create_app
    from graph_service.config import Settings
    from graph_service.service import Service

    service = Service.open(Settings(data_dir=tmp_path / "data"))
    pid = service.graph._server.pid  # type: ignore[attr-defined]
    try:
        with TestClient(create_app(service=service)) as client:
            assert client.get("/healthz").status_code == 200
            os.kill(pid, signal.SIGSTOP)
            try:
                started = time.monotonic()
                frozen = client.get("/healthz")
                assert time.monotonic() - started < 10
            finally:
                os.kill(pid, signal.SIGCONT)
            assert frozen.status_code == 503
            assert frozen.json()["status"] == "backend down"
            assert "running but did not answer PING within 1 s" in frozen.json()["reason"]
            again = client.get("/healthz")
            assert again.status_code == 200 and again.json()["restarts"] == 0
    finally:
        service.close()


def _whole_graph(graph: object) -> tuple[list[object], list[object]]:
    """Every node (id, labels, properties) and every edge (type, ends' ids, properties), in id order;
    properties as plain dicts (the client's OrderedDict would compare their order, not part of a graph)."""
    run = graph._graph.query  # type: ignore[attr-defined]
    nodes = run("MATCH (n) RETURN id(n), labels(n), properties(n) ORDER BY id(n)").result_set
    edges = run("MATCH (a)-[r]->(b) RETURN type(r), id(a), id(b), properties(r) ORDER BY id(a), id(b), type(r)")
    return [[*row[:-1], dict(row[-1])] for row in nodes], [[*row[:-1], dict(row[-1])] for row in edges.result_set]


def test_writes_are_logged_as_effects_and_a_reload_after_kill_9_gives_the_same_graph(tmp_path: Path) -> None:
    """The append-only file holds what each write changed, not its query (EFFECTS_THRESHOLD 0: smaller,
    and replayed without planning a query). Replayed after a kill -9 (so never compacted) it gives back
    the very graph that was written, node ids included: single writes and the bulk path's batches."""
    import itertools

    from benchmarks.service_shape import LOADER, LOADING, mix
    from graph_service.config import Settings
    from graph_service.service import Service
    from graph_service.storage.falkordb_adapter import FalkorDBGraph

    data = tmp_path / "data"
    service = Service.open(Settings(data_dir=data, **LOADING))  # the mix plans on the whole state
    config = service.graph._db.connection.execute_command("GRAPH.CONFIG", "GET", "EFFECTS_THRESHOLD")  # type: ignore[attr-defined]
    assert config == ["EFFECTS_THRESHOLD", 0]
    plans = mix(service, 2_300, 3)
    for plan in itertools.islice(plans, 300):
        service.journal.write(LOADER, plan)
    service.journal.write_batch(LOADER, plans, batch_size=500)
    # A write that fails part-way (past the head's compare-and-set, at the journal's unique position:
    # the head was already moved) is undone, and logs nothing either.
    head = service.journal.seq + 1
    with pytest.raises(ConstraintViolation):
        service.graph.run("append_entries", {"prev": service.journal.hash, "first": head, "last": head,
                                             "last_hash": "forged", "entries": [{"seq": 1, "hash": "forged"}]})
    assert service.journal.stored_head()["seq"] == head - 1
    server = service.graph._server  # type: ignore[attr-defined]
    written = _whole_graph(service.graph)
    os.kill(server.pid, signal.SIGKILL)
    server._process.wait()
    logged = b"".join(f.read_bytes() for f in (data / "appendonlydir").iterdir() if ".incr." in f.name)
    assert logged.count(b"GRAPH.EFFECT") > 300 and b"forged" not in logged
    assert b"UNWIND" not in logged and b"MERGE" not in logged  # no write's query text
    service.close()  # releases the folder (its server is already gone)
    again = FalkorDBGraph.embedded(data)
    try:
        assert _whole_graph(again) == written
        assert len(written[0]) > 2_000 and len(written[1]) > 2_000
    finally:
        again.close()


def test_the_server_keeps_a_plan_for_every_statement_the_service_runs(tmp_path: Path) -> None:
    """A statement run again is executed from the server's plan cache, even after every other statement in
    cypher/ has run since: FalkorDB's default cache (25 plans) is smaller than cypher/, and a statement
    evicted from it is planned again each time (QUERY_PLAN_CACHE)."""
    from graph_service.storage import queries
    from graph_service.storage.falkordb_adapter import FalkorDBGraph

    graph = FalkorDBGraph.embedded(tmp_path / "data")
    try:
        connection = graph._db.connection  # type: ignore[attr-defined]
        size = connection.execute_command("GRAPH.CONFIG", "GET", "CACHE_SIZE")[1]
        assert size >= len(queries.available()), (size, len(queries.available()))
        # 40 distinct statements in turn, twice: the second time every one is found planned.
        texts = [f"MATCH (n:Probe {{id: $id}}) RETURN n.id AS id, {k} AS turn" for k in range(40)]
        for text in texts:
            graph._graph.query(text, {"id": "p"})  # type: ignore[attr-defined]
        again = [graph._graph.query(text, {"id": "p"}).cached_execution for text in texts]  # type: ignore[attr-defined]
        assert all(again), again
    finally:
        graph.close()


def test_a_statement_of_another_thread_during_a_stop_does_not_start_the_server_again(tmp_path: Path,
                                                                                       monkeypatch: pytest.MonkeyPatch
                                                                                       ) -> None:
    """Closing a store while another thread still runs a statement (a background check, a late request): the
    statement finds the server gone as the stop shuts it down, and must fail, not start a new server under the
    stop (found in the suite: the restart took the process from under the stop, which then failed)."""
    import redis

    from graph_service.storage.falkordb_adapter import FalkorDBGraph

    graph = FalkorDBGraph.embedded(tmp_path / "data")
    server = graph._server  # type: ignore[attr-defined]
    assert server is not None
    outcome: list[BaseException | None] = []
    late = threading.Thread(target=lambda: outcome.append(_raised(lambda: graph.run("head_read"))))
    shut_down = EmbeddedFalkorDB._ask_to_shut_down

    def shut_down_then_a_statement(self: EmbeddedFalkorDB) -> bool:
        answered = shut_down(self)
        assert self._process is not None
        self._process.wait(timeout=30)  # the server is gone: the late statement finds its socket closed
        late.start()
        late.join(timeout=5)  # it waits for the stop to finish (or fails at once), never restarts the server
        return answered

    monkeypatch.setattr(EmbeddedFalkorDB, "_ask_to_shut_down", shut_down_then_a_statement)
    graph.close()
    late.join(timeout=60)
    assert not late.is_alive() and len(outcome) == 1
    assert isinstance(outcome[0], redis.ConnectionError), outcome
    assert graph.restarts == 0 and server.pid is None
    with pytest.raises(redis.ConnectionError):  # and no server answers on the store's socket
        redis.Redis(unix_socket_path=str(server.socket_path), socket_timeout=2).ping()


def _raised(call: Callable[[], object]) -> BaseException | None:
    try:
        call()
    except BaseException as exc:  # the test looks at what it raised
        return exc
    return None
