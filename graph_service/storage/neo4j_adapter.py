"""The Neo4j adapter: the only module that imports the official `neo4j` driver."""

from __future__ import annotations

import time

from neo4j import GraphDatabase, RoutingControl
from neo4j.exceptions import ClientError, ConstraintError, TransientError

from graph_service.storage import queries
from graph_service.storage.port import ConstraintViolation
from graph_service.types import Params, Row

_ALREADY_THERE = {
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
}


class Neo4jGraph:
    """The graph port on Neo4j 5: each named query is one auto-committed transaction."""

    backend = "neo4j"

    def __init__(self, uri: str, user: str, password: str, database: str = "neo4j") -> None:
        # "Property key does not exist" (UNRECOGNIZED) is what a young store answers to every read
        # of a property no node has yet, and "already exists" (INFORMATION) what every start's
        # schema set-up hears: neither is worth a log line per query.
        self._driver = GraphDatabase.driver(uri, auth=(user, password), notifications_min_severity="WARNING",
                                            notifications_disabled_classifications=["UNRECOGNIZED"])
        self._database = database
        self._connection = {"backend": self.backend, "uri": uri, "user": user, "password": password,
                            "database": database}
        self._driver.verify_connectivity()

    def connection(self) -> dict[str, str]:
        return dict(self._connection)

    def run(self, name: str, params: Params | None = None) -> list[Row]:
        try:
            records, _, _ = self._driver.execute_query(
                queries.load(name), params or {}, database_=self._database, routing_=RoutingControl.WRITE
            )
        except ConstraintError as exc:
            raise ConstraintViolation(str(exc)) from exc
        return [record.data() for record in records]

    def setup_schema(self, timeout: float = 120.0) -> None:
        """Create the constraints and indexes (idempotent) and wait until they are online.

        Schema statements run in auto-commit transactions, which the driver does not retry: two
        services starting at once on a new store deadlock on the schema locks (found on Neo4j 5.26),
        so a transient failure is retried here until `timeout`.
        """
        deadline = time.monotonic() + timeout
        with self._driver.session(database=self._database) as session:
            for statement in queries.statements("schema_neo4j"):
                delay = 0.05
                while True:
                    try:
                        session.run(statement).consume()
                        break
                    except TransientError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(delay)
                        delay = min(delay * 2, 1.0)
                    except ClientError as exc:
                        # IF NOT EXISTS is checked before the lock: a concurrent creator may win.
                        if exc.code not in _ALREADY_THERE:
                            raise
                        break
        self.run("await_indexes_neo4j")

    def health(self) -> dict[str, object]:
        """The backend's liveness for /healthz: the driver reaches the server."""
        self._driver.verify_connectivity()
        return {"backend": self.backend}

    def close(self) -> None:
        self._driver.close()
