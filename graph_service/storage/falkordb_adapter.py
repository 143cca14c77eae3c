"""The FalkorDB adapter: the only module that imports the `falkordb` client."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import redis
from falkordb import FalkorDB
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from graph_service.storage import queries
from graph_service.storage.falkordb_server import EmbeddedFalkorDB
from graph_service.storage.port import ConstraintViolation
from graph_service.types import Params, Row

GRAPH_NAME = "graph_service"
# How long /healthz waits for the server's PING: it answers at once unless its main thread is stuck
# (see storage.falkordb_server.STALL_SECONDS), and the queries' own connections wait without limit.
HEALTH_TIMEOUT = 1.0
log = logging.getLogger(__name__)


class ServerNotAnswering(RuntimeError):
    """The FalkorDB server is running but does not answer PING."""


class FalkorDBGraph:
    """The graph port on FalkorDB: each named query is one atomic GRAPH.QUERY."""

    backend = "falkordb"

    def __init__(self, *, socket_path: str | Path, graph: str = GRAPH_NAME,
                 server: EmbeddedFalkorDB | None = None) -> None:
        self._server = server
        self._socket_path = str(socket_path)
        self._graph_name = graph
        self.restarts = 0
        self._db = FalkorDB(unix_socket_path=str(socket_path))
        self._graph = self._db.select_graph(graph)
        self._probe: redis.Redis | None = None

    @classmethod
    def embedded(cls, data_dir: str | Path, graph: str = GRAPH_NAME) -> FalkorDBGraph:
        """Start an embedded server on `data_dir` (owned and stopped by the adapter) and connect."""
        server = EmbeddedFalkorDB(data_dir, graph=graph).start()
        try:
            return cls(socket_path=server.socket_path, graph=graph, server=server)
        except BaseException:
            server.stop()
            raise

    def run(self, name: str, params: Params | None = None) -> list[Row]:
        try:
            return self._query(queries.load(name), params)
        except RedisConnectionError:
            # The embedded server died: start it again (its append-only file is fsynced on every
            # write, so nothing acknowledged is lost) and run the statement once more. Every write
            # we send is guarded by a compare-and-set, so one that had landed is not applied twice.
            if not self.revive():
                raise
            return self._query(queries.load(name), params)

    def revive(self, grace: float = 3.0) -> bool:
        """Restart the owned embedded server if it has died (waiting up to `grace` seconds for one that is
        dying), unless the store is being closed; True if it was restarted."""
        if self._server is None or self._server.stopping or not self._server.exited(grace):
            return False  # a server stopped by its owner (closing the store) is not started again
        log.error("the embedded FalkorDB server exited with code %s; restarting it", self._server.exit_code)
        if not self._server.restart():
            return False  # its owner began to stop it meanwhile
        self.restarts += 1
        self._db.connection.close()
        if self._probe is not None:
            self._probe.close()
            self._probe = None
        self._db = FalkorDB(unix_socket_path=str(self._server.socket_path))
        self._graph = self._db.select_graph(self._graph_name)
        return True

    def connection(self) -> dict[str, str]:
        socket_path = str(self._server.socket_path) if self._server is not None else self._socket_path
        return {"backend": self.backend, "socket": socket_path, "graph": self._graph_name}

    def health(self) -> dict[str, object]:
        """The backend's liveness for /healthz: a dead embedded server is restarted here, and said so; then
        the server (owned or a worker's, `serve --workers`) is pinged: ServerNotAnswering when it does not
        answer within HEALTH_TIMEOUT (running but stuck), ConnectionError when it is down."""
        revived = self.revive(grace=0.0)
        self._ping()
        return {"backend": self.backend, "restarts": self.restarts, "restarted_now": revived}

    def _ping(self) -> None:
        if self._probe is None:  # none yet, or dropped by a restart (revive)
            # A client of its own: one short try, whatever the queries' connections are waiting on.
            self._probe = redis.Redis(unix_socket_path=self._socket_path, socket_timeout=HEALTH_TIMEOUT,
                                      socket_connect_timeout=HEALTH_TIMEOUT, retry=Retry(NoBackoff(), 0))
        try:
            self._probe.ping()
        except RedisTimeoutError:
            raise ServerNotAnswering(f"the FalkorDB server on {self._socket_path} is running but did not answer "
                                     f"PING within {HEALTH_TIMEOUT:.0f} s") from None

    def _query(self, text: str, params: Params | None = None) -> list[Row]:
        try:
            result = self._graph.query(text, params or {})
        except ResponseError as exc:
            if "constraint" in str(exc).lower():
                raise ConstraintViolation(str(exc)) from exc
            raise
        names = [column[1] for column in result.header]
        return [dict(zip(names, row, strict=True)) for row in result.result_set]

    def setup_schema(self, timeout: float = 60.0) -> None:
        """Create the indexes and the journal's unique constraint (idempotent) and wait until they are
        operational; a server that dies meanwhile is restarted and the set-up run again, once."""
        try:
            self._setup_schema(timeout)
        except RedisConnectionError:
            if not self.revive():
                raise
            self._setup_schema(timeout)

    def _setup_schema(self, timeout: float) -> None:
        for statement in queries.statements("schema_falkordb"):
            try:
                self._query(statement)
            except ResponseError as exc:
                if "already indexed" not in str(exc):
                    raise
        self._wait_operational(timeout)
        # The journal's own guard: two entries can never share a position, whatever a writer does.
        # Created only when absent: asking again makes the server log a CRITICAL line at every start.
        existing = {(c.get("label"), tuple(c.get("properties") or ())) for c in self._graph.list_constraints()}
        if ("Entry", ("seq",)) not in existing:
            try:
                self._graph.create_node_unique_constraint("Entry", "seq")
            except ResponseError as exc:
                if "already exists" not in str(exc).lower():
                    raise
        self._wait_operational(timeout)

    def _wait_operational(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            # The client's own index listing: FalkorDB's db.indexes() is not Neo4j 5 Cypher, so it
            # cannot live in cypher/ (every file there passes Neo4j's linter).
            indices = self._graph.list_indices()
            column = [c[1] for c in indices.header].index("status")
            pending = [row for row in indices.result_set if str(row[column]).upper() != "OPERATIONAL"]
            constraints = self._graph.list_constraints()
            pending += [c for c in constraints if str(c.get("status", "OPERATIONAL")).upper() != "OPERATIONAL"]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"FalkorDB indexes not operational after {timeout}s: {pending}")
            time.sleep(0.05)

    def close(self) -> None:
        try:
            if self._probe is not None:
                self._probe.close()
            self._db.connection.close()
        finally:
            if self._server is not None:
                self._server.stop()
                self._server = None
