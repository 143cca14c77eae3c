"""The Neo4j adapter: the only module that imports the official `neo4j` driver."""

from __future__ import annotations

from neo4j import GraphDatabase, RoutingControl
from neo4j.exceptions import ConstraintError

from graph_service.storage import queries
from graph_service.storage.port import ConstraintViolation
from graph_service.types import Params, Row


class Neo4jGraph:
    """The graph port on Neo4j 5: each named query is one auto-committed transaction."""

    backend = "neo4j"

    def __init__(self, uri: str, user: str, password: str, database: str = "neo4j") -> None:
        self._driver = GraphDatabase.driver(uri, auth=(user, password))
        self._database = database
        self._driver.verify_connectivity()

    def run(self, name: str, params: Params | None = None) -> list[Row]:
        try:
            records, _, _ = self._driver.execute_query(
                queries.load(name), params or {}, database_=self._database, routing_=RoutingControl.WRITE
            )
        except ConstraintError as exc:
            raise ConstraintViolation(str(exc)) from exc
        return [record.data() for record in records]

    def setup_schema(self) -> None:
        with self._driver.session(database=self._database) as session:
            for statement in queries.statements("schema_neo4j"):
                session.run(statement).consume()
        self.run("await_indexes_neo4j")

    def close(self) -> None:
        self._driver.close()
