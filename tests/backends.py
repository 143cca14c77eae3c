"""The backends the integration suite runs on, as the tests see them: settings, graphs, an empty store."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graph_service.config import Settings
from graph_service.storage.port import GraphPort

WHOLE_STATE = {"knowledge": "memory", "beliefs": "memory", "stream": "memory", "questions": "memory"}
"""Settings fields that hold every domain's whole state in memory (by default the service holds none)."""


@dataclass(frozen=True)
class Neo4jEndpoint:
    """Where the session's Neo4j answers (and the local server, when the suite started one)."""

    uri: str
    user: str
    password: str
    server: Any = None


@dataclass(frozen=True)
class Backend:
    """One backend for one test: `falkordb` on the test's data folder, or `neo4j` on the session's server."""

    name: str
    data_dir: Path
    neo4j: Neo4jEndpoint | None = None

    def settings(self, **overrides: Any) -> Settings:
        """Settings that open the service on this backend."""
        if self.neo4j is None:
            return Settings(data_dir=self.data_dir, **overrides)
        return Settings(data_dir=self.data_dir, neo4j_uri=self.neo4j.uri, neo4j_user=self.neo4j.user,
                        neo4j_password=self.neo4j.password, **overrides)

    def whole_state_settings(self, **overrides: Any) -> Settings:
        """`settings` holding every domain's whole state in memory but those `overrides` name: for a test whose
        reference is the whole state (or that plans on it), and for one of a domain held in the graph beside the
        others held whole."""
        return self.settings(**{**WHOLE_STATE, **overrides})

    def whole_state_env(self) -> dict[str, str]:
        """`env` with every domain's whole state held in memory (a service process a test compares with the
        whole state, or one that must replay)."""
        return {**self.env(), **{f"GRAPH_SERVICE_{name.upper()}": held for name, held in WHOLE_STATE.items()}}

    def env(self) -> dict[str, str]:
        """Environment variables that point a service process at this backend."""
        if self.neo4j is None:
            return {"GRAPH_SERVICE_DATA": str(self.data_dir)}
        return {"GRAPH_SERVICE_DATA": str(self.data_dir), "NEO4J_URI": self.neo4j.uri,
                "NEO4J_USER": self.neo4j.user, "NEO4J_PASSWORD": self.neo4j.password}

    def open_graph(self) -> GraphPort:
        """A new connection to this test's store (starting the embedded server on FalkorDB)."""
        from graph_service.storage.open import open_graph

        return open_graph(self.settings())

    def another_connection(self, graph: GraphPort) -> GraphPort:
        """A second client of the store `graph` is connected to (as another service process would be)."""
        if self.neo4j is None:
            from graph_service.storage.falkordb_adapter import FalkorDBGraph

            return FalkorDBGraph(socket_path=graph._server.socket_path)  # type: ignore[attr-defined]
        from graph_service.storage.neo4j_adapter import Neo4jGraph

        return Neo4jGraph(self.neo4j.uri, self.neo4j.user, self.neo4j.password)

    def raw(self, graph: GraphPort, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Run a statement straight on the database, bypassing the service (tampering and inspection in
        tests); the rows as lists of values."""
        if self.neo4j is None:
            return [list(r) for r in graph._graph.query(query, params or {}).result_set]  # type: ignore[attr-defined]
        return [list(r.values()) for r in graph._driver.execute_query(query, params or {}).records]  # type: ignore[attr-defined]

    def fresh_store(self, folder: Path) -> Backend:
        """An empty store on this backend, for a second service once this one's is closed: a new data
        folder on FalkorDB; on Neo4j, the session's server wiped."""
        if self.neo4j is None:
            return Backend("falkordb", folder)
        self.wipe()
        return self

    def wipe(self) -> None:
        """Empty the Neo4j store for the next test (the schema stays: it is the same for every test)."""
        assert self.neo4j is not None
        from graph_service.storage.neo4j_adapter import Neo4jGraph

        graph = Neo4jGraph(self.neo4j.uri, self.neo4j.user, self.neo4j.password)
        try:
            graph._driver.execute_query("MATCH (n) DETACH DELETE n")
        finally:
            graph.close()
